// Level 2: products against a constant weight become ai.kiln BlockedMatMul
// (kernels/cpu/linalg/blocked_matmul.cc), with the weight rewritten once as column blocks of 32,
// each a contiguous row-major [K, width] matrix: the panel layout of cpu::PackedGemm, which the
// kernel then reads in place, so that a run neither re-packs the weight nor allocates (plain
// MatMul/Gemm go through cpu::Gemm, which packs B on every call):
//
//   MatMul(A, W [K, N])
//   Gemm(A, W, c), transA = 0, alpha = 1    W [K, N] or (transB = 1) [N, K]; c absent or a
//                                           constant [N] with beta = 1
//   Add(MatMul(A, W [K, N]), b)             b a constant [N]: the bias of the BlockedMatMul
//
// A known to be 1-D stays a MatMul (a matrix-vector product); when all of A's dimensions but the
// last are known, it needs at least 2 rows (matrix-vector products stream the weight once whatever
// its layout, and oneDNN's kernels for them allocate nothing). Rows unknown until run time (a free
// batch or sequence length) are blocked, so that such a model's products do not pack their weight
// on every call either; so is an A whose rank or last dimension is not known before run time (a
// Reshape to a shape computed from Shape nodes, as exporters write with dynamic axes), since the
// kernel checks that A's last dimension is K as MatMul does, and gives a 1-D A MatMul's [N]. A
// MatMul's bias (an Add of a constant [N], which broadcasts over every row whatever A's shape) is
// taken in where no earlier fusion took it (skip-LayerNorm, bias-GELU, attention all need shapes
// known before run time).
//
// The weight must be a float initializer read only by such products, all reading it the same way
// (plain or transposed): a weight shared by several (layers that share weights) is blocked once
// and read by all of them. The replaced one is freed at once, so at most one extra weight is alive
// while the pass runs.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr int64_t kBlock = 32;   // cpu::kPackedPanel
constexpr int64_t kMinRows = 2;  // A's rows (all its dimensions but the last)

// The [k, n] matrix whose element (p, j) is src[p·ld + j] (or, `transposed`, src[j·ld + p]) as
// column blocks of kBlock.
std::shared_ptr<Tensor> Blocked(const float* src, int64_t ld, int64_t k, int64_t n,
                                bool transposed) {
  std::shared_ptr<Tensor> out =
      Tensor::AllocateForOverwrite(DataType::kFloat, Shape({k, n}), CpuAllocator());
  auto* dst = static_cast<float*>(out->data());
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t cols = std::min(kBlock, n - j0);
    float* block = dst + j0 * k;
    if (!transposed) {
      for (int64_t p = 0; p < k; ++p) {
        std::copy_n(src + p * ld + j0, cols, block + p * cols);
      }
      continue;
    }
    // W is [N, K]: 16×16 tiles, so that neither side is walked with a large stride for long.
    constexpr int64_t kTile = 16;
    for (int64_t p0 = 0; p0 < k; p0 += kTile) {
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c) {
          const float* row = src + (j0 + c) * ld;
          for (int64_t p = p0; p < std::min(k, p0 + kTile); ++p) block[p * cols + c] = row[p];
        }
      }
    }
  }
  return out;
}

