#include <gtest/gtest.h>

#include "kernels/cpu/sequence/sequence_test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;

// The input of test_sequence_insert_at_back / _at_front: [1,2,3,4], [5,6,7], [8,9].
Value ThreeInt64() {
  return Seq(DataType::kInt64,
             {MakeTensor<int64_t>({4}, {1, 2, 3, 4}), MakeTensor<int64_t>({3}, {5, 6, 7}),
              MakeTensor<int64_t>({2}, {8, 9})});
}

// X, Y, Z of the test_sequence_model* cases: 1s, 0s, 2s.
std::shared_ptr<Tensor> Filled(std::vector<int64_t> dims, float v) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return MakeTensor<float>(std::move(dims), std::vector<float>(n, v));
}

TEST(SequenceEmpty, DefaultsToFloatAndTakesDtype) {
  Value f = NodeTest("SequenceEmpty", 11).RunValues()[0];
  EXPECT_EQ(SeqOf(f).elem_type, DataType::kFloat);
  EXPECT_TRUE(SeqOf(f).tensors.empty());
  EXPECT_EQ(f.TypeText(), "seq(tensor(float))");
  Value s = NodeTest("SequenceEmpty", 17).Attr("dtype", int64_t{8}).RunValues()[0];
  EXPECT_EQ(SeqOf(s).elem_type, DataType::kString);
  Value i = NodeTest("SequenceEmpty", 28).Attr("dtype", int64_t{7}).RunValues()[0];
  EXPECT_EQ(SeqOf(i).elem_type, DataType::kInt64);
}

TEST(SequenceEmpty, RejectsAnUnknownDtype) {
  ExpectNodeError(NodeTest("SequenceEmpty", 11).Attr("dtype", int64_t{999}),
                  ErrorCode::kInvalidGraph, "attribute 'dtype' 999 is not a known element type");
  ExpectNodeError(NodeTest("SequenceEmpty", 11).Attr("dtype", int64_t{0}), ErrorCode::kInvalidGraph,
                  "attribute 'dtype' 0");
}

