// com.microsoft MatMulNBits (opset 1 of the domain), the product ONNX Runtime's LLM tooling
// writes for weights quantized block-wise to 2, 4 or 8 bits:
//   Y [..., N] = A [..., K] · Wᵀ (+ bias [N]), W [N, K] with W(n, k) = (q(n, k) - zp(n, b)) ·
//   scale(n, b), b = k / block_size (or g_idx[k]).
// Inputs: A (float, float16 or bfloat16: T1); B uint8 [N, k_blocks, block_size · bits / 8], each
// byte holding 8 / bits values from its low bits up; scales T1 [N · k_blocks]; zero_points
// optional, uint8 packed as B is ([N, ceil(k_blocks · bits / 8)]) or T1 [N · k_blocks], absent:
// 2^(bits - 1); g_idx optional int32 [K]; bias optional T1 [N]. Attributes K, N, bits (4),
// block_size (a power of two ≥ 16), accuracy_level (ignored: always computed in float).
// Each column of W is unpacked when it is used, never stored whole: with few rows of A (a
// decoder's token) one column at a time dotted with each row of A, split over the threads by
// columns; with more rows, blocks of 64 columns unpacked into the thread's scratch and
// multiplied on the float GEMM. On AVX-512, 4-bit blocks of a multiple of 32 unpack 32 values at
// a time in registers (quant_avx512.cc), the dots against A's rows de-interleaved by 32 so the
// even and odd nibbles meet their depths without shuffles. The scales and zero points are made
// floats once when they are constants.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/quant/quant_avx512.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBfloat16;
}

float ToFloat(DataType t, const void* data, size_t i) {
  switch (t) {
    case DataType::kFloat16:
      return static_cast<const Float16*>(data)[i].ToFloat();
    case DataType::kBfloat16:
      return static_cast<const BFloat16*>(data)[i].ToFloat();
    default:
      return static_cast<const float*>(data)[i];
  }
}

// dst[i] = float(src[i]) for i < n.
void ToFloats(DataType t, const void* src, size_t n, float* dst) {
  if (t == DataType::kFloat) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = ToFloat(t, src, i);
}

// w[i] = (q_i - zero) · scale for the block's `count` values of `bits` bits in `bytes`, as
// ONNX Runtime dequantizes them.
KILN_VECTOR_CLONES void Unpack4(const uint8_t* bytes, size_t count, float scale, float zero,
                                float* w) {
  for (size_t i = 0; i < count / 2; ++i) {
    w[2 * i] = (static_cast<float>(bytes[i] & 15) - zero) * scale;
    w[2 * i + 1] = (static_cast<float>(bytes[i] >> 4) - zero) * scale;
  }
  if (count % 2 != 0) w[count - 1] = (static_cast<float>(bytes[count / 2] & 15) - zero) * scale;
}

void UnpackBits(const uint8_t* bytes, size_t count, unsigned bits, float scale, float zero,
                float* w) {
  if (bits == 4) {
    Unpack4(bytes, count, scale, zero, w);
    return;
  }
  const unsigned mask = (1u << bits) - 1;
  for (size_t i = 0; i < count; ++i) {
    const size_t bit = i * bits;
    const unsigned q = (bytes[bit / 8] >> (bit % 8)) & mask;
    w[i] = (static_cast<float>(q) - zero) * scale;
  }
}

// Σ a[i] · w[i] for i < n.
KILN_VECTOR_CLONES float Dot(const float* a, const float* w, size_t n) {
  float s = 0.0f;
  for (size_t i = 0; i < n; ++i) s += a[i] * w[i];
  return s;
}

