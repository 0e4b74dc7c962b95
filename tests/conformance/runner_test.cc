// The conformance runner's own checks: decoding test data, comparing like ONNX's runner, and
// running a case end to end (a wrong expected output must fail, a right one pass).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "cases.h"
#include "tensor_data.h"

namespace conformance {
namespace {

namespace fs = std::filesystem;

onnx::TensorProto FloatProto(const std::vector<int64_t>& dims, const std::vector<float>& values,
                             bool raw) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) p.add_dims(d);
  if (raw) {
    p.set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  } else {
    for (float v : values) p.add_float_data(v);
  }
  return p;
}

Tensor Floats(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  return DecodeTensor(FloatProto(dims, values, true));
}

Tensor Bytes(KilnElementType type, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
  Tensor t;
  t.type = type;
  t.shape = std::move(dims);
  t.bytes = std::move(bytes);
  return t;
}

TEST(DecodeTensor, RawAndTypedFloatsAgree) {
  const Tensor raw = DecodeTensor(FloatProto({2}, {1.5f, -2}, true));
  const Tensor typed = DecodeTensor(FloatProto({2}, {1.5f, -2}, false));
  EXPECT_EQ(raw.bytes, typed.bytes);
  EXPECT_EQ(raw.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(*ElementAsDouble(typed, 1), -2.0);
}

TEST(DecodeTensor, SubByteTypesInInt32DataArePackedBytes) {
  // ONNX stores int4 in int32_data one packed byte (two elements, low nibble first) per entry.
  onnx::TensorProto p;
  p.set_data_type(22);  // INT4 (newer than the onnx protobuf headers)
  p.add_dims(3);
  p.add_int32_data(0xF7);  // elements 0 and 1: 7, -1
  p.add_int32_data(0x08);  // element 2: -8
  const Tensor t = DecodeTensor(p);
  EXPECT_EQ(*ElementAsDouble(t, 0), 7);
  EXPECT_EQ(*ElementAsDouble(t, 1), -1);
  EXPECT_EQ(*ElementAsDouble(t, 2), -8);
}

TEST(DecodeTensor, RefusesDataThatDoesNotFitTheShape) {
  EXPECT_THROW(DecodeTensor(FloatProto({3}, {1, 2}, true)), std::runtime_error);
  EXPECT_THROW(DecodeTensor(FloatProto({3}, {1, 2}, false)), std::runtime_error);
  onnx::TensorProto s;
  s.set_data_type(onnx::TensorProto::STRING);
  s.add_dims(2);
  s.add_string_data("a");
  EXPECT_THROW(DecodeTensor(s), std::runtime_error);
}

TEST(ElementAsDouble, DecodesTheSmallFloatFormats) {
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E4M3FN, {1}, {0x7e}), 0), 448);
  EXPECT_TRUE(std::isnan(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E4M3FN, {1}, {0xff}), 0)));
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E4M3FN, {1}, {0x01}), 0),
            std::ldexp(1.0, -9));
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ, {1}, {0x7f}), 0), 240);
  EXPECT_TRUE(
      std::isnan(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ, {1}, {0x80}), 0)));
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E5M2, {1}, {0x7b}), 0), 57344);
  EXPECT_TRUE(std::isinf(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E5M2, {1}, {0x7c}), 0)));
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ, {1}, {0x7f}), 0), 57344);
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E8M0, {1}, {127}), 0), 1);
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT8E8M0, {1}, {130}), 0), 8);
  // float4e2m1: 0x7 is 6, 0xF is -6, 0x1 is 0.5; two per byte, low nibble first.
  const Tensor f4 = Bytes(KILN_ELEMENT_TYPE_FLOAT4E2M1, {3}, {0xF7, 0x01});
  EXPECT_EQ(*ElementAsDouble(f4, 0), 6);
  EXPECT_EQ(*ElementAsDouble(f4, 1), -6);
  EXPECT_EQ(*ElementAsDouble(f4, 2), 0.5);
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_BFLOAT16, {1}, {0x80, 0x3f}), 0), 1);
  EXPECT_EQ(*ElementAsDouble(Bytes(KILN_ELEMENT_TYPE_FLOAT16, {1}, {0x00, 0x3c}), 0), 1);
  const Tensor i2 = Bytes(KILN_ELEMENT_TYPE_INT2, {4}, {0b11100100});  // 0, 1, -2, -1
  EXPECT_EQ(*ElementAsDouble(i2, 2), -2);
  EXPECT_EQ(*ElementAsDouble(i2, 3), -1);
}

