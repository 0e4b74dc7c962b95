// com.microsoft Attention and QAttention (opset 1 of the domain): the fused self-attention ONNX
// Runtime's transformer optimizer writes for BERT and GPT-2, and its quantized form from
// quantize_dynamic.
//   Attention(input [B, S, D_in] float, weights [D_in, Dq + Dk + Dv], bias [Dq + Dk + Dv]?,
//     mask_index int32?, past [2, B, N, P, Hk]?, attention_bias [B or 1, N or 1, S, T]?,
//     past_sequence_length?) → output [B, S, Dv], present [2, B, N, T, Hk]? (T = P + S);
//   QAttention(input int8/uint8, weight int8/uint8, bias float, input_scale, weight_scale (one
//     value, or one per column), mask_index?, input_zero_point?, weight_zero_point?, past?):
//     the projection is (input - izp) · (weight - wzp) · (input_scale · weight_scale) + bias on
//     Int8Gemm, then the same attention.
// Attributes: num_heads; qkv_hidden_sizes (Attention; default three equal parts); scale (0:
// 1/√head size); unidirectional (query i sees keys j <= P + i); mask_filter_value (-10000).
// Q, K and V are the projection's column blocks, head h of each its h-th slice. Per (batch,
// head): scores = scale·Q·Kᵀ, + attention_bias, + mask_filter_value where the mask hides a key
// (mask_index: [B] key ends, [2B] ends then starts, [B, T] 1/0, [B, S, T], or [B, 1, M, M] read
// at rows P + i; and the causal limit), as ONNX Runtime adds its masks; softmax; · V. With past,
// K and V are the past's rows then the new ones (written to present when it is asked for).
// Not implemented (kNotImplemented naming the attribute): do_rotary, past_present_share_buffer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/cpu/quant/quant_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

// x = softmax(x) over n values.
KILN_VECTOR_CLONES void SoftmaxRow(float* x, size_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
  float s = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    x[i] = ExpF(x[i] - m);
    s += x[i];
  }
  const float inv = 1.0f / s;
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

// What the attention part of both ops reads besides the projection.
struct AttentionInputs {
  const Tensor* mask = nullptr;
  const Tensor* past = nullptr;
  const Tensor* attention_bias = nullptr;
};

