// PNG through libpng. Like libjpeg, libpng reports errors through a callback that must not
// return: ours longjmps (png_longjmp) back to the setjmp of the step that called into the
// library, whose locals are all trivially destructible; the kernel throws afterwards.
// Gray and gray+alpha decode to 1 channel, the rest to RGB; alpha is dropped, 16-bit samples
// keep their high byte and palettes are expanded (what Pillow's conversions give).
#include <png.h>

#include <cstdio>
#include <cstring>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

struct PngSource {
  const uint8_t* data;
  size_t size;
  size_t pos;
  char message[256];
};

void OnRead(png_structp png, png_bytep out, size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->pos) png_error(png, "the data ends early");
  std::memcpy(out, src->data + src->pos, n);
  src->pos += n;
}

[[noreturn]] void OnError(png_structp png, png_const_charp message) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->message, sizeof(src->message), "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}  // the library must never print

bool ReadHeader(png_structp png, png_infop info, int* channels) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_user_limits(png, 1u << 20, 1u << 20);
  png_read_info(png, info);
  const int color = png_get_color_type(png, info);
  *channels = (color & PNG_COLOR_MASK_COLOR) != 0 ? 3 : 1;
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY) png_set_expand_gray_1_2_4_to_8(png);
  png_set_strip_16(png);
  png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_channels(png, info) != *channels || png_get_bit_depth(png, info) != 8) {
    png_error(png, "unsupported sample layout");
  }
  return true;
}

bool ReadPixels(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  return true;
}

struct PngGuard {
  png_structp png;
  png_infop info;
  ~PngGuard() { png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr); }
};

}  // namespace

void DecodePng(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  PngSource src{data.data(), data.size(), 0, {}};
  PngGuard g{png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, OnError, OnWarning), nullptr};
  if (g.png == nullptr) info.Fail(ErrorCode::kOutOfMemory, "libpng could not start");
  g.info = png_create_info_struct(g.png);
  if (g.info == nullptr) info.Fail(ErrorCode::kOutOfMemory, "libpng could not start");
  png_set_read_fn(g.png, &src, OnRead);
  int channels = 0;
  if (!ReadHeader(g.png, g.info, &channels)) FailDecode(info, "PNG", src.message);
  const int64_t height = png_get_image_height(g.png, g.info);
  const int64_t width = png_get_image_width(g.png, g.info);
  CheckImageSize(info, "PNG", height, width, 4);
  uint8_t* out = sink.Pixels(height, width, channels);
  auto* rows =
      static_cast<png_bytepp>(sink.Scratch(static_cast<size_t>(height) * sizeof(png_bytep)));
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(channels);
  for (int64_t y = 0; y < height; ++y) rows[y] = out + static_cast<size_t>(y) * stride;
  if (!ReadPixels(g.png, rows)) FailDecode(info, "PNG", src.message);
}

}  // namespace kiln::cpu
