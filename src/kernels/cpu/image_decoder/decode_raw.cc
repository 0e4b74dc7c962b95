// The uncompressed formats, parsed here with every read bounds-checked: BMP (1, 4, 8-bit
// palettes, 16/24/32-bit direct colour, BI_RGB and BI_BITFIELDS; no RLE) and PNM (P1-P6, any
// maxval up to 65535, scaled to 8 bits).
#include <array>
#include <bit>
#include <string>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

uint32_t Le16(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8;
}
uint32_t Le32(const uint8_t* p) {
  return Le16(p) | Le16(p + 2) << 16;
}

// One colour channel under a BI_BITFIELDS mask, scaled to 8 bits (truncating, like Pillow).
uint8_t MaskChannel(uint32_t pixel, uint32_t mask) {
  if (mask == 0) return 0;
  const int shift = std::countr_zero(mask);
  const uint32_t max = mask >> shift;
  const uint32_t v = (pixel & mask) >> shift;
  return static_cast<uint8_t>(uint64_t{v} * 255 / max);
}

}  // namespace

void DecodeBmp(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  constexpr const char* kFmt = "BMP";
  const size_t size = data.size();
  const uint8_t* d = data.data();
  if (size < 18) FailDecode(info, kFmt, "the file header is truncated");
  const uint32_t offset = Le32(d + 10);
  const uint32_t header = Le32(d + 14);
  if (header != 12 && header < 40) {
    FailDecode(info, kFmt, "unknown info header size " + std::to_string(header));
  }
  if (size < 14 + size_t{header}) FailDecode(info, kFmt, "the info header is truncated");
  int64_t width = 0;
  int64_t height = 0;
  uint32_t bpp = 0;
  uint32_t compression = 0;
  uint32_t colors = 0;
  size_t palette_at = 14 + size_t{header};
  size_t palette_entry = 4;
  if (header == 12) {  // OS/2 BITMAPCOREHEADER
    width = Le16(d + 18);
    height = Le16(d + 20);
    bpp = Le16(d + 24);
    palette_entry = 3;
  } else {
    width = static_cast<int32_t>(Le32(d + 18));
    height = static_cast<int32_t>(Le32(d + 22));
    bpp = Le16(d + 28);
    compression = Le32(d + 30);
    colors = Le32(d + 46);
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  std::array<uint32_t, 3> masks{};             // R, G, B
  if (compression == 3 || compression == 6) {  // BI_BITFIELDS, BI_ALPHABITFIELDS
    // The masks follow a 40-byte header; larger headers hold them at the same place.
    if (size < 14 + 40 + 12) FailDecode(info, kFmt, "the colour masks are truncated");
    masks = {Le32(d + 54), Le32(d + 58), Le32(d + 62)};
    if (header == 40) palette_at += compression == 3 ? 12 : 16;
    if (bpp != 16 && bpp != 32) {
      FailDecode(info, kFmt, "bit fields with " + std::to_string(bpp) + " bits per pixel");
    }
  } else if (compression != 0) {
    FailDecode(info, kFmt,
               "compression " + std::to_string(compression) +
                   " is not supported (only BI_RGB "
                   "and BI_BITFIELDS)");
  } else if (bpp == 16) {
    masks = {0x7C00, 0x03E0, 0x001F};
  } else if (bpp == 32) {
    masks = {0xFF0000, 0x00FF00, 0x0000FF};
  }
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) {
    FailDecode(info, kFmt, std::to_string(bpp) + " bits per pixel");
  }
  CheckImageSize(info, kFmt, height, width, 4);
  const size_t stride = (static_cast<size_t>(width) * bpp + 31) / 32 * 4;
  const auto rows = static_cast<size_t>(height);
  if (offset > size || (size - offset) / stride < rows) {
    FailDecode(info, kFmt,
               "the pixel data is truncated (" + std::to_string(rows) + " rows of " +
                   std::to_string(stride) + " bytes from offset " + std::to_string(offset) +
                   " in " + std::to_string(size) + " bytes)");
  }
  std::array<uint8_t, 768> palette{};  // 256 entries of R, G, B
  if (bpp <= 8) {
    const size_t max_colors = size_t{1} << bpp;
    const size_t n = colors == 0 || colors > max_colors ? max_colors : colors;
    if (palette_at > size || (size - palette_at) / palette_entry < n) {
      FailDecode(info, kFmt, "the palette is truncated");
    }
    for (size_t i = 0; i < n; ++i) {  // stored B, G, R(, 0)
      const uint8_t* e = d + palette_at + i * palette_entry;
      palette[3 * i] = e[2];
      palette[3 * i + 1] = e[1];
      palette[3 * i + 2] = e[0];
    }
  }
  uint8_t* out = sink.Pixels(height, width, 3);
  const auto w = static_cast<size_t>(width);
  for (size_t y = 0; y < rows; ++y) {
    const uint8_t* row = d + offset + (top_down ? y : rows - 1 - y) * stride;
    uint8_t* o = out + y * w * 3;
    for (size_t x = 0; x < w; ++x, o += 3) {
      if (bpp <= 8) {
        const size_t bit = x * bpp;
        const size_t index =
            (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);  // most significant first
        o[0] = palette[3 * index];
        o[1] = palette[3 * index + 1];
        o[2] = palette[3 * index + 2];
      } else if (bpp == 24) {
        o[0] = row[3 * x + 2];
        o[1] = row[3 * x + 1];
        o[2] = row[3 * x];
      } else {
        const uint32_t p = bpp == 16 ? Le16(row + 2 * x) : Le32(row + 4 * x);
        o[0] = MaskChannel(p, masks[0]);
        o[1] = MaskChannel(p, masks[1]);
        o[2] = MaskChannel(p, masks[2]);
      }
    }
  }
}

