// The quantized elementwise, pooling and concatenation ops of com.microsoft (opset 1 of the
// domain), as ONNX Runtime's quantization tools write them in the QOperator format. Every tensor
// is int8 or uint8 (one type throughout a node); scales are float and per tensor; a zero point
// left out is 0. Quantizing v with (s, z) is saturate(round_half_even(v / s) + z); dequantizing
// q is s · (q - z).
//   QLinearAdd, QLinearMul (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
//     C_zero_point; numpy broadcasting): computed in float from the scale ratios,
//     c = saturate(round_half_even((a - za)·(sa/sc) + (b - zb)·(sb/sc)) + zc), and
//     c = saturate(round_half_even((a - za)·(b - zb)·(sa·sb/sc)) + zc) for Mul, as ONNX Runtime
//     does (within one step of quantizing the exact sum or product).
//   QLinearSigmoid, QLinearLeakyRelu (alpha, default 0.01) (X, X_scale, X_zero_point, Y_scale,
//     Y_zero_point): a table of the 256 results quantize(f(dequantize(x))), made once when the
//     scales and zero points are constants, then y = table[x].
//   ai.kiln QLinearSwish (X, X_scale, X_zero_point, S_scale, S_zero_point, Y_scale,
//     Y_zero_point): QLinearMul(X, QLinearSigmoid(X)) with the sigmoid quantized by (S_scale,
//     S_zero_point), which the qlinear_swish_fusion pass makes: the table of the pair's results.
//   QLinearGlobalAveragePool (channels_last, default 0) (X, x_scale, x_zero_point, y_scale,
//     y_zero_point): each channel's integer sum S over the image of n elements,
//     y = saturate(round_half_even((S - n·zx) · (sx / (sy·n))) + zy); the spatial axes become 1.
//   QLinearAveragePool (auto_pad, ceil_mode, channels_last, count_include_pad, kernel_shape, pads,
//     strides; the same inputs): AveragePool's windows over the dequantized input, quantized.
//   QLinearConcat (axis) (Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input): each
//     input requantized to Y's scale and zero point through a table (copied when they are Y's).
//   QLinearSoftmax (axis, opset) (X, X_scale, x_zero_point, y_scale, y_zero_point): the softmax
//     of the dequantized input, y = saturate(round_half_even(p · floor(1 / y_scale)) + zp) as
//     ONNX Runtime quantizes it.
//   QLinearWhere (condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale,
//     z_zero_point): where() with X and Y requantized to Z's parameters through tables.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/nn/pool.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/quant/quant_avx512.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/quant/quant_vbmi.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

// One quantization's scale and zero point (a per-tensor pair of inputs).
struct QParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// Reads the scale at input `si` (float, one value) and the optional zero point at `zi` (one value
// of `type`), naming them in errors.
QParams ReadQParams(const KernelInfo& info, const Tensor* scale, const Tensor* zero_point,
                    const char* scale_name, const char* zp_name, DataType type) {
  if (scale == nullptr) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + scale_name + "' is required");
  }
  if (scale->type() != DataType::kFloat) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + scale_name +
                                               "' has element type " + DataTypeName(scale->type()) +
                                               "; expected float");
  }
  if (scale->element_count() != 1 || scale->shape().rank() > 1) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + scale_name + "' has shape " +
                                               scale->shape().ToString() +
                                               "; expected one value (a scale per tensor)");
  }
  QParams q;
  q.scale = *static_cast<const float*>(scale->data());
  if (!(q.scale > 0.0f) || !std::isfinite(q.scale)) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + scale_name + "' is " +
                                               std::to_string(q.scale) +
                                               "; a scale must be positive and finite");
  }
  if (zero_point != nullptr) {
    if (zero_point->type() != type) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + zp_name + "' has element type " +
                    DataTypeName(zero_point->type()) + "; expected " + DataTypeName(type) +
                    " (the quantized data's type)");
    }
    if (zero_point->element_count() != 1 || zero_point->shape().rank() > 1) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + zp_name + "' has shape " +
                                                 zero_point->shape().ToString() +
                                                 "; expected one value (per tensor)");
    }
    q.zero_point = type == DataType::kInt8 ? *static_cast<const int8_t*>(zero_point->data())
                                           : *static_cast<const uint8_t*>(zero_point->data());
  }
  return q;
}

