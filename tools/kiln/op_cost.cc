#include "op_cost.h"

#include <array>
#include <string_view>

#include "graph.h"

namespace kiln::cli {
namespace {

enum class Family { kNone, kConv, kConvTranspose, kMatMul, kGemm, kAttention };

struct CountedOp {
  std::string_view op_type;
  Family family;
  size_t operand;  // the weight's input for convolutions, A's for products, Q's for attention
};

constexpr std::array kCountedOps = {
    CountedOp{"Conv", Family::kConv, 1},
    CountedOp{"ConvInteger", Family::kConv, 1},
    CountedOp{"DeformConv", Family::kConv, 1},
    CountedOp{"FusedConv", Family::kConv, 1},
    CountedOp{"NhwcConv", Family::kConv, 1},
    CountedOp{"QLinearConv", Family::kConv, 3},
    CountedOp{"NhwcQLinearConv", Family::kConv, 3},
    CountedOp{"ConvTranspose", Family::kConvTranspose, 1},
    CountedOp{"MatMul", Family::kMatMul, 0},
    CountedOp{"FusedMatMul", Family::kMatMul, 0},
    CountedOp{"MatMulInteger", Family::kMatMul, 0},
    CountedOp{"QLinearMatMul", Family::kMatMul, 0},
    CountedOp{"MatMulIntegerToFloat", Family::kMatMul, 0},
    CountedOp{"DynamicQuantizeMatMul", Family::kMatMul, 0},
    CountedOp{"MatMulNBits", Family::kMatMul, 0},
    CountedOp{"BlockedMatMul", Family::kMatMul, 0},
    CountedOp{"Gemm", Family::kGemm, 0},
    CountedOp{"QGemm", Family::kGemm, 0},
    CountedOp{"MultiHeadAttention", Family::kAttention, 0},
};

const CountedOp* Find(std::string_view op_type) {
  for (const CountedOp& op : kCountedOps) {
    if (op.op_type == op_type) return &op;
  }
  return nullptr;
}

// The element count of a shape whose every dimension is known.
std::optional<double> Count(const MaybeShape& shape) {
  if (!shape) return std::nullopt;
  double n = 1;
  for (const int64_t d : *shape) {
    if (d < 0) return std::nullopt;
    n *= static_cast<double>(d);
  }
  return n;
}

const MaybeShape& At(const std::vector<MaybeShape>& shapes, size_t i) {
  static const MaybeShape kUnknown;
  return i < shapes.size() ? shapes[i] : kUnknown;
}

int64_t Int(const OpShapes& op, const std::string& name) {
  const auto it = op.ints.find(name);
  return it == op.ints.end() ? 0 : it->second;
}

// MultiHeadAttention (com.microsoft) in the form Kiln's kernel runs (and Kiln's attention fusion
// makes): query [B, S, D], key [B, L, D], value [B, L, Dv]. Its two products, Q·Kᵀ and
// softmax·V, over all heads: 2·B·S·L·D + 2·B·S·L·Dv (the heads split D and Dv, so their number
// does not change the total). Empty for the packed forms (no key, or a key or query not of rank
// 3) and unknown dimensions.
std::optional<double> AttentionFlops(const OpShapes& op) {
  const MaybeShape& q = At(op.inputs, 0);
  const MaybeShape& k = At(op.inputs, 1);
  const MaybeShape& v = At(op.inputs, 2);
  if (!Count(q) || !Count(k) || !Count(v) || q->size() != 3 || k->size() != 3 || v->size() != 3) {
    return std::nullopt;
  }
  const auto dim = [](const MaybeShape& s, size_t i) { return static_cast<double>((*s)[i]); };
  const double scores = dim(q, 0) * dim(q, 1) * dim(k, 1);  // B·S·L
  return 2 * scores * dim(q, 2) + 2 * scores * dim(v, 2);
}

}  // namespace

bool CountsFlops(const std::string& op_type) {
  return Find(op_type) != nullptr;
}

std::optional<double> Flops(const OpShapes& op) {
  const CountedOp* counted = Find(op.op_type);
  if (counted == nullptr) return std::nullopt;
  if (counted->family == Family::kAttention) return AttentionFlops(op);
  const MaybeShape& operand = At(op.inputs, counted->operand);
  const std::optional<double> operand_size = Count(operand);
  if (!operand_size || operand->empty()) return std::nullopt;
  // A weight of no output channels holds no multiply-adds.
  const double per_channel =
      (*operand)[0] == 0 ? 0 : *operand_size / static_cast<double>((*operand)[0]);
  switch (counted->family) {
    case Family::kConv: {
      const std::optional<double> y = Count(At(op.outputs, 0));
      if (!y) return std::nullopt;
      double flops = 2 * *y * per_channel;
      if (op.op_type == "NhwcConv" && Int(op, "expand") != 0) {
        const std::optional<double> x = Count(At(op.inputs, 0));
        const MaybeShape& expand_w = At(op.inputs, 4);
        if (!x || !expand_w || expand_w->empty() || (*expand_w)[0] < 0) return std::nullopt;
        flops += 2 * *x * static_cast<double>((*expand_w)[0]);
      }
      return flops;
    }
    case Family::kConvTranspose: {
      const std::optional<double> x = Count(At(op.inputs, 0));
      if (!x) return std::nullopt;
      return 2 * *x * per_channel;
    }
    case Family::kMatMul:
    case Family::kGemm: {
      const std::optional<double> y = Count(At(op.outputs, 0));
      if (!y || Int(op, "transBatchA") != 0) return std::nullopt;
      const std::vector<int64_t>& a = *operand;
      const bool trans_a = Int(op, "transA") != 0 && a.size() >= 2;
      const int64_t k = trans_a ? a[a.size() - 2] : a.back();
      return 2 * *y * static_cast<double>(k);
    }
    case Family::kAttention:  // AttentionFlops
    case Family::kNone:
      break;
  }
  return std::nullopt;
}

namespace {

// The shape of a value of the view, symbolic dimensions looked up in `dims`.
MaybeShape ShapeOf(const KilnValueInfo* value, const std::map<std::string, int64_t>& dims) {
  if (value == nullptr) return std::nullopt;
  const KilnGraphApi& g = GraphApi();
  const KilnTypeInfo* type = nullptr;
  Check(g.ValueInfoGetType(value, &type), "profile: a value's type");
  KilnTypeKind kind = KILN_TYPE_UNDEFINED;
  Check(g.TypeInfoGetKind(type, &kind), "profile: a value's type");
  size_t rank = KILN_RANK_UNKNOWN;
  if (kind == KILN_TYPE_TENSOR) Check(g.TypeInfoGetRank(type, &rank), "profile: a value's rank");
  if (kind != KILN_TYPE_TENSOR || rank == KILN_RANK_UNKNOWN) return std::nullopt;
  std::vector<int64_t> shape(rank);
  if (rank != 0) {
    Check(g.TypeInfoGetDimensions(type, shape.data(), rank), "profile: a value's shape");
  }
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] >= 0) continue;
    KilnStringRef name{};
    Check(g.TypeInfoGetDimParam(type, d, &name), "profile: a value's shape");
    const auto it = dims.find(Text(name));
    if (it != dims.end()) shape[d] = it->second;
  }
  return shape;
}

