// MatMul: numpy.matmul promotion of 1-D operands, batch broadcasting, the single-matrix B that
// folds A's batches into rows, every element type, empty operands and the shape and type errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::testing {
namespace {

TEST(LinalgMatMul, MultipliesMatrices) {
  auto out = NodeTest("MatMul", 13)
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<float>({3, 2}, {7, 8, 9, 10, 11, 12})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{58, 64, 139, 154}));
}

TEST(LinalgMatMul, PromotesVectorsAndDropsTheAddedDimension) {
  auto row = NodeTest("MatMul", 13)
                 .Input<float>({3}, {1, 2, 3})
                 .Input<float>({3, 2}, {7, 8, 9, 10, 11, 12})
                 .Run();
  EXPECT_EQ(row[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<float>(*row[0]), (std::vector<float>{58, 64}));

  auto col = NodeTest("MatMul", 13)
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<float>({3}, {1, 0, -1})
                 .Run();
  EXPECT_EQ(col[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<float>(*col[0]), (std::vector<float>{-2, -2}));

  auto dot =
      NodeTest("MatMul", 1).Input<double>({3}, {1, 2, 3}).Input<double>({3}, {4, 5, 6}).Run();
  EXPECT_EQ(dot[0]->shape(), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(Values<double>(*dot[0]), (std::vector<double>{32}));

  // A vector against a batch of matrices: [3] x [2,3,2] -> [2,2].
  auto batched = NodeTest("MatMul", 13)
                     .Input<float>({3}, {1, 1, 1})
                     .Input<float>({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
                     .Run();
  EXPECT_EQ(batched[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*batched[0]), (std::vector<float>{6, 9, 24, 27}));
}

TEST(LinalgMatMul, BroadcastsBatchDimensions) {
  // numpy: (np.arange(12).reshape(2,1,2,3) - 5) @ (np.arange(18).reshape(3,3,2) % 5 - 2)
  std::vector<float> a(12), b(18);
  for (int i = 0; i < 12; ++i) a[static_cast<size_t>(i)] = static_cast<float>(i - 5);
  for (int i = 0; i < 18; ++i) b[static_cast<size_t>(i)] = static_cast<float>(i % 5 - 2);
  auto out = NodeTest("MatMul", 13).Input<float>({2, 1, 2, 3}, a).Input<float>({3, 3, 2}, b).Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({2, 3, 2, 2}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{4, 7,  4, 1,   7,  -5, 1,   -2, -5, 3,  -2, 0,
                                4, -5, 4, -11, -5, 1,  -11, 4,  1,  -3, 4,  -6}));
}

TEST(LinalgMatMul, BatchedAAgainstOneMatrixAndTheReverse) {
  std::vector<int64_t> a(12);
  for (int i = 0; i < 12; ++i) a[static_cast<size_t>(i)] = i - 4;
  auto folded = NodeTest("MatMul", 13)
                    .Input<int64_t>({2, 2, 3}, a)
                    .Input<int64_t>({3, 2}, {1, -2, 0, 3, 2, 1})
                    .Run();
  EXPECT_EQ(folded[0]->shape(), Shape({2, 2, 2}));
  EXPECT_EQ(Values<int64_t>(*folded[0]), (std::vector<int64_t>{-8, -3, 1, 3, 10, 9, 19, 15}));

  std::vector<int32_t> b(12);
  for (int i = 0; i < 12; ++i) b[static_cast<size_t>(i)] = i - 3;
  auto spread = NodeTest("MatMul", 13)
                    .Input<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})
                    .Input<int32_t>({2, 3, 2}, b)
                    .Run();
  EXPECT_EQ(spread[0]->shape(), Shape({2, 2, 2}));
  EXPECT_EQ(Values<int32_t>(*spread[0]), (std::vector<int32_t>{-2, 4, -11, 4, 34, 40, 79, 94}));
}

TEST(LinalgMatMul, LargerProductMatchesANaiveLoop) {
  const int64_t batch = 3, m = 17, k = 33, n = 19;
  std::vector<float> a(static_cast<size_t>(batch * m * k)), b(static_cast<size_t>(batch * k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.1f * static_cast<float>(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.07f * static_cast<float>(i));
  auto out =
      NodeTest("MatMul", 13).Input<float>({batch, m, k}, a).Input<float>({batch, k, n}, b).Run(3);
  const std::vector<float> y = Values<float>(*out[0]);
  for (int64_t t = 0; t < batch; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += double{a[static_cast<size_t>((t * m + i) * k + p)]} *
                 double{b[static_cast<size_t>((t * k + p) * n + j)]};
        }
        EXPECT_NEAR(y[static_cast<size_t>((t * m + i) * n + j)], sum, 1e-4);
      }
    }
  }
}

TEST(LinalgMatMul, IntegerTypesWrapOnOverflow) {
  auto i32 = NodeTest("MatMul", 13)
                 .Input<int32_t>({1, 2}, {65536, 2147483647})
                 .Input<int32_t>({2, 1}, {65536, 2})
                 .Run();
  // 2^32 wraps to 0; 2·(2^31 − 1) wraps to −2.
  EXPECT_EQ(Values<int32_t>(*i32[0]), (std::vector<int32_t>{-2}));

  auto u32 = NodeTest("MatMul", 9)
                 .Input<uint32_t>({1, 2}, {4294967295u, 3})
                 .Input<uint32_t>({2, 1}, {2, 5})
                 .Run();
  EXPECT_EQ(Values<uint32_t>(*u32[0]), (std::vector<uint32_t>{13}));  // 2^33 − 2 + 15 mod 2^32

  auto u64 = NodeTest("MatMul", 9)
                 .Input<uint64_t>({2, 2}, {1, 2, 3, 4})
                 .Input<uint64_t>({2, 2}, {5, 6, 7, 8})
                 .Run();
  EXPECT_EQ(Values<uint64_t>(*u64[0]), (std::vector<uint64_t>{19, 22, 43, 50}));
}

TEST(LinalgMatMul, HalfTypesComputeThroughFloat) {
  auto h = [](const std::vector<float>& v) {
    std::vector<Float16> out;
    out.reserve(v.size());
    for (float f : v) out.push_back(Float16::FromFloat(f));
    return out;
  };
  auto out = NodeTest("MatMul", 13)
                 .Input<Float16>({2, 2}, h({1.5f, 2, -1, 0.25f}))
                 .Input<Float16>({2, 1}, h({2, 4}))
                 .Run();
  const std::vector<Float16> y = Values<Float16>(*out[0]);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0].ToFloat(), 11.0f);
  EXPECT_EQ(y[1].ToFloat(), -1.0f);

  std::vector<BFloat16> a = {BFloat16::FromFloat(3), BFloat16::FromFloat(-2)};
  std::vector<BFloat16> b = {BFloat16::FromFloat(0.5f), BFloat16::FromFloat(8)};
  auto bf = NodeTest("MatMul", 13).Input<BFloat16>({2}, a).Input<BFloat16>({2}, b).Run();
  EXPECT_EQ(Values<BFloat16>(*bf[0])[0].ToFloat(), -14.5f);
}

