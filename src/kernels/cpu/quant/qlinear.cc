// Integer matrix products and convolutions over int8/uint8 operands:
//   MatMulInteger (10+): int32 Y = (A - a_zero_point) @ (B - b_zero_point), numpy matmul shapes
//     (1-D operands promoted, batch dimensions broadcast); a_zero_point is one value or one per
//     row of A (M), b_zero_point one value or one per column of B (N).
//   QLinearMatMul (10, 21): the same product requantized,
//     y = saturate(round_half_even(acc * (a_scale * b_scale / y_scale)) + y_zero_point),
//     the multiplier computed in the scales' type (float from 10; float16/bfloat16 too from 21)
//     and applied in double, as the ONNX reference does; scales and zero points per tensor or
//     per row of A / per column of B.
//   ConvInteger (10+): int32 convolution of (x - x_zero_point) and (w - w_zero_point) (w's per
//     output channel M or one), Conv's attributes; padding contributes 0.
//   QLinearConv (10+): that convolution plus the optional int32 bias B, requantized like
//     QLinearMatMul with w_scale per tensor or per output channel.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/cpu/quant/int_conv.h"
#include "kernels/cpu/quant/product_b.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {

void RequireInt8(const KernelInfo& info, const Tensor& t, const char* name) {
  if (!IsInt8(t.type())) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has element type " +
                                               DataTypeName(t.type()) + "; expected int8 or uint8");
  }
}

namespace {

using quant::LoadElement;

// A per-tensor or per-index (zero point or scale) operand: `count` is 1 or the size of the
// dimension it follows. A missing operand reads as 0.
struct Param {
  const Tensor* t = nullptr;
  size_t count = 1;
  double At(size_t i) const noexcept {
    if (t == nullptr) return 0;
    return LoadElement(t->type(), t->data(), count == 1 ? 0 : i);
  }
};

Param ReadParam(const KernelInfo& info, const Tensor* t, const char* name, size_t per,
                const char* per_what, DataType same_as) {
  Param p;
  p.t = t;
  if (t == nullptr) return p;
  if (same_as != DataType::kUndefined && t->type() != same_as) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has element type " +
                                               DataTypeName(t->type()) + "; expected " +
                                               DataTypeName(same_as));
  }
  const size_t n = t->element_count();
  if (t->shape().rank() > 1 || (n != 1 && n != per)) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + name + "' has shape " + t->shape().ToString() +
                  "; expected one value or one per " + per_what + " (" + std::to_string(per) + ")");
  }
  p.count = n;
  return p;
}

// The shapes of a numpy matmul: batch dims broadcast, 1-D operands promoted.
struct MatMulShape {
  size_t m = 1, k = 1, n = 1;
  SmallVector<int64_t> out;       // output dims
  SmallVector<int64_t> batch;     // broadcast batch dims
  SmallVector<size_t> a_strides;  // per batch dim, in matrices (0 where broadcast)
  SmallVector<size_t> b_strides;
  size_t batch_count = 1;
};

MatMulShape ResolveMatMul(const KernelInfo& info, const Shape& a, const Shape& b) {
  if (a.rank() == 0 || b.rank() == 0) {
    info.Fail(ErrorCode::kInvalidArgument, "inputs 'A' " + a.ToString() + " and 'B' " +
                                               b.ToString() + " must have rank 1 or more");
  }
  SmallVector<int64_t> ad(a.dims());
  SmallVector<int64_t> bd(b.dims());
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(0, 1);
  if (b_vec) bd.push_back(1);
  MatMulShape s;
  s.m = static_cast<size_t>(ad[ad.size() - 2]);
  s.k = static_cast<size_t>(ad.back());
  s.n = static_cast<size_t>(bd.back());
  if (bd[bd.size() - 2] != ad.back()) {
    info.Fail(ErrorCode::kInvalidArgument, "input 'A' " + a.ToString() + " and input 'B' " +
                                               b.ToString() + " have different inner dimensions");
  }
  const size_t ab = ad.size() - 2, bb = bd.size() - 2;
  const size_t rank = std::max(ab, bb);
  s.batch.resize(rank);
  s.a_strides.resize(rank);
  s.b_strides.resize(rank);
  size_t as = 1, bs = 1;
  for (size_t d = rank; d-- > 0;) {
    const int64_t x = d + ab >= rank ? ad[d + ab - rank] : 1;
    const int64_t y = d + bb >= rank ? bd[d + bb - rank] : 1;
    if (x != y && x != 1 && y != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'A' " + a.ToString() + " and input 'B' " +
                                                 b.ToString() + " have batch dimensions that " +
                                                 "do not broadcast");
    }
    s.batch[d] = x == 1 ? y : x;
    s.a_strides[d] = x == 1 ? 0 : as;
    s.b_strides[d] = y == 1 ? 0 : bs;
    as *= static_cast<size_t>(x);
    bs *= static_cast<size_t>(y);
    s.batch_count *= static_cast<size_t>(s.batch[d]);
  }
  s.out = s.batch;
  if (!a_vec) s.out.push_back(static_cast<int64_t>(s.m));
  if (!b_vec) s.out.push_back(static_cast<int64_t>(s.n));
  return s;
}

