// TensorScatter (opset 24): a KV-cache update. present_cache is past_cache with, for each batch
// entry b (axis 0), the update's slices along `axis` (default -2, never 0) written from position
// write_indices[b] (default 0) on. mode "linear" requires them to fit; "circular" wraps modulo
// the cache length. update has past_cache's shape except along `axis`, where it is not longer.
// Any element type (moved as bytes).
#include <cstring>
#include <string>

#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/common.h"

namespace kiln::cpu {
namespace {

class TensorScatter final : public Kernel {
 public:
  explicit TensorScatter(const KernelInfo& info)
      : axis_(info.GetInt("axis", -2)), mode_(info.GetString("mode", "linear")) {
    if (mode_ != "linear" && mode_ != "circular") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'mode' is '" + mode_ + "'; it must be 'linear' or 'circular'");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& past = ctx.Input(0);
    const Tensor& update = ctx.Input(1);
    const Tensor* indices = ctx.OptionalInput(2);
    RequireSameType(info, update, "update", past.type(), "past_cache");
    if (past.type() == DataType::kString || BitsPerElement(past.type()) % 8 != 0) {
      info.Fail(ErrorCode::kNotImplemented,
                std::string("element type ") + DataTypeName(past.type()) + " is not supported");
    }
    const auto& pd = past.shape().dims();
    const auto& ud = update.shape().dims();
    if (pd.empty()) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'past_cache' must have rank >= 1");
    }
    const size_t axis = NormalizeAxis(info, axis_, pd.size());
    if (axis == 0) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'axis' must not be the batch axis 0");
    }
    bool ok = ud.size() == pd.size();
    for (size_t i = 0; ok && i < pd.size(); ++i) ok = i == axis ? ud[i] <= pd[i] : ud[i] == pd[i];
    if (!ok) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'update' has shape " + ShapeText(update) + "; it must be 'past_cache' " +
                    ShapeText(past) + " but at most as long along axis " + std::to_string(axis));
    }
    const int64_t batch = pd[0];
    const int64_t max_len = pd[axis];
    const int64_t len = ud[axis];
    if (indices != nullptr) {
      RequireIntType(info, *indices, "write_indices");
      if (!HasDims(*indices, {batch})) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'write_indices' has shape " +
                                                   ShapeText(*indices) + "; expected [" +
                                                   std::to_string(batch) + "]");
      }
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t w = IntAt(*indices, static_cast<size_t>(b));
        const bool fits = mode_ == "linear" ? w >= 0 && w <= max_len - len : w >= 0 && w < max_len;
        if (!fits) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'write_indices' holds " + std::to_string(w) + " for batch " +
                        std::to_string(b) + "; the update of length " + std::to_string(len) +
                        " does not fit a cache of length " + std::to_string(max_len) +
                        " in mode '" + mode_ + "'");
        }
      }
    }
    Tensor& out = ctx.OutputForOverwrite(0, past.type(), past.shape());
    const size_t elem = BitsPerElement(past.type()) / 8;
    if (past.byte_size() > 0) std::memcpy(out.data(), past.data(), past.byte_size());
    if (update.element_count() == 0) return;
    // Blocks: [outer (including batch), axis, inner].
    size_t inner = elem;
    for (size_t i = axis + 1; i < pd.size(); ++i) inner *= static_cast<size_t>(pd[i]);
    size_t outer_per_batch = 1;
    for (size_t i = 1; i < axis; ++i) outer_per_batch *= static_cast<size_t>(pd[i]);
    const auto* src = static_cast<const char*>(update.data());
    auto* dst = static_cast<char*>(out.data());
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t start = indices != nullptr ? IntAt(*indices, static_cast<size_t>(b)) : 0;
      for (size_t o = 0; o < outer_per_batch; ++o) {
        const size_t block = static_cast<size_t>(b) * outer_per_batch + o;
        for (int64_t s = 0; s < len; ++s) {
          const int64_t pos = (start + s) % max_len;
          std::memcpy(
              dst + (block * static_cast<size_t>(max_len) + static_cast<size_t>(pos)) * inner,
              src + (block * static_cast<size_t>(len) + static_cast<size_t>(s)) * inner, inner);
        }
      }
    }
  }

 private:
  int64_t axis_;
  std::string mode_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTensorScatter(const KernelInfo& info) {
  return std::make_unique<TensorScatter>(info);
}

}  // namespace kiln::cpu
