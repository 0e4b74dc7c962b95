// What LSTM, GRU and RNN (and com.microsoft DynamicQuantizeLSTM) share: the activation functions,
// the common attributes (direction, hidden_size, activations with their alpha/beta, clip, layout),
// the checks on the common inputs, the driver that converts the inputs to the computation type
// (float for Float16/BFloat16) in layout 0, runs the op and writes Y, Y_h (and Y_c) back in the
// node's type and layout, and an LSTM cell.
#ifndef KILN_KERNELS_CPU_RNN_RNN_COMMON_H_
#define KILN_KERNELS_CPU_RNN_RNN_COMMON_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/kernel.h"

namespace kiln::cpu::rnn {

enum class ActivationKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

struct Activation {
  ActivationKind kind;
  float alpha;
  float beta;
};

// The logistic function and softplus: vector_math.h's for float, the std:: functions for double
// (e^-|x|, which never overflows).
template <typename W>
[[gnu::always_inline]] inline W SigmoidOf(W x) {
  if constexpr (std::is_same_v<W, float>) {
    return SigmoidF(x);
  } else {
    const W e = std::exp(-std::abs(x));
    return x >= W(0) ? W(1) / (W(1) + e) : e / (W(1) + e);
  }
}

template <typename W>
[[gnu::always_inline]] inline W SoftplusOf(W x) {
  if constexpr (std::is_same_v<W, float>) {
    return SoftplusF(x);
  } else {
    return x > W(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
}

// The loops of Apply, inlined into it: the switch is outside them.
template <typename W>
[[gnu::always_inline]] inline void ApplyLoops(const Activation& act, W* v, size_t n) {
  const W a = static_cast<W>(act.alpha);
  const W b = static_cast<W>(act.beta);
  switch (act.kind) {
    case ActivationKind::kRelu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] > W(0) ? v[i] : W(0);
      break;
    case ActivationKind::kTanh:
      for (size_t i = 0; i < n; ++i) v[i] = vmath::Tanh(v[i]);
      break;
    case ActivationKind::kSigmoid:
      for (size_t i = 0; i < n; ++i) v[i] = SigmoidOf(v[i]);
      break;
    case ActivationKind::kAffine:
      for (size_t i = 0; i < n; ++i) v[i] = a * v[i] + b;
      break;
    case ActivationKind::kLeakyRelu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] >= W(0) ? v[i] : a * v[i];
      break;
    case ActivationKind::kThresholdedRelu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] >= a ? v[i] : W(0);
      break;
    case ActivationKind::kScaledTanh:
      for (size_t i = 0; i < n; ++i) v[i] = a * vmath::Tanh(b * v[i]);
      break;
    case ActivationKind::kHardSigmoid:
      for (size_t i = 0; i < n; ++i) v[i] = std::min(std::max(a * v[i] + b, W(0)), W(1));
      break;
    case ActivationKind::kElu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] >= W(0) ? v[i] : a * vmath::Expm1(v[i]);
      break;
    case ActivationKind::kSoftsign:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] / (W(1) + std::abs(v[i]));
      break;
    case ActivationKind::kSoftplus:
      for (size_t i = 0; i < n; ++i) v[i] = SoftplusOf(v[i]);
      break;
  }
}

// ApplyLoops<float> vector-cloned (rnn_common.cc): with vector_math.h's functions (within 2e-6
// relative of the exact value) a step's gates take as long as a few of its multiply-adds rather
// than a call to std::tanh or std::exp each.
void ApplyFloat(const Activation& act, float* v, size_t n);

// v[i] = act(v[i]) for i < n: float through ApplyFloat, double through the std:: functions.
template <typename W>
void Apply(const Activation& act, W* v, size_t n) {
  if constexpr (std::is_same_v<W, float>) {
    ApplyFloat(act, v, n);
  } else {
    ApplyLoops(act, v, n);
  }
}

// Clamps v[i] to [-clip, clip] when clip > 0.
template <typename W>
void Clip(W clip, W* v, size_t n) {
  if (clip <= W(0)) return;
  for (size_t i = 0; i < n; ++i) v[i] = std::min(std::max(v[i], -clip), clip);
}

