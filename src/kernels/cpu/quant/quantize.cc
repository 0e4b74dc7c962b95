// QuantizeLinear (opsets 10, 13, 19, 21, 23, 24, 25+), DequantizeLinear (the same versions) and
// DynamicQuantizeLinear (11+).
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point) for integer
//                     targets; x / y_scale + y_zero_point converted (honouring `saturate`) for
//                     float8 and float4 targets.
//   DequantizeLinear: y = (x - x_zero_point) * x_scale.
// The scale is one value (per tensor), a 1-D tensor along `axis` (13+, per axis) or, with
// `block_size` (21+), a tensor of x's rank whose `axis` dimension is ceil(x_dim / block_size)
// and whose others equal x's (blocked). The zero point, when given, has the scale's shape.
// Quantized types by opset: int8/uint8 from 10; the float8s from 19; int16/uint16/int4/uint4 from
// 21; float4e2m1 from 23; int2/uint2 from 25 (earlier opsets refuse them). Quantize's output type
// is the zero point's, else `output_dtype` (21+), else uint8. Dequantize's output is the scale's
// type, or `output_dtype` (23+). Arithmetic is float32 (float64 for double operands), as the ONNX
// reference computes.
// DynamicQuantizeLinear: y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
// round(clamp(-min / y_scale, 0, 255)), y = saturate(round(x / y_scale) + y_zero_point), all
// uint8; an all-zero (or empty) x gives scale 0, zero point 0 and y 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using quant::IsIntegerType;
using quant::LoadElement;
using quant::RangeOf;
using quant::StoreElement;

// The opset whose definition the node follows: com.microsoft's QuantizeLinear and
// DequantizeLinear (opset 1 of that domain) are ONNX's at 21 (axis; int16, uint16, int4, uint4).
int64_t Opset(const KernelInfo& info) {
  return info.domain() == "com.microsoft" ? 21 : info.opset();
}

// The first opset of (De)QuantizeLinear that allows `t` as the quantized type; 0 for none.
int FirstQuantOpset(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
      return 10;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 19;
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kInt4:
    case DataType::kUint4:
      return 21;
    case DataType::kFloat4E2M1:
      return 23;
    case DataType::kInt2:
    case DataType::kUint2:
      return 25;
    default:
      return 0;
  }
}

void CheckQuantType(const KernelInfo& info, DataType t, const char* what) {
  const int first = FirstQuantOpset(t);
  if (first == 0 || Opset(info) < first) {
    info.Fail(first == 0 ? ErrorCode::kNotImplemented : ErrorCode::kInvalidArgument,
              std::string(what) + " has element type " + DataTypeName(t) + ", which " +
                  info.op_type() + "-" + std::to_string(Opset(info)) + " does not take");
  }
}

bool IsScaleType(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBfloat16 ||
         t == DataType::kDouble;
}

// How x's elements map to scale elements: element i has scale index
//   per tensor: 0;  per axis: (i / inner) % axis_dim;
//   blocked: ((i / (axis_dim * inner)) * scale_axis_dim + ((i / inner) % axis_dim) / block) *
//            inner + i % inner.
struct ScaleLayout {
  bool per_tensor = true;
  size_t axis_dim = 1;
  size_t inner = 1;
  size_t block = 0;
  size_t scale_axis_dim = 1;

  size_t Index(size_t i) const noexcept {
    if (per_tensor) return 0;
    const size_t a = (i / inner) % axis_dim;
    if (block == 0) return a;
    const size_t o = i / (axis_dim * inner);
    return (o * scale_axis_dim + a / block) * inner + i % inner;
  }
};