// Calls fn(batch, a_matrix, b_matrix) for every output matrix.
template <typename F>
void ForEachBatch(const MatMulShape& s, F&& fn) {
  SmallVector<int64_t> idx(s.batch.size(), 0);
  for (size_t i = 0; i < s.batch_count; ++i) {
    size_t a = 0, b = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      a += static_cast<size_t>(idx[d]) * s.a_strides[d];
      b += static_cast<size_t>(idx[d]) * s.b_strides[d];
    }
    fn(i, a, b);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < s.batch[d]) break;
      idx[d] = 0;
    }
  }
}

// a * b / c rounded to `t` after each step, as numpy computes with arrays of that type.
double Multiplier(DataType t, double a, double b, double c) {
  auto round = [t](double v) -> double {
    if (t == DataType::kDouble) return v;
    const auto f = static_cast<float>(v);
    if (t == DataType::kFloat16) return Float16::FromFloat(f).ToFloat();
    if (t == DataType::kBfloat16) return BFloat16::FromFloat(f).ToFloat();
    return f;
  };
  return round(round(a * b) / c);
}

void RequireScale(const KernelInfo& info, const Tensor& t, const char* name, bool halves) {
  const DataType s = t.type();
  const bool ok =
      s == DataType::kFloat || (halves && (s == DataType::kFloat16 || s == DataType::kBfloat16));
  if (!ok) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + name + "' has element type " + DataTypeName(s) +
                  (halves ? "; expected float, float16 or bfloat16" : "; expected float"));
  }
}

// A zero point's values as int32, one or one per row / column (into ctx's scratch).
std::span<const int32_t> ZeroPoints(KernelContext& ctx, const Param& p) {
  auto* z = ctx.Scratch<int32_t>(p.count);
  for (size_t i = 0; i < p.count; ++i) z[i] = static_cast<int32_t>(p.At(i));
  return {z, p.count};
}

class MatMulInteger final : public Kernel {
 public:
  // A constant 2-D B (a weight, as dynamic quantization leaves it) is packed once here.
  explicit MatMulInteger(const KernelInfo& info) : b_(PackConstantB(info.ConstantInput(1))) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireInt8(info, a, "A");
    RequireInt8(info, b, "B");
    const MatMulShape s = ResolveMatMul(info, a.shape(), b.shape());
    const Param azp =
        ReadParam(info, ctx.OptionalInput(2), "a_zero_point", s.m, "row of A", a.type());
    const Param bzp =
        ReadParam(info, ctx.OptionalInput(3), "b_zero_point", s.n, "column of B", b.type());
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kInt32, s.out.span());
    auto* ys = static_cast<int32_t*>(y.data());
    const std::span<const int32_t> za = ZeroPoints(ctx, azp);
    const std::span<const int32_t> zb = ZeroPoints(ctx, bzp);
    const bool a_signed = a.type() == DataType::kInt8;
    const auto* a_bytes = static_cast<const uint8_t*>(a.data());
    RunB run_b(b_, ctx, b, s.k, s.n);
    ForEachBatch(s, [&](size_t i, size_t am, size_t bm) {
      Int8Gemm(s.m, a_bytes + am * s.m * s.k, a_signed, s.k, run_b.Matrix(bm), za, zb,
               ys + i * s.m * s.n, s.n, &ctx.threads());
    });
  }

 private:
  ConstantB b_;
};

