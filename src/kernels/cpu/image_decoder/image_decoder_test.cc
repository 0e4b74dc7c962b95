// ImageDecoder: each format decoded from small images (BMP and PNM written here by hand; PNG,
// JPEG, TIFF, WebP and JPEG 2000 made with Pillow, in image_decoder_test_images.h), the pixel
// formats, and the errors of every decoder on truncated, corrupt and oversized data.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cpu/image_decoder/image_decoder_test_images.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using Bytes = std::vector<uint8_t>;
using V = std::vector<int64_t>;

// The image every encoded test file holds: 4 wide, 3 high, RGB.
constexpr uint8_t kSourceRgb[] = {255, 0,  0,  0,   255, 0,   0,   0,   255, 255, 255, 255,
                                  0,   0,  0,  128, 64,  32,  10,  200, 90,  250, 128, 3,
                                  17,  34, 51, 68,  85,  102, 119, 136, 153, 170, 187, 204};

template <size_t N>
Bytes ToBytes(const uint8_t (&a)[N]) {
  return Bytes(a, a + N);
}

// A literal's bytes, NULs included.
template <size_t N>
Bytes Literal(const char (&s)[N]) {
  return Bytes(s, s + N - 1);
}

Bytes FromText(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

NodeTest Decoder(const Bytes& data, const char* pixel_format = nullptr) {
  NodeTest t("ImageDecoder", 20);
  if (pixel_format != nullptr) t.Attr("pixel_format", pixel_format);
  t.Input<uint8_t>({static_cast<int64_t>(data.size())}, data);
  return t;
}

struct Decoded {
  V dims;
  Bytes pixels;
};

Decoded Decode(const Bytes& data, const char* pixel_format = nullptr) {
  auto out = Decoder(data, pixel_format).Run();
  return {out[0]->shape().dims(), Values<uint8_t>(*out[0])};
}

// The reference grayscale: ITU-R 601-2 luma in Pillow's 16-bit fixed point.
Bytes Luma(const Bytes& rgb) {
  Bytes out;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3) {
    out.push_back(static_cast<uint8_t>(
        (rgb[i] * 19595 + rgb[i + 1] * 38470 + rgb[i + 2] * 7471 + 0x8000) >> 16));
  }
  return out;
}

Bytes SwapRb(Bytes rgb) {
  for (size_t i = 0; i + 2 < rgb.size(); i += 3) std::swap(rgb[i], rgb[i + 2]);
  return rgb;
}

void ExpectDecodeError(const Bytes& data, const std::string& needle) {
  ExpectNodeError(Decoder(data), ErrorCode::kInvalidArgument, needle);
}

void Put16(Bytes& b, size_t at, uint32_t v) {
  b[at] = static_cast<uint8_t>(v);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}
void Put32(Bytes& b, size_t at, uint32_t v) {
  Put16(b, at, v & 0xFFFF);
  Put16(b, at + 2, v >> 16);
}

// A BMP with a 40-byte info header; `rows` are the stored rows (already padded to 4 bytes) in
// file order, `palette` B, G, R, 0 entries.
Bytes Bmp(int32_t width, int32_t height, uint16_t bpp, const Bytes& rows, const Bytes& palette = {},
          uint32_t compression = 0) {
  Bytes b(54);
  b[0] = 'B';
  b[1] = 'M';
  const auto offset = static_cast<uint32_t>(54 + palette.size());
  Put32(b, 2, static_cast<uint32_t>(offset + rows.size()));
  Put32(b, 10, offset);
  Put32(b, 14, 40);
  Put32(b, 18, static_cast<uint32_t>(width));
  Put32(b, 22, static_cast<uint32_t>(height));
  Put16(b, 26, 1);
  Put16(b, 28, bpp);
  Put32(b, 30, compression);
  Put32(b, 46, static_cast<uint32_t>(palette.size() / 4));
  b.insert(b.end(), palette.begin(), palette.end());
  b.insert(b.end(), rows.begin(), rows.end());
  return b;
}

// kSourceRgb as a 24-bit bottom-up BMP (rows of 12 bytes: no padding needed).
Bytes SourceBmp24() {
  Bytes rows;
  for (int y = 2; y >= 0; --y) {
    for (int x = 0; x < 4; ++x) {
      const uint8_t* p = &kSourceRgb[static_cast<size_t>(y * 4 + x) * 3];
      rows.insert(rows.end(), {p[2], p[1], p[0]});
    }
  }
  return Bmp(4, 3, 24, rows);
}