struct Attributes {
  size_t num_directions = 1;
  bool reverse_only = false;  // direction = "reverse"
  int64_t hidden_size = -1;   // -1: taken from R
  // `per_direction` activations for the forward (or only) direction, then the reverse one's.
  std::vector<Activation> activations;
  float clip = 0;            // 0: no clipping
  bool batch_major = false;  // layout = 1
};

// Parses the shared attributes; `defaults` are one direction's activations (LSTM: Sigmoid, Tanh,
// Tanh). Throws kInvalidGraph naming the attribute for a bad direction, activation, clip or
// layout.
Attributes ParseAttributes(const KernelInfo& info, const std::vector<std::string>& defaults);

// The problem's sizes, in layout 0 terms.
struct Dims {
  size_t seq = 0;
  size_t batch = 0;
  size_t input = 0;
  size_t hidden = 0;
  size_t dirs = 1;
};

// Input positions shared by the three ops; LSTM adds initial_c and P.
enum Input : size_t { kX = 0, kW, kR, kB, kSeqLens, kInitialH, kInitialC, kP, kInputCount };

// Checks X, W, R, B, sequence_lens and initial_h (and, for LSTM, initial_c and P) against each
// other: ranks, shapes, matching element types and sequence_lens values. `gates` is 4 for LSTM,
// 3 for GRU, 1 for RNN. Throws kInvalidArgument naming the input.
Dims CheckInputs(const KernelContext& ctx, const Attributes& attrs, size_t gates, bool lstm);

// The part of CheckInputs after X, W and R, given the sizes they set: B, sequence_lens,
// initial_h (and, for LSTM, initial_c and P), of X's element type.
void CheckOptionalInputs(const KernelContext& ctx, const Attributes& attrs, const Dims& d,
                         size_t gates, bool lstm);

// Throws kInvalidArgument "input 'name' has shape [..] but must be [..]" unless t has `want`.
void CheckShape(const KernelInfo& info, const Tensor& t, const char* name,
                std::span<const int64_t> want);

// Entry n of a (checked) sequence_lens tensor, int32 or int64.
inline int64_t SequenceLen(const Tensor& t, size_t n) {
  return t.type() == DataType::kInt32 ? static_cast<const int32_t*>(t.data())[n]
                                      : static_cast<const int64_t*>(t.data())[n];
}

// The working copy of one run, all in the run's scratch memory: inputs as W in layout 0 (nullptr
// for one left out), the sequence lengths, and the outputs in layout 0 ([seq, dirs, batch,
// hidden] and [dirs, batch, hidden]).
template <typename W>
struct Work {
  using value_type = W;
  Dims d;
  std::array<const W*, kInputCount> in{};
  std::span<const int64_t> lens;  // per batch entry
  W* y = nullptr;                 // nullptr when Y is not wanted
  W* y_h = nullptr;
  W* y_c = nullptr;  // nullptr without a cell output
};

// dst[j][i][k] = src[i][j][k] for src of shape [a, b, inner] (or a plain copy when !swap),
// converting between the element types.
template <typename From, typename To>
void CopyConvert(const From* src, size_t a, size_t b, size_t inner, bool swap, To* dst) {
  auto convert = [](From v) -> To {
    if constexpr (std::is_same_v<From, To>) {
      return v;
    } else if constexpr (std::is_same_v<From, Float16> || std::is_same_v<From, BFloat16>) {
      return static_cast<To>(v.ToFloat());
    } else if constexpr (std::is_same_v<To, Float16> || std::is_same_v<To, BFloat16>) {
      return To::FromFloat(static_cast<float>(v));
    } else {
      return static_cast<To>(v);
    }
  };
  for (size_t i = 0; i < a; ++i) {
    for (size_t j = 0; j < b; ++j) {
      const From* s = src + (i * b + j) * inner;
      To* t = dst + (swap ? j * a + i : i * b + j) * inner;
      for (size_t k = 0; k < inner; ++k) t[k] = convert(s[k]);
    }
  }
}

