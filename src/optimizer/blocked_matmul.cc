// Level 2: products against a constant weight become ai.kiln BlockedMatMul
// (kernels/cpu/linalg/blocked_matmul.cc), with the weight rewritten once as column blocks of 32,
// each a contiguous row-major [K, width] matrix: the panel layout of cpu::PackedGemm, which the
// kernel then reads in place, so that a run neither re-packs the weight nor allocates (plain
// MatMul/Gemm go through cpu::Gemm, which packs B on every call):
//
//   MatMul(A, W [K, N])
//   Gemm(A, W, c), transA = 0, alpha = 1    W [K, N] or (transB = 1) [N, K]; c absent or a
//                                           constant [N] with beta = 1
//
// A must have rank 2 or more for MatMul (a 1-D A drops a dimension) and its last dimension
// known; when all its other dimensions are known too, at least 2 rows (matrix-vector products
// stream the weight once whatever its layout, and oneDNN's kernels for them allocate nothing).
// Rows unknown until run time (a free batch or sequence length) are blocked, so that such a
// model's products do not pack their weight on every call either. The weight must be a float
// initializer read only by this node; the replaced one is freed at once, so at most one extra
// weight is alive while the pass runs.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr int64_t kBlock = 32;   // cpu::kPackedPanel
constexpr int64_t kMinRows = 2;  // A's rows (all its dimensions but the last)

// The weight [K, N] (or [N, K] when `transposed`) as column blocks of `width`.
std::shared_ptr<Tensor> Blocked(const Tensor& w, bool transposed, int64_t width) {
  const int64_t k = w.shape().dims()[transposed ? 1 : 0];
  const int64_t n = w.shape().dims()[transposed ? 0 : 1];
  std::shared_ptr<Tensor> out =
      Tensor::AllocateForOverwrite(DataType::kFloat, Shape({k, n}), CpuAllocator());
  const auto* src = static_cast<const float*>(w.data());
  auto* dst = static_cast<float*>(out->data());
  for (int64_t j0 = 0; j0 < n; j0 += width) {
    const int64_t cols = std::min(width, n - j0);
    float* block = dst + j0 * k;
    if (!transposed) {
      for (int64_t p = 0; p < k; ++p) {
        std::copy_n(src + p * n + j0, cols, block + p * cols);
      }
      continue;
    }
    // W is [N, K]: 16×16 tiles, so that neither side is walked with a large stride for long.
    constexpr int64_t kTile = 16;
    for (int64_t p0 = 0; p0 < k; p0 += kTile) {
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c) {
          const float* row = src + (j0 + c) * k;
          for (int64_t p = p0; p < std::min(k, p0 + kTile); ++p) block[p * cols + c] = row[p];
        }
      }
    }
  }
  return out;
}

bool IsFloatAttr(const ir::Node* n, const std::string& name, float want) {
  const ir::Attribute* a = n->FindAttribute(name);
  return a == nullptr || (a->type == ir::AttrType::kFloat && a->f == want);
}

bool RewriteOne(PassContext& ctx, ir::Node* node) {
  ir::Graph& g = ctx.graph;
  const bool gemm = IsOp(node, "Gemm");
  if ((!gemm && !IsOp(node, "MatMul")) || !HasRequiredInputs(node, 2) ||
      node->outputs().size() != 1) {
    return false;
  }
  ir::Value* a = node->inputs()[0];
  ir::Value* w = node->inputs()[1];
  const Tensor* wt = ConstantOf(w);
  if (wt == nullptr || wt->type() != DataType::kFloat || wt->shape().rank() != 2 ||
      wt->element_count() == 0 || OnlyConsumer(g, w) != node || ConstantOf(a) != nullptr) {
    return false;
  }
  // Before opset 11 C is required, and before 7 it must be [M, N] unless broadcast is set.
  if (gemm && node->opset() < 11) return false;
  const infer::TensorFacts& fa = ctx.Facts(a);
  if (fa.type != DataType::kFloat || !fa.shape || fa.shape->rank() < 2 ||
      fa.shape->dims().back() < 0) {
    return false;
  }
  // Rows of the product, when known: enough that it is not a matrix-vector product (those stream
  // the weight once in either layout, and a transposed one is the better for them).
  int64_t rows = 1;
  bool rows_known = true;
  for (size_t i = 0; i + 1 < fa.shape->rank(); ++i) {
    if (fa.shape->dims()[i] < 0) rows_known = false;
    rows *= std::max<int64_t>(fa.shape->dims()[i], 1);
  }
  if (rows_known && rows < kMinRows) return false;
  bool transposed = false;
  ir::Value* bias = nullptr;
  if (gemm) {
    transposed = IntAttrOf(node, "transB", 0) != 0;
    if (IntAttrOf(node, "transA", 0) != 0 || !IsFloatAttr(node, "alpha", 1.0f) ||
        fa.shape->rank() != 2 || node->FindAttribute("broadcast") != nullptr) {
      return false;
    }
    if (node->inputs().size() > 2 && node->inputs()[2] != nullptr) {
      bias = node->inputs()[2];
      const Tensor* c = ConstantOf(bias);
      const int64_t n = wt->shape().dims()[transposed ? 0 : 1];
      if (c == nullptr || c->type() != DataType::kFloat || c->shape().rank() != 1 ||
          c->shape().dims()[0] != n || !IsFloatAttr(node, "beta", 1.0f)) {
        return false;
      }
    }
  }
  const int64_t k = wt->shape().dims()[transposed ? 1 : 0];
  if (fa.shape->dims().back() != k) return false;
  ir::Value* blocked = AddConstant(g, w->name() + "_blocked", Blocked(*wt, transposed, kBlock));
  std::vector<ir::Value*> inputs = {a, blocked};
  if (bias != nullptr) inputs.push_back(bias);
  Replace(g, {node}, "BlockedMatMul", kKilnDomain, 1, std::move(inputs), {node->outputs()[0]},
          {IntAttr("block", kBlock)});
  // The original weight is read by nothing now: free it before the next rewrite makes a copy.
  EliminateDeadCode(ctx);
  return true;
}

}  // namespace

size_t BlockMatMulWeights(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "BlockedMatMul")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return RewriteOne(ctx, n); });
}

}  // namespace kiln::optimizer
