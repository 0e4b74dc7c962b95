# The elementwise kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/elementwise/activations.cc
  src/kernels/cpu/elementwise/arithmetic.cc
  src/kernels/cpu/elementwise/bitwise.cc
  src/kernels/cpu/elementwise/broadcast.cc
  src/kernels/cpu/elementwise/cast.cc
  src/kernels/cpu/elementwise/clip.cc
  src/kernels/cpu/elementwise/expand.cc
  src/kernels/cpu/elementwise/kernels.cc
  src/kernels/cpu/elementwise/logic.cc
  src/kernels/cpu/elementwise/pow.cc
  src/kernels/cpu/elementwise/unary_math.cc
  src/kernels/cpu/elementwise/variadic.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/elementwise/activations_test.cc
  src/kernels/cpu/elementwise/arithmetic_test.cc
  src/kernels/cpu/elementwise/bitwise_test.cc
  src/kernels/cpu/elementwise/broadcast_test.cc
  src/kernels/cpu/elementwise/cast_narrow_test.cc
  src/kernels/cpu/elementwise/cast_test.cc
  src/kernels/cpu/elementwise/clip_variadic_test.cc
  src/kernels/cpu/elementwise/expand_test.cc
  src/kernels/cpu/elementwise/logic_test.cc
  src/kernels/cpu/elementwise/numeric_test.cc
  src/kernels/cpu/elementwise/unary_math_test.cc)
