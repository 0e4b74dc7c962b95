# The tensor kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/tensor/concat_split.cc
  src/kernels/cpu/tensor/dropout.cc
  src/kernels/cpu/tensor/gather.cc
  src/kernels/cpu/tensor/generate.cc
  src/kernels/cpu/tensor/identity.cc
  src/kernels/cpu/tensor/kernels.cc
  src/kernels/cpu/tensor/pad.cc
  src/kernels/cpu/tensor/reshape.cc
  src/kernels/cpu/tensor/resize.cc
  src/kernels/cpu/tensor/scatter.cc
  src/kernels/cpu/tensor/slice.cc
  src/kernels/cpu/tensor/tensor_util.cc
  src/kernels/cpu/tensor/transpose.cc
  src/kernels/cpu/tensor/trilu_nonzero.cc
  src/kernels/cpu/tensor/unique.cc
  src/kernels/cpu/tensor/compress_reverse.cc)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND KILN_SOURCES src/kernels/cpu/tensor/transpose_avx2.cc
                           src/kernels/cpu/tensor/transpose_avx512.cc)
endif()
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/tensor/concat_split_test.cc
  src/kernels/cpu/tensor/dropout_test.cc
  src/kernels/cpu/tensor/gather_test.cc
  src/kernels/cpu/tensor/generate_test.cc
  src/kernels/cpu/tensor/identity_test.cc
  src/kernels/cpu/tensor/pad_test.cc
  src/kernels/cpu/tensor/reshape_test.cc
  src/kernels/cpu/tensor/resize_test.cc
  src/kernels/cpu/tensor/scatter_test.cc
  src/kernels/cpu/tensor/slice_test.cc
  src/kernels/cpu/tensor/transpose_test.cc
  src/kernels/cpu/tensor/trilu_nonzero_test.cc
  src/kernels/cpu/tensor/unique_test.cc)
