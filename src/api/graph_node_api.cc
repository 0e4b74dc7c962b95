// Graph API entries: nodes and types (KilnGraphApi slots 32-43, 53-71).
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/arguments.h"
#include "api/graph_api_entries.h"
#include "api/graph_handles.h"
#include "api/status.h"
#include "kernels/registry.h"

namespace kiln::api::graph {
namespace {

// A node must be in a graph for its values to be shown.
const KilnNode& Linked(const KilnNode* node) {
  const auto& n = Unwrap(node, "node");
  if (n.node == nullptr) {
    ThrowInvalidArgument("node", "is not in a graph yet (GraphAddOwnedNode links its values)");
  }
  return n;
}

std::vector<std::string> Names(const char* const* names, size_t count, const char* argument) {
  if (count > 0 && names == nullptr) ThrowInvalidArgument(argument, "is NULL");
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) +
                                         " is NULL (\"\" leaves an "
                                         "optional one out)");
    }
    out.push_back(CheckedUtf8(names[i], argument));
  }
  return out;
}

ir::TypeInfo TensorType(ir::ValueKind kind, const KilnElementType& element_type,
                        const int64_t* dims, const char* const* dim_params, size_t rank) {
  ir::TypeInfo t;
  t.kind = kind;
  if (EnumValue(element_type) != KILN_ELEMENT_TYPE_UNDEFINED) {
    t.elem = CheckedElementType(element_type, "element_type");
  }
  if (rank == KILN_RANK_UNKNOWN) return t;
  constexpr size_t kMaxRank = 64;
  if (rank > kMaxRank) {
    ThrowInvalidArgument("rank", std::to_string(rank) + " is above Kiln's limit of " +
                                     std::to_string(kMaxRank) + " (KILN_RANK_UNKNOWN: not known)");
  }
  if (rank > 0 && dims == nullptr) ThrowInvalidArgument("dims", "is NULL");
  std::vector<int64_t> d(rank);
  std::vector<std::string> symbols(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < -1) {
      ThrowInvalidArgument("dims", "entry " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                                       " (a dimension is -1, unknown, or at least 0)");
    }
    d[i] = dims[i];
    if (dim_params != nullptr && dim_params[i] != nullptr) {
      symbols[i] = CheckedUtf8(dim_params[i], "dim_params");
      if (!symbols[i].empty() && dims[i] != -1) {
        ThrowInvalidArgument("dim_params", "entry " + std::to_string(i) + " names dimension '" +
                                               symbols[i] + "', whose size " +
                                               std::to_string(dims[i]) + " is not -1");
      }
    }
  }
  t.shape = Shape(std::move(d), std::move(symbols));
  return t;
}

void PublishType(ir::TypeInfo type, KilnTypeInfo** out) {
  auto h = std::make_unique<KilnTypeInfo>();
  auto own = std::make_shared<ir::TypeInfo>(std::move(type));
  h->type = own.get();
  h->own = std::move(own);
  Publish(std::move(h), out);
}

const ir::TypeInfo& TypeOf(const KilnTypeInfo* type) {
  return *Unwrap(type, "type").type;
}

bool HasRank(const ir::TypeInfo& t) {
  return (t.kind == ir::ValueKind::kTensor || t.kind == ir::ValueKind::kSparseTensor) &&
         t.shape.has_value();
}

}  // namespace

// ---- Nodes -----------------------------------------------------------------------------------

KilnStatus* KILN_API_CALL CreateNode(const char* op_type, const char* domain, const char* name,
                                     const char* const* inputs, size_t input_count,
                                     const char* const* outputs, size_t output_count,
                                     KilnNode** out) {
  return Guard("CreateNode", [&] {
    auto spec = std::make_unique<NodeSpec>();
    spec->op_type = CheckedUtf8(op_type, "op_type");
    if (spec->op_type.empty()) ThrowInvalidArgument("op_type", "is empty");
    spec->domain = CheckedUtf8(domain, "domain");
    if (spec->domain == "ai.onnx") spec->domain.clear();
    spec->name = CheckedUtf8(name, "name");
    spec->inputs = Names(inputs, input_count, "inputs");
    spec->outputs = Names(outputs, output_count, "outputs");
    CheckOut(out, "out");
    auto h = std::make_unique<KilnNode>();
    h->spec = std::move(spec);
    Publish(std::move(h), out);
  });
}

