// The com.microsoft products of quantized operands to float (opset 1 of that domain), as ONNX
// Runtime's quantization tools emit them and dynamic_quant_fusion makes them:
//   MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?):
//     Y = float((A - a_zero_point) · (B - b_zero_point)) · (a_scale · b_scale) + bias
//   DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?): A (float) quantized to uint8 as
//     DynamicQuantizeLinear does (a_scale and a_zero_point from its range), then the same.
// A is [..., K] (int8 or uint8; float for DynamicQuantizeMatMul) and B a 2-D [K, N] int8 or uint8
// (packed once at creation when it is a constant); Y is [..., N] float. a_scale and a_zero_point
// are one value; b_scale and b_zero_point one value or one per column of B (N); bias [N]. The
// product runs on Int8Gemm (int32 sums, exact), then each value is converted to float, multiplied
// by a_scale · b_scale (computed in float) and the bias added, in that order: the bits of
// DynamicQuantizeLinear → MatMulInteger → Cast → Mul(·, Mul(a_scale, b_scale)) → Add(·, bias).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/cpu/quant/product_b.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

// y[j] = float(acc[j]) · (a_scale · b_scale[j]) (+ bias[j]), j < n; b_scale one value when
// `per_column` is false.
KILN_VECTOR_CLONES void ToFloatRow(const int32_t* acc, size_t n, float a_scale,
                                   const float* b_scale, bool per_column, const float* bias,
                                   float* y) {
  if (per_column) {
    for (size_t j = 0; j < n; ++j) y[j] = static_cast<float>(acc[j]) * (a_scale * b_scale[j]);
  } else {
    const float mult = a_scale * b_scale[0];
    for (size_t j = 0; j < n; ++j) y[j] = static_cast<float>(acc[j]) * mult;
  }
  if (bias != nullptr) {
    for (size_t j = 0; j < n; ++j) y[j] = y[j] + bias[j];
  }
}

// The part both ops share: B, its scale and zero point, the bias, the product and the epilogue.
class QuantizedToFloat {
 public:
  // Input indices of B, b_scale, b_zero_point and bias.
  struct Inputs {
    size_t b, b_scale, b_zero_point, bias;
  };

  QuantizedToFloat(const KernelInfo& info, Inputs in)
      : in_(in), b_(PackConstantB(info.ConstantInput(in.b))) {}

  // Y = float(A' · B') · (a_scale · b_scale) + bias for A (unsigned or signed bytes, rows of k)
  // and its one zero point; A's shape gives Y's leading dimensions.
  void Run(KernelContext& ctx, const Shape& a_shape, const void* a, bool a_signed, int32_t a_zero,
           float a_scale) const {
    const KernelInfo& info = ctx.info();
    const Tensor& b = ctx.Input(in_.b);
    if (!IsInt8(b.type())) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'B' has element type ") +
                                                 DataTypeName(b.type()) +
                                                 "; expected int8 or uint8");
    }
    if (b.shape().rank() != 2) {
      info.Fail(ErrorCode::kNotImplemented,
                "input 'B' has shape " + b.shape().ToString() + "; only a 2-D B is supported");
    }
    const auto k = static_cast<size_t>(b.shape().dims()[0]);
    const auto n = static_cast<size_t>(b.shape().dims()[1]);
    if (a_shape.rank() == 0 || static_cast<size_t>(a_shape.dims().back()) != k) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'A' has shape " + a_shape.ToString() +
                                                 " and input 'B' " + b.shape().ToString() +
                                                 ": A's last dimension must be B's first");
    }
    const Tensor& b_scale = ctx.Input(in_.b_scale);
    const bool per_column = CheckPerColumn(info, b_scale, "b_scale", n, DataType::kFloat);
    const Tensor* b_zp = ctx.OptionalInput(in_.b_zero_point);
    if (b_zp != nullptr) CheckPerColumn(info, *b_zp, "b_zero_point", n, b.type());
    const Tensor* bias = ctx.OptionalInput(in_.bias);
    if (bias != nullptr && (bias->type() != DataType::kFloat || bias->shape().rank() != 1 ||
                            static_cast<size_t>(bias->shape().dims()[0]) != n)) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'bias' is ") + DataTypeName(bias->type()) + " " +
                    bias->shape().ToString() + "; expected float [" + std::to_string(n) + "]");
    }
    SmallVector<int64_t> out(a_shape.dims());
    out.back() = static_cast<int64_t>(n);
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, out.span());
    size_t m = 1;
    for (size_t d = 0; d + 1 < a_shape.rank(); ++d) m *= static_cast<size_t>(a_shape.dims()[d]);
    if (m == 0 || n == 0) return;
    const size_t zb_count = b_zp != nullptr ? b_zp->element_count() : 1;
    auto* zb = ctx.Scratch<int32_t>(zb_count);
    for (size_t j = 0; j < zb_count; ++j) {
      zb[j] = b_zp == nullptr                   ? 0
              : b_zp->type() == DataType::kInt8 ? static_cast<const int8_t*>(b_zp->data())[j]
                                                : static_cast<const uint8_t*>(b_zp->data())[j];
    }
    RunB run_b(b_, ctx, b, k, n);
    const auto* scales = static_cast<const float*>(b_scale.data());
    const float* bias_data = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    auto* ys = static_cast<float*>(y.data());
    // Each block of rows converted while in cache (ToFloatRow), or each tile in registers by the
    // VNNI kernel with the same per-column multipliers a_scale · b_scale and the same two
    // roundings.
    auto* mult = ctx.Scratch<float>(n);
    for (size_t j = 0; j < n; ++j) mult[j] = a_scale * scales[per_column ? j : 0];
    const auto rows = [&](size_t first, size_t count, const int32_t* c, size_t ldc) {
      for (size_t r = 0; r < count; ++r) {
        ToFloatRow(c + r * ldc, n, a_scale, scales, per_column, bias_data, ys + (first + r) * n);
      }
    };
    const Int8ToFloat to_float{mult, bias_data, ys, n};
    Int8Epilogue epilogue = Int8Epilogue::Of(rows);
    epilogue.to_float = &to_float;
    Int8Gemm(m, a, a_signed, k, run_b.Matrix(0), {&a_zero, 1}, {zb, zb_count}, nullptr, 0,
             &ctx.threads(), epilogue);
  }

 private:
  // Whether t is one value per column (else one value); fails unless it is one of those, of type
  // `type`.
  static bool CheckPerColumn(const KernelInfo& info, const Tensor& t, const char* name, size_t n,
                             DataType type) {
    const size_t count = t.element_count();
    if (t.type() != type || t.shape().rank() > 1 || (count != 1 && count != n)) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + name + "' is " + DataTypeName(t.type()) + " " +
                    t.shape().ToString() + "; expected " + DataTypeName(type) +
                    ", one value or one per column of B (" + std::to_string(n) + ")");
    }
    return count == n && n != 1;
  }

  Inputs in_;
  ConstantB b_;
};