// v rounded half to even, plus zp, saturated to T.
template <typename T>
[[gnu::always_inline]] inline T Saturate(float v, float zp) {
  constexpr auto lo = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr auto hi = static_cast<float>(std::numeric_limits<T>::max());
  return static_cast<T>(static_cast<int32_t>(std::clamp(std::nearbyint(v) + zp, lo, hi)));
}

template <typename T>
T Quantize(float v, const QParams& q) {
  if (std::isnan(v)) return static_cast<T>(q.zero_point);
  return Saturate<T>(v / q.scale, static_cast<float>(q.zero_point));
}

// table[b] for each byte b read as T: quantize(f(dequantize(b))).
template <typename T, typename F>
void BuildTable(const QParams& x, const QParams& y, F&& f, uint8_t* table) {
  for (int i = 0; i < 256; ++i) {
    const auto byte = static_cast<uint8_t>(i);
    T v;
    std::memcpy(&v, &byte, 1);
    const float d = x.scale * static_cast<float>(static_cast<int32_t>(v) - x.zero_point);
    const T r = Quantize<T>(f(d), y);
    std::memcpy(&table[i], &r, 1);
  }
}

void LookUp(ThreadPool& pool, const uint8_t* table, size_t n, const uint8_t* x, uint8_t* y) {
  const bool vbmi = ByteLookupVbmiSupported();
  pool.ParallelFor(n, 16384, [&](size_t begin, size_t end) {
    if (vbmi) {
      ByteLookupVbmi(table, end - begin, x + begin, y + begin);
      return;
    }
    for (size_t i = begin; i < end; ++i) y[i] = table[x[i]];
  });
}

// The constant inputs' quantization parameters when every one of `indices` is constant (or left
// out), for tables made once.
bool AllConstant(const KernelInfo& info, std::initializer_list<size_t> indices) {
  for (size_t i : indices) {
    if (info.HasInput(i) && info.ConstantInput(i) == nullptr) return false;
  }
  return true;
}

const Tensor* ConstantOrNull(const KernelInfo& info, size_t i) {
  return info.HasInput(i) ? info.ConstantInput(i) : nullptr;
}

// ---- QLinearAdd, QLinearMul ----

// QLinearMul's arithmetic (QLinearSwish's second step too): the scale ratio, and one product.
inline float MulRatio(const QParams& qa, const QParams& qb, const QParams& qc) {
  return qa.scale * qb.scale / qc.scale;
}
template <typename T>
[[gnu::always_inline]] inline T MulValue(T p, T q, float za, float zb, float r, float zc) {
  return Saturate<T>((static_cast<float>(p) - za) * (static_cast<float>(q) - zb) * r, zc);
}

enum class BinaryOp { kAdd, kMul };