void KILN_API_CALL ReleaseNode(KilnNode* node) {
  Release(node, "ReleaseNode");
}

KilnStatus* KILN_API_CALL NodeGetName(const KilnNode* node, KilnStringRef* out) {
  return Guard("NodeGetName", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = Ref(n.name());
  });
}

KilnStatus* KILN_API_CALL NodeGetOpType(const KilnNode* node, KilnStringRef* out) {
  return Guard("NodeGetOpType", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = Ref(n.op_type());
  });
}

KilnStatus* KILN_API_CALL NodeGetDomain(const KilnNode* node, KilnStringRef* out) {
  return Guard("NodeGetDomain", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = Ref(n.domain());
  });
}

KilnStatus* KILN_API_CALL NodeGetSinceVersion(const KilnNode* node, int64_t* out) {
  return Guard("NodeGetSinceVersion", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    const KilnModel* m = n.graph != nullptr ? ModelOf(*n.graph) : nullptr;
    if (m == nullptr) {
      *out = 0;
      return;
    }
    int64_t opset = n.node->opset();
    if (opset <= 0) {
      auto it = m->model->opsets.find(n.domain());
      opset = it != m->model->opsets.end() ? it->second : 0;
    }
    const int64_t onnx = OnnxSinceVersion(n.domain(), n.op_type(), opset);
    if (onnx > 0) {
      *out = onnx;
      return;
    }
    // Not an ONNX op: the first opset the kernel that runs it is registered for.
    std::lock_guard<std::mutex> lock(GraphMutex());
    const KernelDef* def = KernelDefOf(n);
    if (def == nullptr && opset > 0) def = CpuKernels().Find(n.domain(), n.op_type(), opset);
    *out = def != nullptr ? def->since : opset;
  });
}

KilnStatus* KILN_API_CALL NodeGetNumInputs(const KilnNode* node, size_t* out) {
  return Guard("NodeGetNumInputs", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = n.spec ? n.spec->inputs.size() : n.node->inputs().size();
  });
}

KilnStatus* KILN_API_CALL NodeGetInput(const KilnNode* node, size_t index, KilnValueInfo** out) {
  return Guard("NodeGetInput", [&] {
    const auto& n = Linked(node);
    CheckIndex(index, n.node->inputs().size(), "inputs");
    CheckOut(out, "out");
    ir::Value* v = n.node->inputs()[index];
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = v != nullptr ? ValueHandle(*n.graph, v) : nullptr;
  });
}

KilnStatus* KILN_API_CALL NodeGetNumOutputs(const KilnNode* node, size_t* out) {
  return Guard("NodeGetNumOutputs", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = n.spec ? n.spec->outputs.size() : n.node->outputs().size();
  });
}

KilnStatus* KILN_API_CALL NodeGetOutput(const KilnNode* node, size_t index, KilnValueInfo** out) {
  return Guard("NodeGetOutput", [&] {
    const auto& n = Linked(node);
    CheckIndex(index, n.node->outputs().size(), "outputs");
    CheckOut(out, "out");
    ir::Value* v = n.node->outputs()[index];
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = v != nullptr ? ValueHandle(*n.graph, v) : nullptr;
  });
}

KilnStatus* KILN_API_CALL NodeGetNumImplicitInputs(const KilnNode* node, size_t* out) {
  return Guard("NodeGetNumImplicitInputs", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    if (n.graph != nullptr) Relink(*n.graph);
    *out = n.spec ? 0 : n.node->implicit_inputs().size();
  });
}

