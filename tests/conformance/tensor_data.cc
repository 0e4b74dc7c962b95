#include "tensor_data.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace conformance {
namespace {

// Bits per element; 0 for strings and unknown types.
size_t BitsOf(KilnElementType type) {
  switch (type) {
    case KILN_ELEMENT_TYPE_UINT2:
    case KILN_ELEMENT_TYPE_INT2:
      return 2;
    case KILN_ELEMENT_TYPE_UINT4:
    case KILN_ELEMENT_TYPE_INT4:
    case KILN_ELEMENT_TYPE_FLOAT4E2M1:
      return 4;
    case KILN_ELEMENT_TYPE_UINT8:
    case KILN_ELEMENT_TYPE_INT8:
    case KILN_ELEMENT_TYPE_BOOL:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E8M0:
      return 8;
    case KILN_ELEMENT_TYPE_UINT16:
    case KILN_ELEMENT_TYPE_INT16:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
      return 16;
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_INT32:
    case KILN_ELEMENT_TYPE_UINT32:
      return 32;
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_INT64:
    case KILN_ELEMENT_TYPE_UINT64:
    case KILN_ELEMENT_TYPE_COMPLEX64:
      return 64;
    case KILN_ELEMENT_TYPE_COMPLEX128:
      return 128;
    default:
      return 0;
  }
}

size_t ByteCount(KilnElementType type, size_t count) {
  return (count * BitsOf(type) + 7) / 8;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Append(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

double HalfToDouble(uint16_t h) {
  const int sign = h >> 15;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant == 0 ? INFINITY : NAN;
  } else {
    v = std::ldexp(mant + 1024, exp - 25);
  }
  return sign ? -v : v;
}

// A small float with `exp_bits` exponent bits and `mant_bits` mantissa bits, bias `bias`, no
// infinities: `nan` tells which bit patterns are NaN.
double SmallFloat(uint32_t bits, int exp_bits, int mant_bits, int bias) {
  const uint32_t sign = bits >> (exp_bits + mant_bits);
  const int exp = static_cast<int>((bits >> mant_bits) & ((1u << exp_bits) - 1));
  const int mant = static_cast<int>(bits & ((1u << mant_bits) - 1));
  const double v = exp == 0 ? std::ldexp(mant, 1 - bias - mant_bits)
                            : std::ldexp(mant + (1 << mant_bits), exp - bias - mant_bits);
  return sign ? -v : v;
}

double Float8ToDouble(KilnElementType type, uint8_t b) {
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
      if ((b & 0x7f) == 0x7f) return NAN;
      return SmallFloat(b, 4, 3, 7);
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
      if (b == 0x80) return NAN;
      return SmallFloat(b, 4, 3, 8);
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
      return HalfToDouble(static_cast<uint16_t>(b << 8));
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
      if (b == 0x80) return NAN;
      return SmallFloat(b, 5, 2, 16);
    default:  // FLOAT8E8M0
      if (b == 0xff) return NAN;
      return std::ldexp(1.0, static_cast<int>(b) - 127);
  }
}

// Sub-byte element i (2 or 4 bits, low bits first), as its unsigned bit pattern.
uint32_t SubByte(const std::vector<uint8_t>& bytes, size_t i, size_t bits) {
  const size_t per_byte = 8 / bits;
  return (bytes[i / per_byte] >> ((i % per_byte) * bits)) & ((1u << bits) - 1);
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string Number(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

// The typed-field storage of a TensorProto as Kiln's bytes.
std::vector<uint8_t> TypedBytes(const onnx::TensorProto& p, KilnElementType type, size_t count) {
  std::vector<uint8_t> out;
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_COMPLEX64:
      for (float v : p.float_data()) Append(out, v);
      break;
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_COMPLEX128:
      for (double v : p.double_data()) Append(out, v);
      break;
    case KILN_ELEMENT_TYPE_INT64:
      for (int64_t v : p.int64_data()) Append(out, v);
      break;
    case KILN_ELEMENT_TYPE_UINT32:
      for (uint64_t v : p.uint64_data()) Append(out, static_cast<uint32_t>(v));
      break;
    case KILN_ELEMENT_TYPE_UINT64:
      for (uint64_t v : p.uint64_data()) Append(out, v);
      break;
    case KILN_ELEMENT_TYPE_INT32:
      for (int32_t v : p.int32_data()) Append(out, v);
      break;
    case KILN_ELEMENT_TYPE_INT16:
    case KILN_ELEMENT_TYPE_UINT16:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
      for (int32_t v : p.int32_data()) Append(out, static_cast<uint16_t>(v));
      break;
    default:  // one byte per int32 entry: 8-bit types, and sub-byte types packed into bytes
      for (int32_t v : p.int32_data()) out.push_back(static_cast<uint8_t>(v));
      break;
  }
  if (out.size() != ByteCount(type, count)) {
    throw std::runtime_error("typed data holds " + std::to_string(out.size()) + " bytes, " +
                             std::to_string(ByteCount(type, count)) + " expected");
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

template <typename Proto>
Proto Parse(const std::string& path) {
  Proto p;
  if (!p.ParseFromString(ReadFile(path))) throw std::runtime_error("cannot parse " + path);
  return p;
}

KilnElementType ElementTypeOf(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return static_cast<KilnElementType>(type.tensor_type().elem_type());
    case onnx::TypeProto::kSequenceType:
      return ElementTypeOf(type.sequence_type().elem_type());
    case onnx::TypeProto::kOptionalType:
      return ElementTypeOf(type.optional_type().elem_type());
    default:
      return KILN_ELEMENT_TYPE_UNDEFINED;
  }
}

std::vector<Tensor> DecodeSequence(const onnx::SequenceProto& p) {
  if (p.elem_type() != onnx::SequenceProto::TENSOR && p.tensor_values_size() == 0 &&
      p.elem_type() != onnx::SequenceProto::UNDEFINED) {
    throw std::runtime_error("only sequences of tensors are supported");
  }
  std::vector<Tensor> out;
  for (const onnx::TensorProto& t : p.tensor_values()) out.push_back(DecodeTensor(t));
  return out;
}

kiln::Value TensorToKiln(const Tensor& t) {
  kiln::Value v = kiln::Value::CreateTensor(kiln::Allocator::Default(), t.shape, t.type);
  if (t.type == KILN_ELEMENT_TYPE_STRING) {
    if (!t.strings.empty()) v.fill_strings(t.strings);
  } else if (!t.bytes.empty()) {
    std::memcpy(v.data<uint8_t>(), t.bytes.data(), t.bytes.size());
  }
  return v;
}

Tensor TensorFromKiln(const kiln::Value& v) {
  Tensor t;
  kiln::TensorTypeAndShapeInfo info = v.type_and_shape();
  t.type = info.element_type();
  t.shape = info.shape();
  if (t.type == KILN_ELEMENT_TYPE_STRING) {
    t.strings = v.strings();
  } else {
    const size_t size = v.size_in_bytes();
    const auto* p = v.data<uint8_t>();
    if (size != ByteCount(t.type, t.ElementCount())) {
      throw std::runtime_error("output tensor holds " + std::to_string(size) + " bytes for " +
                               std::to_string(t.ElementCount()) + " elements");
    }
    if (size > 0) t.bytes.assign(p, p + size);
  }
  return t;
}

std::vector<Tensor> SequenceFromKiln(const kiln::Value& v) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < v.count(); ++i) out.push_back(TensorFromKiln(v.element(i)));
  return out;
}

const char* KindName(TestValue::Kind k) {
  switch (k) {
    case TestValue::Kind::kTensor:
      return "a tensor";
    case TestValue::Kind::kSequence:
      return "a sequence";
    default:
      return "an optional";
  }
}

std::string CompareSequences(const std::vector<Tensor>& e, const std::vector<Tensor>& a,
                             double rtol, double atol) {
  if (e.size() != a.size()) {
    return "sequence length " + std::to_string(a.size()) + ", expected " + std::to_string(e.size());
  }
  for (size_t i = 0; i < e.size(); ++i) {
    std::string d = CompareTensors(e[i], a[i], rtol, atol);
    if (!d.empty()) return "sequence element " + std::to_string(i) + ": " + d;
  }
  return "";
}

}  // namespace

