// TensorProto <-> kiln::Value conversion of the tool (tools/kiln/tensor_file.h), called directly:
// every typed field, raw_data, and the rejections.
#include "tensor_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "args.h"
#include "test_models.h"

namespace kiln::cli {
namespace {

using kiln::test::Bytes;

std::string Data(const kiln::Value& v) {
  const size_t n = v.size_in_bytes();
  return n == 0 ? std::string() : std::string(v.data<char>(), n);
}

onnx::TensorProto Proto(int type, const std::vector<int64_t>& dims) {
  onnx::TensorProto p;
  p.set_data_type(type);
  for (const int64_t d : dims) p.add_dims(d);
  return p;
}

void ExpectProtoError(const onnx::TensorProto& p, const std::string& needle) {
  try {
    TensorFromProto(p, "t.pb");
    ADD_FAILURE() << "no error; expected '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TensorFile, TypedFieldsOfEachType) {
  onnx::TensorProto p = Proto(onnx::TensorProto::INT8, {3});
  for (const int v : {-1, 0, 127}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<int8_t>{-1, 0, 127}));

  p = Proto(onnx::TensorProto::UINT16, {2});
  for (const int v : {65535, 7}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<uint16_t>{65535, 7}));

  p = Proto(onnx::TensorProto::FLOAT16, {2});  // half bits in int32_data
  for (const int v : {0x3c00, 0xc000}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<uint16_t>{0x3c00, 0xc000}));

  p = Proto(onnx::TensorProto::BOOL, {2, 1});
  for (const int v : {1, 0}) p.add_int32_data(v);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<uint8_t>{1, 0}));

  p = Proto(onnx::TensorProto::UINT32, {1});
  p.add_uint64_data(4000000000u);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<uint32_t>{4000000000u}));

  p = Proto(onnx::TensorProto::UINT64, {1});
  p.add_uint64_data(~0ull);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<uint64_t>{~0ull}));

  p = Proto(onnx::TensorProto::DOUBLE, {});  // a scalar
  p.add_double_data(0.1);
  const kiln::Value scalar = TensorFromProto(p, "t");
  EXPECT_TRUE(scalar.type_and_shape().shape().empty());
  EXPECT_EQ(Data(scalar), Bytes(std::vector<double>{0.1}));

  p = Proto(onnx::TensorProto::COMPLEX64, {1});
  p.add_float_data(1);
  p.add_float_data(-1);
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(std::vector<float>{1, -1}));

  p = Proto(onnx::TensorProto::FLOAT, {0, 4});  // empty
  EXPECT_EQ(TensorFromProto(p, "t").type_and_shape().element_count(), 0u);
}

TEST(TensorFile, RawDataOfPackedTypes) {
  onnx::TensorProto p = Proto(22, {3});  // INT4, newer than Debian's onnx.proto
  p.set_raw_data(std::string("\x21\x03", 2));
  const kiln::Value v = TensorFromProto(p, "t");
  EXPECT_EQ(v.type_and_shape().element_type(), KILN_ELEMENT_TYPE_INT4);
  EXPECT_EQ(Data(v), std::string("\x21\x03", 2));
}

TEST(TensorFile, ValueToProtoAndBack) {
  std::vector<int16_t> data = {1, -2, 3, -4, 5, -6};
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  const kiln::Value v = kiln::Value::CreateTensor(cpu, data.data(), data.size(), {3, 2});
  const onnx::TensorProto p = TensorToProto(v, "y");
  EXPECT_EQ(p.name(), "y");
  EXPECT_EQ(p.data_type(), onnx::TensorProto::INT16);
  EXPECT_EQ(p.dims_size(), 2);
  EXPECT_EQ(p.raw_data(), Bytes(data));
  EXPECT_EQ(Data(TensorFromProto(p, "t")), Bytes(data));
}

TEST(TensorFile, Rejections) {
  onnx::TensorProto p = Proto(onnx::TensorProto::FLOAT, {2});
  ExpectProtoError(p, "0 values in float_data but its dims need 2");
  p.set_raw_data("abc");
  ExpectProtoError(p, "raw_data is 3 bytes but its dims and data_type need 8");
  ExpectProtoError(Proto(0, {1}), "data_type 0 is not a tensor element type");
  ExpectProtoError(Proto(99, {1}), "data_type 99");
  ExpectProtoError(Proto(onnx::TensorProto::FLOAT, {-1}), "negative dimension");
  onnx::TensorProto external = Proto(onnx::TensorProto::FLOAT, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  ExpectProtoError(external, "external file");
  onnx::TensorProto segmented = Proto(onnx::TensorProto::FLOAT, {1});
  segmented.mutable_segment()->set_begin(0);
  ExpectProtoError(segmented, "SequenceProto, an OptionalProto or a segmented TensorProto");
  onnx::TensorProto bad_bool = Proto(onnx::TensorProto::BOOL, {1});
  bad_bool.add_int32_data(2);
  ExpectProtoError(bad_bool, "not 0 or 1");
  onnx::TensorProto packed = Proto(21, {2});  // UINT4
  packed.add_int32_data(1);
  ExpectProtoError(packed, "only read from raw_data");
  onnx::TensorProto raw_strings = Proto(onnx::TensorProto::STRING, {1});
  raw_strings.set_raw_data("x");
  ExpectProtoError(raw_strings, "cannot use raw_data");
}

}  // namespace
}  // namespace kiln::cli
