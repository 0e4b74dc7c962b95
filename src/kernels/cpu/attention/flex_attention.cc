// FlexAttention (ai.onnx.preview, opset 1): attention whose scores and probabilities pass through
// user graphs. Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] (query head h reads key/value
// head h / (Hq / Hkv)); Y [B, Hq, L, Ev]:
//   scores = scale · Q·Kᵀ            (scale default 1/√E)
//   scores = score_mod(scores), then mask_mod(scores)   (each optional; a graph from one
//                                                       [B, Hq, L, S] tensor to one like it)
//   probs = softmax(scores) over S   (a row of only -inf gives zeros)
//   probs = prob_mod(probs)          (optional, the same contract)
//   Y = probs · V
// The graphs see the tensors in Q's element type, so they are whole-tensor calls into the
// executor, which allocate; the products and the softmax compute in double for double inputs and
// in float otherwise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/allocator.h"
#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

template <typename T>
using AccOf = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
AccOf<T> Widen(T v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return v;
  } else {
    return v.ToFloat();
  }
}

template <typename T>
T Narrow(AccOf<T> v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return v;
  } else {
    return T::FromFloat(v);
  }
}

class FlexAttention final : public Kernel {
 public:
  explicit FlexAttention(const KernelInfo& info)
      : scale_(info.GetFloat("scale", 0.0f)),
        has_scale_(info.HasAttribute("scale")),
        score_mod_(info.GetGraph("score_mod")),
        mask_mod_(info.GetGraph("mask_mod")),
        prob_mod_(info.GetGraph("prob_mod")) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& q = ctx.Input(0);
    const Tensor& k = ctx.Input(1);
    const Tensor& v = ctx.Input(2);
    RequireRank(info, q, "Q", 4);
    RequireRank(info, k, "K", 4);
    RequireRank(info, v, "V", 4);
    RequireSameType(info, k, "K", q.type(), "Q");
    RequireSameType(info, v, "V", q.type(), "Q");
    const auto& qd = q.shape().dims();
    const auto& kd = k.shape().dims();
    const auto& vd = v.shape().dims();
    if (kd[0] != qd[0] || vd[0] != qd[0] || kd[3] != qd[3] || vd[1] != kd[1] || vd[2] != kd[2] ||
        kd[1] == 0 || qd[1] % kd[1] != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'Q' " + ShapeText(q) + ", 'K' " + ShapeText(k) + " and 'V' " +
                    ShapeText(v) +
                    " do not agree (batch, head size, key length, or a query head count that is "
                    "not a multiple of the key/value head count)");
    }
    CheckedProduct(info, {qd[0], qd[1], qd[2], kd[2]}, "the scores");
    Dispatch<float, double, Float16>(q.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Run<T>(ctx);
    });
  }

 private:
  // Runs `graph` on `t` and returns its one output, checked to be a tensor like `t`.
  static std::shared_ptr<const Tensor> Apply(KernelContext& ctx, const ir::Graph* graph,
                                             std::shared_ptr<const Tensor> t, const char* name) {
    if (graph == nullptr) return t;
    const Shape shape = t->shape();
    const DataType type = t->type();
    std::vector<Value> outs = ctx.subgraphs().RunSubgraph(*graph, {Value(std::move(t))});
    if (outs.size() != 1 || outs[0].tensor() == nullptr ||
        outs[0].tensor()->shape().dims() != shape.dims() || outs[0].tensor()->type() != type) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      std::string("attribute '") + name +
                          "' must give one tensor of the scores' type and shape");
    }
    return outs[0].tensor();
  }

  template <typename T>
  void Run(KernelContext& ctx) const {
    using Acc = AccOf<T>;
    const Tensor& q = ctx.Input(0);
    const Tensor& k = ctx.Input(1);
    const Tensor& v = ctx.Input(2);
    const auto& qd = q.shape().dims();
    const auto& kd = k.shape().dims();
    const int64_t b_n = qd[0], hq = qd[1], l = qd[2], e = qd[3];
    const int64_t hkv = kd[1], s = kd[2], ev = v.shape().dims()[3];
    const int64_t group = hq / hkv;
    const Acc scale = has_scale_ ? static_cast<Acc>(scale_)
                                 : static_cast<Acc>(1) / std::sqrt(static_cast<Acc>(e));
    const T* qp = static_cast<const T*>(q.data());
    const T* kp = static_cast<const T*>(k.data());
    const T* vp = static_cast<const T*>(v.data());

    std::shared_ptr<Tensor> scores =
        Tensor::AllocateForOverwrite(q.type(), Shape({b_n, hq, l, s}), CpuAllocator());
    T* sp = static_cast<T*>(scores->data());
    for (int64_t b = 0; b < b_n; ++b) {
      for (int64_t h = 0; h < hq; ++h) {
        const T* kh = kp + (b * hkv + h / group) * s * e;
        for (int64_t i = 0; i < l; ++i) {
          const T* qi = qp + ((b * hq + h) * l + i) * e;
          for (int64_t j = 0; j < s; ++j) {
            Acc acc = 0;
            for (int64_t d = 0; d < e; ++d) acc += Widen(qi[d]) * Widen(kh[j * e + d]);
            sp[((b * hq + h) * l + i) * s + j] = Narrow<T>(acc * scale);
          }
        }
      }
    }
    std::shared_ptr<const Tensor> mod = Apply(ctx, score_mod_.get(), scores, "score_mod");
    mod = Apply(ctx, mask_mod_.get(), mod, "mask_mod");

    std::shared_ptr<Tensor> probs =
        Tensor::AllocateForOverwrite(q.type(), Shape({b_n, hq, l, s}), CpuAllocator());
    const T* mp = static_cast<const T*>(mod->data());
    T* pp = static_cast<T*>(probs->data());
    const Acc neg_inf = -std::numeric_limits<Acc>::infinity();
    for (int64_t r = 0; r < b_n * hq * l; ++r) {
      Acc mx = neg_inf;
      for (int64_t j = 0; j < s; ++j) mx = std::max(mx, Widen(mp[r * s + j]));
      Acc sum = 0;
      for (int64_t j = 0; j < s; ++j) {
        sum += mx == neg_inf ? Acc{0} : std::exp(Widen(mp[r * s + j]) - mx);
      }
      for (int64_t j = 0; j < s; ++j) {
        const Acc p = mx == neg_inf ? Acc{0} : std::exp(Widen(mp[r * s + j]) - mx) / sum;
        pp[r * s + j] = Narrow<T>(p);
      }
    }
    std::shared_ptr<const Tensor> final_probs = Apply(ctx, prob_mod_.get(), probs, "prob_mod");

    const int64_t y_dims[4] = {b_n, hq, l, ev};
    T* yp = static_cast<T*>(ctx.OutputForOverwrite(0, q.type(), y_dims).data());
    const T* fp = static_cast<const T*>(final_probs->data());
    for (int64_t b = 0; b < b_n; ++b) {
      for (int64_t h = 0; h < hq; ++h) {
        const T* vh = vp + (b * hkv + h / group) * s * ev;
        for (int64_t i = 0; i < l; ++i) {
          const T* pi = fp + ((b * hq + h) * l + i) * s;
          for (int64_t d = 0; d < ev; ++d) {
            Acc acc = 0;
            for (int64_t j = 0; j < s; ++j) acc += Widen(pi[j]) * Widen(vh[j * ev + d]);
            yp[((b * hq + h) * l + i) * ev + d] = Narrow<T>(acc);
          }
        }
      }
    }
  }

  float scale_;
  bool has_scale_;
  std::shared_ptr<const ir::Graph> score_mod_;
  std::shared_ptr<const ir::Graph> mask_mod_;
  std::shared_ptr<const ir::Graph> prob_mod_;
};

}  // namespace

std::unique_ptr<Kernel> MakeFlexAttention(const KernelInfo& info) {
  return std::make_unique<FlexAttention>(info);
}

}  // namespace kiln::cpu
