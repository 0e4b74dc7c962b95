# The nhwc kernel family (ai.kiln channels-last ops): library sources and unit tests (paths from
# the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/nhwc/kernels.cc)
