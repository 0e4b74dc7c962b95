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
//
// QEmbedLayerNormalization (com.microsoft, opset 1), what ONNX Runtime's quantization tool makes of
// it: the five tables 8-bit (uint8 or int8, each with its own per-tensor scale and zero point),
// each row read dequantized, (q - zero_point) · scale in float, then the same sums and LayerNorm.
// Inputs: 0 input_ids; 1 segment_ids (optional); 2 word_embedding; 3 position_embedding; 4
// segment_embedding (with segment_ids); 5 gamma; 6 beta (optional); 7 mask (optional); 8-12 the
// scales of tables 2-6 (float, one element); 13-17 their zero points (the table's type, one
// element; 0 when left out). Outputs: output and mask_index as above.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// A table of embeddings (or gamma, beta): float, or 8-bit with a scale and zero point.
struct Table {
  const void* data = nullptr;
  DataType type = DataType::kFloat;
  float scale = 1.0f;
  int32_t zero = 0;

  // Row `row` of `width` floats: in place for float, dequantized into `scratch` otherwise.
  const float* Row(size_t row, size_t width, float* scratch) const {
    if (type == DataType::kFloat) return static_cast<const float*>(data) + row * width;
    if (type == DataType::kUint8) {
      Dequantize(static_cast<const uint8_t*>(data) + row * width, width, scratch);
    } else {
      Dequantize(static_cast<const int8_t*>(data) + row * width, width, scratch);
    }
    return scratch;
  }

  template <typename Q>
  void Dequantize(const Q* q, size_t width, float* out) const {
    for (size_t i = 0; i < width; ++i) {
      out[i] = static_cast<float>(static_cast<int32_t>(q[i]) - zero) * scale;
    }
  }
};