// Checks the scale (input 1, `scale_name`) and zero point (input 2, optional) against x and
// returns the layout. `axis` and `block` are the attributes (0 where the opset lacks them).
ScaleLayout ResolveLayout(const KernelInfo& info, const Shape& x, const Tensor& scale,
                          const Tensor* zero_point, int64_t axis, int64_t block,
                          const char* scale_name, const char* zp_name) {
  const auto& sd = scale.shape().dims();
  // A one-element zero point goes with any one-element scale ([] and [1] mix in real models).
  const bool both_single = zero_point != nullptr && zero_point->element_count() == 1 &&
                           scale.element_count() == 1 && zero_point->shape().rank() <= 1 &&
                           sd.size() <= 1;
  if (zero_point != nullptr && !both_single && zero_point->shape() != scale.shape()) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + zp_name + "' has shape " +
                                               zero_point->shape().ToString() + " but input '" +
                                               scale_name + "' has " + scale.shape().ToString());
  }
  ScaleLayout l;
  const bool single = scale.element_count() == 1 && sd.size() <= 1;
  if (block == 0 && single) return l;
  if (Opset(info) < 13) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + scale_name + "' has shape " +
                                               scale.shape().ToString() +
                                               "; this opset takes a scalar");
  }
  const size_t rank = x.rank();
  const size_t ax = NormalizeAxis(info, axis, rank);
  const auto& xd = x.dims();
  l.per_tensor = false;
  l.axis_dim = static_cast<size_t>(xd[ax]);
  for (size_t d = ax + 1; d < rank; ++d) l.inner *= static_cast<size_t>(xd[d]);
  if (block == 0) {
    if (sd.size() != 1 || sd[0] != xd[ax]) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + scale_name + "' has shape " + scale.shape().ToString() +
                    "; per-axis scales need one value per element of axis " + std::to_string(ax) +
                    " of x " + x.ToString());
    }
    return l;
  }
  bool ok = sd.size() == rank;
  for (size_t d = 0; ok && d < rank; ++d) {
    const int64_t want = d == ax ? (xd[d] + block - 1) / block : xd[d];
    ok = sd[d] == want;
  }
  if (!ok) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + scale_name + "' has shape " + scale.shape().ToString() +
                  "; with block_size " + std::to_string(block) + " on axis " + std::to_string(ax) +
                  " x " + x.ToString() +
                  " needs x's shape with ceil(dim / block_size) on the axis");
  }
  l.block = static_cast<size_t>(block);
  l.scale_axis_dim = static_cast<size_t>(sd[ax]);
  return l;
}

int64_t ReadBlockSize(const KernelInfo& info) {
  const int64_t block = Opset(info) >= 21 ? info.GetInt("block_size", 0) : 0;
  if (block < 0) {
    info.Fail(ErrorCode::kInvalidArgument,
              "attribute 'block_size' is " + std::to_string(block) + "; it must be >= 0");
  }
  return block;
}

DataType ReadDtypeAttr(const KernelInfo& info, const char* name, int first_opset) {
  if (Opset(info) < first_opset) return DataType::kUndefined;
  const int64_t v = info.GetInt(name, 0);
  if (v < 0 || v > kMaxDataType) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' is " +
                                               std::to_string(v) + ", not an element type");
  }
  return static_cast<DataType>(v);
}

// Rounds (half to even) and clamps an integer quantization result; NaN gives 0.
double RoundToInt(double q, double zero_point, DataType t) {
  if (std::isnan(q)) return 0;
  const quant::IntRange r = RangeOf(t);
  return std::clamp(std::nearbyint(q) + zero_point, r.lo, r.hi);
}

// The float32 fast paths, for what QDQ models and DynamicQuantizeLinear run: float x (or y), a
// float scale, 8-bit integers (and int32 for DequantizeLinear: biases), per tensor or per axis;
// vectorized, and split over the threads for large tensors. The values are the general loop's:
// the division (not a product by the reciprocal), round half to even, the zero point added and
// the result clamped in float (exact below 2^24, and above it the sum clamps to the same bound),
// NaN to 0.
template <typename T>
[[gnu::always_inline]] inline T QuantizeOne(float x, float s, float z) {
  constexpr auto lo = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr auto hi = static_cast<float>(std::numeric_limits<T>::max());
  const float q = x / s;
  const float v = std::min(std::max(std::nearbyint(q) + z, lo), hi);
  return static_cast<T>(q == q ? v : 0.0f);
}

// y[i] = QuantizeOne(x[i], s, z), i < n.
template <typename T>
KILN_VECTOR_CLONES void QuantizeRun(const float* x, size_t n, float s, float z, T* y) {
  for (size_t i = 0; i < n; ++i) y[i] = QuantizeOne<T>(x[i], s, z);
}

// y[i] = QuantizeOne(x[i], s[i], z[i]), i < n: a row along the last axis.
template <typename T>
KILN_VECTOR_CLONES void QuantizeRow(const float* x, size_t n, const float* s, const float* z,
                                    T* y) {
  for (size_t i = 0; i < n; ++i) y[i] = QuantizeOne<T>(x[i], s[i], z[i]);
}

// y[i] = (x[i] - z) · s, i < n.
template <typename T>
KILN_VECTOR_CLONES void DequantizeRun(const T* x, size_t n, float s, float z, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = (static_cast<float>(x[i]) - z) * s;
}

