// Attention (opset 23; 24 adds the input nonpad_kv_seqlen): scaled dot-product attention,
//   Y = softmax(softcap(scale · Q·Kᵀ) + bias) · V
// over Q [B, Hq, Sq, Dk] and K, V [B, Hkv, Skv, Dk|Dv] (4D), or [B, S, H·D] (3D, with the heads
// given by q_num_heads and kv_num_heads). Query head h reads key/value head h / (Hq / Hkv) (GQA,
// MQA). past_key/past_value [B, Hkv, P, D] are prepended to K and V; the concatenations are the
// outputs present_key/present_value. The bias is the sum of
//   - attn_mask, broadcast to [B, Hq, Sq, L]: bool (false masks) or a float added as is; L may be
//     shorter than the P + Skv keys, the keys past it are masked;
//   - is_causal: key j is masked for query i when j > i + offset, offset = P with a past, else
//     nonpad_kv_seqlen[b] - Sq when that is given (a static cache), else 0;
//   - nonpad_kv_seqlen[b]: keys from it on are masked.
// A row whose keys are all masked gets probabilities 0 (so Y is 0 there), not NaN.
// The optional 4th output is the scores at the stage qk_matmul_output_mode names: 0 scale·Q·Kᵀ,
// 1 after softcap, 2 after the bias, 3 after softmax. Float16 and BFloat16 compute in float (which
// is also every softmax_precision the spec allows for them); the outputs are rounded once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Softmax of one row in place; a row of only -inf becomes zeros.
KILN_VECTOR_CLONES void SoftmaxRow(float* x, size_t n) {
  float max = kNegInf;
  for (size_t j = 0; j < n; ++j) max = std::max(max, x[j]);
  if (max == kNegInf) {
    for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (size_t j = 0; j < n; ++j) {
    x[j] = std::exp(x[j] - max);
    sum += x[j];
  }
  const float inv = 1.0f / sum;
  for (size_t j = 0; j < n; ++j) x[j] *= inv;
}

// The problem's sizes, from the inputs' shapes.
struct Sizes {
  bool three_d = false;
  int64_t batch = 0;
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t q_len = 0;
  int64_t kv_len = 0;    // new keys
  int64_t past_len = 0;  // cached keys
  int64_t total = 0;     // past_len + kv_len
  int64_t head_size = 0;
  int64_t v_head_size = 0;
};

// Where head (b, h) of a [B, H, S, D] (4D) or [B, S, H·D] (3D) tensor starts, and its row stride.
struct HeadView {
  bool three_d;
  int64_t heads;
  int64_t len;
  int64_t size;
  size_t Offset(int64_t b, int64_t h) const noexcept {
    return three_d ? static_cast<size_t>((b * len * heads + h) * size)
                   : static_cast<size_t>(((b * heads + h) * len) * size);
  }
  size_t Stride() const noexcept { return static_cast<size_t>(three_d ? heads * size : size); }
};

class Attention final : public Kernel {
 public:
  explicit Attention(const KernelInfo& info)
      : opset_(info.opset()),
        is_causal_(info.GetInt("is_causal", 0)),
        q_num_heads_(info.GetInt("q_num_heads", 0)),
        kv_num_heads_(info.GetInt("kv_num_heads", 0)),
        mode_(info.GetInt("qk_matmul_output_mode", 0)),
        scale_(info.GetFloat("scale", 0.0f)),
        has_scale_(info.HasAttribute("scale")),
        softcap_(info.GetFloat("softcap", 0.0f)) {
    if (is_causal_ != 0 && is_causal_ != 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'is_causal' is " + std::to_string(is_causal_) + "; it must be 0 or 1");
    }
    if (mode_ < 0 || mode_ > 3) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'qk_matmul_output_mode' is " +
                                              std::to_string(mode_) + "; it must be 0, 1, 2 or 3");
    }
    if (q_num_heads_ < 0 || kv_num_heads_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'q_num_heads' and 'kv_num_heads' must be > 0");
    }
    if (softcap_ < 0.0f || std::isnan(softcap_)) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'softcap' must be >= 0");
    }
    const int64_t precision = info.GetInt("softmax_precision", 1);
    // Float, float16, bfloat16 and double: every precision here computes in float or better.
    if (precision != 1 && precision != 10 && precision != 16 && precision != 11) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'softmax_precision' is " +
                                              std::to_string(precision) +
                                              "; it must be a floating-point type");
    }
    if (opset_ < 24 && info.HasInput(6)) {
      info.Fail(ErrorCode::kInvalidGraph, "input 'nonpad_kv_seqlen' needs opset 24");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& q = ctx.Input(0);
    const Tensor& k = ctx.Input(1);
    const Tensor& v = ctx.Input(2);
    RequireSameType(info, k, "K", q.type(), "Q");
    RequireSameType(info, v, "V", q.type(), "Q");
    const Sizes s = ReadSizes(ctx);
    Dispatch<float, Float16, BFloat16>(q.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Run<T>(ctx, s);
    });
  }

 private:
  Sizes ReadSizes(KernelContext& ctx) const {
    const KernelInfo& info = ctx.info();
    const Tensor& q = ctx.Input(0);
    const Tensor& k = ctx.Input(1);
    const Tensor& v = ctx.Input(2);
    const size_t rank = q.shape().rank();
    if (rank != 3 && rank != 4) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'Q' has shape " + ShapeText(q) + "; expected rank 3 or 4");
    }
    RequireRank(info, k, "K", rank);
    RequireRank(info, v, "V", rank);
    const auto& qd = q.shape().dims();
    const auto& kd = k.shape().dims();
    const auto& vd = v.shape().dims();
    Sizes s;
    s.three_d = rank == 3;
    s.batch = qd[0];
    auto mismatch = [&](const char* what) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("inputs 'Q' ") + ShapeText(q) + ", 'K' " +
                                                 ShapeText(k) + " and 'V' " + ShapeText(v) +
                                                 " do not agree: " + what);
    };
    if (kd[0] != s.batch || vd[0] != s.batch) mismatch("batch sizes differ");
    if (s.three_d) {
      if (q_num_heads_ <= 0 || kv_num_heads_ <= 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "3D inputs need attributes 'q_num_heads' and 'kv_num_heads' > 0");
      }
      s.q_heads = q_num_heads_;
      s.kv_heads = kv_num_heads_;
      s.q_len = qd[1];
      s.kv_len = kd[1];
      if (qd[2] % s.q_heads != 0) mismatch("Q's hidden size is not a multiple of 'q_num_heads'");
      if (vd[2] % s.kv_heads != 0) mismatch("V's hidden size is not a multiple of 'kv_num_heads'");
      s.head_size = qd[2] / s.q_heads;
      s.v_head_size = vd[2] / s.kv_heads;
      if (kd[2] != s.head_size * s.kv_heads)
        mismatch("K's hidden size is not kv_num_heads * Q's head size");
      if (vd[1] != s.kv_len) mismatch("K and V have different sequence lengths");
    } else {
      s.q_heads = qd[1];
      s.kv_heads = kd[1];
      s.q_len = qd[2];
      s.kv_len = kd[2];
      s.head_size = qd[3];
      s.v_head_size = vd[3];
      if (vd[1] != s.kv_heads) mismatch("K and V have different head counts");
      if (vd[2] != s.kv_len) mismatch("K and V have different sequence lengths");
      if (kd[3] != s.head_size) mismatch("Q and K have different head sizes");
    }
    if (s.kv_heads == 0 || s.q_heads % s.kv_heads != 0) {
      mismatch("the query head count is not a multiple of the key/value head count");
    }
    const Tensor* past_key = ctx.OptionalInput(4);
    const Tensor* past_value = ctx.OptionalInput(5);
    if ((past_key == nullptr) != (past_value == nullptr)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'past_key' and 'past_value' must be given together");
    }
    if (past_key != nullptr) {
      RequireSameType(info, *past_key, "past_key", q.type(), "Q");
      RequireSameType(info, *past_value, "past_value", q.type(), "Q");
      RequireRank(info, *past_key, "past_key", 4);
      RequireRank(info, *past_value, "past_value", 4);
      const auto& pk = past_key->shape().dims();
      const auto& pv = past_value->shape().dims();
      s.past_len = pk[2];
      if (pk[0] != s.batch || pk[1] != s.kv_heads || pk[3] != s.head_size) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'past_key' has shape " + ShapeText(*past_key) + "; expected [" +
                      std::to_string(s.batch) + "," + std::to_string(s.kv_heads) + ",P," +
                      std::to_string(s.head_size) + "]");
      }
      if (pv[0] != s.batch || pv[1] != s.kv_heads || pv[2] != s.past_len ||
          pv[3] != s.v_head_size) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'past_value' has shape " + ShapeText(*past_value) + "; expected [" +
                      std::to_string(s.batch) + "," + std::to_string(s.kv_heads) + "," +
                      std::to_string(s.past_len) + "," + std::to_string(s.v_head_size) + "]");
      }
    }
    if (__builtin_add_overflow(s.past_len, s.kv_len, &s.total)) {
      info.Fail(ErrorCode::kInvalidArgument, "the total key length overflows");
    }
    // Every buffer this kernel makes must have a size that fits.
    CheckedProduct(info, {s.batch, s.q_heads, s.q_len, s.total}, "qk_matmul_output");
    CheckedProduct(info, {s.batch, s.kv_heads, s.total, std::max(s.head_size, s.v_head_size)},
                   "present_key");
    if (const Tensor* mask = ctx.OptionalInput(3)) {
      if (mask->type() != DataType::kBool) RequireSameType(info, *mask, "attn_mask", q.type(), "Q");
      const auto& md = mask->shape().dims();
      const int64_t want[4] = {s.batch, s.q_heads, s.q_len, s.total};
      bool ok = !md.empty() && md.size() <= 4 && md.back() <= s.total;
      for (size_t i = 0; ok && i + 1 < md.size(); ++i) {
        const int64_t w = want[4 - md.size() + i];
        ok = md[i] == 1 || md[i] == w;
      }
      if (!ok) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'attn_mask' has shape " + ShapeText(*mask) + "; it must broadcast to [" +
                      std::to_string(s.batch) + "," + std::to_string(s.q_heads) + "," +
                      std::to_string(s.q_len) + ",L] with L <= " + std::to_string(s.total));
      }
    }
    if (const Tensor* nonpad = ctx.OptionalInput(6)) {
      if (nonpad->type() != DataType::kInt64 || !HasDims(*nonpad, {s.batch})) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'nonpad_kv_seqlen' is " + std::string(DataTypeName(nonpad->type())) + " " +
                      ShapeText(*nonpad) + "; expected int64 [" + std::to_string(s.batch) + "]");
      }
      const auto* n = static_cast<const int64_t*>(nonpad->data());
      for (int64_t b = 0; b < s.batch; ++b) {
        if (n[b] < 0 || n[b] > s.total) {
          info.Fail(ErrorCode::kInvalidArgument, "input 'nonpad_kv_seqlen' holds " +
                                                     std::to_string(n[b]) + "; it must be in [0, " +
                                                     std::to_string(s.total) + "]");
        }
      }
    }
    return s;
  }

  // Copies past and new keys (or values) of every head into `out` [B, Hkv, total, size] (float).
  template <typename T>
  static void Gather(const Tensor* past, const Tensor& now, const Sizes& s, int64_t size,
                     float* out) {
    const T* pp = past != nullptr ? static_cast<const T*>(past->data()) : nullptr;
    const T* np = static_cast<const T*>(now.data());
    const HeadView view{s.three_d, s.kv_heads, s.kv_len, size};
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t h = 0; h < s.kv_heads; ++h) {
        float* dst = out + static_cast<size_t>((b * s.kv_heads + h) * s.total * size);
        if (pp != nullptr) {
          const T* src = pp + static_cast<size_t>((b * s.kv_heads + h) * s.past_len * size);
          for (size_t i = 0; i < static_cast<size_t>(s.past_len * size); ++i) {
            dst[i] = ToFloat(src[i]);
          }
          dst += s.past_len * size;
        }
        const T* src = np + view.Offset(b, h);
        for (int64_t r = 0; r < s.kv_len; ++r) {
          for (int64_t c = 0; c < size; ++c) {
            dst[r * size + c] = ToFloat(src[static_cast<size_t>(r) * view.Stride() + c]);
          }
        }
      }
    }
  }

  template <typename T>
  static void Store(const float* src, size_t n, Tensor& out) {
    T* dst = static_cast<T*>(out.data());
    for (size_t i = 0; i < n; ++i) dst[i] = FromFloat<T>(src[i]);
  }

  template <typename T>
  void Run(KernelContext& ctx, const Sizes& s) const {
    const Tensor& q = ctx.Input(0);
    const DataType type = q.type();
    const size_t b_n = static_cast<size_t>(s.batch);
    const size_t hq = static_cast<size_t>(s.q_heads);
    const size_t sq = static_cast<size_t>(s.q_len);
    const size_t total = static_cast<size_t>(s.total);
    const size_t dk = static_cast<size_t>(s.head_size);
    const size_t dv = static_cast<size_t>(s.v_head_size);

    SmallVector<int64_t> y_dims;
    if (s.three_d) {
      y_dims = {s.batch, s.q_len, s.q_heads * s.v_head_size};
    } else {
      y_dims = {s.batch, s.q_heads, s.q_len, s.v_head_size};
    }
    Tensor& y = ctx.OutputForOverwrite(0, type, y_dims.span());

    const size_t key_count = static_cast<size_t>(s.batch * s.kv_heads) * total;
    float* keys = ctx.Scratch<float>(key_count * dk);
    float* values = ctx.Scratch<float>(key_count * dv);
    Gather<T>(ctx.OptionalInput(4), ctx.Input(1), s, s.head_size, keys);
    Gather<T>(ctx.OptionalInput(5), ctx.Input(2), s, s.v_head_size, values);
    if (ctx.WantsOutput(1)) {
      const int64_t dims[4] = {s.batch, s.kv_heads, s.total, s.head_size};
      Store<T>(keys, key_count * dk, ctx.OutputForOverwrite(1, type, dims));
    }
    if (ctx.WantsOutput(2)) {
      const int64_t dims[4] = {s.batch, s.kv_heads, s.total, s.v_head_size};
      Store<T>(values, key_count * dv, ctx.OutputForOverwrite(2, type, dims));
    }
    T* qk_out = nullptr;
    if (ctx.WantsOutput(3)) {
      const int64_t dims[4] = {s.batch, s.q_heads, s.q_len, s.total};
      qk_out = static_cast<T*>(ctx.OutputForOverwrite(3, type, dims).data());
    }

    // Q and Y in float: the tensors themselves for float, converted copies otherwise.
    const float* q_data;
    float* y_data;
    if constexpr (std::is_same_v<T, float>) {
      q_data = static_cast<const float*>(q.data());
      y_data = static_cast<float*>(y.data());
    } else {
      float* qf = ctx.Scratch<float>(q.element_count());
      const T* qp = static_cast<const T*>(q.data());
      for (size_t i = 0; i < q.element_count(); ++i) qf[i] = ToFloat(qp[i]);
      q_data = qf;
      y_data = ctx.Scratch<float>(y.element_count());
    }
    const HeadView q_view{s.three_d, s.q_heads, s.q_len, s.head_size};
    const HeadView y_view{s.three_d, s.q_heads, s.q_len, s.v_head_size};
    const float scale = has_scale_ ? scale_ : 1.0f / std::sqrt(static_cast<float>(dk));
    const size_t group = static_cast<size_t>(s.q_heads / s.kv_heads);

    // The mask's strides over [B, Hq, Sq] (0 where it broadcasts) and its key length.
    const Tensor* mask = ctx.OptionalInput(3);
    size_t mask_strides[3] = {0, 0, 0};
    size_t mask_len = 0;
    if (mask != nullptr) {
      const auto& md = mask->shape().dims();
      mask_len = static_cast<size_t>(md.back());
      size_t stride = mask_len;
      for (size_t i = md.size() - 1; i-- > 0;) {
        const size_t axis = 4 - md.size() + i;  // of [B, Hq, Sq, L]
        if (md[i] != 1) mask_strides[axis] = stride;
        stride *= static_cast<size_t>(md[i]);
      }
    }
    const Tensor* nonpad_t = ctx.OptionalInput(6);
    const int64_t* nonpad =
        nonpad_t != nullptr ? static_cast<const int64_t*>(nonpad_t->data()) : nullptr;
    const bool has_past = ctx.OptionalInput(4) != nullptr;

    ctx.threads().ParallelFor(b_n * hq, 1, [&](size_t begin, size_t end) {
      float* scores = ctx.Scratch<float>(sq * total);
      for (size_t bh = begin; bh < end; ++bh) {
        const size_t b = bh / hq;
        const size_t h = bh % hq;
        const size_t kv_head = b * static_cast<size_t>(s.kv_heads) + h / group;
        const float* kp = keys + kv_head * total * dk;
        const float* vp = values + kv_head * total * dv;
        Gemm<float>(false, true, sq, total, dk, scale,
                    q_data + q_view.Offset(static_cast<int64_t>(b), static_cast<int64_t>(h)),
                    q_view.Stride(), kp, dk, 0.0f, scores, total, nullptr);
        int64_t offset = 0;  // of the causal frontier
        if (has_past) {
          offset = s.past_len;
        } else if (nonpad != nullptr) {
          offset = nonpad[b] - s.q_len;
        }
        const size_t valid = nonpad != nullptr ? static_cast<size_t>(nonpad[b]) : total;
        T* qk_head = qk_out != nullptr ? qk_out + bh * sq * total : nullptr;
        for (size_t i = 0; i < sq; ++i) {
          float* row = scores + i * total;
          T* qk_row = qk_head != nullptr ? qk_head + i * total : nullptr;
          if (qk_row != nullptr && mode_ == 0) WriteRow(row, total, qk_row);
          if (softcap_ > 0.0f) {
            for (size_t j = 0; j < total; ++j) row[j] = softcap_ * std::tanh(row[j] / softcap_);
          }
          if (qk_row != nullptr && mode_ == 1) WriteRow(row, total, qk_row);
          if (mask != nullptr) {
            const size_t base = b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2];
            for (size_t j = mask_len; j < total; ++j) row[j] = kNegInf;
            if (mask->type() == DataType::kBool) {
              const bool* m = static_cast<const bool*>(mask->data()) + base;
              for (size_t j = 0; j < mask_len; ++j) {
                if (!m[j]) row[j] = kNegInf;
              }
            } else {
              const T* m = static_cast<const T*>(mask->data()) + base;
              for (size_t j = 0; j < mask_len; ++j) row[j] += ToFloat(m[j]);
            }
          }
          if (is_causal_ != 0) {
            const int64_t last = static_cast<int64_t>(i) + offset;  // the last key it may see
            for (size_t j = static_cast<size_t>(std::clamp<int64_t>(last + 1, 0, s.total));
                 j < total; ++j) {
              row[j] = kNegInf;
            }
          }
          for (size_t j = valid; j < total; ++j) row[j] = kNegInf;
          if (qk_row != nullptr && mode_ == 2) WriteRow(row, total, qk_row);
          SoftmaxRow(row, total);
          if (qk_row != nullptr && mode_ == 3) WriteRow(row, total, qk_row);
        }
        Gemm<float>(false, false, sq, dv, total, 1.0f, scores, total, vp, dv, 0.0f,
                    y_data + y_view.Offset(static_cast<int64_t>(b), static_cast<int64_t>(h)),
                    y_view.Stride(), nullptr);
      }
    });
    if constexpr (!std::is_same_v<T, float>) Store<T>(y_data, y.element_count(), y);
  }

  template <typename T>
  static void WriteRow(const float* row, size_t n, T* out) {
    for (size_t j = 0; j < n; ++j) out[j] = FromFloat<T>(row[j]);
  }

  int64_t opset_;
  int64_t is_causal_;
  int64_t q_num_heads_;
  int64_t kv_num_heads_;
  int64_t mode_;
  float scale_;
  bool has_scale_;
  float softcap_;
};

}  // namespace

std::unique_ptr<Kernel> MakeAttention(const KernelInfo& info) {
  return std::make_unique<Attention>(info);
}

}  // namespace kiln::cpu
