# The reduce kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/reduce/arg_max.cc
  src/kernels/cpu/reduce/cum_sum.cc
  src/kernels/cpu/reduce/kernels.cc
  src/kernels/cpu/reduce/reduce.cc
  src/kernels/cpu/reduce/top_k.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/reduce/arg_max_test.cc
  src/kernels/cpu/reduce/cum_sum_test.cc
  src/kernels/cpu/reduce/reduce_test.cc
  src/kernels/cpu/reduce/top_k_test.cc)
