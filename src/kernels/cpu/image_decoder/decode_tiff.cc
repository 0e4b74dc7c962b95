// TIFF through libtiff, reading from memory with client callbacks. libtiff reports errors by
// return value (through a per-file handler that records the message), so no jumps here. The
// first image of the file is read with TIFFReadRGBAImageOriented, which handles every
// photometric/compression/bit-depth combination libtiff supports.
#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

struct TiffSource {
  const uint8_t* data;
  size_t size;
  size_t pos;
  char message[256];
};

tmsize_t OnRead(thandle_t h, void* out, tmsize_t n) {
  auto* src = static_cast<TiffSource*>(h);
  if (n < 0) return -1;
  const size_t count = std::min(static_cast<size_t>(n), src->size - src->pos);
  std::memcpy(out, src->data + src->pos, count);
  src->pos += count;
  return static_cast<tmsize_t>(count);
}

tmsize_t OnWrite(thandle_t, void*, tmsize_t) {
  return -1;
}

toff_t OnSeek(thandle_t h, toff_t offset, int whence) {
  auto* src = static_cast<TiffSource*>(h);
  uint64_t base = 0;
  if (whence == SEEK_CUR) base = src->pos;
  if (whence == SEEK_END) base = src->size;
  if (offset > src->size || base + offset > src->size) return static_cast<toff_t>(-1);
  src->pos = static_cast<size_t>(base + offset);
  return src->pos;
}

int OnClose(thandle_t) {
  return 0;
}

toff_t OnSize(thandle_t h) {
  return static_cast<TiffSource*>(h)->size;
}

int OnMap(thandle_t, void**, toff_t*) {
  return 0;  // no mapping: libtiff reads through OnRead
}

void OnUnmap(thandle_t, void*, toff_t) {}

// Keeps the first error message; returning 1 stops libtiff from also calling the global
// handler (which prints).
int OnError(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* src = static_cast<TiffSource*>(user);
  if (src->message[0] == '\0') {
    char text[200];
    std::vsnprintf(text, sizeof(text), format, args);
    std::snprintf(src->message, sizeof(src->message), "%s: %s", module ? module : "libtiff", text);
  }
  return 1;
}

int OnWarning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}

struct TiffGuard {
  TIFFOpenOptions* options = nullptr;
  TIFF* tif = nullptr;
  ~TiffGuard() {
    if (tif != nullptr) TIFFClose(tif);
    if (options != nullptr) TIFFOpenOptionsFree(options);
  }
};

const char* Reason(const TiffSource& src) {
  return src.message[0] != '\0' ? src.message : "libtiff could not read it";
}

}  // namespace

void DecodeTiff(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  constexpr const char* kFmt = "TIFF";
  TiffSource src{data.data(), data.size(), 0, {}};
  TiffGuard g;
  g.options = TIFFOpenOptionsAlloc();
  if (g.options == nullptr) info.Fail(ErrorCode::kOutOfMemory, "libtiff could not start");
  TIFFOpenOptionsSetErrorHandlerExtR(g.options, OnError, &src);
  TIFFOpenOptionsSetWarningHandlerExtR(g.options, OnWarning, &src);
  TIFFOpenOptionsSetMaxSingleMemAlloc(g.options, kMaxImageBytes);
  // "m": no memory mapping; the rest are libtiff's defaults.
  g.tif = TIFFClientOpenExt("encoded_stream", "rm", &src, OnRead, OnWrite, OnSeek, OnClose, OnSize,
                            OnMap, OnUnmap, g.options);
  if (g.tif == nullptr) FailDecode(info, kFmt, Reason(src));
  uint32_t width = 0;
  uint32_t height = 0;
  uint16_t photometric = PHOTOMETRIC_RGB;
  uint16_t samples = 1;
  if (TIFFGetField(g.tif, TIFFTAG_IMAGEWIDTH, &width) != 1 ||
      TIFFGetField(g.tif, TIFFTAG_IMAGELENGTH, &height) != 1) {
    FailDecode(info, kFmt, "the image size is missing");
  }
  TIFFGetFieldDefaulted(g.tif, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetFieldDefaulted(g.tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  // TIFFRGBAImage premultiplies unassociated alpha into the colours; Pillow drops alpha and
  // keeps the colours as stored. Declaring the alpha associated makes libtiff copy them as they
  // are (only the in-memory directory changes).
  uint16_t extra_count = 0;
  const uint16_t* extra = nullptr;
  if (TIFFGetField(g.tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) == 1 && extra_count > 0 &&
      extra[0] == EXTRASAMPLE_UNASSALPHA) {
    auto* assoc = static_cast<uint16_t*>(sink.Scratch(extra_count * sizeof(uint16_t)));
    std::memcpy(assoc, extra, extra_count * sizeof(uint16_t));
    assoc[0] = EXTRASAMPLE_ASSOCALPHA;
    TIFFSetField(g.tif, TIFFTAG_EXTRASAMPLES, extra_count, assoc);
  }
  char why[1024] = {};
  if (TIFFRGBAImageOK(g.tif, why) != 1) FailDecode(info, kFmt, why);
  CheckImageSize(info, kFmt, height, width, 4);
  const size_t count = size_t{width} * height;
  auto* raster = static_cast<uint32_t*>(sink.Scratch(count * sizeof(uint32_t)));
  if (TIFFReadRGBAImageOriented(g.tif, width, height, raster, ORIENTATION_TOPLEFT, 0) != 1) {
    FailDecode(info, kFmt, Reason(src));
  }
  const bool gray =
      (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE) &&
      samples <= 2;
  uint8_t* out = sink.Pixels(height, width, gray ? 1 : 3);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t p = raster[i];
    if (gray) {
      out[i] = static_cast<uint8_t>(TIFFGetR(p));
    } else {
      out[3 * i] = static_cast<uint8_t>(TIFFGetR(p));
      out[3 * i + 1] = static_cast<uint8_t>(TIFFGetG(p));
      out[3 * i + 2] = static_cast<uint8_t>(TIFFGetB(p));
    }
  }
}

}  // namespace kiln::cpu