template <typename T>
KILN_VECTOR_CLONES void DequantizeRow(const T* x, size_t n, const float* s, const float* z,
                                      float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = (static_cast<float>(x[i]) - z[i]) * s[i];
}

// The least and greatest of x[0..n) and 0 into *lo and *hi; whether any x is NaN (then *lo and
// *hi are not meaningful). Sixteen lanes of each, combined at the end, so that it vectorizes.
KILN_VECTOR_CLONES bool RangeWithZero(const float* x, size_t n, float* lo, float* hi) {
  constexpr size_t kLanes = 16;
  float l[kLanes] = {};
  float h[kLanes] = {};
  bool nan[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      l[j] = v < l[j] ? v : l[j];
      h[j] = v > h[j] ? v : h[j];
      nan[j] = nan[j] || v != v;
    }
  }
  for (size_t j = 0; i < n; ++i, ++j) {
    const float v = x[i];
    l[j] = v < l[j] ? v : l[j];
    h[j] = v > h[j] ? v : h[j];
    nan[j] = nan[j] || v != v;
  }
  bool any = false;
  for (size_t j = 0; j < kLanes; ++j) {
    *lo = std::min(*lo, l[j]);
    *hi = std::max(*hi, h[j]);
    any = any || nan[j];
  }
  return any;
}

// Elements per share of the threads' work (below it, one thread).
constexpr size_t kFastGrain = size_t{1} << 15;

// Runs fn(x_at, s, z, y_at, count) or, along the last axis, row(x_at, s_array, z_array, y_at,
// count) over x's elements in parallel: the scale (and float zero point) per tensor or per axis.
// scale and zp are converted to float once (zp null: 0).
template <typename Run, typename Row>
void ForEachRun(KernelContext& ctx, const ScaleLayout& l, size_t n, const Tensor& scale,
                const Tensor* zp, Run&& run, Row&& row) {
  const size_t count = l.per_tensor ? 1 : l.axis_dim;
  float* sf = ctx.Scratch<float>(2 * count);
  float* zf = sf + count;
  for (size_t a = 0; a < count; ++a) {
    sf[a] = static_cast<const float*>(scale.data())[a];
    zf[a] = zp != nullptr ? static_cast<float>(LoadElement(zp->type(), zp->data(), a)) : 0.0f;
  }
  if (l.per_tensor) {
    ctx.threads().ParallelFor(
        n, kFastGrain, [&](size_t begin, size_t end) { run(begin, sf[0], zf[0], end - begin); });
    return;
  }
  if (l.inner == 1) {
    const size_t rows = n / l.axis_dim;
    const size_t grain = std::max<size_t>(1, kFastGrain / l.axis_dim);
    ctx.threads().ParallelFor(rows, grain, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) row(r * l.axis_dim, sf, zf, l.axis_dim);
    });
    return;
  }
  const size_t runs = n / l.inner;
  const size_t grain = std::max<size_t>(1, kFastGrain / l.inner);
  ctx.threads().ParallelFor(runs, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const size_t a = r % l.axis_dim;
      run(r * l.inner, sf[a], zf[a], l.inner);
    }
  });
}

template <typename T>
void QuantizeFast(KernelContext& ctx, const ScaleLayout& l, const Tensor& x, const Tensor& scale,
                  const Tensor* zp, Tensor& y) {
  const auto* xs = static_cast<const float*>(x.data());
  auto* ys = static_cast<T*>(y.data());
  ForEachRun(
      ctx, l, x.element_count(), scale, zp,
      [&](size_t at, float s, float z, size_t len) { QuantizeRun<T>(xs + at, len, s, z, ys + at); },
      [&](size_t at, const float* s, const float* z, size_t len) {
        QuantizeRow<T>(xs + at, len, s, z, ys + at);
      });
}

template <typename T>
void DequantizeFast(KernelContext& ctx, const ScaleLayout& l, const Tensor& x, const Tensor& scale,
                    const Tensor* zp, Tensor& y) {
  const auto* xs = static_cast<const T*>(x.data());
  auto* ys = static_cast<float*>(y.data());
  ForEachRun(
      ctx, l, x.element_count(), scale, zp,
      [&](size_t at, float s, float z, size_t len) {
        DequantizeRun<T>(xs + at, len, s, z, ys + at);
      },
      [&](size_t at, const float* s, const float* z, size_t len) {
        DequantizeRow<T>(xs + at, len, s, z, ys + at);
      });
}

