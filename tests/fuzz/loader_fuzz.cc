// libFuzzer target: arbitrary bytes as an ONNX model. Loading and planning (which creates every
// kernel, so attribute parsing is covered too) must either succeed or throw kiln::Error; any
// crash, leak, sanitizer report, hang or huge allocation is a bug.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "onnx/loader.h"
#include "runtime/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::ir::Model model = kiln::onnx::LoadModelBytes(data, size, "");
    kiln::runtime::SessionOptions options;
    options.intra_op_threads = 1;
    kiln::runtime::Session session(std::move(model), options);
  } catch (const kiln::Error&) {
    // A precise error is the expected outcome for most inputs.
  } catch (const std::bad_alloc&) {
    // Reported to users as KILN_OUT_OF_MEMORY.
  }
  return 0;
}