class QLinearMatMul final : public Kernel {
 public:
  // A constant 2-D b (a weight, as a QDQ MatMul leaves it) is packed once here.
  explicit QLinearMatMul(const KernelInfo& info) : b_(PackConstantB(info.ConstantInput(3))) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(3);
    RequireInt8(info, a, "a");
    RequireInt8(info, b, "b");
    const MatMulShape s = ResolveMatMul(info, a.shape(), b.shape());
    const bool halves = info.opset() >= 21;
    const Tensor& a_scale = ctx.Input(1);
    const Tensor& b_scale = ctx.Input(4);
    const Tensor& y_scale = ctx.Input(6);
    RequireScale(info, a_scale, "a_scale", halves);
    RequireScale(info, b_scale, "b_scale", halves);
    RequireScale(info, y_scale, "y_scale", halves);
    if (b_scale.type() != a_scale.type() || y_scale.type() != a_scale.type()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'a_scale', 'b_scale' and 'y_scale' must have the same element type");
    }
    const Tensor& y_zp_t = ctx.Input(7);
    RequireInt8(info, y_zp_t, "y_zero_point");
    const Param as = ReadParam(info, &a_scale, "a_scale", s.m, "row of a", DataType::kUndefined);
    const Param azp = ReadParam(info, &ctx.Input(2), "a_zero_point", s.m, "row of a", a.type());
    const Param bs = ReadParam(info, &b_scale, "b_scale", s.n, "column of b", DataType::kUndefined);
    const Param bzp = ReadParam(info, &ctx.Input(5), "b_zero_point", s.n, "column of b", b.type());
    const Param ys = ReadParam(info, &y_scale, "y_scale", 1, "tensor", DataType::kUndefined);
    const Param yzp = ReadParam(info, &y_zp_t, "y_zero_point", 1, "tensor", DataType::kUndefined);
    Tensor& y = ctx.OutputForOverwrite(0, y_zp_t.type(), s.out.span());
    const size_t mn = s.m * s.n;
    int32_t* acc = ctx.Scratch<int32_t>(mn);
    const double y_s = ys.At(0);
    const auto y_z = static_cast<int32_t>(yzp.At(0));
    const std::span<const int32_t> za = ZeroPoints(ctx, azp);
    const std::span<const int32_t> zb = ZeroPoints(ctx, bzp);
    const auto* a_bytes = static_cast<const uint8_t*>(a.data());
    RunB run_b(b_, ctx, b, s.k, s.n);
    // The multipliers of a row (all rows' when a_scale is one value).
    auto* mult = ctx.Scratch<float>(std::max<size_t>(s.n, 1));
    const auto row_multipliers = [&](size_t r) {
      for (size_t c = 0; c < s.n; ++c)
        mult[c] = static_cast<float>(Multiplier(a_scale.type(), as.At(r), bs.At(c), y_s));
    };
    if (as.count == 1) row_multipliers(0);
    auto* yb = static_cast<uint8_t*>(y.data());
    const bool s8 = y.type() == DataType::kInt8;
    ForEachBatch(s, [&](size_t i, size_t am, size_t bm) {
      Int8Gemm(s.m, a_bytes + am * s.m * s.k, a.type() == DataType::kInt8, s.k, run_b.Matrix(bm),
               za, zb, acc, s.n, &ctx.threads());
      for (size_t r = 0; r < s.m; ++r) {
        if (as.count != 1) row_multipliers(r);
        uint8_t* yr = yb + i * mn + r * s.n;
        if (s8) {
          RequantizeRow(acc + r * s.n, s.n, nullptr, mult, y_z, reinterpret_cast<int8_t*>(yr));
        } else {
          RequantizeRow(acc + r * s.n, s.n, nullptr, mult, y_z, yr);
        }
      }
    });
  }

 private:
  ConstantB b_;
};

// fn(begin, end) over blocks of 256 output positions, shared over ctx's threads.
template <typename F>
void ForEachPositionBlock(KernelContext& ctx, size_t plane, F&& fn) {
  constexpr size_t kBlock = 256;
  ctx.threads().ParallelFor((plane + kBlock - 1) / kBlock, 1, [&](size_t b0, size_t b1) {
    fn(b0 * kBlock, std::min(plane, b1 * kBlock));
  });
}

