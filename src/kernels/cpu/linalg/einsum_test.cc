// Einsum: matrix products in every layout (the Gemm fast paths), transposes, implicit outputs,
// traces and diagonals, sums, outer products, ellipsis broadcasting, size-1 broadcasting, three
// operands, integer wrapping, 16-bit floats, scalars, empty dimensions and the equation errors.
// Reference values from numpy.einsum.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::testing {
namespace {

// (i % mod) + offset for i in [0, n); mod 0 means i + offset.
template <typename T = float>
std::vector<T> Seq(size_t n, size_t mod, double offset) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(static_cast<double>(mod ? i % mod : i) + offset);
  return v;
}

std::vector<float> Einsum(
    const std::string& equation,
    const std::vector<std::pair<std::vector<int64_t>, std::vector<float>>>& inputs,
    const Shape& expected_shape, int threads = 1) {
  NodeTest test("Einsum", 12);
  test.Attr("equation", equation);
  for (const auto& [shape, values] : inputs) test.Input<float>(shape, values);
  auto out = test.Run(threads);
  EXPECT_EQ(out[0]->shape(), expected_shape) << equation;
  return Values<float>(*out[0]);
}

// [2,3]
std::vector<float> A() {
  return Seq(6, 0, -2);
}
// [3,4]
std::vector<float> B() {
  return Seq(12, 5, -1);
}
// [2,3,4]
std::vector<float> X() {
  return Seq(24, 7, -3);
}
// [2,4,2]
std::vector<float> Y() {
  return Seq(16, 5, -2);
}

TEST(LinalgEinsum, MatrixProductsInEveryLayout) {
  const std::vector<float> ab = {-1, 1, -2, -5, 11, 7, -2, 4};
  EXPECT_EQ(Einsum("ij,jk->ik", {{{2, 3}, A()}, {{3, 4}, B()}}, Shape({2, 4})), ab);
  EXPECT_EQ(Einsum("ij,jk", {{{2, 3}, A()}, {{3, 4}, B()}}, Shape({2, 4})), ab);
  // A transposed: the first operand is [depth, rows].
  const std::vector<float> at = {-2, 1, -1, 2, 0, 3};
  EXPECT_EQ(Einsum("ji,jk->ik", {{{3, 2}, at}, {{3, 4}, B()}}, Shape({2, 4})), ab);
  EXPECT_EQ(Einsum("bij,bjk->bik", {{{2, 3, 4}, X()}, {{2, 4, 2}, Y()}}, Shape({2, 3, 2})),
            (std::vector<float>{4, 3, 7, -5, 3, 1, -8, 2, 3, -5, 7, 9}));
  // Output order differs from the product's: permuted at the end.
  EXPECT_EQ(Einsum("bij,bjk->bki", {{{2, 3, 4}, X()}, {{2, 4, 2}, Y()}}, Shape({2, 2, 3})),
            (std::vector<float>{4, 7, 3, 3, -5, 1, -8, 3, 7, 2, -5, 9}));
  // Attention scores: B transposed.
  EXPECT_EQ(
      Einsum("bhqd,bhkd->bhqk", {{{1, 2, 3, 4}, Seq(24, 5, -2)}, {{1, 2, 2, 4}, Seq(16, 3, -1)}},
             Shape({1, 2, 3, 2}), 2),
      (std::vector<float>{1, -1, -3, -1, -2, 4, -3, 4, 1, 0, 0, 1}));
  // Operands needing a copy into [batch, rows, depth] order.
  EXPECT_EQ(
      Einsum("bik,jk->bji", {{{2, 2, 2}, Seq(8, 0, 0)}, {{3, 2}, Seq(6, 0, 0)}}, Shape({2, 3, 2})),
      (std::vector<float>{1, 3, 3, 13, 5, 23, 5, 7, 23, 33, 41, 59}));
}

TEST(LinalgEinsum, ImplicitOutputSortsLikeAscii) {
  // 'ba,Ca': b and C occur once; 'C' sorts before 'b'.
  EXPECT_EQ(Einsum("ba,Ca",
                   {{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{4, 3}, {1, 0, 2, 0, 1, -1, 3, 1, 0, 1, 1, 1}}},
                   Shape({4, 2})),
            (std::vector<float>{7, 16, -1, -1, 5, 17, 6, 15}));
}