KilnStatus* KILN_API_CALL NodeGetImplicitInput(const KilnNode* node, size_t index,
                                               KilnValueInfo** out) {
  return Guard("NodeGetImplicitInput", [&] {
    const auto& n = Linked(node);
    std::lock_guard<std::mutex> lock(GraphMutex());
    Relink(*n.graph);
    CheckIndex(index, n.node->implicit_inputs().size(), "implicit inputs");
    CheckOut(out, "out");
    *out = ValueHandle(*n.graph, n.node->implicit_inputs()[index]);
  });
}

KilnStatus* KILN_API_CALL NodeGetNumAttributes(const KilnNode* node, size_t* out) {
  return Guard("NodeGetNumAttributes", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = n.attrs().size();
  });
}

KilnStatus* KILN_API_CALL NodeGetAttribute(const KilnNode* node, size_t index,
                                           KilnAttribute** out) {
  return Guard("NodeGetAttribute", [&] {
    const auto& n = Unwrap(node, "node");
    CheckIndex(index, n.attrs().size(), "attributes");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = AttributeHandle(n, index);
  });
}

KilnStatus* KILN_API_CALL NodeGetAttributeByName(const KilnNode* node, const char* name,
                                                 KilnAttribute** out) {
  return Guard("NodeGetAttributeByName", [&] {
    const auto& n = Unwrap(node, "node");
    const std::string wanted = CheckedUtf8(name, "name");
    CheckOut(out, "out");
    for (size_t i = 0; i < n.attrs().size(); ++i) {
      if (n.attrs()[i].name != wanted) continue;
      std::lock_guard<std::mutex> lock(GraphMutex());
      *out = AttributeHandle(n, i);
      return;
    }
    *out = nullptr;
  });
}

KilnStatus* KILN_API_CALL NodeAddOwnedAttribute(KilnNode* node, KilnAttribute* attribute) {
  return Guard("NodeAddOwnedAttribute", [&] {
    auto& n = Unwrap(node, "node");
    if (n.graph != nullptr) CheckWritable(*n.graph, "node");
    auto& a = Unwrap(attribute, "attribute");
    CheckCallerOwned(a, "attribute");
    CheckNoCycle(n.graph, nullptr, &a, "attribute");
    std::vector<ir::Attribute>& attrs = n.attrs();
    for (const ir::Attribute& have : attrs) {
      if (have.name == a.own->name) {
        ThrowInvalidArgument("attribute", "'" + have.name +
                                              "': the node has an attribute of that "
                                              "name");
      }
    }
    std::lock_guard<std::mutex> lock(GraphMutex());
    const size_t index = attrs.size();
    attrs.reserve(index + 1);
    if (n.attributes.size() < index + 1) n.attributes.resize(index + 1);
    // Nothing below can fail.
    attrs.push_back(std::move(*a.own));
    a.own.reset();
    a.node = &n;
    a.index = index;
    n.attributes[index].reset(&a);
    registry::MakeBorrowed(&a, HandleKind::kAttribute);
    if (n.graph != nullptr) MarkChanged(*n.graph);
  });
}

KilnStatus* KILN_API_CALL NodeGetKernel(const KilnNode* node, KilnStringRef* out) {
  return Guard("NodeGetKernel", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = Ref(KernelText(n));
  });
}

KilnStatus* KILN_API_CALL NodeGetNumFusedFrom(const KilnNode* node, size_t* out) {
  return Guard("NodeGetNumFusedFrom", [&] {
    const auto& n = Unwrap(node, "node");
    CheckOut(out, "out");
    *out = n.spec ? 0 : n.node->fused_from().size();
  });
}

KilnStatus* KILN_API_CALL NodeGetFusedFrom(const KilnNode* node, size_t index, KilnStringRef* out) {
  return Guard("NodeGetFusedFrom", [&] {
    const auto& n = Unwrap(node, "node");
    CheckIndex(index, n.spec ? 0 : n.node->fused_from().size(), "nodes it was fused from");
    CheckOut(out, "out");
    *out = Ref(n.node->fused_from()[index]);
  });
}

