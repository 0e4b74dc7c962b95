#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/tensor/transpose_blocks.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(TensorTranspose, Permutes) {
  auto out =
      NodeTest("Transpose", 13).Attr("perm", I64{1, 0, 2}).Input<float>({2, 3, 4}, Iota(24)).Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 2, 4}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0,  1,  2,  3,  12, 13, 14, 15, 4,  5,  6,  7,
                                16, 17, 18, 19, 8,  9,  10, 11, 20, 21, 22, 23}));
}

TEST(TensorTranspose, DefaultReversesAxesInParallel) {
  auto out = NodeTest("Transpose", 1).Input<float>({2, 3, 4}, Iota(24)).Run(3);
  EXPECT_EQ(out[0]->shape(), Shape({4, 3, 2}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0, 12, 4, 16, 8,  20, 1, 13, 5, 17, 9,  21,
                                2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}));
}

TEST(TensorTranspose, StringsAndScalars) {
  auto s = NodeTest("Transpose", 21).Input<std::string>({2, 1}, {"a", "b"}).Run();
  EXPECT_EQ(s[0]->shape(), Shape({1, 2}));
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"a", "b"}));
  auto scalar = NodeTest("Transpose", 13).Input<int8_t>({}, {5}).Run();
  EXPECT_EQ(Values<int8_t>(*scalar[0]), (std::vector<int8_t>{5}));
}

TEST(TensorTranspose, Float16AndEmpty) {
  auto h = NodeTest("Transpose", 13)
               .Input<Float16>({1, 2}, {Float16::FromFloat(1.5f), Float16::FromFloat(-2)})
               .Run();
  EXPECT_EQ(h[0]->shape(), Shape({2, 1}));
  EXPECT_FLOAT_EQ(Values<Float16>(*h[0])[1].ToFloat(), -2.0f);
  EXPECT_EQ(NodeTest("Transpose", 13).Input<float>({0, 3}, {}).Run()[0]->shape(), Shape({3, 0}));
}

TEST(TensorTranspose, BadPerm) {
  auto x = MakeTensor<float>({2, 3}, Iota(6));
  ExpectNodeError(NodeTest("Transpose", 13).Attr("perm", I64{0}).Input(x),
                  ErrorCode::kInvalidArgument, "perm [0]");
  ExpectNodeError(NodeTest("Transpose", 13).Attr("perm", I64{0, 0}).Input(x),
                  ErrorCode::kInvalidArgument, "not a permutation");
  ExpectNodeError(NodeTest("Transpose", 13).Attr("perm", I64{0, 2}).Input(x),
                  ErrorCode::kInvalidArgument, "not a permutation");
}

TEST(TensorTranspose, SubByteTypesAreNotImplemented) {
  auto t = Tensor::Allocate(DataType::kInt4, Shape({2}), CpuAllocator());
  ExpectNodeError(NodeTest("Transpose", 21).Input(std::shared_ptr<const Tensor>(std::move(t))),
                  ErrorCode::kNotImplemented, "int4");
}

