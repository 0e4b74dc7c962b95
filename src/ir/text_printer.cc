#include "ir/text_printer.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/float16.h"

namespace kiln::ir {
namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  if (s == "inf" || s == "nan") return false;  // the parser reads those as numbers
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Calls `f` on every node of the graph and of its subgraphs.
template <typename F>
void Visit(const ir::Graph& g, const F& f) {
  for (const auto& n : g.nodes()) {
    f(*n);
    for (const Attribute& a : n->attributes()) {
      if (a.g) Visit(*a.g, f);
      for (const auto& sub : a.graphs) Visit(*sub, f);
    }
  }
}

// Writes the pieces of one model; `out` gathers text until it is flushed to the sink.
class Printer {
 public:
  Printer(const TextOptions& options, const std::function<void(std::string_view)>& sink)
      : options_(options), sink_(sink) {}

  void Model(const ir::Model& m) {
    out_ += "<\n  ir_version: " + std::to_string(m.ir_version) + ",\n  opset_import: [";
    const std::map<std::string, int64_t> opsets = ImportedOpsets(m);
    bool first = true;
    for (const auto& [domain, version] : opsets) {
      if (!first) out_ += ", ";
      first = false;
      Quoted(domain);
      out_ += " : " + std::to_string(version);
    }
    out_ += "]";
    auto field = [&](const char* name, const std::string& value) {
      if (value.empty()) return;
      out_ += std::string(",\n  ") + name + ": ";
      Quoted(value);
    };
    field("producer_name", m.producer_name);
    field("producer_version", m.producer_version);
    field("domain", m.domain);
    if (m.model_version != 0) out_ += ",\n  model_version: " + std::to_string(m.model_version);
    field("doc_string", m.doc_string);
    out_ += "\n>\n";
    Graph(*m.graph, 0);
    out_ += "\n";
    Flush();
  }

  void WholeGraph(const ir::Graph& g) {
    Graph(g, 0);
    out_ += "\n";
    Flush();
  }

 private:
  void Flush() {
    if (!out_.empty()) sink_(out_);
    out_.clear();
  }

  void Indent(int depth) { out_.append(static_cast<size_t>(depth) * 2, ' '); }