void AddNodes(const KilnGraph* graph, const std::map<std::string, int64_t>& dims,
              std::map<std::string, NodeCost>& nodes) {
  const KilnGraphApi& g = GraphApi();
  size_t count = 0;
  Check(g.GraphGetNumNodes(graph, &count), "profile: the optimized graph");
  for (size_t i = 0; i < count; ++i) {
    KilnNode* node = nullptr;
    Check(g.GraphGetNode(graph, i, &node), "profile: the optimized graph");
    KilnStringRef name{}, op_type{}, domain{};
    Check(g.NodeGetName(node, &name), "profile: a node's name");
    Check(g.NodeGetOpType(node, &op_type), "profile: a node's op type");
    Check(g.NodeGetDomain(node, &domain), "profile: a node's domain");
    OpShapes op{Text(op_type), {}, {}, {}};
    NodeCost cost;
    const std::string domain_text = Text(domain);
    cost.op_type = domain_text.empty() || domain_text == "ai.onnx" ? op.op_type
                                                                   : domain_text + "." + op.op_type;
    cost.counted = CountsFlops(op.op_type);
    size_t attributes = 0;
    Check(g.NodeGetNumAttributes(node, &attributes), "profile: a node's attributes");
    for (size_t a = 0; a < attributes; ++a) {
      KilnAttribute* attribute = nullptr;
      Check(g.NodeGetAttribute(node, a, &attribute), "profile: a node's attributes");
      KilnAttributeType type = KILN_ATTRIBUTE_UNDEFINED;
      Check(g.AttributeGetType(attribute, &type), "profile: a node's attributes");
      if (type == KILN_ATTRIBUTE_INT && cost.counted) {
        KilnStringRef attribute_name{};
        int64_t value = 0;
        Check(g.AttributeGetName(attribute, &attribute_name), "profile: a node's attributes");
        Check(g.AttributeGetInt(attribute, &value), "profile: a node's attributes");
        op.ints[Text(attribute_name)] = value;
      } else if (type == KILN_ATTRIBUTE_GRAPH) {
        KilnGraph* body = nullptr;
        Check(g.AttributeGetGraph(attribute, &body), "profile: a subgraph");
        AddNodes(body, dims, nodes);
      }
    }
    if (cost.counted) {
      size_t n = 0;
      Check(g.NodeGetNumInputs(node, &n), "profile: a node's inputs");
      for (size_t k = 0; k < n; ++k) {
        KilnValueInfo* value = nullptr;
        Check(g.NodeGetInput(node, k, &value), "profile: a node's inputs");
        op.inputs.push_back(ShapeOf(value, dims));
      }
      Check(g.NodeGetNumOutputs(node, &n), "profile: a node's outputs");
      for (size_t k = 0; k < n; ++k) {
        KilnValueInfo* value = nullptr;
        Check(g.NodeGetOutput(node, k, &value), "profile: a node's outputs");
        op.outputs.push_back(ShapeOf(value, dims));
      }
      cost.flops = Flops(op);
    }
    const std::string key = Text(name);
    if (!key.empty()) nodes.emplace(key, std::move(cost));
  }
}

}  // namespace

