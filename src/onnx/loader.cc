#include "onnx/loader.h"

#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <kiln_onnx/onnx.pb.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.h"
#include "onnx/tensor_proto.h"

namespace kiln::onnx {
namespace {

[[noreturn]] void BadGraph(const std::string& msg) {
  throw Error(ErrorCode::kInvalidGraph, msg);
}

std::string NormalDomain(const std::string& d) {
  return d == "ai.onnx" ? std::string() : d;
}

// The main graph's lifted raw_data (detail::LiftRawData): where in `base` each lies.
struct LiftedSources {
  const uint8_t* base = nullptr;
  const std::vector<detail::LiftedRaw>* raw = nullptr;
  bool drop_pages = false;
};

// Converts graphs, keeping the chain of enclosing graphs for names a subgraph captures.
class GraphBuilder {
 public:
  GraphBuilder(const ir::Model& model, std::string model_dir, LiftedSources lifted)
      : model_(model), model_dir_(std::move(model_dir)), lifted_(lifted) {}

  std::shared_ptr<ir::Graph> Build(const ::kiln_onnx::GraphProto& proto, const std::string& where,
                                   const std::vector<const ir::Graph*>& scopes);

 private:
  ir::TypeInfo ConvertType(const ::kiln_onnx::TypeProto& t, const std::string& what, int depth);
  std::shared_ptr<const ir::SparseTensor> ConvertSparse(const ::kiln_onnx::SparseTensorProto& p,
                                                        const std::string& what);
  ir::Attribute ConvertAttribute(const ::kiln_onnx::AttributeProto& a, const std::string& node,
                                 const std::vector<const ir::Graph*>& scopes);
  ir::Value* Resolve(ir::Graph& g, const std::string& name,
                     const std::vector<const ir::Graph*>& scopes);
  // Turns initializer `v`, also listed as graph input `in`, into a graph input whose default
  // value is the initializer, typed as the input declares (checked against the initializer).
  void MakeDefaultedInput(ir::Graph& g, ir::Value& v, const ::kiln_onnx::ValueInfoProto& in);

