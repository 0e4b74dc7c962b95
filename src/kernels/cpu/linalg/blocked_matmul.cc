// ai.kiln BlockedMatMul: Y = A · B (+ bias), where B is a constant [K, N] weight stored as column
// blocks (the optimizer's blocked_matmul pass writes it so, from a MatMul's or a Gemm's weight):
// block j holds columns [j·block, min(N, (j+1)·block)) as a row-major [K, width] matrix, the
// blocks one after another. A is [..., K] (its leading dimensions are rows of one product), bias
// is [N]; Y is [..., N].
//
// With blocks of 32 columns (the pass's choice) every whole block is a panel of PackedGemm's
// layout: the kernel reads the initializer in place through PackedMatrix::View (packing only a
// last, narrower block, K × 32 floats, itself), so a run neither copies the weight nor allocates.
// Other block widths, or a B that is not the node's initializer, go through cpu::Gemm per block.
// With attribute bf16 = 1 (set by the session for config kiln.compute.bf16) on a machine with
// AVX-512 BF16, the weight is rounded to bf16 once and the products run on Bf16Gemm (bf16
// operands, float sums); elsewhere the attribute changes nothing.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/graph.h"
#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/small_vector.h"

namespace kiln::cpu {
namespace {

class BlockedMatMul final : public Kernel {
 public:
  explicit BlockedMatMul(const KernelInfo& info) : block_(info.GetInt("block", 0)) {
    if (block_ <= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'block' is " + std::to_string(block_) + "; it must be positive");
    }
    if (static_cast<size_t>(block_) != kPackedPanel || !info.HasInput(1)) return;
    std::shared_ptr<const Tensor> b = info.node().inputs()[1]->initializer();
    if (b == nullptr || b->type() != DataType::kFloat || b->shape().rank() != 2) return;
    const auto k = static_cast<size_t>(b->shape().dims()[0]);
    const auto n = static_cast<size_t>(b->shape().dims()[1]);
    const auto* data = static_cast<const float*>(b->data());
    if (info.GetInt("bf16", 0) != 0 && Bf16GemmSupported()) {
      // bf16 products (session config kiln.compute.bf16): the weight rounded and packed once.
      bf16_ = std::make_unique<Bf16PackedB>(Bf16PackedB::Pack(k, n, [&](size_t p, size_t j) {
        const size_t j0 = j / kPackedPanel * kPackedPanel;
        const size_t w = std::min(kPackedPanel, n - j0);
        return data[j0 * k + p * w + (j - j0)];
      }));
      weight_ = std::move(b);
      return;
    }
    const size_t whole = n / kPackedPanel * kPackedPanel;
    constexpr uintptr_t kAlign = 64;
    if (k > 0 && whole > 0 && reinterpret_cast<uintptr_t>(data) % kAlign != 0) return;
    panels_ = PackedMatrix::View(data, k, whole);
    if (whole < n) {
      const size_t w = n - whole;
      const float* last = data + whole * k;  // the last block, [K, w] row-major
      tail_ = PackedMatrix::PackFrom(k, w, [&](size_t p, size_t j) { return last[p * w + j]; });
    }
    weight_ = std::move(b);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    const Tensor* bias = ctx.OptionalInput(2);
    for (const auto& [t, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
      if (t->type() != DataType::kFloat) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                   DataTypeName(t->type()) + "; it must be float");
      }
    }
    if (b.shape().rank() != 2 || a.shape().rank() < 1 ||
        a.shape().dims().back() != b.shape().dims()[0]) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'A' has shape " + a.shape().ToString() + " and input 'B' has shape " +
                    b.shape().ToString() + ": B must be [K, N] with K A's last dimension");
    }
    const size_t k = static_cast<size_t>(b.shape().dims()[0]);
    const size_t n = static_cast<size_t>(b.shape().dims()[1]);
    if (bias != nullptr && (bias->type() != DataType::kFloat || bias->shape().rank() != 1 ||
                            bias->shape().dims()[0] != b.shape().dims()[1])) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'bias' has shape " + bias->shape().ToString() +
                                                 "; it must be float [" + std::to_string(n) + "]");
    }
    SmallVector<int64_t> dims(a.shape().dims());
    dims.back() = static_cast<int64_t>(n);
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, dims.span());
    if (y.element_count() == 0) return;
    const size_t m = y.element_count() / n;  // n > 0: Y is not empty (k may be 0)
    const auto* av = static_cast<const float*>(a.data());
    const auto* bv = static_cast<const float*>(b.data());
    const float* biasv = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    auto* yv = static_cast<float*>(y.data());
    const size_t width = static_cast<size_t>(block_);
    const size_t blocks = (n + width - 1) / width;
    // Block j: its product, then the bias on its columns while they are in cache.
    auto run = [&](size_t j, ThreadPool* pool) {
      const size_t j0 = j * width;
      const size_t w = std::min(width, n - j0);
      float* c = yv + j0;
      Gemm<float>(false, false, m, w, k, 1.0f, av, k, bv + j0 * k, w, 0.0f, c, n, pool);
      if (biasv == nullptr) return;
      for (size_t i = 0; i < m; ++i) {
        float* row = c + i * n;
        for (size_t col = 0; col < w; ++col) row[col] += biasv[j0 + col];
      }
    };
    ThreadPool* pool = &ctx.threads();
    const size_t threads = static_cast<size_t>(pool->size());
    if (weight_ != nullptr && b.data() == weight_->data()) {
      RunPacked(m, k, n, av, biasv, yv, *pool);
      return;
    }
    if (threads > 1 && blocks % threads == 0) {
      // Whole blocks per thread.
      pool->ParallelFor(blocks, 1, [&](size_t begin, size_t end) {
        for (size_t j = begin; j < end; ++j) run(j, nullptr);
      });
    } else {
      for (size_t j = 0; j < blocks; ++j) run(j, pool);
    }
  }

 private:
  // Y = A · B on the packed panels: the columns shared out over the threads in whole panels
  // (each thread reads only its share of the weight), the bias added to each share while it is
  // in cache.
  void RunPacked(size_t m, size_t k, size_t n, const float* a, const float* bias, float* y,
                 ThreadPool& pool) const {
    const size_t whole = bf16_ != nullptr ? n : panels_.n();
    const size_t panels = (n + kPackedPanel - 1) / kPackedPanel;
    const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    constexpr double kMinParallelWork = 65536;
    const size_t parts =
        work < kMinParallelWork ? 1 : std::min(panels, static_cast<size_t>(pool.size()));
    auto part = [&](size_t t) {
      const size_t c0 = PartStart(panels, parts, t) * kPackedPanel;
      const size_t c1 = std::min(n, PartStart(panels, parts, t + 1) * kPackedPanel);
      if (bf16_ != nullptr) {
        Bf16Gemm(m, a, k, *bf16_, c0, c1, y, n);
      } else {
        if (c0 < std::min(c1, whole)) {
          PackedGemm(m, a, k, panels_, c0, std::min(c1, whole), y, n, false);
        }
        if (c1 > whole) PackedGemm(m, a, k, tail_, 0, n - whole, y + whole, n, false);
      }
      if (bias == nullptr) return;
      for (size_t i = 0; i < m; ++i) {
        float* row = y + i * n;
        for (size_t col = c0; col < c1; ++col) row[col] += bias[col];
      }
    };
    if (parts == 1) return part(0);
    pool.ParallelFor(parts, 1, [&](size_t begin, size_t end) {
      for (size_t t = begin; t < end; ++t) part(t);
    });
  }

  int64_t block_;
  // With blocks of kPackedPanel columns: the node's initializer B (kept alive here), its whole
  // panels viewed in place and its last, narrower block packed.
  std::shared_ptr<const Tensor> weight_;
  PackedMatrix panels_;
  PackedMatrix tail_;
  // With attribute bf16 on a machine with AVX-512 BF16: the weight as bf16 panels instead.
  std::unique_ptr<Bf16PackedB> bf16_;
};

}  // namespace

std::unique_ptr<Kernel> MakeBlockedMatMul(const KernelInfo& info) {
  return Make<BlockedMatMul>(info);
}

}  // namespace kiln::cpu
