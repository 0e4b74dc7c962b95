// The graph API (include/kiln/kiln_graph_api.h) for the Python package: models read from a file,
// bytes or ONNX's textual syntax, saved, printed and verified, and read-only views of their graphs
// and of a session's. Handles in, plain data out; kiln/capi/_graph.py makes the classes users see.
//
// Every native object here holds its handle and an Anchor: the owned KilnModel (released when the
// last object over it goes) or the session of a view. Handles borrowed from a model stay valid
// while it lives, as nothing here changes a model; the arrays over initializers and tensor
// attributes hold the Anchor too, so no object or array ever outlives what it points into.
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "native.h"

namespace kilnpy {

const KilnGraphApi& GraphApi() {
  static const KilnGraphApi* table = api().GetGraphApi(KILN_GRAPH_API_VERSION);
  if (table == nullptr) {
    throw kiln::Exception(KILN_NOT_IMPLEMENTED, "the Kiln library has no graph API of version " +
                                                    std::to_string(KILN_GRAPH_API_VERSION));
  }
  return *table;
}

namespace {

const KilnGraphApi& G() {
  return GraphApi();
}

// A UTF-8 name borrowed from Kiln, as a str.
py::str Str(KilnStringRef ref) {
  return py::str(ref.data, ref.length);
}

// An array's base that keeps the handles' root alive.
py::capsule AnchorCapsule(const Anchor& anchor) {
  return py::capsule(new Anchor(anchor), [](void* p) { delete static_cast<Anchor*>(p); });
}

std::string NoNulPath(const std::string& path, const char* what) {
  if (path.find('\0') != std::string::npos) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT,
                          std::string(what) + ": path holds a NUL character");
  }
  return path;
}

// Collects printed text. The callback must not throw into Kiln: a failure is noted and reported
// after the call.
struct Printed {
  std::string text;
  bool failed = false;

  static void KILN_API_CALL Append(const char* data, size_t length, void* user) {
    auto* self = static_cast<Printed*>(user);
    if (self->failed) return;
    try {
      self->text.append(data, length);
    } catch (...) {
      self->failed = true;
    }
  }

  // The text as a str: UTF-8, bytes that are not kept as surrogates (surrogateescape), so that
  // Model.from_text gives back the same bytes.
  py::str Take() {
    if (failed) throw kiln::Exception(KILN_OUT_OF_MEMORY, "printing: out of memory");
    PyObject* s =
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
    if (s == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(s);
  }
};

template <typename F>
py::str PrintWith(F&& print, int64_t elide, bool debug) {
  Printed p;
  const uint32_t flags = debug ? KILN_PRINT_DEBUG : KILN_PRINT_DEFAULT;
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = print(elide, flags, &Printed::Append, &p);
  }
  Check(status);
  return p.Take();
}

// A model: read by Model.load / from_bytes / from_text (owned), or a session's view.
struct Model {
  KilnModel* handle = nullptr;
  Anchor anchor;

  static Model Owned(KilnModel* made) {
    auto owner = std::shared_ptr<KilnModel>(made, [](KilnModel* m) { GraphApi().ReleaseModel(m); });
    return Model{made, std::move(owner)};
  }
};

struct Graph {
  KilnGraph* handle = nullptr;
  Anchor anchor;
};

struct Node {
  KilnNode* handle = nullptr;
  Anchor anchor;
};

struct ValueInfo {
  KilnValueInfo* handle = nullptr;
  Anchor anchor;
};

uintptr_t Id(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// ---- Models ------------------------------------------------------------------------------------

Model LoadModel(const std::string& path) {
  const std::string p = NoNulPath(path, "Model.load");
  KilnModel* m = nullptr;
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = G().CreateModelFromFile(p.c_str(), &m);
  }
  Check(status);
  return Model::Owned(m);
}

