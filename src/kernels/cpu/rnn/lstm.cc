// LSTM: opsets 1 (output_sequence accepted and ignored), 7, 14–23 (layout). Directions forward,
// reverse and bidirectional; activations f, g, h per direction with activation_alpha/beta; clip;
// input_forget; optional B, sequence_lens, initial_h, initial_c, P (peepholes); outputs Y, Y_h,
// Y_c each optional. Types: float, double, Float16 and BFloat16 (computed in float). Gate order
// i, o, f, c as in the spec. X·Wᵀ for all steps is one Gemm, Hₜ₋₁·Rᵀ one Gemm per step (float
// W and R that are initializers packed once, when the kernel is made). Past a
// batch entry's sequence length Y is 0; a length of 0 gives Y_h = Y_c = 0 (as ONNX Runtime).
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
void LstmDirection(KernelContext& ctx, Work<W>& work, size_t dir, bool reverse,
                   const Activation* act, W clip, bool input_forget,
                   const std::vector<PackedMatrix>& w_packed,
                   const std::vector<PackedMatrix>& r_packed) {
  ThreadPool& pool = ctx.threads();
  const rnn::Dims& d = work.d;
  const size_t h = d.hidden;
  const size_t h4 = 4 * h;
  const W* r = work.in[rnn::kR] + dir * h4 * h;
  const W* b = work.in[rnn::kB] == nullptr ? nullptr : work.in[rnn::kB] + dir * 2 * h4;
  const W* peep = work.in[rnn::kP] == nullptr ? nullptr : work.in[rnn::kP] + dir * 3 * h;

  // Xₜ·Wᵀ for every step and batch entry: [seq·batch, 4h].
  W* gx = ctx.Scratch<W>(d.seq * d.batch * h4);
  rnn::InputProduct(work, dir, h4, rnn::Prepacked(w_packed, dir, d.input, h4), gx, pool);
  W* bias = ctx.Scratch<W>(h4);
  for (size_t j = 0; j < h4; ++j) bias[j] = b == nullptr ? W(0) : b[j] + b[h4 + j];
  W* hs = rnn::InitialState(ctx, work, rnn::kInitialH, dir);
  W* cs = rnn::InitialState(ctx, work, rnn::kInitialC, dir);

  W* gates = ctx.Scratch<W>(d.batch * h4);
  const rnn::StepProduct<W> recurrent(ctx, r, h4, h, d.batch, rnn::Prepacked(r_packed, dir, h, h4));
  const size_t steps = rnn::MaxLength(work.lens);
  for (size_t step = 0; step < steps; ++step) {
    recurrent(hs, gates, h4, pool);
    pool.ParallelFor(d.batch, std::max<size_t>(1, 4096 / (h4 + 1)), [&](size_t begin, size_t end) {
      for (size_t n = begin; n < end; ++n) {
        const int64_t len = work.lens[n];
        if (static_cast<int64_t>(step) >= len) continue;
        const size_t t = rnn::TimeIndex(reverse, len, step);
        W* g = gates + n * h4;
        const W* xg = gx + (t * d.batch + n) * h4;
        for (size_t j = 0; j < h4; ++j) g[j] += xg[j] + bias[j];
        // Hₜ's row was read by this step's Gemm already: the cell writes it.
        W* hn = hs + n * h;
        rnn::LstmCell(g, static_cast<const W*>(nullptr), peep, act, clip, input_forget, h,
                      cs + n * h, hn);
        rnn::StoreStep(work, dir, t, n, hn);
      }
    });
  }
  rnn::StoreFinalState(work, dir, hs, work.y_h);
  rnn::StoreFinalState(work, dir, cs, work.y_c);
}

class Lstm final : public Kernel {
 public:
  explicit Lstm(const KernelInfo& info)
      : attrs_(rnn::ParseAttributes(info, {"Sigmoid", "Tanh", "Tanh"})),
        input_forget_(info.GetInt("input_forget", 0) != 0),
        w_packed_(rnn::PackConstantGates(info, rnn::kW, 4, 0, 4)),
        r_packed_(rnn::PackConstantGates(info, rnn::kR, 4, 0, 4)) {}

  void Compute(KernelContext& ctx) const override {
    const rnn::Dims d = rnn::CheckInputs(ctx, attrs_, 4, true);
    rnn::RunWithWork(ctx, attrs_, d, true, [&](auto& work) {
      using W = typename std::remove_reference_t<decltype(work)>::value_type;
      for (size_t dir = 0; dir < d.dirs; ++dir) {
        const bool reverse = dir == 1 || attrs_.reverse_only;
        LstmDirection<W>(ctx, work, dir, reverse, attrs_.activations.data() + 3 * dir,
                         static_cast<W>(attrs_.clip), input_forget_, w_packed_, r_packed_);
      }
    });
  }

 private:
  rnn::Attributes attrs_;
  bool input_forget_;
  // W and R packed for PackedGemm when they are float initializers (empty otherwise).
  std::vector<PackedMatrix> w_packed_;
  std::vector<PackedMatrix> r_packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeLstm(const KernelInfo& info) {
  return Make<Lstm>(info);
}

}  // namespace kiln::cpu