TEST(LinalgEinsum, TracesDiagonalsAndSums) {
  const std::vector<float> m = Seq(9, 0, 0);
  EXPECT_EQ(Einsum("ii", {{{3, 3}, m}}, Shape(std::vector<int64_t>{})), (std::vector<float>{12}));
  EXPECT_EQ(Einsum("ii->i", {{{3, 3}, m}}, Shape({3})), (std::vector<float>{0, 4, 8}));
  EXPECT_EQ(Einsum("...ii->...i", {{{2, 3, 3}, Seq(18, 0, 0)}}, Shape({2, 3})),
            (std::vector<float>{0, 4, 8, 9, 13, 17}));
  EXPECT_EQ(Einsum("iij->ij", {{{3, 3, 2}, Seq(18, 0, 0)}}, Shape({3, 2})),
            (std::vector<float>{0, 1, 8, 9, 16, 17}));
  EXPECT_EQ(Einsum("ij->", {{{2, 3}, A()}}, Shape(std::vector<int64_t>{})),
            (std::vector<float>{3}));
  EXPECT_EQ(Einsum("ij->i", {{{2, 3}, A()}}, Shape({2})), (std::vector<float>{-3, 6}));
  EXPECT_EQ(Einsum("ij->j", {{{2, 3}, A()}}, Shape({3})), (std::vector<float>{-1, 1, 3}));
  EXPECT_EQ(Einsum("ij->ji", {{{2, 3}, A()}}, Shape({3, 2})),
            (std::vector<float>{-2, 1, -1, 2, 0, 3}));
}

TEST(LinalgEinsum, InnerOuterAndThreeOperands) {
  EXPECT_EQ(Einsum("i,i", {{{3}, {1, 2, 3}}, {{3}, {4, 5, 6}}}, Shape(std::vector<int64_t>{})),
            (std::vector<float>{32}));
  EXPECT_EQ(Einsum("i,j->ij", {{{2}, {1, 2}}, {{3}, {3, 4, 5}}}, Shape({2, 3})),
            (std::vector<float>{3, 4, 5, 6, 8, 10}));
  EXPECT_EQ(
      Einsum("ij,jk,kl->il", {{{2, 3}, A()}, {{3, 4}, B()}, {{4, 2}, {1, -1, 2, 0, 0, 1, 1, 1}}},
             Shape({2, 2})),
      (std::vector<float>{-4, -6, 29, -9}));
  // A scalar operand scales the other.
  EXPECT_EQ(Einsum(",ij->ij", {{{}, {2}}, {{2, 3}, A()}}, Shape({2, 3})),
            (std::vector<float>{-4, -2, 0, 2, 4, 6}));
}

