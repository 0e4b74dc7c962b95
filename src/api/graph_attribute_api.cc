// Graph API entries: attributes (KilnGraphApi slots 72-103).
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

namespace kiln::api::graph {
namespace {

std::string AttributeName(const char* name) {
  std::string n = CheckedUtf8(name, "name");
  if (n.empty()) ThrowInvalidArgument("name", "is empty");
  return n;
}

void PublishAttribute(ir::Attribute a, KilnAttribute** out) {
  auto h = std::make_unique<KilnAttribute>();
  h->own = std::make_unique<ir::Attribute>(std::move(a));
  Publish(std::move(h), out);
}

const ir::Attribute& Typed(const KilnAttribute* attribute, ir::AttrType type) {
  const ir::Attribute& a = Unwrap(attribute, "attribute").get();
  if (a.type != type) {
    ThrowInvalidArgument("attribute", "'" + a.name + "' is of type " + AttrTypeName(a.type) +
                                          ", not " + AttrTypeName(type));
  }
  return a;
}

size_t ListSize(const ir::Attribute& a) {
  switch (a.type) {
    case ir::AttrType::kFloats:
      return a.floats.size();
    case ir::AttrType::kInts:
      return a.ints.size();
    case ir::AttrType::kStrings:
      return a.strings.size();
    case ir::AttrType::kTensors:
      return a.tensors.size();
    case ir::AttrType::kGraphs:
      return a.graphs.size();
    case ir::AttrType::kSparseTensors:
      return a.sparse_tensors.size();
    case ir::AttrType::kTypeProtos:
      return a.type_protos.size();
    default:
      ThrowInvalidArgument("attribute",
                           "'" + a.name + "' is of type " + AttrTypeName(a.type) + ", not a list");
  }
}

std::shared_ptr<Tensor> TensorOf(const KilnValue* value, const char* argument, size_t i,
                                 bool entry) {
  const KilnValue& v = entry ? UnwrapEntry(value, argument, i) : Unwrap(value, argument);
  RefuseLent(v, argument);
  if (v.tensor == nullptr) {
    ThrowInvalidArgument(argument, (entry ? "entry " + std::to_string(i) + " is a " : "is a ") +
                                       v.other.TypeText() + ", not a tensor");
  }
  return v.tensor;
}

// Takes the caller's graphs into a new GRAPH or GRAPHS attribute and publishes it: all or nothing.
void PublishWithGraphs(std::string name, KilnGraph* const* graphs, size_t count, bool list,
                       KilnAttribute** out) {
  std::unordered_set<const KilnGraph*> seen;
  for (size_t i = 0; i < count; ++i) {
    const char* argument = list ? "graphs" : "graph";
    if (graphs[i] == nullptr)
      ThrowInvalidArgument(argument, list ? "entry " + std::to_string(i) + " is NULL" : "is NULL");
    const std::string entry = list ? "graphs[" + std::to_string(i) + "]" : "graph";
    CheckHandle(graphs[i], HandleKind::kGraph, entry.c_str());
    CheckCallerOwned(*graphs[i], entry.c_str());
    if (!seen.insert(graphs[i]).second) {
      ThrowInvalidArgument("graphs", "entry " + std::to_string(i) + " is given twice");
    }
  }
  CheckOut(out, "out");
  auto h = std::make_unique<KilnAttribute>();
  h->own = std::make_unique<ir::Attribute>();
  h->own->name = std::move(name);
  h->own->type = list ? ir::AttrType::kGraphs : ir::AttrType::kGraph;
  h->graphs.resize(count);
  if (list) h->own->graphs.resize(count);
  for (size_t i = 0; i < count; ++i) {
    (list ? h->own->graphs[i] : h->own->g) = graphs[i]->graph;
  }
  registry::Add(h.get(), HandleKind::kAttribute);
  // Nothing below can fail.
  for (size_t i = 0; i < count; ++i) {
    h->graphs[i].reset(graphs[i]);
    graphs[i]->attribute = h.get();
    registry::MakeBorrowed(graphs[i], HandleKind::kGraph);
  }
  *out = h.release();
}

// A sparse tensor from the caller's parts, checked; `what` names the entry of a list ("" for one).
std::shared_ptr<const ir::SparseTensor> SparseOf(const KilnValue* values, const KilnValue* indices,
                                                 const int64_t* dims, size_t rank, size_t i,
                                                 bool entry) {
  auto s = std::make_shared<ir::SparseTensor>();
  s->values = TensorOf(values, "values", i, entry);
  s->indices = TensorOf(indices, "indices", i, entry);
  if (rank == 0) ThrowInvalidArgument(entry ? "ranks" : "rank", "is 0 (a dense shape has a rank)");
  constexpr size_t kMaxRank = 64;
  if (rank > kMaxRank) {
    ThrowInvalidArgument(entry ? "ranks" : "rank", std::to_string(rank) + " is above 64");
  }
  if (dims == nullptr) {
    ThrowInvalidArgument("dims", entry ? "entry " + std::to_string(i) + " is NULL" : "is NULL");
  }
  s->dims.assign(dims, dims + rank);
  const std::string problem = ir::SparseTensorProblem(*s);
  if (!problem.empty()) {
    std::string what = entry ? "sparse tensor " + std::to_string(i) + " " : "the sparse tensor ";
    what += problem;
    ThrowInvalidArgument(entry ? "values" : "indices", what);
  }
  return s;
}

// The borrowed handles of sparse tensor `k` of an attribute (made on first use; under
// GraphMutex()).
void SparseParts(const KilnAttribute& attribute, const ir::SparseTensor& s, size_t k,
                 const KilnValue** values, const KilnValue** indices) {
  auto& slots = attribute.sparse_parts;
  if (slots.size() < 2 * k + 2) slots.resize(2 * k + 2);
  const KilnValue* v = TensorHandle(slots[2 * k], s.values);
  const KilnValue* i = TensorHandle(slots[2 * k + 1], s.indices);
  *values = v;
  *indices = i;
}

const KilnTypeInfo* TypeProtoHandle(const KilnAttribute& attribute,
                                    const std::shared_ptr<const ir::TypeInfo>& type, size_t k) {
  auto& slots = attribute.types;
  if (slots.size() < k + 1) slots.resize(k + 1);
  if (slots[k] != nullptr) return slots[k].get();
  auto made = std::make_unique<KilnTypeInfo>();
  made->own = type;
  made->type = type.get();
  return Borrowed(slots[k], std::move(made));
}

}  // namespace

// ---- Attributes ------------------------------------------------------------------------------

KilnStatus* KILN_API_CALL CreateAttributeInt(const char* name, int64_t value, KilnAttribute** out) {
  return Guard("CreateAttributeInt", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    CheckOut(out, "out");
    a.type = ir::AttrType::kInt;
    a.i = value;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeFloat(const char* name, float value, KilnAttribute** out) {
  return Guard("CreateAttributeFloat", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    CheckOut(out, "out");
    a.type = ir::AttrType::kFloat;
    a.f = value;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeString(const char* name, const char* data, size_t length,
                                                KilnAttribute** out) {
  return Guard("CreateAttributeString", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (length > 0 && data == nullptr) ThrowInvalidArgument("data", "is NULL");
    CheckOut(out, "out");
    a.type = ir::AttrType::kString;
    if (length > 0) a.s.assign(data, length);
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeTensor(const char* name, const KilnValue* value,
                                                KilnAttribute** out) {
  return Guard("CreateAttributeTensor", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    a.t = TensorOf(value, "value", 0, false);
    CheckOut(out, "out");
    a.type = ir::AttrType::kTensor;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeWithOwnedGraph(const char* name, KilnGraph* graph,
                                                        KilnAttribute** out) {
  return Guard("CreateAttributeWithOwnedGraph", [&] {
    std::string n = AttributeName(name);
    KilnGraph* const list[] = {graph};
    PublishWithGraphs(std::move(n), list, 1, false, out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeInts(const char* name, const int64_t* values, size_t count,
                                              KilnAttribute** out) {
  return Guard("CreateAttributeInts", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0 && values == nullptr) ThrowInvalidArgument("values", "is NULL");
    CheckOut(out, "out");
    a.type = ir::AttrType::kInts;
    if (count > 0) a.ints.assign(values, values + count);
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeFloats(const char* name, const float* values, size_t count,
                                                KilnAttribute** out) {
  return Guard("CreateAttributeFloats", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0 && values == nullptr) ThrowInvalidArgument("values", "is NULL");
    CheckOut(out, "out");
    a.type = ir::AttrType::kFloats;
    if (count > 0) a.floats.assign(values, values + count);
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeStrings(const char* name, const KilnStringRef* values,
                                                 size_t count, KilnAttribute** out) {
  return Guard("CreateAttributeStrings", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0 && values == nullptr) ThrowInvalidArgument("values", "is NULL");
    for (size_t i = 0; i < count; ++i) {
      if (values[i].length > 0 && values[i].data == nullptr) {
        ThrowInvalidArgument("values", "entry " + std::to_string(i) + " has a NULL data");
      }
    }
    CheckOut(out, "out");
    a.type = ir::AttrType::kStrings;
    a.strings.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      a.strings.emplace_back(values[i].length > 0 ? values[i].data : "", values[i].length);
    }
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeTensors(const char* name, const KilnValue* const* values,
                                                 size_t count, KilnAttribute** out) {
  return Guard("CreateAttributeTensors", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0 && values == nullptr) ThrowInvalidArgument("values", "is NULL");
    for (size_t i = 0; i < count; ++i) a.tensors.push_back(TensorOf(values[i], "values", i, true));
    CheckOut(out, "out");
    a.type = ir::AttrType::kTensors;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeWithOwnedGraphs(const char* name, KilnGraph* const* graphs,
                                                         size_t count, KilnAttribute** out) {
  return Guard("CreateAttributeWithOwnedGraphs", [&] {
    std::string n = AttributeName(name);
    if (count > 0 && graphs == nullptr) ThrowInvalidArgument("graphs", "is NULL");
    PublishWithGraphs(std::move(n), graphs, count, true, out);
  });
}

void KILN_API_CALL ReleaseAttribute(KilnAttribute* attribute) {
  Release(attribute, "ReleaseAttribute");
}

KilnStatus* KILN_API_CALL AttributeGetName(const KilnAttribute* attribute, KilnStringRef* out) {
  return Guard("AttributeGetName", [&] {
    const auto& a = Unwrap(attribute, "attribute").get();
    CheckOut(out, "out");
    *out = Ref(a.name);
  });
}

KilnStatus* KILN_API_CALL AttributeGetType(const KilnAttribute* attribute, KilnAttributeType* out) {
  return Guard("AttributeGetType", [&] {
    const auto& a = Unwrap(attribute, "attribute").get();
    CheckOut(out, "out");
    *out = static_cast<KilnAttributeType>(a.type);
  });
}

KilnStatus* KILN_API_CALL AttributeGetInt(const KilnAttribute* attribute, int64_t* out) {
  return Guard("AttributeGetInt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kInt);
    CheckOut(out, "out");
    *out = a.i;
  });
}

KilnStatus* KILN_API_CALL AttributeGetFloat(const KilnAttribute* attribute, float* out) {
  return Guard("AttributeGetFloat", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kFloat);
    CheckOut(out, "out");
    *out = a.f;
  });
}

KilnStatus* KILN_API_CALL AttributeGetString(const KilnAttribute* attribute, KilnStringRef* out) {
  return Guard("AttributeGetString", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kString);
    CheckOut(out, "out");
    *out = Ref(a.s);
  });
}

KilnStatus* KILN_API_CALL AttributeGetTensor(const KilnAttribute* attribute,
                                             const KilnValue** out) {
  return Guard("AttributeGetTensor", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kTensor);
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    auto& slots = attribute->tensors;
    if (slots.empty()) slots.resize(1);
    *out = TensorHandle(slots[0], a.t);
  });
}

KilnStatus* KILN_API_CALL AttributeGetGraph(const KilnAttribute* attribute, KilnGraph** out) {
  return Guard("AttributeGetGraph", [&] {
    Typed(attribute, ir::AttrType::kGraph);
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = SubgraphHandle(*attribute, 0);
  });
}

KilnStatus* KILN_API_CALL AttributeGetNumElements(const KilnAttribute* attribute, size_t* out) {
  return Guard("AttributeGetNumElements", [&] {
    const auto& a = Unwrap(attribute, "attribute").get();
    const size_t n = ListSize(a);
    CheckOut(out, "out");
    *out = n;
  });
}

KilnStatus* KILN_API_CALL AttributeGetInts(const KilnAttribute* attribute, const int64_t** out) {
  return Guard("AttributeGetInts", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kInts);
    CheckOut(out, "out");
    *out = a.ints.empty() ? nullptr : a.ints.data();
  });
}

KilnStatus* KILN_API_CALL AttributeGetFloats(const KilnAttribute* attribute, const float** out) {
  return Guard("AttributeGetFloats", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kFloats);
    CheckOut(out, "out");
    *out = a.floats.empty() ? nullptr : a.floats.data();
  });
}

KilnStatus* KILN_API_CALL AttributeGetStringAt(const KilnAttribute* attribute, size_t index,
                                               KilnStringRef* out) {
  return Guard("AttributeGetStringAt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kStrings);
    CheckIndex(index, a.strings.size(), "strings");
    CheckOut(out, "out");
    *out = Ref(a.strings[index]);
  });
}

KilnStatus* KILN_API_CALL AttributeGetTensorAt(const KilnAttribute* attribute, size_t index,
                                               const KilnValue** out) {
  return Guard("AttributeGetTensorAt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kTensors);
    CheckIndex(index, a.tensors.size(), "tensors");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    auto& slots = attribute->tensors;
    if (slots.size() < a.tensors.size()) slots.resize(a.tensors.size());
    *out = TensorHandle(slots[index], a.tensors[index]);
  });
}

KilnStatus* KILN_API_CALL AttributeGetGraphAt(const KilnAttribute* attribute, size_t index,
                                              KilnGraph** out) {
  return Guard("AttributeGetGraphAt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kGraphs);
    CheckIndex(index, a.graphs.size(), "graphs");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = SubgraphHandle(*attribute, index);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeSparseTensor(const char* name, const KilnValue* values,
                                                      const KilnValue* indices, const int64_t* dims,
                                                      size_t rank, KilnAttribute** out) {
  return Guard("CreateAttributeSparseTensor", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    a.sparse = SparseOf(values, indices, dims, rank, 0, false);
    CheckOut(out, "out");
    a.type = ir::AttrType::kSparseTensor;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeSparseTensors(
    const char* name, const KilnValue* const* values, const KilnValue* const* indices,
    const int64_t* const* dims, const size_t* ranks, size_t count, KilnAttribute** out) {
  return Guard("CreateAttributeSparseTensors", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0) {
      if (values == nullptr) ThrowInvalidArgument("values", "is NULL");
      if (indices == nullptr) ThrowInvalidArgument("indices", "is NULL");
      if (dims == nullptr) ThrowInvalidArgument("dims", "is NULL");
      if (ranks == nullptr) ThrowInvalidArgument("ranks", "is NULL");
    }
    for (size_t i = 0; i < count; ++i) {
      a.sparse_tensors.push_back(SparseOf(values[i], indices[i], dims[i], ranks[i], i, true));
    }
    CheckOut(out, "out");
    a.type = ir::AttrType::kSparseTensors;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeTypeProto(const char* name, const KilnTypeInfo* type,
                                                   KilnAttribute** out) {
  return Guard("CreateAttributeTypeProto", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    const ir::TypeInfo& t = *Unwrap(type, "type").type;
    CheckOut(out, "out");
    a.type = ir::AttrType::kTypeProto;
    a.type_proto = std::make_shared<ir::TypeInfo>(t);
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL CreateAttributeTypeProtos(const char* name,
                                                    const KilnTypeInfo* const* types, size_t count,
                                                    KilnAttribute** out) {
  return Guard("CreateAttributeTypeProtos", [&] {
    ir::Attribute a;
    a.name = AttributeName(name);
    if (count > 0 && types == nullptr) ThrowInvalidArgument("types", "is NULL");
    for (size_t i = 0; i < count; ++i) {
      if (types[i] == nullptr) {
        ThrowInvalidArgument("types", "entry " + std::to_string(i) + " is NULL");
      }
      const std::string entry = "types[" + std::to_string(i) + "]";
      CheckHandle(types[i], HandleKind::kTypeInfo, entry.c_str());
      a.type_protos.push_back(std::make_shared<ir::TypeInfo>(*types[i]->type));
    }
    CheckOut(out, "out");
    a.type = ir::AttrType::kTypeProtos;
    PublishAttribute(std::move(a), out);
  });
}

KilnStatus* KILN_API_CALL AttributeGetSparseTensor(const KilnAttribute* attribute,
                                                   const KilnValue** values,
                                                   const KilnValue** indices, const int64_t** dims,
                                                   size_t* rank) {
  return Guard("AttributeGetSparseTensor", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kSparseTensor);
    CheckOut(values, "values");
    CheckOut(indices, "indices");
    CheckOut(dims, "dims");
    CheckOut(rank, "rank");
    std::lock_guard<std::mutex> lock(GraphMutex());
    const KilnValue* v = nullptr;
    const KilnValue* i = nullptr;
    SparseParts(*attribute, *a.sparse, 0, &v, &i);
    *values = v;
    *indices = i;
    *dims = a.sparse->dims.data();
    *rank = a.sparse->dims.size();
  });
}

KilnStatus* KILN_API_CALL AttributeGetSparseTensorAt(const KilnAttribute* attribute, size_t index,
                                                     const KilnValue** values,
                                                     const KilnValue** indices,
                                                     const int64_t** dims, size_t* rank) {
  return Guard("AttributeGetSparseTensorAt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kSparseTensors);
    CheckIndex(index, a.sparse_tensors.size(), "sparse tensors");
    CheckOut(values, "values");
    CheckOut(indices, "indices");
    CheckOut(dims, "dims");
    CheckOut(rank, "rank");
    std::lock_guard<std::mutex> lock(GraphMutex());
    const ir::SparseTensor& s = *a.sparse_tensors[index];
    const KilnValue* v = nullptr;
    const KilnValue* i = nullptr;
    SparseParts(*attribute, s, index, &v, &i);
    *values = v;
    *indices = i;
    *dims = s.dims.data();
    *rank = s.dims.size();
  });
}

KilnStatus* KILN_API_CALL AttributeGetTypeProto(const KilnAttribute* attribute,
                                                const KilnTypeInfo** out) {
  return Guard("AttributeGetTypeProto", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kTypeProto);
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = TypeProtoHandle(*attribute, a.type_proto, 0);
  });
}

KilnStatus* KILN_API_CALL AttributeGetTypeProtoAt(const KilnAttribute* attribute, size_t index,
                                                  const KilnTypeInfo** out) {
  return Guard("AttributeGetTypeProtoAt", [&] {
    const auto& a = Typed(attribute, ir::AttrType::kTypeProtos);
    CheckIndex(index, a.type_protos.size(), "types");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = TypeProtoHandle(*attribute, a.type_protos[index], index);
  });
}

}  // namespace kiln::api::graph