  const ir::Model& model_;
  std::string model_dir_;
  LiftedSources lifted_;
};

ir::TypeInfo GraphBuilder::ConvertType(const ::kiln_onnx::TypeProto& t, const std::string& what,
                                       int depth) {
  if (depth > 16) BadGraph(what + ": type nests deeper than 16 levels");
  ir::TypeInfo info;
  switch (t.value_case()) {
    case ::kiln_onnx::TypeProto::kTensorType:
    case ::kiln_onnx::TypeProto::kSparseTensorType: {
      const bool sparse = t.value_case() == ::kiln_onnx::TypeProto::kSparseTensorType;
      const int32_t elem =
          sparse ? t.sparse_tensor_type().elem_type() : t.tensor_type().elem_type();
      const bool has_shape =
          sparse ? t.sparse_tensor_type().has_shape() : t.tensor_type().has_shape();
      const auto& shape = sparse ? t.sparse_tensor_type().shape() : t.tensor_type().shape();
      info.kind = sparse ? ir::ValueKind::kSparseTensor : ir::ValueKind::kTensor;
      if (elem != 0 && !IsKnownDataType(elem)) {
        throw Error(ErrorCode::kInvalidProtobuf,
                    what + ": element type " + std::to_string(elem) + " is not known");
      }
      info.elem = static_cast<DataType>(elem);
      if (has_shape) {
        std::vector<int64_t> dims;
        std::vector<std::string> symbols;
        for (const auto& d : shape.dim()) {
          if (!d.denotation().empty()) {
            info.dim_denotations.resize(static_cast<size_t>(shape.dim_size()));
            info.dim_denotations[dims.size()] = d.denotation();
          }
          if (d.has_dim_value()) {
            if (d.dim_value() < 0) {
              BadGraph(what + ": dimension " + std::to_string(dims.size()) + " is negative");
            }
            dims.push_back(d.dim_value());
            symbols.emplace_back();
          } else {
            dims.push_back(-1);
            symbols.push_back(d.has_dim_param() ? d.dim_param() : std::string());
          }
        }
        info.shape = Shape(std::move(dims), std::move(symbols));
      }
      break;
    }
    case ::kiln_onnx::TypeProto::kSequenceType:
      info.kind = ir::ValueKind::kSequence;
      if (t.sequence_type().has_elem_type()) {
        info.contained = std::make_shared<ir::TypeInfo>(
            ConvertType(t.sequence_type().elem_type(), what, depth + 1));
        info.elem = info.contained->elem;  // the element type of the tensors inside
      }
      break;
    case ::kiln_onnx::TypeProto::kOptionalType:
      info.kind = ir::ValueKind::kOptional;
      if (t.optional_type().has_elem_type()) {
        info.contained = std::make_shared<ir::TypeInfo>(
            ConvertType(t.optional_type().elem_type(), what, depth + 1));
        info.elem = info.contained->elem;  // the element type of the tensors inside
      }
      break;
    case ::kiln_onnx::TypeProto::kMapType: {
      info.kind = ir::ValueKind::kMap;
      const int32_t key = t.map_type().key_type();
      if (key != 0 && !IsKnownDataType(key)) {
        throw Error(ErrorCode::kInvalidProtobuf,
                    what + ": map key type " + std::to_string(key) + " is not known");
      }
      info.elem = static_cast<DataType>(key);  // a map's elem is its key type
      if (t.map_type().has_value_type()) {
        info.contained =
            std::make_shared<ir::TypeInfo>(ConvertType(t.map_type().value_type(), what, depth + 1));
      }
      break;
    }
    default:
      break;
  }
  return info;
}

ir::Attribute GraphBuilder::ConvertAttribute(const ::kiln_onnx::AttributeProto& a,
                                             const std::string& node,
                                             const std::vector<const ir::Graph*>& scopes) {
  ir::Attribute out;
  out.name = a.name();
  const std::string what = node + ": attribute '" + a.name() + "'";
  if (a.name().empty()) BadGraph(node + ": an attribute has no name");
  if (!a.ref_attr_name().empty()) {
    BadGraph(what + " refers to a function attribute outside a function");
  }
  int type = a.type();
  if (type == 0) {  // IR 1-2 models may leave the type out: infer it from the field that is set
    if (a.has_f())
      type = 1;
    else if (a.has_i())
      type = 2;
    else if (a.has_s())
      type = 3;
    else if (a.has_t())
      type = 4;
    else if (a.has_g())
      type = 5;
    else if (a.floats_size() > 0)
      type = 6;
    else if (a.ints_size() > 0)
      type = 7;
    else if (a.strings_size() > 0)
      type = 8;
    else if (a.tensors_size() > 0)
      type = 9;
    else if (a.graphs_size() > 0)
      type = 10;
  }
  if (type < 1 || type > 14)
    BadGraph(what + " has no valid type (" + std::to_string(a.type()) + ")");
  out.type = static_cast<ir::AttrType>(type);
  switch (out.type) {
    case ir::AttrType::kFloat:
      out.f = a.f();
      break;
    case ir::AttrType::kInt:
      out.i = a.i();
      break;
    case ir::AttrType::kString:
      out.s = a.s();
      break;
    case ir::AttrType::kTensor:
      if (!a.has_t()) BadGraph(what + " is of type tensor but holds none");
      out.t = TensorFromProto(a.t(), what, model_dir_);
      break;
    case ir::AttrType::kGraph:
      if (!a.has_g()) BadGraph(what + " is of type graph but holds none");
      out.g = Build(a.g(), what, scopes);
      break;
    case ir::AttrType::kFloats:
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case ir::AttrType::kInts:
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case ir::AttrType::kStrings:
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case ir::AttrType::kTensors:
      for (int i = 0; i < a.tensors_size(); ++i) {
        out.tensors.push_back(
            TensorFromProto(a.tensors(i), what + " tensor " + std::to_string(i), model_dir_));
      }
      break;
    case ir::AttrType::kGraphs:
      for (const auto& g : a.graphs()) out.graphs.push_back(Build(g, what, scopes));
      break;
    case ir::AttrType::kSparseTensor:
      if (!a.has_sparse_tensor()) BadGraph(what + " is of type sparse_tensor but holds none");
      out.sparse = ConvertSparse(a.sparse_tensor(), what);
      break;
    case ir::AttrType::kSparseTensors:
      for (int i = 0; i < a.sparse_tensors_size(); ++i) {
        out.sparse_tensors.push_back(
            ConvertSparse(a.sparse_tensors(i), what + " sparse tensor " + std::to_string(i)));
      }
      break;
    case ir::AttrType::kTypeProto:
      if (!a.has_tp()) BadGraph(what + " is of type type_proto but holds none");
      out.type_proto = std::make_shared<ir::TypeInfo>(ConvertType(a.tp(), what, 0));
      break;
    case ir::AttrType::kTypeProtos:
      for (int i = 0; i < a.type_protos_size(); ++i) {
        out.type_protos.push_back(std::make_shared<ir::TypeInfo>(
            ConvertType(a.type_protos(i), what + " type " + std::to_string(i), 0)));
      }
      break;
    default:
      break;
  }
  return out;
}

std::shared_ptr<const ir::SparseTensor> GraphBuilder::ConvertSparse(
    const ::kiln_onnx::SparseTensorProto& p, const std::string& what) {
  auto s = std::make_shared<ir::SparseTensor>();
  s->values = TensorFromProto(p.values(), what + " values", model_dir_);
  s->indices = TensorFromProto(p.indices(), what + " indices", model_dir_);
  s->dims.assign(p.dims().begin(), p.dims().end());
  const std::string problem = ir::SparseTensorProblem(*s);
  if (!problem.empty()) BadGraph(what + ": " + problem);
  return s;
}

void GraphBuilder::MakeDefaultedInput(ir::Graph& g, ir::Value& v,
                                      const ::kiln_onnx::ValueInfoProto& in) {
  const std::string what = "graph input '" + in.name() + "'";
  const std::shared_ptr<const Tensor> value = v.initializer();
  ir::TypeInfo type = v.type();  // the initializer's
  if (in.has_type()) {
    ir::TypeInfo declared = ConvertType(in.type(), what, 0);
    if (declared.kind != ir::ValueKind::kTensor && declared.kind != ir::ValueKind::kUnknown) {
      BadGraph(what + " has an initializer but is not declared a tensor");
    }
    if (declared.elem != DataType::kUndefined && declared.elem != value->type()) {
      BadGraph(what + " is declared " + DataTypeName(declared.elem) + " but its initializer is " +
               DataTypeName(value->type()));
    }
    if (declared.shape) {
      const Shape& want = *declared.shape;
      bool fits = want.rank() == value->shape().rank();
      for (size_t d = 0; fits && d < want.rank(); ++d) {
        fits = want.dims()[d] < 0 || want.dims()[d] == value->shape().dims()[d];
      }
      if (!fits) {
        BadGraph(what + " is declared with shape " + want.ToString() +
                 " but its initializer has shape " + value->shape().ToString());
      }
      type.shape = std::move(declared.shape);
      type.dim_denotations = std::move(declared.dim_denotations);
    }
  }
  v.set_initializer(nullptr);
  v.set_default_value(value);
  v.type() = std::move(type);
  g.inputs().push_back(&v);
}

ir::Value* GraphBuilder::Resolve(ir::Graph& g, const std::string& name,
                                 const std::vector<const ir::Graph*>& scopes) {
  if (ir::Value* v = g.FindValue(name)) return v;
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    if (const ir::Value* outer = (*it)->FindValue(name)) {
      ir::Value* v = g.AddValue(name);
      v->set_outer(true);
      v->type() = outer->type();
      g.captures().push_back(v);
      return v;
    }
  }
  return nullptr;
}

std::shared_ptr<ir::Graph> GraphBuilder::Build(const ::kiln_onnx::GraphProto& proto,
                                               const std::string& where,
                                               const std::vector<const ir::Graph*>& scopes) {
  if (scopes.size() > 32) BadGraph(where + ": subgraphs nest deeper than 32 levels");
  auto g = std::make_shared<ir::Graph>();
  g->name() = proto.name();
  const std::string in_graph = scopes.empty() ? "" : " in the subgraph of " + where;

  // Only the main graph's raw_data was lifted; a subgraph's stays in its proto.
  size_t next_lifted = 0;
  const size_t lifted_count =
      scopes.empty() && lifted_.raw != nullptr ? lifted_.raw->size() : size_t{0};
  for (int i = 0; i < proto.initializer_size(); ++i) {
    const ::kiln_onnx::TensorProto& init = proto.initializer(i);
    if (init.name().empty()) BadGraph("an initializer" + in_graph + " has no name");
    const std::string what = "initializer '" + init.name() + "'";
    std::optional<LiftedRawData> raw;
    if (next_lifted < lifted_count && (*lifted_.raw)[next_lifted].index == i) {
      const detail::LiftedRaw& r = (*lifted_.raw)[next_lifted++];
      raw = LiftedRawData{lifted_.base + r.offset, r.size, lifted_.drop_pages};
    }
    ir::Value* v = g->AddValue(init.name());
    v->set_initializer(TensorFromProto(init, what, model_dir_, raw ? &*raw : nullptr));
    v->type().kind = ir::ValueKind::kTensor;
    v->type().elem = v->initializer()->type();
    v->type().shape = v->initializer()->shape();
  }
  if (proto.sparse_initializer_size() > 0) {
    throw Error(ErrorCode::kNotImplemented, "sparse initializers are not supported");
  }
  for (const auto& in : proto.input()) {
    if (in.name().empty()) BadGraph("a graph input" + in_graph + " has no name");
    if (ir::Value* v = g->FindValue(in.name())) {
      if (v->initializer() == nullptr) BadGraph("graph input '" + in.name() + "' is listed twice");
      // Before IR 4 every initializer had to be listed as an input: a constant. From IR 4 on, one
      // of the main graph listed as an input is an input with a default value.
      if (scopes.empty() && model_.ir_version >= 4) MakeDefaultedInput(*g, *v, in);
      continue;
    }
    ir::Value* v = g->AddValue(in.name());
    v->type() = ConvertType(in.type(), "graph input '" + in.name() + "'", 0);
    g->inputs().push_back(v);
  }

  // Node outputs first, so nodes may appear in any order and a cycle is found, not assumed away.
  std::vector<std::string> node_names;
  for (int n = 0; n < proto.node_size(); ++n) {
    const auto& np = proto.node(n);
    std::string name = np.name().empty() ? "#" + std::to_string(n) : np.name();
    node_names.push_back(name);
    for (const auto& out : np.output()) {
      if (out.empty()) continue;
      if (g->FindValue(out) != nullptr) {
        const ir::Value* existing = g->FindValue(out);
        std::string what = "node '" + name;
        what += "' (" + np.op_type() + ") output '";
        BadGraph(what + out + "' is already " +
                 (existing->initializer() ? "an initializer"
                  : existing->producer()  ? "produced by another node"
                                          : "a graph input or another node's output"));
      }
      g->AddValue(out);
    }
  }
  for (const auto& vi : proto.value_info()) {
    if (ir::Value* v = g->FindValue(vi.name())) {
      if (v->initializer() == nullptr && v->default_value() == nullptr)
        v->type() = ConvertType(vi.type(), "value_info '" + vi.name() + "'", 0);
    }
  }

  std::vector<const ir::Graph*> inner_scopes = scopes;
  inner_scopes.push_back(g.get());
  for (int n = 0; n < proto.node_size(); ++n) {
    const auto& np = proto.node(n);
    const std::string domain = NormalDomain(np.domain());
    ir::Node* node = g->AddNode(node_names[n], np.op_type(), domain);
    const std::string desc = node->Describe();
    if (np.op_type().empty()) BadGraph("node '" + node_names[n] + "' has no op_type");
    auto opset = model_.opsets.find(domain);
    if (opset == model_.opsets.end()) {
      BadGraph(desc + " uses domain '" + np.domain() + "', which the model does not import");
    }
    node->set_opset(opset->second);
    std::vector<ir::Value*> inputs;
    for (int i = 0; i < np.input_size(); ++i) {
      const std::string& in = np.input(i);
      if (in.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      ir::Value* v = Resolve(*g, in, scopes);
      if (v == nullptr) {
        std::string what = desc + " input " + std::to_string(i);
        what += " '" + in;
        BadGraph(what + "' is not a graph input, an initializer or any node's output");
      }
      inputs.push_back(v);
    }
    std::vector<ir::Value*> outputs;
    for (const auto& out : np.output())
      outputs.push_back(out.empty() ? nullptr : g->FindValue(out));
    std::vector<ir::Value*> implicit;
    for (const auto& a : np.attribute()) {
      for (const ir::Attribute& seen : node->attributes()) {
        if (seen.name == a.name()) BadGraph(desc + ": attribute '" + a.name() + "' is given twice");
      }
      node->attributes().push_back(ConvertAttribute(a, desc, inner_scopes));
      std::vector<const ir::Graph*> subgraphs;
      const ir::Attribute& attr = node->attributes().back();
      if (attr.g) subgraphs.push_back(attr.g.get());
      for (const auto& sg : attr.graphs) subgraphs.push_back(sg.get());
      for (const ir::Graph* sg : subgraphs) {
        for (const ir::Value* c : sg->captures()) {
          ir::Value* v = Resolve(*g, c->name(), scopes);  // present: the subgraph resolved it
          if (std::find(implicit.begin(), implicit.end(), v) == implicit.end()) {
            implicit.push_back(v);
          }
        }
      }
    }
    g->Connect(node, std::move(inputs), std::move(outputs), std::move(implicit));
  }

  for (const auto& out : proto.output()) {
    ir::Value* v = Resolve(*g, out.name(), scopes);
    if (v == nullptr) {
      BadGraph("graph output '" + out.name() + "'" + in_graph +
               " is not produced by any node, initializer or input");
    }
    if (out.has_type()) {
      ir::TypeInfo declared = ConvertType(out.type(), "graph output '" + out.name() + "'", 0);
      if (v->initializer() == nullptr && v->type().kind == ir::ValueKind::kUnknown) {
        v->type() = std::move(declared);
      }
    }
    g->outputs().push_back(v);
  }
  g->TopologicalOrder();  // throws on a cycle
  return g;
}

ir::Model Convert(const ::kiln_onnx::ModelProto& proto, const std::string& model_dir,
                  LiftedSources lifted) {
  ir::Model m;
  m.ir_version = proto.ir_version();
  if (m.ir_version < kMinIrVersion) {
    throw Error(ErrorCode::kInvalidProtobuf,
                "IR version " + std::to_string(m.ir_version) + " is older than Kiln reads (" +
                    std::to_string(kMinIrVersion) + " to " + std::to_string(kMaxIrVersion) + ")");
  }
  if (m.ir_version > kMaxIrVersion) {
    throw Error(ErrorCode::kNotImplemented,
                "IR version " + std::to_string(m.ir_version) + " is newer than Kiln reads (" +
                    std::to_string(kMinIrVersion) + " to " + std::to_string(kMaxIrVersion) + ")");
  }
  for (const auto& op : proto.opset_import()) {
    const std::string domain = NormalDomain(op.domain());
    if (op.version() < 1) {
      throw Error(ErrorCode::kInvalidGraph, "opset import of domain '" + op.domain() +
                                                "' has version " + std::to_string(op.version()));
    }
    if (!m.opsets.emplace(domain, op.version()).second) {
      throw Error(ErrorCode::kInvalidGraph, "domain '" + op.domain() + "' is imported twice");
    }
  }
  if (m.opsets.empty()) throw Error(ErrorCode::kInvalidGraph, "the model imports no opset");
  if (!proto.has_graph()) throw Error(ErrorCode::kInvalidGraph, "the model has no graph");
  if (proto.functions_size() > 0) {
    throw Error(ErrorCode::kNotImplemented, "model-local functions are not supported yet");
  }
  m.producer_name = proto.producer_name();
  m.producer_version = proto.producer_version();
  m.domain = proto.domain();
  m.model_version = proto.model_version();
  m.doc_string = proto.doc_string();
  for (const auto& kv : proto.metadata_props()) m.metadata[kv.key()] = kv.value();
  GraphBuilder builder(m, model_dir, lifted);
  m.graph = builder.Build(proto.graph(), "the main graph", {});
  m.graph_doc_string = proto.graph().doc_string();
  return m;
}

}  // namespace

namespace {

// Walks protobuf wire format just far enough to lift raw_data out of the main graph's
// initializers: ModelProto.graph (7) → GraphProto.initializer (5) → TensorProto.raw_data (9).
// Every other field is copied as it is. Any byte sequence it does not understand — a truncated
// or overlong varint, a length past its message's end, groups, an invalid wire type — makes it
// give up, and the caller parses the original bytes (protobuf then reports what is wrong).
class Lifter {
 public:
  Lifter(const uint8_t* base, size_t min_bytes) : base_(base), min_bytes_(min_bytes) {}

