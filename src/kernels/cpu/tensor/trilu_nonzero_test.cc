#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using F = std::vector<float>;

TEST(TensorTrilu, UpperAndLowerWithK) {
  const F x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  auto upper = NodeTest("Trilu", 14).Input<float>({3, 4}, x).Run();
  EXPECT_EQ(Values<float>(*upper[0]), (F{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  auto lower = NodeTest("Trilu", 14)
                   .Attr("upper", int64_t{0})
                   .Input<float>({3, 4}, x)
                   .Input<int64_t>({}, {-1})
                   .Run();
  EXPECT_EQ(Values<float>(*lower[0]), (F{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  auto k2 = NodeTest("Trilu", 14).Input<float>({3, 4}, x).Input<int64_t>({1}, {2}).Run();
  EXPECT_EQ(Values<float>(*k2[0]), (F{0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}));
}

// com.microsoft Trilu (ONNX Runtime's, from before ONNX had it) is the same op.
TEST(TensorTrilu, MicrosoftDomainForm) {
  const F x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  auto lower = NodeTest("Trilu", 1, "com.microsoft")
                   .Attr("upper", int64_t{0})
                   .Input<float>({3, 4}, x)
                   .Input<int64_t>({}, {-1})
                   .Run();
  EXPECT_EQ(Values<float>(*lower[0]), (F{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  auto upper = NodeTest("Trilu", 1, "com.microsoft").Input<float>({3, 4}, x).Run();
  EXPECT_EQ(Values<float>(*upper[0]), (F{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
}

TEST(TensorTrilu, BatchedAndExtremeK) {
  auto out = NodeTest("Trilu", 14)
                 .Input<int32_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
                 .Input<int64_t>({}, {INT64_MIN})
                 .Run(2);
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  auto lower = NodeTest("Trilu", 14)
                   .Attr("upper", int64_t{0})
                   .Input<int32_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
                   .Run();
  EXPECT_EQ(Values<int32_t>(*lower[0]), (std::vector<int32_t>{1, 0, 3, 4, 5, 0, 7, 8}));
}

TEST(TensorTrilu, Errors) {
  ExpectNodeError(NodeTest("Trilu", 14).Input<float>({3}, {1, 2, 3}), ErrorCode::kInvalidArgument,
                  "rank >= 2");
  ExpectNodeError(NodeTest("Trilu", 14).Input<float>({1, 1}, {1}).Input<int64_t>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "'k'");
}

TEST(TensorNonZero, Coordinates) {
  auto out = NodeTest("NonZero", 13).Input<float>({2, 2}, {1, 0, -0.0f, 3}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (I64{0, 1, 0, 1}));
  auto b = NodeTest("NonZero", 9).Input<bool>({3}, {false, true, true}).Run();
  EXPECT_EQ(Values<int64_t>(*b[0]), (I64{1, 2}));
  auto s = NodeTest("NonZero", 13).Input<std::string>({2}, {"", "x"}).Run();
  EXPECT_EQ(Values<int64_t>(*s[0]), (I64{1}));
  auto none = NodeTest("NonZero", 13).Input<int32_t>({2}, {0, 0}).Run();
  EXPECT_EQ(none[0]->shape(), Shape({1, 0}));
  auto scalar = NodeTest("NonZero", 13).Input<int32_t>({}, {4}).Run();
  EXPECT_EQ(scalar[0]->shape(), Shape({1, 1}));
  auto h = NodeTest("NonZero", 13).Input<BFloat16>({2}, {BFloat16{}, BFloat16::FromFloat(2)}).Run();
  EXPECT_EQ(Values<int64_t>(*h[0]), (I64{1}));
}

}  // namespace
}  // namespace kiln::testing