TEST(ImageDecoder, LosslessFormatsGiveTheSourcePixels) {
  const std::vector<std::pair<const char*, Bytes>> files = {
      {"PNG", ToBytes(images::kPng)},
      {"TIFF", ToBytes(images::kTiff)},
      {"WebP lossless", ToBytes(images::kWebpLossless)},
      {"JP2", ToBytes(images::kJp2)},
      {"J2K codestream", ToBytes(images::kJ2k)},
      {"BMP", SourceBmp24()},
  };
  for (const auto& [name, data] : files) {
    SCOPED_TRACE(name);
    const Decoded d = Decode(data);
    EXPECT_EQ(d.dims, (V{3, 4, 3}));
    EXPECT_EQ(d.pixels, ToBytes(kSourceRgb));
  }
}

TEST(ImageDecoder, LossyFormatsMatchPillow) {
  EXPECT_EQ(Decode(ToBytes(images::kJpeg)).pixels, ToBytes(images::kJpegRgb));
  EXPECT_EQ(Decode(ToBytes(images::kWebpLossy)).pixels, ToBytes(images::kWebpLossyRgb));
  const Decoded gray = Decode(ToBytes(images::kGrayJpeg));  // a 1-component JPEG
  EXPECT_EQ(gray.dims, (V{3, 4, 3}));
  Bytes replicated;
  for (uint8_t v : ToBytes(images::kGrayJpegGray)) replicated.insert(replicated.end(), {v, v, v});
  EXPECT_EQ(gray.pixels, replicated);
  EXPECT_EQ(Decode(ToBytes(images::kGrayJpeg), "Grayscale").pixels, ToBytes(images::kGrayJpegGray));
}

TEST(ImageDecoder, GrayscaleIsPillowsLuma) {
  // The formula agrees with Pillow's convert("L") ...
  EXPECT_EQ(Luma(ToBytes(kSourceRgb)), ToBytes(images::kPillowLuma));
  // ... and is applied to the decoded RGB of every format.
  const Decoded png = Decode(ToBytes(images::kPng), "Grayscale");
  EXPECT_EQ(png.dims, (V{3, 4, 1}));
  EXPECT_EQ(png.pixels, ToBytes(images::kPillowLuma));
  EXPECT_EQ(Decode(SourceBmp24(), "Grayscale").pixels, ToBytes(images::kPillowLuma));
  EXPECT_EQ(Decode(ToBytes(images::kJpeg), "Grayscale").pixels, Luma(ToBytes(images::kJpegRgb)));
  EXPECT_EQ(Decode(ToBytes(images::kJpeg), "Grayscale").pixels, ToBytes(images::kJpegGray));
}

TEST(ImageDecoder, BgrReversesTheChannels) {
  EXPECT_EQ(Decode(ToBytes(images::kPng), "BGR").pixels, SwapRb(ToBytes(kSourceRgb)));
  EXPECT_EQ(Decode(ToBytes(images::kJpeg), "BGR").pixels, SwapRb(ToBytes(images::kJpegRgb)));
  EXPECT_EQ(Decode(ToBytes(images::kJp2), "BGR").pixels, SwapRb(ToBytes(kSourceRgb)));
}

TEST(ImageDecoder, GrayPngExpandsToRgbAndStaysGray) {
  const Bytes gray = {0, 50, 100, 150, 200, 250, 1, 2, 3, 4, 5, 6};
  const Decoded one = Decode(ToBytes(images::kGrayPng), "Grayscale");
  EXPECT_EQ(one.dims, (V{3, 4, 1}));
  EXPECT_EQ(one.pixels, gray);
  Bytes rgb;
  for (uint8_t v : gray) rgb.insert(rgb.end(), {v, v, v});
  EXPECT_EQ(Decode(ToBytes(images::kGrayPng)).pixels, rgb);
}