  // Collects the pieces of the lifted model; false where the walk gives up.
  bool Model(const uint8_t* b, const uint8_t* e) {
    size_t unused = 0;
    return Message(Level::kModel, b, e, &unused);
  }
  bool lifted_any() const noexcept { return !lifted_.empty(); }
  std::vector<detail::LiftedRaw> TakeLifted() { return std::move(lifted_); }
  // The lifted model's bytes.
  std::string Bytes() const;

 private:
  enum class Level { kModel, kGraph, kTensor };
  struct Field {
    uint64_t number = 0;
    uint32_t wire = 0;
    const uint8_t* start = nullptr;    // the tag's first byte
    const uint8_t* tag_end = nullptr;  // the tag may be written in more bytes than it needs
    const uint8_t* payload = nullptr;  // after the tag (and, for wire type 2, the length)
    const uint8_t* end = nullptr;
  };
  // A run of original bytes to copy, or (src == nullptr) a varint to write.
  struct Piece {
    const uint8_t* src = nullptr;
    size_t size = 0;
    uint64_t varint = 0;
  };

  static bool ReadVarint(const uint8_t** p, const uint8_t* e, uint64_t* v);
  static bool ReadField(const uint8_t* p, const uint8_t* e, Field* f);
  static size_t VarintSize(uint64_t v) {
    size_t n = 1;
    for (; v >= 0x80; v >>= 7) ++n;
    return n;
  }
  void Copy(const uint8_t* b, const uint8_t* e) {
    if (b == e) return;
    if (!pieces_.empty() && pieces_.back().src != nullptr &&
        pieces_.back().src + pieces_.back().size == b) {
      pieces_.back().size += static_cast<size_t>(e - b);  // contiguous: one run
    } else {
      pieces_.push_back({b, static_cast<size_t>(e - b), 0});
    }
  }
  void Varint(uint64_t v) { pieces_.push_back({nullptr, VarintSize(v), v}); }
  bool Message(Level level, const uint8_t* b, const uint8_t* e, size_t* size);

