// DynamicQuantizeLSTM (com.microsoft, opset 1): ONNX Runtime's LSTM over 8-bit weights, as its
// quantize_dynamic tool writes it. Inputs: X [seq, batch, input] float; W [D, input, 4H] and
// R [D, H, 4H], int8 or uint8 (LSTM's W and R transposed; gates i, o, f, c); B, sequence_lens,
// initial_h, initial_c and P as LSTM's; W_scale and R_scale (float) and W_zero_point and
// R_zero_point (W's type), each [D] (per direction) or [D, 4H] (per gate column; a zero point per
// column all one value: equal for uint8, 0 for int8). Attributes as LSTM's (no layout); outputs
// Y, Y_h, Y_c, each optional. W and R that are initializers are packed once.
//
// The arithmetic is ONNX Runtime's CPU kernel's (on one intra-op thread): the first L steps of X
// (L the longest sequence length) are quantized to uint8 over their range with 0, as
// DynamicQuantizeLinear does (scale (max - min) / 255, zero point round(-min / scale), values
// round(x / scale) + zero point, ties to even), and so is the whole batch's hidden state at each
// step. A product is Σ (a - a_zero)(w - w_zero) in int32, times a_scale · w_scale (a float). The
// recurrent product is added to the input one, then the peepholes and B (Wb + Rb), and the gates go
// on as LSTM's with ONNX Runtime's activation functions (MLAS's Sigmoid and Tanh as on x86-64 with
// FMA3): its results to the bit on the differential test's cases. In the steps' hidden state a
// sequence that has ended, or is empty, holds 0 when Y is made and its last state otherwise (where
// ONNX Runtime keeps that state: in Y, or in Y_h), so Y_h and Y_c depend a little, through the
// quantization, on whether Y is made, as ONNX Runtime's do. Where ONNX Runtime departs: on several
// threads it splits the batch into groups quantized apart (Kiln's results do not depend on its
// threads); it reads an empty sequence's state without Y from memory it never wrote (Kiln: 0); and
// with per-column scales, a zero point per direction and two directions it reads the second
// direction's zero point at [4H], past the tensor (Kiln: at [1]).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/rnn/rnn_common.h"
#include "kernels/cpu/rnn/rnn_kernels.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using rnn::Activation;
using rnn::Work;

// The inputs after LSTM's eight.
enum QuantInput : size_t { kWScale = rnn::kInputCount, kWZeroPoint, kRScale, kRZeroPoint };

std::string DimsText(std::span<const int64_t> dims) {
  return Shape(std::vector<int64_t>(dims.begin(), dims.end())).ToString();
}

// The scale and zero point of W or R.
struct WeightQuant {
  const float* scale = nullptr;  // [D] or [D, 4H]
  bool per_column = false;
  std::array<int32_t, 2> zero{};  // per direction

  // mult[j] = a_scale · the scale of direction dir's column j, j < n: ONNX Runtime's multiplier,
  // rounded to float before it meets the int32 sums.
  void Multipliers(size_t dir, size_t n, float a_scale, float* mult) const {
    for (size_t j = 0; j < n; ++j) {
      mult[j] = a_scale * (per_column ? scale[dir * n + j] : scale[dir]);
    }
  }
};

