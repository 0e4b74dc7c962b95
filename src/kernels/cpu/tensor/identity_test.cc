#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

TEST(TensorIdentity, CopiesValuesTypeAndShape) {
  auto out = NodeTest("Identity", 16).Input<int64_t>({2, 2}, {1, 2, 3, 4}).Run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(TensorIdentity, CopiesStrings) {
  auto out = NodeTest("Identity", 1).Input<std::string>({2}, {"a", "bc"}).Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"a", "bc"}));
}

// The input of test_identity_sequence (opset 25): two 1x1x2x2 float tensors.
Value TwoImages() {
  auto s = std::make_shared<TensorSequence>();
  s->elem_type = DataType::kFloat;
  s->tensors.push_back(MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  s->tensors.push_back(MakeTensor<float>({1, 1, 2, 2}, {2, 3, 1, 5}));
  return Value::FromSequence(std::move(s));
}

TEST(TensorIdentity, PassesSequencesFromOpset14) {
  for (int64_t opset : {14, 16, 25}) {
    Value in = TwoImages();
    Value out = NodeTest("Identity", opset).InputValue(in).RunValues()[0];
    ASSERT_EQ(out.kind(), Value::Kind::kSequence);
    ASSERT_EQ(out.sequence()->tensors.size(), 2u);
    EXPECT_EQ(out.sequence()->tensors[1]->shape(), Shape({1, 1, 2, 2}));
    EXPECT_EQ(Values<float>(*out.sequence()->tensors[1]), (std::vector<float>{2, 3, 1, 5}));
    EXPECT_EQ(out.sequence().get(), in.sequence().get());  // immutable: shared
  }
  ExpectNodeError(NodeTest("Identity", 13).InputValue(TwoImages()), ErrorCode::kInvalidArgument,
                  "input 0 must be a tensor at opset 13, not seq(tensor(float))");
}

TEST(TensorIdentity, PassesOptionalsFromOpset16) {
  // test_identity_opt: optional(seq(tensor(float))) holding [[1,2,3,4,5]].
  auto s = std::make_shared<TensorSequence>();
  s->elem_type = DataType::kFloat;
  s->tensors.push_back(MakeTensor<float>({5}, {1, 2, 3, 4, 5}));
  Value opt = Value::OptionalOf(Value::FromSequence(std::move(s)));
  Value out = NodeTest("Identity", 16).InputValue(opt).RunValues()[0];
  ASSERT_EQ(out.kind(), Value::Kind::kOptional);
  EXPECT_EQ(out.TypeText(), "optional(seq(tensor(float)))");
  EXPECT_EQ(Values<float>(*out.sequence()->tensors[0]), (std::vector<float>{1, 2, 3, 4, 5}));
  Value empty = Value::EmptyOptional(Value::Kind::kTensor, DataType::kInt8);
  Value none = NodeTest("Identity", 21).InputValue(empty).RunValues()[0];
  EXPECT_EQ(none.kind(), Value::Kind::kOptional);
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(none.TypeText(), "optional(tensor(int8))");
  ExpectNodeError(
      NodeTest("Identity", 15).InputValue(opt), ErrorCode::kInvalidArgument,
      "input 0 must be a tensor or a sequence at opset 15, not optional(seq(tensor(float)))");
}

}  // namespace
}  // namespace kiln::testing