size_t Tensor::ElementCount() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

bool IsFloatType(KilnElementType type) {
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E8M0:
    case KILN_ELEMENT_TYPE_FLOAT4E2M1:
    case KILN_ELEMENT_TYPE_COMPLEX64:
    case KILN_ELEMENT_TYPE_COMPLEX128:
      return true;
    default:
      return false;
  }
}

const char* TypeName(KilnElementType type) {
  static const char* const kNames[] = {
      "undefined",      "float",    "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "double",   "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  const auto i = static_cast<size_t>(type);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "unknown";
}

Tensor DecodeTensor(const onnx::TensorProto& p) {
  Tensor t;
  t.type = static_cast<KilnElementType>(p.data_type());
  for (int64_t d : p.dims()) {
    if (d < 0)
      throw std::runtime_error("negative dimension in " +
                               ShapeText({p.dims().begin(), p.dims().end()}));
    t.shape.push_back(d);
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    throw std::runtime_error("external data is not supported by the runner");
  }
  const size_t count = t.ElementCount();
  if (t.type == KILN_ELEMENT_TYPE_STRING) {
    t.strings.assign(p.string_data().begin(), p.string_data().end());
    if (t.strings.size() != count) throw std::runtime_error("string count does not match shape");
    return t;
  }
  if (BitsOf(t.type) == 0) {
    throw std::runtime_error("unknown element type " + std::to_string(p.data_type()));
  }
  if (p.has_raw_data()) {
    t.bytes.assign(p.raw_data().begin(), p.raw_data().end());
    if (t.bytes.size() != ByteCount(t.type, count)) {
      throw std::runtime_error("raw_data holds " + std::to_string(t.bytes.size()) + " bytes, " +
                               std::to_string(ByteCount(t.type, count)) + " expected");
    }
  } else {
    t.bytes = TypedBytes(p, t.type, count);
  }
  return t;
}

TestValue ReadValueFile(const std::string& path, const onnx::TypeProto& type) {
  TestValue v;
  v.element_type = ElementTypeOf(type);
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      v.kind = TestValue::Kind::kTensor;
      v.tensor = DecodeTensor(Parse<onnx::TensorProto>(path));
      break;
    case onnx::TypeProto::kSequenceType:
      v.kind = TestValue::Kind::kSequence;
      v.sequence = DecodeSequence(Parse<onnx::SequenceProto>(path));
      break;
    case onnx::TypeProto::kOptionalType: {
      v.kind = TestValue::Kind::kOptional;
      v.holds_sequence = type.optional_type().elem_type().has_sequence_type();
      const auto p = Parse<onnx::OptionalProto>(path);
      v.has_value = p.elem_type() != onnx::OptionalProto::UNDEFINED;
      if (p.elem_type() == onnx::OptionalProto::TENSOR) {
        v.tensor = DecodeTensor(p.tensor_value());
      } else if (p.elem_type() == onnx::OptionalProto::SEQUENCE) {
        v.sequence = DecodeSequence(p.sequence_value());
      } else if (v.has_value) {
        throw std::runtime_error("only optionals of tensors or sequences are supported");
      }
      break;
    }
    default:
      throw std::runtime_error("values of this kind (map, sparse tensor) are not supported");
  }
  return v;
}

