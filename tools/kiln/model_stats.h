// What `kiln info` reads from the model file itself (ONNX protobuf), beside what the session
// reports: opset imports, the op histogram and the parameter count.
//
//   onnx::ModelProto model = LoadModelProto("model.onnx");
//   ModelStats stats = ComputeModelStats(model);
//   stats.op_counts["Conv"];  // nodes of type Conv, subgraphs included
#ifndef KILN_TOOLS_KILN_MODEL_STATS_H_
#define KILN_TOOLS_KILN_MODEL_STATS_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cli {

struct ModelStats {
  int64_t ir_version = 0;
  // (domain, version) in file order; the default domain is shown as "ai.onnx".
  std::vector<std::pair<std::string, int64_t>> opset_imports;
  // Op type -> node count over the main graph and every subgraph (If, Loop, Scan bodies). Ops of
  // a domain other than ai.onnx are keyed "domain::OpType".
  std::map<std::string, int64_t> op_counts;
  int64_t node_count = 0;
  // The sum of the element counts of every initializer (sparse ones at their dense size), in
  // the main graph and in subgraphs.
  int64_t parameter_count = 0;
  int64_t initializer_count = 0;
};

// Parses a model file. Throws Error when it cannot be read or parsed.
onnx::ModelProto LoadModelProto(const std::string& path);

ModelStats ComputeModelStats(const onnx::ModelProto& model);

// Whether the main graph's input (or, with `output`, output) `name` declares its rank: false
// when its type or the shape of its tensors is left out; true when there is no such value.
bool ValueDeclaresRank(const onnx::ModelProto& model, const std::string& name, bool output);

// Whether the main graph's input (or, with `output`, output) `name` is declared an optional of a
// sequence: what the C ABI does not tell, since an optional's kind reads KILN_VALUE_TYPE_OPTIONAL
// either way.
bool DeclaresOptionalSequence(const onnx::ModelProto& model, const std::string& name, bool output);

// The op types sorted by count, most frequent first, then by name.
std::vector<std::pair<std::string, int64_t>> SortedOpCounts(const ModelStats& stats);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_MODEL_STATS_H_