class MatMulNBits final : public Kernel {
 public:
  explicit MatMulNBits(const KernelInfo& info)
      : k_(info.RequireInt("K")),
        n_(info.RequireInt("N")),
        bits_(info.GetInt("bits", 4)),
        block_(info.RequireInt("block_size")) {
    if (k_ < 1 || n_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument, "attributes 'K' (" + std::to_string(k_) +
                                                 ") and 'N' (" + std::to_string(n_) +
                                                 ") must be positive");
    }
    if (bits_ != 2 && bits_ != 4 && bits_ != 8) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'bits' is " + std::to_string(bits_) + "; expected 2, 4 or 8");
    }
    if (block_ < 16 || (block_ & (block_ - 1)) != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'block_size' is " + std::to_string(block_) +
                                                 "; expected a power of two, 16 or more");
    }
    // The scales and zero points as floats, once, when constant.
    const Tensor* scales = info.ConstantInput(2);
    const bool zp_constant = !info.HasInput(3) || info.ConstantInput(3) != nullptr;
    if (scales != nullptr && zp_constant && IsFloatType(scales->type())) {
      const size_t count = static_cast<size_t>(n_) * blocks();
      if (scales->element_count() == count) {
        scales_.resize(count);
        zeros_.resize(count);
        Prepare(info, *scales, info.HasInput(3) ? info.ConstantInput(3) : nullptr, scales_.data(),
                zeros_.data());
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    const Tensor& scales = ctx.Input(2);
    if (!IsFloatType(a.type())) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'A' has element type ") +
                                                 DataTypeName(a.type()) +
                                                 "; expected float, float16 or bfloat16");
    }
    const auto ad = a.shape().dims();
    if (ad.empty() || ad.back() != k_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'A' has shape " + a.shape().ToString() +
                    "; its last dimension must be K = " + std::to_string(k_));
    }
    const size_t blob = static_cast<size_t>(block_ * bits_ / 8);
    if (b.type() != DataType::kUint8 ||
        b.element_count() != static_cast<size_t>(n_) * blocks() * blob) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'B' is " + std::string(DataTypeName(b.type())) + " " + b.shape().ToString() +
                    "; expected uint8 [N, k_blocks, blob] = [" + std::to_string(n_) + ", " +
                    std::to_string(blocks()) + ", " + std::to_string(blob) + "]");
    }
    if (scales.type() != a.type() || scales.element_count() != static_cast<size_t>(n_) * blocks()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'scales' is " + std::string(DataTypeName(scales.type())) + " " +
                    scales.shape().ToString() + "; expected " + DataTypeName(a.type()) + " with " +
                    std::to_string(static_cast<size_t>(n_) * blocks()) + " values (N · k_blocks)");
    }
    const Tensor* g_idx = ctx.OptionalInput(4);
    if (g_idx != nullptr) {
      if (g_idx->type() != DataType::kInt32 || g_idx->element_count() != static_cast<size_t>(k_)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'g_idx' is " + std::string(DataTypeName(g_idx->type())) + " " +
                      g_idx->shape().ToString() + "; expected int32 [K]");
      }
      const auto* gi = static_cast<const int32_t*>(g_idx->data());
      for (int64_t k = 0; k < k_; ++k) {
        if (gi[k] < 0 || static_cast<size_t>(gi[k]) >= blocks()) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'g_idx' has " + std::to_string(gi[k]) + " at " + std::to_string(k) +
                        "; a block index must be in [0, " + std::to_string(blocks()) + ")");
        }
      }
    }
    const Tensor* bias = ctx.OptionalInput(5);
    if (bias != nullptr &&
        (bias->type() != a.type() || bias->element_count() != static_cast<size_t>(n_))) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'bias' is " + std::string(DataTypeName(bias->type())) + " " +
                    bias->shape().ToString() + "; expected " + DataTypeName(a.type()) + " [N]");
    }
    const size_t k = static_cast<size_t>(k_), n = static_cast<size_t>(n_);
    // Scales and zero points: made at creation, or now (checking the zero points before the
    // output exists).
    const float* sc = scales_.data();
    const float* zf = zeros_.data();
    if (scales_.empty()) {
      auto* s = ctx.Scratch<float>(n * blocks());
      auto* o = ctx.Scratch<float>(n * blocks());
      Prepare(info, scales, ctx.OptionalInput(3), s, o);
      sc = s;
      zf = o;
    }
    SmallVector<int64_t> y_dims(ad);
    y_dims.back() = n_;
    Tensor& y = ctx.OutputForOverwrite(0, a.type(), y_dims.span());
    const size_t m = a.element_count() / k;
    if (m == 0) return;
    // A (and the bias) as floats.
    const float* af = static_cast<const float*>(a.data());
    if (a.type() != DataType::kFloat) {
      auto* t = ctx.Scratch<float>(m * k);
      ToFloats(a.type(), a.data(), m * k, t);
      af = t;
    }
    float* bias_f = nullptr;
    if (bias != nullptr) {
      bias_f = ctx.Scratch<float>(n);
      ToFloats(bias->type(), bias->data(), n, bias_f);
    }
    float* yf =
        a.type() == DataType::kFloat ? static_cast<float*>(y.data()) : ctx.Scratch<float>(m * n);
    const auto* bq = static_cast<const uint8_t*>(b.data());
    const int32_t* gi = g_idx != nullptr ? static_cast<const int32_t*>(g_idx->data()) : nullptr;
    // Column j of W (K floats) into w.
    const auto column = [&](size_t j, float* w) {
      const uint8_t* col = bq + j * blocks() * blob;
      if (gi == nullptr) {
        for (size_t blk = 0; blk < blocks(); ++blk) {
          const size_t k0 = blk * static_cast<size_t>(block_);
          const size_t count = std::min(static_cast<size_t>(block_), k - k0);
          UnpackBits(col + blk * blob, count, static_cast<unsigned>(bits_), sc[j * blocks() + blk],
                     zf[j * blocks() + blk], w + k0);
        }
        return;
      }
      // g_idx: each depth's own block of scales; its value where the packing put it.
      const unsigned mask = (1u << bits_) - 1;
      for (size_t kk = 0; kk < k; ++kk) {
        const size_t bit = kk * static_cast<size_t>(bits_);
        const unsigned q = (col[bit / 8] >> (bit % 8)) & mask;
        const size_t blk = static_cast<size_t>(gi[kk]);
        w[kk] = (static_cast<float>(q) - zf[j * blocks() + blk]) * sc[j * blocks() + blk];
      }
    };
    constexpr size_t kGemvRows = 4;
    // 4 bits in blocks of a multiple of 32 on AVX-512: the nibbles widened 16 at a time.
    const bool fast = bits_ == 4 && block_ % 32 == 0 && gi == nullptr && UseVectorMathAvx512();
    const size_t kp = blocks() * static_cast<size_t>(block_);  // K padded to whole blocks
    if (fast && m <= kGemvRows) {
      // A's rows de-interleaved by 32 (even depths, then odd), zero past K.
      float* ad = ctx.Scratch<float>(m * kp);
      for (size_t r = 0; r < m; ++r) {
        for (size_t c = 0; c < kp; c += 32) {
          for (size_t i = 0; i < 16; ++i) {
            const size_t e = c + 2 * i, o = e + 1;
            ad[r * kp + c + i] = e < k ? af[r * k + e] : 0.0f;
            ad[r * kp + c + 16 + i] = o < k ? af[r * k + o] : 0.0f;
          }
        }
      }
      ctx.threads().ParallelFor(n, std::max<size_t>(2, 32768 / kp), [&](size_t j0, size_t j1) {
        float dots[2 * kGemvRows];
        const size_t column_bytes = blocks() * blob;
        for (size_t j = j0; j < j1; j += 2) {
          // Two columns at a time (independent sums to interleave), a last one alone.
          const size_t cols = std::min<size_t>(2, j1 - j);
          if (cols == 2) {
            Nbits4Dots2Avx512(bq + j * column_bytes, column_bytes, blocks(),
                              static_cast<size_t>(block_), sc + j * blocks(), zf + j * blocks(), ad,
                              kp, m, dots);
          } else {
            Nbits4DotsAvx512(bq + j * column_bytes, blocks(), static_cast<size_t>(block_),
                             sc + j * blocks(), zf + j * blocks(), ad, kp, m, dots);
          }
          for (size_t c = 0; c < cols; ++c) {
            for (size_t r = 0; r < m; ++r) {
              yf[r * n + j + c] = dots[c * m + r] + (bias_f != nullptr ? bias_f[j + c] : 0.0f);
            }
          }
        }
      });
    } else if (m <= kGemvRows) {
      ctx.threads().ParallelFor(n, std::max<size_t>(1, 16384 / k), [&](size_t j0, size_t j1) {
        float* w = ctx.Scratch<float>(k);
        for (size_t j = j0; j < j1; ++j) {
          column(j, w);
          for (size_t r = 0; r < m; ++r) {
            yf[r * n + j] = Dot(af + r * k, w, k) + (bias_f != nullptr ? bias_f[j] : 0.0f);
          }
        }
      });
    } else {
      constexpr size_t kColumns = 64;
      const size_t chunks = (n + kColumns - 1) / kColumns;
      // Each column's floats kp apart (the fast unpacking writes whole blocks), then laid out as
      // PackedGemm's panels (32 columns a row of each depth) and multiplied in place.
      ctx.threads().ParallelFor(chunks, 1, [&](size_t c0, size_t c1) {
        float* w = ctx.Scratch<float>(kColumns * kp);
        float* panels = ctx.Scratch<float>(kColumns * k);
        for (size_t c = c0; c < c1; ++c) {
          const size_t j0 = c * kColumns;
          const size_t cols = std::min(kColumns, n - j0);
          for (size_t j = 0; j < cols; ++j) {
            const size_t col = j0 + j;
            if (fast) {
              Nbits4ColumnAvx512(bq + col * blocks() * blob, blocks(), static_cast<size_t>(block_),
                                 sc + col * blocks(), zf + col * blocks(), w + j * kp);
            } else {
              column(col, w + j * kp);
            }
          }
          for (size_t c = 0; c < cols; c += kPackedPanel) {
            float* panel = panels + c * k;
            const size_t width = std::min(kPackedPanel, cols - c);
            for (size_t p0 = 0; p0 < k; p0 += 32) {  // by blocks that stay in L1
              const size_t p1 = std::min(k, p0 + 32);
              for (size_t j = 0; j < kPackedPanel; ++j) {
                const float* src = w + (c + j) * kp;
                for (size_t p = p0; p < p1; ++p)
                  panel[p * kPackedPanel + j] = j < width ? src[p] : 0.0f;
              }
            }
          }
          const PackedMatrix view = PackedMatrix::View(panels, k, cols);
          PackedGemm(m, af, k, view, 0, cols, yf + j0, n, false);
          if (bias_f != nullptr) {
            for (size_t r = 0; r < m; ++r) {
              for (size_t j = 0; j < cols; ++j) yf[r * n + j0 + j] += bias_f[j0 + j];
            }
          }
        }
      });
    }
    if (a.type() == DataType::kFloat16) {
      auto* out = static_cast<Float16*>(y.data());
      for (size_t i = 0; i < m * n; ++i) out[i] = Float16::FromFloat(yf[i]);
    } else if (a.type() == DataType::kBfloat16) {
      auto* out = static_cast<BFloat16*>(y.data());
      for (size_t i = 0; i < m * n; ++i) out[i] = BFloat16::FromFloat(yf[i]);
    }
  }

 private:
  size_t blocks() const { return static_cast<size_t>((k_ + block_ - 1) / block_); }

  // s[i] = scale i, z[i] = zero point i as a float, for the N · k_blocks blocks.
  void Prepare(const KernelInfo& info, const Tensor& scales, const Tensor* zp, float* s,
               float* o) const {
    const size_t count = static_cast<size_t>(n_) * blocks();
    const auto fallback = static_cast<float>(1 << (bits_ - 1));
    const size_t zp_stride = (blocks() * static_cast<size_t>(bits_) + 7) / 8;
    if (zp != nullptr) {
      const bool packed = zp->type() == DataType::kUint8;
      const bool typed = IsFloatType(zp->type());
      if ((packed && zp->element_count() != static_cast<size_t>(n_) * zp_stride) ||
          (typed && zp->element_count() != count) || (!packed && !typed)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'zero_points' is " + std::string(DataTypeName(zp->type())) + " " +
                      zp->shape().ToString() + "; expected uint8 [N · " +
                      std::to_string(zp_stride) + "] packed as B is, or " +
                      "a float type [N · k_blocks]");
      }
    }
    const unsigned mask = (1u << bits_) - 1;
    for (size_t i = 0; i < count; ++i) {
      const float scale = ToFloat(scales.type(), scales.data(), i);
      float z = fallback;
      if (zp != nullptr && zp->type() == DataType::kUint8) {
        const size_t row = i / blocks(), blk = i % blocks();
        const size_t bit = blk * static_cast<size_t>(bits_);
        const uint8_t byte = static_cast<const uint8_t*>(zp->data())[row * zp_stride + bit / 8];
        z = static_cast<float>((byte >> (bit % 8)) & mask);
      } else if (zp != nullptr) {
        z = ToFloat(zp->type(), zp->data(), i);
      }
      s[i] = scale;
      o[i] = z;
    }
  }

  int64_t k_, n_, bits_, block_;
  std::vector<float> scales_;
  std::vector<float> zeros_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulNBits(const KernelInfo& info) {
  return std::make_unique<MatMulNBits>(info);
}

}  // namespace kiln::cpu
