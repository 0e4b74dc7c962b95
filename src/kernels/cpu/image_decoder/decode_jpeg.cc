// JPEG through libjpeg(-turbo) with its default settings (what Pillow uses). libjpeg reports a
// fatal error by calling error_exit, which must not return: ours longjmps back to the setjmp in
// the step that called into the library. Those steps hold only trivially destructible locals,
// so the jump skips no C++ destructor; the kernel then throws from ordinary C++ code.
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers

#include <jerror.h>
#include <jpeglib.h>

#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

// libjpeg's own memory pools may not exceed this (progressive images keep whole-image
// coefficient buffers).
constexpr long kMaxJpegMemory = 512L << 20;

struct JpegError {
  jpeg_error_mgr mgr;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

struct JpegState {
  jpeg_decompress_struct cinfo;
  JpegError error;
};

[[noreturn]] void OnError(j_common_ptr cinfo) {
  auto* error = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, error->message);
  std::longjmp(error->jump, 1);
}

// Warnings (level -1) about data that ends early are fatal, as in Pillow (which reports a
// truncated file); other corrupt-data warnings are recovered from, as libjpeg does. Trace
// messages (level >= 0) are dropped: the library must never print.
void OnMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) OnError(cinfo);
}

bool ReadHeader(JpegState& s, const uint8_t* data, size_t size) {
  if (setjmp(s.error.jump)) return false;
  jpeg_create_decompress(&s.cinfo);
  s.cinfo.mem->max_memory_to_use = kMaxJpegMemory;
  jpeg_mem_src(&s.cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&s.cinfo, TRUE);
  // Gray stays gray; everything else libjpeg can convert goes to RGB (CMYK/YCCK cannot: start
  // then fails with libjpeg's "Unsupported color conversion request").
  s.cinfo.out_color_space = s.cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
  return true;
}

bool ReadPixels(JpegState& s, uint8_t* out, int channels) {
  if (setjmp(s.error.jump)) return false;
  jpeg_start_decompress(&s.cinfo);
  if (s.cinfo.output_components != channels) {
    ERREXIT(&s.cinfo, JERR_CONVERSION_NOTIMPL);
  }
  const size_t stride = size_t{s.cinfo.output_width} * static_cast<size_t>(channels);
  while (s.cinfo.output_scanline < s.cinfo.output_height) {
    JSAMPROW row = out + s.cinfo.output_scanline * stride;
    jpeg_read_scanlines(&s.cinfo, &row, 1);
  }
  jpeg_finish_decompress(&s.cinfo);
  return true;
}

// Destroys the decompressor however the kernel leaves (jpeg_destroy on a zeroed or partly
// created object is safe: it checks the memory manager).
struct JpegGuard {
  JpegState& s;
  ~JpegGuard() { jpeg_destroy_decompress(&s.cinfo); }
};

}  // namespace

void DecodeJpeg(const KernelInfo& info, std::span<const uint8_t> data, ImageSink& sink) {
  JpegState s{};
  s.cinfo.err = jpeg_std_error(&s.error.mgr);
  s.error.mgr.error_exit = OnError;
  s.error.mgr.emit_message = OnMessage;
  JpegGuard guard{s};
  if (!ReadHeader(s, data.data(), data.size())) FailDecode(info, "JPEG", s.error.message);
  const int channels = s.cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3;
  CheckImageSize(info, "JPEG", s.cinfo.image_height, s.cinfo.image_width, 4);
  uint8_t* out = sink.Pixels(s.cinfo.image_height, s.cinfo.image_width, channels);
  if (!ReadPixels(s, out, channels)) FailDecode(info, "JPEG", s.error.message);
}

}  // namespace kiln::cpu