Model ModelFromBytes(const py::bytes& data) {
  std::string_view bytes = data;
  KilnModel* m = nullptr;
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = G().CreateModelFromArray(bytes.data(), bytes.size(), &m);
  }
  Check(status);
  return Model::Owned(m);
}

Model ModelFromText(const py::str& text) {
  // Surrogates (bytes Model.to_text could not decode) go back to their bytes.
  PyObject* encoded = PyUnicode_AsEncodedString(text.ptr(), "utf-8", "surrogateescape");
  if (encoded == nullptr) throw py::error_already_set();
  auto bytes = py::reinterpret_steal<py::bytes>(encoded);
  std::string_view view = bytes;
  KilnModel* m = nullptr;
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = G().CreateModelFromText(view.data(), view.size(), &m);
  }
  Check(status);
  return Model::Owned(m);
}

py::list OpsetImports(const Model& self) {
  size_t n = 0;
  Check(G().ModelGetNumOpsetImports(self.handle, &n));
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    KilnStringRef domain{};
    int64_t version = 0;
    Check(G().ModelGetOpsetImport(self.handle, i, &domain, &version));
    out.append(py::make_tuple(Str(domain), version));
  }
  return out;
}

py::object ModelGraph(const Model& self) {
  KilnGraph* g = nullptr;
  Check(G().ModelGetGraph(self.handle, &g));
  if (g == nullptr) return py::none();
  return py::cast(Graph{g, self.anchor});
}

void SaveModel(const Model& self, const std::string& path) {
  const std::string p = NoNulPath(path, "Model.save");
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = G().ModelSave(self.handle, p.c_str());
  }
  Check(status);
}

void VerifyModel(const Model& self, const py::object& options) {
  const KilnSessionOptions* o = SessionOptionsHandle(options);
  KilnStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = G().ModelVerify(self.handle, o);
  }
  Check(status);
}

// ---- Types -------------------------------------------------------------------------------------

// A type as (kind, element type, shape, contained): the shape a list of ints (known), strs
// (symbolic) and None (unknown), or None when the rank is not known; `contained` the same tuple
// for a sequence's, an optional's or a map's values, or None.
py::object TypeTuple(const KilnTypeInfo* type) {
  KilnTypeKind kind = KILN_TYPE_UNDEFINED;
  Check(G().TypeInfoGetKind(type, &kind));
  KilnElementType elem = KILN_ELEMENT_TYPE_UNDEFINED;
  Check(G().TypeInfoGetElementType(type, &elem));
  size_t rank = KILN_RANK_UNKNOWN;
  Check(G().TypeInfoGetRank(type, &rank));
  py::object shape = py::none();
  if (rank != KILN_RANK_UNKNOWN) {
    std::vector<int64_t> dims(rank);
    if (rank > 0) Check(G().TypeInfoGetDimensions(type, dims.data(), dims.size()));
    py::list list;
    for (size_t d = 0; d < rank; ++d) {
      KilnStringRef param{};
      Check(G().TypeInfoGetDimParam(type, d, &param));
      if (param.length > 0) {
        list.append(Str(param));
      } else if (dims[d] >= 0) {
        list.append(dims[d]);
      } else {
        list.append(py::none());
      }
    }
    shape = list;
  }
  const KilnTypeInfo* contained = nullptr;
  Check(G().TypeInfoGetContainedType(type, &contained));
  return py::make_tuple(static_cast<int>(kind), static_cast<int>(elem), shape,
                        contained == nullptr ? py::none() : TypeTuple(contained));
}

// ---- Values ------------------------------------------------------------------------------------

py::object ValueOrNone(KilnValueInfo* v, const Anchor& anchor) {
  if (v == nullptr) return py::none();
  return py::cast(ValueInfo{v, anchor});
}

py::list Values(size_t count, const Anchor& anchor,
                const std::function<KilnStatus*(size_t, KilnValueInfo**)>& get) {
  py::list out;
  for (size_t i = 0; i < count; ++i) {
    KilnValueInfo* v = nullptr;
    Check(get(i, &v));
    out.append(ValueOrNone(v, anchor));
  }
  return out;
}