// x's dimensions as [N, C, spatial...]: reordered from [N, spatial..., C] when channels last.
SmallVector<int64_t> ChannelsFirstDims(const Shape& x, bool channels_last) {
  SmallVector<int64_t> d(x.dims());
  if (channels_last && d.size() >= 3) {
    const int64_t c = d.back();
    for (size_t i = d.size() - 1; i > 1; --i) d[i] = d[i - 1];
    d[1] = c;
  }
  return d;
}

class ConvInteger final : public Kernel {
 public:
  explicit ConvInteger(const KernelInfo& info)
      : conv_(info),
        packed_(
            conv_.PackConstant(info.ConstantInput(1), info.ConstantInput(3), !info.HasInput(3))) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    RequireInt8(info, x, "x");
    RequireInt8(info, w, "w");
    const IntConv::Problem p =
        conv_.Resolve(info, std::span<const int64_t>(x.shape().dims()), w.shape(), "x", "w");
    const Param xzp = ReadParam(info, ctx.OptionalInput(2), "x_zero_point", 1, "tensor", x.type());
    const Param wzp = ReadParam(info, ctx.OptionalInput(3), "w_zero_point", p.features,
                                "output channel", w.type());
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kInt32, p.out.span());
    auto* ys = static_cast<int32_t*>(y.data());
    const size_t plane = p.g.out_size;
    // Each group's sums gathered channels-last, then transposed into the output's planes.
    auto* sums = ctx.Scratch<int32_t>(std::max<size_t>(plane * p.features, 1));
    IntConv::Run(
        ctx, p, x, false, w, static_cast<int32_t>(xzp.At(0)), ZeroPoints(ctx, wzp), packed_,
        [&](size_t, size_t, size_t features, size_t pos0, size_t count, const int32_t* s,
            size_t ld) {
          for (size_t r = 0; r < count; ++r) {
            std::memcpy(sums + (pos0 + r) * features, s + r * ld, features * sizeof(int32_t));
          }
        },
        [&](size_t n, size_t first, size_t features) {
          int32_t* dst = ys + (n * p.features + first) * plane;
          ForEachPositionBlock(ctx, plane, [&](size_t o0, size_t o1) {
            TransposeBlocked(sums + o0 * features, o1 - o0, features, features, dst + o0, plane);
          });
        });
  }

 private:
  IntConv conv_;
  IntConv::Weights packed_;
};