TEST(ImageDecoder, AlphaIsDroppedAndPalettesExpandedAsPillowDoes) {
  const std::vector<std::tuple<const char*, Bytes, Bytes, Bytes>> files = {
      {"RGBA PNG", ToBytes(images::kRgbaPng), ToBytes(images::kRgbaPngRgb),
       ToBytes(images::kRgbaPngGray)},
      {"palette PNG with tRNS", ToBytes(images::kPalettePng), ToBytes(images::kPalettePngRgb),
       ToBytes(images::kPalettePngGray)},
      {"gray+alpha PNG", ToBytes(images::kGrayAlphaPng), ToBytes(images::kGrayAlphaPngRgb),
       ToBytes(images::kGrayAlphaPngGray)},
      {"RGBA TIFF", ToBytes(images::kRgbaTiff), ToBytes(images::kRgbaTiffRgb),
       ToBytes(images::kRgbaTiffGray)},
      {"RGBA WebP", ToBytes(images::kRgbaWebp), ToBytes(images::kRgbaWebpRgb),
       ToBytes(images::kRgbaWebpGray)},
  };
  for (const auto& [name, data, rgb, gray] : files) {
    SCOPED_TRACE(name);
    const Decoded d = Decode(data);
    EXPECT_EQ(d.dims, (V{2, 3, 3}));
    EXPECT_EQ(d.pixels, rgb);
    EXPECT_EQ(Decode(data, "Grayscale").pixels, gray);
  }
}

TEST(ImageDecoder, BmpPaletteTopDownAndDirectColour) {
  // 1-bit, 3x2, bottom-up: palette 0 = blue, 1 = yellow; rows padded to 4 bytes.
  const Bytes palette1 = {255, 0, 0, 0, 0, 255, 255, 0};
  const Bytes rows1 = {0b10100000, 0, 0, 0, 0b01000000, 0, 0, 0};  // bottom row first
  const Decoded d1 = Decode(Bmp(3, 2, 1, rows1, palette1));
  EXPECT_EQ(d1.dims, (V{2, 3, 3}));
  EXPECT_EQ(d1.pixels, (Bytes{0, 0, 255, 255, 255, 0, 0, 0, 255,  //
                              255, 255, 0, 0, 0, 255, 255, 255, 0}));
  // 8-bit palette, 2x1.
  const Bytes palette8 = {10, 20, 30, 0, 40, 50, 60, 0};
  EXPECT_EQ(Decode(Bmp(2, 1, 8, {1, 0, 0, 0}, palette8)).pixels, (Bytes{60, 50, 40, 30, 20, 10}));
  // 4-bit, 3x1: indices 1, 0, 1.
  EXPECT_EQ(Decode(Bmp(3, 1, 4, {0x10, 0x10, 0, 0}, palette8)).pixels,
            (Bytes{60, 50, 40, 30, 20, 10, 60, 50, 40}));
  // 32-bit top-down (negative height), B, G, R, X.
  const Decoded d32 = Decode(Bmp(1, -2, 32, {1, 2, 3, 0, 4, 5, 6, 0}));
  EXPECT_EQ(d32.dims, (V{2, 1, 3}));
  EXPECT_EQ(d32.pixels, (Bytes{3, 2, 1, 6, 5, 4}));
  // 16-bit 5-5-5: red = 31 -> 255, green = 16 -> 131, blue = 1 -> 8 (v * 255 / 31).
  const uint16_t p = 31 << 10 | 16 << 5 | 1;
  EXPECT_EQ(
      Decode(Bmp(1, 1, 16, {static_cast<uint8_t>(p), static_cast<uint8_t>(p >> 8), 0, 0})).pixels,
      (Bytes{255, 131, 8}));
}

TEST(ImageDecoder, BmpBitfields) {
  // BI_BITFIELDS 16-bit 5-6-5: the masks follow the 40-byte header.
  Bytes b = Bmp(1, 1, 16, {}, {}, 3);
  const Bytes masks = {0x00, 0xF8, 0, 0, 0xE0, 0x07, 0, 0, 0x1F, 0, 0, 0};
  b.insert(b.end(), masks.begin(), masks.end());
  Put32(b, 10, 54 + 12);
  const uint16_t p = 0 << 11 | 63 << 5 | 31;
  b.insert(b.end(), {static_cast<uint8_t>(p), static_cast<uint8_t>(p >> 8), 0, 0});
  EXPECT_EQ(Decode(b).pixels, (Bytes{0, 255, 255}));
}

