// WebP (lossy and lossless, still images) through libwebp's simple decoding API, straight into
// the RGB buffer (alpha dropped, as Pillow's RGB conversion does).
#include <webp/decode.h>

#include <string>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

const char* StatusText(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "unsupported feature";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "the data ends early";
    default:
      return "decoding failed";
  }
}

}  // namespace

void DecodeWebp(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(data.data(), data.size(), &features);
  if (status != VP8_STATUS_OK) {
    FailDecode(info, "WebP", std::string("libwebp: ") + StatusText(status));
  }
  if (features.has_animation) FailDecode(info, "WebP", "animated WebP is not supported");
  CheckImageSize(info, "WebP", features.height, features.width, 4);
  const size_t stride = static_cast<size_t>(features.width) * 3;
  const size_t bytes = stride * static_cast<size_t>(features.height);
  uint8_t* out = sink.Pixels(features.height, features.width, 3);
  if (WebPDecodeRGBInto(data.data(), data.size(), out, bytes, static_cast<int>(stride)) ==
      nullptr) {
    FailDecode(info, "WebP", "libwebp could not decode the image data");
  }
}

}  // namespace kiln::cpu
