// MaxUnpool (versions 9, 11, 22 (bfloat16)): the partial inverse of MaxPool. Y is zero except
// Y.flat[I[i]] = X[i], with I the flat indices MaxPool's second output gives (into the whole
// tensor, row-major) for the default shape (N, C, (in - 1) * stride + kernel - pad_begin -
// pad_end per spatial axis). With the optional input output_shape, Y has that shape and each
// value keeps its coordinates in the default shape (as ONNX's reference and backend cases do).
// Types: float, double, float16 and bfloat16 (moved, not computed).
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class MaxUnpool final : public Kernel {
 public:
  explicit MaxUnpool(const KernelInfo& info)
      : kernel_(info.GetInts("kernel_shape")),
        pads_(info.GetInts("pads")),
        strides_(info.GetInts("strides")) {
    if (!info.HasAttribute("kernel_shape") || kernel_.empty()) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'kernel_shape' is required");
    }
    const size_t r = kernel_.size();
    if (pads_.empty()) pads_.assign(2 * r, 0);
    if (strides_.empty()) strides_.assign(r, 1);
    if (pads_.size() != 2 * r || strides_.size() != r) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'pads' and 'strides' have " + std::to_string(pads_.size()) + " and " +
                    std::to_string(strides_.size()) + " values; 'kernel_shape' has " +
                    std::to_string(r) + " axes, so expected " + std::to_string(2 * r) + " and " +
                    std::to_string(r));
    }
    for (size_t a = 0; a < r; ++a) {
      if (kernel_[a] < 1 || strides_[a] < 1 || pads_[a] < 0 || pads_[a + r] < 0) {
        info.Fail(ErrorCode::kInvalidGraph,
                  "attributes 'kernel_shape', 'strides' and 'pads' at axis " + std::to_string(a) +
                      ": kernel and stride must be >= 1 and pads >= 0");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& indices = ctx.Input(1);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    const auto& xd = x.shape().dims();
    const size_t r = kernel_.size();
    if (xd.size() != r + 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; 'kernel_shape' has " +
                    std::to_string(r) + " axes, so expected rank " + std::to_string(r + 2));
    }
    if (indices.type() != DataType::kInt64 || indices.shape() != x.shape()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'I' is " + std::string(DataTypeName(indices.type())) + " " +
                    indices.shape().ToString() + "; expected int64 of the shape of 'X' " +
                    x.shape().ToString());
    }
    // The default shape, which the indices always refer to (as MaxPool's on an input of it).
    SmallVector<int64_t> dd{xd[0], xd[1]};
    for (size_t a = 0; a < r; ++a) {
      int64_t v = 0;
      if (__builtin_mul_overflow(xd[a + 2] - 1, strides_[a], &v) ||
          __builtin_add_overflow(v, kernel_[a] - pads_[a] - pads_[a + r], &v) || v < 0) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                   ": the default output size of axis " +
                                                   std::to_string(a + 2) +
                                                   " is negative or overflows");
      }
      dd.push_back(xd[a + 2] == 0 ? 0 : v);
    }
    SmallVector<int64_t> yd = dd;
    if (const Tensor* os = ctx.OptionalInput(2); os != nullptr) {
      yd = ReadSmallInts(info, *os, "output_shape");
      if (os->shape().rank() != 1 || yd.size() != r + 2 || yd[0] != xd[0] || yd[1] != xd[1]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'output_shape' has " + std::to_string(yd.size()) +
                      " values; expected the full output shape, (" + std::to_string(xd[0]) + ", " +
                      std::to_string(xd[1]) + ", " + std::to_string(r) + " spatial sizes)");
      }
    }
    Tensor& y = ctx.Output(0, x.type(), std::span<const int64_t>(yd.data(), yd.size()));
    const size_t count = x.element_count();
    if (count == 0) return;
    size_t default_total = 1;
    for (int64_t d : dd) default_total *= static_cast<size_t>(d);  // <= y's or X's size
    const auto* idx = static_cast<const int64_t*>(indices.data());
    // Where each value goes in Y: its index's coordinates in the default shape, which must lie
    // inside output_shape (a larger output_shape leaves zeros after the data on each axis).
    size_t* target = ctx.Scratch<size_t>(count);
    for (size_t i = 0; i < count; ++i) {
      if (idx[i] < 0 || static_cast<uint64_t>(idx[i]) >= default_total) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'I' holds " + std::to_string(idx[i]) + " at " + std::to_string(i) +
                      "; the unpooled shape " + Shape(dd.ToVector()).ToString() + " has " +
                      std::to_string(default_total) + " elements");
      }
      auto rest = static_cast<size_t>(idx[i]);
      size_t offset = 0;
      size_t stride = 1;
      for (size_t a = dd.size(); a-- > 0;) {
        const size_t c = rest % static_cast<size_t>(dd[a]);
        rest /= static_cast<size_t>(dd[a]);
        if (c >= static_cast<size_t>(yd[a])) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'I' holds " + std::to_string(idx[i]) + " at " + std::to_string(i) +
                        ", outside 'output_shape' " + Shape(yd.ToVector()).ToString());
        }
        offset += c * stride;
        stride *= static_cast<size_t>(yd[a]);
      }
      target[i] = offset;
    }
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      for (size_t i = 0; i < count; ++i) dst[target[i]] = src[i];
    });
  }

 private:
  std::vector<int64_t> kernel_;
  std::vector<int64_t> pads_;
  std::vector<int64_t> strides_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxUnpool(const KernelInfo& info) {
  return std::make_unique<MaxUnpool>(info);
}

}  // namespace kiln::cpu