kiln::Value ToKiln(const TestValue& v) {
  auto sequence = [&] {
    std::vector<kiln::Value> items;
    for (const Tensor& t : v.sequence) items.push_back(TensorToKiln(t));
    return kiln::Value::CreateSequence(items, v.element_type);
  };
  switch (v.kind) {
    case TestValue::Kind::kTensor:
      return TensorToKiln(v.tensor);
    case TestValue::Kind::kSequence:
      return sequence();
    default:
      if (!v.has_value) {
        return kiln::Value::CreateOptional(
            v.holds_sequence ? KILN_VALUE_TYPE_SEQUENCE : KILN_VALUE_TYPE_TENSOR, v.element_type);
      }
      return kiln::Value::CreateOptional(v.holds_sequence ? sequence() : TensorToKiln(v.tensor));
  }
}

TestValue FromKiln(const kiln::Value& v) {
  TestValue out;
  out.element_type = v.element_type();
  switch (v.value_type()) {
    case KILN_VALUE_TYPE_TENSOR:
      out.kind = TestValue::Kind::kTensor;
      out.tensor = TensorFromKiln(v);
      break;
    case KILN_VALUE_TYPE_SEQUENCE:
      out.kind = TestValue::Kind::kSequence;
      out.sequence = SequenceFromKiln(v);
      break;
    case KILN_VALUE_TYPE_OPTIONAL: {
      out.kind = TestValue::Kind::kOptional;
      out.has_value = v.has_value();
      if (out.has_value) {
        kiln::Value content = v.element(0);
        out.holds_sequence = content.value_type() == KILN_VALUE_TYPE_SEQUENCE;
        if (out.holds_sequence) {
          out.sequence = SequenceFromKiln(content);
        } else {
          out.tensor = TensorFromKiln(content);
        }
      }
      break;
    }
    default:
      throw std::runtime_error("the output is a value of a kind the runner does not know");
  }
  return out;
}