TEST(SequenceConstruct, CopiesItsInputsInOrder) {
  auto x = MakeTensor<float>({2}, {1, 2});
  Value out = NodeTest("SequenceConstruct", 11)
                  .Input(x)
                  .Input<float>({1, 3}, {3, 4, 5})
                  .Input<float>({0}, {})
                  .RunValues()[0];
  const TensorSequence& s = SeqOf(out);
  ASSERT_EQ(s.tensors.size(), 3u);
  EXPECT_EQ(s.elem_type, DataType::kFloat);
  EXPECT_EQ(ItemValues<float>(out, 0, Shape({2})), (std::vector<float>{1, 2}));
  EXPECT_EQ(ItemValues<float>(out, 1, Shape({1, 3})), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(ItemValues<float>(out, 2, Shape({0})), (std::vector<float>{}));
  EXPECT_NE(s.tensors[0].get(), x.get());  // the sequence owns a copy
}

TEST(SequenceConstruct, Strings) {
  Value out = NodeTest("SequenceConstruct", 11)
                  .Input<std::string>({2}, {"a", "bc"})
                  .Input<std::string>({}, {"d"})
                  .RunValues()[0];
  EXPECT_EQ(SeqOf(out).elem_type, DataType::kString);
  EXPECT_EQ(ItemValues<std::string>(out, 0, Shape({2})), (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(ItemValues<std::string>(out, 1, Shape(std::vector<int64_t>{})),
            (std::vector<std::string>{"d"}));
}

TEST(SequenceConstruct, Errors) {
  ExpectNodeError(NodeTest("SequenceConstruct", 11).Input<float>({1}, {1}).Input<int32_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 1 is tensor(int32), input 0 tensor(float)");
  ExpectNodeError(NodeTest("SequenceConstruct", 11).Input<float>({1}, {1}).InputValue(ThreeInt64()),
                  ErrorCode::kInvalidArgument, "input 1 must be a tensor, not seq(tensor(int64))");
}

TEST(SequenceInsert, AtBackMirrorsTestSequenceInsertAtBack) {
  Value out = NodeTest("SequenceInsert", 11)
                  .InputValue(ThreeInt64())
                  .Input<int64_t>({3}, {10, 11, 12})
                  .RunValues()[0];
  ASSERT_EQ(SeqOf(out).tensors.size(), 4u);
  EXPECT_EQ(ItemValues<int64_t>(out, 0, Shape({4})), (V{1, 2, 3, 4}));
  EXPECT_EQ(ItemValues<int64_t>(out, 1, Shape({3})), (V{5, 6, 7}));
  EXPECT_EQ(ItemValues<int64_t>(out, 2, Shape({2})), (V{8, 9}));
  EXPECT_EQ(ItemValues<int64_t>(out, 3, Shape({3})), (V{10, 11, 12}));
}

TEST(SequenceInsert, AtFrontMirrorsTestSequenceInsertAtFront) {
  // The case gives the position as a 1-element 1-D tensor.
  Value in = ThreeInt64();
  Value out = NodeTest("SequenceInsert", 11)
                  .InputValue(in)
                  .Input<int64_t>({3}, {-2, -1, 0})
                  .Input<int64_t>({1}, {0})
                  .RunValues()[0];
  ASSERT_EQ(SeqOf(out).tensors.size(), 4u);
  EXPECT_EQ(ItemValues<int64_t>(out, 0, Shape({3})), (V{-2, -1, 0}));
  EXPECT_EQ(ItemValues<int64_t>(out, 1, Shape({4})), (V{1, 2, 3, 4}));
  EXPECT_EQ(ItemValues<int64_t>(out, 3, Shape({2})), (V{8, 9}));
  EXPECT_EQ(SeqOf(in).tensors.size(), 3u);  // the input sequence is unchanged
  EXPECT_EQ(SeqOf(out).tensors[1].get(), SeqOf(in).tensors[0].get());  // its tensors shared
}

TEST(SequenceInsert, NegativeAndEndPositions) {
  auto run = [](int64_t pos) {
    return NodeTest("SequenceInsert", 11)
        .InputValue(ThreeInt64())
        .Input<int64_t>({1}, {0})
        .Input<int32_t>({}, {static_cast<int32_t>(pos)})
        .RunValues()[0];
  };
  // -1 inserts before the last tensor, -3 before the first, 3 (the length) at the back.
  EXPECT_EQ(ItemValues<int64_t>(run(-1), 2, Shape({1})), (V{0}));
  EXPECT_EQ(ItemValues<int64_t>(run(-3), 0, Shape({1})), (V{0}));
  EXPECT_EQ(ItemValues<int64_t>(run(3), 3, Shape({1})), (V{0}));
  EXPECT_EQ(ItemValues<int64_t>(run(1), 1, Shape({1})), (V{0}));
}

TEST(SequenceInsert, IntoAnEmptySequence) {
  Value empty = NodeTest("SequenceEmpty", 11).RunValues()[0];
  Value out =
      NodeTest("SequenceInsert", 11).InputValue(empty).Input<float>({2}, {1, 2}).RunValues()[0];
  EXPECT_EQ(ItemValues<float>(out, 0, Shape({2})), (std::vector<float>{1, 2}));
  Value strings = NodeTest("SequenceEmpty", 11).Attr("dtype", int64_t{8}).RunValues()[0];
  Value s = NodeTest("SequenceInsert", 11)
                .InputValue(strings)
                .Input<std::string>({1}, {"x"})
                .Input<int64_t>({}, {0})
                .RunValues()[0];
  EXPECT_EQ(ItemValues<std::string>(s, 0, Shape({1})), (std::vector<std::string>{"x"}));
}

TEST(SequenceInsert, Errors) {
  auto with_pos = [](int64_t pos) {
    return NodeTest("SequenceInsert", 11)
        .InputValue(ThreeInt64())
        .Input<int64_t>({1}, {0})
        .Input<int64_t>({}, {pos});
  };
  ExpectNodeError(with_pos(4), ErrorCode::kInvalidArgument,
                  "position 4 is out of range [-3, 3] for a sequence of 3 tensors");
  ExpectNodeError(with_pos(-4), ErrorCode::kInvalidArgument, "position -4 is out of range [-3, 3]");
  ExpectNodeError(NodeTest("SequenceInsert", 11).InputValue(ThreeInt64()).Input<float>({1}, {0}),
                  ErrorCode::kInvalidArgument,
                  "input 1 is tensor(float) but the sequence holds tensor(int64)");
  ExpectNodeError(NodeTest("SequenceInsert", 11).Input<float>({1}, {0}).Input<float>({1}, {0}),
                  ErrorCode::kInvalidArgument, "input 0 must be a sequence, not tensor(float)");
  ExpectNodeError(NodeTest("SequenceInsert", 11)
                      .InputValue(ThreeInt64())
                      .Input<int64_t>({1}, {0})
                      .Input<float>({}, {0}),
                  ErrorCode::kInvalidArgument, "input 2 ('position') must be one int32 or int64");
  ExpectNodeError(NodeTest("SequenceInsert", 11)
                      .InputValue(ThreeInt64())
                      .Input<int64_t>({1}, {0})
                      .Input<int64_t>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "input 2 ('position') must be one int32 or int64");
  ExpectNodeError(NodeTest("SequenceInsert", 11).InputValue(ThreeInt64()).MissingInput(),
                  ErrorCode::kInvalidArgument, "input 1 is required");
  ExpectNodeError(NodeTest("SequenceInsert", 11).InputValue(ThreeInt64()).InputValue(ThreeInt64()),
                  ErrorCode::kInvalidArgument, "input 1 must be a tensor, not seq(tensor(int64))");
}

TEST(SequenceAt, MirrorsTestSequenceModel1) {
  // SequenceEmpty, insert X (2x3x4 of 1s), Y (1x3x4 of 0s), Z (3x3x4 of 2s) at 1; at 2 is Y.
  Value s = NodeTest("SequenceEmpty", 12).RunValues()[0];
  s = NodeTest("SequenceInsert", 12).InputValue(s).Input(Filled({2, 3, 4}, 1)).RunValues()[0];
  s = NodeTest("SequenceInsert", 12).InputValue(s).Input(Filled({1, 3, 4}, 0)).RunValues()[0];
  s = NodeTest("SequenceInsert", 12)
          .InputValue(s)
          .Input(Filled({3, 3, 4}, 2))
          .Input<int64_t>({}, {1}, true)
          .RunValues()[0];
  Value out = NodeTest("SequenceAt", 12).InputValue(s).Input<int64_t>({}, {2}, true).RunValues()[0];
  ASSERT_EQ(out.kind(), Value::Kind::kTensor);
  EXPECT_EQ(out.tensor()->shape(), Shape({1, 3, 4}));
  EXPECT_EQ(Values<float>(*out.tensor()), std::vector<float>(12, 0.0f));
  EXPECT_EQ(out.tensor().get(), SeqOf(s).tensors[2].get());  // shared, not copied
  Value mid = NodeTest("SequenceAt", 12).InputValue(s).Input<int32_t>({}, {-2}).RunValues()[0];
  EXPECT_EQ(mid.tensor()->shape(), Shape({3, 3, 4}));
}

TEST(SequenceAt, PositionsAndErrors) {
  auto at = [](int64_t pos) {
    return NodeTest("SequenceAt", 11).InputValue(ThreeInt64()).Input<int64_t>({}, {pos});
  };
  EXPECT_EQ(Values<int64_t>(*at(-1).RunValues()[0].tensor()), (V{8, 9}));
  EXPECT_EQ(Values<int64_t>(*at(-3).RunValues()[0].tensor()), (V{1, 2, 3, 4}));
  EXPECT_EQ(Values<int64_t>(*at(1).RunValues()[0].tensor()), (V{5, 6, 7}));
  ExpectNodeError(at(3), ErrorCode::kInvalidArgument,
                  "position 3 is out of range [-3, 2] for a sequence of 3 tensors");
  ExpectNodeError(at(-4), ErrorCode::kInvalidArgument, "position -4 is out of range [-3, 2]");
  Value empty = NodeTest("SequenceEmpty", 11).RunValues()[0];
  ExpectNodeError(NodeTest("SequenceAt", 11).InputValue(empty).Input<int64_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "position 0 is out of range: the sequence is empty");
  ExpectNodeError(NodeTest("SequenceAt", 11).InputValue(ThreeInt64()).MissingInput(),
                  ErrorCode::kInvalidArgument, "input 1 ('position') is required");
  ExpectNodeError(NodeTest("SequenceAt", 11).Input<int64_t>({1}, {0}).Input<int64_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "input 0 must be a sequence, not tensor(int64)");
}

TEST(SequenceErase, MirrorsTestSequenceModel2And3) {
  auto xyz = [] {
    return NodeTest("SequenceConstruct", 12)
        .Input(Filled({2, 3, 4}, 1))
        .Input(Filled({2, 3, 4}, 0))
        .Input(Filled({2, 3, 4}, 2))
        .RunValues()[0];
  };
  // Model 2: erase 1, at 1 is Z.
  Value s2 = NodeTest("SequenceErase", 12).InputValue(xyz()).Input<int64_t>({}, {1}).RunValues()[0];
  ASSERT_EQ(SeqOf(s2).tensors.size(), 2u);
  EXPECT_EQ(ItemValues<float>(s2, 1, Shape({2, 3, 4})), std::vector<float>(24, 2.0f));
  EXPECT_EQ(ItemValues<float>(s2, 0, Shape({2, 3, 4})), std::vector<float>(24, 1.0f));
  // Model 3: erase -3, insert X at -1, at -1 is Z.
  Value s3 =
      NodeTest("SequenceErase", 12).InputValue(xyz()).Input<int64_t>({}, {-3}).RunValues()[0];
  s3 = NodeTest("SequenceInsert", 12)
           .InputValue(s3)
           .Input(Filled({2, 3, 4}, 1))
           .Input<int64_t>({}, {-1})
           .RunValues()[0];
  ASSERT_EQ(SeqOf(s3).tensors.size(), 3u);
  EXPECT_EQ(ItemValues<float>(s3, 0, Shape({2, 3, 4})), std::vector<float>(24, 0.0f));
  EXPECT_EQ(ItemValues<float>(s3, 1, Shape({2, 3, 4})), std::vector<float>(24, 1.0f));
  Value out = NodeTest("SequenceAt", 12).InputValue(s3).Input<int64_t>({}, {-1}).RunValues()[0];
  EXPECT_EQ(Values<float>(*out.tensor()), std::vector<float>(24, 2.0f));
}

TEST(SequenceErase, DefaultsToTheLastAndChecksRange) {
  Value out = NodeTest("SequenceErase", 11).InputValue(ThreeInt64()).RunValues()[0];
  ASSERT_EQ(SeqOf(out).tensors.size(), 2u);
  EXPECT_EQ(ItemValues<int64_t>(out, 1, Shape({3})), (V{5, 6, 7}));
  EXPECT_EQ(SeqOf(out).elem_type, DataType::kInt64);
  Value one = NodeTest("SequenceConstruct", 11).Input<std::string>({1}, {"s"}).RunValues()[0];
  Value none = NodeTest("SequenceErase", 11).InputValue(one).RunValues()[0];
  EXPECT_TRUE(SeqOf(none).tensors.empty());
  EXPECT_EQ(SeqOf(none).elem_type, DataType::kString);
  ExpectNodeError(NodeTest("SequenceErase", 11).InputValue(none), ErrorCode::kInvalidArgument,
                  "cannot erase from an empty sequence");
  ExpectNodeError(NodeTest("SequenceErase", 11).InputValue(none).Input<int64_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "the sequence is empty");
  ExpectNodeError(NodeTest("SequenceErase", 11).InputValue(ThreeInt64()).Input<int64_t>({}, {3}),
                  ErrorCode::kInvalidArgument, "position 3 is out of range [-3, 2]");
  ExpectNodeError(NodeTest("SequenceErase", 11).Input<int64_t>({}, {3}),
                  ErrorCode::kInvalidArgument, "input 0 must be a sequence, not tensor(int64)");
}

TEST(SequenceLength, CountsTensors) {
  Value n = NodeTest("SequenceLength", 11).InputValue(ThreeInt64()).RunValues()[0];
  ASSERT_EQ(n.kind(), Value::Kind::kTensor);
  EXPECT_EQ(n.tensor()->shape(), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(Values<int64_t>(*n.tensor()), (V{3}));
  Value empty = NodeTest("SequenceEmpty", 11).RunValues()[0];
  EXPECT_EQ(
      Values<int64_t>(*NodeTest("SequenceLength", 11).InputValue(empty).RunValues()[0].tensor()),
      (V{0}));
  ExpectNodeError(NodeTest("SequenceLength", 11).Input<float>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 0 must be a sequence, not tensor(float)");
  ExpectNodeError(NodeTest("SequenceLength", 11).InputValue(Value::OptionalOf(ThreeInt64())),
                  ErrorCode::kInvalidArgument,
                  "input 0 must be a sequence, not optional(seq(tensor(int64)))");
}

TEST(SequenceOps, NotRegisteredBeforeOpset11) {
  EXPECT_THROW(NodeTest("SequenceEmpty", 10).RunValues(), Error);
  EXPECT_THROW(NodeTest("SequenceLength", 10).InputValue(ThreeInt64()).RunValues(), Error);
  EXPECT_NO_THROW(NodeTest("SequenceEmpty", 11).RunValues());
}

}  // namespace
}  // namespace kiln::testing
