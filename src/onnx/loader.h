// ONNX ModelProto → IR. The only part of Kiln that sees protobuf. Everything is validated before
// it is used; a bad model is a kiln::Error with a precise message, never a crash.
//
//   kiln::ir::Model m = kiln::onnx::LoadModelFile("model.onnx");
//   kiln::ir::Model m2 = kiln::onnx::LoadModelBytes(bytes, size, "/models/dir");
#ifndef KILN_ONNX_LOADER_H_
#define KILN_ONNX_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// The machinery behind both, exposed for tests.
namespace detail {

// raw_data of at least this many bytes in the main graph's initializers is lifted (see below).
inline constexpr size_t kLiftMinBytes = 1024;

// Where one lifted initializer's raw_data lies in the model's bytes.
struct LiftedRaw {
  int index = 0;      // in the main graph's GraphProto.initializer, as protobuf numbers them
  size_t offset = 0;  // of its first byte
  size_t size = 0;
};

// The model's bytes with the main graph's raw_data fields of at least `min_bytes` bytes left out,
// each replaced by an empty raw_data, and the enclosing length prefixes rewritten. protobuf would
// copy every such field into a std::string; left out, the loader copies it once, straight from
// the model's bytes into its tensor. nullopt when nothing is lifted, or when the bytes are not
// protobuf wire format this walk accepts: then the original bytes are parsed as they are and
// protobuf gives its verdict, so lifting never changes what loads or how it fails.
struct LiftedModel {
  std::string bytes;
  std::vector<LiftedRaw> raw;  // ascending index
};
std::optional<LiftedModel> LiftRawData(const void* data, size_t size, size_t min_bytes);

// LoadModelBytes with the lifting threshold given (SIZE_MAX: lift nothing, the plain path).
ir::Model LoadModelBytes(const void* data, size_t size, const std::string& model_dir,
                         size_t lift_min_bytes);

}  // namespace detail

}  // namespace kiln::onnx

#endif  // KILN_ONNX_LOADER_H_