class QuantizeLinear final : public Kernel {
 public:
  explicit QuantizeLinear(const KernelInfo& info)
      : axis_(Opset(info) >= 13 ? info.GetInt("axis", 1) : 0),
        block_(ReadBlockSize(info)),
        saturate_(Opset(info) < 19 || info.GetInt("saturate", 1) != 0),
        output_dtype_(ReadDtypeAttr(info, "output_dtype", 21)),
        precision_(ReadDtypeAttr(info, "precision", 25)) {
    if (output_dtype_ != DataType::kUndefined) CheckQuantType(info, output_dtype_, "output_dtype");
    if (precision_ != DataType::kUndefined && !IsScaleType(precision_)) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("attribute 'precision' is ") +
                                                 DataTypeName(precision_) +
                                                 "; it must be a floating-point type");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor* zp = ctx.OptionalInput(2);
    const bool x_ok = IsScaleType(x.type()) || x.type() == DataType::kInt32;
    if (!x_ok) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'x' has element type ") + DataTypeName(x.type()) +
                    "; expected float, float16, bfloat16, double or int32");
    }
    if (!IsScaleType(scale.type())) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'y_scale' has element type ") +
                                                 DataTypeName(scale.type()) +
                                                 "; expected a floating-point type");
    }
    DataType out = output_dtype_ != DataType::kUndefined ? output_dtype_ : DataType::kUint8;
    if (zp != nullptr) {
      if (output_dtype_ != DataType::kUndefined && zp->type() != output_dtype_) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input 'y_zero_point' has element type ") + DataTypeName(zp->type()) +
                      " but attribute 'output_dtype' is " + DataTypeName(output_dtype_));
      }
      out = zp->type();
    }
    CheckQuantType(info, out, zp != nullptr ? "input 'y_zero_point'" : "output 'y'");
    const ScaleLayout l =
        ResolveLayout(info, x.shape(), scale, zp, axis_, block_, "y_scale", "y_zero_point");
    // Packed outputs are written a few bits at a time into zeroed bytes.
    Tensor& y = BitsPerElement(out) < 8 ? ctx.Output(0, out, x.shape())
                                        : ctx.OutputForOverwrite(0, out, x.shape());
    const bool wide = x.type() == DataType::kDouble || scale.type() == DataType::kDouble ||
                      precision_ == DataType::kDouble;
    const bool integer = IsIntegerType(out);
    if (!wide && l.block == 0 && x.type() == DataType::kFloat && scale.type() == DataType::kFloat) {
      if (out == DataType::kUint8) return QuantizeFast<uint8_t>(ctx, l, x, scale, zp, y);
      if (out == DataType::kInt8) return QuantizeFast<int8_t>(ctx, l, x, scale, zp, y);
    }
    const size_t n = x.element_count();
    for (size_t i = 0; i < n; ++i) {
      const size_t s = l.Index(i);
      const double xv = LoadElement(x.type(), x.data(), i);
      const double sv = LoadElement(scale.type(), scale.data(), s);
      const double q =
          wide ? xv / sv : static_cast<double>(static_cast<float>(xv) / static_cast<float>(sv));
      const double z = zp != nullptr ? LoadElement(zp->type(), zp->data(), s) : 0.0;
      StoreElement(out, y.data(), i, integer ? RoundToInt(q, z, out) : q + z, saturate_);
    }
  }

 private:
  int64_t axis_;
  int64_t block_;
  bool saturate_;
  DataType output_dtype_;
  DataType precision_;
};