TEST(LinalgMatMul, EmptyDimensions) {
  auto zero_depth = NodeTest("MatMul", 13).Input<float>({2, 0}, {}).Input<float>({0, 3}, {}).Run();
  EXPECT_EQ(zero_depth[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*zero_depth[0]), (std::vector<float>(6, 0.0f)));

  auto no_rows = NodeTest("MatMul", 13)
                     .Input<float>({0, 3}, {})
                     .Input<float>({3, 2}, {1, 2, 3, 4, 5, 6})
                     .Run();
  EXPECT_EQ(no_rows[0]->shape(), Shape({0, 2}));

  auto no_batch = NodeTest("MatMul", 13)
                      .Input<double>({0, 2, 3}, {})
                      .Input<double>({1, 3, 2}, {1, 2, 3, 4, 5, 6})
                      .Run();
  EXPECT_EQ(no_batch[0]->shape(), Shape({0, 2, 2}));
}

TEST(LinalgMatMul, HugeEmptyOperandsDoNotOverflow) {
  const int64_t big = int64_t{1} << 40;
  // [2^40, 0] x [0, 2^40] would be 2^80 elements: the output allocation refuses it.
  try {
    NodeTest("MatMul", 13).Input<float>({big, 0}, {}).Input<float>({0, big}, {}).Run();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
  }
  // Batch dimensions whose product overflows, with an empty result.
  auto out = NodeTest("MatMul", 13)
                 .Input<float>({big, big, 0, 2}, {})
                 .Input<float>({big, 1, 2, 0}, {})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({big, big, 0, 0}));
}

TEST(LinalgMatMul, RejectsBadShapesAndTypes) {
  ExpectError(NodeTest("MatMul", 13).Input<float>({}, {1}).Input<float>({1}, {1}),
              ErrorCode::kInvalidArgument, "MatMul", "rank 1 or more");
  ExpectError(
      NodeTest("MatMul", 13)
          .Input<float>({2, 3}, std::vector<float>(6))
          .Input<float>({4, 2}, std::vector<float>(8)),
      ErrorCode::kInvalidArgument, "MatMul",
      "input 'A' has shape [2,3] and input 'B' has shape [4,2]: the last dimension of A (3) "
      "must equal the second-to-last dimension of B (4)");
  ExpectError(NodeTest("MatMul", 13)
                  .Input<float>({2, 2, 3}, std::vector<float>(12))
                  .Input<float>({3, 3, 2}, std::vector<float>(18)),
              ErrorCode::kInvalidArgument, "MatMul", "batch dimensions");
  ExpectError(NodeTest("MatMul", 13).Input<float>({1, 1}, {1}).Input<double>({1, 1}, {1}),
              ErrorCode::kInvalidArgument, "MatMul", "input 'A' is float but input 'B' is double");
  ExpectError(NodeTest("MatMul", 13).Input<int8_t>({1, 1}, {1}).Input<int8_t>({1, 1}, {1}),
              ErrorCode::kNotImplemented, "MatMul", "int8");
}

}  // namespace
}  // namespace kiln::testing
