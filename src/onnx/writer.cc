#include "onnx/writer.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <kiln_onnx/onnx.pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/error.h"
#include "onnx/tensor_proto.h"

namespace kiln::onnx {
namespace {

// The IR version written for a model that has none (one built in memory): ONNX 1.16's, which
// every element type Kiln writes except int2/uint2 (IR 11) is valid in.
constexpr int64_t kDefaultIrVersion = 10;

// Large tensors are aligned in the external data file, so a reader may map them.
constexpr uint64_t kExternalAlignment = 4096;

// The version each domain is written at, chosen before anything is written (see
// WriteOptions::compatible).
class OpsetPlan {
 public:
  OpsetPlan(const ir::Model& model, const OpsetCompatible& compatible) {
    versions_ = model.opsets;
    std::map<std::string, int64_t> newest;  // of the domains the model does not import
    Visit(*model.graph, [&](const ir::Node& n) {
      if (n.opset() > 0 && versions_.count(n.domain()) == 0) {
        newest[n.domain()] = std::max(newest[n.domain()], n.opset());
      }
    });
    for (const auto& [domain, version] : newest) versions_[domain] = version;
    Visit(*model.graph, [&](const ir::Node& n) {
      auto it = versions_.find(n.domain());
      if (it == versions_.end()) {  // no version anywhere: every node of the domain has none
        throw Error(ErrorCode::kNotImplemented,
                    n.Describe() + " has no opset version for domain '" + n.domain() + "'");
      }
      const int64_t to = it->second;
      if (n.opset() <= 0 || n.opset() == to) return;
      if (compatible && compatible(n.domain(), n.op_type(), n.opset(), to)) return;
      throw Error(ErrorCode::kNotImplemented,
                  n.Describe() + " is opset " + std::to_string(n.opset()) + " of domain '" +
                      n.domain() + "', but the model is written importing opset " +
                      std::to_string(to) +
                      ", where it does not compute the same (a ModelProto imports one version "
                      "per domain)");
    });
  }

  const std::map<std::string, int64_t>& versions() const noexcept { return versions_; }

 private:
  template <typename F>
  static void Visit(const ir::Graph& g, const F& f) {
    for (const auto& n : g.nodes()) {
      f(*n);
      for (const ir::Attribute& a : n->attributes()) {
        if (a.g) Visit(*a.g, f);
        for (const auto& sg : a.graphs) Visit(*sg, f);
      }
    }
  }

  std::map<std::string, int64_t> versions_;
};

// Converts graphs. Tensors of at least `large_bytes` (not strings) are left without their data and
// listed, so the caller decides where their bytes go.
class ProtoBuilder {
 public:
  struct Large {
    ::kiln_onnx::TensorProto* proto;
    const Tensor* tensor;
  };

  explicit ProtoBuilder(size_t large_bytes) : large_bytes_(large_bytes) {}

  void Graph(const ir::Graph& g, ::kiln_onnx::GraphProto* out) {
    out->set_name(g.name());
    std::unordered_set<const ir::Value*> io(g.inputs().begin(), g.inputs().end());
    io.insert(g.outputs().begin(), g.outputs().end());
    for (const auto& v : g.values()) {
      // An overridable initializer (a graph input with a default) is written as ONNX has it:
      // an initializer also listed among the inputs.
      const std::shared_ptr<const kiln::Tensor>& data =
          v->initializer() != nullptr ? v->initializer() : v->default_value();
      if (data == nullptr) continue;
      ::kiln_onnx::TensorProto* t = out->add_initializer();
      t->set_name(v->name());
      Tensor(*data, t);
    }
    for (const ir::Value* v : g.inputs()) ValueInfo(*v, out->add_input());
    for (const ir::Value* v : g.outputs()) ValueInfo(*v, out->add_output());
    for (const auto& v : g.values()) {
      if (v->initializer() != nullptr || v->is_outer() || v->producer() == nullptr ||
          io.count(v.get()) != 0 || v->type().kind == ir::ValueKind::kUnknown) {
        continue;
      }
      ValueInfo(*v, out->add_value_info());
    }
    for (const ir::Node* n : g.TopologicalOrder()) Node(*n, out->add_node());
  }