// QLinearConv, and as ai.kiln NhwcQLinearConv its channels-last form (x [N, spatial..., C], y
// [N, spatial..., M]; the same inputs and attributes), which the layout pass makes at level 3:
// it requantizes each block of sums straight into the output's rows.
class QLinearConv final : public Kernel {
 public:
  QLinearConv(const KernelInfo& info, bool channels_last)
      : conv_(info),
        packed_(conv_.PackConstant(info.ConstantInput(3), info.ConstantInput(5))),
        channels_last_(channels_last) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(3);
    RequireInt8(info, x, "x");
    RequireInt8(info, w, "w");
    const SmallVector<int64_t> x_dims = ChannelsFirstDims(x.shape(), channels_last_);
    const IntConv::Problem p = conv_.Resolve(info, x_dims.span(), w.shape(), "x", "w");
    const Tensor& x_scale = ctx.Input(1);
    const Tensor& w_scale = ctx.Input(4);
    const Tensor& y_scale = ctx.Input(6);
    RequireScale(info, x_scale, "x_scale", false);
    RequireScale(info, w_scale, "w_scale", false);
    RequireScale(info, y_scale, "y_scale", false);
    const Tensor& y_zp_t = ctx.Input(7);
    RequireInt8(info, y_zp_t, "y_zero_point");
    const Param xs = ReadParam(info, &x_scale, "x_scale", 1, "tensor", DataType::kUndefined);
    const Param xzp = ReadParam(info, &ctx.Input(2), "x_zero_point", 1, "tensor", x.type());
    const Param ws =
        ReadParam(info, &w_scale, "w_scale", p.features, "output channel", DataType::kUndefined);
    const Param wzp =
        ReadParam(info, &ctx.Input(5), "w_zero_point", p.features, "output channel", w.type());
    const Param ys = ReadParam(info, &y_scale, "y_scale", 1, "tensor", DataType::kUndefined);
    const Param yzp = ReadParam(info, &y_zp_t, "y_zero_point", 1, "tensor", DataType::kUndefined);
    const Tensor* bias = ctx.OptionalInput(8);
    if (bias != nullptr && (bias->type() != DataType::kInt32 || bias->shape().rank() != 1 ||
                            bias->element_count() != p.features)) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'B' is ") +
                                                 DataTypeName(bias->type()) + " " +
                                                 bias->shape().ToString() + "; expected int32 [" +
                                                 std::to_string(p.features) + "]");
    }
    const size_t plane = p.g.out_size;
    SmallVector<int64_t> y_dims = p.out;
    if (channels_last_) {
      for (size_t i = 1; i + 1 < y_dims.size(); ++i) y_dims[i] = p.out[i + 1];
      y_dims.back() = p.out[1];
    }
    Tensor& y = ctx.OutputForOverwrite(0, y_zp_t.type(), y_dims.span());
    const double y_s = ys.At(0);
    const auto y_z = static_cast<int32_t>(yzp.At(0));
    // Per output channel: the multiplier and the bias.
    auto* mult = ctx.Scratch<float>(std::max<size_t>(p.features, 1));
    const int32_t* b = bias != nullptr ? static_cast<const int32_t*>(bias->data()) : nullptr;
    for (size_t m = 0; m < p.features; ++m) {
      mult[m] = static_cast<float>(Multiplier(DataType::kFloat, xs.At(0), ws.At(m), y_s));
    }
    const bool s8 = y.type() == DataType::kInt8;
    auto* yb = static_cast<uint8_t*>(y.data());
    const size_t m_all = p.features;
    // Channels first, a group's requantized rows gather in q, transposed when the group is done.
    uint8_t* q =
        channels_last_ ? nullptr : ctx.Scratch<uint8_t>(std::max<size_t>(plane * m_all, 1));
    IntConv::Run(
        ctx, p, x, channels_last_, w, static_cast<int32_t>(xzp.At(0)), ZeroPoints(ctx, wzp),
        packed_,
        [&](size_t n, size_t first, size_t features, size_t pos0, size_t count, const int32_t* sums,
            size_t ld) {
          // The block's rows at once: straight into the output (channels last), else into q.
          uint8_t* dst =
              channels_last_ ? yb + (n * plane + pos0) * m_all + first : q + pos0 * features;
          const size_t ldy = channels_last_ ? m_all : features;
          const int32_t* bias_g = b != nullptr ? b + first : nullptr;
          if (s8) {
            RequantizeRows(sums, ld, count, features, bias_g, mult + first, y_z,
                           reinterpret_cast<int8_t*>(dst), ldy);
          } else {
            RequantizeRows(sums, ld, count, features, bias_g, mult + first, y_z, dst, ldy);
          }
        },
        [&](size_t n, size_t first, size_t features) {
          if (channels_last_) return;
          uint8_t* dst = yb + (n * m_all + first) * plane;
          ForEachPositionBlock(ctx, plane, [&](size_t o0, size_t o1) {
            TransposeBlocked(q + o0 * features, o1 - o0, features, features, dst + o0, plane);
          });
        },
        // The same destinations, for the product to requantize into itself.
        [&](size_t n, size_t first, size_t features) {
          Int8Requant rq;
          rq.bias = b != nullptr ? b + first : nullptr;
          rq.mult = mult + first;
          rq.zp = y_z;
          rq.y_signed = s8;
          rq.y = channels_last_ ? yb + n * plane * m_all + first : q;
          rq.ldy = channels_last_ ? m_all : features;
          return rq;
        });
  }

 private:
  IntConv conv_;
  IntConv::Weights packed_;
  bool channels_last_;
};