TEST(TensorDepthToSpace, DcrAndCrd) {
  auto x = MakeTensor<float>({1, 8, 1, 2}, Iota(16));
  auto dcr = NodeTest("DepthToSpace", 13).Attr("blocksize", int64_t{2}).Input(x).Run();
  EXPECT_EQ(dcr[0]->shape(), Shape({1, 2, 2, 4}));
  EXPECT_EQ(Values<float>(*dcr[0]),
            (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  auto crd =
      NodeTest("DepthToSpace", 11).Attr("blocksize", int64_t{2}).Attr("mode", "CRD").Input(x).Run();
  EXPECT_EQ(Values<float>(*crd[0]),
            (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  // Before opset 11 there is no mode: always DCR.
  auto v1 = NodeTest("DepthToSpace", 1).Attr("blocksize", int64_t{2}).Input(x).Run();
  EXPECT_EQ(Values<float>(*v1[0]), Values<float>(*dcr[0]));
}

TEST(TensorDepthToSpace, Errors) {
  auto x = MakeTensor<float>({1, 6, 1, 1}, Iota(6));
  ExpectNodeError(NodeTest("DepthToSpace", 13).Attr("blocksize", int64_t{2}).Input(x),
                  ErrorCode::kInvalidArgument, "not divisible");
  ExpectNodeError(NodeTest("DepthToSpace", 13).Attr("blocksize", int64_t{0}).Input(x),
                  ErrorCode::kInvalidArgument, "blocksize");
  ExpectNodeError(NodeTest("DepthToSpace", 13).Input(x), ErrorCode::kInvalidGraph, "blocksize");
  ExpectNodeError(
      NodeTest("DepthToSpace", 13).Attr("blocksize", int64_t{1}).Attr("mode", "XYZ").Input(x),
      ErrorCode::kInvalidArgument, "mode 'XYZ'");
  ExpectNodeError(
      NodeTest("DepthToSpace", 13).Attr("blocksize", int64_t{1}).Input<float>({6}, Iota(6)),
      ErrorCode::kInvalidArgument, "rank 4");
}

TEST(TensorSpaceToDepth, MovesBlocksToChannels) {
  auto out = NodeTest("SpaceToDepth", 13)
                 .Attr("blocksize", int64_t{2})
                 .Input<float>({1, 1, 4, 4}, Iota(16))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 4, 2, 2}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
  ExpectNodeError(NodeTest("SpaceToDepth", 1)
                      .Attr("blocksize", int64_t{3})
                      .Input<float>({1, 1, 4, 4}, Iota(16)),
                  ErrorCode::kInvalidArgument, "not divisible by blocksize 3");
}

TEST(TensorTranspose, LargeParallelMatchesNaive) {
  const int64_t a = 7, b = 300, c = 13;
  std::vector<float> x(static_cast<size_t>(a * b * c));
  std::iota(x.begin(), x.end(), 0.0f);
  auto out = NodeTest("Transpose", 13)
                 .Attr("perm", std::vector<int64_t>{2, 0, 1})
                 .Input<float>({a, b, c}, x)
                 .Run(4);
  ASSERT_EQ(out[0]->shape(), Shape({c, a, b}));
  const std::vector<float> y = Values<float>(*out[0]);
  for (int64_t k = 0; k < c; ++k) {
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < b; ++j) {
        ASSERT_EQ(y[static_cast<size_t>((k * a + i) * b + j)],
                  x[static_cast<size_t>((i * b + j) * c + k)]);
      }
    }
  }
}

// y[out index] = x[in index] by the definition, for the given shape and perm.
std::vector<float> NaiveTranspose(const std::vector<float>& x, const I64& shape, const I64& perm) {
  const size_t rank = shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * shape[d];
  std::vector<float> y(x.size());
  std::vector<int64_t> index(rank, 0);  // over the output's dims
  for (float& out : y) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) at += index[d] * in_strides[static_cast<size_t>(perm[d])];
    out = x[static_cast<size_t>(at)];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[static_cast<size_t>(perm[d])]) break;
      index[d] = 0;
    }
  }
  return y;
}

// Permutations that collapse to a tiled 2-D or batched transpose (NCHW to NHWC and back, size-1
// axes anywhere, tiles cut at 32 with ragged edges, the vectorized 2-4 row path), to a plain copy,
// and ones that do not collapse (the strided path), at 1 and 3 threads, against the definition;
// in float, uint8 and int16; strings take the tiled path too.
TEST(TensorTranspose, CollapsedPermutationsMatchTheDefinition) {
  const std::vector<std::pair<I64, I64>> cases = {
      {{2, 3, 5, 7}, {0, 2, 3, 1}},        // NCHW -> NHWC: 2 × [3, 35] transposed
      {{2, 5, 7, 3}, {0, 3, 1, 2}},        // and back
      {{1, 3, 40, 41}, {0, 2, 3, 1}},      // one image, more than one tile of pixels
      {{1, 2, 70, 65}, {0, 2, 3, 1}},      // 2 rows, 4550 columns: two column chunks
      {{4, 9}, {1, 0}},                    // 4 rows
      {{70, 45}, {1, 0}},                  // a matrix, ragged 32-tiles both ways
      {{1, 4, 1, 33}, {3, 1, 0, 2}},       // size-1 axes dropped: [4, 33] transposed
      {{2, 1, 3}, {1, 0, 2}},              // only a size-1 axis moves: a copy
      {{3, 4, 5, 6}, {0, 1, 2, 3}},        // identity
      {{2, 3, 4, 5, 2}, {4, 2, 0, 3, 1}},  // does not collapse
      {{6, 5, 4}, {2, 1, 0}},              // reversal: three runs
  };
  for (const auto& [shape, perm] : cases) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const std::vector<float> x = Iota(static_cast<size_t>(n));
    const std::vector<float> want = NaiveTranspose(x, shape, perm);
    I64 out_shape;
    for (int64_t p : perm) out_shape.push_back(shape[static_cast<size_t>(p)]);
    for (int threads : {1, 3}) {
      auto out = NodeTest("Transpose", 13).Attr("perm", perm).Input<float>(shape, x).Run(threads);
      ASSERT_EQ(out[0]->shape(), Shape(out_shape));
      EXPECT_EQ(Values<float>(*out[0]), want) << "perm of " << ::testing::PrintToString(shape);
    }
    // One- and two-byte elements (the narrow path is taken by every arithmetic type): values
    // that fit them, through the same definition.
    std::vector<float> small(x.size());
    for (size_t i = 0; i < x.size(); ++i) small[i] = static_cast<float>(i * 7 % 251);
    const std::vector<float> want_small = NaiveTranspose(small, shape, perm);
    const std::vector<uint8_t> x8(small.begin(), small.end());
    const std::vector<int16_t> x16(small.begin(), small.end());
    for (int threads : {1, 3}) {
      auto out8 =
          NodeTest("Transpose", 13).Attr("perm", perm).Input<uint8_t>(shape, x8).Run(threads);
      EXPECT_EQ(Values<uint8_t>(*out8[0]),
                std::vector<uint8_t>(want_small.begin(), want_small.end()))
          << "uint8 perm of " << ::testing::PrintToString(shape);
      auto out16 =
          NodeTest("Transpose", 13).Attr("perm", perm).Input<int16_t>(shape, x16).Run(threads);
      EXPECT_EQ(Values<int16_t>(*out16[0]),
                std::vector<int16_t>(want_small.begin(), want_small.end()))
          << "int16 perm of " << ::testing::PrintToString(shape);
    }
  }
  std::vector<std::string> s(size_t{3} * 35);
  for (size_t i = 0; i < s.size(); ++i) s[i] = "s" + std::to_string(i);
  auto out = NodeTest("Transpose", 13)
                 .Attr("perm", I64{0, 2, 3, 1})
                 .Input<std::string>({1, 3, 5, 7}, s)
                 .Run();
  const std::vector<std::string> y = Values<std::string>(*out[0]);
  ASSERT_EQ(y.size(), s.size());
  for (size_t pixel = 0; pixel < 35; ++pixel) {
    for (size_t c = 0; c < 3; ++c) ASSERT_EQ(y[pixel * 3 + c], s[c * 35 + pixel]);
  }
}

