// MultiHeadAttention (com.microsoft, opset 1), float, the separate-projections form:
//   query [B, S, D], key [B, L, D], value [B, L, Dv], bias [D + D + Dv] (optional, added to the
//   query, key and value), attention_bias (input 5, optional, added to the scores; [B or 1,
//   num_heads or 1, S, L]). Output 0: [B, S, Dv], the heads concatenated.
// Attributes: num_heads (required, divides D and Dv), scale (0 or absent: 1/√(D/num_heads)),
// unidirectional (1: query position i attends to key positions j <= i + L - S; a query row with
// no such position attends to all, as ONNX Runtime's additive mask_filter_value gives),
// mask_filter_value (-10000: added to the scores of keys key_padding_mask hides).
// key_padding_mask (input 4, optional, int32): [B] each sequence's key length (keys from it on
// hidden), or [B, L] with 0 (or less, as ONNX Runtime reads it) where a key is hidden; it is
// turned with attention_bias into one
// additive bias [B, num_heads or 1, S, L] in scratch, as ONNX Runtime adds it.
// Not implemented (kNotImplemented naming the input or output): key_padding_mask's other forms
// ([3B + 2] and the like), past_key /
// past_value / past_sequence_length / cache_indirection, the present_key / present_value / qk
// outputs, and the packed forms (no key: packed QKV; 4-D or 5-D key).
// One task per (batch, head). On AVX-512 machines, with at least as many tasks as threads, each
// runs attention_avx512.h's head kernel (a few query rows at a time, the scores in L1).
// Otherwise: scores = scale·Q_h·K_hᵀ by cpu::Gemm reading the head's columns in place (lda = D),
// + attention_bias, the causal limit, e^(score - row max) per row, then P·V_h by cpu::Gemm
// written straight into the output's columns (ldc = Dv), and each output row divided by its
// row's sum (hdv values rather than L scores per row); with a bias the head's Q, K and V are
// first copied with the bias added into the task's scratch. With fewer tasks than threads they
// run in turn, each product over the whole pool.
// Attribute bf16 (set for session config kiln.compute.bf16) on a machine with AVX-512 BF16: the
// second way, its two products on Bf16Gemm (Kᵀ and V packed per head as bf16, Q's and the
// exponentials' rows rounded as used; each on its task's thread), the scale applied after.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/contrib/attention_avx512.h"
#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr size_t kLanes = 16;  // interleaved partial sums and maxima

KILN_VECTOR_CLONES void AddInPlace(float* x, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] += b[i];
}

// dst (rows × width, packed) = src (row stride ld) + b.
KILN_VECTOR_CLONES void CopyAdd(const float* src, size_t ld, const float* b, float* dst,
                                size_t rows, size_t width) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < width; ++i) dst[r * width + i] = src[r * ld + i] + b[i];
  }
}

