// CenterCropPad (version 18): input_data cropped or zero-padded, centred, to `shape` along
// `axes` (default: all, in order; negative axes count from the end). An axis that shrinks by d
// drops floor(d / 2) elements at its start; one that grows by d gets floor(d / 2) zeros before
// the data and the rest after. Any element type (strings pad with "").
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class CenterCropPad final : public Kernel {
 public:
  explicit CenterCropPad(const KernelInfo& info) : axes_(info.GetInts("axes")) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& shape_t = ctx.Input(1);
    const SmallVector<int64_t> shape = ReadSmallInts(info, shape_t, "shape");
    const auto& xd = x.shape().dims();
    const size_t rank = xd.size();
    const size_t n = axes_.empty() ? rank : axes_.size();
    if (shape_t.shape().rank() != 1 || shape.size() != n) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'shape' has shape " + shape_t.shape().ToString() + "; expected [" +
                    std::to_string(n) + "] (one size per " +
                    (axes_.empty() ? "axis of 'input_data'" : "entry of attribute 'axes'") + ")");
    }
    SmallVector<int64_t> od(xd);
    SmallVector<int64_t> shift(rank, 0);  // input index = output index + shift
    SmallVector<bool> seen(rank, false);
    for (size_t i = 0; i < n; ++i) {
      const size_t a = axes_.empty() ? i : NormalizeAxis(info, axes_[i], rank, "attribute 'axes'");
      if (seen[a]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'axes' names axis " + std::to_string(a) + " twice");
      }
      seen[a] = true;
      if (shape[i] < 0) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'shape' holds " + std::to_string(shape[i]) +
                                                   " at " + std::to_string(i) +
                                                   "; sizes must be >= 0");
      }
      od[a] = shape[i];
      shift[a] = xd[a] >= shape[i] ? (xd[a] - shape[i]) / 2 : -((shape[i] - xd[a]) / 2);
    }
    const bool strings = x.type() == DataType::kString;
    const std::span<const int64_t> dims(od.data(), od.size());
    Tensor& y = strings ? ctx.Output(0, x.type(), dims) : ctx.OutputForOverwrite(0, x.type(), dims);
    if (y.element_count() == 0) return;
    const SmallVector<size_t> in_strides = Strides(xd);
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = static_cast<const E*>(x.data());
      E* dst = static_cast<E*>(y.data());
      const size_t total = y.element_count();
      for (size_t o = 0; o < total; ++o) {
        size_t rest = o;
        size_t offset = 0;
        bool inside = true;
        for (size_t a = rank; a-- > 0;) {
          const auto i = static_cast<int64_t>(rest % static_cast<size_t>(od[a])) + shift[a];
          rest /= static_cast<size_t>(od[a]);
          if (i < 0 || i >= xd[a]) {
            inside = false;
            break;
          }
          offset += static_cast<size_t>(i) * in_strides[a];
        }
        dst[o] = inside ? src[offset] : E{};
      }
    });
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCenterCropPad(const KernelInfo& info) {
  return std::make_unique<CenterCropPad>(info);
}

}  // namespace kiln::cpu
