// ONNX's experimental ops of its first opsets (removed from ONNX since, in the ONNX domain), which
// older converters wrote and ONNX Runtime still runs: models of the ONNX Model Zoo's opsets 7-8
// (Tiny YOLOv2's ImageScaler, Caffe-converted Crop and Scale) need them. Float only.
//   ImageScaler  Y[n, c, ...] = scale · X[n, c, ...] + bias[c]   (scale 1, bias one per channel)
//   Crop         X [N, C, H, W] cut to rows [top, H - bottom) and columns [left, W - right)
//                (border = [left, top, right, bottom]); with scale = [h, w] the cut is h rows
//                from top and w columns from left
//   Affine       Y = alpha · X + beta              (alpha 1, beta 0)
//   ScaledTanh   Y = alpha · tanh(beta · X)        (alpha 1, beta 1)
//   ParametricSoftplus Y = alpha · ln(1 + e^(beta · X))  (alpha 1, beta 1)
//   Scale        Y = scale · X                     (scale 1)
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

const Tensor& FloatInput(KernelContext& ctx) {
  const Tensor& x = ctx.Input(0);
  if (x.type() != DataType::kFloat) {
    ctx.info().Fail(
        ErrorCode::kNotImplemented,
        std::string("input 'input' is ") + DataTypeName(x.type()) + "; only float is supported");
  }
  return x;
}

enum class Pointwise { kAffine, kScaledTanh, kParametricSoftplus, kScale };

class PointwiseKernel final : public Kernel {
 public:
  PointwiseKernel(const KernelInfo& info, Pointwise op) : op_(op) {
    if (op == Pointwise::kScale) {
      alpha_ = info.GetFloat("scale", 1.0f);
    } else {
      alpha_ = info.GetFloat("alpha", 1.0f);
      beta_ = info.GetFloat("beta", op == Pointwise::kAffine ? 0.0f : 1.0f);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = FloatInput(ctx);
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    const float a = alpha_;
    const float b = beta_;
    ctx.threads().ParallelFor(x.element_count(), 16384, [&](size_t begin, size_t end) {
      switch (op_) {
        case Pointwise::kAffine:
          for (size_t i = begin; i < end; ++i) yp[i] = a * xp[i] + b;
          break;
        case Pointwise::kScaledTanh:
          for (size_t i = begin; i < end; ++i) yp[i] = a * std::tanh(b * xp[i]);
          break;
        case Pointwise::kParametricSoftplus:
          for (size_t i = begin; i < end; ++i) {
            const float v = b * xp[i];  // ln(1 + e^v) without overflow: max(v, 0) + ln(1 + e^-|v|)
            yp[i] = a * (std::max(v, 0.0f) + std::log1p(std::exp(-std::fabs(v))));
          }
          break;
        case Pointwise::kScale:
          for (size_t i = begin; i < end; ++i) yp[i] = a * xp[i];
          break;
      }
    });
  }

 private:
  Pointwise op_;
  float alpha_ = 1.0f;
  float beta_ = 0.0f;
};

class ImageScaler final : public Kernel {
 public:
  explicit ImageScaler(const KernelInfo& info)
      : scale_(info.GetFloat("scale", 1.0f)), bias_(info.GetFloats("bias", {})) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = FloatInput(ctx);
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.size() < 2 || (!bias_.empty() && static_cast<int64_t>(bias_.size()) != dims[1])) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "input 'input' has shape " + x.shape().ToString() +
                          "; it must be [N, C, ...]" +
                          (bias_.empty() ? std::string()
                                         : " with C = " + std::to_string(bias_.size()) +
                                               ", the length of attribute 'bias'"));
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const auto channels = static_cast<size_t>(dims[1]);
    if (x.element_count() == 0) return;
    const size_t plane = x.element_count() / (static_cast<size_t>(dims[0]) * channels);
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    const size_t planes = x.element_count() / plane;  // plane > 0: the count is not 0
    ctx.threads().ParallelFor(planes, std::max<size_t>(1, 16384 / plane),
                              [&](size_t begin, size_t end) {
                                for (size_t p = begin; p < end; ++p) {
                                  const float b = bias_.empty() ? 0.0f : bias_[p % channels];
                                  for (size_t i = p * plane; i < (p + 1) * plane; ++i) {
                                    yp[i] = scale_ * xp[i] + b;
                                  }
                                }
                              });
  }

 private:
  float scale_;
  std::vector<float> bias_;
};