// Input `name` as one value of type `type`: another type is refused as invalid, more values as
// not implemented (per-row or per-column scales and zero points of A).
const Tensor& Single(const KernelInfo& info, const Tensor& t, const char* name, DataType type) {
  if (t.type() != type) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has element type " +
                                               DataTypeName(t.type()) + "; expected " +
                                               DataTypeName(type));
  }
  if (t.element_count() != 1 || t.shape().rank() > 1) {
    info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' has shape " +
                                              t.shape().ToString() +
                                              "; only one value (per tensor) is supported");
  }
  return t;
}

class MatMulIntegerToFloat final : public Kernel {
 public:
  explicit MatMulIntegerToFloat(const KernelInfo& info) : op_(info, {1, 3, 5, 6}) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    if (!IsInt8(a.type())) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'A' has element type ") +
                                                 DataTypeName(a.type()) +
                                                 "; expected int8 or uint8");
    }
    const Tensor& a_scale = Single(info, ctx.Input(2), "a_scale", DataType::kFloat);
    int32_t a_zero = 0;
    if (const Tensor* zp = ctx.OptionalInput(4)) {
      Single(info, *zp, "a_zero_point", a.type());
      a_zero = a.type() == DataType::kInt8 ? *static_cast<const int8_t*>(zp->data())
                                           : *static_cast<const uint8_t*>(zp->data());
    }
    op_.Run(ctx, a.shape(), a.data(), a.type() == DataType::kInt8, a_zero,
            *static_cast<const float*>(a_scale.data()));
  }

 private:
  QuantizedToFloat op_;
};

class DynamicQuantizeMatMul final : public Kernel {
 public:
  explicit DynamicQuantizeMatMul(const KernelInfo& info) : op_(info, {1, 2, 3, 4}) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    if (a.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'A' has element type ") +
                                                 DataTypeName(a.type()) + "; expected float");
    }
    const size_t count = a.element_count();
    auto* q = ctx.Scratch<uint8_t>(std::max<size_t>(count, 1));
    const DynamicQuantization d =
        QuantizeDynamically(ctx, static_cast<const float*>(a.data()), count, q, "A");
    op_.Run(ctx, a.shape(), q, false, static_cast<int32_t>(d.zero_point), d.scale);
  }

 private:
  QuantizedToFloat op_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulIntegerToFloat(const KernelInfo& info) {
  return Make<MatMulIntegerToFloat>(info);
}
std::unique_ptr<Kernel> MakeDynamicQuantizeMatMul(const KernelInfo& info) {
  return Make<DynamicQuantizeMatMul>(info);
}

}  // namespace kiln::cpu