class EmbedLayerNormalization final : public Kernel {
 public:
  EmbedLayerNormalization(const KernelInfo& info, bool quantized)
      : epsilon_(info.GetFloat("epsilon", 1e-12f)), quantized_(quantized) {
    if (!(epsilon_ >= 0.0f)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'epsilon' is " + std::to_string(epsilon_) + "; it must be >= 0");
    }
    if (quantized_ && info.output_count() > 2) {
      info.Fail(ErrorCode::kInvalidGraph,
                "QEmbedLayerNormalization has 2 outputs (output, mask_index); the node has " +
                    std::to_string(info.output_count()));
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
    const Tensor* position_ids = quantized_ ? nullptr : ctx.OptionalInput(8);

    RequireInt32(info, ids, "input_ids");
    if (ids.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input_ids' has shape " +
                                                 ids.shape().ToString() +
                                                 "; it must be [batch, sequence]");
    }
    const int64_t batch = ids.shape().dims()[0];
    const int64_t seq = ids.shape().dims()[1];
    RequireTable(info, words, "word_embedding", quantized_);
    const int64_t hidden = words.shape().dims()[1];
    RequireTable(info, positions, "position_embedding", quantized_, hidden);
    if ((segment_ids == nullptr) != (segments == nullptr)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'segment_ids' and 'segment_embedding' come together: one is missing");
    }
    if (segment_ids != nullptr) {
      RequireInt32(info, *segment_ids, "segment_ids");
      RequireShapeOf(info, *segment_ids, "segment_ids", ids);
      RequireTable(info, *segments, "segment_embedding", quantized_, hidden);
    }
    for (const auto& [t, name] : {std::pair{&gamma, "gamma"}, std::pair{beta, "beta"}}) {
      if (t == nullptr) continue;
      if (!TypeFits(t->type(), quantized_) || t->shape().rank() != 1 ||
          t->shape().dims()[0] != hidden) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' is " + DataTypeName(t->type()) + " " +
                      t->shape().ToString() + "; it must be " +
                      (quantized_ ? "uint8 or int8" : "float") + " [" + std::to_string(hidden) +
                      "], the hidden size of 'word_embedding'");
      }
    }
    // The tables as read: 2 word, 3 position, 4 segment, 5 gamma, 6 beta (their quantization
    // parameters at 8-12 and 13-17).
    Table tables[5];
    const Tensor* table_inputs[5] = {&words, &positions, segments, &gamma, beta};
    for (size_t k = 0; k < 5; ++k) {
      if (table_inputs[k] == nullptr) continue;
      tables[k].data = table_inputs[k]->data();
      tables[k].type = table_inputs[k]->type();
      if (quantized_) QuantizationOf(ctx, k, tables[k]);
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
    float* const gamma_scratch = quantized_ ? ctx.Scratch<float>(width) : nullptr;
    float* const beta_scratch = quantized_ && beta != nullptr ? ctx.Scratch<float>(width) : nullptr;
    const float* gp = tables[3].Row(0, width, gamma_scratch);
    const float* bp = beta != nullptr ? tables[4].Row(0, width, beta_scratch) : nullptr;
    auto* yp = static_cast<float*>(y.data());
    ctx.threads().ParallelFor(
        tokens, std::max<size_t>(1, 8192 / width), [&](size_t begin, size_t end) {
          float* rows = quantized_ ? ctx.Scratch<float>(3 * width) : nullptr;
          for (size_t t = begin; t < end; ++t) {
            const float* w = tables[0].Row(static_cast<size_t>(id[t]), width, rows);
            const float* p =
                tables[1].Row(static_cast<size_t>(Position(pos_id, broadcast_positions, t, seq)),
                              width, rows != nullptr ? rows + width : nullptr);
            const float* s = segments != nullptr
                                 ? tables[2].Row(static_cast<size_t>(seg_id[t]), width,
                                                 rows != nullptr ? rows + 2 * width : nullptr)
                                 : nullptr;
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

  static bool TypeFits(DataType type, bool quantized) {
    return quantized ? type == DataType::kUint8 || type == DataType::kInt8
                     : type == DataType::kFloat;
  }

  // A float (quantized: uint8 or int8) [rows, hidden] table (hidden < 0: any).
  static void RequireTable(const KernelInfo& info, const Tensor& t, const char* name,
                           bool quantized, int64_t hidden = -1) {
    if (!TypeFits(t.type(), quantized)) {
      info.Fail(quantized ? ErrorCode::kInvalidArgument : ErrorCode::kNotImplemented,
                std::string("input '") + name + "' is " + DataTypeName(t.type()) +
                    (quantized ? "; it must be uint8 or int8" : "; only float is supported"));
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

  // Table k's (0 word ... 4 beta) scale (input 8 + k) and zero point (input 13 + k).
  static void QuantizationOf(KernelContext& ctx, size_t k, Table& table) {
    static constexpr const char* kNames[] = {"word_embedding", "position_embedding",
                                             "segment_embedding", "gamma", "beta"};
    const KernelInfo& info = ctx.info();
    const std::string scale_name = std::string(kNames[k]) + "_scale";
    const std::string zero_name = std::string(kNames[k]) + "_zero_point";
    const Tensor* scale = ctx.OptionalInput(8 + k);
    if (scale == nullptr) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + scale_name + "' (input " + std::to_string(8 + k) +
                    ") is missing; it must be given with '" + kNames[k] + "'");
    }
    if (scale->type() != DataType::kFloat || scale->element_count() != 1 ||
        scale->shape().rank() > 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + scale_name + "' is " + DataTypeName(scale->type()) + " " +
                    scale->shape().ToString() + "; it must be one float (a scalar or [1])");
    }
    table.scale = *static_cast<const float*>(scale->data());
    const Tensor* zero = ctx.OptionalInput(13 + k);
    if (zero == nullptr) return;
    if (zero->type() != table.type || zero->element_count() != 1 || zero->shape().rank() > 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input '" + zero_name + "' is " + DataTypeName(zero->type()) + " " +
                    zero->shape().ToString() + "; it must be one " + DataTypeName(table.type) +
                    " (a scalar or [1]), the type of '" + kNames[k] + "'");
    }
    table.zero = table.type == DataType::kUint8 ? *static_cast<const uint8_t*>(zero->data())
                                                : *static_cast<const int8_t*>(zero->data());
  }

  float epsilon_;
  bool quantized_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEmbedLayerNormalization(const KernelInfo& info) {
  return std::make_unique<EmbedLayerNormalization>(info, false);
}

std::unique_ptr<Kernel> MakeQEmbedLayerNormalization(const KernelInfo& info) {
  return std::make_unique<EmbedLayerNormalization>(info, true);
}

}  // namespace kiln::cpu
