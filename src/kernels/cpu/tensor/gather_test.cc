#include <gtest/gtest.h>

#include <numeric>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;

std::shared_ptr<Tensor> Grid() {  // 3x4 of 0..11
  std::vector<int64_t> v(12);
  std::iota(v.begin(), v.end(), 0);
  return MakeTensor<int64_t>({3, 4}, v);
}

TEST(TensorGather, Axis1WithNegativeIndices) {
  auto out = NodeTest("Gather", 13)
                 .Attr("axis", int64_t{1})
                 .Input(Grid())
                 .Input<int32_t>({2, 2}, {0, -1, 2, 1})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({3, 2, 2}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (I64{0, 3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9}));
}

TEST(TensorGather, ScalarIndexDropsAxis) {
  auto out = NodeTest("Gather", 1).Input(Grid()).Input<int64_t>({}, {2}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({4}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (I64{8, 9, 10, 11}));
  auto s = NodeTest("Gather", 11)
               .Input<std::string>({3}, {"a", "b", "c"})
               .Input<int64_t>({2}, {2, 0})
               .Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"c", "a"}));
}

TEST(TensorGather, Errors) {
  ExpectNodeError(NodeTest("Gather", 13).Input(Grid()).Input<int64_t>({2}, {0, 3}),
                  ErrorCode::kInvalidArgument, "index 3 at position 1 is out of range");
  ExpectNodeError(NodeTest("Gather", 13).Input(Grid()).Input<int64_t>({1}, {-4}),
                  ErrorCode::kInvalidArgument, "index -4");
  ExpectNodeError(NodeTest("Gather", 13).Input(Grid()).Input<float>({1}, {0}),
                  ErrorCode::kInvalidArgument, "'indices'");
  ExpectNodeError(
      NodeTest("Gather", 13).Attr("axis", int64_t{2}).Input(Grid()).Input<int64_t>({1}, {0}),
      ErrorCode::kInvalidArgument, "axis 2");
}

TEST(TensorGatherElements, AlongBothAxes) {
  auto a1 = NodeTest("GatherElements", 13)
                .Attr("axis", int64_t{-1})
                .Input(Grid())
                .Input<int64_t>({3, 2}, {0, 2, 1, 0, 2, 1})
                .Run();
  EXPECT_EQ(Values<int64_t>(*a1[0]), (I64{0, 2, 5, 4, 10, 9}));
  auto a0 =
      NodeTest("GatherElements", 11).Input(Grid()).Input<int32_t>({1, 4}, {2, 0, 1, -1}).Run();
  EXPECT_EQ(Values<int64_t>(*a0[0]), (I64{8, 1, 6, 11}));
}

TEST(TensorGatherElements, Errors) {
  ExpectNodeError(
      NodeTest("GatherElements", 13).Input(Grid()).Input<int64_t>({1, 5}, {0, 0, 0, 0, 0}),
      ErrorCode::kInvalidArgument, "do not fit");
  ExpectNodeError(NodeTest("GatherElements", 13).Input(Grid()).Input<int64_t>({4}, {0, 0, 0, 0}),
                  ErrorCode::kInvalidArgument, "do not fit");
  ExpectNodeError(NodeTest("GatherElements", 13).Input(Grid()).Input<int64_t>({1, 1}, {3}),
                  ErrorCode::kInvalidArgument, "index 3 at position 0");
}

TEST(TensorGatherND, TuplesAndSlices) {
  std::vector<float> v(8);
  std::iota(v.begin(), v.end(), 0.0f);
  auto d = MakeTensor<float>({2, 2, 2}, v);
  auto full = NodeTest("GatherND", 11).Input(d).Input<int64_t>({2, 2}, {0, 1, 1, 0}).Run();
  EXPECT_EQ(full[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*full[0]), (std::vector<float>{2, 3, 4, 5}));
  auto neg = NodeTest("GatherND", 13).Input(d).Input<int64_t>({1, 3}, {-1, 0, -1}).Run();
  EXPECT_EQ(Values<float>(*neg[0]), (std::vector<float>{5}));
}

TEST(TensorGatherND, BatchDims) {
  std::vector<float> v(8);
  std::iota(v.begin(), v.end(), 0.0f);
  auto out = NodeTest("GatherND", 12)
                 .Attr("batch_dims", int64_t{1})
                 .Input<float>({2, 2, 2}, v)
                 .Input<int64_t>({2, 1}, {1, 0})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{2, 3, 4, 5}));
}

TEST(TensorGatherND, Errors) {
  auto d = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  ExpectNodeError(NodeTest("GatherND", 13).Input(d).Input<int64_t>({1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "last dimension of indices");
  ExpectNodeError(NodeTest("GatherND", 13).Input(d).Input<int64_t>({1, 2}, {0, 2}),
                  ErrorCode::kInvalidArgument, "index 2 at position 1");
  ExpectNodeError(NodeTest("GatherND", 13)
                      .Attr("batch_dims", int64_t{1})
                      .Input(d)
                      .Input<int64_t>({3, 1}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "batch dimensions");
  ExpectNodeError(NodeTest("GatherND", 13)
                      .Attr("batch_dims", int64_t{2})
                      .Input(d)
                      .Input<int64_t>({2, 1}, {0, 0}),
                  ErrorCode::kInvalidArgument, "batch_dims 2");
}

}  // namespace
}  // namespace kiln::testing
