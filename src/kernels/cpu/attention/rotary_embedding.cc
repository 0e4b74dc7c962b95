// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim (default: all) features of
// each head by the position's angles. input is [B, H, S, D] (4D) or [B, S, H·D] (3D, with the
// heads given by num_heads). cos_cache and sin_cache are [max_position, R/2] read at position_ids
// [B, S], or, without position_ids, [B, S, R/2] directly. With interleaved = 0 the rotated pairs
// are (x[i], x[i + R/2]); with 1 they are (x[2i], x[2i+1]):
//   x1' = cos·x1 - sin·x2,  x2' = sin·x1 + cos·x2.
// Float16 and BFloat16 compute in float.
// com.microsoft RotaryEmbedding (ONNX Runtime's, which its model builders write) shares it: inputs
// input, position_ids (required: [B, S], or [1] holding the first position, the others following
// it), cos_cache, sin_cache ([max_position, R/2]); for a 3D input without num_heads the head size
// is twice the caches' last dimension, as ONNX Runtime takes it.
#include <string>

#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/common.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class RotaryEmbedding final : public Kernel {
 public:
  RotaryEmbedding(const KernelInfo& info, bool microsoft)
      : microsoft_(microsoft),
        interleaved_(info.GetInt("interleaved", 0)),
        rotary_dim_(info.GetInt("rotary_embedding_dim", 0)),
        num_heads_(info.GetInt("num_heads", 0)) {
    if (interleaved_ != 0 && interleaved_ != 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'interleaved' is " +
                                              std::to_string(interleaved_) + "; it must be 0 or 1");
    }
    if (rotary_dim_ < 0 || rotary_dim_ % 2 != 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'rotary_embedding_dim' is " +
                                              std::to_string(rotary_dim_) +
                                              "; it must be even and >= 0");
    }
    if (num_heads_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'num_heads' must be >= 0");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& cos = ctx.Input(microsoft_ ? 2 : 1);
    const Tensor& sin = ctx.Input(microsoft_ ? 3 : 2);
    const Tensor* ids = microsoft_ ? &ctx.Input(1) : ctx.OptionalInput(3);
    RequireSameType(info, cos, "cos_cache", x.type(), "input");
    RequireSameType(info, sin, "sin_cache", x.type(), "input");
    const auto& xd = x.shape().dims();
    int64_t batch = 0;
    int64_t heads = 0;
    int64_t seq = 0;
    int64_t head_size = 0;
    if (xd.size() == 4) {
      batch = xd[0];
      heads = xd[1];
      seq = xd[2];
      head_size = xd[3];
    } else if (xd.size() == 3 && microsoft_ && num_heads_ == 0 && rotary_dim_ == 0 &&
               cos.shape().rank() == 2 && cos.shape().dims()[1] > 0 &&
               xd[2] % (2 * cos.shape().dims()[1]) == 0) {
      batch = xd[0];
      seq = xd[1];
      head_size = 2 * cos.shape().dims()[1];
      heads = xd[2] / head_size;
    } else if (xd.size() == 3) {
      if (num_heads_ <= 0) {
        info.Fail(ErrorCode::kInvalidArgument, "a 3D input needs attribute 'num_heads' > 0");
      }
      if (xd[2] % num_heads_ != 0) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'input' has shape " + ShapeText(x) +
                                                   "; its last dimension is not a multiple of "
                                                   "'num_heads' " +
                                                   std::to_string(num_heads_));
      }
      batch = xd[0];
      seq = xd[1];
      heads = num_heads_;
      head_size = xd[2] / num_heads_;
    } else {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + ShapeText(x) + "; expected rank 3 or 4");
    }
    const int64_t rot = rotary_dim_ == 0 ? head_size : rotary_dim_;
    if (rot > head_size || rot % 2 != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'rotary_embedding_dim' " + std::to_string(rot) +
                    " must be even and at most the head size " + std::to_string(head_size));
    }
    const int64_t half = rot / 2;
    const auto& cd = cos.shape().dims();
    if (cos.shape().dims() != sin.shape().dims()) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'cos_cache' " + ShapeText(cos) +
                                                 " and 'sin_cache' " + ShapeText(sin) +
                                                 " have different shapes");
    }
    const bool cache_ok = ids != nullptr
                              ? cd.size() == 2 && cd[1] == half
                              : cd.size() == 3 && cd[0] == batch && cd[1] == seq && cd[2] == half;
    if (!cache_ok) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'cos_cache' has shape " + ShapeText(cos) + "; expected " +
                    (ids != nullptr ? "[max_position, " + std::to_string(half) + "]"
                                    : "[" + std::to_string(batch) + ", " + std::to_string(seq) +
                                          ", " + std::to_string(half) + "]"));
    }
    // com.microsoft's position_ids [1]: the first position, the others following it.
    const bool offset = microsoft_ && ids->element_count() == 1 && ids->shape().rank() <= 1;
    if (offset) {
      RequireIntType(info, *ids, "position_ids");
      const int64_t first = IntAt(*ids, 0);
      if (first < 0 || seq > cd[0] || first > cd[0] - seq) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'position_ids' starts at " + std::to_string(first) + "; " +
                      std::to_string(seq) + " positions from it must be in [0, " +
                      std::to_string(cd[0]) + ")");
      }
    } else if (ids != nullptr) {
      RequireIntType(info, *ids, "position_ids");
      const auto& pd = ids->shape().dims();
      if (pd.size() != 2 || pd[0] != batch || pd[1] != seq) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'position_ids' has shape " + ShapeText(*ids) +
                                                   "; expected [" + std::to_string(batch) + ", " +
                                                   std::to_string(seq) + "]");
      }
      for (size_t i = 0; i < ids->element_count(); ++i) {
        const int64_t p = IntAt(*ids, i);
        if (p < 0 || p >= cd[0]) {
          info.Fail(ErrorCode::kInvalidArgument, "input 'position_ids' holds " + std::to_string(p) +
                                                     "; it must be in [0, " +
                                                     std::to_string(cd[0]) + ")");
        }
      }
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    Dispatch<float, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = static_cast<const T*>(x.data());
      const T* cp = static_cast<const T*>(cos.data());
      const T* sp = static_cast<const T*>(sin.data());
      T* yp = static_cast<T*>(y.data());
      const bool three_d = xd.size() == 3;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t row = offset           ? IntAt(*ids, 0) + s
                              : ids != nullptr ? IntAt(*ids, static_cast<size_t>(b * seq + s))
                                               : b * seq + s;
          const T* c = cp + row * half;
          const T* sn = sp + row * half;
          for (int64_t h = 0; h < heads; ++h) {
            const size_t off =
                static_cast<size_t>(three_d ? ((b * seq + s) * heads + h) * head_size
                                            : ((b * heads + h) * seq + s) * head_size);
            const T* in = xp + off;
            T* out = yp + off;
            RotateHead(in, out, c, sn, half, interleaved_ != 0);
            for (int64_t i = rot; i < head_size; ++i) out[i] = in[i];
          }
        }
      }
    });
  }

 private:
  bool microsoft_;
  int64_t interleaved_;
  int64_t rotary_dim_;
  int64_t num_heads_;
};

}  // namespace

std::unique_ptr<Kernel> MakeRotaryEmbedding(const KernelInfo& info) {
  return std::make_unique<RotaryEmbedding>(info, false);
}
std::unique_ptr<Kernel> MakeMicrosoftRotaryEmbedding(const KernelInfo& info) {
  return std::make_unique<RotaryEmbedding>(info, true);
}

}  // namespace kiln::cpu
