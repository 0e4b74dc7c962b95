// com.microsoft MatMulBnb4 (opset 1 of the domain): a product with weights quantized to 4 bits
// the bitsandbytes way (ONNX Runtime's matmul_bnb4_quantizer writes it):
//   Y [..., N] = A [..., K] · Wᵀ, W [N, K] with W's flat element i = table[q(i)] · absmax[i / bs]
// where q(i) is the 4-bit code of element i in B (uint8 [(N·K + 1) / 2], element 2j in the high
// nibble of byte j, element 2j + 1 in the low), bs = block_size and the table quant_type's: 0 FP4
// (bitsandbytes' 4-bit float map), 1 NF4 (its normal-float map). Attributes K, N, block_size (a
// power of 2, 16 or more), quant_type, transB (only 1, the layout above: ONNX Runtime's kernel
// computes that product whatever transB says), training_mode (ignored). A float. W is dequantized
// once at creation when B and absmax are constants, else per run into scratch; the product is
// cpu::Gemm against Wᵀ.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/quant/quant_kernels.h"

namespace kiln::cpu {
namespace {

// bitsandbytes' code maps (the values of its FP4 and NF4 4-bit formats on [-1, 1]).
constexpr float kFp4[16] = {
    0.0f,  5.208333333e-03f,  0.66666667f,  1.0f,  0.33333333f,  0.5f,  0.16666667f,  0.25f,
    -0.0f, -5.208333333e-03f, -0.66666667f, -1.0f, -0.33333333f, -0.5f, -0.16666667f, -0.25f};
constexpr float kNf4[16] = {-1.0f,
                            -0.6961928009986877f,
                            -0.5250730514526367f,
                            -0.39491748809814453f,
                            -0.28444138169288635f,
                            -0.18477343022823334f,
                            -0.09105003625154495f,
                            0.0f,
                            0.07958029955625534f,
                            0.16093020141124725f,
                            0.24611230194568634f,
                            0.33791524171829224f,
                            0.44070982933044434f,
                            0.5626170039176941f,
                            0.7229568362236023f,
                            1.0f};

class MatMulBnb4 final : public Kernel {
 public:
  explicit MatMulBnb4(const KernelInfo& info)
      : k_(info.RequireInt("K")),
        n_(info.RequireInt("N")),
        block_(info.RequireInt("block_size")),
        quant_type_(info.RequireInt("quant_type")) {
    if (k_ <= 0 || n_ <= 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'K' (" + std::to_string(k_) + ") and 'N' (" +
                                              std::to_string(n_) + ") must be > 0");
    }
    if (block_ < 16 || (block_ & (block_ - 1)) != 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'block_size' is " + std::to_string(block_) +
                                              "; it must be a power of 2, 16 or more");
    }
    if (quant_type_ != 0 && quant_type_ != 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'quant_type' is " +
                                              std::to_string(quant_type_) +
                                              "; it must be 0 (FP4) or 1 (NF4)");
    }
    if (info.GetInt("transB", 1) != 1) {
      info.Fail(ErrorCode::kNotImplemented,
                "attribute 'transB' 0 is not implemented (B holds W [N, K] row by row)");
    }
    const Tensor* b = info.ConstantInput(1);
    const Tensor* absmax = info.ConstantInput(2);
    if (b != nullptr && absmax != nullptr) {
      CheckWeights(info, *b, *absmax);
      weights_.resize(static_cast<size_t>(n_ * k_));
      Dequantize(*b, *absmax, weights_.data());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    const Tensor& absmax = ctx.Input(2);
    if (a.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'A' is ") + DataTypeName(a.type()) + "; it must be float");
    }
    std::vector<int64_t> dims = a.shape().dims();
    if (dims.empty() || dims.back() != k_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'A' has shape " + a.shape().ToString() +
                    "; its last dimension must be K = " + std::to_string(k_));
    }
    const float* w = weights_.data();
    if (weights_.empty()) CheckWeights(info, b, absmax);
    dims.back() = n_;
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, dims);
    if (y.element_count() == 0) return;
    if (weights_.empty()) {
      float* scratch = ctx.Scratch<float>(static_cast<size_t>(n_ * k_));
      Dequantize(b, absmax, scratch);
      w = scratch;
    }
    const auto k = static_cast<size_t>(k_);
    const auto n = static_cast<size_t>(n_);
    const size_t m = static_cast<size_t>(a.element_count()) / k;
    Gemm<float>(false, true, m, n, k, 1.0f, static_cast<const float*>(a.data()), k, w, k, 0.0f,
                static_cast<float*>(y.data()), n, &ctx.threads());
  }

 private:
  void CheckWeights(const KernelInfo& info, const Tensor& b, const Tensor& absmax) const {
    const int64_t count = n_ * k_;
    if (b.type() != DataType::kUint8 ||
        static_cast<int64_t>(b.element_count()) != (count + 1) / 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'B' is ") + DataTypeName(b.type()) + " " + b.shape().ToString() +
                    "; it must be uint8 of (N·K + 1) / 2 = " + std::to_string((count + 1) / 2) +
                    " elements");
    }
    const int64_t blocks = (count + block_ - 1) / block_;
    if (absmax.type() != DataType::kFloat ||
        static_cast<int64_t>(absmax.element_count()) != blocks) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'absmax' is ") + DataTypeName(absmax.type()) + " " +
                    absmax.shape().ToString() + "; it must be float of ceil(N·K / block_size) = " +
                    std::to_string(blocks) + " elements");
    }
  }

  // W [N, K] from the codes and the blocks' absolute maxima.
  void Dequantize(const Tensor& b, const Tensor& absmax, float* w) const {
    const float* table = quant_type_ == 0 ? kFp4 : kNf4;
    const auto* codes = static_cast<const uint8_t*>(b.data());
    const auto* scale = static_cast<const float*>(absmax.data());
    const auto count = static_cast<size_t>(n_ * k_);
    const auto block = static_cast<size_t>(block_);
    for (size_t i = 0; i < count; ++i) {
      const uint8_t byte = codes[i / 2];
      const unsigned code = (i % 2 == 0) ? byte >> 4 : byte & 0xF;
      w[i] = table[code] * scale[i / block];
    }
  }

  int64_t k_;
  int64_t n_;
  int64_t block_;
  int64_t quant_type_;
  std::vector<float> weights_;  // W [N, K], when B and absmax are constants
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulBnb4(const KernelInfo& info) {
  return Make<MatMulBnb4>(info);
}

}  // namespace kiln::cpu
