// ONNX ModelProto → IR. The only part of Kiln that sees protobuf. Everything is validated before
// it is used; a bad model is a kiln::Error with a precise message, never a crash.
//
//   kiln::ir::Model m = kiln::onnx::LoadModelFile("model.onnx");
//   kiln::ir::Model m2 = kiln::onnx::LoadModelBytes(bytes, size, "/models/dir");
#ifndef KILN_ONNX_LOADER_H_
#define KILN_ONNX_LOADER_H_

#include <cstddef>
#include <string>

#include "ir/graph.h"

namespace kiln::onnx {

// The IR versions Kiln reads.
inline constexpr int64_t kMinIrVersion = 3;
inline constexpr int64_t kMaxIrVersion = 13;

// Reads and converts a model file. External data files are looked up relative to the model's
// folder and must stay inside it. Errors: kNoSuchFile, kInvalidProtobuf, kInvalidGraph,
// kNotImplemented.
ir::Model LoadModelFile(const std::string& path);

// Converts a serialized model. `model_dir` is the folder external data is read from; empty means
// the model may not use external data.
ir::Model LoadModelBytes(const void* data, size_t size, const std::string& model_dir);

}  // namespace kiln::onnx

#endif  // KILN_ONNX_LOADER_H_