// Checks inputs `scale_at` (float) and `zero_at` (of the weights' `type`) as the scale and zero
// point of `weights` (W or R): each [D] or [D, 4H]; a zero point per column must be one value
// (0 for int8), since ONNX Runtime's product takes one per matrix.
WeightQuant CheckQuant(const KernelContext& ctx, const rnn::Dims& d, DataType type, size_t scale_at,
                       size_t zero_at, const char* weights) {
  const KernelInfo& info = ctx.info();
  const std::string scale_name = std::string(weights) + "_scale";
  const std::string zero_name = std::string(weights) + "_zero_point";
  const auto dirs = static_cast<int64_t>(d.dirs);
  const auto columns = static_cast<int64_t>(4 * d.hidden);
  // Whether t is per column; fails unless it is [D] or [D, 4H].
  auto per_column = [&](const Tensor* t, const std::string& name) {
    if (t == nullptr) info.Fail(ErrorCode::kInvalidArgument, "input '" + name + "' is required");
    const auto& dims = t->shape().dims();
    const bool by_direction = dims.size() == 1 && dims[0] == dirs;
    const bool by_column = dims.size() == 2 && dims[0] == dirs && dims[1] == columns;
    if (!by_direction && !by_column) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + name + "' has shape " + t->shape().ToString() + "; it must be " +
                    DimsText(std::array<int64_t, 1>{dirs}) + " (per direction) or " +
                    DimsText(std::array<int64_t, 2>{dirs, columns}) + " (per column)");
    }
    return by_column;
  };
  const Tensor* scale = ctx.OptionalInput(scale_at);
  const Tensor* zero = ctx.OptionalInput(zero_at);
  WeightQuant q;
  q.per_column = per_column(scale, scale_name);
  if (scale->type() != DataType::kFloat) {
    info.Fail(ErrorCode::kInvalidArgument, "input '" + scale_name + "' has type " +
                                               DataTypeName(scale->type()) + "; it must be float");
  }
  const bool zero_per_column = per_column(zero, zero_name);
  if (zero->type() != type) {
    info.Fail(ErrorCode::kInvalidArgument, "input '" + zero_name + "' has type " +
                                               DataTypeName(zero->type()) + " but " + weights +
                                               " has " + DataTypeName(type));
  }
  const bool is_signed = type == DataType::kInt8;
  auto value = [&](size_t i) -> int32_t {
    return is_signed ? static_cast<const int8_t*>(zero->data())[i]
                     : static_cast<const uint8_t*>(zero->data())[i];
  };
  if (zero_per_column) {
    for (size_t i = 0; i < zero->element_count(); ++i) {
      if (value(i) == (is_signed ? 0 : value(0))) continue;
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + zero_name + "' holds " + std::to_string(value(i)) + " at " +
                    std::to_string(i) + "; per column it must hold " +
                    (is_signed ? std::string("0 (int8 weights)")
                               : "one value (" + std::to_string(value(0)) + " first)"));
    }
  }
  q.scale = static_cast<const float*>(scale->data());
  for (size_t dir = 0; dir < d.dirs && zero->element_count() > 0; ++dir) {  // (none: hidden 0)
    q.zero[dir] = value(zero_per_column ? dir * 4 * d.hidden : dir);
  }
  return q;
}

// ONNX Runtime's activation functions for its LSTM: Sigmoid and Tanh MLAS's rational
// approximations (from Eigen) as its FMA3 kernels compute them on x86-64 with AVX2
// (LogisticKernelFma3.S, TanhKernelFma3.S: the same bits), the others the scalar formulas of
// rnn_activation_functors.h (in double where they call exp or log). Kiln's own functions (within
// 2e-6) would move the hidden state across the quantization's rounding points now and then, and
// a step of the uint8 state moves the results by some 1e-4.
KILN_VECTOR_CLONES void OrtLogistic(float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x = v[i] < -18.0f ? -18.0f : v[i];
    x = x > 18.0f ? 18.0f : x;
    const float x2 = x * x;
    float p = std::fma(x2, 4.37031012579801e-11f, 1.15627324459942e-07f);
    p = std::fma(x2, p, 6.08574864600143e-05f);
    p = std::fma(x2, p, 8.51377133304701e-03f);
    p = std::fma(x2, p, 2.48287947061529e-01f);
    float q = std::fma(x2, 6.10247389755681e-13f, 5.76102136993427e-09f);
    q = std::fma(x2, q, 6.29106785017040e-06f);
    q = std::fma(x2, q, 1.70198817374094e-03f);
    q = std::fma(x2, q, 1.16817656904453e-01f);
    q = std::fma(x2, q, 9.93151921023180e-01f);
    const float r = (x * p) / q + 0.5f;
    v[i] = r < 0.0f ? 0.0f : r;  // (no clamp at 1 in that kernel)
  }
}

KILN_VECTOR_CLONES void OrtTanh(float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x = v[i] < -9.0f ? -9.0f : v[i];
    x = x > 9.0f ? 9.0f : x;
    const float x2 = x * x;
    float p = std::fma(x2, -2.76076847742355e-16f, 2.00018790482477e-13f);
    p = std::fma(x2, p, -8.60467152213735e-11f);
    p = std::fma(x2, p, 5.12229709037114e-08f);
    p = std::fma(x2, p, 1.48572235717979e-05f);
    p = std::fma(x2, p, 6.37261928875436e-04f);
    p = std::fma(x2, p, 4.89352455891786e-03f);
    float q = std::fma(x2, 1.19825839466702e-06f, 1.18534705686654e-04f);
    q = std::fma(x2, q, 2.26843463243900e-03f);
    q = std::fma(x2, q, 4.89352518554385e-03f);
    v[i] = (x * p) / q;
  }
}

// rnn_activation_functors.h's Sigmoid (exp in double), which its ScaledTanh calls.
float OrtScalarSigmoid(float x) {
  const double e = std::exp(static_cast<double>(x >= 0 ? -x : x));
  return static_cast<float>(x >= 0 ? 1 / (1 + e) : e / (1 + e));
}

