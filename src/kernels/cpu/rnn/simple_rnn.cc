// RNN: opsets 1 (output_sequence accepted and ignored), 7, 14–23 (layout). Directions forward,
// reverse and bidirectional; activation f per direction with activation_alpha/beta; clip;
// optional B, sequence_lens, initial_h; outputs Y and Y_h each optional. Types: float, double,
// Float16 and BFloat16 (computed in float). X·Wᵀ for all steps is one Gemm, Hₜ₋₁·Rᵀ one Gemm per
// step. Past a batch entry's sequence length Y is 0; a length of 0 gives Y_h = 0 (as ONNX
// Runtime).
#include <type_traits>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/rnn/rnn_common.h"
#include "kernels/cpu/rnn/rnn_kernels.h"

namespace kiln::cpu {
namespace {

using rnn::Activation;
using rnn::Work;

template <typename W>
void RnnDirection(Work<W>& work, size_t dir, bool reverse, const Activation& act, W clip,
                  ThreadPool& pool) {
  const rnn::Dims& d = work.d;
  const size_t h = d.hidden;
  const W* w = work.in[rnn::kW] + dir * h * d.input;
  const W* r = work.in[rnn::kR] + dir * h * h;
  const W* b = work.in[rnn::kB] == nullptr ? nullptr : work.in[rnn::kB] + dir * 2 * h;

  std::vector<W> gx(d.seq * d.batch * h);
  Gemm<W>(false, true, d.seq * d.batch, h, d.input, W(1), work.in[rnn::kX], d.input, w, d.input,
          W(0), gx.data(), h, &pool);
  std::vector<W> bias(h, W(0));
  if (b != nullptr) {
    for (size_t j = 0; j < h; ++j) bias[j] = b[j] + b[h + j];
  }
  std::vector<W> hs = rnn::InitialState(work, rnn::kInitialH, dir);
  std::vector<W> rec(d.batch * h);
  for (size_t step = 0; step < rnn::MaxLength(work.lens); ++step) {
    Gemm<W>(false, true, d.batch, h, h, W(1), hs.data(), h, r, h, W(0), rec.data(), h, &pool);
    pool.ParallelFor(d.batch, std::max<size_t>(1, 4096 / (h + 1)), [&](size_t begin, size_t end) {
      for (size_t n = begin; n < end; ++n) {
        const int64_t len = work.lens[n];
        if (static_cast<int64_t>(step) >= len) continue;
        const size_t t = rnn::TimeIndex(reverse, len, step);
        W* g = rec.data() + n * h;
        const W* xg = gx.data() + (t * d.batch + n) * h;
        for (size_t j = 0; j < h; ++j) g[j] += xg[j] + bias[j];
        rnn::Clip(clip, g, h);
        rnn::Apply(act, g, h);
        std::copy(g, g + h, hs.data() + n * h);
        rnn::StoreStep(work, dir, t, n, g);
      }
    });
  }
  rnn::StoreFinalState(work, dir, hs, work.y_h);
}

class Rnn final : public Kernel {
 public:
  explicit Rnn(const KernelInfo& info) : attrs_(rnn::ParseAttributes(info, {"Tanh"})) {}

  void Compute(KernelContext& ctx) const override {
    const rnn::Dims d = rnn::CheckInputs(ctx, attrs_, 1, false);
    rnn::RunWithWork(ctx, attrs_, d, false, [&](auto& work) {
      using W = typename std::remove_reference_t<decltype(work)>::value_type;
      for (size_t dir = 0; dir < d.dirs; ++dir) {
        const bool reverse = dir == 1 || attrs_.reverse_only;
        RnnDirection<W>(work, dir, reverse, attrs_.activations[dir], static_cast<W>(attrs_.clip),
                        ctx.threads());
      }
    });
  }

 private:
  rnn::Attributes attrs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeRnn(const KernelInfo& info) {
  return Make<Rnn>(info);
}

}  // namespace kiln::cpu
