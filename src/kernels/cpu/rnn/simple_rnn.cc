// RNN: opsets 1 (output_sequence accepted and ignored), 7, 14–23 (layout). Directions forward,
// reverse and bidirectional; activation f per direction with activation_alpha/beta; clip;
// optional B, sequence_lens, initial_h; outputs Y and Y_h each optional. Types: float, double,
// Float16 and BFloat16 (computed in float). X·Wᵀ for all steps is one Gemm, Hₜ₋₁·Rᵀ one Gemm per
// step. Past a batch entry's sequence length Y is 0; a length of 0 gives Y_h = 0 (as ONNX
// Runtime).
#include <algorithm>
#include <type_traits>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/rnn/rnn_common.h"
#include "kernels/cpu/rnn/rnn_kernels.h"

namespace kiln::cpu {
namespace {

using rnn::Activation;
using rnn::Work;

template <typename W>
void RnnDirection(KernelContext& ctx, Work<W>& work, size_t dir, bool reverse,
                  const Activation& act, W clip, const std::vector<PackedMatrix>& w_packed,
                  const std::vector<PackedMatrix>& r_packed) {
  ThreadPool& pool = ctx.threads();
  const rnn::Dims& d = work.d;
  const size_t h = d.hidden;
  const W* r = work.in[rnn::kR] + dir * h * h;
  const W* b = work.in[rnn::kB] == nullptr ? nullptr : work.in[rnn::kB] + dir * 2 * h;

  W* gx = ctx.Scratch<W>(d.seq * d.batch * h);
  rnn::InputProduct(work, dir, h, rnn::Prepacked(w_packed, dir, d.input, h), gx, pool);
  W* bias = ctx.Scratch<W>(h);
  for (size_t j = 0; j < h; ++j) bias[j] = b == nullptr ? W(0) : b[j] + b[h + j];
  W* hs = rnn::InitialState(ctx, work, rnn::kInitialH, dir);
  W* rec = ctx.Scratch<W>(d.batch * h);
  const rnn::StepProduct<W> recurrent(ctx, r, h, h, d.batch, rnn::Prepacked(r_packed, dir, h, h));
  const size_t steps = rnn::MaxLength(work.lens);
  for (size_t step = 0; step < steps; ++step) {
    recurrent(hs, rec, h, pool);
    pool.ParallelFor(d.batch, std::max<size_t>(1, 4096 / (h + 1)), [&](size_t begin, size_t end) {
      for (size_t n = begin; n < end; ++n) {
        const int64_t len = work.lens[n];
        if (static_cast<int64_t>(step) >= len) continue;
        const size_t t = rnn::TimeIndex(reverse, len, step);
        W* g = rec + n * h;
        const W* xg = gx + (t * d.batch + n) * h;
        for (size_t j = 0; j < h; ++j) g[j] += xg[j] + bias[j];
        rnn::Clip(clip, g, h);
        rnn::Apply(act, g, h);
        std::copy(g, g + h, hs + n * h);
        rnn::StoreStep(work, dir, t, n, g);
      }
    });
  }
  rnn::StoreFinalState(work, dir, hs, work.y_h);
}

class Rnn final : public Kernel {
 public:
  explicit Rnn(const KernelInfo& info)
      : attrs_(rnn::ParseAttributes(info, {"Tanh"})),
        w_packed_(rnn::PackConstantGates(info, rnn::kW, 1, 0, 1)),
        r_packed_(rnn::PackConstantGates(info, rnn::kR, 1, 0, 1)) {}

  void Compute(KernelContext& ctx) const override {
    const rnn::Dims d = rnn::CheckInputs(ctx, attrs_, 1, false);
    rnn::RunWithWork(ctx, attrs_, d, false, [&](auto& work) {
      using W = typename std::remove_reference_t<decltype(work)>::value_type;
      for (size_t dir = 0; dir < d.dirs; ++dir) {
        const bool reverse = dir == 1 || attrs_.reverse_only;
        RnnDirection<W>(ctx, work, dir, reverse, attrs_.activations[dir],
                        static_cast<W>(attrs_.clip), w_packed_, r_packed_);
      }
    });
  }

 private:
  rnn::Attributes attrs_;
  // W and R packed for PackedGemm when they are float initializers (empty otherwise).
  std::vector<PackedMatrix> w_packed_;
  std::vector<PackedMatrix> r_packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeRnn(const KernelInfo& info) {
  return Make<Rnn>(info);
}

}  // namespace kiln::cpu