  // Escapes quotes, backslashes, control bytes and bytes that are not part of valid UTF-8 (an
  // attribute's bytes), so that the text stays UTF-8 and reads back to the same bytes.
  void Quoted(std::string_view s) {
    out_ += '"';
    for (size_t i = 0; i < s.size();) {
      const char c = s[i];
      const auto b = static_cast<unsigned char>(c);
      const size_t n = Utf8Length(s, i);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (b < 0x20 || b == 0x7f || n == 0) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(b));
        out_ += buf;
      } else {
        out_.append(s.substr(i, n));
        i += n;
        continue;
      }
      ++i;
    }
    out_ += '"';
  }

  // The length of the valid UTF-8 sequence at s[i] (1 for ASCII); 0 when there is none.
  static size_t Utf8Length(std::string_view s, size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) return 1;
    size_t n = 0;
    uint32_t cp = 0;
    if ((b & 0xe0) == 0xc0) {
      n = 2;
      cp = b & 0x1f;
    } else if ((b & 0xf0) == 0xe0) {
      n = 3;
      cp = b & 0x0f;
    } else if ((b & 0xf8) == 0xf0) {
      n = 4;
      cp = b & 0x07;
    } else {
      return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xc0) != 0x80) return 0;
      cp = (cp << 6) | (c & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
  }

  void Name(std::string_view name) {
    if (IsIdentifier(name)) {
      out_ += name;
    } else {
      Quoted(name);
    }
  }

  // A value's type: what options_.value_type knows of it, else its own.
  const TypeInfo& TypeOf(const Value& v) {
    if (options_.value_type) {
      known_ = options_.value_type(v);
      if (known_ != nullptr) return *known_;
    }
    return v.type();
  }

  void Type(const TypeInfo& t) {
    switch (t.kind) {
      case ValueKind::kSequence:
      case ValueKind::kOptional:
        out_ += t.kind == ValueKind::kSequence ? "seq(" : "optional(";
        if (t.contained != nullptr) {
          Type(*t.contained);
        } else {
          out_ += DataTypeName(t.elem);
        }
        out_ += ")";
        return;
      case ValueKind::kMap:
        out_ += std::string("map(") + DataTypeName(t.elem) + ", ";
        if (t.contained != nullptr) {
          Type(*t.contained);
        } else {
          out_ += "undefined";
        }
        out_ += ")";
        return;
      case ValueKind::kSparseTensor: {
        TypeInfo dense = t;
        dense.kind = ValueKind::kTensor;
        out_ += "sparse_tensor(";
        Type(dense);
        out_ += ")";
        return;
      }
      case ValueKind::kUnknown:
        out_ += "undefined";  // the model gives the value no type
        return;
      default:
        break;
    }
    out_ += DataTypeName(t.elem);
    if (!t.shape) {
      out_ += "[]";  // rank unknown
      return;
    }
    if (t.shape->rank() == 0) return;  // a scalar: no brackets
    out_ += "[";
    const std::vector<int64_t>& dims = t.shape->dims();
    const std::vector<std::string>& symbols = t.shape->symbols();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i > 0) out_ += ", ";
      if (dims[i] >= 0) {
        out_ += std::to_string(dims[i]);
      } else if (i < symbols.size() && !symbols[i].empty()) {
        Name(symbols[i]);
      } else {
        out_ += "?";
      }
    }
    out_ += "]";
  }

  void TensorType(const Tensor& t) {
    TypeInfo type;
    type.kind = ValueKind::kTensor;
    type.elem = t.type();
    type.shape = t.shape();
    Type(type);
  }

  void Float(double v, bool is_double) {
    if (std::isnan(v)) {
      out_ += "nan";
      return;
    }
    if (std::isinf(v)) {
      out_ += v < 0 ? "-inf" : "inf";
      return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
    out_ += buf;
    // A float is written with a point, so it never reads as an integer.
    if (std::strpbrk(buf, ".eEn") == nullptr) out_ += ".0";
  }

  // The elements of a tensor, or false (nothing written) for an element type the grammar has no
  // literal for.
  bool Values(const Tensor& t) {
    const size_t n = t.element_count();
    const void* data = t.data();
    auto list = [&](auto&& element) {
      out_ += "{";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) out_ += ", ";
        element(i);
      }
      out_ += "}";
    };
    auto ints = [&](auto* p) { list([&](size_t i) { out_ += std::to_string(p[i]); }); };
    switch (t.type()) {
      case DataType::kFloat:
        list([&](size_t i) { Float(static_cast<const float*>(data)[i], false); });
        return true;
      case DataType::kDouble:
        list([&](size_t i) { Float(static_cast<const double*>(data)[i], true); });
        return true;
      case DataType::kFloat16:
        list([&](size_t i) { Float(static_cast<const Float16*>(data)[i].ToFloat(), false); });
        return true;
      case DataType::kBfloat16:
        list([&](size_t i) { Float(static_cast<const BFloat16*>(data)[i].ToFloat(), false); });
        return true;
      case DataType::kInt8:
        ints(static_cast<const int8_t*>(data));
        return true;
      case DataType::kUint8:
        ints(static_cast<const uint8_t*>(data));
        return true;
      case DataType::kInt16:
        ints(static_cast<const int16_t*>(data));
        return true;
      case DataType::kUint16:
        ints(static_cast<const uint16_t*>(data));
        return true;
      case DataType::kInt32:
        ints(static_cast<const int32_t*>(data));
        return true;
      case DataType::kUint32:
        ints(static_cast<const uint32_t*>(data));
        return true;
      case DataType::kInt64:
        ints(static_cast<const int64_t*>(data));
        return true;
      case DataType::kUint64:
        ints(static_cast<const uint64_t*>(data));
        return true;
      case DataType::kBool:
        ints(static_cast<const uint8_t*>(data));
        return true;
      case DataType::kString:
        list([&](size_t i) { Quoted(t.strings()[i]); });
        return true;
      default:
        return false;
    }
  }

  bool Elided(const Tensor& t) const {
    return options_.elide_above >= 0 &&
           t.element_count() > static_cast<size_t>(options_.elide_above);
  }

  // "float[2] name = {1, 2}", or the declaration and a note when the values are left out.
  void Initializer(const std::string& name, const Tensor& t, int depth) {
    Indent(depth);
    TensorType(t);
    out_ += " ";
    Name(name);
    if (Elided(t)) {
      notes_.push_back(name + ": " + std::to_string(t.element_count()) + " elements elided");
      return;
    }
    const size_t mark = out_.size();
    out_ += " = ";
    if (!Values(t)) {
      out_.resize(mark);
      notes_.push_back(name + ": " + DataTypeName(t.type()) + " values have no literal form");
    }
  }

  void AttributeValue(const Attribute& a, int depth) {
    switch (a.type) {
      case AttrType::kFloat:
        Float(a.f, false);
        return;
      case AttrType::kInt:
        out_ += std::to_string(a.i);
        return;
      case AttrType::kString:
        Quoted(a.s);
        return;
      case AttrType::kFloats:
      case AttrType::kInts:
      case AttrType::kStrings: {
        out_ += "[";
        const size_t n = a.type == AttrType::kFloats ? a.floats.size()
                         : a.type == AttrType::kInts ? a.ints.size()
                                                     : a.strings.size();
        for (size_t i = 0; i < n; ++i) {
          if (i > 0) out_ += ", ";
          if (a.type == AttrType::kFloats) {
            Float(a.floats[i], false);
          } else if (a.type == AttrType::kInts) {
            out_ += std::to_string(a.ints[i]);
          } else {
            Quoted(a.strings[i]);
          }
        }
        out_ += "]";
        return;
      }
      case AttrType::kTensor:
        TensorType(*a.t);
        out_ += " ";
        if (Elided(*a.t) || !Values(*a.t)) {
          out_ += "{}";
          node_notes_.push_back("attribute " + a.name + ": " +
                                std::to_string(a.t->element_count()) + " elements elided");
        }
        return;
      case AttrType::kGraph:
        Graph(*a.g, depth + 1);
        return;
      case AttrType::kGraphs:
        out_ += "[";
        for (size_t i = 0; i < a.graphs.size(); ++i) {
          if (i > 0) out_ += ", ";
          Graph(*a.graphs[i], depth + 1);
        }
        out_ += "]";
        return;
      default:
        out_ += "[]";
        node_notes_.push_back("attribute " + a.name + ": a " + AttrTypeName(a.type) +
                              " attribute, not written");
        return;
    }
  }

  void Node(const ir::Node& n, int depth) {
    Indent(depth);
    for (size_t i = 0; i < n.outputs().size(); ++i) {
      if (i > 0) out_ += ", ";
      if (n.outputs()[i] != nullptr) Name(n.outputs()[i]->name());
    }
    out_ += " = ";
    if (!n.domain().empty() && n.domain() != "ai.onnx") out_ += n.domain() + ".";
    out_ += n.op_type();
    if (!n.attributes().empty()) {
      out_ += " <";
      for (size_t i = 0; i < n.attributes().size(); ++i) {
        const Attribute& a = n.attributes()[i];
        if (i > 0) out_ += ", ";
        Name(a.name);
        // Typed, so that a float written 1.0 and an int list [] read back as what they are.
        if (a.type != AttrType::kGraph && a.type != AttrType::kGraphs) {
          out_ += ": ";
          out_ += AttrTypeName(a.type);
        }
        out_ += " = ";
        AttributeValue(a, depth);
      }
      out_ += ">";
    }
    out_ += " (";
    for (size_t i = 0; i < n.inputs().size(); ++i) {
      if (i > 0) out_ += ", ";
      if (n.inputs()[i] != nullptr) Name(n.inputs()[i]->name());
    }
    out_ += ")\n";
    for (const std::string& note : node_notes_) {
      Indent(depth);
      out_ += "# " + note + "\n";
    }
    node_notes_.clear();
    if (options_.node_comments) {
      for (const std::string& comment : options_.node_comments(n)) {
        Indent(depth);
        out_ += "# " + comment + "\n";
      }
    }
    Flush();
  }

  void Graph(const ir::Graph& g, int depth) {
    Name(g.name().empty() ? std::string("graph") : g.name());
    out_ += " (";
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Value* v = g.inputs()[i];
      if (i > 0) out_ += ", ";
      Type(TypeOf(*v));
      out_ += " ";
      Name(v->name());
    }
    out_ += ") => (";
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      if (i > 0) out_ += ", ";
      Type(TypeOf(*g.outputs()[i]));
      out_ += " ";
      Name(g.outputs()[i]->name());
    }
    out_ += ")";
    // Initializers that are not inputs (those that are, IR >= 4's overridable ones, are written
    // among the inputs with their default by the same rule below).
    std::vector<const Value*> constants;
    for (const auto& v : g.values()) {
      if (v->initializer() != nullptr || (v->default_value() != nullptr)) {
        constants.push_back(v.get());
      }
    }
    // A subgraph (an attribute of a node of the graph being written) has notes of its own.
    std::vector<std::string> outer_notes;
    outer_notes.swap(notes_);
    if (!constants.empty()) {
      out_ += "\n";
      Indent(depth);
      out_ += "<\n";
      for (size_t i = 0; i < constants.size(); ++i) {
        const Value* v = constants[i];
        const Tensor& t = v->initializer() != nullptr ? *v->initializer() : *v->default_value();
        Initializer(v->name(), t, depth + 1);
        out_ += i + 1 < constants.size() ? ",\n" : "\n";
      }
      Indent(depth);
      out_ += ">";
    }
    for (const std::string& note : notes_) {
      out_ += "\n";
      Indent(depth);
      out_ += "# " + note;
    }
    notes_ = std::move(outer_notes);
    out_ += "\n";
    Indent(depth);
    out_ += "{\n";
    for (const ir::Node* n : g.TopologicalOrder()) Node(*n, depth + 1);
    Indent(depth);
    out_ += "}";
  }

  const TextOptions& options_;
  const std::function<void(std::string_view)>& sink_;
  std::string out_;
  std::vector<std::string> notes_;         // about the current graph's initializers
  std::vector<std::string> node_notes_;    // about the current node's attributes
  std::shared_ptr<const TypeInfo> known_;  // TypeOf's, while it is written
};

}  // namespace

std::map<std::string, int64_t> ImportedOpsets(const Model& model) {
  std::map<std::string, int64_t> opsets = model.opsets;
  std::map<std::string, int64_t> added;
  if (model.graph != nullptr) {
    Visit(*model.graph, [&](const ir::Node& n) {
      if (n.opset() > 0 && opsets.count(n.domain()) == 0) {
        added[n.domain()] = std::max(added[n.domain()], n.opset());
      }
    });
  }
  opsets.insert(added.begin(), added.end());
  return opsets;
}

void PrintModel(const Model& model, const TextOptions& options,
                const std::function<void(std::string_view)>& sink) {
  Printer(options, sink).Model(model);
}

void PrintGraph(const Graph& graph, const TextOptions& options,
                const std::function<void(std::string_view)>& sink) {
  Printer(options, sink).WholeGraph(graph);
}

std::string ModelToText(const Model& model, const TextOptions& options) {
  std::string text;
  PrintModel(model, options, [&](std::string_view piece) { text += piece; });
  return text;
}

}  // namespace kiln::ir
