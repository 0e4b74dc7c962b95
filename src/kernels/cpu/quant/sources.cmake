# The quant kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/quant/codec.cc
  src/kernels/cpu/quant/gather_block_quantized.cc
  src/kernels/cpu/quant/int8_gemm.cc
  src/kernels/cpu/quant/int_conv.cc
  src/kernels/cpu/quant/int8_kernel_avx2.cc
  src/kernels/cpu/quant/int8_kernel_vnni.cc
  src/kernels/cpu/quant/kernels.cc
  src/kernels/cpu/quant/matmul_bnb4.cc
  src/kernels/cpu/quant/matmul_nbits.cc
  src/kernels/cpu/quant/matmul_to_float.cc
  src/kernels/cpu/quant/qlinear.cc
  src/kernels/cpu/quant/qlinear_contrib.cc
  src/kernels/cpu/quant/quant_avx512.cc
  src/kernels/cpu/quant/quant_avx512bw.cc
  src/kernels/cpu/quant/quant_vbmi.cc
  src/kernels/cpu/quant/quantize.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/quant/gather_block_quantized_test.cc
  src/kernels/cpu/quant/int8_gemm_test.cc
  src/kernels/cpu/quant/matmul_bnb4_test.cc
  src/kernels/cpu/quant/matmul_nbits_test.cc
  src/kernels/cpu/quant/matmul_to_float_test.cc
  src/kernels/cpu/quant/qlinear_contrib_test.cc
  src/kernels/cpu/quant/qlinear_conv_test.cc
  src/kernels/cpu/quant/qlinear_test.cc
  src/kernels/cpu/quant/quantize_test.cc)
