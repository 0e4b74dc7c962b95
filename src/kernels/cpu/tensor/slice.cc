// Strided views of the input, over every element type (strings copied as std::string; sub-byte
// types rejected):
//   Slice 1–23 (1–9: starts/ends/axes attributes; 10+: starts, ends, axes, steps inputs with
//     negative steps; starts and ends clamped as the spec says)
//   Tile 1–23 (1–5: tiles and axis inputs; 6+: repeats input)
#include <algorithm>
#include <span>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Slice final : public Kernel {
 public:
  explicit Slice(const KernelInfo& info) : from_attributes_(info.opset() < 10) {
    if (from_attributes_) {
      for (const char* name : {"starts", "ends"}) {
        if (!info.HasAttribute(name)) {
          info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is required");
        }
      }
      starts_ = info.GetInts("starts");
      ends_ = info.GetInts("ends");
      has_axes_ = info.HasAttribute("axes");
      axes_ = info.GetInts("axes");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    SmallVector<int64_t> starts(starts_);
    SmallVector<int64_t> ends(ends_);
    SmallVector<int64_t> axes(axes_);
    SmallVector<int64_t> steps;
    bool has_axes = has_axes_;
    if (!from_attributes_) {
      starts = Read1D(ctx, 1, "starts");
      ends = Read1D(ctx, 2, "ends");
      has_axes = ctx.OptionalInput(3) != nullptr;
      if (has_axes) axes = Read1D(ctx, 3, "axes");
      if (ctx.OptionalInput(4) != nullptr) steps = Read1D(ctx, 4, "steps");
    }
    const size_t n = starts.size();
    if (ends.size() != n || (has_axes && axes.size() != n) ||
        (!steps.empty() && steps.size() != n)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "starts " + DimsText(starts.span()) + ", ends " + DimsText(ends.span()) +
                    (has_axes ? ", axes " + DimsText(axes.span()) : std::string()) +
                    (steps.empty() ? std::string() : ", steps " + DimsText(steps.span())) +
                    " differ in length");
    }
    const std::vector<int64_t>& in = x.shape().dims();
    const SmallVector<int64_t> strides = SignedStrides(in);
    SmallVector<int64_t> out(in);
    SmallVector<int64_t> src_strides = strides;
    SmallVector<bool> seen(in.size(), false);
    int64_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t axis = NormalizeAxis(info, has_axes ? axes[i] : static_cast<int64_t>(i),
                                        in.size(), "axes entry");
      if (seen[axis]) {
        info.Fail(ErrorCode::kInvalidArgument, "axes " + DimsText(axes.span()) + " repeat an axis");
      }
      seen[axis] = true;
      const int64_t step = steps.empty() ? 1 : steps[i];
      if (step == 0)
        info.Fail(ErrorCode::kInvalidArgument, "steps " + DimsText(steps.span()) + " has a 0");
      const auto [start, count] = ClampSliceAxis(starts[i], ends[i], step, in[axis]);
      out[axis] = count;
      if (count > 0) offset += start * strides[axis];
      src_strides[axis] = count > 1 ? strides[axis] * step : 0;
    }
    Tensor& y = ctx.Output(0, x.type(), out.span());
    StridedCopyTensor(info, ctx.threads(), x, y, out.span(), src_strides.span(), offset);
  }

 private:
  static SmallVector<int64_t> Read1D(KernelContext& ctx, size_t i, const char* what) {
    const Tensor& t = ctx.Input(i);
    if (t.shape().rank() != 1) {
      ctx.info().Fail(
          ErrorCode::kInvalidArgument,
          std::string("input '") + what + "' must be 1-D, not shape " + t.shape().ToString());
    }
    return ReadSmallInts(ctx.info(), t, what);
  }

  bool from_attributes_;
  bool has_axes_ = false;
  std::vector<int64_t> starts_;
  std::vector<int64_t> ends_;
  std::vector<int64_t> axes_;
};

class Tile final : public Kernel {
 public:
  explicit Tile(const KernelInfo& info) : with_axis_(info.opset() < 6) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    SmallVector<int64_t> repeats(in.size(), 1);
    if (with_axis_) {
      const int64_t tiles = ReadScalarInt(info, ctx.Input(1), "tiles");
      const size_t axis = NormalizeAxis(info, ReadScalarInt(info, ctx.Input(2), "axis"), in.size());
      repeats[axis] = tiles;
    } else {
      const Tensor& r = ctx.Input(1);
      repeats = ReadSmallInts(info, r, "repeats");
      if (r.shape().rank() != 1 || repeats.size() != in.size()) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'repeats' has shape " + r.shape().ToString() +
                                                   " for input " + x.shape().ToString());
      }
    }
    // The output seen as [repeats_0, in_0, repeats_1, in_1, ...] reads the input with stride 0
    // along each repeats_k.
    const SmallVector<int64_t> strides = SignedStrides(in);
    SmallVector<int64_t> out(in.size());
    SmallVector<int64_t, 16> view;
    SmallVector<int64_t, 16> view_strides;
    for (size_t k = 0; k < in.size(); ++k) {
      if (repeats[k] < 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "repeats " + DimsText(repeats.span()) + " has a negative entry");
      }
      out[k] = CheckedMul(info, in[k], repeats[k], "output dimension");
      view.push_back(repeats[k]);
      view.push_back(in[k]);
      view_strides.push_back(0);
      view_strides.push_back(strides[k]);
    }
    Tensor& y = ctx.Output(0, x.type(), CheckedDims(info, x.type(), out.span(), "output shape"));
    StridedCopyTensor(info, ctx.threads(), x, y, view.span(), view_strides.span(), 0);
  }

 private:
  bool with_axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSlice(const KernelInfo& info) {
  return Make<Slice>(info);
}
std::unique_ptr<Kernel> MakeTile(const KernelInfo& info) {
  return Make<Tile>(info);
}

}  // namespace kiln::cpu