std::optional<double> ElementAsDouble(const Tensor& t, size_t i) {
  const uint8_t* b = t.bytes.data();
  switch (t.type) {
    case KILN_ELEMENT_TYPE_FLOAT:
      return Load<float>(b + 4 * i);
    case KILN_ELEMENT_TYPE_DOUBLE:
      return Load<double>(b + 8 * i);
    case KILN_ELEMENT_TYPE_FLOAT16:
      return HalfToDouble(Load<uint16_t>(b + 2 * i));
    case KILN_ELEMENT_TYPE_BFLOAT16: {
      const uint32_t bits = static_cast<uint32_t>(Load<uint16_t>(b + 2 * i)) << 16;
      return Load<float>(reinterpret_cast<const uint8_t*>(&bits));
    }
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E8M0:
      return Float8ToDouble(t.type, b[i]);
    case KILN_ELEMENT_TYPE_FLOAT4E2M1:
      return SmallFloat(SubByte(t.bytes, i, 4), 2, 1, 1);
    case KILN_ELEMENT_TYPE_UINT4:
      return SubByte(t.bytes, i, 4);
    case KILN_ELEMENT_TYPE_INT4: {
      const int v = static_cast<int>(SubByte(t.bytes, i, 4));
      return v >= 8 ? v - 16 : v;
    }
    case KILN_ELEMENT_TYPE_UINT2:
      return SubByte(t.bytes, i, 2);
    case KILN_ELEMENT_TYPE_INT2: {
      const int v = static_cast<int>(SubByte(t.bytes, i, 2));
      return v >= 2 ? v - 4 : v;
    }
    case KILN_ELEMENT_TYPE_UINT8:
    case KILN_ELEMENT_TYPE_BOOL:
      return b[i];
    case KILN_ELEMENT_TYPE_INT8:
      return static_cast<int8_t>(b[i]);
    case KILN_ELEMENT_TYPE_UINT16:
      return Load<uint16_t>(b + 2 * i);
    case KILN_ELEMENT_TYPE_INT16:
      return Load<int16_t>(b + 2 * i);
    case KILN_ELEMENT_TYPE_INT32:
      return Load<int32_t>(b + 4 * i);
    case KILN_ELEMENT_TYPE_UINT32:
      return Load<uint32_t>(b + 4 * i);
    case KILN_ELEMENT_TYPE_INT64:
      return static_cast<double>(Load<int64_t>(b + 8 * i));
    case KILN_ELEMENT_TYPE_UINT64:
      return static_cast<double>(Load<uint64_t>(b + 8 * i));
    default:
      return std::nullopt;
  }
}

