// EmbedLayerNormalization (com.microsoft, opset 1), float: the embedding layer ONNX Runtime's
// transformer optimizer fuses BERT's start into. For each token (b, s):
//   e = word_embedding[input_ids[b, s]] + position_embedding[p] (+ segment_embedding[segment_ids
//       [b, s]]), p = position_ids[b, s] (or position_ids[0, s] when it is [1, S], or s without it)
//   output[b, s] = LayerNorm(e) · gamma (+ beta), over the hidden axis, with `epsilon` (1e-12)
// Inputs: 0 input_ids int32 [B, S]; 1 segment_ids int32 [B, S] (optional); 2 word_embedding
// [V, H]; 3 position_embedding [P, H]; 4 segment_embedding [G, H] (with segment_ids); 5 gamma [H];
// 6 beta [H] (optional); 7 mask int32 [B, S] (optional); 8 position_ids int32 (optional).
// Outputs: 0 output [B, S, H]; 1 mask_index int32 [B], the count of mask values equal to 1 in each
// row (0 without a mask), as ONNX Runtime; 2 embedding_sum [B, S, H] (optional), e itself. An id
// outside its table is refused, naming the input, the token and the table's size.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class EmbedLayerNormalization final : public Kernel {
 public:
  explicit EmbedLayerNormalization(const KernelInfo& info)
      : epsilon_(info.GetFloat("epsilon", 1e-12f)) {
    if (!(epsilon_ >= 0.0f)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'epsilon' is " + std::to_string(epsilon_) + "; it must be >= 0");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& ids = ctx.Input(0);
    const Tensor* segment_ids = ctx.OptionalInput(1);
    const Tensor& words = ctx.Input(2);
    const Tensor& positions = ctx.Input(3);
    const Tensor* segments = ctx.OptionalInput(4);
    const Tensor& gamma = ctx.Input(5);
    const Tensor* beta = ctx.OptionalInput(6);
    const Tensor* mask = ctx.OptionalInput(7);
    const Tensor* position_ids = ctx.OptionalInput(8);

    RequireInt32(info, ids, "input_ids");
    if (ids.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input_ids' has shape " +
                                                 ids.shape().ToString() +
                                                 "; it must be [batch, sequence]");
    }
    const int64_t batch = ids.shape().dims()[0];
    const int64_t seq = ids.shape().dims()[1];
    RequireTable(info, words, "word_embedding");
    const int64_t hidden = words.shape().dims()[1];
    RequireTable(info, positions, "position_embedding", hidden);
    if ((segment_ids == nullptr) != (segments == nullptr)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'segment_ids' and 'segment_embedding' come together: one is missing");
    }
    if (segment_ids != nullptr) {
      RequireInt32(info, *segment_ids, "segment_ids");
      RequireShapeOf(info, *segment_ids, "segment_ids", ids);
      RequireTable(info, *segments, "segment_embedding", hidden);
    }
    for (const auto& [t, name] : {std::pair{&gamma, "gamma"}, std::pair{beta, "beta"}}) {
      if (t == nullptr) continue;
      if (t->type() != DataType::kFloat || t->shape().rank() != 1 ||
          t->shape().dims()[0] != hidden) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' is " + DataTypeName(t->type()) + " " +
                      t->shape().ToString() + "; it must be float [" + std::to_string(hidden) +
                      "], the hidden size of 'word_embedding'");
      }
    }
    if (mask != nullptr) {
      RequireInt32(info, *mask, "mask");
      RequireShapeOf(info, *mask, "mask", ids);
    }
    bool broadcast_positions = false;
    if (position_ids != nullptr) {
      RequireInt32(info, *position_ids, "position_ids");
      const std::vector<int64_t>& pd = position_ids->shape().dims();
      broadcast_positions = pd.size() == 2 && pd[0] == 1 && pd[1] == seq;
      if (!broadcast_positions) RequireShapeOf(info, *position_ids, "position_ids", ids);
    }

    const auto tokens = static_cast<size_t>(batch * seq);
    const auto* id = static_cast<const int32_t*>(ids.data());
    const auto* seg_id =
        segment_ids != nullptr ? static_cast<const int32_t*>(segment_ids->data()) : nullptr;
    const auto* pos_id =
        position_ids != nullptr ? static_cast<const int32_t*>(position_ids->data()) : nullptr;
    // Every id checked before anything is written, so a refusal leaves no output half-made.
    for (size_t t = 0; t < tokens; ++t) {
      CheckId(info, id[t], words, "input_ids", t, seq);
      const int32_t p = Position(pos_id, broadcast_positions, t, seq);
      CheckId(info, p, positions, pos_id != nullptr ? "position_ids" : "the position", t, seq);
      if (seg_id != nullptr) CheckId(info, seg_id[t], *segments, "segment_ids", t, seq);
    }
    const int64_t out_dims[] = {batch, seq, hidden};
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, out_dims);
    const int64_t index_dims[] = {batch};
    auto* mask_index =
        ctx.WantsOutput(1)
            ? static_cast<int32_t*>(ctx.OutputForOverwrite(1, DataType::kInt32, index_dims).data())
            : nullptr;
    float* sum_out =
        ctx.WantsOutput(2)
            ? static_cast<float*>(ctx.OutputForOverwrite(2, DataType::kFloat, out_dims).data())
            : nullptr;

    if (mask_index != nullptr) {
      const auto* m = mask != nullptr ? static_cast<const int32_t*>(mask->data()) : nullptr;
      for (int64_t b = 0; b < batch; ++b) {
        mask_index[b] =
            m == nullptr ? 0 : static_cast<int32_t>(std::count(m + b * seq, m + (b + 1) * seq, 1));
      }
    }
    if (tokens == 0 || hidden == 0) return;

    const auto width = static_cast<size_t>(hidden);
    const auto* wp = static_cast<const float*>(words.data());
    const auto* pp = static_cast<const float*>(positions.data());
    const float* sp = segments != nullptr ? static_cast<const float*>(segments->data()) : nullptr;
    const auto* gp = static_cast<const float*>(gamma.data());
    const float* bp = beta != nullptr ? static_cast<const float*>(beta->data()) : nullptr;
    auto* yp = static_cast<float*>(y.data());
    ctx.threads().ParallelFor(
        tokens, std::max<size_t>(1, 8192 / width), [&](size_t begin, size_t end) {
          for (size_t t = begin; t < end; ++t) {
            const float* w = wp + static_cast<size_t>(id[t]) * width;
            const float* p =
                pp + static_cast<size_t>(Position(pos_id, broadcast_positions, t, seq)) * width;
            const float* s = sp != nullptr ? sp + static_cast<size_t>(seg_id[t]) * width : nullptr;
            float* out = yp + t * width;
            double sum = 0;
            for (size_t i = 0; i < width; ++i) {
              out[i] = w[i] + p[i] + (s != nullptr ? s[i] : 0.0f);
              sum += out[i];
            }
            if (sum_out != nullptr) std::copy(out, out + width, sum_out + t * width);
            const double mean = sum / static_cast<double>(width);
            double squares = 0;
            for (size_t i = 0; i < width; ++i) squares += (out[i] - mean) * (out[i] - mean);
            const double inv_std =
                1.0 / std::sqrt(squares / static_cast<double>(width) + double{epsilon_});
            for (size_t i = 0; i < width; ++i) {
              const auto v = static_cast<float>((out[i] - mean) * inv_std);
              out[i] = v * gp[i] + (bp != nullptr ? bp[i] : 0.0f);
            }
          }
        });
  }

 private:
  static int32_t Position(const int32_t* position_ids, bool broadcast, size_t token, int64_t seq) {
    const auto s = static_cast<size_t>(token % static_cast<size_t>(seq));
    if (position_ids == nullptr) return static_cast<int32_t>(s);
    return broadcast ? position_ids[s] : position_ids[token];
  }

  static void RequireInt32(const KernelInfo& info, const Tensor& t, const char* name) {
    if (t.type() != DataType::kInt32) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                 DataTypeName(t.type()) + "; it must be int32");
    }
  }

  static void RequireShapeOf(const KernelInfo& info, const Tensor& t, const char* name,
                             const Tensor& ids) {
    if (t.shape().dims() != ids.shape().dims()) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + name + "' has shape " + t.shape().ToString() +
                    "; it must be the shape of 'input_ids' " + ids.shape().ToString());
    }
  }

  // A float [rows, hidden] table (hidden < 0: any).
  static void RequireTable(const KernelInfo& info, const Tensor& t, const char* name,
                           int64_t hidden = -1) {
    if (t.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' is " +
                                                DataTypeName(t.type()) +
                                                "; only float is supported");
    }
    if (t.shape().rank() != 2 || (hidden >= 0 && t.shape().dims()[1] != hidden)) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + name + "' has shape " + t.shape().ToString() +
                    "; it must be [rows, " +
                    (hidden >= 0 ? std::to_string(hidden) + "], the hidden size of 'word_embedding'"
                                 : std::string("hidden]")));
    }
  }

  static void CheckId(const KernelInfo& info, int32_t id, const Tensor& table, const char* what,
                      size_t token, int64_t seq) {
    const int64_t rows = table.shape().dims()[0];
    if (id < 0 || id >= rows) {
      const auto s = static_cast<int64_t>(token % static_cast<size_t>(seq));
      const auto b = static_cast<int64_t>(token / static_cast<size_t>(seq));
      info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " of token [" + std::to_string(b) +
                                                 ", " + std::to_string(s) + "] is " +
                                                 std::to_string(id) + "; its table has " +
                                                 std::to_string(rows) + " rows");
    }
  }

  float epsilon_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEmbedLayerNormalization(const KernelInfo& info) {
  return Make<EmbedLayerNormalization>(info);
}

}  // namespace kiln::cpu