// ---- Types -----------------------------------------------------------------------------------

KilnStatus* KILN_API_CALL CreateTensorTypeInfo(KilnElementType element_type, const int64_t* dims,
                                               const char* const* dim_params, size_t rank,
                                               KilnTypeInfo** out) {
  return Guard("CreateTensorTypeInfo", [&] {
    ir::TypeInfo t = TensorType(ir::ValueKind::kTensor, element_type, dims, dim_params, rank);
    CheckOut(out, "out");
    PublishType(std::move(t), out);
  });
}

KilnStatus* KILN_API_CALL CreateSparseTensorTypeInfo(KilnElementType element_type,
                                                     const int64_t* dims,
                                                     const char* const* dim_params, size_t rank,
                                                     KilnTypeInfo** out) {
  return Guard("CreateSparseTensorTypeInfo", [&] {
    ir::TypeInfo t = TensorType(ir::ValueKind::kSparseTensor, element_type, dims, dim_params, rank);
    CheckOut(out, "out");
    PublishType(std::move(t), out);
  });
}

KilnStatus* KILN_API_CALL CreateSequenceTypeInfo(const KilnTypeInfo* element, KilnTypeInfo** out) {
  return Guard("CreateSequenceTypeInfo", [&] {
    const ir::TypeInfo& e = *Unwrap(element, "element").type;
    CheckOut(out, "out");
    ir::TypeInfo t;
    t.kind = ir::ValueKind::kSequence;
    t.contained = std::make_shared<ir::TypeInfo>(e);
    t.elem = e.elem;
    PublishType(std::move(t), out);
  });
}

KilnStatus* KILN_API_CALL CreateOptionalTypeInfo(const KilnTypeInfo* element, KilnTypeInfo** out) {
  return Guard("CreateOptionalTypeInfo", [&] {
    const ir::TypeInfo& e = *Unwrap(element, "element").type;
    if (e.kind != ir::ValueKind::kTensor && e.kind != ir::ValueKind::kSequence) {
      ThrowInvalidArgument("element",
                           "is not a tensor or a sequence type (what an optional holds)");
    }
    CheckOut(out, "out");
    ir::TypeInfo t;
    t.kind = ir::ValueKind::kOptional;
    t.contained = std::make_shared<ir::TypeInfo>(e);
    t.elem = e.elem;
    PublishType(std::move(t), out);
  });
}

KilnStatus* KILN_API_CALL CreateMapTypeInfo(KilnElementType key, const KilnTypeInfo* value,
                                            KilnTypeInfo** out) {
  return Guard("CreateMapTypeInfo", [&] {
    const DataType k = CheckedElementType(key, "key");
    const bool integer = k == DataType::kInt8 || k == DataType::kInt16 || k == DataType::kInt32 ||
                         k == DataType::kInt64 || k == DataType::kUint8 || k == DataType::kUint16 ||
                         k == DataType::kUint32 || k == DataType::kUint64;
    if (!integer && k != DataType::kString) {
      ThrowInvalidArgument("key", std::string(DataTypeName(k)) +
                                      " is not a map key type (an integer type or STRING)");
    }
    const ir::TypeInfo& v = *Unwrap(value, "value").type;
    CheckOut(out, "out");
    ir::TypeInfo t;
    t.kind = ir::ValueKind::kMap;
    t.elem = k;
    t.contained = std::make_shared<ir::TypeInfo>(v);
    PublishType(std::move(t), out);
  });
}

void KILN_API_CALL ReleaseTypeInfo(KilnTypeInfo* type) {
  Release(type, "ReleaseTypeInfo");
}

