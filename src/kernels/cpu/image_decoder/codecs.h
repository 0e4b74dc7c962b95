// The image decoders behind ImageDecoder. Each takes the untrusted encoded bytes, asks the sink
// for a pixel buffer once it knows the image's size, fills it and returns, or throws (through
// info.Fail, kInvalidArgument) with a message naming input 'encoded_stream' and the format.
//
//   struct Sink final : kiln::cpu::ImageSink {
//     uint8_t* Pixels(int64_t h, int64_t w, int channels) override { ... }
//   } sink;
//   kiln::cpu::DecodePng(info, bytes, sink);
#ifndef KILN_KERNELS_CPU_IMAGE_DECODER_CODECS_H_
#define KILN_KERNELS_CPU_IMAGE_DECODER_CODECS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kernels/kernel.h"

namespace kiln::cpu {

// The ImageDecoder kernel (image_decoder.cc), listed in kernels.cc.
std::unique_ptr<Kernel> MakeImageDecoder(const KernelInfo& info);

// Decoded images are capped at this many bytes (height * width * 4, the widest buffer a decoder
// uses), checked before anything of that size is allocated.
inline constexpr int64_t kMaxImageBytes = int64_t{1} << 28;

class ImageSink {
 public:
  virtual ~ImageSink() = default;
  // A buffer of height * width * channels bytes (channels 1: gray, 3: R, G, B), rows top to
  // bottom with no padding, valid until the kernel returns. Called once; throws (naming the
  // input) when the size is empty or over kMaxImageBytes.
  virtual uint8_t* Pixels(int64_t height, int64_t width, int channels) = 0;
  // `bytes` of temporary memory (row pointers, decode buffers), 64-byte aligned, valid until
  // the kernel returns.
  virtual void* Scratch(size_t bytes) = 0;
};

// Throws kInvalidArgument "input 'encoded_stream' is not a valid <format> image: <why>".
[[noreturn]] void FailDecode(const KernelInfo& info, const char* format, const std::string& why);
// Checks a size a decoder is about to allocate for (height * width * bytes_per_pixel).
void CheckImageSize(const KernelInfo& info, const char* format, int64_t height, int64_t width,
                    int bytes_per_pixel);

void DecodeBmp(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
void DecodePnm(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
void DecodeJpeg(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
void DecodePng(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
void DecodeTiff(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
void DecodeWebp(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);
// JPEG 2000, as a JP2 file or a bare J2K codestream.
void DecodeJpeg2000(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_IMAGE_DECODER_CODECS_H_
