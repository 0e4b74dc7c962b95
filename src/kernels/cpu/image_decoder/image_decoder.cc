// ImageDecoder (version 20): decodes one encoded image (a 1-D uint8 tensor holding a BMP, JPEG,
// JPEG 2000, PNG, PNM, TIFF or WebP file) into [height, width, channels] uint8, with
// `pixel_format` "RGB" (default), "BGR" or "Grayscale" (1 channel). The format is told by the
// file's signature. The results match ONNX's reference (Pillow): grayscale is ITU-R 601-2 luma
// with Pillow's fixed-point rounding, JPEG is libjpeg-turbo with its defaults (islow IDCT, fancy
// upsampling). Unlike the reference, which returns an empty tensor, an image that cannot be
// decoded is an error naming the input, the format and the decoder's reason.
#include <array>
#include <cstring>
#include <string>
#include <utility>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {

void FailDecode(const KernelInfo& info, const char* format, const std::string& why) {
  info.Fail(ErrorCode::kInvalidArgument,
            std::string("input 'encoded_stream' is not a valid ") + format + " image: " + why);
}

void CheckImageSize(const KernelInfo& info, const char* format, int64_t height, int64_t width,
                    int bytes_per_pixel) {
  if (height <= 0 || width <= 0) {
    FailDecode(info, format, "its size is " + std::to_string(width) + "x" + std::to_string(height));
  }
  // Each side is checked first, so the product (at most 2^56) cannot overflow.
  if (height > kMaxImageBytes || width > kMaxImageBytes ||
      height * width > kMaxImageBytes / bytes_per_pixel) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input 'encoded_stream' holds a ") + std::to_string(width) + "x" +
                  std::to_string(height) + " " + format + " image; decoded images are limited to " +
                  std::to_string(kMaxImageBytes) + " bytes");
  }
}

namespace {

enum class PixelFormat { kRgb, kBgr, kGray };

// Pillow's convert("L"): L = R * 299/1000 + G * 587/1000 + B * 114/1000 in 16-bit fixed point,
// rounded half up.
inline uint8_t Luma(const uint8_t* rgb) {
  return static_cast<uint8_t>(
      (uint32_t{rgb[0]} * 19595 + uint32_t{rgb[1]} * 38470 + uint32_t{rgb[2]} * 7471 + 0x8000) >>
      16);
}

// Decoders write their native layout (gray or RGB); the output gets the requested one. When the
// two agree the decoder writes straight into the output, else into scratch that is converted.
class OutputSink final : public ImageSink {
 public:
  OutputSink(KernelContext& ctx, PixelFormat format) : ctx_(ctx), format_(format) {}

  uint8_t* Pixels(int64_t height, int64_t width, int channels) override {
    CheckImageSize(ctx_.info(), "decoded", height, width, 4);
    dims_ = {height, width, format_ == PixelFormat::kGray ? 1 : 3};
    channels_ = channels;
    count_ = static_cast<size_t>(height * width);
    if (channels == dims_[2]) {
      out_ = static_cast<uint8_t*>(ctx_.OutputForOverwrite(0, DataType::kUint8, dims_).data());
      return out_;
    }
    scratch_ = ctx_.Scratch<uint8_t>(count_ * static_cast<size_t>(channels));
    return scratch_;
  }

  void* Scratch(size_t bytes) override { return ctx_.Scratch<uint8_t>(bytes); }

  // Converts what the decoder wrote into the requested layout.
  void Finish() {
    if (channels_ == 0) {
      ctx_.info().Fail(ErrorCode::kFail, "the decoder produced no image");
    }
    if (scratch_ != nullptr) {
      out_ = static_cast<uint8_t*>(ctx_.OutputForOverwrite(0, DataType::kUint8, dims_).data());
      if (channels_ == 1) {  // gray to RGB/BGR
        for (size_t i = 0; i < count_; ++i) {
          std::memset(out_ + 3 * i, scratch_[i], 3);
        }
        return;
      }
      for (size_t i = 0; i < count_; ++i) out_[i] = Luma(scratch_ + 3 * i);
      return;
    }
    if (format_ == PixelFormat::kBgr) {
      for (size_t i = 0; i < count_; ++i) std::swap(out_[3 * i], out_[3 * i + 2]);
    }
  }

 private:
  KernelContext& ctx_;
  PixelFormat format_;
  std::array<int64_t, 3> dims_{};
  int channels_ = 0;
  size_t count_ = 0;
  uint8_t* out_ = nullptr;
  uint8_t* scratch_ = nullptr;
};

bool StartsWith(std::span<const uint8_t> data, std::span<const uint8_t> magic, size_t at = 0) {
  return data.size() >= at + magic.size() &&
         std::memcmp(data.data() + at, magic.data(), magic.size()) == 0;
}

template <size_t N>
std::span<const uint8_t> Magic(const char (&s)[N]) {
  return {reinterpret_cast<const uint8_t*>(s), N - 1};
}

class ImageDecoder final : public Kernel {
 public:
  explicit ImageDecoder(const KernelInfo& info) {
    const std::string f = info.GetString("pixel_format", "RGB");
    if (f == "RGB") {
      format_ = PixelFormat::kRgb;
    } else if (f == "BGR") {
      format_ = PixelFormat::kBgr;
    } else if (f == "Grayscale") {
      format_ = PixelFormat::kGray;
    } else {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'pixel_format' is \"" + f + "\"; it must be RGB, BGR or Grayscale");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (x.type() != DataType::kUint8 || x.shape().rank() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'encoded_stream' is ") + DataTypeName(x.type()) + " " +
                    x.shape().ToString() + "; expected a 1-D uint8 tensor");
    }
    const std::span<const uint8_t> data(static_cast<const uint8_t*>(x.data()), x.element_count());
    OutputSink sink(ctx, format_);
    if (StartsWith(data, Magic("\xFF\xD8\xFF"))) {
      DecodeJpeg(info, data, sink);
    } else if (StartsWith(data, Magic("\x89PNG\r\n\x1A\n"))) {
      DecodePng(info, data, sink);
    } else if (StartsWith(data, Magic("BM"))) {
      DecodeBmp(info, data, sink);
    } else if (data.size() >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6') {
      DecodePnm(info, data, sink);
    } else if (StartsWith(data, Magic("II*\0")) || StartsWith(data, Magic("MM\0*"))) {
      DecodeTiff(info, data, sink);
    } else if (StartsWith(data, Magic("RIFF")) && StartsWith(data, Magic("WEBP"), 8)) {
      DecodeWebp(info, data, sink);
    } else if (StartsWith(data, Magic("\0\0\0\x0CjP  \r\n\x87\n")) ||
               StartsWith(data, Magic("\xFF\x4F\xFF\x51"))) {
      DecodeJpeg2000(info, data, sink);
    } else {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'encoded_stream' (" + std::to_string(data.size()) +
                    " bytes) is in no known image format (BMP, JPEG, JPEG 2000, PNG, PNM, "
                    "TIFF, WebP)");
    }
    sink.Finish();
  }

 private:
  PixelFormat format_ = PixelFormat::kRgb;
};

}  // namespace

std::unique_ptr<Kernel> MakeImageDecoder(const KernelInfo& info) {
  return std::make_unique<ImageDecoder>(info);
}

}  // namespace kiln::cpu