class Crop final : public Kernel {
 public:
  explicit Crop(const KernelInfo& info)
      : border_(info.GetInts("border", {})), scale_(info.GetInts("scale", {})) {
    if (border_.size() != 4 ||
        std::any_of(border_.begin(), border_.end(), [](int64_t v) { return v < 0; })) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'border' must be 4 values >= 0: [left, top, right, bottom]");
    }
    if (!scale_.empty() && (scale_.size() != 2 || scale_[0] < 0 || scale_[1] < 0)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'scale' must be 2 values >= 0: [height, width]");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = FloatInput(ctx);
    const std::vector<int64_t>& d = x.shape().dims();
    if (d.size() != 4) {
      ctx.info().Fail(
          ErrorCode::kInvalidArgument,
          "input 'input' has shape " + x.shape().ToString() + "; it must be [N, C, H, W]");
    }
    const int64_t left = border_[0];
    const int64_t top = border_[1];
    // (Each bound compared before it is added, so no attribute value overflows.)
    const bool fits = top <= d[2] && left <= d[3] &&
                      (scale_.empty() ? border_[3] <= d[2] - top && border_[2] <= d[3] - left
                                      : scale_[0] <= d[2] - top && scale_[1] <= d[3] - left);
    if (!fits) {
      const auto list = [](const std::vector<int64_t>& v) {
        std::string text = "[";
        for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
        return text + "]";
      };
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "input 'input' has shape " + x.shape().ToString() + "; the crop (border " +
                          list(border_) + (scale_.empty() ? "" : ", scale " + list(scale_)) +
                          ") does not fit in it");
    }
    const int64_t h = scale_.empty() ? d[2] - border_[3] - top : scale_[0];
    const int64_t w = scale_.empty() ? d[3] - border_[2] - left : scale_[1];
    const int64_t out_dims[] = {d[0], d[1], h, w};
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), out_dims);
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    const auto planes = static_cast<size_t>(d[0] * d[1]);
    for (size_t p = 0; p < planes; ++p) {
      for (int64_t r = 0; r < h; ++r) {
        const float* src = xp +
                           (p * static_cast<size_t>(d[2]) + static_cast<size_t>(top + r)) *
                               static_cast<size_t>(d[3]) +
                           static_cast<size_t>(left);
        std::copy(
            src, src + w,
            yp + (p * static_cast<size_t>(h) + static_cast<size_t>(r)) * static_cast<size_t>(w));
      }
    }
  }

 private:
  std::vector<int64_t> border_;
  std::vector<int64_t> scale_;
};

}  // namespace

std::unique_ptr<Kernel> MakeImageScaler(const KernelInfo& info) {
  return Make<ImageScaler>(info);
}
std::unique_ptr<Kernel> MakeCrop(const KernelInfo& info) {
  return Make<Crop>(info);
}
std::unique_ptr<Kernel> MakeAffine(const KernelInfo& info) {
  return std::make_unique<PointwiseKernel>(info, Pointwise::kAffine);
}
std::unique_ptr<Kernel> MakeScaledTanh(const KernelInfo& info) {
  return std::make_unique<PointwiseKernel>(info, Pointwise::kScaledTanh);
}
std::unique_ptr<Kernel> MakeParametricSoftplus(const KernelInfo& info) {
  return std::make_unique<PointwiseKernel>(info, Pointwise::kParametricSoftplus);
}
std::unique_ptr<Kernel> MakeScale(const KernelInfo& info) {
  return std::make_unique<PointwiseKernel>(info, Pointwise::kScale);
}

}  // namespace kiln::cpu
