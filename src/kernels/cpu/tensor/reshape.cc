// Ops that change only the shape, plus the ops that read it, over every element type (strings
// copied as std::string; sub-byte types rejected):
//   Reshape 1–23 (1–4: `shape` attribute; 5+: shape input; 14+: allowzero)
//   Flatten 1–23 (11+: negative axis)
//   Squeeze, Unsqueeze 1–23 (1–12: `axes` attribute; 13+: axes input)
//   Shape 1–23 (15+: start/end), Size 1–23 (int64 outputs).
//
// Dimensions and axes live in SmallVectors and outputs are made from spans, so a steady-state run
// allocates nothing (for ranks up to 8).
#include <algorithm>
#include <span>

#include "kernels/cpu/common.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// The output: x's bytes with new dims. Nothing is copied when the planner put the output on x's
// buffer (OutputIsInputBytes).
Tensor& CopyWithShape(KernelContext& ctx, const Tensor& x, std::span<const int64_t> dims) {
  Tensor& y = ctx.OutputForOverwrite(0, x.type(), dims);
  CopyTensor(x, y);
  return y;
}

// The values of an int64 or int32 tensor as int64, like ReadInts (which throws the error for
// another element type) but inline up to 8 values.
SmallVector<int64_t> ReadSmallInts(const KernelInfo& info, const Tensor& t, const char* what) {
  SmallVector<int64_t> out(t.element_count());
  if (t.type() == DataType::kInt64) {
    const auto* p = static_cast<const int64_t*>(t.data());
    std::copy(p, p + out.size(), out.begin());
  } else if (t.type() == DataType::kInt32) {
    const auto* p = static_cast<const int32_t*>(t.data());
    std::copy(p, p + out.size(), out.begin());
  } else {
    out = SmallVector<int64_t>(ReadInts(info, t, what));  // throws
  }
  return out;
}

class Reshape final : public Kernel {
 public:
  bool OutputIsInputBytes() const override { return true; }
  explicit Reshape(const KernelInfo& info)
      : from_attribute_(info.opset() < 5), allowzero_(info.GetInt("allowzero", 0) != 0) {
    if (from_attribute_) {
      if (!info.HasAttribute("shape")) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'shape' is required");
      }
      shape_ = info.GetInts("shape");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (!from_attribute_ && ctx.Input(1).shape().rank() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'shape' must be 1-D, not shape " + ctx.Input(1).shape().ToString());
    }
    SmallVector<int64_t> dims =
        from_attribute_ ? SmallVector<int64_t>(shape_) : ReadSmallInts(info, ctx.Input(1), "shape");
    const std::vector<int64_t>& in = x.shape().dims();
    int64_t inferred = -1;
    bool has_zero = false;
    int64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        if (inferred >= 0) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "shape " + DimsText(dims.ToVector()) + " has more than one -1 dimension");
        }
        inferred = static_cast<int64_t>(i);
        continue;
      }
      if (dims[i] < -1) {
        info.Fail(ErrorCode::kInvalidArgument, "shape " + DimsText(dims.ToVector()) +
                                                   " has dimension " + std::to_string(dims[i]) +
                                                   " at index " + std::to_string(i));
      }
      if (dims[i] == 0) {
        has_zero = true;
        if (!allowzero_) {
          if (i >= in.size()) {
            info.Fail(ErrorCode::kInvalidArgument,
                      "shape " + DimsText(dims.ToVector()) + " copies dimension " +
                          std::to_string(i) + " (0) but the input " + x.shape().ToString() +
                          " has rank " + std::to_string(in.size()));
          }
          dims[i] = in[i];
        }
      }
      known = dims[i] == 0 ? 0 : CheckedMul(info, known, dims[i], "shape");
    }
    if (allowzero_ && has_zero && inferred >= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "shape " + DimsText(dims.ToVector()) + " has both 0 and -1 while allowzero is 1");
    }
    const auto count = static_cast<int64_t>(x.element_count());
    if (inferred >= 0) {
      if (known == 0 || count % known != 0) {
        info.Fail(ErrorCode::kInvalidArgument, "cannot infer the -1 dimension of shape " +
                                                   DimsText(dims.ToVector()) + " for input shape " +
                                                   x.shape().ToString());
      }
      dims[static_cast<size_t>(inferred)] = count / known;
    } else if (known != count) {
      info.Fail(ErrorCode::kInvalidArgument, "cannot reshape input " + x.shape().ToString() + " (" +
                                                 std::to_string(count) + " elements) to " +
                                                 DimsText(dims.ToVector()));
    }
    CopyWithShape(ctx, x, dims.span());
  }

 private:
  bool from_attribute_;
  bool allowzero_;
  std::vector<int64_t> shape_;
};

class Flatten final : public Kernel {
 public:
  bool OutputIsInputBytes() const override { return true; }
  explicit Flatten(const KernelInfo& info)
      : axis_(info.GetInt("axis", 1)), allow_negative_(info.opset() >= 11) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    if (axis_ > rank || axis_ < (allow_negative_ ? -rank : 0)) {
      ctx.info().Fail(
          ErrorCode::kInvalidArgument,
          "axis " + std::to_string(axis_) + " is out of range for input " + x.shape().ToString());
    }
    const auto axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const auto outer = static_cast<int64_t>(Product(in, 0, axis));
    const auto inner = static_cast<int64_t>(Product(in, axis, in.size()));
    const int64_t dims[2] = {outer, inner};
    CopyWithShape(ctx, x, dims);
  }

 private:
  int64_t axis_;
  bool allow_negative_;
};