  std::vector<Large>& large() noexcept { return large_; }

 private:
  void Tensor(const kiln::Tensor& t, ::kiln_onnx::TensorProto* out) {
    if (t.type() != DataType::kString && t.byte_size() >= large_bytes_) {
      out->set_data_type(static_cast<int32_t>(t.type()));
      for (int64_t d : t.shape().dims()) out->add_dims(d);
      large_.push_back({out, &t});
      return;
    }
    TensorToProto(t, out);
  }

  static void Type(const ir::TypeInfo& t, ::kiln_onnx::TypeProto* out) {
    switch (t.kind) {
      case ir::ValueKind::kTensor:
      case ir::ValueKind::kSparseTensor: {
        const bool sparse = t.kind == ir::ValueKind::kSparseTensor;
        if (sparse) {
          out->mutable_sparse_tensor_type()->set_elem_type(static_cast<int32_t>(t.elem));
        } else {
          out->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(t.elem));
        }
        if (!t.shape) break;
        ::kiln_onnx::TensorShapeProto* shape =
            sparse ? out->mutable_sparse_tensor_type()->mutable_shape()
                   : out->mutable_tensor_type()->mutable_shape();
        const std::vector<int64_t>& dims = t.shape->dims();
        const std::vector<std::string>& symbols = t.shape->symbols();
        for (size_t d = 0; d < dims.size(); ++d) {
          ::kiln_onnx::TensorShapeProto::Dimension* dim = shape->add_dim();
          if (dims[d] >= 0) {
            dim->set_dim_value(dims[d]);
          } else if (d < symbols.size() && !symbols[d].empty()) {
            dim->set_dim_param(symbols[d]);
          }  // else: an unknown dimension, neither field set
        }
        break;
      }
      case ir::ValueKind::kSequence:
        if (t.contained) {
          Type(*t.contained, out->mutable_sequence_type()->mutable_elem_type());
        } else {
          out->mutable_sequence_type();
        }
        break;
      case ir::ValueKind::kOptional:
        if (t.contained) {
          Type(*t.contained, out->mutable_optional_type()->mutable_elem_type());
        } else {
          out->mutable_optional_type();
        }
        break;
      case ir::ValueKind::kMap: {
        ::kiln_onnx::TypeProto::Map* map = out->mutable_map_type();
        map->set_key_type(static_cast<int32_t>(t.elem));
        if (t.contained) Type(*t.contained, map->mutable_value_type());
        break;
      }
      case ir::ValueKind::kUnknown:
        break;
    }
  }

  static void ValueInfo(const ir::Value& v, ::kiln_onnx::ValueInfoProto* out) {
    out->set_name(v.name());
    if (v.type().kind != ir::ValueKind::kUnknown) Type(v.type(), out->mutable_type());
  }

  void Attribute(const ir::Attribute& a, ::kiln_onnx::AttributeProto* out) {
    out->set_name(a.name);
    out->set_type(static_cast<::kiln_onnx::AttributeProto::AttributeType>(a.type));
    switch (a.type) {
      case ir::AttrType::kFloat:
        out->set_f(a.f);
        break;
      case ir::AttrType::kInt:
        out->set_i(a.i);
        break;
      case ir::AttrType::kString:
        out->set_s(a.s);
        break;
      case ir::AttrType::kTensor:
        if (a.t) Tensor(*a.t, out->mutable_t());
        break;
      case ir::AttrType::kGraph:
        if (a.g) Graph(*a.g, out->mutable_g());
        break;
      case ir::AttrType::kFloats:
        for (float f : a.floats) out->add_floats(f);
        break;
      case ir::AttrType::kInts:
        for (int64_t i : a.ints) out->add_ints(i);
        break;
      case ir::AttrType::kStrings:
        for (const std::string& s : a.strings) out->add_strings(s);
        break;
      case ir::AttrType::kTensors:
        for (const auto& t : a.tensors) Tensor(*t, out->add_tensors());
        break;
      case ir::AttrType::kGraphs:
        for (const auto& g : a.graphs) Graph(*g, out->add_graphs());
        break;
      case ir::AttrType::kSparseTensor:
        if (a.sparse) Sparse(*a.sparse, out->mutable_sparse_tensor());
        break;
      case ir::AttrType::kSparseTensors:
        for (const auto& s : a.sparse_tensors) Sparse(*s, out->add_sparse_tensors());
        break;
      case ir::AttrType::kTypeProto:
        if (a.type_proto) Type(*a.type_proto, out->mutable_tp());
        break;
      case ir::AttrType::kTypeProtos:
        for (const auto& t : a.type_protos) Type(*t, out->add_type_protos());
        break;
      default:
        break;
    }
  }