// 4-byte elements by 16 × 16 blocks transposed in registers (where the machine runs AVX-512) and
// element by element: ragged blocks and 64-tiles both ways, fewer rows or columns than a block,
// a batch, a 4 KB row stride, 1 and 3 threads; int32 bit patterns that are NaNs as floats (a
// block moves bits, never arithmetic) and floats against the definition.
TEST(TensorTranspose, FourByteBlocksMatchTheDefinition) {
  const std::vector<std::pair<I64, I64>> cases = {
      {{1, 17, 19, 33}, {0, 2, 3, 1}},  // NCHW -> NHWC: [17, 627], ragged blocks
      {{1, 19, 33, 17}, {0, 3, 1, 2}},  // NHWC -> NCHW: [627, 17]
      {{3, 70, 130}, {0, 2, 1}},        // a batch of 3, ragged 64-tiles both ways
      {{5, 200}, {1, 0}},               // 5 rows: part of a block
      {{200, 5}, {1, 0}},               // 5 columns
      {{48, 64}, {1, 0}},               // whole blocks only
      {{64, 1024}, {1, 0}},             // rows 4 KB apart
  };
  // Each way the tiles can go: 16 x 16 register blocks, 8 x 8 ones, element by element (on a
  // machine without AVX-512, or AVX2, the first ways fall back to the next).
  for (int way = 0; way < 3; ++way) {
    SCOPED_TRACE(way == 0 ? "AVX-512 blocks" : way == 1 ? "AVX2 blocks" : "element by element");
    const cpu::ScopedVectorMathAvx512 scoped(way == 0);
    const bool blocks_before = cpu::AllowTransposeBlocksForTesting(way < 2);
    struct Restore {
      bool before;
      ~Restore() { cpu::AllowTransposeBlocksForTesting(before); }
    } restore{blocks_before};
    for (const auto& [shape, perm] : cases) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      I64 out_shape;
      for (int64_t p : perm) out_shape.push_back(shape[static_cast<size_t>(p)]);
      std::vector<float> x(static_cast<size_t>(n));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f - 3.0f;
      const std::vector<float> want = NaiveTranspose(x, shape, perm);
      // The same positions as int32: every other one a NaN's bit pattern, with its payload.
      std::vector<int32_t> xi(x.size());
      std::vector<int32_t> want_i(x.size());
      for (size_t i = 0; i < x.size(); ++i)
        xi[i] = i % 2 == 0 ? 0x7FC00000 + static_cast<int32_t>(i) : -static_cast<int32_t>(i);
      {
        std::vector<float> as_float(x.size());
        std::memcpy(as_float.data(), xi.data(), xi.size() * sizeof(int32_t));
        const std::vector<float> moved = NaiveTranspose(as_float, shape, perm);
        std::memcpy(want_i.data(), moved.data(), moved.size() * sizeof(int32_t));
      }
      for (int threads : {1, 3}) {
        auto out = NodeTest("Transpose", 13).Attr("perm", perm).Input<float>(shape, x).Run(threads);
        ASSERT_EQ(out[0]->shape(), Shape(out_shape));
        EXPECT_EQ(Values<float>(*out[0]), want) << "perm of " << ::testing::PrintToString(shape);
        auto out_i =
            NodeTest("Transpose", 13).Attr("perm", perm).Input<int32_t>(shape, xi).Run(threads);
        EXPECT_EQ(Values<int32_t>(*out_i[0]), want_i)
            << "int32 perm of " << ::testing::PrintToString(shape);
      }
    }
  }
}

}  // namespace
}  // namespace kiln::testing