class DequantizeLinear final : public Kernel {
 public:
  explicit DequantizeLinear(const KernelInfo& info)
      : axis_(Opset(info) >= 13 ? info.GetInt("axis", 1) : 0),
        block_(ReadBlockSize(info)),
        output_dtype_(ReadDtypeAttr(info, "output_dtype", 23)) {
    if (output_dtype_ != DataType::kUndefined && !IsScaleType(output_dtype_)) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("attribute 'output_dtype' is ") +
                                                 DataTypeName(output_dtype_) +
                                                 "; it must be a floating-point type");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor* zp = ctx.OptionalInput(2);
    if (x.type() != DataType::kInt32) CheckQuantType(info, x.type(), "input 'x'");
    if (!IsScaleType(scale.type())) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'x_scale' has element type ") +
                                                 DataTypeName(scale.type()) +
                                                 "; expected a floating-point type");
    }
    if (zp != nullptr && zp->type() != x.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'x_zero_point' has element type ") +
                                                 DataTypeName(zp->type()) + " but input 'x' has " +
                                                 DataTypeName(x.type()));
    }
    const ScaleLayout l =
        ResolveLayout(info, x.shape(), scale, zp, axis_, block_, "x_scale", "x_zero_point");
    const DataType out = output_dtype_ != DataType::kUndefined ? output_dtype_ : scale.type();
    Tensor& y = ctx.OutputForOverwrite(0, out, x.shape());
    const bool wide = out == DataType::kDouble || scale.type() == DataType::kDouble;
    if (!wide && l.block == 0 && out == DataType::kFloat && scale.type() == DataType::kFloat) {
      switch (x.type()) {
        case DataType::kUint8:
          return DequantizeFast<uint8_t>(ctx, l, x, scale, zp, y);
        case DataType::kInt8:
          return DequantizeFast<int8_t>(ctx, l, x, scale, zp, y);
        case DataType::kInt32:
          return DequantizeFast<int32_t>(ctx, l, x, scale, zp, y);
        default:
          break;
      }
    }
    const size_t n = x.element_count();
    for (size_t i = 0; i < n; ++i) {
      const size_t s = l.Index(i);
      const double xv = LoadElement(x.type(), x.data(), i);
      const double z = zp != nullptr ? LoadElement(zp->type(), zp->data(), s) : 0.0;
      const double sv = LoadElement(scale.type(), scale.data(), s);
      const double v = wide ? (xv - z) * sv
                            : static_cast<double>((static_cast<float>(xv) - static_cast<float>(z)) *
                                                  static_cast<float>(sv));
      StoreElement(out, y.data(), i, v, true);
    }
  }

 private:
  int64_t axis_;
  int64_t block_;
  DataType output_dtype_;
};

class DynamicQuantizeLinear final : public Kernel {
 public:
  explicit DynamicQuantizeLinear(const KernelInfo& /*info*/) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (x.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'x' has element type ") +
                                                 DataTypeName(x.type()) + "; expected float");
    }
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kUint8, x.shape());
    const DynamicQuantization q =
        QuantizeDynamically(ctx, static_cast<const float*>(x.data()), x.element_count(),
                            static_cast<uint8_t*>(y.data()), "x");
    const float scale = q.scale;
    const float zero = q.zero_point;
    const std::span<const int64_t> scalar;
    if (ctx.WantsOutput(1)) {
      *static_cast<float*>(ctx.OutputForOverwrite(1, DataType::kFloat, scalar).data()) = scale;
    }
    if (ctx.WantsOutput(2)) {
      *static_cast<uint8_t*>(ctx.OutputForOverwrite(2, DataType::kUint8, scalar).data()) =
          static_cast<uint8_t>(zero);
    }
  }
};

}  // namespace

DynamicQuantization QuantizeDynamically(KernelContext& ctx, const float* x, size_t n, uint8_t* y,
                                        const char* name) {
  // The range always includes 0 so that 0 is exactly representable.
  float lo = 0;
  float hi = 0;
  if (RangeWithZero(x, n, &lo, &hi)) {
    size_t i = 0;
    while (!std::isnan(x[i])) ++i;
    ctx.info().Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' element " +
                                                     std::to_string(i) +
                                                     " is NaN; the range is undefined");
  }
  DynamicQuantization q;
  q.scale = (hi - lo) / 255.0f;
  if (q.scale > 0) q.zero_point = std::nearbyint(std::clamp(0.0f - lo / q.scale, 0.0f, 255.0f));
  // round(x / scale) + zero clamped to [0, 255], as QuantizeLinear to uint8 computes it; a zero
  // scale (x all zeros) gives the zero point, 0.
  ctx.threads().ParallelFor(n, kFastGrain, [&](size_t begin, size_t end) {
    if (q.scale > 0) {
      QuantizeRun<uint8_t>(x + begin, end - begin, q.scale, q.zero_point, y + begin);
    } else {
      std::fill(y + begin, y + end, static_cast<uint8_t>(q.zero_point));
    }
  });
  return q;
}

std::unique_ptr<Kernel> MakeQuantizeLinear(const KernelInfo& info) {
  return Make<QuantizeLinear>(info);
}
std::unique_ptr<Kernel> MakeDequantizeLinear(const KernelInfo& info) {
  return Make<DequantizeLinear>(info);
}
std::unique_ptr<Kernel> MakeDynamicQuantizeLinear(const KernelInfo& info) {
  return Make<DynamicQuantizeLinear>(info);
}

}  // namespace kiln::cpu