py::str ValueName(const ValueInfo& self) {
  KilnStringRef name{};
  Check(G().ValueInfoGetName(self.handle, &name));
  return Str(name);
}

py::object ValueType(const ValueInfo& self) {
  const KilnTypeInfo* type = nullptr;
  Check(G().ValueInfoGetType(self.handle, &type));
  return TypeTuple(type);
}

py::object Producer(const ValueInfo& self) {
  KilnNode* node = nullptr;
  size_t index = 0;
  Check(G().ValueInfoGetProducer(self.handle, &node, &index));
  if (node == nullptr) return py::none();
  return py::make_tuple(Node{node, self.anchor}, index);
}

py::list Consumers(const ValueInfo& self) {
  size_t n = 0;
  Check(G().ValueInfoGetNumConsumers(self.handle, &n));
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    KilnNode* node = nullptr;
    size_t input = 0;
    Check(G().ValueInfoGetConsumer(self.handle, i, &node, &input));
    out.append(py::make_tuple(Node{node, self.anchor}, input == KILN_IMPLICIT_INPUT
                                                           ? py::object(py::none())
                                                           : py::object(py::int_(input))));
  }
  return out;
}

py::object Initializer(const ValueInfo& self) {
  const KilnValue* tensor = nullptr;
  Check(G().ValueInfoGetInitializer(self.handle, &tensor));
  if (tensor == nullptr) return py::none();
  return ReadOnlyTensorArray(tensor, AnchorCapsule(self.anchor));
}

bool IsCaptured(const ValueInfo& self) {
  int captured = 0;
  Check(G().ValueInfoIsCaptured(self.handle, &captured));
  return captured != 0;
}

// ---- Graphs ------------------------------------------------------------------------------------

py::str GraphName(const Graph& self) {
  KilnStringRef name{};
  Check(G().GraphGetName(self.handle, &name));
  return Str(name);
}

py::list GraphInputs(const Graph& self) {
  size_t n = 0;
  Check(G().GraphGetNumInputs(self.handle, &n));
  return Values(n, self.anchor,
                [&](size_t i, KilnValueInfo** v) { return G().GraphGetInput(self.handle, i, v); });
}

py::list GraphOutputs(const Graph& self) {
  size_t n = 0;
  Check(G().GraphGetNumOutputs(self.handle, &n));
  return Values(n, self.anchor,
                [&](size_t i, KilnValueInfo** v) { return G().GraphGetOutput(self.handle, i, v); });
}

py::list GraphInitializers(const Graph& self) {
  size_t n = 0;
  Check(G().GraphGetNumInitializers(self.handle, &n));
  return Values(n, self.anchor, [&](size_t i, KilnValueInfo** v) {
    return G().GraphGetInitializer(self.handle, i, v);
  });
}

py::list GraphNodes(const Graph& self) {
  size_t n = 0;
  Check(G().GraphGetNumNodes(self.handle, &n));
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    KilnNode* node = nullptr;
    Check(G().GraphGetNode(self.handle, i, &node));
    out.append(Node{node, self.anchor});
  }
  return out;
}

py::object GraphModel(const Graph& self) {
  KilnModel* m = nullptr;
  Check(G().GraphGetModel(self.handle, &m));
  if (m == nullptr) return py::none();
  return py::cast(Model{m, self.anchor});
}

// ---- Nodes -------------------------------------------------------------------------------------

// One of a node's strings, read by a NodeGet… slot.
template <typename Get>
py::str NodeString(const Node& self, Get get) {
  KilnStringRef s{};
  Check(get(self.handle, &s));
  return Str(s);
}

py::list NodeInputs(const Node& self) {
  size_t n = 0;
  Check(G().NodeGetNumInputs(self.handle, &n));
  return Values(n, self.anchor,
                [&](size_t i, KilnValueInfo** v) { return G().NodeGetInput(self.handle, i, v); });
}

