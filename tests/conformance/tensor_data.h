// The conformance runner's values: ONNX test data (TensorProto, SequenceProto, OptionalProto)
// decoded independently of Kiln's own loader, turned into Kiln values through the C ABI, and
// compared the way ONNX's backend runner compares.
#ifndef KILN_TESTS_CONFORMANCE_TENSOR_DATA_H_
#define KILN_TESTS_CONFORMANCE_TENSOR_DATA_H_

#include <kiln/kiln_cxx_api.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace conformance {

// A tensor as bytes in Kiln's layout (little-endian, sub-byte types packed low bits first) or,
// for strings, the strings.
struct Tensor {
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  std::vector<std::string> strings;

  size_t ElementCount() const;
};

// A test value: a tensor, a sequence of tensors or an optional (empty, or holding a tensor or a
// sequence).
struct TestValue {
  enum class Kind { kTensor, kSequence, kOptional };
  Kind kind = Kind::kTensor;
  Tensor tensor;                 // kTensor, or an optional holding a tensor
  std::vector<Tensor> sequence;  // kSequence, or an optional holding a sequence
  bool has_value = true;         // kOptional: whether it holds something
  bool holds_sequence = false;   // kOptional: what it holds (or would hold)
  KilnElementType element_type = KILN_ELEMENT_TYPE_UNDEFINED;  // of the tensors
};

// Decodes a TensorProto (raw_data or the typed fields). Throws std::runtime_error on data that
// does not fit its type and shape.
Tensor DecodeTensor(const onnx::TensorProto& proto);
// Reads the file `path` as the value of a graph input or output of type `type` (which says
// whether it holds a TensorProto, a SequenceProto or an OptionalProto).
TestValue ReadValueFile(const std::string& path, const onnx::TypeProto& type);

// The Kiln value holding `v` (copies).
kiln::Value ToKiln(const TestValue& v);
// What a Kiln output holds.
TestValue FromKiln(const kiln::Value& v);

// "" when `actual` matches `expected`: the same kind, element type and shape, floats within
// |a - e| <= atol + rtol * |e| (NaN where NaN is expected, infinities equal), everything else
// exact. Otherwise what differs, e.g. "element 3 is 0.5, expected 0.25".
std::string Compare(const TestValue& expected, const TestValue& actual, double rtol, double atol);
std::string CompareTensors(const Tensor& expected, const Tensor& actual, double rtol, double atol);

// Element i of a numeric tensor as a double (floats decoded from their format, integers exact up
// to 2^53); nullopt for strings.
std::optional<double> ElementAsDouble(const Tensor& t, size_t i);
bool IsFloatType(KilnElementType type);
const char* TypeName(KilnElementType type);

}  // namespace conformance

#endif  // KILN_TESTS_CONFORMANCE_TENSOR_DATA_H_
