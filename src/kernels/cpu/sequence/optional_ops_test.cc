#include <gtest/gtest.h>

#include "kernels/cpu/sequence/sequence_test_util.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

Value OptTensor() {
  return Value::OptionalOf(Value(MakeTensor<float>({4}, {1, 2, 3, 4})));
}
Value IntSeq() {
  return Seq(DataType::kInt32, {MakeTensor<int32_t>({4}, {1, 2, 3, 4})});
}

bool HasElement(NodeTest test) {
  Value v = test.RunValues()[0];
  EXPECT_EQ(v.kind(), Value::Kind::kTensor);
  EXPECT_EQ(v.tensor()->shape(), Shape(std::vector<int64_t>{}));
  return Values<bool>(*v.tensor())[0];
}

TEST(OptionalOp, WrapsATensorCopyOrASharedSequence) {
  auto x = MakeTensor<float>({2}, {1, 2});
  Value o = NodeTest("Optional", 15).Input(x).RunValues()[0];
  ASSERT_EQ(o.kind(), Value::Kind::kOptional);
  EXPECT_EQ(o.TypeText(), "optional(tensor(float))");
  ASSERT_TRUE(o.has_value());
  EXPECT_NE(o.tensor().get(), x.get());  // the optional owns a copy
  EXPECT_EQ(Values<float>(*o.tensor()), (F{1, 2}));
  Value s = IntSeq();
  Value os = NodeTest("Optional", 18).InputValue(s).RunValues()[0];
  EXPECT_EQ(os.TypeText(), "optional(seq(tensor(int32)))");
  EXPECT_EQ(os.sequence().get(), s.sequence().get());
  Value str = NodeTest("Optional", 15).Input<std::string>({1}, {"q"}).RunValues()[0];
  EXPECT_EQ(Values<std::string>(*str.tensor()), (std::vector<std::string>{"q"}));
}

TEST(OptionalOp, Errors) {
  ExpectNodeError(NodeTest("Optional", 15).InputValue(OptTensor()), ErrorCode::kInvalidArgument,
                  "input 0 must be a tensor or a sequence, not optional(tensor(float))");
  // Without input the type must be known: the loader drops the TypeProto attribute's content and
  // a NodeTest output has no declared type.
  ExpectNodeError(NodeTest("Optional", 15), ErrorCode::kNotImplemented,
                  "an Optional without input takes its type from attribute 'type'");
  EXPECT_THROW(NodeTest("Optional", 14).Input<float>({1}, {1}).RunValues(), Error);
}

TEST(OptionalHasElement, Opset18MirrorsTheSharedCases) {
  // test_optional_has_element_optional_input / _tensor_input: optional(tensor) holding [1,2,3,4].
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 18).InputValue(OptTensor())));
  // test_optional_has_element_empty_optional_input: an empty optional(tensor(int32)).
  EXPECT_FALSE(
      HasElement(NodeTest("OptionalHasElement", 18)
                     .InputValue(Value::EmptyOptional(Value::Kind::kTensor, DataType::kInt32))));
  // test_optional_has_element_empty_no_input_*: no input at all, or an empty name.
  EXPECT_FALSE(HasElement(NodeTest("OptionalHasElement", 18)));
  EXPECT_FALSE(HasElement(NodeTest("OptionalHasElement", 18).MissingInput()));
  // 18 also takes a plain tensor or sequence: they are there.
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 18).Input<float>({0}, {})));
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 28).InputValue(IntSeq())));
  EXPECT_FALSE(
      HasElement(NodeTest("OptionalHasElement", 18)
                     .InputValue(Value::EmptyOptional(Value::Kind::kSequence, DataType::kFloat))));
}

TEST(OptionalHasElement, Opset15) {
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 15).InputValue(OptTensor())));
  EXPECT_FALSE(
      HasElement(NodeTest("OptionalHasElement", 17)
                     .InputValue(Value::EmptyOptional(Value::Kind::kTensor, DataType::kFloat))));
  // Plain values are taken before 18 too (test_loop16_seq_none relies on it).
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 15).Input<float>({1}, {1})));
  EXPECT_TRUE(HasElement(NodeTest("OptionalHasElement", 16).InputValue(IntSeq())));
  // A missing input is "empty" only from 18.
  ExpectNodeError(NodeTest("OptionalHasElement", 15).MissingInput(), ErrorCode::kInvalidArgument,
                  "input 0 is required");
}

TEST(OptionalGetElement, Opset18MirrorsTheSharedCases) {
  // test_optional_get_element_optional_tensor: the tensor, shared.
  Value opt = OptTensor();
  Value t = NodeTest("OptionalGetElement", 18).InputValue(opt).RunValues()[0];
  ASSERT_EQ(t.kind(), Value::Kind::kTensor);
  EXPECT_EQ(Values<float>(*t.tensor()), (F{1, 2, 3, 4}));
  EXPECT_EQ(t.tensor().get(), opt.tensor().get());
  // test_optional_get_element_optional_sequence: seq(tensor(int32)) [[1,2,3,4]].
  Value s =
      NodeTest("OptionalGetElement", 18).InputValue(Value::OptionalOf(IntSeq())).RunValues()[0];
  EXPECT_EQ(s.TypeText(), "seq(tensor(int32))");
  EXPECT_EQ(ItemValues<int32_t>(s, 0, Shape({4})), (std::vector<int32_t>{1, 2, 3, 4}));
  // test_optional_get_element_sequence / _tensor: a plain value comes back as it is.
  Value plain = NodeTest("OptionalGetElement", 18).InputValue(IntSeq()).RunValues()[0];
  EXPECT_EQ(ItemValues<int32_t>(plain, 0, Shape({4})), (std::vector<int32_t>{1, 2, 3, 4}));
  auto copy = NodeTest("OptionalGetElement", 18).Input<float>({4}, {1, 2, 3, 4}).Run();
  EXPECT_EQ(Values<float>(*copy[0]), (F{1, 2, 3, 4}));
  EXPECT_EQ(copy[0]->shape(), Shape({4}));
}

TEST(OptionalGetElement, Errors) {
  ExpectNodeError(NodeTest("OptionalGetElement", 15).MissingInput(), ErrorCode::kInvalidArgument,
                  "input 0 is required");
  ExpectNodeError(NodeTest("OptionalGetElement", 18)
                      .InputValue(Value::EmptyOptional(Value::Kind::kTensor, DataType::kFloat)),
                  ErrorCode::kInvalidArgument, "input 0 is an empty optional(tensor(float))");
  ExpectNodeError(NodeTest("OptionalGetElement", 15)
                      .InputValue(Value::EmptyOptional(Value::Kind::kSequence, DataType::kInt64)),
                  ErrorCode::kInvalidArgument, "input 0 is an empty optional(seq(tensor(int64)))");
  ExpectNodeError(NodeTest("OptionalGetElement", 18).MissingInput(), ErrorCode::kInvalidArgument,
                  "input 0 is required");
  Value ok = NodeTest("OptionalGetElement", 15).InputValue(OptTensor()).RunValues()[0];
  EXPECT_EQ(Values<float>(*ok.tensor()), (F{1, 2, 3, 4}));
  // A plain sequence before 18 too (test_loop16_seq_none relies on it).
  Value seq = NodeTest("OptionalGetElement", 16).InputValue(IntSeq()).RunValues()[0];
  EXPECT_EQ(seq.TypeText(), "seq(tensor(int32))");
}

}  // namespace
}  // namespace kiln::testing