  void Sparse(const ir::SparseTensor& s, ::kiln_onnx::SparseTensorProto* out) {
    Tensor(*s.values, out->mutable_values());
    Tensor(*s.indices, out->mutable_indices());
    for (int64_t d : s.dims) out->add_dims(d);
  }

  void Node(const ir::Node& n, ::kiln_onnx::NodeProto* out) {
    out->set_name(n.name());
    out->set_op_type(n.op_type());
    if (!n.domain().empty()) out->set_domain(n.domain());
    for (const ir::Value* v : n.inputs()) out->add_input(v != nullptr ? v->name() : std::string());
    for (const ir::Value* v : n.outputs()) {
      out->add_output(v != nullptr ? v->name() : std::string());
    }
    for (const ir::Attribute& a : n.attributes()) Attribute(a, out->add_attribute());
  }

  size_t large_bytes_;
  std::vector<Large> large_;
};

// The model without the data of the tensors `builder` lists as large.
void BuildModel(const ir::Model& model, const WriteOptions& options, ProtoBuilder& builder,
                ::kiln_onnx::ModelProto* out) {
  if (model.graph == nullptr) throw Error(ErrorCode::kInvalidGraph, "the model has no graph");
  const OpsetPlan opsets(model, options.compatible);
  out->set_ir_version(model.ir_version > 0 ? model.ir_version : kDefaultIrVersion);
  for (const auto& [domain, version] : opsets.versions()) {
    ::kiln_onnx::OperatorSetIdProto* op = out->add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  out->set_producer_name(model.producer_name);
  out->set_producer_version(model.producer_version);
  out->set_domain(model.domain);
  out->set_model_version(model.model_version);
  out->set_doc_string(model.doc_string);
  for (const auto& [key, value] : model.metadata) {
    ::kiln_onnx::StringStringEntryProto* kv = out->add_metadata_props();
    kv->set_key(key);
    kv->set_value(value);
  }
  builder.Graph(*model.graph, out->mutable_graph());
  out->mutable_graph()->set_doc_string(model.graph_doc_string);
}

void InlineData(const std::vector<ProtoBuilder::Large>& large) {
  for (const ProtoBuilder::Large& l : large) TensorToProto(*l.tensor, l.proto);
}

std::string Serialize(const ::kiln_onnx::ModelProto& proto) {
  const size_t size = proto.ByteSizeLong();
  if (size > kMaxProtoBytes) {
    ThrowInvalidArgument("model", "its ModelProto would be " + std::to_string(size) +
                                      " bytes; a protobuf holds at most 2 GiB (write it to a "
                                      "file, with its large tensors as external data)");
  }
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  proto.SerializeWithCachedSizes(&coded);
  coded.Trim();
  return bytes;
}

[[noreturn]] void CannotWrite(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kNoSuchFile, "cannot " + what + " '" + path + "'");
}

// Writes each large tensor's bytes to `file` (aligned) and points its proto there.
void WriteExternal(const std::vector<ProtoBuilder::Large>& large, const std::string& file,
                   const std::string& location) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) CannotWrite(file, "create the external data file");
  uint64_t offset = 0;
  static const char kZeros[kExternalAlignment] = {};
  for (const ProtoBuilder::Large& l : large) {
    const uint64_t pad = (kExternalAlignment - offset % kExternalAlignment) % kExternalAlignment;
    out.write(kZeros, static_cast<std::streamsize>(pad));
    offset += pad;
    const size_t bytes = l.tensor->byte_size();
    out.write(static_cast<const char*>(l.tensor->data()), static_cast<std::streamsize>(bytes));
    if (!out) CannotWrite(file, "write the external data file");
    l.proto->set_data_location(::kiln_onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"location", location},
                                     {"offset", std::to_string(offset)},
                                     {"length", std::to_string(bytes)}}) {
      ::kiln_onnx::StringStringEntryProto* kv = l.proto->add_external_data();
      kv->set_key(key);
      kv->set_value(value);
    }
    offset += bytes;
  }
  out.close();
  if (!out) CannotWrite(file, "write the external data file");
}

}  // namespace