// Runs fn(Work<W>&) for the node's element type (W = T for float and double, float for the
// 16-bit floats) and writes the wanted outputs: Y, Y_h and, when `cell_output`, Y_c. Inputs of
// another type than X's are left out of work.in (DynamicQuantizeLSTM's 8-bit W and R).
template <typename F>
void RunWithWork(KernelContext& ctx, const Attributes& attrs, const Dims& d, bool cell_output,
                 F&& fn) {
  const Tensor& x = ctx.Input(kX);
  Dispatch<float, double, Float16, BFloat16>(x.type(), ctx.info(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
    Work<W> work;
    work.d = d;
    for (size_t i = 0; i < kInputCount; ++i) {
      const Tensor* t = ctx.OptionalInput(i);
      if (i == kSeqLens || t == nullptr || (i >= kInitialC && !cell_output)) continue;
      if (t->type() != x.type()) continue;
      const T* data = static_cast<const T*>(t->data());
      // X [batch, seq, input] and the initial states [batch, dirs, hidden] swap under layout 1.
      const bool swap = attrs.batch_major && (i == kX || i == kInitialH || i == kInitialC);
      if constexpr (std::is_same_v<T, W>) {
        if (!swap) {
          work.in[i] = data;
          continue;
        }
      }
      const auto& dims = t->shape().dims();
      const size_t a = static_cast<size_t>(dims[0]);
      const size_t b = dims.size() > 1 ? static_cast<size_t>(dims[1]) : 1;
      const size_t inner = a * b == 0 ? 0 : t->element_count() / (a * b);
      W* copy = ctx.Scratch<W>(t->element_count());
      CopyConvert(data, a, b, inner, swap, copy);
      work.in[i] = copy;
    }
    int64_t* lens = ctx.Scratch<int64_t>(d.batch);
    const Tensor* seq_lens = ctx.OptionalInput(kSeqLens);
    for (size_t n = 0; n < d.batch; ++n) {
      lens[n] = seq_lens != nullptr ? SequenceLen(*seq_lens, n) : static_cast<int64_t>(d.seq);
    }
    work.lens = std::span<const int64_t>(lens, d.batch);
    const size_t state = d.dirs * d.batch * d.hidden;
    auto zeros = [&](size_t count) {
      W* p = ctx.Scratch<W>(count);
      std::fill(p, p + count, W(0));
      return p;
    };
    if (ctx.WantsOutput(0)) work.y = zeros(d.seq * state);
    work.y_h = zeros(state);
    if (cell_output) work.y_c = zeros(state);

    fn(work);

    const auto seq = static_cast<int64_t>(d.seq);
    const auto dirs = static_cast<int64_t>(d.dirs);
    const auto batch = static_cast<int64_t>(d.batch);
    const auto hidden = static_cast<int64_t>(d.hidden);
    const bool swap = attrs.batch_major;
    if (ctx.WantsOutput(0)) {
      const std::array<int64_t, 4> dims = swap ? std::array<int64_t, 4>{batch, seq, dirs, hidden}
                                               : std::array<int64_t, 4>{seq, dirs, batch, hidden};
      Tensor& y = ctx.Output(0, x.type(), dims);
      CopyConvert(work.y, d.seq * d.dirs, d.batch, d.hidden, swap, static_cast<T*>(y.data()));
    }
    const std::array<int64_t, 3> state_dims = swap ? std::array<int64_t, 3>{batch, dirs, hidden}
                                                   : std::array<int64_t, 3>{dirs, batch, hidden};
    if (ctx.WantsOutput(1)) {
      Tensor& y_h = ctx.Output(1, x.type(), state_dims);
      CopyConvert(work.y_h, d.dirs, d.batch, d.hidden, swap, static_cast<T*>(y_h.data()));
    }
    if (cell_output && ctx.WantsOutput(2)) {
      Tensor& y_c = ctx.Output(2, x.type(), state_dims);
      CopyConvert(work.y_c, d.dirs, d.batch, d.hidden, swap, static_cast<T*>(y_c.data()));
    }
  });
}