TEST(ImageDecoder, PnmAllKinds) {
  // P6 binary RGB, P3 plain with comments, P5 gray, P2 with maxval 15 (scaled, rounded).
  Bytes p6 = FromText("P6\n# made by hand\n4 3\n255\n");
  p6.insert(p6.end(), std::begin(kSourceRgb), std::end(kSourceRgb));
  EXPECT_EQ(Decode(p6).pixels, ToBytes(kSourceRgb));
  const Decoded p3 = Decode(FromText("P3 2 1 # size\n255\n1 2 3\n# comment\n4 5 6\n"));
  EXPECT_EQ(p3.dims, (V{1, 2, 3}));
  EXPECT_EQ(p3.pixels, (Bytes{1, 2, 3, 4, 5, 6}));
  const Decoded p5 = Decode(FromText("P5 3 1 255\n\x01\x80\xff"), "Grayscale");
  EXPECT_EQ(p5.dims, (V{1, 3, 1}));
  EXPECT_EQ(p5.pixels, (Bytes{1, 128, 255}));
  EXPECT_EQ(Decode(FromText("P2 3 1 15 0 7 15"), "Grayscale").pixels, (Bytes{0, 119, 255}));
  // 16-bit samples (maxval 65535), big-endian.
  EXPECT_EQ(Decode(Literal("P5 2 1 65535\n\xff\xff\x80\x00"), "Grayscale").pixels,
            (Bytes{255, 128}));
  // Bitmaps: 1 is black. P1 digits may touch; P4 rows are padded to bytes.
  EXPECT_EQ(Decode(FromText("P1 3 2 101\n0 1 0"), "Grayscale").pixels,
            (Bytes{0, 255, 0, 255, 0, 255}));
  EXPECT_EQ(Decode(FromText("P4 3 2\n\xa0\x40"), "Grayscale").pixels,
            (Bytes{0, 255, 0, 255, 0, 255}));
}