  const uint8_t* base_;
  size_t min_bytes_;
  std::vector<Piece> pieces_;
  std::vector<detail::LiftedRaw> lifted_;
  int initializers_ = 0;                         // of the main graph seen so far
  std::optional<detail::LiftedRaw> tensor_raw_;  // the tensor being walked: its lifted raw_data
};

// As protobuf reads them: at most 10 bytes.
bool Lifter::ReadVarint(const uint8_t** p, const uint8_t* e, uint64_t* v) {
  uint64_t r = 0;
  const uint8_t* q = *p;
  for (int shift = 0; shift < 70; shift += 7) {
    if (q == e) return false;
    const uint8_t byte = *q++;
    r |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *p = q;
      *v = r;
      return true;
    }
  }
  return false;
}

bool Lifter::ReadField(const uint8_t* p, const uint8_t* e, Field* f) {
  f->start = p;
  uint64_t tag = 0;
  if (!ReadVarint(&p, e, &tag) || tag > UINT32_MAX || (tag >> 3) == 0) return false;
  f->tag_end = p;
  f->number = tag >> 3;
  f->wire = static_cast<uint32_t>(tag & 7);
  uint64_t skip = 0;
  switch (f->wire) {
    case 0: {  // varint
      uint64_t unused = 0;
      if (!ReadVarint(&p, e, &unused)) return false;
      break;
    }
    case 1:  // fixed64
      skip = 8;
      break;
    case 2:  // length-delimited; protobuf takes lengths up to INT_MAX
      if (!ReadVarint(&p, e, &skip) || skip > static_cast<uint64_t>(INT_MAX)) return false;
      break;
    case 5:  // fixed32
      skip = 4;
      break;
    default:  // groups (3, 4) and the invalid 6, 7: left to protobuf
      return false;
  }
  if (skip > static_cast<uint64_t>(e - p)) return false;
  f->payload = p;
  f->end = p + skip;
  return true;
}

// Appends the pieces of the message [b, e) of `level` and sets `size` to its lifted size.
bool Lifter::Message(Level level, const uint8_t* b, const uint8_t* e, size_t* size) {
  size_t total = 0;
  for (const uint8_t* p = b; p < e;) {
    Field f;
    if (!ReadField(p, e, &f)) return false;
    p = f.end;
    const auto length = static_cast<size_t>(f.end - f.payload);
    const bool delimited = f.wire == 2;
    if (level == Level::kTensor && delimited && f.number == 9) {
      if (length < min_bytes_) {  // kept; being later, it is the one protobuf keeps
        tensor_raw_.reset();
        Copy(f.start, f.end);
        total += static_cast<size_t>(f.end - f.start);
        continue;
      }
      // An empty raw_data in its place, so the tensor still says its data is raw.
      Varint((uint64_t{9} << 3) | 2);
      Varint(0);
      total += 2;
      tensor_raw_ =
          detail::LiftedRaw{initializers_, static_cast<size_t>(f.payload - base_), length};
      continue;
    }
    const bool into = delimited && ((level == Level::kModel && f.number == 7) ||
                                    (level == Level::kGraph && f.number == 5));
    if (!into) {
      Copy(f.start, f.end);
      total += static_cast<size_t>(f.end - f.start);
      continue;
    }
    // A graph (several merge into one, so initializer indices run on) or an initializer:
    // its length is known once walked, so its prefix is a placeholder until then.
    Copy(f.start, f.tag_end);
    const size_t prefix = pieces_.size();
    Varint(0);
    size_t inner = 0;
    if (level == Level::kModel) {
      if (!Message(Level::kGraph, f.payload, f.end, &inner)) return false;
    } else {
      tensor_raw_.reset();
      if (!Message(Level::kTensor, f.payload, f.end, &inner)) return false;
      if (tensor_raw_) lifted_.push_back(*tensor_raw_);
      ++initializers_;
    }
    pieces_[prefix] = {nullptr, VarintSize(inner), inner};
    total += static_cast<size_t>(f.tag_end - f.start) + VarintSize(inner) + inner;
  }
  *size = total;
  return true;
}

std::string Lifter::Bytes() const {
  size_t size = 0;
  for (const Piece& piece : pieces_) size += piece.size;
  std::string out(size, '\0');
  char* o = out.data();
  for (const Piece& piece : pieces_) {
    if (piece.src != nullptr) {
      std::memcpy(o, piece.src, piece.size);
      o += piece.size;
      continue;
    }
    uint64_t v = piece.varint;
    for (; v >= 0x80; v >>= 7) *o++ = static_cast<char>((v & 0x7f) | 0x80);
    *o++ = static_cast<char>(v);
  }
  return out;
}

// Parses a ModelProto onto `arena`; throws kInvalidProtobuf.
::kiln_onnx::ModelProto* ParseModel(google::protobuf::Arena& arena, const void* data, size_t size) {
  auto* proto = google::protobuf::Arena::CreateMessage<::kiln_onnx::ModelProto>(&arena);
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data),
                                            static_cast<int>(size));
  in.SetRecursionLimit(200);
  if (!proto->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw Error(ErrorCode::kInvalidProtobuf, "the bytes are not a valid ONNX ModelProto");
  }
  return proto;
}