void ApplyOrt(const Activation& act, float* v, size_t n) {
  const float a = act.alpha;
  const float b = act.beta;
  switch (act.kind) {
    case rnn::ActivationKind::kSigmoid:
      OrtLogistic(v, n);
      break;
    case rnn::ActivationKind::kTanh:
      OrtTanh(v, n);
      break;
    case rnn::ActivationKind::kRelu:
      for (size_t i = 0; i < n; ++i) v[i] = std::max(0.0f, v[i]);
      break;
    case rnn::ActivationKind::kAffine:
      for (size_t i = 0; i < n; ++i) v[i] = a * v[i] + b;
      break;
    case rnn::ActivationKind::kLeakyRelu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] >= 0 ? v[i] : a * v[i];
      break;
    case rnn::ActivationKind::kThresholdedRelu:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] > a ? v[i] : 0.0f;
      break;
    case rnn::ActivationKind::kScaledTanh:
      for (size_t i = 0; i < n; ++i) {
        v[i] = a * (2.0f * OrtScalarSigmoid(2.0f * (b * v[i])) - 1.0f);
      }
      break;
    case rnn::ActivationKind::kHardSigmoid:
      for (size_t i = 0; i < n; ++i) v[i] = std::min(1.0f, std::max(0.0f, a * v[i] + b));
      break;
    case rnn::ActivationKind::kElu:
      for (size_t i = 0; i < n; ++i) {
        v[i] = v[i] >= 0 ? v[i] : static_cast<float>(a * (std::exp(double{v[i]}) - 1));
      }
      break;
    case rnn::ActivationKind::kSoftsign:
      for (size_t i = 0; i < n; ++i) v[i] = v[i] / (1 + std::fabs(v[i]));
      break;
    case rnn::ActivationKind::kSoftplus:
      for (size_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>(std::log(1 + std::exp(double{v[i]})));
      }
      break;
  }
}

// The hidden state x[0..n) quantized into q as ONNX Runtime quantizes its products' left side
// (QuantizeDynamically's arithmetic, on this thread; a NaN, which only non-finite inputs make,
// is left out of the range and given the zero point).
DynamicQuantization QuantizeState(const float* x, size_t n, uint8_t* q) {
  float lo = 0;
  float hi = 0;
  for (size_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);  // (false comparisons with a NaN keep lo and hi)
    hi = std::max(hi, x[i]);
  }
  DynamicQuantization r;
  r.scale = (hi - lo) / 255.0f;
  if (!(r.scale > 0)) {
    std::fill(q, q + n, uint8_t{0});  // all zeros
    return r;
  }
  r.zero_point = std::nearbyint(std::clamp(0.0f - lo / r.scale, 0.0f, 255.0f));
  for (size_t i = 0; i < n; ++i) {
    const float v = std::nearbyint(x[i] / r.scale) + r.zero_point;
    q[i] = static_cast<uint8_t>(v == v ? std::clamp(v, 0.0f, 255.0f) : r.zero_point);
  }
  return r;
}

// Input `input` (W or R: [D, k, n] int8 or uint8), each direction packed for Int8Gemm when it is
// an initializer; empty otherwise.
std::vector<Int8PackedB> PackConstant(const KernelInfo& info, size_t input) {
  std::vector<Int8PackedB> out;
  const Tensor* t = info.ConstantInput(input);
  if (t == nullptr || t->shape().rank() != 3 ||
      (t->type() != DataType::kInt8 && t->type() != DataType::kUint8)) {
    return out;
  }
  const auto& dims = t->shape().dims();
  const auto k = static_cast<size_t>(dims[1]);
  const auto n = static_cast<size_t>(dims[2]);
  if (k == 0 || n == 0) return out;
  const auto* data = static_cast<const uint8_t*>(t->data());
  for (int64_t dir = 0; dir < dims[0]; ++dir) {
    out.push_back(Int8PackedB::Pack(data + static_cast<size_t>(dir) * k * n,
                                    t->type() == DataType::kInt8, n, k, n));
  }
  return out;
}

class DynamicQuantizeLstm final : public Kernel {
 public:
  explicit DynamicQuantizeLstm(const KernelInfo& info)
      : attrs_(rnn::ParseAttributes(info, {"Sigmoid", "Tanh", "Tanh"})),
        input_forget_(info.GetInt("input_forget", 0) != 0),
        w_packed_(PackConstant(info, rnn::kW)),
        r_packed_(PackConstant(info, rnn::kR)) {}

