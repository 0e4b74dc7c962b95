# The image family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/image/affine_grid.cc
  src/kernels/cpu/image/center_crop_pad.cc
  src/kernels/cpu/image/col2im.cc
  src/kernels/cpu/image/deform_conv.cc
  src/kernels/cpu/image/grid_sample.cc
  src/kernels/cpu/image/kernels.cc
  src/kernels/cpu/image/max_unpool.cc
  src/kernels/cpu/image/non_max_suppression.cc
  src/kernels/cpu/image/roi_align.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/image/grid_test.cc
  src/kernels/cpu/image/detection_test.cc
  src/kernels/cpu/image/patch_test.cc)