// x = e^(x - shift) in place; returns the sum.
KILN_VECTOR_CLONES float ExpSum(float* x, size_t n, float shift) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) {
      x[i + j] = ExpF(x[i + j] - shift);
      acc[j] += x[i + j];
    }
  }
  for (; i < n; ++i) {
    x[i] = ExpF(x[i] - shift);
    acc[0] += x[i];
  }
  for (size_t w = kLanes / 2; w > 0; w /= 2) {
    for (size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

KILN_VECTOR_CLONES void Scale(float* x, size_t n, float s) {
  for (size_t i = 0; i < n; ++i) x[i] *= s;
}

class MultiHeadAttention final : public Kernel {
 public:
  explicit MultiHeadAttention(const KernelInfo& info)
      : num_heads_(info.RequireInt("num_heads")),
        scale_(info.GetFloat("scale", 0.0f)),
        mask_filter_(info.GetFloat("mask_filter_value", -10000.0f)),
        causal_(info.GetInt("unidirectional", 0) != 0),
        bf16_(info.GetInt("bf16", 0) != 0 && Bf16GemmSupported()) {
    if (num_heads_ <= 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'num_heads' is " + std::to_string(num_heads_) + "; it must be positive");
    }
    const int64_t unidirectional = info.GetInt("unidirectional", 0);
    if (unidirectional != 0 && unidirectional != 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'unidirectional' is " +
                                              std::to_string(unidirectional) +
                                              "; it must be 0 or 1");
    }
    for (const auto& [i, name] :
         {std::pair{size_t{6}, "past_key"}, std::pair{size_t{7}, "past_value"},
          std::pair{size_t{8}, "past_sequence_length"},
          std::pair{size_t{9}, "cache_indirection"}}) {
      if (info.HasInput(i)) {
        info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' is not supported");
      }
    }
    for (const auto& [i, name] :
         {std::pair{size_t{1}, "present_key"}, std::pair{size_t{2}, "present_value"},
          std::pair{size_t{3}, "qk"}}) {
      if (info.HasOutput(i)) {
        info.Fail(ErrorCode::kNotImplemented,
                  std::string("output '") + name + "' is not supported");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& query = ctx.Input(0);
    const Tensor* key = ctx.OptionalInput(1);
    if (key == nullptr || query.shape().rank() == 5) {
      info.Fail(ErrorCode::kNotImplemented,
                "the packed QKV form (input 'query' " + query.shape().ToString() +
                    " without input 'key') is not supported; give query, key and value as "
                    "[B, S, D], [B, L, D], [B, L, Dv]");
    }
    if (key->shape().rank() == 4 || key->shape().rank() == 5) {
      info.Fail(ErrorCode::kNotImplemented,
                "input 'key' has shape " + key->shape().ToString() +
                    ": the packed KV and [B, num_heads, L, head_size] key forms are not supported");
    }
    const Tensor& value = ctx.Input(2);
    const Tensor* bias = ctx.OptionalInput(3);
    const Tensor* attention_bias = ctx.OptionalInput(5);
    for (const auto& [t, name] :
         {std::pair{&query, "query"}, std::pair{key, "key"}, std::pair{&value, "value"},
          std::pair{bias, "bias"}, std::pair{attention_bias, "attention_bias"}}) {
      if (t != nullptr && t->type() != DataType::kFloat) {
        info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' is " +
                                                  DataTypeName(t->type()) +
                                                  "; only float is supported");
      }
    }
    for (const auto& [t, name] :
         {std::pair{&query, "query"}, std::pair{key, "key"}, std::pair{&value, "value"}}) {
      if (t->shape().rank() != 3) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                                   t->shape().ToString() + "; it must be 3-D");
      }
    }
    const std::vector<int64_t>& qd = query.shape().dims();
    const std::vector<int64_t>& kd = key->shape().dims();
    const std::vector<int64_t>& vd = value.shape().dims();
    const int64_t batch = qd[0];
    const int64_t s_len = qd[1];
    const int64_t hidden = qd[2];
    const int64_t l_len = kd[1];
    const int64_t v_hidden = vd[2];
    if (kd[0] != batch || kd[2] != hidden) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'key' has shape " + key->shape().ToString() +
                                                 "; it must be [" + std::to_string(batch) +
                                                 ", L, " + std::to_string(hidden) +
                                                 "] for input 'query' " + query.shape().ToString());
    }
    if (vd[0] != batch || vd[1] != l_len) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'value' has shape " + value.shape().ToString() +
                                                 "; it must be [" + std::to_string(batch) + ", " +
                                                 std::to_string(l_len) + ", Dv] for input 'key' " +
                                                 key->shape().ToString());
    }
    for (const auto& [d, name] : {std::pair{hidden, "query"}, std::pair{v_hidden, "value"}}) {
      if (d % num_heads_ != 0) {
        info.Fail(ErrorCode::kInvalidArgument, "attribute 'num_heads' (" +
                                                   std::to_string(num_heads_) +
                                                   ") does not divide the hidden size " +
                                                   std::to_string(d) + " of input '" + name + "'");
      }
    }
    if (bias != nullptr &&
        (bias->shape().rank() != 1 || bias->shape().dims()[0] != 2 * hidden + v_hidden)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'bias' has shape " + bias->shape().ToString() + "; it must be [" +
                    std::to_string(2 * hidden + v_hidden) + "] (D + D + Dv)");
    }
    int64_t ab_batch = 0;
    int64_t ab_heads = 0;
    if (attention_bias != nullptr) {
      const std::vector<int64_t>& ad = attention_bias->shape().dims();
      const bool ok = ad.size() == 4 && (ad[0] == 1 || ad[0] == batch) &&
                      (ad[1] == 1 || ad[1] == num_heads_) && ad[2] == s_len && ad[3] == l_len;
      if (!ok) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'attention_bias' has shape " + attention_bias->shape().ToString() +
                      "; it must be [" + std::to_string(batch) + " or 1, " +
                      std::to_string(num_heads_) + " or 1, " + std::to_string(s_len) + ", " +
                      std::to_string(l_len) + "]");
      }
      ab_batch = ad[0];
      ab_heads = ad[1];
    }
    const Tensor* padding = ctx.OptionalInput(4);
    const float* combined = nullptr;  // attention_bias with key_padding_mask added, in scratch
    if (padding != nullptr) {
      const std::vector<int64_t>& pd = padding->shape().dims();
      const bool lengths = pd.size() == 1 && pd[0] == batch;
      const bool raw = pd.size() == 2 && pd[0] == batch && pd[1] == l_len;
      if (padding->type() != DataType::kInt32 || (!lengths && !raw)) {
        info.Fail(ErrorCode::kNotImplemented,
                  "input 'key_padding_mask' is " + std::string(DataTypeName(padding->type())) +
                      " " + padding->shape().ToString() + "; supported: int32 [" +
                      std::to_string(batch) + "] (key lengths) or [" + std::to_string(batch) +
                      ", " + std::to_string(l_len) + "] (0 hides a key)");
      }
      const auto* m = static_cast<const int32_t*>(padding->data());
      const auto B = static_cast<size_t>(batch);
      const size_t H = attention_bias != nullptr ? static_cast<size_t>(ab_heads) : 1;
      const auto S = static_cast<size_t>(s_len);
      const auto L = static_cast<size_t>(l_len);
      float* out = ctx.Scratch<float>(B * H * S * L);
      const auto* in =
          attention_bias != nullptr ? static_cast<const float*>(attention_bias->data()) : nullptr;
      for (size_t b = 0; b < B; ++b) {
        for (size_t h = 0; h < H; ++h) {
          for (size_t s = 0; s < S; ++s) {
            float* row = out + ((b * H + h) * S + s) * L;
            for (size_t l = 0; l < L; ++l) {
              const bool hidden = lengths ? static_cast<int64_t>(l) >= m[b] : m[b * L + l] <= 0;
              const float given =
                  in != nullptr ? in[(((ab_batch == 1 ? 0 : b) * H + h) * S + s) * L + l] : 0.0f;
              row[l] = given + (hidden ? mask_filter_ : 0.0f);
            }
          }
        }
      }
      combined = out;
      ab_batch = batch;
      ab_heads = static_cast<int64_t>(H);
    }
    const int64_t out_dims[] = {batch, s_len, v_hidden};
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, out_dims);
    if (y.element_count() == 0) return;
    auto* yp = static_cast<float*>(y.data());
    if (l_len == 0) {
      std::fill(yp, yp + y.element_count(), 0.0f);  // no keys: every weighted sum is empty
      return;
    }

    Shapes sh;
    sh.s = static_cast<size_t>(s_len);
    sh.l = static_cast<size_t>(l_len);
    sh.d = static_cast<size_t>(hidden);
    sh.dv = static_cast<size_t>(v_hidden);
    sh.heads = static_cast<size_t>(num_heads_);
    sh.hd = sh.d / sh.heads;
    sh.hdv = sh.dv / sh.heads;
    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(sh.hd));
    const auto* qp = static_cast<const float*>(query.data());
    const auto* kp = static_cast<const float*>(key->data());
    const auto* vp = static_cast<const float*>(value.data());
    const float* bp = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    const float* abp = combined != nullptr ? combined
                       : attention_bias != nullptr
                           ? static_cast<const float*>(attention_bias->data())
                           : nullptr;
    const size_t tasks = static_cast<size_t>(batch) * sh.heads;
    // Fewer (batch, head) pairs than threads (one head, or decoding one sequence): the tasks run
    // in turn and each product uses the whole pool instead.
    ThreadPool& pool = ctx.threads();
    ThreadPool* gemm_pool = tasks < static_cast<size_t>(pool.size()) ? &pool : nullptr;
    const bool avx512 = UseVectorMathAvx512();
    if (avx512 && gemm_pool == nullptr && !bf16_) {
      // A head per task, its rows a few at a time (attention_avx512.h).
      pool.ParallelFor(tasks, 1, [&](size_t begin, size_t end) {
        float* scratch = ctx.Scratch<float>(AttentionHeadScratchFloats(sh.l, sh.hd, sh.hdv));
        for (size_t t = begin; t < end; ++t) {
          const size_t b = t / sh.heads;
          const size_t h = t % sh.heads;
          AttentionHead head;
          head.q = qp + b * sh.s * sh.d + h * sh.hd;
          head.ldq = sh.d;
          head.k = kp + b * sh.l * sh.d + h * sh.hd;
          head.ldk = sh.d;
          head.v = vp + b * sh.l * sh.dv + h * sh.hdv;
          head.ldv = sh.dv;
          if (bp != nullptr) {
            head.q_bias = bp + h * sh.hd;
            head.k_bias = bp + sh.d + h * sh.hd;
            head.v_bias = bp + 2 * sh.d + h * sh.hdv;
          }
          if (abp != nullptr) {
            const size_t ab_b = ab_batch == 1 ? 0 : b;
            const size_t ab_h = ab_heads == 1 ? 0 : h;
            head.scores_bias = abp + (ab_b * static_cast<size_t>(ab_heads) + ab_h) * sh.s * sh.l;
          }
          head.out = yp + b * sh.s * sh.dv + h * sh.hdv;
          head.ldo = sh.dv;
          head.s = sh.s;
          head.l = sh.l;
          head.hd = sh.hd;
          head.hdv = sh.hdv;
          head.scale = scale;
          head.causal = causal_;
          AttentionHeadAvx512(head, scratch);
        }
      });
      return;
    }
    const auto run = [&](size_t begin, size_t end) {
      float* scores = ctx.Scratch<float>(sh.s * sh.l);
      float* inv_sums = ctx.Scratch<float>(sh.s);
      float* qs = nullptr;
      float* ks = nullptr;
      float* vs = nullptr;
      // bf16: Kᵀ and V packed per head as bf16 panels.
      uint16_t* kt_store =
          bf16_ ? ctx.Scratch<uint16_t>(Bf16PackedB::PanelElements(sh.hd, sh.l)) : nullptr;
      uint16_t* v_store =
          bf16_ ? ctx.Scratch<uint16_t>(Bf16PackedB::PanelElements(sh.l, sh.hdv)) : nullptr;
      uint32_t* key_pairs = bf16_ ? ctx.Scratch<uint32_t>((sh.hd + 1) / 2) : nullptr;
      if (bp != nullptr) {
        qs = ctx.Scratch<float>(sh.s * sh.hd);
        ks = ctx.Scratch<float>(sh.l * sh.hd);
        vs = ctx.Scratch<float>(sh.l * sh.hdv);
      }
      for (size_t t = begin; t < end; ++t) {
        const size_t b = t / sh.heads;
        const size_t h = t % sh.heads;
        const float* q = qp + b * sh.s * sh.d + h * sh.hd;
        const float* k = kp + b * sh.l * sh.d + h * sh.hd;
        const float* v = vp + b * sh.l * sh.dv + h * sh.hdv;
        size_t ldq = sh.d;
        size_t ldk = sh.d;
        size_t ldv = sh.dv;
        if (bp != nullptr) {
          CopyAdd(q, sh.d, bp + h * sh.hd, qs, sh.s, sh.hd);
          CopyAdd(k, sh.d, bp + sh.d + h * sh.hd, ks, sh.l, sh.hd);
          CopyAdd(v, sh.dv, bp + 2 * sh.d + h * sh.hdv, vs, sh.l, sh.hdv);
          q = qs;
          k = ks;
          v = vs;
          ldq = sh.hd;
          ldk = sh.hd;
          ldv = sh.hdv;
        }
        if (bf16_) {
          const Bf16PackedB kt =
              Bf16PackedB::PackFloatsInto(kt_store, k, ldk, sh.hd, sh.l, true, key_pairs);
          Bf16Gemm(sh.s, q, ldq, kt, 0, sh.l, scores, sh.l);
          for (size_t i = 0; i < sh.s; ++i) Scale(scores + i * sh.l, sh.l, scale);
        } else {
          Gemm<float>(false, true, sh.s, sh.l, sh.hd, scale, q, ldq, k, ldk, 0.0f, scores, sh.l,
                      gemm_pool);
        }
        const float* ab = nullptr;
        if (abp != nullptr) {
          const size_t ab_b = ab_batch == 1 ? 0 : b;
          const size_t ab_h = ab_heads == 1 ? 0 : h;
          ab = abp + (ab_b * static_cast<size_t>(ab_heads) + ab_h) * sh.s * sh.l;
        }
        for (size_t i = 0; i < sh.s; ++i) {
          float* row = scores + i * sh.l;
          if (ab != nullptr) AddInPlace(row, ab + i * sh.l, sh.l);
          size_t valid = sh.l;
          if (causal_) {
            // j <= i + L - S; a row with no such j keeps all (ONNX Runtime adds the same
            // mask_filter_value to each of its scores, which the softmax cancels).
            const size_t limit = i + sh.l;  // (i + L - S) + S, kept unsigned
            if (limit >= sh.s) valid = std::min(sh.l, limit - sh.s + 1);
          }
          const float max = RowMax(row, valid);
          inv_sums[i] =
              1.0f / (avx512 ? ExpShiftedSumAvx512(row, row, valid, max) : ExpSum(row, valid, max));
          std::fill(row + valid, row + sh.l, 0.0f);
        }
        // The weights are normalized on the head's output rows (hdv wide) rather than on the
        // scores (L wide): one pass over the scores fewer.
        float* out = yp + b * sh.s * sh.dv + h * sh.hdv;
        if (bf16_) {
          const Bf16PackedB vb =
              Bf16PackedB::PackFloatsInto(v_store, v, ldv, sh.l, sh.hdv, false, nullptr);
          Bf16Gemm(sh.s, scores, sh.l, vb, 0, sh.hdv, out, sh.dv);
        } else {
          Gemm<float>(false, false, sh.s, sh.hdv, sh.l, 1.0f, scores, sh.l, v, ldv, 0.0f, out,
                      sh.dv, gemm_pool);
        }
        for (size_t i = 0; i < sh.s; ++i) Scale(out + i * sh.dv, sh.hdv, inv_sums[i]);
      }
    };
    if (gemm_pool != nullptr) {
      run(0, tasks);
    } else {
      pool.ParallelFor(tasks, 1, run);
    }
  }

 private:
  struct Shapes {
    size_t s = 0;      // query length
    size_t l = 0;      // key length
    size_t d = 0;      // query / key hidden size
    size_t dv = 0;     // value hidden size
    size_t heads = 0;  // num_heads
    size_t hd = 0;     // query / key head size
    size_t hdv = 0;    // value head size
  };

  int64_t num_heads_;
  float scale_;
  float mask_filter_;
  bool causal_;
  bool bf16_;  // attribute bf16 (session config kiln.compute.bf16), on a machine that runs it
};

}  // namespace

std::unique_ptr<Kernel> MakeMultiHeadAttention(const KernelInfo& info) {
  return Make<MultiHeadAttention>(info);
}

}  // namespace kiln::cpu