TEST(CompareTensors, FloatsWithinRtolAndAtolOfTheExpectedValue) {
  const Tensor e = Floats({2}, {1000, 0});
  EXPECT_EQ(CompareTensors(e, Floats({2}, {1000.9f, 0}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(e, Floats({2}, {1001.1f, 0}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(e, Floats({2}, {1000, 1e-6f}), 1e-3, 1e-7), "");
  EXPECT_EQ(CompareTensors(e, Floats({2}, {1000, 1e-8f}), 1e-3, 1e-7), "");
}

TEST(CompareTensors, NanOnlyWhereNanIsExpectedAndInfinitiesExactly) {
  const float nan = std::nanf("");
  const float inf = INFINITY;
  EXPECT_EQ(CompareTensors(Floats({2}, {nan, inf}), Floats({2}, {nan, inf}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(Floats({1}, {nan}), Floats({1}, {0}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(Floats({1}, {0}), Floats({1}, {nan}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(Floats({1}, {inf}), Floats({1}, {-inf}), 1e-3, 1e-7), "");
  EXPECT_NE(CompareTensors(Floats({1}, {1e30f}), Floats({1}, {inf}), 1e-3, 1e-7), "");
}

TEST(CompareTensors, TypeAndShapeMustMatchExactly) {
  EXPECT_EQ(CompareTensors(Floats({2}, {1, 2}), Floats({1, 2}, {1, 2}), 1e-3, 1e-7),
            "shape [1,2], expected [2]");
  Tensor d = Floats({2}, {1, 2});
  d.type = KILN_ELEMENT_TYPE_INT32;
  EXPECT_EQ(CompareTensors(Floats({2}, {1, 2}), d, 1e-3, 1e-7),
            "element type int32, expected float");
}

TEST(CompareTensors, IntegersAndStringsExactly) {
  // Two uint64 values that are equal as doubles but differ in their last bit.
  uint64_t a = (1ull << 60) + 1;
  uint64_t b = (1ull << 60);
  Tensor ta = Bytes(KILN_ELEMENT_TYPE_UINT64, {1}, std::vector<uint8_t>(8));
  Tensor tb = ta;
  std::memcpy(ta.bytes.data(), &a, 8);
  std::memcpy(tb.bytes.data(), &b, 8);
  EXPECT_NE(CompareTensors(ta, tb, 1e-3, 1e-7), "");
  EXPECT_EQ(CompareTensors(ta, ta, 1e-3, 1e-7), "");
  const Tensor u4a = Bytes(KILN_ELEMENT_TYPE_UINT4, {1}, {0x05});
  const Tensor u4b = Bytes(KILN_ELEMENT_TYPE_UINT4, {1}, {0xF5});  // the unused nibble differs
  EXPECT_EQ(CompareTensors(u4a, u4b, 1e-3, 1e-7), "");
  Tensor s1;
  s1.type = KILN_ELEMENT_TYPE_STRING;
  s1.shape = {1};
  s1.strings = {"abc"};
  Tensor s2 = s1;
  s2.strings = {"abd"};
  EXPECT_EQ(CompareTensors(s1, s2, 1e-3, 1e-7), "element 0 is \"abd\", expected \"abc\"");
}

TEST(Compare, SequencesAndOptionals) {
  TestValue seq;
  seq.kind = TestValue::Kind::kSequence;
  seq.sequence = {Floats({1}, {1})};
  TestValue longer = seq;
  longer.sequence.push_back(Floats({1}, {2}));
  EXPECT_EQ(Compare(seq, longer, 1e-3, 1e-7), "sequence length 2, expected 1");
  TestValue empty;
  empty.kind = TestValue::Kind::kOptional;
  empty.has_value = false;
  TestValue full = empty;
  full.has_value = true;
  full.tensor = Floats({1}, {1});
  EXPECT_NE(Compare(empty, full, 1e-3, 1e-7), "");
  EXPECT_NE(Compare(full, empty, 1e-3, 1e-7), "");
  EXPECT_EQ(Compare(full, full, 1e-3, 1e-7), "");
  EXPECT_NE(Compare(seq, full, 1e-3, 1e-7), "");
}

// A one-node case on disk: y = Relu(x), with the expected output given.
Case WriteReluCase(const fs::path& dir, const std::string& op, const std::vector<float>& y) {
  fs::create_directories(dir / "test_data_set_0");
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->add_input("x");
  n->add_output("y");
  for (const char* name : {"x", "y"}) {
    onnx::ValueInfoProto* v = name[0] == 'x' ? g->add_input() : g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  }
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.SerializeAsString();
  std::ofstream(dir / "test_data_set_0" / "input_0.pb", std::ios::binary)
      << FloatProto({3}, {-1, 0.5f, 2}, true).SerializeAsString();
  std::ofstream(dir / "test_data_set_0" / "output_0.pb", std::ios::binary)
      << FloatProto({3}, y, false).SerializeAsString();
  Case c;
  c.id = "t/node/" + dir.filename().string();
  c.model = (dir / "model.onnx").string();
  c.dir = dir.string();
  return c;
}

TEST(RunCase, PassesOnTheRightOutputAndFailsOnAWrongOne) {
  const fs::path root =
      fs::temp_directory_path() / ("kiln_conformance_test_" + std::to_string(::getpid()));
  const Result right = RunCase(WriteReluCase(root / "right", "Relu", {0, 0.5f, 2}), {});
  EXPECT_EQ(right.outcome, Outcome::kPassed) << right.message;
  const Result wrong = RunCase(WriteReluCase(root / "wrong", "Relu", {0, 0.5f, 2.01f}), {});
  EXPECT_EQ(wrong.outcome, Outcome::kFailed);
  EXPECT_NE(wrong.message.find("output 0 ('y'): element 2 is 2"), std::string::npos)
      << wrong.message;
  const Result unknown = RunCase(WriteReluCase(root / "unknown", "NoSuchOp", {0, 0.5f, 2}), {});
  EXPECT_EQ(unknown.outcome, Outcome::kFailed);
  EXPECT_NE(unknown.message.find("NoSuchOp"), std::string::npos) << unknown.message;
  fs::remove_all(root);
}

TEST(FindCases, NamesCasesBySuiteAndListsTheirOps) {
  const fs::path root =
      fs::temp_directory_path() / ("kiln_conformance_find_" + std::to_string(::getpid()));
  WriteReluCase(root / "node" / "test_relu_a", "Relu", {0, 0.5f, 2});
  const std::vector<Case> cases = FindCases("x", root.string());
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id, "x/node/test_relu_a");
  EXPECT_EQ(cases[0].suite, "x/node");
  EXPECT_EQ(cases[0].ops, (std::vector<std::string>{"Relu"}));
  fs::remove_all(root);
}

}  // namespace
}  // namespace conformance
