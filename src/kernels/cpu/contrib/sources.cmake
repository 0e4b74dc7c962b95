# The contrib kernel family (com.microsoft fused ops): library sources and unit tests (paths from
# the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/contrib/kernels.cc)