::kiln_onnx::ModelProto ModelToProto(const ir::Model& model, const WriteOptions& options) {
  ::kiln_onnx::ModelProto proto;
  ProtoBuilder builder(SIZE_MAX);
  BuildModel(model, options, builder, &proto);
  return proto;
}

// On an arena every message is freed with the arena, also when building stops half way because
// an allocation failed (libprotobuf can drop a half-built sub-message on that path).
std::string ModelToBytes(const ir::Model& model, const WriteOptions& options) {
  google::protobuf::Arena arena;
  auto* proto = google::protobuf::Arena::CreateMessage<::kiln_onnx::ModelProto>(&arena);
  ProtoBuilder builder(SIZE_MAX);
  BuildModel(model, options, builder, proto);
  return Serialize(*proto);
}

void WriteModelFile(const ir::Model& model, const std::string& path, const WriteOptions& options) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  if (path.empty() || file.filename().empty()) CannotWrite(path, "write a model to");
  google::protobuf::Arena arena;  // as in ModelToBytes
  ::kiln_onnx::ModelProto& proto =
      *google::protobuf::Arena::CreateMessage<::kiln_onnx::ModelProto>(&arena);
  ProtoBuilder builder(options.external == ExternalData::kNever ? SIZE_MAX
                                                                : options.external_min_bytes);
  BuildModel(model, options, builder, &proto);
  const std::vector<ProtoBuilder::Large>& large = builder.large();
  bool external = options.external == ExternalData::kAlways && !large.empty();
  bool inlined = false;
  if (options.external == ExternalData::kAuto && !large.empty()) {
    // Inline, each large tensor adds its bytes and at most 30 more (the raw_data tag and length
    // and the growth of the length prefixes around it). Sure to fit or sure not to: decided;
    // within the margin, measured (a copy of the tensors, for a model within bytes of the limit).
    const size_t base = proto.ByteSizeLong();
    size_t least = base;
    size_t most = base;
    for (const ProtoBuilder::Large& l : large) {
      least += l.tensor->byte_size();
      most += l.tensor->byte_size() + 30;
    }
    external = least > options.max_proto_bytes;
    if (!external && most > options.max_proto_bytes) {
      InlineData(large);
      inlined = true;
      if (proto.ByteSizeLong() > options.max_proto_bytes) {
        for (const ProtoBuilder::Large& l : large) l.proto->clear_raw_data();
        inlined = false;
        external = true;
      }
    }
  }
  if (external) {
    const std::string location =
        options.external_file.empty() ? file.filename().string() + ".data" : options.external_file;
    if (fs::path(location).has_parent_path() || fs::path(location).is_absolute() ||
        location == "." || location == ".." || location == file.filename().string()) {
      ThrowInvalidArgument("options", "external data file '" + location +
                                          "' must be a file name, in the model's folder, "
                                          "other than the model's");
    }
    WriteExternal(large, (file.parent_path() / location).string(), location);
  } else if (!inlined) {
    InlineData(large);
  }
  const size_t size = proto.ByteSizeLong();
  if (size > options.max_proto_bytes || size > kMaxProtoBytes) {
    ThrowInvalidArgument(
        "model",
        "its ModelProto would be " + std::to_string(size) + " bytes, more than the " +
            std::to_string(options.max_proto_bytes) + " allowed" +
            (external ? ", with its large tensors as external data" : " (external data is off)"));
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) CannotWrite(path, "create the model file");
  {
    google::protobuf::io::OstreamOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeWithCachedSizes(&coded);
    if (coded.HadError()) CannotWrite(path, "write the model file");
  }
  out.close();
  if (!out) CannotWrite(path, "write the model file");
}

}  // namespace kiln::onnx