KilnStatus* KILN_API_CALL TypeInfoGetKind(const KilnTypeInfo* type, KilnTypeKind* out) {
  return Guard("TypeInfoGetKind", [&] {
    const ir::TypeInfo& t = TypeOf(type);
    CheckOut(out, "out");
    switch (t.kind) {
      case ir::ValueKind::kTensor:
        *out = KILN_TYPE_TENSOR;
        break;
      case ir::ValueKind::kSequence:
        *out = KILN_TYPE_SEQUENCE;
        break;
      case ir::ValueKind::kMap:
        *out = KILN_TYPE_MAP;
        break;
      case ir::ValueKind::kOptional:
        *out = KILN_TYPE_OPTIONAL;
        break;
      case ir::ValueKind::kSparseTensor:
        *out = KILN_TYPE_SPARSE_TENSOR;
        break;
      case ir::ValueKind::kUnknown:
        *out = KILN_TYPE_UNDEFINED;
        break;
    }
  });
}

KilnStatus* KILN_API_CALL TypeInfoGetElementType(const KilnTypeInfo* type, KilnElementType* out) {
  return Guard("TypeInfoGetElementType", [&] {
    const ir::TypeInfo& t = TypeOf(type);
    CheckOut(out, "out");
    *out = static_cast<KilnElementType>(t.elem);
  });
}

KilnStatus* KILN_API_CALL TypeInfoGetRank(const KilnTypeInfo* type, size_t* out) {
  return Guard("TypeInfoGetRank", [&] {
    const ir::TypeInfo& t = TypeOf(type);
    CheckOut(out, "out");
    *out = HasRank(t) ? t.shape->rank() : KILN_RANK_UNKNOWN;
  });
}

KilnStatus* KILN_API_CALL TypeInfoGetDimensions(const KilnTypeInfo* type, int64_t* dims,
                                                size_t dims_len) {
  return Guard("TypeInfoGetDimensions", [&] {
    const ir::TypeInfo& t = TypeOf(type);
    if (!HasRank(t)) ThrowInvalidArgument("type", "has no known rank");
    const size_t rank = t.shape->rank();
    if (dims_len < rank) {
      ThrowInvalidArgument(
          "dims_len", std::to_string(dims_len) + " is below the rank, " + std::to_string(rank));
    }
    if (rank > 0) CheckOut(dims, "dims");
    for (size_t d = 0; d < rank; ++d) dims[d] = t.shape->dims()[d];
  });
}

KilnStatus* KILN_API_CALL TypeInfoGetDimParam(const KilnTypeInfo* type, size_t index,
                                              KilnStringRef* out) {
  return Guard("TypeInfoGetDimParam", [&] {
    const ir::TypeInfo& t = TypeOf(type);
    if (!HasRank(t)) ThrowInvalidArgument("type", "has no known rank");
    CheckIndex(index, t.shape->rank(), "dimensions");
    CheckOut(out, "out");
    const std::vector<std::string>& symbols = t.shape->symbols();
    *out = index < symbols.size() ? Ref(symbols[index]) : KilnStringRef{"", 0};
  });
}

KilnStatus* KILN_API_CALL TypeInfoGetContainedType(const KilnTypeInfo* type,
                                                   const KilnTypeInfo** out) {
  return Guard("TypeInfoGetContainedType", [&] {
    const auto& h = Unwrap(type, "type");
    CheckOut(out, "out");
    const ir::TypeInfo& t = *h.type;
    const bool has = (t.kind == ir::ValueKind::kSequence || t.kind == ir::ValueKind::kOptional ||
                      t.kind == ir::ValueKind::kMap) &&
                     t.contained != nullptr;
    if (!has) {
      *out = nullptr;
      return;
    }
    std::lock_guard<std::mutex> lock(GraphMutex());
    if (h.contained == nullptr) {
      auto made = std::make_unique<KilnTypeInfo>();
      made->own = t.contained;
      made->type = t.contained.get();
      Borrowed(h.contained, std::move(made));
    }
    *out = h.contained.get();
  });
}

}  // namespace kiln::api::graph