py::list NodeOutputs(const Node& self) {
  size_t n = 0;
  Check(G().NodeGetNumOutputs(self.handle, &n));
  return Values(n, self.anchor,
                [&](size_t i, KilnValueInfo** v) { return G().NodeGetOutput(self.handle, i, v); });
}

py::list NodeImplicitInputs(const Node& self) {
  size_t n = 0;
  Check(G().NodeGetNumImplicitInputs(self.handle, &n));
  return Values(n, self.anchor, [&](size_t i, KilnValueInfo** v) {
    return G().NodeGetImplicitInput(self.handle, i, v);
  });
}

py::bytes Bytes(KilnStringRef ref) {
  return py::bytes(ref.data, ref.length);
}

// ("sparse", values, indices, dims) for a sparse tensor, the arrays read-only over Kiln's memory.
py::object SparseTuple(const KilnValue* values, const KilnValue* indices, const int64_t* dims,
                       size_t rank, const Anchor& anchor) {
  py::tuple shape(rank);
  for (size_t d = 0; d < rank; ++d) shape[d] = py::int_(dims[d]);
  return py::make_tuple(py::str("sparse"), ReadOnlyTensorArray(values, AnchorCapsule(anchor)),
                        ReadOnlyTensorArray(indices, AnchorCapsule(anchor)), shape);
}

// One attribute's value: int, float, bytes (STRING), a read-only array (TENSOR), a Graph,
// ("sparse", values, indices, dims) for a SPARSE_TENSOR, ("type", type tuple) for a TYPE_PROTO,
// lists of those for the list types (kiln/capi/_graph.py wraps the tuples).
py::object AttributeValue(const KilnAttribute* a, KilnAttributeType type, const Anchor& anchor) {
  switch (type) {
    case KILN_ATTRIBUTE_INT: {
      int64_t v = 0;
      Check(G().AttributeGetInt(a, &v));
      return py::int_(v);
    }
    case KILN_ATTRIBUTE_FLOAT: {
      float v = 0;
      Check(G().AttributeGetFloat(a, &v));
      return py::float_(v);
    }
    case KILN_ATTRIBUTE_STRING: {
      KilnStringRef s{};
      Check(G().AttributeGetString(a, &s));
      return Bytes(s);
    }
    case KILN_ATTRIBUTE_TENSOR: {
      const KilnValue* t = nullptr;
      Check(G().AttributeGetTensor(a, &t));
      return ReadOnlyTensorArray(t, AnchorCapsule(anchor));
    }
    case KILN_ATTRIBUTE_GRAPH: {
      KilnGraph* g = nullptr;
      Check(G().AttributeGetGraph(a, &g));
      return py::cast(Graph{g, anchor});
    }
    case KILN_ATTRIBUTE_SPARSE_TENSOR: {
      const KilnValue* values = nullptr;
      const KilnValue* indices = nullptr;
      const int64_t* dims = nullptr;
      size_t rank = 0;
      Check(G().AttributeGetSparseTensor(a, &values, &indices, &dims, &rank));
      return SparseTuple(values, indices, dims, rank, anchor);
    }
    case KILN_ATTRIBUTE_TYPE_PROTO: {
      const KilnTypeInfo* t = nullptr;
      Check(G().AttributeGetTypeProto(a, &t));
      return py::make_tuple(py::str("type"), TypeTuple(t));
    }
    default:
      break;
  }
  const bool list = type == KILN_ATTRIBUTE_INTS || type == KILN_ATTRIBUTE_FLOATS ||
                    type == KILN_ATTRIBUTE_STRINGS || type == KILN_ATTRIBUTE_TENSORS ||
                    type == KILN_ATTRIBUTE_GRAPHS || type == KILN_ATTRIBUTE_SPARSE_TENSORS ||
                    type == KILN_ATTRIBUTE_TYPE_PROTOS;
  if (!list) return py::none();
  size_t n = 0;
  Check(G().AttributeGetNumElements(a, &n));
  py::list out;
  if (type == KILN_ATTRIBUTE_INTS && n > 0) {
    const int64_t* v = nullptr;
    Check(G().AttributeGetInts(a, &v));
    for (size_t i = 0; i < n; ++i) out.append(v[i]);
  } else if (type == KILN_ATTRIBUTE_FLOATS && n > 0) {
    const float* v = nullptr;
    Check(G().AttributeGetFloats(a, &v));
    for (size_t i = 0; i < n; ++i) out.append(static_cast<double>(v[i]));
  } else if (type == KILN_ATTRIBUTE_STRINGS) {
    for (size_t i = 0; i < n; ++i) {
      KilnStringRef s{};
      Check(G().AttributeGetStringAt(a, i, &s));
      out.append(Bytes(s));
    }
  } else if (type == KILN_ATTRIBUTE_TENSORS) {
    for (size_t i = 0; i < n; ++i) {
      const KilnValue* t = nullptr;
      Check(G().AttributeGetTensorAt(a, i, &t));
      out.append(ReadOnlyTensorArray(t, AnchorCapsule(anchor)));
    }
  } else if (type == KILN_ATTRIBUTE_GRAPHS) {
    for (size_t i = 0; i < n; ++i) {
      KilnGraph* g = nullptr;
      Check(G().AttributeGetGraphAt(a, i, &g));
      out.append(Graph{g, anchor});
    }
  } else if (type == KILN_ATTRIBUTE_SPARSE_TENSORS) {
    for (size_t i = 0; i < n; ++i) {
      const KilnValue* values = nullptr;
      const KilnValue* indices = nullptr;
      const int64_t* dims = nullptr;
      size_t rank = 0;
      Check(G().AttributeGetSparseTensorAt(a, i, &values, &indices, &dims, &rank));
      out.append(SparseTuple(values, indices, dims, rank, anchor));
    }
  } else if (type == KILN_ATTRIBUTE_TYPE_PROTOS) {
    for (size_t i = 0; i < n; ++i) {
      const KilnTypeInfo* t = nullptr;
      Check(G().AttributeGetTypeProtoAt(a, i, &t));
      out.append(py::make_tuple(py::str("type"), TypeTuple(t)));
    }
  }
  return out;
}