namespace {

// Reads PNM header fields and plain-format samples: whitespace and '#' comments between tokens.
class PnmReader {
 public:
  PnmReader(const KernelInfo& info, std::span<const uint8_t> data)
      : info_(info), data_(data), pos_(2) {}

  // A decimal number of at most `max`; `digit` reads one character only (P1 allows "0110").
  uint32_t Number(const char* what, uint32_t max, bool digit = false) {
    SkipSpace();
    if (pos_ >= data_.size()) FailDecode(info_, "PNM", std::string(what) + " is missing");
    uint64_t v = 0;
    size_t n = 0;
    while (pos_ < data_.size() && data_[pos_] >= '0' && data_[pos_] <= '9' && !(digit && n == 1)) {
      v = v * 10 + (data_[pos_++] - '0');
      ++n;
      if (v > max) {
        FailDecode(info_, "PNM", std::string(what) + " is over " + std::to_string(max));
      }
    }
    if (n == 0) FailDecode(info_, "PNM", std::string(what) + " is not a number");
    return static_cast<uint32_t>(v);
  }
  size_t pos() const { return pos_; }

 private:
  void SkipSpace() {
    while (pos_ < data_.size()) {
      const uint8_t c = data_[pos_];
      if (c == '#') {
        while (pos_ < data_.size() && data_[pos_] != '\n' && data_[pos_] != '\r') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        ++pos_;
      } else {
        return;
      }
    }
  }

  const KernelInfo& info_;
  std::span<const uint8_t> data_;
  size_t pos_;
};

}  // namespace

void DecodePnm(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  constexpr const char* kFmt = "PNM";
  const int kind = data[1] - '0';  // the caller checked "P1".."P6"
  const bool bitmap = kind == 1 || kind == 4;
  const bool plain = kind <= 3;
  const int channels = kind == 3 || kind == 6 ? 3 : 1;
  PnmReader r(info, data);
  const int64_t width = r.Number("the width", 1u << 30);
  const int64_t height = r.Number("the height", 1u << 30);
  const uint32_t maxval = bitmap ? 1 : r.Number("the maxval", 65535);
  if (maxval == 0) FailDecode(info, kFmt, "the maxval is 0");
  CheckImageSize(info, kFmt, height, width, 4);
  const size_t count = static_cast<size_t>(height * width) * static_cast<size_t>(channels);
  auto scale = [maxval](uint32_t v) {
    if (v >= maxval) return uint8_t{255};
    return static_cast<uint8_t>((v * 255 + maxval / 2) / maxval);
  };
  if (plain) {
    uint8_t* out = sink.Pixels(height, width, channels);
    for (size_t i = 0; i < count; ++i) {
      const uint32_t v = r.Number("a sample", bitmap ? 1 : 65535, bitmap);
      out[i] = bitmap ? static_cast<uint8_t>(v ? 0 : 255) : scale(v);  // P1: 1 is black
    }
    return;
  }
  // One whitespace character separates the header from the raster.
  const size_t start = r.pos() + 1;
  const size_t have = data.size() > start ? data.size() - start : 0;
  const auto w = static_cast<size_t>(width);
  const auto h = static_cast<size_t>(height);
  if (bitmap) {
    const size_t stride = (w + 7) / 8;
    if (have / stride < h) FailDecode(info, kFmt, "the raster is truncated");
    uint8_t* out = sink.Pixels(height, width, 1);
    for (size_t y = 0; y < h; ++y) {
      const uint8_t* row = data.data() + start + y * stride;
      for (size_t x = 0; x < w; ++x) {
        out[y * w + x] = (row[x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
      }
    }
    return;
  }
  const size_t sample_bytes = maxval > 255 ? 2 : 1;
  if (have / sample_bytes < count) FailDecode(info, kFmt, "the raster is truncated");
  uint8_t* out = sink.Pixels(height, width, channels);
  const uint8_t* p = data.data() + start;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t v = sample_bytes == 2 ? uint32_t{p[2 * i]} << 8 | p[2 * i + 1] : p[i];
    out[i] = maxval == 255 ? static_cast<uint8_t>(v) : scale(v);
  }
}

}  // namespace kiln::cpu