TEST(LinalgEinsum, EllipsisAndSizeOneBroadcast) {
  EXPECT_EQ(Einsum("...ij,...jk", {{{1, 2, 3}, Seq(6, 0, 0)}, {{2, 3, 2}, Seq(12, 0, 0)}},
                   Shape({2, 2, 2})),
            (std::vector<float>{10, 13, 28, 40, 28, 31, 100, 112}));
  // Ellipses of different ranks, right-aligned: [2,1,2,3] and [3,3,2] (as numpy.matmul).
  std::vector<float> a(12), b(18);
  for (size_t i = 0; i < 12; ++i) a[i] = static_cast<float>(static_cast<int>(i) - 5);
  for (size_t i = 0; i < 18; ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  EXPECT_EQ(Einsum("...ij,...jk->...ik", {{{2, 1, 2, 3}, a}, {{3, 3, 2}, b}}, Shape({2, 3, 2, 2})),
            (std::vector<float>{4, 7,  4, 1,   7,  -5, 1,   -2, -5, 3,  -2, 0,
                                4, -5, 4, -11, -5, 1,  -11, 4,  1,  -3, 4,  -6}));
  // A summed label of size 1 against size 3 broadcasts, as in numpy.
  EXPECT_EQ(Einsum("ij,jk->ik", {{{2, 1}, {2, 3}}, {{3, 4}, Seq(12, 0, 0)}}, Shape({2, 4})),
            (std::vector<float>{24, 30, 36, 42, 36, 45, 54, 63}));
}

TEST(LinalgEinsum, IntegerHalfAndDoubleTypes) {
  auto i8 = NodeTest("Einsum", 12)
                .Attr("equation", "i,i")
                .Input<int8_t>({2}, {100, 100})
                .Input<int8_t>({2}, {2, 1})
                .Run();
  EXPECT_EQ(Values<int8_t>(*i8[0]), (std::vector<int8_t>{44}));  // 300 wraps
  auto i64 = NodeTest("Einsum", 12)
                 .Attr("equation", "ij,jk->ik")
                 .Input<int64_t>({2, 3}, Seq<int64_t>(6, 0, -2))
                 .Input<int64_t>({3, 4}, Seq<int64_t>(12, 5, -1))
                 .Run();
  EXPECT_EQ(Values<int64_t>(*i64[0]), (std::vector<int64_t>{-1, 1, -2, -5, 11, 7, -2, 4}));
  auto u16 =
      NodeTest("Einsum", 12).Attr("equation", "ij->j").Input<uint16_t>({2, 1}, {65535, 2}).Run();
  EXPECT_EQ(Values<uint16_t>(*u16[0]), (std::vector<uint16_t>{1}));
  std::vector<Float16> h = {Float16::FromFloat(0.5f), Float16::FromFloat(2)};
  auto f16 = NodeTest("Einsum", 12).Attr("equation", "i->").Input<Float16>({2}, h).Run();
  EXPECT_EQ(Values<Float16>(*f16[0])[0].ToFloat(), 2.5f);
  auto d = NodeTest("Einsum", 23)
               .Attr("equation", "ij,ij->i")
               .Input<double>({2, 2}, {1, 2, 3, 4})
               .Input<double>({2, 2}, {0.5, 0.25, 2, 1})
               .Run();
  EXPECT_EQ(Values<double>(*d[0]), (std::vector<double>{1, 10}));
}

TEST(LinalgEinsum, EmptyDimensions) {
  EXPECT_EQ(Einsum("ij,jk->ik", {{{2, 0}, {}}, {{0, 3}, {}}}, Shape({2, 3})),
            (std::vector<float>(6, 0.0f)));
  EXPECT_EQ(Einsum("ij,jk->ik", {{{0, 2}, {}}, {{2, 3}, Seq(6, 0, 0)}}, Shape({0, 3})),
            (std::vector<float>{}));
}

TEST(LinalgEinsum, HugeEmptyOperands) {
  const int64_t big = int64_t{1} << 40;
  ExpectError(NodeTest("Einsum", 12)
                  .Attr("equation", "ij,jk->ik")
                  .Input<float>({big, 0}, {})
                  .Input<float>({0, big}, {}),
              ErrorCode::kInvalidArgument, "Einsum",
              "an intermediate result of shape [1099511627776,1099511627776] is too large");
  EXPECT_EQ(Einsum("ij->", {{{0, big}, {}}}, Shape(std::vector<int64_t>{})),
            (std::vector<float>{0}));
  EXPECT_EQ(Einsum("ijk->k", {{{big, big, 0}, {}}}, Shape({0})), (std::vector<float>{}));
}

TEST(LinalgEinsum, RejectsBadEquations) {
  auto einsum = [](const std::string& equation) {
    NodeTest t("Einsum", 12);
    t.Attr("equation", equation).Input<float>({2, 3}, A()).Input<float>({3, 4}, B());
    return t;
  };
  ExpectError(einsum("ij,jk->i-k"), ErrorCode::kInvalidArgument, "Einsum",
              "equation 'ij,jk->i-k': unexpected character '-'");
  ExpectError(einsum("ij,j.k"), ErrorCode::kInvalidArgument, "Einsum", "part of \"...\"");
  ExpectError(einsum("...i...,jk"), ErrorCode::kInvalidArgument, "Einsum", "more than one \"...\"");
  ExpectError(einsum("ij->i->j"), ErrorCode::kInvalidArgument, "Einsum", "more than one \"->\"");
  ExpectError(einsum("ij"), ErrorCode::kInvalidArgument, "Einsum", "1 terms for 2 inputs");
  ExpectError(einsum("ij,jk->iz"), ErrorCode::kInvalidArgument, "Einsum",
              "output label 'z' is in no input");
  ExpectError(einsum("ij,jk->ii"), ErrorCode::kInvalidArgument, "Einsum",
              "output label 'i' is repeated");
  ExpectError(einsum("ijk,jk"), ErrorCode::kInvalidArgument, "Einsum",
              "input 0 has rank 2 but its term has 3 letters");
  ExpectError(einsum("ij,ik"), ErrorCode::kInvalidArgument, "Einsum",
              "label 'i' has size 3 in input 1 but 2 before, and neither is 1");
  ExpectError(NodeTest("Einsum", 12).Attr("equation", "ii").Input<float>({2, 3}, A()),
              ErrorCode::kInvalidArgument, "Einsum",
              "label 'i' repeats in input 0 with sizes 2 and 3");
  ExpectError(NodeTest("Einsum", 12).Attr("equation", "...ij->ij").Input<float>({1, 2, 3}, A()),
              ErrorCode::kInvalidArgument, "Einsum", "the output has no \"...\"");
  ExpectError(NodeTest("Einsum", 12).Input<float>({2, 3}, A()), ErrorCode::kInvalidArgument,
              "Einsum", "attribute 'equation' is required");
  ExpectError(
      NodeTest("Einsum", 12).Attr("equation", "i,i").Input<float>({1}, {1}).Input<double>({1}, {1}),
      ErrorCode::kInvalidArgument, "Einsum", "input 1 is double but input 0 is float");
  ExpectError(NodeTest("Einsum", 12).Attr("equation", "i").Input<bool>({1}, {true}),
              ErrorCode::kNotImplemented, "Einsum", "bool");
}

}  // namespace
}  // namespace kiln::testing
