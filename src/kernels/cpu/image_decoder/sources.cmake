# The image_decoder family (ImageDecoder and its codecs): library sources and unit tests (paths
# from the repository root). The codec libraries are linked in the top-level CMakeLists.txt.
list(APPEND KILN_SOURCES
  src/kernels/cpu/image_decoder/decode_jpeg.cc
  src/kernels/cpu/image_decoder/decode_jpeg2000.cc
  src/kernels/cpu/image_decoder/decode_png.cc
  src/kernels/cpu/image_decoder/decode_raw.cc
  src/kernels/cpu/image_decoder/decode_tiff.cc
  src/kernels/cpu/image_decoder/decode_webp.cc
  src/kernels/cpu/image_decoder/image_decoder.cc
  src/kernels/cpu/image_decoder/kernels.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/image_decoder/image_decoder_test.cc)