// Lifts raw_data out of the model's bytes, parses the rest and converts. `drop_pages`: the bytes
// are a file mapping whose pages may be given back once copied.
ir::Model Load(const void* data, size_t size, const std::string& model_dir, size_t lift_min_bytes,
               bool drop_pages) {
  // Checked on the original bytes, so what loads does not depend on how much was lifted.
  if (size > static_cast<size_t>(INT_MAX)) {
    throw Error(ErrorCode::kInvalidProtobuf,
                "the model is " + std::to_string(size) +
                    " bytes; a protobuf is at most 2 GiB (store large weights as external data)");
  }
  std::optional<detail::LiftedModel> lifted = detail::LiftRawData(data, size, lift_min_bytes);
  // On an arena every message is freed with the arena, also when parsing stops half way because
  // an allocation failed (libprotobuf can drop a half-built sub-message on that path).
  google::protobuf::Arena arena;
  if (!lifted) return Convert(*ParseModel(arena, data, size), model_dir, {});
  const ::kiln_onnx::ModelProto* proto =
      ParseModel(arena, lifted->bytes.data(), lifted->bytes.size());
  std::string().swap(lifted->bytes);  // parsed: not needed while the tensors are built
  return Convert(*proto, model_dir, {static_cast<const uint8_t*>(data), &lifted->raw, drop_pages});
}