class QLinearBinary final : public Kernel {
 public:
  QLinearBinary(const KernelInfo& /*info*/, BinaryOp op) : op_(op) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(3);
    RequireInt8(info, a, "A");
    if (b.type() != a.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'B' has element type ") +
                                                 DataTypeName(b.type()) + "; expected " +
                                                 DataTypeName(a.type()) + " (A's)");
    }
    const QParams qa = ReadQParams(info, ctx.OptionalInput(1), ctx.OptionalInput(2), "A_scale",
                                   "A_zero_point", a.type());
    const QParams qb = ReadQParams(info, ctx.OptionalInput(4), ctx.OptionalInput(5), "B_scale",
                                   "B_zero_point", a.type());
    const QParams qc = ReadQParams(info, ctx.OptionalInput(6), ctx.OptionalInput(7), "C_scale",
                                   "C_zero_point", a.type());
    SmallVector<int64_t> out(a.shape().dims());
    BroadcastInto(info, out, b.shape().dims(), "B");
    Tensor& c = ctx.OutputForOverwrite(0, a.type(), out.span());
    if (c.element_count() == 0) return;
    const BroadcastPlan plan(out.span(), {a.shape().dims(), b.shape().dims()});
    const auto za = static_cast<float>(qa.zero_point);
    const auto zb = static_cast<float>(qb.zero_point);
    const auto zc = static_cast<float>(qc.zero_point);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* pa = static_cast<const T*>(a.data());
      const T* pb = static_cast<const T*>(b.data());
      T* pc = static_cast<T*>(c.data());
      if (op_ == BinaryOp::kAdd) {
        const float ra = qa.scale / qc.scale;
        const float rb = qb.scale / qc.scale;
        if (UseVectorMathAvx512() && a.shape() == b.shape()) {
          // One shape (a residual connection's): whole vectors of 16 (quant_avx512.h).
          const size_t n = c.element_count();
          ctx.threads().ParallelFor(n, 16384, [&](size_t begin, size_t end) {
            QLinearAddRowAvx512(reinterpret_cast<const uint8_t*>(pa) + begin,
                                reinterpret_cast<const uint8_t*>(pb) + begin, end - begin,
                                std::is_signed_v<T>, za, ra, zb, rb, zc,
                                reinterpret_cast<uint8_t*>(pc) + begin);
          });
          return;
        }
        RunBinary(ctx.threads(), plan, pa, pb, pc, [=](T p, T q) {
          return Saturate<T>((static_cast<float>(p) - za) * ra + (static_cast<float>(q) - zb) * rb,
                             zc);
        });
      } else {
        const float r = MulRatio(qa, qb, qc);
        RunBinary(ctx.threads(), plan, pa, pb, pc,
                  [=](T p, T q) { return MulValue<T>(p, q, za, zb, r, zc); });
      }
    };
    if (a.type() == DataType::kInt8) {
      run(int8_t{});
    } else {
      run(uint8_t{});
    }
  }

 private:
  BinaryOp op_;
};

// ---- QLinearSigmoid, QLinearLeakyRelu, QLinearSwish ----

enum class LookupOp { kSigmoid, kLeakyRelu, kSwish };

