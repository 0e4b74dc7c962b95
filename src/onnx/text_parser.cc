#include "onnx/text_parser.h"

#include <google/protobuf/arena.h>
#include <kiln_onnx/onnx.pb.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/data_type.h"
#include "core/error.h"
#include "core/float16.h"
#include "onnx/loader.h"

namespace kiln::onnx {
namespace {

enum class Tok { kEnd, kName, kString, kNumber, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // a name, a string's contents, a number's spelling, or the punctuation
  size_t line = 1;
  size_t column = 1;
};

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token Next() {
    SkipSpace();
    Token t;
    t.line = line_;
    t.column = column_;
    if (pos_ >= text_.size()) return t;
    const char c = text_[pos_];
    if (IsNameStart(c)) {
      t.kind = Tok::kName;
      while (pos_ < text_.size() && (IsNameStart(text_[pos_]) || IsDigit(text_[pos_]))) {
        t.text += Take();
      }
      // inf and nan are numbers.
      if (t.text == "inf" || t.text == "nan") t.kind = Tok::kNumber;
      return t;
    }
    if (c == '"') {
      t.kind = Tok::kString;
      Take();
      for (;;) {
        if (pos_ >= text_.size()) Fail(t, "a string is not closed");
        char s = Take();
        if (s == '"') break;
        if (s == '\\') {
          if (pos_ >= text_.size()) Fail(t, "a string is not closed");
          s = Take();
          if (s == 'x') {
            if (pos_ + 2 > text_.size()) Fail(t, "\\x needs two hex digits");
            const std::string hex{Take(), Take()};
            char* end = nullptr;
            const long v = std::strtol(hex.c_str(), &end, 16);
            if (end != hex.c_str() + 2) Fail(t, "\\x needs two hex digits");
            s = static_cast<char>(v);
          } else if (s != '"' && s != '\\') {
            Fail(t, std::string("unknown escape \\") + s);
          }
        }
        t.text += s;
      }
      return t;
    }
    if (IsDigit(c) ||
        ((c == '-' || c == '+') && pos_ + 1 < text_.size() &&
         (IsDigit(text_[pos_ + 1]) || text_[pos_ + 1] == '.' || text_[pos_ + 1] == 'i'))) {
      t.kind = Tok::kNumber;
      t.text += Take();
      while (pos_ < text_.size()) {
        const char d = text_[pos_];
        const bool exponent_sign = (d == '-' || d == '+') && !t.text.empty() &&
                                   (t.text.back() == 'e' || t.text.back() == 'E');
        if (IsDigit(d) || d == '.' || d == 'e' || d == 'E' || exponent_sign || d == 'i' ||
            d == 'n' || d == 'f') {
          t.text += Take();
        } else {
          break;
        }
      }
      return t;
    }
    t.kind = Tok::kPunct;
    t.text = std::string(1, Take());
    if (t.text == "=" && pos_ < text_.size() && text_[pos_] == '>') t.text += Take();
    return t;
  }

  [[noreturn]] static void Fail(const Token& at, const std::string& what) {
    throw Error(ErrorCode::kInvalidArgument, "line " + std::to_string(at.line) + ", column " +
                                                 std::to_string(at.column) + ": " + what);
  }

 private:
  char Take() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Take();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Take();
      } else {
        break;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 1;
};

// Element type names as DataTypeName writes them.
int ElementTypeOf(const std::string& name) {
  for (int v = 1; v <= kMaxDataType; ++v) {
    if (name == DataTypeName(static_cast<DataType>(v))) return v;
  }
  return 0;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) { Advance(); }