class ContribAttention final : public Kernel {
 public:
  ContribAttention(const KernelInfo& info, bool quantized)
      : quantized_(quantized),
        heads_(info.RequireInt("num_heads")),
        unidirectional_(info.GetInt("unidirectional", 0) != 0),
        scale_(info.GetFloat("scale", 0.0f)),
        mask_filter_(info.GetFloat("mask_filter_value", -10000.0f)),
        sizes_(quantized ? std::vector<int64_t>{} : info.GetInts("qkv_hidden_sizes")) {
    if (heads_ <= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'num_heads' is " + std::to_string(heads_) + "; it must be positive");
    }
    for (const char* a : {"do_rotary", "past_present_share_buffer"}) {
      if (info.GetInt(a, 0) != 0) {
        info.Fail(ErrorCode::kNotImplemented,
                  std::string("attribute '") + a + "' is not supported");
      }
    }
    // QAttention's constant weight is packed once.
    const Tensor* w = quantized ? info.ConstantInput(1) : nullptr;
    if (w != nullptr && w->shape().rank() == 2 && IsInt8(w->type())) {
      const auto k = static_cast<size_t>(w->shape().dims()[0]);
      const auto n = static_cast<size_t>(w->shape().dims()[1]);
      packed_ = std::make_unique<Int8PackedB>(
          Int8PackedB::Pack(w->data(), w->type() == DataType::kInt8, n, k, n));
    }
    if (!sizes_.empty() && sizes_.size() != 3) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'qkv_hidden_sizes' has " +
                                                 std::to_string(sizes_.size()) +
                                                 " values; expected 3 (Q, K, V)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    const auto xd = x.shape().dims();
    if (xd.size() != 3) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + x.shape().ToString() + "; expected [B, S, hidden]");
    }
    if (w.shape().rank() != 2 || w.shape().dims()[0] != xd[2]) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + std::string(quantized_ ? "weight" : "weights") + "' has shape " +
                    w.shape().ToString() + "; expected [" + std::to_string(xd[2]) +
                    ", Q + K + V hidden sizes]");
    }
    const int64_t total = w.shape().dims()[1];
    int64_t dq = total / 3, dk = total / 3, dv = total / 3;
    if (!sizes_.empty()) {
      dq = sizes_[0];
      dk = sizes_[1];
      dv = sizes_[2];
    }
    if (dq + dk + dv != total || dq != dk || dq % heads_ != 0 || dv % heads_ != 0 || dq <= 0 ||
        dv <= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "the projection's " + std::to_string(total) +
                    " columns do not split into Q, K and V hidden sizes (" + std::to_string(dq) +
                    ", " + std::to_string(dk) + ", " + std::to_string(dv) +
                    ") with Q = K, each divisible by num_heads " + std::to_string(heads_));
    }
    const auto b = static_cast<size_t>(xd[0]), s = static_cast<size_t>(xd[1]);
    const auto d_in = static_cast<size_t>(xd[2]);
    const auto cols = static_cast<size_t>(total);
    const Tensor* bias = ctx.OptionalInput(2);
    if (bias != nullptr && (bias->type() != DataType::kFloat || bias->element_count() != cols)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'bias' is " + std::string(DataTypeName(bias->type())) + " " +
                    bias->shape().ToString() + "; expected float [" + std::to_string(cols) + "]");
    }
    if (quantized_ && bias == nullptr) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'bias' is required");
    }
    // The projection, [B·S, cols] floats.
    float* qkv = ctx.Scratch<float>(std::max<size_t>(b * s * cols, 1));
    if (quantized_) {
      Project8(ctx, x, w, b * s, d_in, cols, bias, qkv);
    } else {
      if (x.type() != DataType::kFloat || w.type() != DataType::kFloat) {
        info.Fail(ErrorCode::kInvalidArgument, "inputs 'input' and 'weights' must be float");
      }
      Gemm<float>(false, false, b * s, cols, d_in, 1.0f, static_cast<const float*>(x.data()), d_in,
                  static_cast<const float*>(w.data()), cols, 0.0f, qkv, cols, &ctx.threads());
      if (bias != nullptr) {
        const auto* bv = static_cast<const float*>(bias->data());
        for (size_t r = 0; r < b * s; ++r) {
          for (size_t c = 0; c < cols; ++c) qkv[r * cols + c] += bv[c];
        }
      }
    }
    AttentionInputs in;
    in.mask = ctx.OptionalInput(quantized_ ? 5 : 3);
    in.past = ctx.OptionalInput(quantized_ ? 8 : 4);
    in.attention_bias = quantized_ ? nullptr : ctx.OptionalInput(5);
    Attend(ctx, qkv, b, s, static_cast<size_t>(dq), static_cast<size_t>(dv), in);
  }

 private:
  // QAttention's projection: (x - izp)(w - wzp) · (input_scale · weight_scale[j]) + bias[j].
  void Project8(KernelContext& ctx, const Tensor& x, const Tensor& w, size_t m, size_t k, size_t n,
                const Tensor* bias, float* out) const {
    const KernelInfo& info = ctx.info();
    if (!IsInt8(x.type()) || !IsInt8(w.type())) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("inputs 'input' (") + DataTypeName(x.type()) + ") and 'weight' (" +
                    DataTypeName(w.type()) + ") must be int8 or uint8");
    }
    const Tensor& is = ctx.Input(3);
    const Tensor& ws = ctx.Input(4);
    if (is.type() != DataType::kFloat || is.element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input_scale' is " +
                                                 std::string(DataTypeName(is.type())) + " " +
                                                 is.shape().ToString() + "; expected one float");
    }
    if (ws.type() != DataType::kFloat || (ws.element_count() != 1 && ws.element_count() != n)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'weight_scale' is " + std::string(DataTypeName(ws.type())) + " " +
                    ws.shape().ToString() + "; expected one float or one per column (" +
                    std::to_string(n) + ")");
    }
    auto zero_points = [&](size_t index, const char* name, DataType type, size_t per) {
      const Tensor* z = ctx.OptionalInput(index);
      auto* v = ctx.Scratch<int32_t>(std::max<size_t>(per, 1));
      if (z == nullptr) {
        v[0] = 0;
        return std::span<const int32_t>(v, 1);
      }
      if (z->type() != type || (z->element_count() != 1 && z->element_count() != per)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' is " + DataTypeName(z->type()) + " " +
                      z->shape().ToString() + "; expected " + DataTypeName(type) +
                      " with one value" + (per > 1 ? " or one per column" : ""));
      }
      for (size_t i = 0; i < z->element_count(); ++i) {
        v[i] = type == DataType::kInt8 ? static_cast<const int8_t*>(z->data())[i]
                                       : static_cast<const uint8_t*>(z->data())[i];
      }
      return std::span<const int32_t>(v, z->element_count());
    };
    const std::span<const int32_t> za = zero_points(6, "input_zero_point", x.type(), 1);
    const std::span<const int32_t> zb = zero_points(7, "weight_zero_point", w.type(), n);
    Int8PackedB run_packed;
    const Int8PackedB* packed = packed_.get();
    if (packed == nullptr) {
      run_packed = Int8PackedB::PackInto(ctx.Scratch<int8_t>(Int8PackedB::PanelBytes(k, n)),
                                         ctx.Scratch<int32_t>(std::max<size_t>(n, 1)), w.data(),
                                         w.type() == DataType::kInt8, n, k, n);
      packed = &run_packed;
    }
    auto* acc = ctx.Scratch<int32_t>(std::max<size_t>(m * n, 1));
    Int8Gemm(m, x.data(), x.type() == DataType::kInt8, k, *packed, za, zb, acc, n, &ctx.threads());
    const float a_s = *static_cast<const float*>(is.data());
    const auto* w_s = static_cast<const float*>(ws.data());
    const auto* bv = static_cast<const float*>(bias->data());
    for (size_t r = 0; r < m; ++r) {
      for (size_t j = 0; j < n; ++j) {
        out[r * n + j] =
            static_cast<float>(acc[r * n + j]) * (a_s * w_s[ws.element_count() == 1 ? 0 : j]) +
            bv[j];
      }
    }
  }

  void Attend(KernelContext& ctx, const float* qkv, size_t b, size_t s, size_t dq, size_t dv,
              const AttentionInputs& in) const {
    const KernelInfo& info = ctx.info();
    const auto heads = static_cast<size_t>(heads_);
    const size_t hk = dq / heads, hv = dv / heads;
    const size_t cols = 2 * dq + dv;
    if (hk != hv && (in.past != nullptr || ctx.WantsOutput(1))) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string(in.past != nullptr ? "input 'past'" : "output 'present'") +
                    " needs Q, K and V of one head size (qkv_hidden_sizes)");
    }
    size_t past = 0;
    if (in.past != nullptr) {
      const auto pd = in.past->shape().dims();
      if (in.past->type() != DataType::kFloat || pd.size() != 5 || pd[0] != 2 ||
          pd[1] != static_cast<int64_t>(b) || pd[2] != heads_ ||
          pd[4] != static_cast<int64_t>(hk)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'past' is " + std::string(DataTypeName(in.past->type())) + " " +
                      in.past->shape().ToString() + "; expected float [2, " + std::to_string(b) +
                      ", " + std::to_string(heads) + ", past length, " + std::to_string(hk) + "]");
      }
      past = static_cast<size_t>(pd[3]);
    }
    const size_t t = past + s;
    // The mask's form.
    const Tensor* mask = in.mask;
    enum class MaskForm {
      kNone,
      kEnds,
      kEndsStarts,
      kKeys,
      kQueryKeys,
      kMegatron
    } form = MaskForm::kNone;
    size_t mega = 0;
    if (mask != nullptr) {
      const auto md = mask->shape().dims();
      const bool ok_type = mask->type() == DataType::kInt32;
      if (ok_type && md.size() == 1 && md[0] == static_cast<int64_t>(b)) {
        form = MaskForm::kEnds;
      } else if (ok_type && md.size() == 1 && md[0] == static_cast<int64_t>(2 * b)) {
        form = MaskForm::kEndsStarts;
      } else if (ok_type && md.size() == 2 && md[0] == static_cast<int64_t>(b) &&
                 md[1] == static_cast<int64_t>(t)) {
        form = MaskForm::kKeys;
      } else if (ok_type && md.size() == 3 && md[0] == static_cast<int64_t>(b) &&
                 md[1] == static_cast<int64_t>(s) && md[2] == static_cast<int64_t>(t)) {
        form = MaskForm::kQueryKeys;
      } else if (ok_type && md.size() == 4 && md[0] == static_cast<int64_t>(b) && md[1] == 1 &&
                 md[2] == md[3] && md[2] >= static_cast<int64_t>(t)) {
        form = MaskForm::kMegatron;
        mega = static_cast<size_t>(md[2]);
      } else {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'mask_index' is " + std::string(DataTypeName(mask->type())) + " " +
                      mask->shape().ToString() + "; expected int32 [B], [2B], [B, " +
                      std::to_string(t) + "], [B, S, " + std::to_string(t) +
                      "] or [B, 1, M, M] with M >= " + std::to_string(t));
      }
    }
    const Tensor* ab = in.attention_bias;
    bool ab_batch = false, ab_heads = false;
    if (ab != nullptr) {
      const auto d = ab->shape().dims();
      const bool ok = ab->type() == DataType::kFloat && d.size() == 4 &&
                      (d[0] == 1 || d[0] == static_cast<int64_t>(b)) &&
                      (d[1] == 1 || d[1] == heads_) && d[2] == static_cast<int64_t>(s) &&
                      d[3] == static_cast<int64_t>(t);
      if (!ok) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'attention_bias' is " + std::string(DataTypeName(ab->type())) + " " +
                      ab->shape().ToString() + "; expected float [B or 1, num_heads or 1, " +
                      std::to_string(s) + ", " + std::to_string(t) + "]");
      }
      ab_batch = d[0] != 1;
      ab_heads = d[1] != 1;
    }
    const std::array<int64_t, 3> y_dims = {static_cast<int64_t>(b), static_cast<int64_t>(s),
                                           static_cast<int64_t>(dv)};
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, y_dims);
    float* present = nullptr;
    if (ctx.WantsOutput(1)) {
      const std::array<int64_t, 5> p_dims = {2, static_cast<int64_t>(b), heads_,
                                             static_cast<int64_t>(t), static_cast<int64_t>(hk)};
      present = static_cast<float*>(ctx.OutputForOverwrite(1, DataType::kFloat, p_dims).data());
    }
    if (b * s == 0) return;
    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(hk));
    const auto* pv = in.past != nullptr ? static_cast<const float*>(in.past->data()) : nullptr;
    const auto* mv = mask != nullptr ? static_cast<const int32_t*>(mask->data()) : nullptr;
    const auto* abv = ab != nullptr ? static_cast<const float*>(ab->data()) : nullptr;
    auto* yv = static_cast<float*>(y.data());
    ctx.threads().ParallelFor(b * heads, 1, [&](size_t t0, size_t t1) {
      float* scores = ctx.Scratch<float>(s * t);
      float* keys = ctx.Scratch<float>(t * hk);
      float* values = ctx.Scratch<float>(t * hv);
      for (size_t task = t0; task < t1; ++task) {
        const size_t bi = task / heads, h = task % heads;
        const float* q = qkv + bi * s * cols + h * hk;
        // K and V of this head: the past's rows, then the new ones.
        float* kk = present != nullptr ? present + ((0 * b + bi) * heads + h) * t * hk : keys;
        float* vv = present != nullptr ? present + ((1 * b + bi) * heads + h) * t * hv : values;
        if (pv != nullptr) {
          std::memcpy(kk, pv + ((0 * b + bi) * heads + h) * past * hk, past * hk * sizeof(float));
          std::memcpy(vv, pv + ((1 * b + bi) * heads + h) * past * hv, past * hv * sizeof(float));
        }
        for (size_t i = 0; i < s; ++i) {
          const float* row = qkv + (bi * s + i) * cols;
          std::memcpy(kk + (past + i) * hk, row + dq + h * hk, hk * sizeof(float));
          std::memcpy(vv + (past + i) * hv, row + 2 * dq + h * hv, hv * sizeof(float));
        }
        Gemm<float>(false, true, s, t, hk, scale, q, cols, kk, hk, 0.0f, scores, t, nullptr);
        for (size_t i = 0; i < s; ++i) {
          float* row = scores + i * t;
          if (abv != nullptr) {
            const float* a =
                abv +
                (((ab_batch ? bi : 0) * (ab_heads ? heads : 1) + (ab_heads ? h : 0)) * s + i) * t;
            for (size_t j = 0; j < t; ++j) row[j] += a[j];
          }
          for (size_t j = 0; j < t; ++j) {
            bool hidden = false;
            switch (form) {
              case MaskForm::kNone:
                break;
              case MaskForm::kEnds:
                hidden = static_cast<int64_t>(j) >= mv[bi];
                break;
              case MaskForm::kEndsStarts:
                hidden = static_cast<int64_t>(j) >= mv[bi] || static_cast<int64_t>(j) < mv[b + bi];
                break;
              case MaskForm::kKeys:
                hidden = mv[bi * t + j] == 0;
                break;
              case MaskForm::kQueryKeys:
                hidden = mv[(bi * s + i) * t + j] == 0;
                break;
              case MaskForm::kMegatron:
                hidden = mv[(bi * mega + past + i) * mega + j] == 0;
                break;
            }
            if (hidden) row[j] += mask_filter_;
            if (unidirectional_ && j > past + i) row[j] += mask_filter_;
          }
          SoftmaxRow(row, t);
        }
        Gemm<float>(false, false, s, hv, t, 1.0f, scores, t, vv, hv, 0.0f,
                    yv + bi * s * dv + h * hv, dv, nullptr);
      }
    });
  }

  bool quantized_;
  int64_t heads_;
  bool unidirectional_;
  float scale_;
  float mask_filter_;
  std::vector<int64_t> sizes_;
  std::unique_ptr<Int8PackedB> packed_;  // QAttention's constant weight
};

}  // namespace

std::unique_ptr<Kernel> MakeContribAttention(const KernelInfo& info) {
  return std::make_unique<ContribAttention>(info, false);
}

std::unique_ptr<Kernel> MakeQAttention(const KernelInfo& info) {
  return std::make_unique<ContribAttention>(info, true);
}

}  // namespace kiln::cpu
