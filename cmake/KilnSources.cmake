# The library's sources, one list: libkiln.so and libkiln.a are both built from it. Unit tests
# that sit beside their sources are listed in KILN_UNIT_TEST_SOURCES. Each kernel family keeps
# its own list in src/kernels/cpu/<family>/sources.cmake.
set(KILN_SOURCES
  src/api/allocators.cc
  src/api/custom_op.cc
  src/api/custom_op_api.cc
  src/api/custom_op_kernel.cc
  src/api/arguments.cc
  src/api/api_table.cc
  src/api/env_api.cc
  src/api/graph_api_table.cc
  src/api/graph_attribute_api.cc
  src/api/graph_graph_api.cc
  src/api/graph_handles.cc
  src/api/graph_model_api.cc
  src/api/graph_node_api.cc
  src/api/graph_verify.cc
  src/api/handles.cc
  src/api/io_binding_api.cc
  src/api/memory_api.cc
  src/api/optimized_model_api.cc
  src/api/run_api.cc
  src/api/run_arguments.cc
  src/api/run_async_api.cc
  src/api/session_api.cc
  src/api/session_inputs_api.cc
  src/api/sequence_api.cc
  src/api/session_options_api.cc
  src/api/status.cc
  src/api/status_api.cc
  src/api/string_tensor_api.cc
  src/api/tensor_api.cc
  src/core/allocator.cc
  src/core/data_type.cc
  src/core/error.cc
  src/core/logging.cc
  src/core/shape.cc
  src/core/tensor.cc
  src/core/unload.cc
  src/core/thread_pool.cc
  src/core/utf8.cc
  src/core/value.cc
  src/ir/graph.cc
  src/ir/text_printer.cc
  src/onnx/loader.cc
  src/onnx/tensor_proto.cc
  src/onnx/writer.cc
  src/onnx/text_parser.cc
  src/runtime/executor.cc
  src/runtime/inference.cc
  src/runtime/memory_budget.cc
  src/runtime/options.cc
  src/runtime/plan.cc
  src/runtime/session.cc
  src/runtime/custom_op.cc
  src/runtime/shared_library.cc
  src/kernels/cpu/common.cc
  src/kernels/cpu/float_sum.cc
  src/kernels/cpu/cpu_kernels.cc
  src/kernels/kernel.cc
  src/kernels/registry.cc
)

set(KILN_UNIT_TEST_SOURCES
  src/api/graph_api_test.cc
  src/core/data_type_test.cc
  src/core/float16_test.cc
  src/core/shape_test.cc
  src/core/tensor_test.cc
  src/core/thread_cache_test.cc
  src/core/thread_pool_test.cc
  src/core/utf8_test.cc
  src/kernels/cpu/small_vector_test.cc
  src/kernels/cpu/vector_math_test.cc
  src/ir/graph_test.cc
  src/ir/text_printer_test.cc
  src/onnx/loader_test.cc
  src/onnx/text_parser_test.cc
  src/onnx/model_compare.cc
  src/onnx/round_trip_test.cc
  src/onnx/writer_test.cc
  src/runtime/executor_test.cc
  src/runtime/parallel_test.cc
  src/runtime/plan_test.cc
  src/runtime/session_test.cc
  src/runtime/custom_op_test.cc
)

# Transcendental rows in AVX-512 intrinsics (CMakeLists.txt sets the flag), used where the
# machine runs them.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND KILN_SOURCES src/kernels/cpu/vector_math_avx512.cc)
  list(APPEND KILN_UNIT_TEST_SOURCES src/kernels/cpu/vector_math_avx512_test.cc)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../src/infer/sources.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../src/optimizer/sources.cmake)
foreach(family attention contrib controlflow elementwise image linalg ml nhwc nn quant random
               reduce rnn sequence signal tensor text training)
  include(${CMAKE_CURRENT_LIST_DIR}/../src/kernels/cpu/${family}/sources.cmake)
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/../src/kernels/cpu/image_decoder/sources.cmake)