// The attributes in the order given, as (name, KilnAttributeType, value) tuples.
py::list NodeAttributes(const Node& self) {
  size_t n = 0;
  Check(G().NodeGetNumAttributes(self.handle, &n));
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    KilnAttribute* a = nullptr;
    Check(G().NodeGetAttribute(self.handle, i, &a));
    KilnStringRef name{};
    Check(G().AttributeGetName(a, &name));
    KilnAttributeType type = KILN_ATTRIBUTE_UNDEFINED;
    Check(G().AttributeGetType(a, &type));
    out.append(
        py::make_tuple(Str(name), static_cast<int>(type), AttributeValue(a, type, self.anchor)));
  }
  return out;
}

py::list FusedFrom(const Node& self) {
  size_t n = 0;
  Check(G().NodeGetNumFusedFrom(self.handle, &n));
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    KilnStringRef s{};
    Check(G().NodeGetFusedFrom(self.handle, i, &s));
    out.append(Str(s));
  }
  return out;
}

}  // namespace

const KilnModel* ModelHandleOf(py::handle obj) {
  if (!py::isinstance<Model>(obj)) return nullptr;
  return obj.cast<const Model&>().handle;
}

py::object SessionGraph(const std::shared_ptr<KilnSession>& session, bool optimized) {
  KilnGraph* g = nullptr;
  Check(
      G().SessionGetGraph(session.get(), optimized ? KILN_GRAPH_OPTIMIZED : KILN_GRAPH_LOADED, &g));
  return py::cast(Graph{g, session});
}