class QLinearLookup final : public Kernel {
 public:
  QLinearLookup(const KernelInfo& info, LookupOp op)
      : op_(op), alpha_(op == LookupOp::kLeakyRelu ? info.GetFloat("alpha", 0.01f) : 0.0f) {
    // Made once when every scale and zero point is a constant and the data type is known now
    // (from the input, or else from a zero point, which has the data's type).
    DataType type = info.InputType(0);
    for (size_t zp : {size_t{2}, size_t{4}, size_t{6}}) {
      const Tensor* z = zp < Params() ? ConstantOrNull(info, zp) : nullptr;
      if (!IsInt8(type) && z != nullptr) type = z->type();
    }
    const bool constant = op_ == LookupOp::kSwish ? AllConstant(info, {1, 2, 3, 4, 5, 6})
                                                  : AllConstant(info, {1, 2, 3, 4});
    if (IsInt8(type) && constant) {
      table_ = std::make_unique<std::array<uint8_t, 256>>();
      table_type_ = type;
      std::array<const Tensor*, 6> params{};
      for (size_t i = 1; i < Params(); ++i) params[i - 1] = ConstantOrNull(info, i);
      Build(info, type, params, table_->data());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireInt8(info, x, "X");
    const uint8_t* table = nullptr;
    if (table_ != nullptr && x.type() == table_type_) {
      table = table_->data();
    } else {
      auto* t = ctx.Scratch<uint8_t>(256);
      std::array<const Tensor*, 6> params{};
      for (size_t i = 1; i < Params(); ++i) params[i - 1] = ctx.OptionalInput(i);
      Build(info, x.type(), params, t);
      table = t;
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    LookUp(ctx.threads(), table, x.element_count(), static_cast<const uint8_t*>(x.data()),
           static_cast<uint8_t*>(y.data()));
  }

 private:
  // The inputs: X and its scale and zero point, then the output's (QLinearSwish: the sigmoid's,
  // then the output's).
  size_t Params() const { return op_ == LookupOp::kSwish ? 7 : 5; }

  // params: the inputs after X (null where left out).
  void Build(const KernelInfo& info, DataType type, const std::array<const Tensor*, 6>& params,
             uint8_t* table) const {
    const QParams qx = ReadQParams(info, params[0], params[1], "X_scale", "X_zero_point", type);
    const bool swish = op_ == LookupOp::kSwish;
    const QParams qy =
        swish ? ReadQParams(info, params[4], params[5], "Y_scale", "Y_zero_point", type)
              : ReadQParams(info, params[2], params[3], "Y_scale", "Y_zero_point", type);
    const float alpha = alpha_;
    const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    auto make = [&](auto tag) {
      using T = decltype(tag);
      if (swish) {
        // QLinearSigmoid's table, then QLinearMul of each byte and its sigmoid: the bytes the
        // two ops give.
        const QParams qs = ReadQParams(info, params[2], params[3], "S_scale", "S_zero_point", type);
        std::array<uint8_t, 256> s{};
        BuildTable<T>(qx, qs, sigmoid, s.data());
        const float r = MulRatio(qx, qs, qy);
        const auto zx = static_cast<float>(qx.zero_point);
        const auto zs = static_cast<float>(qs.zero_point);
        const auto zy = static_cast<float>(qy.zero_point);
        for (size_t i = 0; i < 256; ++i) {
          T x, sx;
          const auto byte = static_cast<uint8_t>(i);
          std::memcpy(&x, &byte, 1);
          std::memcpy(&sx, &s[i], 1);
          const T y = MulValue<T>(x, sx, zx, zs, r, zy);
          std::memcpy(&table[i], &y, 1);
        }
      } else if (op_ == LookupOp::kSigmoid) {
        BuildTable<T>(qx, qy, sigmoid, table);
      } else {
        BuildTable<T>(
            qx, qy, [alpha](float v) { return v >= 0.0f ? v : alpha * v; }, table);
      }
    };
    if (type == DataType::kInt8) {
      make(int8_t{});
    } else {
      make(uint8_t{});
    }
  }

  LookupOp op_;
  float alpha_;
  std::unique_ptr<std::array<uint8_t, 256>> table_;
  DataType table_type_ = DataType::kUndefined;
};

// ---- QLinearGlobalAveragePool ----

// sums[i] += x[i] for i < n.
template <typename T>
KILN_VECTOR_CLONES void AddRow(const T* x, size_t n, int32_t* sums) {
  for (size_t i = 0; i < n; ++i) sums[i] += x[i];
}

class QLinearGlobalAveragePool final : public Kernel {
 public:
  explicit QLinearGlobalAveragePool(const KernelInfo& info)
      : channels_last_(info.GetInt("channels_last", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireInt8(info, x, "X");
    const QParams qx = ReadQParams(info, ctx.OptionalInput(1), ctx.OptionalInput(2), "x_scale",
                                   "x_zero_point", x.type());
    const QParams qy = ReadQParams(info, ctx.OptionalInput(3), ctx.OptionalInput(4), "y_scale",
                                   "y_zero_point", x.type());
    const auto dims = x.shape().dims();
    if (dims.size() < 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                 "; expected rank 3 or more (N, C and an image)");
    }
    SmallVector<int64_t> out(dims);
    const size_t first = channels_last_ ? 1 : 2;
    size_t image = 1;
    for (size_t d = first; d < first + dims.size() - 2; ++d) {
      image *= static_cast<size_t>(dims[d]);
      out[d] = 1;
    }
    const auto n = static_cast<size_t>(dims[0]);
    const auto c = static_cast<size_t>(channels_last_ ? dims.back() : dims[1]);
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), out.span());
    if (y.element_count() == 0) return;
    if (image == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + ": an empty image has no average");
    }
    const float scale = qx.scale / (qy.scale * static_cast<float>(image));
    const auto bias = -static_cast<int64_t>(image) * qx.zero_point;
    const auto zy = static_cast<float>(qy.zero_point);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(x.data());
      T* py = static_cast<T*>(y.data());
      auto finish = [&](int64_t sum) {
        return Saturate<T>(static_cast<float>(sum + bias) * scale, zy);
      };
      if (!channels_last_ || c == 1) {
        ctx.threads().ParallelFor(n * c, std::max<size_t>(1, 16384 / image),
                                  [&](size_t b, size_t e) {
                                    for (size_t p = b; p < e; ++p) {
                                      const T* src = px + p * image;
                                      int64_t sum = 0;
                                      for (size_t i = 0; i < image; ++i) sum += src[i];
                                      py[p] = finish(sum);
                                    }
                                  });
        return;
      }
      // By blocks of 64 channels of an image (over the threads), the sums in int32 (an image
      // of up to 2^23 pixels cannot overflow them) along the channels, which vectorizes.
      constexpr size_t kChannels = 64;
      const size_t blocks = (c + kChannels - 1) / kChannels;
      ctx.threads().ParallelFor(n * blocks, 1, [&](size_t b, size_t e) {
        int32_t sums[kChannels];
        for (size_t t = b; t < e; ++t) {
          const size_t img = t / blocks, c0 = t % blocks * kChannels;
          const size_t width = std::min(kChannels, c - c0);
          std::fill(sums, sums + kChannels, 0);
          const T* src = px + img * image * c + c0;
          for (size_t i = 0; i < image; ++i) AddRow(src + i * c, width, sums);
          for (size_t ch = 0; ch < width; ++ch) py[img * c + c0 + ch] = finish(sums[ch]);
        }
      });
    };
    if (x.type() == DataType::kInt8) {
      run(int8_t{});
    } else {
      run(uint8_t{});
    }
  }

 private:
  bool channels_last_;
};