std::map<std::string, NodeCost> NodeCosts(const kiln::Session& session,
                                          const std::map<std::string, int64_t>& dims) {
  KilnGraph* graph = nullptr;
  Check(GraphApi().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &graph),
        "profile: the optimized graph");
  std::map<std::string, NodeCost> nodes;
  AddNodes(graph, dims, nodes);
  return nodes;
}

bool SomeFlopsUnknown(const std::map<std::string, NodeCost>& nodes) {
  for (const auto& [name, cost] : nodes) {
    if (cost.counted && !cost.flops) return true;
  }
  return false;
}

int FillFlopsFrom(const kiln::Session& fixed, std::map<std::string, NodeCost>& nodes) {
  const std::map<std::string, NodeCost> known = NodeCosts(fixed, {});
  int filled = 0;
  for (auto& [name, cost] : nodes) {
    if (!cost.counted || cost.flops) continue;
    const auto it = known.find(name);
    if (it == known.end() || it->second.op_type != cost.op_type || !it->second.flops) continue;
    cost.flops = it->second.flops;
    ++filled;
  }
  return filled;
}

std::map<std::string, int64_t> FedDimensions(const kiln::Session& session, const Inputs& in) {
  std::map<std::string, int64_t> dims;
  const std::vector<std::string> names = session.input_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (session.input_value_type(i) != KILN_VALUE_TYPE_TENSOR) continue;
    const std::vector<std::string> symbols = session.input_tensor_info(i).symbolic_shape();
    for (size_t k = 0; k < in.names.size(); ++k) {
      if (in.names[k] != names[i] || !in.values[k].is_tensor()) continue;
      const std::vector<int64_t> shape = in.values[k].type_and_shape().shape();
      for (size_t d = 0; d < symbols.size() && d < shape.size(); ++d) {
        if (!symbols[d].empty()) dims.emplace(symbols[d], shape[d]);
      }
    }
  }
  return dims;
}

}  // namespace kiln::cli
