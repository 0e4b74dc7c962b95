#include "model_stats.h"

#include <algorithm>

#include "args.h"
#include "tensor_file.h"

namespace kiln::cli {
namespace {

std::string DomainName(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" ? "ai.onnx" : domain;
}

int64_t ElementCount(const google::protobuf::RepeatedField<int64_t>& dims) {
  int64_t count = 1;
  for (const int64_t d : dims) count *= d;
  return count;
}

void CountGraph(const onnx::GraphProto& graph, ModelStats& stats) {
  for (const onnx::TensorProto& t : graph.initializer()) {
    stats.parameter_count += ElementCount(t.dims());
    ++stats.initializer_count;
  }
  for (const onnx::SparseTensorProto& t : graph.sparse_initializer()) {
    stats.parameter_count += ElementCount(t.dims());
    ++stats.initializer_count;
  }
  for (const onnx::NodeProto& node : graph.node()) {
    const std::string domain = DomainName(node.domain());
    ++stats.op_counts[domain == "ai.onnx" ? node.op_type() : domain + "::" + node.op_type()];
    ++stats.node_count;
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) CountGraph(a.g(), stats);
      for (const onnx::GraphProto& g : a.graphs()) CountGraph(g, stats);
    }
  }
}

bool TypeDeclaresRank(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return type.tensor_type().has_shape();
    case onnx::TypeProto::kSparseTensorType:
      return type.sparse_tensor_type().has_shape();
    case onnx::TypeProto::kSequenceType:
      return type.sequence_type().has_elem_type() &&
             TypeDeclaresRank(type.sequence_type().elem_type());
    case onnx::TypeProto::kOptionalType:
      return type.optional_type().has_elem_type() &&
             TypeDeclaresRank(type.optional_type().elem_type());
    default:
      return true;
  }
}

}  // namespace

onnx::ModelProto LoadModelProto(const std::string& path) {
  const std::string bytes = ReadFile(path);
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw Error(path + ": not a serialized ONNX ModelProto");
  return model;
}

ModelStats ComputeModelStats(const onnx::ModelProto& model) {
  ModelStats stats;
  stats.ir_version = model.ir_version();
  for (const onnx::OperatorSetIdProto& op : model.opset_import()) {
    stats.opset_imports.emplace_back(DomainName(op.domain()), op.version());
  }
  CountGraph(model.graph(), stats);
  return stats;
}

bool ValueDeclaresRank(const onnx::ModelProto& model, const std::string& name, bool output) {
  const auto& values = output ? model.graph().output() : model.graph().input();
  for (const onnx::ValueInfoProto& v : values) {
    if (v.name() == name) return v.has_type() && TypeDeclaresRank(v.type());
  }
  return true;
}

bool DeclaresOptionalSequence(const onnx::ModelProto& model, const std::string& name, bool output) {
  const auto& values = output ? model.graph().output() : model.graph().input();
  for (const onnx::ValueInfoProto& v : values) {
    if (v.name() == name) {
      return v.type().has_optional_type() &&
             v.type().optional_type().elem_type().has_sequence_type();
    }
  }
  return false;
}

std::vector<std::pair<std::string, int64_t>> SortedOpCounts(const ModelStats& stats) {
  std::vector<std::pair<std::string, int64_t>> sorted(stats.op_counts.begin(),
                                                      stats.op_counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

}  // namespace kiln::cli