// The time index that step `step` of a sequence of `len` steps reads and writes.
inline size_t TimeIndex(bool reverse, int64_t len, size_t step) {
  return reverse ? static_cast<size_t>(len) - 1 - step : step;
}

// Direction `dir`'s initial state ([batch, hidden], in scratch memory) from input `input`, or
// zeros without it.
template <typename W>
W* InitialState(KernelContext& ctx, const Work<W>& work, size_t input, size_t dir) {
  const size_t state = work.d.batch * work.d.hidden;
  W* out = ctx.Scratch<W>(state);
  if (const W* init = work.in[input]) {
    std::copy(init + dir * state, init + (dir + 1) * state, out);
  } else {
    std::fill(out, out + state, W(0));
  }
  return out;
}

// The longest sequence length (0 for an empty batch).
inline size_t MaxLength(std::span<const int64_t> lens) {
  return lens.empty() ? 0 : static_cast<size_t>(*std::max_element(lens.begin(), lens.end()));
}

// Copies direction `dir`'s last state ([batch, hidden]) into `out` ([dirs, batch, hidden]),
// leaving 0 for batch entries of length 0.
template <typename W>
void StoreFinalState(const Work<W>& work, size_t dir, const W* state, W* out) {
  const size_t h = work.d.hidden;
  for (size_t n = 0; n < work.d.batch; ++n) {
    if (work.lens[n] == 0) continue;
    std::copy(state + n * h, state + (n + 1) * h, out + (dir * work.d.batch + n) * h);
  }
}

// Writes batch entry n's hidden state of time index t into Y when Y is wanted.
template <typename W>
void StoreStep(Work<W>& work, size_t dir, size_t t, size_t n, const W* hn) {
  if (work.y == nullptr) return;
  const Dims& d = work.d;
  std::copy(hn, hn + d.hidden, work.y + ((t * d.dirs + dir) * d.batch + n) * d.hidden);
}

// One LSTM step of one batch entry from its gates' pre-activations g = [i, o, f, c] (4h values,
// overwritten), in ONNX Runtime's order: the peepholes (peep = [Pi, Po, Pf], or nullptr) and then
// `bias` (4h, or nullptr) added to each gate, the gate clipped and activated (act: f, g, h, by
// `apply`); c holds Cₜ₋₁ and gets Cₜ, hn gets Hₜ = o ⊙ h(Cₜ).
template <typename W>
void LstmCell(W* g, const W* bias, const W* peep, const Activation* act, W clip, bool input_forget,
              size_t h, W* c, W* hn, void (*apply)(const Activation&, W*, size_t) = Apply<W>) {
  W* gi = g;
  W* go = g + h;
  W* gf = g + 2 * h;
  W* gc = g + 3 * h;
  auto add = [h](W* gate, const W* b) {
    if (b == nullptr) return;
    for (size_t j = 0; j < h; ++j) gate[j] += b[j];
  };
  if (peep != nullptr) {
    for (size_t j = 0; j < h; ++j) gi[j] += peep[j] * c[j];
  }
  add(gi, bias);
  Clip(clip, gi, h);
  apply(act[0], gi, h);
  if (input_forget) {
    for (size_t j = 0; j < h; ++j) gf[j] = W(1) - gi[j];
  } else {
    if (peep != nullptr) {
      for (size_t j = 0; j < h; ++j) gf[j] += peep[2 * h + j] * c[j];
    }
    add(gf, bias == nullptr ? nullptr : bias + 2 * h);
    Clip(clip, gf, h);
    apply(act[0], gf, h);
  }
  add(gc, bias == nullptr ? nullptr : bias + 3 * h);
  Clip(clip, gc, h);
  apply(act[1], gc, h);
  for (size_t j = 0; j < h; ++j) c[j] = gf[j] * c[j] + gi[j] * gc[j];
  if (peep != nullptr) {
    for (size_t j = 0; j < h; ++j) go[j] += peep[h + j] * c[j];
  }
  add(go, bias == nullptr ? nullptr : bias + h);
  Clip(clip, go, h);
  apply(act[0], go, h);
  std::copy(c, c + h, hn);
  apply(act[2], hn, h);
  for (size_t j = 0; j < h; ++j) hn[j] = go[j] * hn[j];
}

