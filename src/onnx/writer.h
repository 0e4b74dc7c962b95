// IR → ONNX ModelProto: the loader's inverse. Writes everything the loader reads (opset imports,
// model and graph metadata, typed inputs/outputs/value_info with symbolic dims, every attribute
// type, subgraphs with their captured names, initializers of every element type), so that
// LoadModelFile(WriteModelFile(m)) gives a graph that computes what m computes.
//
//   kiln::onnx::WriteModelFile(model, "out/model.onnx");  // weights inline (or external, > 2 GiB)
//   kiln::onnx::WriteOptions w;
//   w.external = kiln::onnx::ExternalData::kAlways;      // weights of >= 1 KiB in model.onnx.data
//   kiln::onnx::WriteModelFile(model, "out/model.onnx", w);
//   std::string bytes = kiln::onnx::ModelToBytes(model);  // for LoadModelBytes
#ifndef KILN_ONNX_WRITER_H_
#define KILN_ONNX_WRITER_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "ir/graph.h"

namespace kiln_onnx {
class ModelProto;
}  // namespace kiln_onnx

namespace kiln::onnx {

// protobuf serializes at most this many bytes (2 GiB - 1).
inline constexpr size_t kMaxProtoBytes = INT_MAX;

// Where WriteModelFile puts the bytes of large tensors.
enum class ExternalData {
  // Inline, unless the tensors' bytes would take the model past `max_proto_bytes`: then every
  // tensor of at least `external_min_bytes` goes to the external data file.
  kAuto,
  kAlways,  // every tensor of at least `external_min_bytes` goes to the external data file
  kNever,   // always inline; a model past `max_proto_bytes` is an error
};

// Whether a node of op (domain, op_type) written at opset `to` computes what it computes at
// opset `from`. The session gives one that asks the kernel registry.
using OpsetCompatible = std::function<bool(const std::string& domain, const std::string& op_type,
                                           int64_t from, int64_t to)>;

struct WriteOptions {
  ExternalData external = ExternalData::kAuto;
  size_t external_min_bytes = 1024;
  // The limit kAuto keeps the model under (tests set a small one).
  size_t max_proto_bytes = kMaxProtoBytes;
  // The external data file's name, in the model's folder; empty: "<model file name>.data". It is
  // created (or truncated) only when some tensor goes there.
  std::string external_file;
  // A ModelProto imports one version per domain, while an optimized graph may hold nodes of
  // other versions (a pass adds a Squeeze of opset 13 to an opset 11 model). Each domain is
  // written at the version the model imports (for a domain it does not import, the newest its
  // nodes use), and a node of another version is written only when this says it computes the
  // same there; null accepts only equal versions. Otherwise writing fails (kNotImplemented,
  // naming the node).
  OpsetCompatible compatible;
};

// The model as a ModelProto, every tensor inline (raw_data; string tensors in string_data).
// Throws kNotImplemented for a node whose opset cannot be written (see WriteOptions::compatible).
// Not written: what the IR does not keep (graph doc strings of subgraphs, value_info of values
// whose type is unknown, the contents of sparse-tensor and type-proto attributes, which the
// loader keeps as their type only).
::kiln_onnx::ModelProto ModelToProto(const ir::Model& model, const WriteOptions& options = {});

// ModelToProto serialized (deterministic). Throws kInvalidArgument when it would pass 2 GiB.
std::string ModelToBytes(const ir::Model& model, const WriteOptions& options = {});

// Writes the model to `path` (created or truncated), and the bytes of large tensors, per
// `options.external`, to an external data file beside it, which the loader reads back. Throws
// kNoSuchFile naming the path when a file cannot be created or written, kInvalidArgument when the
// model does not fit in a protobuf and kNever forbids external data.
void WriteModelFile(const ir::Model& model, const std::string& path,
                    const WriteOptions& options = {});

}  // namespace kiln::onnx

#endif  // KILN_ONNX_WRITER_H_