// A file mapped read-only for parsing, unmapped when this goes.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::kNoSuchFile, "cannot open '" + path + "'");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error(ErrorCode::kNoSuchFile, "'" + path + "' is not a readable file");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ != 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        throw Error(ErrorCode::kNoSuchFile, "cannot map '" + path + "' into memory");
      }
      data_ = p;
      ::madvise(data_, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const void* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

namespace detail {

std::optional<LiftedModel> LiftRawData(const void* data, size_t size, size_t min_bytes) {
  const auto* b = static_cast<const uint8_t*>(data);
  Lifter lifter(b, min_bytes);
  if (size == 0 || !lifter.Model(b, b + size) || !lifter.lifted_any()) return std::nullopt;
  return LiftedModel{lifter.Bytes(), lifter.TakeLifted()};
}

ir::Model LoadModelBytes(const void* data, size_t size, const std::string& model_dir,
                         size_t lift_min_bytes) {
  return Load(data, size, model_dir, lift_min_bytes, /*drop_pages=*/false);
}

}  // namespace detail

// The caller's bytes cannot be given back, but lifting still spares protobuf's copy of each
// large raw_data: it is copied once, into its tensor.
ir::Model LoadModelBytes(const void* data, size_t size, const std::string& model_dir) {
  return Load(data, size, model_dir, detail::kLiftMinBytes, /*drop_pages=*/false);
}

// The file is mapped rather than read. protobuf parses it without the large raw_data fields, each
// of which is then copied once from the mapping into its tensor, the copied pages given back as
// it goes: at the peak, little beyond the tensors themselves is resident.
ir::Model LoadModelFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(path), ec)) {
    throw Error(ErrorCode::kNoSuchFile, "'" + path + "' is not a readable file");
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  MappedFile file(path);
  return Load(file.data(), file.size(), dir.string(), detail::kLiftMinBytes,
              /*drop_pages=*/true);
}

}  // namespace kiln::onnx