// ---- QLinearAveragePool ----

class QLinearAveragePool final : public Kernel {
 public:
  explicit QLinearAveragePool(const KernelInfo& info)
      : attrs_(nn::ReadWindowAttrs(
            info, {.kernel_required = true, .dilations = false, .ceil_mode = true})),
        count_include_pad_(info.GetInt("count_include_pad", 0) != 0),
        channels_last_(info.GetInt("channels_last", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireInt8(info, x, "X");
    const QParams qx = ReadQParams(info, ctx.OptionalInput(1), ctx.OptionalInput(2), "x_scale",
                                   "x_zero_point", x.type());
    const QParams qy = ReadQParams(info, ctx.OptionalInput(3), ctx.OptionalInput(4), "y_scale",
                                   "y_zero_point", x.type());
    const auto dims = x.shape().dims();
    if (dims.size() < 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                 "; expected rank 3 or more (N, C and an image)");
    }
    // The window sees [N, C, spatial...]; channels-last data is reordered into planes first.
    SmallVector<int64_t> nchw(dims);
    if (channels_last_) {
      nchw[1] = dims.back();
      for (size_t d = 2; d < dims.size(); ++d) nchw[d] = dims[d - 1];
    }
    const nn::WindowGeometry g =
        nn::ResolveWindow(info, attrs_, nchw.span(), attrs_.kernel_shape, true);
    SmallVector<int64_t> y_dims = {nchw[0], nchw[1]};
    for (int64_t d : g.out) y_dims.push_back(d);
    if (channels_last_) {
      const int64_t ch = y_dims[1];
      for (size_t d = 1; d + 1 < y_dims.size(); ++d) y_dims[d] = y_dims[d + 1];
      y_dims.back() = ch;
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), y_dims.span());
    if (y.element_count() == 0) return;
    const auto planes = static_cast<size_t>(nchw[0]) * static_cast<size_t>(nchw[1]);
    const auto channels = static_cast<size_t>(nchw[1]);
    float* in = ctx.Scratch<float>(planes * g.in_size);
    float* out = ctx.Scratch<float>(planes * g.out_size);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(x.data());
      T* py = static_cast<T*>(y.data());
      const auto zx = static_cast<float>(qx.zero_point);
      // Dequantized into planes (from [N, spatial, C] when channels last).
      ctx.threads().ParallelFor(planes, 1, [&](size_t b, size_t e) {
        for (size_t p = b; p < e; ++p) {
          float* dst = in + p * g.in_size;
          if (!channels_last_) {
            const T* src = px + p * g.in_size;
            for (size_t i = 0; i < g.in_size; ++i)
              dst[i] = qx.scale * (static_cast<float>(src[i]) - zx);
          } else {
            const T* src = px + (p / channels) * g.in_size * channels + p % channels;
            for (size_t i = 0; i < g.in_size; ++i)
              dst[i] = qx.scale * (static_cast<float>(src[i * channels]) - zx);
          }
        }
      });
      AveragePoolPlanes(ctx, g, planes, count_include_pad_, in, out);
      ctx.threads().ParallelFor(planes, 1, [&](size_t b, size_t e) {
        for (size_t p = b; p < e; ++p) {
          const float* src = out + p * g.out_size;
          if (!channels_last_) {
            T* dst = py + p * g.out_size;
            for (size_t i = 0; i < g.out_size; ++i) dst[i] = Quantize<T>(src[i], qy);
          } else {
            T* dst = py + (p / channels) * g.out_size * channels + p % channels;
            for (size_t i = 0; i < g.out_size; ++i) dst[i * channels] = Quantize<T>(src[i], qy);
          }
        }
      });
    };
    if (x.type() == DataType::kInt8) {
      run(int8_t{});
    } else {
      run(uint8_t{});
    }
  }

 private:
  nn::WindowAttrs attrs_;
  bool count_include_pad_;
  bool channels_last_;
};