// Normalised, sorted, duplicate-free axes for a tensor of `rank`.
SmallVector<size_t> UniqueAxes(const KernelInfo& info, const SmallVector<int64_t>& axes,
                               size_t rank) {
  SmallVector<size_t> out;
  for (int64_t a : axes) out.push_back(NormalizeAxis(info, a, rank, "axes entry"));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    info.Fail(ErrorCode::kInvalidArgument, "axes " + DimsText(axes.ToVector()) + " repeat an axis");
  }
  return out;
}

// Squeeze and Unsqueeze: axes from the attribute before opset 13, from input 1 after.
class AxesKernel : public Kernel {
 protected:
  AxesKernel(const KernelInfo& info, bool required)
      : from_attribute_(info.opset() < 13), required_(required) {
    if (from_attribute_) {
      if (required && !info.HasAttribute("axes")) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'axes' is required");
      }
      has_axes_ = info.HasAttribute("axes");
      axes_ = info.GetInts("axes");
    }
  }

  // Whether axes were given, and their values.
  bool ReadAxes(KernelContext& ctx, SmallVector<int64_t>& axes) const {
    if (from_attribute_) {
      axes.assign(axes_.begin(), axes_.end());
      return has_axes_;
    }
    const Tensor* t = ctx.OptionalInput(1);
    if (t == nullptr) {
      if (required_) ctx.info().Fail(ErrorCode::kInvalidArgument, "input 'axes' is required");
      return false;
    }
    if (t->shape().rank() > 1) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "input 'axes' must be 1-D, not shape " + t->shape().ToString());
    }
    axes = ReadSmallInts(ctx.info(), *t, "axes");
    return true;
  }

 private:
  bool from_attribute_;
  bool required_;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

class Squeeze final : public AxesKernel {
 public:
  bool OutputIsInputBytes() const override { return true; }
  explicit Squeeze(const KernelInfo& info) : AxesKernel(info, false) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    SmallVector<int64_t> axes;
    SmallVector<bool> drop(in.size(), false);
    if (ReadAxes(ctx, axes)) {
      for (size_t a : UniqueAxes(ctx.info(), axes, in.size())) {
        if (in[a] != 1) {
          ctx.info().Fail(ErrorCode::kInvalidArgument, "cannot squeeze axis " + std::to_string(a) +
                                                           " of input " + x.shape().ToString() +
                                                           ": its size is not 1");
        }
        drop[a] = true;
      }
    } else {
      for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
    }
    SmallVector<int64_t> dims;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!drop[i]) dims.push_back(in[i]);
    }
    CopyWithShape(ctx, x, dims.span());
  }
};

class Unsqueeze final : public AxesKernel {
 public:
  bool OutputIsInputBytes() const override { return true; }
  explicit Unsqueeze(const KernelInfo& info) : AxesKernel(info, true) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    SmallVector<int64_t> axes;
    ReadAxes(ctx, axes);
    const size_t rank = in.size() + axes.size();
    SmallVector<bool> inserted(rank, false);
    for (size_t a : UniqueAxes(ctx.info(), axes, rank)) inserted[a] = true;
    SmallVector<int64_t> dims(rank, 1);
    size_t next = 0;
    for (size_t i = 0; i < rank; ++i) {
      if (!inserted[i]) dims[i] = in[next++];
    }
    CopyWithShape(ctx, x, dims.span());
  }
};

class ShapeOp final : public Kernel {
 public:
  explicit ShapeOp(const KernelInfo& info)
      : start_(info.opset() >= 15 ? info.GetInt("start", 0) : 0),
        end_(info.opset() >= 15 && info.HasAttribute("end") ? info.GetInt("end", 0) : INT64_MAX) {}

  void Compute(KernelContext& ctx) const override {
    const std::vector<int64_t>& in = ctx.Input(0).shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    auto clamp = [rank](int64_t v) {
      if (v < 0) v += rank;
      return std::clamp<int64_t>(v, 0, rank);
    };
    const int64_t start = clamp(start_);
    const int64_t end = std::max(start, clamp(end_));
    const int64_t dims[1] = {end - start};
    Tensor& y = ctx.Output(0, DataType::kInt64, dims);
    std::copy(in.begin() + start, in.begin() + end, DataAs<int64_t>(y));
  }

 private:
  int64_t start_;
  int64_t end_;
};

class Size final : public Kernel {
 public:
  explicit Size(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, DataType::kInt64, std::span<const int64_t>());
    *DataAs<int64_t>(y) = static_cast<int64_t>(x.element_count());
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeReshape(const KernelInfo& info) {
  return Make<Reshape>(info);
}
std::unique_ptr<Kernel> MakeFlatten(const KernelInfo& info) {
  return Make<Flatten>(info);
}
std::unique_ptr<Kernel> MakeSqueeze(const KernelInfo& info) {
  return Make<Squeeze>(info);
}
std::unique_ptr<Kernel> MakeUnsqueeze(const KernelInfo& info) {
  return Make<Unsqueeze>(info);
}
std::unique_ptr<Kernel> MakeShape(const KernelInfo& info) {
  return Make<ShapeOp>(info);
}
std::unique_ptr<Kernel> MakeSize(const KernelInfo& info) {
  return Make<Size>(info);
}

}  // namespace kiln::cpu