// Input `input` (W or R: [dirs, gates · hidden, cols]) packed when the kernel is made, as
// PackedGemm's right side for x · Mᵀ: per direction, gates [gate0, gate0 + gate_count) (rows
// gate0 · hidden onwards; k = cols, n = gate_count · hidden). Empty unless the input is a float
// initializer of rank 3 whose rows split into `gates` gates; the run's shape checks still apply,
// and Prepacked hands a direction's matrix over only where its sizes are the run's.
std::vector<PackedMatrix> PackConstantGates(const KernelInfo& info, size_t input, size_t gates,
                                            size_t gate0, size_t gate_count);

// packed[dir] when it is k × n, else nullptr (nothing packed: the product packs per run).
inline const PackedMatrix* Prepacked(const std::vector<PackedMatrix>& packed, size_t dir, size_t k,
                                     size_t n) {
  if (dir >= packed.size() || packed[dir].k() != k || packed[dir].n() != n) return nullptr;
  return &packed[dir];
}

// gx ([seq · batch, n]) = X · Mᵀ for direction dir's input weights M ([n, input]), from
// `packed` (Mᵀ packed when the kernel was made) where given.
template <typename W>
void InputProduct(const Work<W>& work, size_t dir, size_t n, const PackedMatrix* packed, W* gx,
                  ThreadPool& pool) {
  const Dims& d = work.d;
  if constexpr (std::is_same_v<W, float>) {
    if (packed != nullptr) {
      PackedGemm(d.seq * d.batch, work.in[kX], d.input, *packed, gx, n, &pool);
      return;
    }
  }
  Gemm<W>(false, true, d.seq * d.batch, n, d.input, W(1), work.in[kX], d.input,
          work.in[kW] + dir * n * d.input, d.input, W(0), gx, n, &pool);
}

// The recurrent product of every step: Y[batch, n] = H[batch, k] · Rᵀ, R [n, k] row-major and
// the same at every step. For float, from Rᵀ packed when the kernel was made (`prepacked`: R an
// initializer), else packed here once per run when there is more than one batch entry (Gemm
// would pack it again at every step: for a 64-unit LSTM, 256 × 64 floats copied for two rows of
// arithmetic, which made batch 2 three times as slow as batch 1); otherwise each step is a Gemm
// (one row: the library's matrix-vector kernel).
template <typename W>
class StepProduct {
 public:
  StepProduct(KernelContext& ctx, const W* r, size_t n, size_t k, size_t batch,
              const PackedMatrix* prepacked = nullptr)
      : r_(r), n_(n), k_(k), batch_(batch) {
    if constexpr (std::is_same_v<W, float>) {
      if (prepacked != nullptr) {
        use_ = prepacked;
      } else if (batch > 1 && n > 0 && k > 0) {
        float* storage = ctx.Scratch<float>(PackedMatrix::PanelFloats(k, n));
        packed_ = PackedMatrix::PackInto(storage, r, k, k, n, /*transposed=*/true, 1.0f);
        use_ = &packed_;
      }
    }
  }

  // y (ldy ≥ n) = h (batch rows of k) · Rᵀ.
  void operator()(const W* h, W* y, size_t ldy, ThreadPool& pool) const {
    if constexpr (std::is_same_v<W, float>) {
      if (use_ != nullptr) {
        PackedGemm(batch_, h, k_, *use_, y, ldy, &pool);
        return;
      }
    }
    Gemm<W>(false, true, batch_, n_, k_, W(1), h, k_, r_, k_, W(0), y, ldy, &pool);
  }

 private:
  const W* r_;
  size_t n_, k_, batch_;
  PackedMatrix packed_;                // float, batch > 1, nothing prepacked: Rᵀ in scratch
  const PackedMatrix* use_ = nullptr;  // the panels to use (float), or nullptr for Gemm
};

}  // namespace kiln::cpu::rnn

#endif  // KILN_KERNELS_CPU_RNN_RNN_COMMON_H_