// ---- QLinearConcat ----

class QLinearConcat final : public Kernel {
 public:
  explicit QLinearConcat(const KernelInfo& info) : axis_(info.RequireInt("axis")) {
    const size_t n = info.input_count();
    if (n < 5 || (n - 2) % 3 != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "has " + std::to_string(n) +
                    " inputs; expected Y_scale, Y_zero_point and then (X, X_scale, "
                    "X_zero_point) for each input: 2 + 3k inputs, k >= 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const size_t count = (ctx.input_count() - 2) / 3;
    const Tensor& first = ctx.Input(2);
    RequireInt8(info, first, "X 0");
    const DataType type = first.type();
    const QParams qy = ReadQParams(info, ctx.OptionalInput(0), ctx.OptionalInput(1), "Y_scale",
                                   "Y_zero_point", type);
    const size_t rank = first.shape().rank();
    if (rank == 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 0 is a scalar; Concat needs rank 1 or more");
    }
    const size_t axis = NormalizeAxis(info, axis_, rank);
    SmallVector<int64_t> out(first.shape().dims());
    out[axis] = 0;
    for (size_t k = 0; k < count; ++k) {
      const Tensor& t = ctx.Input(2 + 3 * k);
      const std::string name =
          "input " + std::to_string(2 + 3 * k) + " (X " + std::to_string(k) + ")";
      if (t.type() != type) {
        info.Fail(ErrorCode::kInvalidArgument, name + " has element type " +
                                                   DataTypeName(t.type()) + "; expected " +
                                                   DataTypeName(type));
      }
      const auto d = t.shape().dims();
      bool fits = d.size() == rank;
      for (size_t i = 0; fits && i < rank; ++i) fits = i == axis || d[i] == first.shape().dims()[i];
      if (!fits) {
        info.Fail(ErrorCode::kInvalidArgument, name + " has shape " + t.shape().ToString() +
                                                   "; it must match " + first.shape().ToString() +
                                                   " except on axis " + std::to_string(axis));
      }
      out[axis] += d[axis];
    }
    Tensor& y = ctx.OutputForOverwrite(0, type, out.span());
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(out[i]);
    for (size_t i = axis + 1; i < rank; ++i) inner *= static_cast<size_t>(out[i]);
    const size_t y_row = static_cast<size_t>(out[axis]) * inner;
    auto* py = static_cast<uint8_t*>(y.data());
    size_t offset = 0;
    auto* table = ctx.Scratch<uint8_t>(256);
    const bool vbmi = ByteLookupVbmiSupported();
    for (size_t k = 0; k < count; ++k) {
      const Tensor& t = ctx.Input(2 + 3 * k);
      const std::string s_name = "X_scale " + std::to_string(k);
      const std::string z_name = "X_zero_point " + std::to_string(k);
      const QParams qx =
          ReadQParams(info, ctx.OptionalInput(3 + 3 * k), ctx.OptionalInput(4 + 3 * k),
                      s_name.c_str(), z_name.c_str(), type);
      const size_t row = static_cast<size_t>(t.shape().dims()[axis]) * inner;
      const auto* px = static_cast<const uint8_t*>(t.data());
      const bool copy = qx.scale == qy.scale && qx.zero_point == qy.zero_point;
      if (!copy) {
        if (type == DataType::kInt8) {
          BuildTable<int8_t>(
              qx, qy, [](float v) { return v; }, table);
        } else {
          BuildTable<uint8_t>(
              qx, qy, [](float v) { return v; }, table);
        }
      }
      if (row != 0) {
        ctx.threads().ParallelFor(outer, std::max<size_t>(1, 16384 / row), [&](size_t b, size_t e) {
          for (size_t o = b; o < e; ++o) {
            const uint8_t* src = px + o * row;
            uint8_t* dst = py + o * y_row + offset;
            if (copy) {
              std::memcpy(dst, src, row);
            } else if (vbmi) {
              ByteLookupVbmi(table, row, src, dst);
            } else {
              for (size_t i = 0; i < row; ++i) dst[i] = table[src[i]];
            }
          }
        });
      }
      offset += row;
    }
  }

 private:
  int64_t axis_;
};

// ---- QLinearSoftmax ----

// softmax over `axis` of the dequantized input (opset attribute < 13: over the flattened axes
// from `axis` on, default axis 1; 13+: that one axis, default -1), quantized as ONNX Runtime
// does: y = saturate(round_half_even(p · floor(1 / y_scale)) + y_zero_point).
class QLinearSoftmax final : public Kernel {
 public:
  explicit QLinearSoftmax(const KernelInfo& info) : opset_(info.RequireInt("opset")) {
    axis_ = info.GetInt("axis", opset_ < 13 ? 1 : -1);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    RequireInt8(info, x, "X");
    const QParams qx = ReadQParams(info, ctx.OptionalInput(1), ctx.OptionalInput(2), "X_scale",
                                   "x_zero_point", x.type());
    const QParams qy = ReadQParams(info, ctx.OptionalInput(3), ctx.OptionalInput(4), "y_scale",
                                   "y_zero_point", x.type());
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const auto dims = x.shape().dims();
    if (x.element_count() == 0) return;
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    // Rows of d values, each row's values `step` apart (opset 13 on an axis before the last).
    size_t d = 1, step = 1;
    if (opset_ < 13) {
      for (size_t i = axis; i < dims.size(); ++i) d *= static_cast<size_t>(dims[i]);
    } else {
      d = static_cast<size_t>(dims[axis]);
      for (size_t i = axis + 1; i < dims.size(); ++i) step *= static_cast<size_t>(dims[i]);
    }
    const size_t outer = x.element_count() / (d * step);
    const float y_mult = std::floor(1.0f / qy.scale);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(x.data());
      T* py = static_cast<T*>(y.data());
      ctx.threads().ParallelFor(
          outer * step, std::max<size_t>(1, 4096 / d), [&](size_t b, size_t e) {
            float* row = ctx.Scratch<float>(d);
            for (size_t r = b; r < e; ++r) {
              const size_t base = (r / step) * d * step + r % step;
              float m = -std::numeric_limits<float>::infinity();
              for (size_t i = 0; i < d; ++i) {
                row[i] = qx.scale * static_cast<float>(px[base + i * step] - qx.zero_point);
                m = std::max(m, row[i]);
              }
              float sum = 0.0f;
              for (size_t i = 0; i < d; ++i) sum += (row[i] = std::exp(row[i] - m));
              for (size_t i = 0; i < d; ++i) {
                py[base + i * step] =
                    Saturate<T>(row[i] / sum * y_mult, static_cast<float>(qy.zero_point));
              }
            }
          });
    };
    if (x.type() == DataType::kInt8) {
      run(int8_t{});
    } else {
      run(uint8_t{});
    }
  }