  // On the arena: protobuf's repeated fields can lose an element they were adding when memory
  // runs out; the arena frees everything however the parse ends.
  ::kiln_onnx::ModelProto& Model(google::protobuf::Arena& arena) {
    ::kiln_onnx::ModelProto& m =
        *google::protobuf::Arena::CreateMessage<::kiln_onnx::ModelProto>(&arena);
    Expect("<");
    do {
      const Token key = ExpectName();
      Expect(":");
      if (key.text == "ir_version") {
        m.set_ir_version(Int());
      } else if (key.text == "opset_import") {
        Expect("[");
        if (!Is("]")) {
          do {
            auto* o = m.add_opset_import();
            o->set_domain(String());
            Expect(":");
            o->set_version(Int());
          } while (Accept(","));
        }
        Expect("]");
      } else if (key.text == "producer_name") {
        m.set_producer_name(String());
      } else if (key.text == "producer_version") {
        m.set_producer_version(String());
      } else if (key.text == "domain") {
        m.set_domain(String());
      } else if (key.text == "model_version") {
        m.set_model_version(Int());
      } else if (key.text == "doc_string") {
        m.set_doc_string(String());
      } else {
        Lexer::Fail(key, "unknown model field '" + key.text + "'");
      }
    } while (Accept(","));
    Expect(">");
    Graph(m.mutable_graph());
    if (tok_.kind != Tok::kEnd) Lexer::Fail(tok_, "text after the graph");
    return m;
  }

 private:
  void Advance() { tok_ = lexer_.Next(); }

  bool Is(const char* punct) const { return tok_.kind == Tok::kPunct && tok_.text == punct; }

  bool Accept(const char* punct) {
    if (!Is(punct)) return false;
    Advance();
    return true;
  }

  void Expect(const char* punct) {
    if (!Accept(punct)) Lexer::Fail(tok_, std::string("expected '") + punct + "'" + Found());
  }

  // ", found 'x'", with bytes that are not printable written \xNN.
  std::string Found() const {
    if (tok_.kind == Tok::kEnd) return ", found the end";
    std::string shown;
    for (const char c : tok_.text) {
      const auto b = static_cast<unsigned char>(c);
      if (b < 0x20 || b == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", b);
        shown += hex;
      } else {
        shown += c;
      }
    }
    return ", found '" + shown + "'";
  }

  Token ExpectName() {
    if (tok_.kind != Tok::kName) Lexer::Fail(tok_, "expected a name" + Found());
    Token t = tok_;
    Advance();
    return t;
  }

  // A value's or graph's name: an identifier or a quoted string.
  bool IsValueName() const { return tok_.kind == Tok::kName || tok_.kind == Tok::kString; }
  std::string ValueName() {
    if (!IsValueName()) Lexer::Fail(tok_, "expected a name" + Found());
    std::string s = tok_.text;
    Advance();
    return s;
  }

  std::string String() {
    if (tok_.kind != Tok::kString) Lexer::Fail(tok_, "expected a string" + Found());
    std::string s = tok_.text;
    Advance();
    return s;
  }

  Token Number() {
    if (tok_.kind != Tok::kNumber) Lexer::Fail(tok_, "expected a number" + Found());
    Token t = tok_;
    Advance();
    return t;
  }

  int64_t Int() {
    const Token t = Number();
    char* end = nullptr;
    const long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (end != t.text.c_str() + t.text.size()) Lexer::Fail(t, "'" + t.text + "' is not an integer");
    return v;
  }

