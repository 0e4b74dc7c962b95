// GRU: opsets 1 (output_sequence accepted and ignored), 3 (linear_before_reset), 7, 14–23
// (layout). Directions forward, reverse and bidirectional; activations f, g per direction with
// activation_alpha/beta; clip; optional B, sequence_lens, initial_h; outputs Y and Y_h each
// optional. Types: float, double, Float16 and BFloat16 (computed in float). Gate order z, r, h as
// in the spec. X·Wᵀ for all steps is one Gemm; each step is one Gemm with linear_before_reset,
// two without (the candidate's recurrence needs rₜ first). Past a batch entry's sequence length
// Y is 0; a length of 0 gives Y_h = 0 (as ONNX Runtime).
#include <algorithm>
#include <type_traits>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/rnn/rnn_common.h"
#include "kernels/cpu/rnn/rnn_kernels.h"

namespace kiln::cpu {
namespace {

using rnn::Activation;
using rnn::Work;

// W and R packed for PackedGemm when they are float initializers (each empty otherwise): W whole,
// R as the step's first product reads it (all three gates with linear_before_reset, z and r
// without) and, without linear_before_reset, R's h gate for the candidate's product.
struct GruPacked {
  std::vector<PackedMatrix> w;
  std::vector<PackedMatrix> r;
  std::vector<PackedMatrix> r_h;
};

template <typename W>
void GruDirection(KernelContext& ctx, Work<W>& work, size_t dir, bool reverse,
                  const Activation* act, W clip, bool linear_before_reset,
                  const GruPacked& packed) {
  ThreadPool& pool = ctx.threads();
  const rnn::Dims& d = work.d;
  const size_t h = d.hidden;
  const size_t h3 = 3 * h;
  const W* r = work.in[rnn::kR] + dir * h3 * h;
  const W* b = work.in[rnn::kB] == nullptr ? nullptr : work.in[rnn::kB] + dir * 2 * h3;

  W* gx = ctx.Scratch<W>(d.seq * d.batch * h3);
  rnn::InputProduct(work, dir, h3, rnn::Prepacked(packed.w, dir, d.input, h3), gx, pool);
  W* wb = ctx.Scratch<W>(h3);
  W* rb = ctx.Scratch<W>(h3);
  for (size_t j = 0; j < h3; ++j) {
    wb[j] = b == nullptr ? W(0) : b[j];
    rb[j] = b == nullptr ? W(0) : b[h3 + j];
  }
  W* hs = rnn::InitialState(ctx, work, rnn::kInitialH, dir);

  // Hₜ₋₁·R[zrh]ᵀ with linear_before_reset, else Hₜ₋₁·R[zr]ᵀ then (rₜ ⊙ Hₜ₋₁)·Rhᵀ.
  const size_t rec_cols = linear_before_reset ? h3 : 2 * h;
  W* rec = ctx.Scratch<W>(d.batch * rec_cols);
  // Rows of entries past their length are not written but still go through the Gemm: zeros.
  W* reset_h = linear_before_reset ? nullptr : ctx.Scratch<W>(d.batch * h);
  if (reset_h != nullptr) std::fill(reset_h, reset_h + d.batch * h, W(0));
  W* rec_h = linear_before_reset ? nullptr : ctx.Scratch<W>(d.batch * h);
  W* cands = ctx.Scratch<W>(d.batch * h);  // the candidate h̃ₜ per batch entry
  const size_t grain = std::max<size_t>(1, 4096 / (h3 + 1));
  auto active = [&](size_t n, size_t step) { return static_cast<int64_t>(step) < work.lens[n]; };
  auto x_row = [&](size_t n, size_t step) {
    return gx + (rnn::TimeIndex(reverse, work.lens[n], step) * d.batch + n) * h3;
  };

  const rnn::StepProduct<W> recurrent(ctx, r, rec_cols, h, d.batch,
                                      rnn::Prepacked(packed.r, dir, h, rec_cols));
  const rnn::StepProduct<W> recurrent_h(
      ctx, r + 2 * h * h, linear_before_reset ? 0 : h, h, d.batch,
      linear_before_reset ? nullptr : rnn::Prepacked(packed.r_h, dir, h, h));
  const size_t steps = rnn::MaxLength(work.lens);
  for (size_t step = 0; step < steps; ++step) {
    recurrent(hs, rec, rec_cols, pool);
    // z and r in place of their recurrence terms.
    pool.ParallelFor(d.batch, grain, [&](size_t begin, size_t end) {
      for (size_t n = begin; n < end; ++n) {
        if (!active(n, step)) continue;
        W* zr = rec + n * rec_cols;
        const W* xg = x_row(n, step);
        for (size_t j = 0; j < 2 * h; ++j) zr[j] += xg[j] + wb[j] + rb[j];
        rnn::Clip(clip, zr, 2 * h);
        rnn::Apply(act[0], zr, 2 * h);
        if (!linear_before_reset) {
          const W* hn = hs + n * h;
          for (size_t j = 0; j < h; ++j) reset_h[n * h + j] = zr[h + j] * hn[j];
        }
      }
    });
    if (!linear_before_reset) {
      recurrent_h(reset_h, rec_h, h, pool);
    }
    pool.ParallelFor(d.batch, grain, [&](size_t begin, size_t end) {
      for (size_t n = begin; n < end; ++n) {
        if (!active(n, step)) continue;
        W* cand = cands + n * h;
        const W* z = rec + n * rec_cols;
        const W* rg = z + h;
        const W* xh = x_row(n, step) + 2 * h;
        const W* wbh = wb + 2 * h;
        const W* rbh = rb + 2 * h;
        if (linear_before_reset) {
          const W* hr = z + 2 * h;
          for (size_t j = 0; j < h; ++j) cand[j] = xh[j] + wbh[j] + rg[j] * (hr[j] + rbh[j]);
        } else {
          const W* hr = rec_h + n * h;
          for (size_t j = 0; j < h; ++j) cand[j] = xh[j] + wbh[j] + hr[j] + rbh[j];
        }
        rnn::Clip(clip, cand, h);
        rnn::Apply(act[1], cand, h);
        W* hn = hs + n * h;
        for (size_t j = 0; j < h; ++j) hn[j] = (W(1) - z[j]) * cand[j] + z[j] * hn[j];
        rnn::StoreStep(work, dir, rnn::TimeIndex(reverse, work.lens[n], step), n, hn);
      }
    });
  }
  rnn::StoreFinalState(work, dir, hs, work.y_h);
}

class Gru final : public Kernel {
 public:
  explicit Gru(const KernelInfo& info)
      : attrs_(rnn::ParseAttributes(info, {"Sigmoid", "Tanh"})),
        linear_before_reset_(info.opset() >= 3 && info.GetInt("linear_before_reset", 0) != 0),
        packed_{rnn::PackConstantGates(info, rnn::kW, 3, 0, 3),
                rnn::PackConstantGates(info, rnn::kR, 3, 0, linear_before_reset_ ? 3 : 2),
                linear_before_reset_ ? std::vector<PackedMatrix>{}
                                     : rnn::PackConstantGates(info, rnn::kR, 3, 2, 1)} {}

  void Compute(KernelContext& ctx) const override {
    const rnn::Dims d = rnn::CheckInputs(ctx, attrs_, 3, false);
    rnn::RunWithWork(ctx, attrs_, d, false, [&](auto& work) {
      using W = typename std::remove_reference_t<decltype(work)>::value_type;
      for (size_t dir = 0; dir < d.dirs; ++dir) {
        const bool reverse = dir == 1 || attrs_.reverse_only;
        GruDirection<W>(ctx, work, dir, reverse, attrs_.activations.data() + 2 * dir,
                        static_cast<W>(attrs_.clip), linear_before_reset_, packed_);
      }
    });
  }

 private:
  rnn::Attributes attrs_;
  bool linear_before_reset_;
  GruPacked packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGru(const KernelInfo& info) {
  return Make<Gru>(info);
}

}  // namespace kiln::cpu