 private:
  int64_t opset_;
  int64_t axis_;
};

// ---- QLinearWhere ----

// Z = where(condition, X, Y) broadcast as numpy does, X and Y each requantized to Z's scale and
// zero point through a table (copied where their parameters are Z's).
class QLinearWhere final : public Kernel {
 public:
  explicit QLinearWhere(const KernelInfo& info) {
    if (info.input_count() != 9) {
      info.Fail(ErrorCode::kInvalidArgument,
                "has " + std::to_string(info.input_count()) +
                    " inputs; expected 9 (condition, X, x_scale, x_zero_point, Y, y_scale, "
                    "y_zero_point, z_scale, z_zero_point)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& c = ctx.Input(0);
    const Tensor& x = ctx.Input(1);
    const Tensor& yv = ctx.Input(4);
    if (c.type() != DataType::kBool) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'condition' has element type ") +
                                                 DataTypeName(c.type()) + "; expected bool");
    }
    RequireInt8(info, x, "X");
    if (yv.type() != x.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'Y' has element type ") +
                                                 DataTypeName(yv.type()) + "; expected " +
                                                 DataTypeName(x.type()) + " (X's)");
    }
    const QParams qx = ReadQParams(info, ctx.OptionalInput(2), ctx.OptionalInput(3), "x_scale",
                                   "x_zero_point", x.type());
    const QParams qy = ReadQParams(info, ctx.OptionalInput(5), ctx.OptionalInput(6), "y_scale",
                                   "y_zero_point", x.type());
    const QParams qz = ReadQParams(info, ctx.OptionalInput(7), ctx.OptionalInput(8), "z_scale",
                                   "z_zero_point", x.type());
    SmallVector<int64_t> out(c.shape().dims());
    BroadcastInto(info, out, x.shape().dims(), "X");
    BroadcastInto(info, out, yv.shape().dims(), "Y");
    Tensor& z = ctx.OutputForOverwrite(0, x.type(), out.span());
    if (z.element_count() == 0) return;
    auto* tx = ctx.Scratch<uint8_t>(256);
    auto* ty = ctx.Scratch<uint8_t>(256);
    auto table = [&](const QParams& q, uint8_t* t) {
      if (x.type() == DataType::kInt8) {
        BuildTable<int8_t>(
            q, qz, [](float v) { return v; }, t);
      } else {
        BuildTable<uint8_t>(
            q, qz, [](float v) { return v; }, t);
      }
    };
    table(qx, tx);
    table(qy, ty);
    const BroadcastPlan plan(out.span(), {c.shape().dims(), x.shape().dims(), yv.shape().dims()});
    RunTernary(ctx.threads(), plan, static_cast<const bool*>(c.data()),
               static_cast<const uint8_t*>(x.data()), static_cast<const uint8_t*>(yv.data()),
               static_cast<uint8_t*>(z.data()),
               [tx, ty](bool cond, uint8_t a, uint8_t b) { return cond ? tx[a] : ty[b]; });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeQLinearAdd(const KernelInfo& info) {
  return std::make_unique<QLinearBinary>(info, BinaryOp::kAdd);
}
std::unique_ptr<Kernel> MakeQLinearMul(const KernelInfo& info) {
  return std::make_unique<QLinearBinary>(info, BinaryOp::kMul);
}
std::unique_ptr<Kernel> MakeQLinearSigmoid(const KernelInfo& info) {
  return std::make_unique<QLinearLookup>(info, LookupOp::kSigmoid);
}
std::unique_ptr<Kernel> MakeQLinearLeakyRelu(const KernelInfo& info) {
  return std::make_unique<QLinearLookup>(info, LookupOp::kLeakyRelu);
}
std::unique_ptr<Kernel> MakeQLinearSwish(const KernelInfo& info) {
  return std::make_unique<QLinearLookup>(info, LookupOp::kSwish);
}
std::unique_ptr<Kernel> MakeQLinearGlobalAveragePool(const KernelInfo& info) {
  return std::make_unique<QLinearGlobalAveragePool>(info);
}
std::unique_ptr<Kernel> MakeQLinearAveragePool(const KernelInfo& info) {
  return std::make_unique<QLinearAveragePool>(info);
}
std::unique_ptr<Kernel> MakeQLinearConcat(const KernelInfo& info) {
  return std::make_unique<QLinearConcat>(info);
}

std::unique_ptr<Kernel> MakeQLinearSoftmax(const KernelInfo& info) {
  return std::make_unique<QLinearSoftmax>(info);
}
std::unique_ptr<Kernel> MakeQLinearWhere(const KernelInfo& info) {
  return std::make_unique<QLinearWhere>(info);
}

}  // namespace kiln::cpu
