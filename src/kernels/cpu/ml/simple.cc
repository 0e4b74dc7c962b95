// Elementwise and selection ops of ai.onnx.ml (opsets 1–5):
//   Binarizer: 1 where X > threshold, else 0, in X's type (float, double, int32, int64).
//   ArrayFeatureExtractor: the entries of X's last axis named by the int64 indices Y, giving
//     [..., len(Y)] ([1, len(Y)] for a 1-D X); any element type.
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/ml/ml_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Binarizer final : public Kernel {
 public:
  explicit Binarizer(const KernelInfo& info) : threshold_(info.GetFloat("threshold", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    Dispatch<float, double, int32_t, int64_t>(x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = DataAs<T>(x);
      T* out = DataAs<T>(y);
      const double t = threshold_;
      for (size_t i = 0, n = x.element_count(); i < n; ++i) {
        out[i] = static_cast<double>(in[i]) > t ? T(1) : T(0);
      }
    });
  }

 private:
  float threshold_;
};

class ArrayFeatureExtractor final : public Kernel {
 public:
  explicit ArrayFeatureExtractor(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& y = ctx.Input(1);
    if (y.type() != DataType::kInt64) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'Y' must be int64, not ") + DataTypeName(y.type()));
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.empty()) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' must have rank >= 1, not a scalar");
    }
    const int64_t last = dims.back();
    const auto* index = DataAs<int64_t>(y);
    const size_t picks = y.element_count();
    for (size_t i = 0; i < picks; ++i) {
      if (index[i] < 0 || index[i] >= last) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'Y' entry " + std::to_string(i) + " is " +
                                                   std::to_string(index[i]) + ", outside [0, " +
                                                   std::to_string(last) + ")");
      }
    }
    SmallVector<int64_t> out_dims(dims);
    if (dims.size() == 1) out_dims.insert(0, 1);
    out_dims.back() = static_cast<int64_t>(picks);
    Tensor& z = x.type() == DataType::kString
                    ? ctx.Output(0, x.type(), out_dims.span())
                    : ctx.OutputForOverwrite(0, x.type(), out_dims.span());
    const size_t rows = Product(dims, 0, dims.size() - 1);
    const auto width = static_cast<size_t>(last);
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* in = DataAs<E>(x);
      E* out = DataAs<E>(z);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t i = 0; i < picks; ++i) {
          out[r * picks + i] = in[r * width + static_cast<size_t>(index[i])];
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeBinarizer(const KernelInfo& info) {
  return Make<Binarizer>(info);
}
std::unique_ptr<Kernel> MakeArrayFeatureExtractor(const KernelInfo& info) {
  return Make<ArrayFeatureExtractor>(info);
}

}  // namespace kiln::cpu
