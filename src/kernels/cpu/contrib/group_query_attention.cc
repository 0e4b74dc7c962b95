// GroupQueryAttention (com.microsoft, opset 1), float: the attention of ONNX Runtime's
// generative-AI models (its model builder writes it for Llama, Phi, Mistral, Qwen...): causal
// self-attention over a key/value cache, with grouped heads and optional rotary embedding.
// Inputs: 0 query [B, S, N·H] (or Q, K and V packed [B, S, (N + 2·Nk)·H], inputs 1-2 missing);
// 1 key, 2 value [B, S, Nk·H]; 3 past_key, 4 past_value [B, Nk, P, H] (optional, BNSH);
// 5 seqlens_k int32 [B], each sequence's total length - 1; 6 total_sequence_length int32 (one
// element, T); 7 cos_cache, 8 sin_cache [max position, R/2] (with do_rotary); 9 position_ids
// int64 [B, at least S] (the rotary positions of the new tokens; without do_rotary only checked);
// 10 attention_bias [B or 1, N or 1, S, T]; 11 head_sink [N].
// Attributes: num_heads N, kv_num_heads Nk (N a multiple of it: query head h reads key/value
// head h / (N / Nk)), scale (0: 1/sqrt(H)), softcap (0: none), local_window_size (-1: none),
// do_rotary, rotary_interleaved, smooth_softmax, qk_output (0: none, 1: the scores before the
// softmax, 2: the probabilities after it, into output 3).
// Outputs: 0 output [B, S, N·H]; 1 present_key, 2 present_value [B, Nk, max(T, P), H];
// 3 output_qk [B, N, S, T].
// As ONNX Runtime: the first prompt (S == T) has no past; otherwise S is 1 (token generation) or
// the batch is 1 (a further prompt) and sequence b's past is its total length - S (a first
// prompt of several sequences must have them all S long: right-padded ones are refused, naming
// seqlens_k). Each sequence's
// past rows [0, past) are copied from past_key/past_value and its new rows follow them (rotated at
// positions past + s when do_rotary); the rest of the present cache is zeros. With position_ids
// the rotary positions are ONNX Runtime's: a first prompt's token s takes position_ids' first
// element + s in every sequence; otherwise token s of sequence b takes element b·S + s of
// position_ids read flat (its row b when its second dimension is S); each must be a cos/sin
// cache row. Query row s attends to keys [0, past + s] (with a window, the last
// local_window_size of them, its own included, as ONNX Runtime 1.30 takes it), with
// scores = scale · q·k, then softcap · tanh(score / softcap), then + attention_bias[b, h, s, key]
// (its dimensions of 1 broadcast; every sequence's total length at most T), then softmax
// (smooth_softmax or head_sink: with an extra logit in the denominator, head_sink[h] when given,
// else 0). output_qk holds row s's scores (qk_output 1: after the bias, before the softmax) or
// probabilities (2) at the keys it attends to, zeros elsewhere (all zeros with qk_output 0, where
// ONNX Runtime leaves it unwritten); keys past T are not in it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class GroupQueryAttention final : public Kernel {
 public:
  explicit GroupQueryAttention(const KernelInfo& info)
      : num_heads_(info.GetInt("num_heads", 0)),
        kv_num_heads_(info.GetInt("kv_num_heads", 0)),
        scale_(info.GetFloat("scale", 0.0f)),
        softcap_(info.GetFloat("softcap", 0.0f)),
        local_window_(info.GetInt("local_window_size", -1)),
        do_rotary_(info.GetInt("do_rotary", 0) != 0),
        interleaved_(info.GetInt("rotary_interleaved", 0) != 0),
        smooth_softmax_(info.GetInt("smooth_softmax", 0) != 0),
        qk_output_(info.GetInt("qk_output", 0)) {
    if (num_heads_ <= 0 || kv_num_heads_ <= 0 || num_heads_ % kv_num_heads_ != 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'num_heads' (" + std::to_string(num_heads_) + ") and 'kv_num_heads' (" +
                    std::to_string(kv_num_heads_) +
                    ") must be > 0, num_heads a multiple of kv_num_heads");
    }
    if (qk_output_ < 0 || qk_output_ > 2) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'qk_output' is " + std::to_string(qk_output_) +
                    "; it must be 0 (none), 1 (before the softmax) or 2 (after it)");
    }
    if (softcap_ < 0.0f) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'softcap' must be >= 0");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& query = ctx.Input(0);
    const Tensor* key = ctx.OptionalInput(1);
    const Tensor* value = ctx.OptionalInput(2);
    const Tensor* past_key = ctx.OptionalInput(3);
    const Tensor* past_value = ctx.OptionalInput(4);
    const Tensor& seqlens = ctx.Input(5);
    const Tensor& total_len = ctx.Input(6);
    const Tensor* cos = ctx.OptionalInput(7);
    const Tensor* sin = ctx.OptionalInput(8);
    const Tensor* position_ids = ctx.OptionalInput(9);
    const Tensor* bias = ctx.OptionalInput(10);
    const Tensor* sink = ctx.OptionalInput(11);

    for (const auto& [t, name] :
         {std::pair{&query, "query"}, std::pair{key, "key"}, std::pair{value, "value"},
          std::pair{past_key, "past_key"}, std::pair{past_value, "past_value"},
          std::pair{cos, "cos_cache"}, std::pair{sin, "sin_cache"},
          std::pair{bias, "attention_bias"}, std::pair{sink, "head_sink"}}) {
      if (t != nullptr && t->type() != DataType::kFloat) {
        info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' is " +
                                                  DataTypeName(t->type()) +
                                                  "; only float is supported");
      }
    }
    const std::vector<int64_t>& qd = query.shape().dims();
    if (qd.size() != 3) Bad(info, "query", query, "[batch, sequence, hidden]");
    const int64_t batch = qd[0];
    const int64_t seq = qd[1];
    const bool packed = key == nullptr;
    if ((key == nullptr) != (value == nullptr)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'key' and 'value' come together (or neither, with Q, K and V packed)");
    }
    const int64_t heads_in_query = packed ? num_heads_ + 2 * kv_num_heads_ : num_heads_;
    if (qd[2] % heads_in_query != 0) {
      Bad(info, "query", query,
          "a last dimension that is a multiple of " + std::to_string(heads_in_query) + " heads");
    }
    const int64_t head = qd[2] / heads_in_query;
    const int64_t kv_hidden = kv_num_heads_ * head;
    if (!packed) {
      for (const auto& [t, name] : {std::pair{key, "key"}, std::pair{value, "value"}}) {
        const std::vector<int64_t>& d = t->shape().dims();
        if (d.size() != 3 || d[0] != batch || d[1] != seq || d[2] != kv_hidden) {
          Bad(info, name, *t,
              "[" + std::to_string(batch) + ", " + std::to_string(seq) + ", " +
                  std::to_string(kv_hidden) + "] (kv_num_heads times the head size " +
                  std::to_string(head) + ")");
        }
      }
    }
    if ((past_key == nullptr) != (past_value == nullptr)) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'past_key' and 'past_value' come together");
    }
    int64_t past_rows = 0;
    if (past_key != nullptr) {
      past_rows = past_key->shape().rank() == 4 ? past_key->shape().dims()[2] : -1;
      for (const auto& [t, name] :
           {std::pair{past_key, "past_key"}, std::pair{past_value, "past_value"}}) {
        const std::vector<int64_t>& d = t->shape().dims();
        if (d.size() != 4 || d[0] != batch || d[1] != kv_num_heads_ || d[2] != past_rows ||
            d[3] != head) {
          Bad(info, name, *t,
              "[" + std::to_string(batch) + ", " + std::to_string(kv_num_heads_) + ", P, " +
                  std::to_string(head) + "], the same P for both");
        }
      }
    }
    if (seqlens.type() != DataType::kInt32 || seqlens.shape().dims() != std::vector{batch}) {
      Bad(info, "seqlens_k", seqlens, "int32 [" + std::to_string(batch) + "]");
    }
    if (total_len.type() != DataType::kInt32 || total_len.element_count() != 1) {
      Bad(info, "total_sequence_length", total_len, "int32 of one element");
    }
    const int64_t total = *static_cast<const int32_t*>(total_len.data());
    if (total < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'total_sequence_length' is " + std::to_string(total) + "; it must be >= 1");
    }
    const int64_t present_rows = std::max(total, past_rows);
    const bool subsequent_prompt = seq > 1 && seq != total;
    if (subsequent_prompt && batch != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "a sequence of " + std::to_string(seq) +
                                                 " tokens that is not the first prompt (" +
                                                 "total_sequence_length " + std::to_string(total) +
                                                 ") needs batch 1, not " + std::to_string(batch));
    }
    const bool first_prompt = !subsequent_prompt && seq == total;
    const auto* lens = static_cast<const int32_t*>(seqlens.data());
    SmallVector<int64_t> past_of(static_cast<size_t>(batch));
    int64_t longest = 0;  // the positions read are below it
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = int64_t{lens[b]} + 1;
      longest = std::max(longest, len);
      const int64_t past = first_prompt ? 0 : len - seq;
      if (len < 1 || len > present_rows || past < 0 || past > past_rows ||
          (first_prompt && len != seq)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "seqlens_k[" + std::to_string(b) + "] is " + std::to_string(lens[b]) +
                      ": a total length of " + std::to_string(len) + " does not fit " +
                      std::to_string(seq) + " new tokens after a past of at most " +
                      std::to_string(past_rows) + " in a cache of " + std::to_string(present_rows) +
                      (first_prompt ? " (first prompt)" : ""));
      }
      past_of[static_cast<size_t>(b)] = past;
    }
    int64_t rotary = 0;
    if (do_rotary_) {
      if (cos == nullptr || sin == nullptr || cos->shape().rank() != 2 ||
          cos->shape().dims() != sin->shape().dims() || 2 * cos->shape().dims()[1] > head ||
          cos->shape().dims()[0] < longest) {
        info.Fail(
            ErrorCode::kInvalidArgument,
            "do_rotary needs inputs 'cos_cache' and 'sin_cache' of one shape [positions, R/2] "
            "with R at most the head size " +
                std::to_string(head) + " and at least " + std::to_string(longest) + " positions");
      }
      rotary = 2 * cos->shape().dims()[1];
    }
    // The rotary position of each new token (b·S + s), checked against the caches.
    SmallVector<int64_t> position(static_cast<size_t>(batch * seq));
    for (size_t i = 0; i < position.size(); ++i) {
      position[i] = past_of[i / static_cast<size_t>(seq)] + static_cast<int64_t>(i) % seq;
    }
    if (position_ids != nullptr) {
      const std::vector<int64_t>& d = position_ids->shape().dims();
      if (position_ids->type() != DataType::kInt64 || d.size() != 2 || d[0] != batch ||
          d[1] < seq) {
        Bad(info, "position_ids", *position_ids,
            "int64 [" + std::to_string(batch) + ", at least " + std::to_string(seq) +
                "] (batch, sequence)");
      }
      if (rotary > 0) {
        const auto* ids = static_cast<const int64_t*>(position_ids->data());
        const int64_t positions = cos->shape().dims()[0];
        if (first_prompt && (ids[0] < 0 || ids[0] > positions - seq)) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'position_ids' starts at " + std::to_string(ids[0]) +
                        ": a first prompt's " + std::to_string(seq) +
                        " tokens take the positions from its first element on, which must be in "
                        "[0, " +
                        std::to_string(positions - seq) + "] for " + std::to_string(positions) +
                        " cos_cache/sin_cache positions");
        }
        for (size_t i = 0; i < position.size(); ++i) {
          const int64_t p = first_prompt ? ids[0] + static_cast<int64_t>(i) % seq : ids[i];
          if (p < 0 || p >= positions) {
            info.Fail(ErrorCode::kInvalidArgument,
                      "input 'position_ids' holds position " + std::to_string(p) +
                          " at flat index " + std::to_string(i) + "; it must be in [0, " +
                          std::to_string(positions) + "), the cos_cache/sin_cache positions");
          }
          position[i] = p;
        }
      }
    }
    if (bias != nullptr) {
      const std::vector<int64_t>& d = bias->shape().dims();
      if (d.size() != 4 || (d[0] != batch && d[0] != 1) || (d[1] != num_heads_ && d[1] != 1) ||
          d[2] != seq || d[3] != total) {
        Bad(info, "attention_bias", *bias,
            "[" + std::to_string(batch) + " or 1, " + std::to_string(num_heads_) + " or 1, " +
                std::to_string(seq) + ", " + std::to_string(total) +
                "] (batch or 1, num_heads or 1, sequence, total_sequence_length)");
      }
      if (longest > total) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'attention_bias' covers total_sequence_length " + std::to_string(total) +
                      " keys, fewer than a sequence's total length " + std::to_string(longest) +
                      " (seqlens_k)");
      }
    }
    if (sink != nullptr && sink->shape().dims() != std::vector{num_heads_}) {
      Bad(info, "head_sink", *sink, "[" + std::to_string(num_heads_) + "] (one per query head)");
    }

    const int64_t out_dims[] = {batch, seq, num_heads_ * head};
    Tensor& out = ctx.OutputForOverwrite(0, DataType::kFloat, out_dims);
    const int64_t cache_dims[] = {batch, kv_num_heads_, present_rows, head};
    float* present_k = Cache(ctx, 1, cache_dims);
    float* present_v = Cache(ctx, 2, cache_dims);
    float* qk = nullptr;
    if (ctx.WantsOutput(3)) {
      const int64_t qk_dims[] = {batch, num_heads_, seq, total};
      qk = static_cast<float*>(ctx.OutputForOverwrite(3, DataType::kFloat, qk_dims).data());
      if (qk_output_ == 0) std::fill_n(qk, batch * num_heads_ * seq * total, 0.0f);
    }
    const auto H = static_cast<size_t>(head);
    const auto S = static_cast<size_t>(seq);
    const auto rows = static_cast<size_t>(present_rows);
    const auto kvh = static_cast<size_t>(kv_num_heads_);
    const auto nh = static_cast<size_t>(num_heads_);
    const size_t cache_size = static_cast<size_t>(batch) * kvh * rows * H;
    // The caches this run attends over: the outputs, or scratch when they are not wanted.
    float* keys = present_k != nullptr ? present_k : ctx.Scratch<float>(cache_size);
    float* values = present_v != nullptr ? present_v : ctx.Scratch<float>(cache_size);
    std::fill(keys, keys + cache_size, 0.0f);
    std::fill(values, values + cache_size, 0.0f);

    const auto* qp = static_cast<const float*>(query.data());
    const float* kp =
        packed ? qp + static_cast<size_t>(num_heads_) * H : static_cast<const float*>(key->data());
    const float* vp = packed ? qp + static_cast<size_t>(num_heads_ + kv_num_heads_) * H
                             : static_cast<const float*>(value->data());
    const size_t q_stride = static_cast<size_t>(qd[2]);  // between tokens
    const size_t kv_stride = packed ? q_stride : static_cast<size_t>(kv_hidden);
    const float* cp = cos != nullptr ? static_cast<const float*>(cos->data()) : nullptr;
    const float* sp = sin != nullptr ? static_cast<const float*>(sin->data()) : nullptr;
    const auto half = static_cast<size_t>(rotary / 2);
    const auto rotate = [&](const float* in, float* dst, int64_t position) {
      std::copy(in, in + H, dst);
      RotateHead(in, dst, cp + static_cast<size_t>(position) * half,
                 sp + static_cast<size_t>(position) * half, static_cast<int64_t>(half),
                 interleaved_);
    };

    // The caches: each sequence's past rows, then its new (rotated) rows.
    for (size_t b = 0; b < static_cast<size_t>(batch); ++b) {
      const auto past = static_cast<size_t>(past_of[b]);
      for (size_t h = 0; h < kvh; ++h) {
        float* kc = keys + (b * kvh + h) * rows * H;
        float* vc = values + (b * kvh + h) * rows * H;
        if (past > 0) {
          const size_t from = (b * kvh + h) * static_cast<size_t>(past_rows) * H;
          std::memcpy(kc, static_cast<const float*>(past_key->data()) + from,
                      past * H * sizeof(float));
          std::memcpy(vc, static_cast<const float*>(past_value->data()) + from,
                      past * H * sizeof(float));
        }
        for (size_t s = 0; s < S; ++s) {
          const float* k_in = kp + (b * S + s) * kv_stride + h * H;
          const float* v_in = vp + (b * S + s) * kv_stride + h * H;
          if (rotary > 0) {
            rotate(k_in, kc + (past + s) * H, position[b * S + s]);
          } else {
            std::copy(k_in, k_in + H, kc + (past + s) * H);
          }
          std::copy(v_in, v_in + H, vc + (past + s) * H);
        }
      }
    }

    const float scale = scale_ == 0.0f ? 1.0f / std::sqrt(static_cast<float>(head)) : scale_;
    auto* yp = static_cast<float*>(out.data());
    const size_t group = nh / kvh;
    const auto T = static_cast<size_t>(total);
    const float* bias_p = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    const size_t bias_b = bias != nullptr && bias->shape().dims()[0] != 1 ? 1 : 0;
    const size_t bias_h = bias != nullptr && bias->shape().dims()[1] != 1 ? 1 : 0;
    const size_t bias_heads = bias != nullptr ? static_cast<size_t>(bias->shape().dims()[1]) : 0;
    const float* sink_p = sink != nullptr ? static_cast<const float*>(sink->data()) : nullptr;
    const bool sinks = smooth_softmax_ || sink_p != nullptr;
    float* const qk_rows = qk_output_ != 0 ? qk : nullptr;
    ctx.threads().ParallelFor(
        static_cast<size_t>(batch) * nh * S, 4, [&](size_t begin, size_t end) {
          float* q = ctx.Scratch<float>(H);
          float* scores = ctx.Scratch<float>(rows);
          for (size_t task = begin; task < end; ++task) {
            const size_t s = task % S;
            const size_t h = (task / S) % nh;
            const size_t b = task / (S * nh);
            const auto past = static_cast<size_t>(past_of[b]);
            const float* q_in = qp + (b * S + s) * q_stride + h * H;
            if (rotary > 0) {
              rotate(q_in, q, position[b * S + s]);
            } else {
              std::copy(q_in, q_in + H, q);
            }
            const size_t length = past + s + 1;  // causal
            const size_t first = local_window_ > 0 && length > static_cast<size_t>(local_window_)
                                     ? length - static_cast<size_t>(local_window_)
                                     : 0;
            const float* kc = keys + (b * kvh + h / group) * rows * H;
            const float* vc = values + (b * kvh + h / group) * rows * H;
            const float* bias_row =
                bias_p != nullptr ? bias_p + ((b * bias_b * bias_heads + h * bias_h) * S + s) * T
                                  : nullptr;
            // The extra logit of smooth_softmax (0) or head_sink.
            const float sink_logit = sink_p != nullptr ? sink_p[h] : 0.0f;
            float max = sinks ? sink_logit : -std::numeric_limits<float>::infinity();
            for (size_t j = first; j < length; ++j) {
              float dot = 0;
              for (size_t i = 0; i < H; ++i) dot += q[i] * kc[j * H + i];
              float v = dot * scale;
              if (softcap_ > 0.0f) v = softcap_ * std::tanh(v / softcap_);
              if (bias_row != nullptr) v += bias_row[j];
              scores[j] = v;
              max = std::max(max, v);
            }
            // output_qk's row: zeros, then the scores or probabilities at keys [first, length).
            float* qk_row = qk_rows != nullptr ? qk_rows + ((b * nh + h) * S + s) * T : nullptr;
            const size_t shown = std::min(length, T);
            if (qk_row != nullptr) std::fill(qk_row, qk_row + T, 0.0f);
            if (qk_output_ == 1 && qk_row != nullptr) {
              for (size_t j = first; j < shown; ++j) qk_row[j] = scores[j];
            }
            double sum = sinks ? std::exp(double{sink_logit} - max) : 0.0;
            for (size_t j = first; j < length; ++j) {
              scores[j] = std::exp(scores[j] - max);
              sum += scores[j];
            }
            float* y = yp + (b * S + s) * nh * H + h * H;
            std::fill(y, y + H, 0.0f);
            for (size_t j = first; j < length; ++j) {
              const auto p = static_cast<float>(scores[j] / sum);
              if (qk_output_ == 2 && qk_row != nullptr && j < shown) qk_row[j] = p;
              for (size_t i = 0; i < H; ++i) y[i] += p * vc[j * H + i];
            }
          }
        });
  }

 private:
  static float* Cache(KernelContext& ctx, size_t i, std::span<const int64_t> dims) {
    if (!ctx.WantsOutput(i)) return nullptr;
    return static_cast<float*>(ctx.OutputForOverwrite(i, DataType::kFloat, dims).data());
  }

  [[noreturn]] static void Bad(const KernelInfo& info, const char* name, const Tensor& t,
                               const std::string& want) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString() +
                                               "; it must be " + want);
  }

  int64_t num_heads_;
  int64_t kv_num_heads_;
  float scale_;
  float softcap_;
  int64_t local_window_;
  bool do_rotary_;
  bool interleaved_;
  bool smooth_softmax_;
  int64_t qk_output_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGroupQueryAttention(const KernelInfo& info) {
  return Make<GroupQueryAttention>(info);
}

}  // namespace kiln::cpu