  double Real() {
    const Token t = Number();
    const std::string s = t.text;
    if (s == "inf" || s == "+inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) Lexer::Fail(t, "'" + s + "' is not a number");
    return v;
  }

  void Type(::kiln_onnx::TypeProto* type) {
    const Token name = ExpectName();
    if (name.text == "seq" || name.text == "optional") {
      Expect("(");
      Type(name.text == "seq" ? type->mutable_sequence_type()->mutable_elem_type()
                              : type->mutable_optional_type()->mutable_elem_type());
      Expect(")");
      return;
    }
    if (name.text == "map") {
      Expect("(");
      const Token key = ExpectName();
      const int key_type = key.text == "undefined" ? 0 : ElementTypeOf(key.text);
      if (key.text != "undefined" && key_type == 0) {
        Lexer::Fail(key, "'" + key.text + "' is not a map key type");
      }
      type->mutable_map_type()->set_key_type(key_type);
      Expect(",");
      Type(type->mutable_map_type()->mutable_value_type());
      Expect(")");
      return;
    }
    if (name.text == "sparse_tensor") {
      Expect("(");
      ::kiln_onnx::TypeProto dense;
      Type(&dense);
      Expect(")");
      auto* sparse = type->mutable_sparse_tensor_type();
      sparse->set_elem_type(dense.tensor_type().elem_type());
      if (dense.tensor_type().has_shape()) {
        *sparse->mutable_shape() = dense.tensor_type().shape();
      }
      return;
    }
    // "undefined": a value the model gives no type (a subgraph's, say), or a tensor whose element
    // type it does not give when a shape follows.
    const bool untyped = name.text == "undefined";
    const int elem = untyped ? 0 : ElementTypeOf(name.text);
    if (!untyped && elem == 0) Lexer::Fail(name, "'" + name.text + "' is not a type");
    if (untyped && !Is("[")) return;
    auto* t = type->mutable_tensor_type();
    if (elem != 0) t->set_elem_type(elem);
    if (!Accept("[")) {
      t->mutable_shape();  // a scalar
      return;
    }
    if (Accept("]")) return;  // rank unknown
    auto* shape = t->mutable_shape();
    do {
      auto* d = shape->add_dim();
      if (Accept("?")) continue;
      if (tok_.kind == Tok::kNumber) {
        d->set_dim_value(Int());
      } else {
        d->set_dim_param(ValueName());
      }
    } while (Accept(","));
    Expect("]");
  }

  void ValueInfo(::kiln_onnx::ValueInfoProto* v) {
    Type(v->mutable_type());
    v->set_name(ValueName());
  }

  // `{a, b, …}` into the tensor's typed field.
  void Literal(::kiln_onnx::TensorProto* t) {
    Expect("{");
    const int elem = t->data_type();
    if (!Is("}")) {
      do {
        switch (static_cast<DataType>(elem)) {
          case DataType::kFloat:
            t->add_float_data(static_cast<float>(Real()));
            break;
          case DataType::kDouble:
            t->add_double_data(Real());
            break;
          case DataType::kFloat16:
            t->add_int32_data(Float16::FromFloat(static_cast<float>(Real())).bits);
            break;
          case DataType::kBfloat16:
            t->add_int32_data(BFloat16::FromFloat(static_cast<float>(Real())).bits);
            break;
          case DataType::kInt64:
            t->add_int64_data(Int());
            break;
          case DataType::kUint32:
          case DataType::kUint64:
            t->add_uint64_data(static_cast<uint64_t>(Int()));
            break;
          case DataType::kString:
            t->add_string_data(String());
            break;
          case DataType::kInt32:
          case DataType::kInt16:
          case DataType::kInt8:
          case DataType::kUint16:
          case DataType::kUint8:
          case DataType::kBool:
            t->add_int32_data(static_cast<int32_t>(Int()));
            break;
          default:
            Lexer::Fail(tok_, std::string("no literal form for ") +
                                  DataTypeName(static_cast<DataType>(elem)) + " values");
        }
      } while (Accept(","));
    }
    Expect("}");
  }

  // "float[2, 3]" as a tensor's type and dimensions (no symbolic ones).
  void TensorHeader(::kiln_onnx::TensorProto* t) {
    ::kiln_onnx::TypeProto type;
    const Token at = tok_;
    Type(&type);
    if (!type.has_tensor_type()) Lexer::Fail(at, "a tensor's type must be a tensor type");
    t->set_data_type(type.tensor_type().elem_type());
    for (const auto& d : type.tensor_type().shape().dim()) {
      if (!d.has_dim_value()) Lexer::Fail(at, "a tensor's dimensions must be numbers");
      t->add_dims(d.dim_value());
    }
  }

  void Attribute(::kiln_onnx::AttributeProto* a) {
    a->set_name(ValueName());
    std::string type;
    if (Accept(":")) type = ExpectName().text;
    Expect("=");
    if (type.empty()) {  // a subgraph (the printer writes every other attribute typed)
      if (Is("[")) {
        a->set_type(::kiln_onnx::AttributeProto::GRAPHS);
        Advance();
        if (!Is("]")) {
          do {
            Graph(a->add_graphs());
          } while (Accept(","));
        }
        Expect("]");
      } else {
        a->set_type(::kiln_onnx::AttributeProto::GRAPH);
        Graph(a->mutable_g());
      }
      return;
    }
    auto list = [&](auto&& element) {
      Expect("[");
      if (!Is("]")) {
        do {
          element();
        } while (Accept(","));
      }
      Expect("]");
    };
    if (type == "float") {
      a->set_type(::kiln_onnx::AttributeProto::FLOAT);
      a->set_f(static_cast<float>(Real()));
    } else if (type == "int") {
      a->set_type(::kiln_onnx::AttributeProto::INT);
      a->set_i(Int());
    } else if (type == "string") {
      a->set_type(::kiln_onnx::AttributeProto::STRING);
      a->set_s(String());
    } else if (type == "floats") {
      a->set_type(::kiln_onnx::AttributeProto::FLOATS);
      list([&] { a->add_floats(static_cast<float>(Real())); });
    } else if (type == "ints") {
      a->set_type(::kiln_onnx::AttributeProto::INTS);
      list([&] { a->add_ints(Int()); });
    } else if (type == "strings") {
      a->set_type(::kiln_onnx::AttributeProto::STRINGS);
      list([&] { a->add_strings(String()); });
    } else if (type == "tensor") {
      a->set_type(::kiln_onnx::AttributeProto::TENSOR);
      TensorHeader(a->mutable_t());
      Literal(a->mutable_t());
    } else {
      Lexer::Fail(tok_, "attribute type '" + type + "' is not one the text can give");
    }
  }

  void Node(::kiln_onnx::GraphProto* g) {
    auto* n = g->add_node();
    // Outputs, some left out (empty), then '='.
    if (!Is("=")) {
      do {
        n->add_output(IsValueName() ? ValueName() : std::string());
      } while (Accept(","));
    }
    Expect("=");
    std::string op = ExpectName().text;
    std::string domain;
    while (Accept(".")) {
      if (!domain.empty()) domain += ".";
      domain += op;
      op = ExpectName().text;
    }
    n->set_op_type(op);
    n->set_domain(domain);
    if (Accept("<")) {
      do {
        Attribute(n->add_attribute());
      } while (Accept(","));
      Expect(">");
    }
    Expect("(");
    if (!Is(")")) {
      do {
        n->add_input(IsValueName() ? ValueName() : std::string());
      } while (Accept(","));
    }
    Expect(")");
  }

  void Graph(::kiln_onnx::GraphProto* g) {
    g->set_name(ValueName());
    Expect("(");
    if (!Is(")")) {
      do {
        ValueInfo(g->add_input());
      } while (Accept(","));
    }
    Expect(")");
    Expect("=>");
    Expect("(");
    if (!Is(")")) {
      do {
        ValueInfo(g->add_output());
      } while (Accept(","));
    }
    Expect(")");
    if (Accept("<")) {
      if (!Is(">")) {
        do {
          ::kiln_onnx::TypeProto type;
          const Token at = tok_;
          Type(&type);
          const std::string name = ValueName();
          if (!Accept("=")) {  // a declaration only: a value_info
            auto* v = g->add_value_info();
            v->set_name(name);
            *v->mutable_type() = type;
            continue;
          }
          if (!type.has_tensor_type()) Lexer::Fail(at, "an initializer must be a tensor");
          auto* t = g->add_initializer();
          t->set_name(name);
          t->set_data_type(type.tensor_type().elem_type());
          for (const auto& d : type.tensor_type().shape().dim()) {
            if (!d.has_dim_value()) Lexer::Fail(at, "an initializer's dimensions must be numbers");
            t->add_dims(d.dim_value());
          }
          Literal(t);
        } while (Accept(","));
      }
      Expect(">");
    }
    Expect("{");
    while (!Accept("}")) {
      if (tok_.kind == Tok::kEnd) Lexer::Fail(tok_, "expected '}'" + Found());
      Node(g);
    }
  }

  Lexer lexer_;
  Token tok_;
};

}  // namespace

ir::Model ParseModelText(std::string_view text) {
  std::string bytes;
  {
    google::protobuf::Arena arena;
    bytes = Parser(text).Model(arena).SerializeAsString();
  }
  return LoadModelBytes(bytes.data(), bytes.size(), "");
}

}  // namespace kiln::onnx
