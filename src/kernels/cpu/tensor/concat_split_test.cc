#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using F = std::vector<float>;

TEST(TensorConcat, JoinsAlongAxis) {
  auto out = NodeTest("Concat", 13)
                 .Attr("axis", int64_t{1})
                 .Input<float>({2, 1}, {1, 2})
                 .Input<float>({2, 2}, {3, 4, 5, 6})
                 .Input<float>({2, 0}, {})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 3, 4, 2, 5, 6}));
}

TEST(TensorConcat, NegativeAxisAndStrings) {
  auto out = NodeTest("Concat", 11)
                 .Attr("axis", int64_t{-1})
                 .Input<std::string>({1, 1}, {"a"})
                 .Input<std::string>({1, 2}, {"b", "c"})
                 .Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TensorSplit, NegativeAxisInOlderOpsets) {
  // Documented from opset 11; PyTorch's exporter wrote it before (its GLU at opset 6).
  auto parts = NodeTest("Split", 2)
                   .Attr("axis", int64_t{-1})
                   .Input<float>({2, 2}, {1, 2, 3, 4})
                   .Outputs(2)
                   .Run();
  EXPECT_EQ(Values<float>(*parts[0]), (F{1, 3}));
  EXPECT_EQ(Values<float>(*parts[1]), (F{2, 4}));
  auto joined = NodeTest("Concat", 4)
                    .Attr("axis", int64_t{-2})
                    .Input<float>({1, 2}, {1, 2})
                    .Input<float>({1, 2}, {3, 4})
                    .Run();
  EXPECT_EQ(joined[0]->shape(), Shape({2, 2}));
}

TEST(TensorConcat, Opset1DefaultsToAxisOne) {
  auto out = NodeTest("Concat", 1).Input<float>({1, 1}, {1}).Input<float>({1, 1}, {2}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2}));
}

TEST(TensorConcat, Errors) {
  ExpectNodeError(NodeTest("Concat", 13)
                      .Attr("axis", int64_t{0})
                      .Input<float>({1, 2}, {1, 2})
                      .Input<float>({1, 3}, {1, 2, 3}),
                  ErrorCode::kInvalidArgument, "input 1 (float [1,3]) does not match");
  ExpectNodeError(NodeTest("Concat", 13)
                      .Attr("axis", int64_t{0})
                      .Input<float>({1}, {1})
                      .Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 1 (int64");
  ExpectNodeError(NodeTest("Concat", 13).Attr("axis", int64_t{2}).Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "axis 2");
  ExpectNodeError(NodeTest("Concat", 4).Attr("axis", int64_t{-2}).Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "axis -2");
  ExpectNodeError(NodeTest("Concat", 4).Input<float>({1}, {1}), ErrorCode::kInvalidGraph, "'axis'");
  ExpectNodeError(NodeTest("Concat", 13).Attr("axis", int64_t{0}).Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "scalars");
}

TEST(TensorSplit, SplitInputOpset13) {
  auto out = NodeTest("Split", 13)
                 .Attr("axis", int64_t{-1})
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<int64_t>({2}, {1, 2})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 1}));
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 4}));
  EXPECT_EQ(Values<float>(*out[1]), (F{2, 3, 5, 6}));
}

TEST(TensorSplit, EqualPartsAndAttribute) {
  auto x = MakeTensor<int32_t>({4}, {1, 2, 3, 4});
  auto even = NodeTest("Split", 11).Input(x).Outputs(2).Run();
  EXPECT_EQ(Values<int32_t>(*even[1]), (std::vector<int32_t>{3, 4}));
  auto attr = NodeTest("Split", 2).Attr("split", I64{3, 1}).Input(x).Outputs(2).Run();
  EXPECT_EQ(Values<int32_t>(*attr[0]), (std::vector<int32_t>{1, 2, 3}));
  auto v1 = NodeTest("Split", 1).Input(x).Input<int64_t>({2}, {1, 3}).Outputs(2).Run();
  EXPECT_EQ(Values<int32_t>(*v1[1]), (std::vector<int32_t>{2, 3, 4}));
}

TEST(TensorSplit, NumOutputsUneven) {
  auto out = NodeTest("Split", 18)
                 .Attr("num_outputs", int64_t{3})
                 .Input<float>({5}, {1, 2, 3, 4, 5})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 2}));
  EXPECT_EQ(Values<float>(*out[1]), (F{3, 4}));
  EXPECT_EQ(Values<float>(*out[2]), (F{5}));
}

TEST(TensorSplit, OutputLeftOut) {
  auto out = NodeTest("Split", 13).Input<float>({2}, {1, 2}).Outputs(2, {0}).Run();
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(Values<float>(*out[1]), (F{2}));
}

TEST(TensorSplit, Errors) {
  auto x = MakeTensor<float>({5}, {1, 2, 3, 4, 5});
  ExpectNodeError(NodeTest("Split", 13).Input(x).Outputs(2), ErrorCode::kInvalidArgument,
                  "2 equal parts");
  ExpectNodeError(NodeTest("Split", 13).Input(x).Input<int64_t>({2}, {1, 3}).Outputs(2),
                  ErrorCode::kInvalidArgument, "adds up to 4");
  ExpectNodeError(NodeTest("Split", 13).Input(x).Input<int64_t>({2}, {-1, 6}).Outputs(2),
                  ErrorCode::kInvalidArgument, "does not add up");
  ExpectNodeError(NodeTest("Split", 13).Input(x).Input<int64_t>({1}, {5}).Outputs(2),
                  ErrorCode::kInvalidArgument, "1 entries for 2 outputs");
  ExpectNodeError(NodeTest("Split", 18).Attr("num_outputs", int64_t{3}).Input(x).Outputs(2),
                  ErrorCode::kInvalidArgument, "num_outputs");
  ExpectNodeError(NodeTest("Split", 18)
                      .Attr("num_outputs", int64_t{4})
                      .Input<float>({5}, {1, 2, 3, 4, 5})
                      .Outputs(4),
                  ErrorCode::kInvalidArgument, "cannot be split into 4 parts");
  ExpectNodeError(NodeTest("Split", 2).Attr("axis", int64_t{-2}).Input(x).Outputs(1),
                  ErrorCode::kInvalidArgument, "axis -2");
}

TEST(TensorConcat, NeedsAnInput) {
  ExpectNodeError(NodeTest("Concat", 13).Attr("axis", int64_t{0}), ErrorCode::kInvalidArgument,
                  "at least one input");
}

TEST(TensorSplit, NumOutputsMustBePositive) {
  ExpectNodeError(NodeTest("Split", 18).Attr("num_outputs", int64_t{0}).Input<float>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "must be positive");
}

TEST(TensorConcat, LargeParallel) {
  std::vector<float> a(size_t{64} * 500, 1.0f);
  std::vector<float> b(size_t{64} * 300, 2.0f);
  auto out = NodeTest("Concat", 13)
                 .Attr("axis", int64_t{1})
                 .Input<float>({64, 500}, a)
                 .Input<float>({64, 300}, b)
                 .Run(4);
  const std::vector<float> y = Values<float>(*out[0]);
  for (size_t r = 0; r < 64; ++r) {
    ASSERT_EQ(y[r * 800 + 499], 1.0f);
    ASSERT_EQ(y[r * 800 + 500], 2.0f);
  }
}

}  // namespace
}  // namespace kiln::testing
