// ai.kiln BlockedMatMul: a weight stored as column blocks (the last one narrower), leading
// dimensions of A as rows, the bias, one and two threads (whole blocks per thread, or each block
// split), and the attribute, shape and type errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::testing {
namespace {

// B (k × n) laid out as column blocks of `width`.
std::vector<float> Blocked(const std::vector<float>& b, int64_t k, int64_t n, int64_t width) {
  std::vector<float> out;
  for (int64_t j0 = 0; j0 < n; j0 += width) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t c = j0; c < std::min(n, j0 + width); ++c) out.push_back(b[p * n + c]);
    }
  }
  return out;
}

void ExpectProduct(int64_t m, int64_t k, int64_t n, int64_t width, bool bias, int threads) {
  const std::vector<float> a = IntegerValues<float>(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = IntegerValues<float>(static_cast<size_t>(k * n), 2);
  const std::vector<float> c = IntegerValues<float>(static_cast<size_t>(n), 3);
  NodeTest test("BlockedMatMul", 1, "ai.kiln");
  test.Attr("block", width)
      .Input<float>({1, m, k}, a)
      .Input<float>({k, n}, Blocked(b, k, n, width), true);
  if (bias) test.Input<float>({n}, c, true);
  auto out = test.Run(threads);
  ASSERT_EQ(out[0]->shape(), Shape({1, m, n}));
  const std::vector<float> y = Values<float>(*out[0]);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float want = bias ? c[j] : 0.0f;
      for (int64_t p = 0; p < k; ++p) want += a[i * k + p] * b[p * n + j];
      ASSERT_EQ(y[i * n + j], want) << "row " << i << " column " << j << " (block " << width << ", "
                                    << threads << " threads)";
    }
  }
}

TEST(BlockedMatMul, MultipliesByColumnBlocks) {
  for (int threads : {1, 2}) {
    ExpectProduct(40, 24, 100, 32, false, threads);  // 4 blocks, the last 4 wide
    ExpectProduct(40, 24, 100, 32, true, threads);
    ExpectProduct(33, 17, 64, 32, true, threads);   // 2 blocks: one per thread
    ExpectProduct(5, 300, 48, 48, false, threads);  // one block, split over the threads
  }
}

TEST(BlockedMatMul, RejectsBadAttributesShapesAndTypes) {
  ExpectError(NodeTest("BlockedMatMul", 1, "ai.kiln")
                  .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                  .Input<float>({3, 1}, {1, 2, 3}),
              ErrorCode::kInvalidArgument, "BlockedMatMul", "attribute 'block' is 0");
  ExpectError(NodeTest("BlockedMatMul", 1, "ai.kiln")
                  .Attr("block", int64_t{16})
                  .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                  .Input<float>({2, 1}, {1, 2}),
              ErrorCode::kInvalidArgument, "BlockedMatMul", "B must be [K, N]");
  ExpectError(NodeTest("BlockedMatMul", 1, "ai.kiln")
                  .Attr("block", int64_t{16})
                  .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                  .Input<float>({3, 1}, {1, 2, 3})
                  .Input<float>({2}, {1, 2}),
              ErrorCode::kInvalidArgument, "BlockedMatMul", "input 'bias' has shape [2]");
  ExpectError(NodeTest("BlockedMatMul", 1, "ai.kiln")
                  .Attr("block", int64_t{16})
                  .Input<double>({1, 1}, {1})
                  .Input<float>({1, 1}, {1}),
              ErrorCode::kInvalidArgument, "BlockedMatMul", "input 'A' is double");
}

}  // namespace
}  // namespace kiln::testing