  void Compute(KernelContext& ctx) const override {
    const rnn::Dims d = CheckInputs(ctx);
    const DataType type = ctx.Input(rnn::kW).type();
    const WeightQuant wq = CheckQuant(ctx, d, type, kWScale, kWZeroPoint, "W");
    const WeightQuant rq = CheckQuant(ctx, d, type, kRScale, kRZeroPoint, "R");
    rnn::RunWithWork(ctx, attrs_, d, true, [&](auto& work) {
      using W = typename std::remove_reference_t<decltype(work)>::value_type;
      if constexpr (std::is_same_v<W, float>) Run(ctx, work, wq, rq);  // (X is float)
    });
  }

 private:
  // X, W and R, then the rest as LSTM's; returns the sizes.
  rnn::Dims CheckInputs(const KernelContext& ctx) const {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(rnn::kX);
    const Tensor& w = ctx.Input(rnn::kW);
    const Tensor& r = ctx.Input(rnn::kR);
    if (x.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'X' has type ") + DataTypeName(x.type()) + "; it must be float");
    }
    auto rank3 = [&](const Tensor& t, const char* name) {
      if (t.shape().rank() != 3) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name +
                                                   "' must have rank 3, not shape " +
                                                   t.shape().ToString());
      }
    };
    rank3(x, "X");
    rank3(w, "W");
    rank3(r, "R");
    if (w.type() != DataType::kInt8 && w.type() != DataType::kUint8) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'W' has type ") +
                                                 DataTypeName(w.type()) +
                                                 "; it must be int8 or uint8");
    }
    if (r.type() != w.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'R' has type ") +
                                                 DataTypeName(r.type()) + " but W has " +
                                                 DataTypeName(w.type()));
    }
    rnn::Dims d;
    const auto& xd = x.shape().dims();
    d.seq = static_cast<size_t>(xd[0]);
    d.batch = static_cast<size_t>(xd[1]);
    d.input = static_cast<size_t>(xd[2]);
    d.dirs = attrs_.num_directions;
    const int64_t hidden = attrs_.hidden_size >= 0 ? attrs_.hidden_size : r.shape().dims()[1];
    d.hidden = static_cast<size_t>(hidden);
    const auto dirs = static_cast<int64_t>(d.dirs);
    rnn::CheckShape(info, w, "W", std::array<int64_t, 3>{dirs, xd[2], 4 * hidden});
    rnn::CheckShape(info, r, "R", std::array<int64_t, 3>{dirs, hidden, 4 * hidden});
    rnn::CheckOptionalInputs(ctx, attrs_, d, 4, true);
    return d;
  }

  // Direction dir's weights from input `input` ([D, k, n]): as packed when the kernel was made,
  // else packed now into `storage` (scratch).
  static const Int8PackedB& Packed(KernelContext& ctx, size_t input,
                                   const std::vector<Int8PackedB>& prepacked, size_t dir, size_t k,
                                   size_t n, Int8PackedB& storage) {
    if (dir < prepacked.size() && prepacked[dir].k() == k && prepacked[dir].n() == n) {
      return prepacked[dir];
    }
    const Tensor& t = ctx.Input(input);
    storage = Int8PackedB::PackInto(
        ctx.Scratch<int8_t>(Int8PackedB::PanelBytes(k, n)), ctx.Scratch<int32_t>(n),
        static_cast<const uint8_t*>(t.data()) + dir * k * n, t.type() == DataType::kInt8, n, k, n);
    return storage;
  }

  void Run(KernelContext& ctx, Work<float>& work, const WeightQuant& wq,
           const WeightQuant& rq) const {
    const rnn::Dims& d = work.d;
    const size_t steps = rnn::MaxLength(work.lens);
    if (steps == 0 || d.hidden == 0) return;  // the outputs stay 0
    // The steps' inputs, quantized once for both directions.
    const size_t count = steps * d.batch * d.input;
    auto* qx = ctx.Scratch<uint8_t>(std::max<size_t>(count, 1));
    const DynamicQuantization xq = QuantizeDynamically(ctx, work.in[rnn::kX], count, qx, "X");
    for (size_t dir = 0; dir < d.dirs; ++dir) {
      Direction(ctx, work, dir, qx, xq, wq, rq);
    }
  }

  void Direction(KernelContext& ctx, Work<float>& work, size_t dir, const uint8_t* qx,
                 const DynamicQuantization& xq, const WeightQuant& wq,
                 const WeightQuant& rq) const {
    ThreadPool& pool = ctx.threads();
    const rnn::Dims& d = work.d;
    const bool reverse = dir == 1 || attrs_.reverse_only;
    const Activation* act = attrs_.activations.data() + 3 * dir;
    const size_t h = d.hidden;
    const size_t h4 = 4 * h;
    const size_t steps = rnn::MaxLength(work.lens);
    const size_t rows = steps * d.batch;
    auto* acc = ctx.Scratch<int32_t>(std::max(rows, d.batch) * h4);
    auto* mult = ctx.Scratch<float>(h4);
    const size_t grain = std::max<size_t>(1, 4096 / (h4 + 1));

    // Xₜ·W for every step and batch entry: [steps · batch, 4h].
    auto* gx = ctx.Scratch<float>(rows * h4);
    if (d.input == 0) {
      std::fill(gx, gx + rows * h4, 0.0f);
    } else {
      Int8PackedB storage;
      const Int8PackedB& w = Packed(ctx, rnn::kW, w_packed_, dir, d.input, h4, storage);
      const auto za = static_cast<int32_t>(xq.zero_point);
      Int8Gemm(rows, qx, false, d.input, w, {&za, 1}, {&wq.zero[dir], 1}, acc, h4, &pool);
      wq.Multipliers(dir, h4, xq.scale, mult);
      pool.ParallelFor(rows, grain, [&](size_t begin, size_t end) {
        for (size_t i = begin * h4; i < end * h4; ++i) {
          gx[i] = static_cast<float>(acc[i]) * mult[i % h4];
        }
      });
    }
    const float* b = work.in[rnn::kB];
    float* bias = nullptr;
    if (b != nullptr) {
      b += dir * 2 * h4;
      bias = ctx.Scratch<float>(h4);
      for (size_t j = 0; j < h4; ++j) bias[j] = b[j] + b[h4 + j];
    }
    const float* peep = work.in[rnn::kP] == nullptr ? nullptr : work.in[rnn::kP] + dir * 3 * h;
    float* hs = rnn::InitialState(ctx, work, rnn::kInitialH, dir);
    float* cs = rnn::InitialState(ctx, work, rnn::kInitialC, dir);
    auto* qh = ctx.Scratch<uint8_t>(d.batch * h);
    auto* gates = ctx.Scratch<float>(d.batch * h4);
    Int8PackedB storage;
    const Int8PackedB& r = Packed(ctx, rnn::kR, r_packed_, dir, h, h4, storage);
    const bool y_wanted = work.y != nullptr;
    for (size_t step = 0; step < steps; ++step) {
      // Hₜ₋₁·R with the batch's state quantized as one.
      const DynamicQuantization hq = QuantizeState(hs, d.batch * h, qh);
      const auto zh = static_cast<int32_t>(hq.zero_point);
      Int8Gemm(d.batch, qh, false, h, r, {&zh, 1}, {&rq.zero[dir], 1}, acc, h4, &pool);
      rq.Multipliers(dir, h4, hq.scale, mult);
      pool.ParallelFor(d.batch, grain, [&](size_t begin, size_t end) {
        for (size_t n = begin; n < end; ++n) {
          const int64_t len = work.lens[n];
          float* hn = hs + n * h;
          if (static_cast<int64_t>(step) >= len) {
            // Ended (or empty): 0 in the next step's range where ONNX Runtime's state is in Y.
            if (y_wanted || len == 0) std::fill(hn, hn + h, 0.0f);
            continue;
          }
          const size_t t = rnn::TimeIndex(reverse, len, step);
          float* g = gates + n * h4;
          const float* xg = gx + (t * d.batch + n) * h4;
          const int32_t* a = acc + n * h4;
          for (size_t j = 0; j < h4; ++j) g[j] = xg[j] + static_cast<float>(a[j]) * mult[j];
          float* c = cs + n * h;
          rnn::LstmCell(g, static_cast<const float*>(bias), peep, act, attrs_.clip, input_forget_,
                        h, c, hn, ApplyOrt);
          rnn::StoreStep(work, dir, t, n, hn);
          if (static_cast<int64_t>(step) + 1 == len) {
            const size_t at = (dir * d.batch + n) * h;
            std::copy(hn, hn + h, work.y_h + at);
            std::copy(c, c + h, work.y_c + at);
          }
        }
      });
    }
  }

  rnn::Attributes attrs_;
  bool input_forget_;
  // W and R per direction, packed when they are initializers (empty otherwise).
  std::vector<Int8PackedB> w_packed_;
  std::vector<Int8PackedB> r_packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDynamicQuantizeLstm(const KernelInfo& info) {
  return Make<DynamicQuantizeLstm>(info);
}

}  // namespace kiln::cpu