// com.microsoft QGemm: Gemm over 8-bit operands as ONNX Runtime computes it,
//   acc = (A' - a_zero_point) · (B' - b_zero_point) + C   (int32; C broadcast from a scalar, (N),
//         (1, N), (M, 1) or (M, N)),
//   y = saturate(round_half_even(acc · (alpha · a_scale · b_scale[j] / y_scale)) + y_zero_point)
//       with y_zero_point, else the float acc · alpha · a_scale · b_scale[j] (over y_scale when
//       that is given),
// with A' = transpose(A) under transA and B' likewise; A and B int8 or uint8, a_scale and
// a_zero_point per tensor, b_scale and b_zero_point per tensor or per column of B'.
class QGemm final : public Kernel {
 public:
  // A constant 2-D B (the weight) is packed once here, transposed or not.
  explicit QGemm(const KernelInfo& info)
      : trans_a_(info.GetInt("transA", 0) != 0),
        trans_b_(info.GetInt("transB", 0) != 0),
        alpha_(info.GetFloat("alpha", 1.0f)) {
    const Tensor* b = info.ConstantInput(3);
    if (b != nullptr && b->shape().rank() == 2 && IsInt8(b->type())) {
      const auto d0 = static_cast<size_t>(b->shape().dims()[0]);
      const auto d1 = static_cast<size_t>(b->shape().dims()[1]);
      b_ = std::make_unique<Int8PackedB>(Int8PackedB::Pack(b->data(), b->type() == DataType::kInt8,
                                                           d1, trans_b_ ? d1 : d0,
                                                           trans_b_ ? d0 : d1, trans_b_));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(3);
    RequireInt8(info, a, "A");
    RequireInt8(info, b, "B");
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'A' " + a.shape().ToString() + " and 'B' " +
                                                 b.shape().ToString() + " must be 2-D");
    }
    const auto ad = a.shape().dims();
    const auto bd = b.shape().dims();
    const auto m = static_cast<size_t>(trans_a_ ? ad[1] : ad[0]);
    const auto k = static_cast<size_t>(trans_a_ ? ad[0] : ad[1]);
    const auto kb = static_cast<size_t>(trans_b_ ? bd[1] : bd[0]);
    const auto n = static_cast<size_t>(trans_b_ ? bd[0] : bd[1]);
    if (k != kb) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'A' " + a.shape().ToString() + " (transA " + std::to_string(trans_a_) +
                    ") and input 'B' " + b.shape().ToString() + " (transB " +
                    std::to_string(trans_b_) + ") have different inner dimensions");
    }
    const Param as = ReadParam(info, &ctx.Input(1), "a_scale", 1, "tensor", DataType::kFloat);
    const Param azp = ReadParam(info, &ctx.Input(2), "a_zero_point", 1, "tensor", a.type());
    const Param bs = ReadParam(info, &ctx.Input(4), "b_scale", n, "column of B", DataType::kFloat);
    const Param bzp =
        ReadParam(info, ctx.OptionalInput(5), "b_zero_point", n, "column of B", b.type());
    const Tensor* c = ctx.OptionalInput(6);
    if (c != nullptr) CheckBias(info, *c, m, n);
    const Tensor* y_scale = ctx.OptionalInput(7);
    const Tensor* y_zp = ctx.OptionalInput(8);
    const Param ys = ReadParam(info, y_scale, "y_scale", 1, "tensor", DataType::kFloat);
    if (y_zp != nullptr) {
      RequireInt8(info, *y_zp, "y_zero_point");
      if (y_scale == nullptr) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'y_zero_point' is given without 'y_scale'; a quantized output needs both");
      }
    }
    const Param yzp = ReadParam(info, y_zp, "y_zero_point", 1, "tensor", DataType::kUndefined);
    const std::array<int64_t, 2> dims{static_cast<int64_t>(m), static_cast<int64_t>(n)};
    Tensor& y = ctx.OutputForOverwrite(0, y_zp != nullptr ? y_zp->type() : DataType::kFloat, dims);
    if (m == 0 || n == 0) return;

    int32_t* acc = ctx.Scratch<int32_t>(m * n);
    if (k == 0) {
      std::fill(acc, acc + m * n, 0);
    } else {
      const auto* a_bytes = static_cast<const uint8_t*>(a.data());
      if (trans_a_) {
        auto* at = ctx.Scratch<uint8_t>(m * k);
        TransposeBlocked(a_bytes, k, m, m, at, k);
        a_bytes = at;
      }
      Int8PackedB run_b;
      const Int8PackedB* packed = b_.get();
      if (packed == nullptr) {
        run_b = Int8PackedB::PackInto(
            ctx.Scratch<int8_t>(Int8PackedB::PanelBytes(k, n)), ctx.Scratch<int32_t>(n), b.data(),
            b.type() == DataType::kInt8, static_cast<size_t>(bd[1]), k, n, trans_b_);
        packed = &run_b;
      }
      Int8Gemm(m, a_bytes, a.type() == DataType::kInt8, k, *packed, ZeroPoints(ctx, azp),
               ZeroPoints(ctx, bzp), acc, n, &ctx.threads());
    }
    if (c != nullptr) AddBias(*c, m, n, acc);

    // The output scale of each column, in float as ONNX Runtime makes it.
    auto* scale = ctx.Scratch<float>(n);
    const auto a_s = static_cast<float>(as.At(0));
    for (size_t j = 0; j < n; ++j) {
      float v = alpha_ * a_s * static_cast<float>(bs.At(j));
      if (y_scale != nullptr) v /= static_cast<float>(ys.At(0));
      scale[j] = v;
    }
    if (y_zp == nullptr) {
      auto* yf = static_cast<float*>(y.data());
      ctx.threads().ParallelFor(m, std::max<size_t>(1, 16384 / n), [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          for (size_t j = 0; j < n; ++j) {
            yf[r * n + j] = static_cast<float>(acc[r * n + j]) * static_cast<float>(scale[j]);
          }
        }
      });
      return;
    }

    const auto y_z = static_cast<int32_t>(yzp.At(0));
    auto* yb = static_cast<uint8_t*>(y.data());
    const bool s8 = y.type() == DataType::kInt8;
    ctx.threads().ParallelFor(m, std::max<size_t>(1, 16384 / n), [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        if (s8) {
          RequantizeRow(acc + r * n, n, nullptr, scale, y_z, reinterpret_cast<int8_t*>(yb + r * n));
        } else {
          RequantizeRow(acc + r * n, n, nullptr, scale, y_z, yb + r * n);
        }
      }
    });
  }

 private:
  static void CheckBias(const KernelInfo& info, const Tensor& c, size_t m, size_t n) {
    if (c.type() != DataType::kInt32) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'C' has element type ") +
                                                 DataTypeName(c.type()) + "; expected int32");
    }
    const auto d = c.shape().dims();
    const auto sm = static_cast<int64_t>(m), sn = static_cast<int64_t>(n);
    const bool ok = c.element_count() == 1 || (d.size() == 1 && d[0] == sn) ||
                    (d.size() == 2 && (d[0] == 1 || d[0] == sm) && (d[1] == 1 || d[1] == sn));
    if (!ok) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'C' has shape " + c.shape().ToString() +
                                                 "; it must broadcast to (" + std::to_string(m) +
                                                 ", " + std::to_string(n) + ")");
    }
  }

  // acc += C broadcast to m × n.
  static void AddBias(const Tensor& c, size_t m, size_t n, int32_t* acc) {
    const auto* cv = static_cast<const int32_t*>(c.data());
    const auto d = c.shape().dims();
    const bool per_row = d.size() == 2 && d[0] != 1;
    const bool per_col = c.element_count() != 1 && (d.size() == 1 || d[1] != 1);
    for (size_t r = 0; r < m; ++r) {
      for (size_t j = 0; j < n; ++j) {
        acc[r * n + j] += cv[(per_row ? r * (per_col ? n : 1) : 0) + (per_col ? j : 0)];
      }
    }
  }

  bool trans_a_;
  bool trans_b_;
  float alpha_;
  std::unique_ptr<Int8PackedB> b_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInfo& info) {
  return Make<MatMulInteger>(info);
}
std::unique_ptr<Kernel> MakeQLinearMatMul(const KernelInfo& info) {
  return Make<QLinearMatMul>(info);
}
std::unique_ptr<Kernel> MakeConvInteger(const KernelInfo& info) {
  return Make<ConvInteger>(info);
}
std::unique_ptr<Kernel> MakeQGemm(const KernelInfo& info) {
  return std::make_unique<QGemm>(info);
}

std::unique_ptr<Kernel> MakeQLinearConv(const KernelInfo& info) {
  return std::make_unique<QLinearConv>(info, false);
}

std::unique_ptr<Kernel> MakeNhwcQLinearConv(const KernelInfo& info) {
  return std::make_unique<QLinearConv>(info, true);
}

// com.microsoft QLinearConv, which ONNX Runtime's NHWC transformer writes (level all): ONNX's,
// with attribute channels_last (1: X and Y channels-last, W as ONNX's).
std::unique_ptr<Kernel> MakeMsQLinearConv(const KernelInfo& info) {
  return std::make_unique<QLinearConv>(info, info.GetInt("channels_last", 0) != 0);
}

}  // namespace kiln::cpu
