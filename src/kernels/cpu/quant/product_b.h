// Internal to kernels/cpu/quant: the right-hand side B of the integer products (MatMulInteger,
// QLinearMatMul, MatMulIntegerToFloat, DynamicQuantizeMatMul), packed for Int8Gemm once when it
// is a constant 2-D matrix (a weight), else per run into the run's scratch, so that a run
// allocates nothing.
//
//   ConstantB constant_ = PackConstantB(info.ConstantInput(1));   // at creation
//   RunB b(constant_, ctx, ctx.Input(1), k, n);                    // per run
//   Int8Gemm(m, a, a_signed, k, b.Matrix(index), za, zb, c, n, &ctx.threads());
#ifndef KILN_KERNELS_CPU_QUANT_PRODUCT_B_H_
#define KILN_KERNELS_CPU_QUANT_PRODUCT_B_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/tensor.h"
#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

using ConstantB = std::unique_ptr<Int8PackedB>;

// b packed when it is a constant 2-D int8 or uint8 tensor (null otherwise: packed per run).
inline ConstantB PackConstantB(const Tensor* b) {
  if (b == nullptr || b->shape().rank() != 2 ||
      (b->type() != DataType::kInt8 && b->type() != DataType::kUint8)) {
    return nullptr;
  }
  const auto k = static_cast<size_t>(b->shape().dims()[0]);
  const auto n = static_cast<size_t>(b->shape().dims()[1]);
  return std::make_unique<Int8PackedB>(
      Int8PackedB::Pack(b->data(), b->type() == DataType::kInt8, n, k, n));
}

// One run's matrices of B (each k × n, one after another in b's data; b of an 8-bit type): the
// constant one packed at creation, or each packed into scratch when first asked for (the last
// one packed is kept, so a B broadcast over A's batch is packed once).
class RunB {
 public:
  RunB(const ConstantB& constant, KernelContext& ctx, const Tensor& b, size_t k, size_t n)
      : constant_(constant.get()),
        bytes_(static_cast<const uint8_t*>(b.data())),
        b_signed_(b.type() == DataType::kInt8),
        k_(k),
        n_(n) {
    if (constant_ == nullptr) {
      panels_ = ctx.Scratch<int8_t>(Int8PackedB::PanelBytes(k, n));
      sums_ = ctx.Scratch<int32_t>(std::max<size_t>(n, 1));
    }
  }

  // Matrix `index` of B, packed.
  const Int8PackedB& Matrix(size_t index) {
    if (constant_ != nullptr) return *constant_;
    if (packed_at_ != index) {
      packed_ =
          Int8PackedB::PackInto(panels_, sums_, bytes_ + index * k_ * n_, b_signed_, n_, k_, n_);
      packed_at_ = index;
    }
    return packed_;
  }

 private:
  const Int8PackedB* constant_;
  const uint8_t* bytes_;
  bool b_signed_;
  size_t k_, n_;
  int8_t* panels_ = nullptr;
  int32_t* sums_ = nullptr;
  size_t packed_at_ = SIZE_MAX;
  Int8PackedB packed_;
};

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_PRODUCT_B_H_