// Whether A (a product's left side) suits BlockedMatMul against a [k, N] weight: float, rank 2
// or more, last dimension k, and at least kMinRows rows or rows unknown until run time; a rank or
// a last dimension not known before run time suits too (the kernel checks them).
bool RowsSuit(const PassContext& ctx, const ir::Value* a, int64_t k) {
  const infer::TensorFacts& fa = ctx.Facts(a);
  if (fa.type != DataType::kFloat) return false;
  if (!fa.shape) return true;
  if (fa.shape->rank() < 2 || (fa.shape->dims().back() != k && fa.shape->dims().back() >= 0)) {
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
  return !rows_known || rows >= kMinRows;
}

bool IsFloatAttr(const ir::Node* n, const std::string& name, float want) {
  const ir::Attribute* a = n->FindAttribute(name);
  return a == nullptr || (a->type == ir::AttrType::kFloat && a->f == want);
}

// How one product reads its weight, when it can read it blocked.
struct Product {
  ir::Node* node;
  bool transposed;          // Gemm with transB = 1: W is [N, K]
  ir::Value* bias;          // Gemm's constant C or the constant a MatMul's Add adds, or nullptr
  ir::Node* add = nullptr;  // that Add (replaced with the product), or nullptr
};

bool IsBiasOf(const ir::Value* v, int64_t n) {
  const Tensor* c = ConstantOf(v);
  return c != nullptr && c->type() == DataType::kFloat && c->shape().rank() == 1 &&
         c->shape().dims()[0] == n;
}

// The product `node` as a BlockedMatMul candidate: its weight (input 1) a float initializer,
// checked here except for who else reads it.
std::optional<Product> Candidate(PassContext& ctx, ir::Node* node) {
  const bool gemm = IsOp(node, "Gemm");
  if ((!gemm && !IsOp(node, "MatMul")) || !HasRequiredInputs(node, 2) ||
      node->outputs().size() != 1) {
    return std::nullopt;
  }
  ir::Value* a = node->inputs()[0];
  ir::Value* w = node->inputs()[1];
  const Tensor* wt = ConstantOf(w);
  if (wt == nullptr || wt->type() != DataType::kFloat || wt->shape().rank() != 2 ||
      wt->element_count() == 0 || ConstantOf(a) != nullptr) {
    return std::nullopt;
  }
  // Before opset 11 C is required, and before 7 it must be [M, N] unless broadcast is set.
  if (gemm && node->opset() < 11) return std::nullopt;
  Product p{node, false, nullptr};
  if (gemm) {
    p.transposed = IntAttrOf(node, "transB", 0) != 0;
    const infer::TensorFacts& fa = ctx.Facts(a);
    if (IntAttrOf(node, "transA", 0) != 0 || !IsFloatAttr(node, "alpha", 1.0f) || !fa.shape ||
        fa.shape->rank() != 2 || node->FindAttribute("broadcast") != nullptr) {
      return std::nullopt;
    }
    if (node->inputs().size() > 2 && node->inputs()[2] != nullptr) {
      p.bias = node->inputs()[2];
      if (!IsBiasOf(p.bias, wt->shape().dims()[p.transposed ? 0 : 1]) ||
          !IsFloatAttr(node, "beta", 1.0f)) {
        return std::nullopt;
      }
    }
  } else if (ir::Node* add = OnlyConsumer(ctx.graph, node->outputs()[0]);
             IsOp(add, "Add") && add->opset() >= 7 && add->outputs().size() == 1) {
    // Y + b (or b + Y) with b a constant [N]: from opset 7 Add broadcasts b over Y's rows.
    ir::Value* b = OtherInput(add, node->outputs()[0]);
    if (b != nullptr && b != node->outputs()[0] && IsBiasOf(b, wt->shape().dims()[1])) {
      p.bias = b;
      p.add = add;
    }
  }
  if (!RowsSuit(ctx, a, wt->shape().dims()[p.transposed ? 1 : 0])) return std::nullopt;
  return p;
}

// Blocks the weight of `node` when every reader of it is a candidate reading it the same way
// (one weight shared by several products is blocked once, for all of them).
bool RewriteOne(PassContext& ctx, ir::Node* node) {
  ir::Graph& g = ctx.graph;
  const std::optional<Product> first = Candidate(ctx, node);
  if (!first) return false;
  ir::Value* w = node->inputs()[1];
  if (w->is_outer()) return false;
  for (const ir::Value* out : g.outputs()) {
    if (out == w) return false;
  }
  // Every reader (a node with a subgraph that reads it is not a candidate; a candidate reads it
  // once, as input 1: input 0 is not a constant and C has rank 1).
  std::vector<Product> products;
  for (ir::Node* reader : w->consumers()) {
    const std::optional<Product> p = Candidate(ctx, reader);
    if (!p || reader->inputs()[1] != w || p->transposed != first->transposed) return false;
    products.push_back(*p);
  }
  const Tensor& wt = *ConstantOf(w);
  const int64_t rows = wt.shape().dims()[0];
  const int64_t cols = wt.shape().dims()[1];
  const auto* data = static_cast<const float*>(wt.data());
  ir::Value* blocked = AddConstant(g, w->name() + "_blocked",
                                   first->transposed ? Blocked(data, cols, cols, rows, true)
                                                     : Blocked(data, cols, rows, cols, false));
  for (const Product& p : products) {
    std::vector<ir::Value*> inputs = {p.node->inputs()[0], blocked};
    if (p.bias != nullptr) inputs.push_back(p.bias);
    std::vector<ir::Node*> old = {p.node};
    if (p.add != nullptr) old.push_back(p.add);
    ir::Value* y = (p.add != nullptr ? p.add : p.node)->outputs()[0];
    Replace(g, old, "BlockedMatMul", kKilnDomain, 1, std::move(inputs), {y},
            {IntAttr("block", kBlock)});
  }
  // The original weight is read by nothing now: free it before the next rewrite makes a copy.
  EliminateDeadCode(ctx);
  return true;
}

}  // namespace

ir::Value* ProductOfColumns(PassContext& ctx, ir::Value* x, const ir::Value* w, int64_t c0,
                            int64_t n, const std::string& base) {
  ir::Graph& g = ctx.graph;
  const Tensor& wt = *ConstantOf(w);
  const int64_t k = wt.shape().dims()[0];
  const int64_t ld = wt.shape().dims()[1];
  const float* src = static_cast<const float*>(wt.data()) + c0;
  const bool blocked = ctx.registry.Knows(kKilnDomain, "BlockedMatMul") && RowsSuit(ctx, x, k);
  std::shared_ptr<Tensor> part;
  if (blocked) {
    part = Blocked(src, ld, k, n, false);
  } else {
    part = Tensor::AllocateForOverwrite(DataType::kFloat, Shape({k, n}), CpuAllocator());
    auto* dst = static_cast<float*>(part->data());
    for (int64_t r = 0; r < k; ++r) std::copy_n(src + r * ld, n, dst + r * n);
  }
  ir::Value* wp = AddConstant(g, w->name() + (blocked ? "_blocked" : "_columns"), std::move(part));
  ir::Value* y = g.AddValue(g.UniqueName(base));
  ir::Node* node = g.AddNode(g.UniqueName(base + (blocked ? "/BlockedMatMul" : "/MatMul")),
                             blocked ? "BlockedMatMul" : "MatMul", blocked ? kKilnDomain : "");
  if (blocked) {
    node->set_opset(1);
    node->attributes() = {IntAttr("block", kBlock)};
  } else {
    node->set_opset(13);
  }
  g.Connect(node, {x, wp}, {y});
  return y;
}

size_t BlockMatMulWeights(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "BlockedMatMul")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return RewriteOne(ctx, n); });
}

}  // namespace kiln::optimizer
