# The sequence kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/sequence/kernels.cc
  src/kernels/cpu/sequence/optional_ops.cc
  src/kernels/cpu/sequence/sequence_map.cc
  src/kernels/cpu/sequence/sequence_ops.cc
  src/kernels/cpu/sequence/sequence_util.cc
  src/kernels/cpu/sequence/split_concat.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/sequence/optional_ops_test.cc
  src/kernels/cpu/sequence/sequence_map_test.cc
  src/kernels/cpu/sequence/sequence_ops_test.cc
  src/kernels/cpu/sequence/split_concat_test.cc)
