// JPEG 2000 (JP2 files and bare J2K codestreams) through OpenJPEG, reading from memory with
// stream callbacks. OpenJPEG reports errors by return value and a message callback, so no jumps.
// 1-2 components decode to gray, 3-4 to RGB (a last alpha component is dropped); samples of
// other precisions are shifted to 8 bits and signed ones offset to unsigned.
#include <openjpeg.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

struct Jp2Source {
  const uint8_t* data;
  size_t size;
  size_t pos;
  char message[256];
};

OPJ_SIZE_T OnRead(void* out, OPJ_SIZE_T n, void* user) {
  auto* src = static_cast<Jp2Source*>(user);
  if (src->pos >= src->size) return static_cast<OPJ_SIZE_T>(-1);
  const size_t count = std::min<size_t>(n, src->size - src->pos);
  std::memcpy(out, src->data + src->pos, count);
  src->pos += count;
  return count;
}

OPJ_OFF_T OnSkip(OPJ_OFF_T n, void* user) {
  auto* src = static_cast<Jp2Source*>(user);
  if (n < 0) {
    if (static_cast<size_t>(-n) > src->pos) return -1;
    src->pos -= static_cast<size_t>(-n);
    return n;
  }
  const size_t count = std::min<size_t>(static_cast<size_t>(n), src->size - src->pos);
  src->pos += count;
  return static_cast<OPJ_OFF_T>(count);
}

OPJ_BOOL OnSeek(OPJ_OFF_T at, void* user) {
  auto* src = static_cast<Jp2Source*>(user);
  if (at < 0 || static_cast<uint64_t>(at) > src->size) return OPJ_FALSE;
  src->pos = static_cast<size_t>(at);
  return OPJ_TRUE;
}

void OnError(const char* message, void* user) {
  auto* src = static_cast<Jp2Source*>(user);
  if (src->message[0] != '\0') return;  // the first error is the cause
  std::snprintf(src->message, sizeof(src->message), "%s", message);
  // OpenJPEG's messages end with a newline.
  const size_t n = std::strlen(src->message);
  if (n > 0 && src->message[n - 1] == '\n') src->message[n - 1] = '\0';
}

void OnQuiet(const char*, void*) {}  // warnings and info: the library must never print

struct Jp2Guard {
  opj_stream_t* stream = nullptr;
  opj_codec_t* codec = nullptr;
  opj_image_t* image = nullptr;
  ~Jp2Guard() {
    if (image != nullptr) opj_image_destroy(image);
    if (codec != nullptr) opj_destroy_codec(codec);
    if (stream != nullptr) opj_stream_destroy(stream);
  }
};

const char* Reason(const Jp2Source& src, const char* fallback) {
  return src.message[0] != '\0' ? src.message : fallback;
}

// One component's sample at output pixel (x, y) as 8 bits.
uint8_t Sample(const opj_image_comp_t& c, uint32_t x, uint32_t y) {
  const uint32_t cx = std::min(x / std::max(c.dx, 1u), c.w - 1);
  const uint32_t cy = std::min(y / std::max(c.dy, 1u), c.h - 1);
  int64_t v = c.data[size_t{cy} * c.w + cx];
  if (c.sgnd != 0) v += int64_t{1} << (c.prec - 1);
  if (c.prec > 8) v >>= c.prec - 8;
  if (c.prec < 8) v <<= 8 - c.prec;
  return static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
}

}  // namespace

void DecodeJpeg2000(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  constexpr const char* kFmt = "JPEG 2000";
  Jp2Source src{data.data(), data.size(), 0, {}};
  const bool jp2 = data[0] == 0;  // the caller matched the JP2 box or the J2K SOC marker
  Jp2Guard g;
  g.stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  g.codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  if (g.stream == nullptr || g.codec == nullptr) {
    info.Fail(ErrorCode::kOutOfMemory, "OpenJPEG could not start");
  }
  opj_stream_set_user_data(g.stream, &src, nullptr);
  opj_stream_set_user_data_length(g.stream, data.size());
  opj_stream_set_read_function(g.stream, OnRead);
  opj_stream_set_skip_function(g.stream, OnSkip);
  opj_stream_set_seek_function(g.stream, OnSeek);
  opj_set_error_handler(g.codec, OnError, &src);
  opj_set_warning_handler(g.codec, OnQuiet, nullptr);
  opj_set_info_handler(g.codec, OnQuiet, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (opj_setup_decoder(g.codec, &params) == OPJ_FALSE ||
      opj_read_header(g.stream, g.codec, &g.image) == OPJ_FALSE || g.image == nullptr) {
    FailDecode(info, kFmt, Reason(src, "the header is invalid"));
  }
  const int64_t width = int64_t{g.image->x1} - g.image->x0;
  const int64_t height = int64_t{g.image->y1} - g.image->y0;
  CheckImageSize(info, kFmt, height, width, 4);
  const uint32_t n = g.image->numcomps;
  if (n < 1 || n > 4) {
    FailDecode(info, kFmt, std::to_string(n) + " components (expected 1 to 4)");
  }
  if (g.image->color_space == OPJ_CLRSPC_SYCC || g.image->color_space == OPJ_CLRSPC_CMYK ||
      g.image->color_space == OPJ_CLRSPC_EYCC) {
    FailDecode(info, kFmt,
               "colour space " + std::to_string(g.image->color_space) + " is not supported");
  }
  if (opj_decode(g.codec, g.stream, g.image) == OPJ_FALSE ||
      opj_end_decompress(g.codec, g.stream) == OPJ_FALSE) {
    FailDecode(info, kFmt, Reason(src, "the image data is invalid"));
  }
  const int channels = n >= 3 ? 3 : 1;
  for (int c = 0; c < channels; ++c) {
    const opj_image_comp_t& comp = g.image->comps[c];
    if (comp.data == nullptr || comp.w == 0 || comp.h == 0 || comp.prec < 1 || comp.prec > 31) {
      FailDecode(info, kFmt, "component " + std::to_string(c) + " has no usable samples");
    }
  }
  uint8_t* out = sink.Pixels(height, width, channels);
  const auto w = static_cast<uint32_t>(width);
  const auto h = static_cast<uint32_t>(height);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      for (int c = 0; c < channels; ++c) *out++ = Sample(g.image->comps[c], x, y);
    }
  }
}

}  // namespace kiln::cpu