TEST(ImageDecoder, BadAttributeAndInput) {
  ExpectNodeError(Decoder(ToBytes(images::kPng), "RGBA"), ErrorCode::kInvalidGraph,
                  "attribute 'pixel_format'");
  ExpectNodeError(NodeTest("ImageDecoder", 20).Input<float>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'encoded_stream' is float");
  ExpectNodeError(NodeTest("ImageDecoder", 20).Input<uint8_t>({1, 2}, {'B', 'M'}),
                  ErrorCode::kInvalidArgument, "expected a 1-D uint8 tensor");
  ExpectDecodeError({}, "no known image format");
  ExpectDecodeError(FromText("GIF89a......"), "no known image format");
}

TEST(ImageDecoder, TruncatedFilesFail) {
  const std::vector<std::pair<std::string, Bytes>> files = {
      {"PNG", ToBytes(images::kPng)},           {"JPEG", ToBytes(images::kJpeg)},
      {"TIFF", ToBytes(images::kTiff)},         {"WebP", ToBytes(images::kWebpLossy)},
      {"WebP", ToBytes(images::kWebpLossless)}, {"JPEG 2000", ToBytes(images::kJp2)},
      {"JPEG 2000", ToBytes(images::kJ2k)},     {"BMP", SourceBmp24()},
  };
  for (const auto& [format, data] : files) {
    // Cut at several places: in the header (after the signature), in the middle, near the end.
    // (libpng, like Pillow, stops after the image data: a cut IEND is not noticed.)
    const size_t last = data.size() - (format == "PNG" ? 16 : 2);
    for (size_t keep : {size_t{12}, size_t{20}, data.size() / 2, last}) {
      SCOPED_TRACE(format + " cut to " + std::to_string(keep) + " bytes");
      ExpectDecodeError(Bytes(data.begin(), data.begin() + static_cast<ptrdiff_t>(keep)),
                        "is not a valid " + format + " image");
    }
  }
  ExpectDecodeError(FromText("P6 4 3 255\n\x01\x02"), "PNM image: the raster is truncated");
  ExpectDecodeError(FromText("P3 2 1 255 1 2 3 4"), "PNM image: a sample is missing");
  ExpectDecodeError(FromText("P4 9 2\n\x01\x02\x03"), "PNM image: the raster is truncated");
  ExpectDecodeError(FromText("P5 4"), "PNM image: the height is missing");
}

TEST(ImageDecoder, CorruptFilesFail) {
  Bytes png = ToBytes(images::kPng);
  png[20] ^= 0xFF;  // inside IHDR: its CRC no longer matches
  ExpectDecodeError(png, "is not a valid PNG image");
  Bytes jpeg = ToBytes(images::kJpeg);
  for (size_t i = 200; i < jpeg.size() - 2; ++i) jpeg[i] = 0xFF;  // no valid markers
  ExpectDecodeError(jpeg, "is not a valid JPEG image");
  Bytes tiff = ToBytes(images::kTiff);
  Put32(tiff, 4, 100000);  // the first directory lies past the end
  ExpectDecodeError(tiff, "is not a valid TIFF image");
  Bytes webp = ToBytes(images::kWebpLossy);
  for (size_t i = 20; i < webp.size(); ++i) webp[i] = 0;
  ExpectDecodeError(webp, "is not a valid WebP image");
  Bytes j2k = ToBytes(images::kJ2k);
  for (size_t i = 4; i < 40; ++i) j2k[i] = 0xFF;  // the SIZ segment
  ExpectDecodeError(j2k, "is not a valid JPEG 2000 image");
  ExpectDecodeError(Bmp(2, 1, 8, {0, 0, 0, 0}, {}, 1), "compression 1 is not supported");
  ExpectDecodeError(Bmp(2, 1, 7, {0, 0, 0, 0}), "7 bits per pixel");
  ExpectDecodeError(Bmp(0, 1, 24, {}), "its size is 0x1");
  ExpectDecodeError(FromText("P2 1 1 0 0"), "the maxval is 0");
  ExpectDecodeError(FromText("P2 x 1 0 0"), "the width is not a number");
  ExpectDecodeError(FromText("P2 1 1 65536 0"), "the maxval is over 65535");
}

TEST(ImageDecoder, HugeImagesFailBeforeAllocating) {
  ExpectDecodeError(Bmp(100000, 100000, 24, {}), "limited to 268435456 bytes");
  ExpectDecodeError(FromText("P6 20000 20000 255\n"), "limited to 268435456 bytes");
  // The JPEG's SOF0 frame header with its size set to 65000x65000.
  Bytes jpeg = ToBytes(images::kJpeg);
  size_t sof = 2;
  while (sof + 9 < jpeg.size() && !(jpeg[sof] == 0xFF && jpeg[sof + 1] == 0xC0)) ++sof;
  ASSERT_LT(sof + 9, jpeg.size());
  jpeg[sof + 5] = jpeg[sof + 7] = 0xFD;
  jpeg[sof + 6] = jpeg[sof + 8] = 0xE8;
  ExpectDecodeError(jpeg, "JPEG image; decoded images are limited to");
  // The TIFF's ImageWidth and ImageLength (the first two directory entries, LONG values).
  Bytes tiff = ToBytes(images::kTiff);
  ASSERT_EQ(tiff[10], 0x00);
  ASSERT_EQ(tiff[11], 0x01);
  Put32(tiff, 18, 100000);
  Put32(tiff, 30, 100000);
  ExpectDecodeError(tiff, "decoded images are limited to");
}

// Damaged files decode or fail with an error naming the input; never a crash (the asan preset
// checks memory safety on the same runs). Fixed seed: the same mutations every run.
TEST(ImageDecoder, RandomlyDamagedFilesNeverCrash) {
  const std::vector<Bytes> files = {ToBytes(images::kPng),
                                    ToBytes(images::kJpeg),
                                    ToBytes(images::kTiff),
                                    ToBytes(images::kWebpLossy),
                                    ToBytes(images::kWebpLossless),
                                    ToBytes(images::kJp2),
                                    ToBytes(images::kJ2k),
                                    ToBytes(images::kPalettePng),
                                    ToBytes(images::kRgbaTiff),
                                    SourceBmp24(),
                                    Literal("P6 2 1 255\n\x01\x02\x03\x04\x05\x06")};
  std::mt19937 rng(20);
  int decoded = 0;
  int failed = 0;
  for (const Bytes& original : files) {
    for (int round = 0; round < 150; ++round) {
      Bytes data = original;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        // Keep the signature so the same decoder sees the damage.
        const size_t at = 4 + rng() % (data.size() - 4);
        data[at] = static_cast<uint8_t>(rng());
      }
      try {
        Decoder(data).Run();
        ++decoded;
      } catch (const Error& e) {
        ++failed;
        ASSERT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
        ASSERT_NE(std::string(e.what()).find("input 'encoded_stream'"), std::string::npos)
            << e.what();
      }
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace kiln::testing