void DefineGraphs(py::module_& m) {
  py::class_<Model>(m, "Model",
                    "A KilnModel: owned (read by load / from_bytes / from_text) or a view.")
      .def_static("load", &LoadModel, py::arg("path"), "CreateModelFromFile.")
      .def_static("from_bytes", &ModelFromBytes, py::arg("data"), "CreateModelFromArray.")
      .def_static("from_text", &ModelFromText, py::arg("text"), "CreateModelFromText.")
      .def("ir_version",
           [](const Model& self) {
             int64_t v = 0;
             Check(G().ModelGetIrVersion(self.handle, &v));
             return v;
           })
      .def("opset_imports", &OpsetImports, "(domain, version) pairs, in the order of domains.")
      .def("graph", &ModelGraph, "The main graph, or None.")
      .def("save", &SaveModel, py::arg("path"), "ModelSave.")
      .def(
          "print",
          [](const Model& self, int64_t elide, bool debug) {
            return PrintWith(
                [&](int64_t e, uint32_t f, KilnPrintCallback cb, void* user) {
                  return G().ModelPrint(self.handle, e, f, cb, user);
                },
                elide, debug);
          },
          py::arg("elide_above"), py::arg("debug"), "ModelPrint, as a str.")
      .def("verify", &VerifyModel, py::arg("options").none(true), "ModelVerify.")
      .def("handle_id", [](const Model& self) { return Id(self.handle); });

  py::class_<Graph>(m, "Graph", "A KilnGraph borrowed from a model or a session's view.")
      .def("name", &GraphName)
      .def("inputs", &GraphInputs)
      .def("outputs", &GraphOutputs)
      .def("initializers", &GraphInitializers)
      .def("nodes", &GraphNodes, "In topological order.")
      .def("model", &GraphModel, "GraphGetModel: the model, or None.")
      .def(
          "print",
          [](const Graph& self, int64_t elide, bool debug) {
            return PrintWith(
                [&](int64_t e, uint32_t f, KilnPrintCallback cb, void* user) {
                  return G().GraphPrint(self.handle, e, f, cb, user);
                },
                elide, debug);
          },
          py::arg("elide_above"), py::arg("debug"), "GraphPrint, as a str.")
      .def("handle_id", [](const Graph& self) { return Id(self.handle); });

  py::class_<Node>(m, "Node", "A KilnNode of a graph.")
      .def("name", [](const Node& self) { return NodeString(self, G().NodeGetName); })
      .def("op_type", [](const Node& self) { return NodeString(self, G().NodeGetOpType); })
      .def("domain", [](const Node& self) { return NodeString(self, G().NodeGetDomain); })
      .def("kernel", [](const Node& self) { return NodeString(self, G().NodeGetKernel); })
      .def("since_version",
           [](const Node& self) {
             int64_t v = 0;
             Check(G().NodeGetSinceVersion(self.handle, &v));
             return v;
           })
      .def("inputs", &NodeInputs, "ValueInfo, or None for an optional input left out.")
      .def("outputs", &NodeOutputs, "ValueInfo, or None for an optional output left out.")
      .def("implicit_inputs", &NodeImplicitInputs)
      .def("attributes", &NodeAttributes, "(name, KilnAttributeType, value) tuples.")
      .def("fused_from", &FusedFrom)
      .def("handle_id", [](const Node& self) { return Id(self.handle); });

  py::class_<ValueInfo>(m, "ValueInfo", "A KilnValueInfo: an edge of a graph.")
      .def("name", &ValueName)
      .def("type", &ValueType, "(kind, element type, shape, contained).")
      .def("producer", &Producer, "(Node, output index), or None.")
      .def("consumers", &Consumers, "(Node, input index or None for a subgraph's read) pairs.")
      .def("initializer", &Initializer, "A read-only array over the constant, or None.")
      .def("is_captured", &IsCaptured)
      .def("handle_id", [](const ValueInfo& self) { return Id(self.handle); });
}

}  // namespace kilnpy