std::string CompareTensors(const Tensor& e, const Tensor& a, double rtol, double atol) {
  if (e.type != a.type) {
    return std::string("element type ") + TypeName(a.type) + ", expected " + TypeName(e.type);
  }
  if (e.shape != a.shape) return "shape " + ShapeText(a.shape) + ", expected " + ShapeText(e.shape);
  const size_t n = e.ElementCount();
  if (e.type == KILN_ELEMENT_TYPE_STRING) {
    for (size_t i = 0; i < n; ++i) {
      if (e.strings[i] != a.strings[i]) {
        return "element " + std::to_string(i) + " is \"" + a.strings[i] + "\", expected \"" +
               e.strings[i] + "\"";
      }
    }
    return "";
  }
  if (!IsFloatType(e.type)) {
    // Exact: compare the stored bits element by element (64-bit integers beyond 2^53 too).
    const size_t bits = BitsOf(e.type);
    for (size_t i = 0; i < n; ++i) {
      const bool same = bits < 8 ? SubByte(e.bytes, i, bits) == SubByte(a.bytes, i, bits)
                                 : std::memcmp(e.bytes.data() + i * bits / 8,
                                               a.bytes.data() + i * bits / 8, bits / 8) == 0;
      if (!same) {
        return "element " + std::to_string(i) + " is " + Number(*ElementAsDouble(a, i)) +
               ", expected " + Number(*ElementAsDouble(e, i));
      }
    }
    return "";
  }
  // Complex numbers compare as their real and imaginary parts.
  const bool complex =
      e.type == KILN_ELEMENT_TYPE_COMPLEX64 || e.type == KILN_ELEMENT_TYPE_COMPLEX128;
  Tensor ep = e;
  Tensor ap = a;
  if (complex) {
    ep.type = ap.type =
        e.type == KILN_ELEMENT_TYPE_COMPLEX64 ? KILN_ELEMENT_TYPE_FLOAT : KILN_ELEMENT_TYPE_DOUBLE;
    ep.shape = ap.shape = {static_cast<int64_t>(2 * n)};
  }
  const size_t m = complex ? 2 * n : n;
  for (size_t i = 0; i < m; ++i) {
    const double x = *ElementAsDouble(ap, i);
    const double want = *ElementAsDouble(ep, i);
    bool ok;
    if (std::isnan(want) || std::isnan(x)) {
      ok = std::isnan(want) && std::isnan(x);
    } else if (std::isinf(want) || std::isinf(x)) {
      ok = x == want;
    } else {
      ok = std::fabs(x - want) <= atol + rtol * std::fabs(want);
    }
    if (!ok) {
      return "element " + std::to_string(i) + " is " + Number(x) + ", expected " + Number(want) +
             " (rtol " + Number(rtol) + ", atol " + Number(atol) + ")";
    }
  }
  return "";
}

std::string Compare(const TestValue& e, const TestValue& a, double rtol, double atol) {
  if (e.kind != a.kind) {
    return std::string("the output is ") + KindName(a.kind) + ", expected " + KindName(e.kind);
  }
  switch (e.kind) {
    case TestValue::Kind::kTensor:
      return CompareTensors(e.tensor, a.tensor, rtol, atol);
    case TestValue::Kind::kSequence:
      return CompareSequences(e.sequence, a.sequence, rtol, atol);
    default:
      if (e.has_value != a.has_value) {
        return a.has_value ? "the optional holds a value, expected empty"
                           : "the optional is empty, expected a value";
      }
      if (!e.has_value) return "";
      if (e.holds_sequence != a.holds_sequence) {
        return e.holds_sequence ? "the optional holds a tensor, expected a sequence"
                                : "the optional holds a sequence, expected a tensor";
      }
      return e.holds_sequence ? CompareSequences(e.sequence, a.sequence, rtol, atol)
                              : CompareTensors(e.tensor, a.tensor, rtol, atol);
  }
}

}  // namespace conformance
