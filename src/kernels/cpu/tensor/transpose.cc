// Permutations of the elements, over every element type (strings copied as std::string; sub-byte
// types rejected):
//   Transpose 1–23 (perm defaults to reversing the axes)
//   DepthToSpace 1–23 (11+: mode DCR or CRD; before 11 DCR only)
//   SpaceToDepth 1–23
#include <initializer_list>
#include <numeric>
#include <span>

#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// Writes `x` viewed as `view` dims, permuted by `perm`, into output 0 of shape `out_shape`.
void PermuteInto(KernelContext& ctx, const Tensor& x, std::span<const int64_t> view,
                 std::span<const size_t> perm, std::span<const int64_t> out_shape) {
  const SmallVector<int64_t> strides = SignedStrides(view);
  SmallVector<int64_t> dims(perm.size());
  SmallVector<int64_t> src_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = view[perm[i]];
    src_strides[i] = strides[perm[i]];
  }
  Tensor& y = ctx.OutputForOverwrite(0, x.type(), out_shape);
  StridedCopyTensor(ctx.info(), ctx.threads(), x, y, dims.span(), src_strides.span(), 0);
}

// PermuteInto with the view, permutation and output shape written out in place.
void PermuteListed(KernelContext& ctx, const Tensor& x, std::initializer_list<int64_t> view,
                   std::initializer_list<size_t> perm, std::initializer_list<int64_t> out_shape) {
  PermuteInto(ctx, x, std::span<const int64_t>(view.begin(), view.size()),
              std::span<const size_t>(perm.begin(), perm.size()),
              std::span<const int64_t>(out_shape.begin(), out_shape.size()));
}

class Transpose final : public Kernel {
 public:
  explicit Transpose(const KernelInfo& info)
      : has_perm_(info.HasAttribute("perm")), perm_(info.GetInts("perm")) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    SmallVector<size_t> perm(rank);
    if (has_perm_) {
      if (perm_.size() != rank) {
        ctx.info().Fail(ErrorCode::kInvalidArgument,
                        "perm " + DimsText(perm_) + " has " + std::to_string(perm_.size()) +
                            " entries for input " + x.shape().ToString());
      }
      SmallVector<bool> seen(rank, false);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t p = perm_[i];
        if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) {
          ctx.info().Fail(ErrorCode::kInvalidArgument, "perm " + DimsText(perm_) +
                                                           " is not a permutation of the axes of " +
                                                           x.shape().ToString());
        }
        seen[static_cast<size_t>(p)] = true;
        perm[i] = static_cast<size_t>(p);
      }
    } else {
      for (size_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    }
    SmallVector<int64_t> out(rank);
    for (size_t i = 0; i < rank; ++i) out[i] = in[perm[i]];
    PermuteInto(ctx, x, in, perm.span(), out.span());
  }

 private:
  bool has_perm_;
  std::vector<int64_t> perm_;
};

int64_t BlockSize(const KernelInfo& info) {
  const int64_t b = info.RequireInt("blocksize");
  if (b < 1) {
    info.Fail(ErrorCode::kInvalidArgument,
              "attribute 'blocksize' must be positive, not " + std::to_string(b));
  }
  return b;
}

void RequireRank4(const KernelInfo& info, const Tensor& x) {
  if (x.shape().rank() != 4) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input must have rank 4 (N,C,H,W), not shape " + x.shape().ToString());
  }
}

class DepthToSpace final : public Kernel {
 public:
  explicit DepthToSpace(const KernelInfo& info) : block_(BlockSize(info)) {
    const std::string mode = info.opset() >= 11 ? info.GetString("mode", "DCR") : "DCR";
    if (mode != "DCR" && mode != "CRD") {
      info.Fail(ErrorCode::kInvalidArgument, "mode '" + mode + "' is not DCR or CRD");
    }
    crd_ = mode == "CRD";
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    RequireRank4(ctx.info(), x);
    const std::vector<int64_t>& d = x.shape().dims();
    const int64_t b = block_;
    const int64_t bb = CheckedMul(ctx.info(), b, b, "blocksize^2");
    if (d[1] % bb != 0) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "channels of input " + x.shape().ToString() +
                          " are not divisible by blocksize^2 = " + std::to_string(bb));
    }
    const int64_t c = d[1] / bb;
    const int64_t h = CheckedMul(ctx.info(), d[2], b, "output height");
    const int64_t w = CheckedMul(ctx.info(), d[3], b, "output width");
    if (crd_) {
      PermuteListed(ctx, x, {d[0], c, b, b, d[2], d[3]}, {0, 1, 4, 2, 5, 3}, {d[0], c, h, w});
    } else {
      PermuteListed(ctx, x, {d[0], b, b, c, d[2], d[3]}, {0, 3, 4, 1, 5, 2}, {d[0], c, h, w});
    }
  }

 private:
  int64_t block_;
  bool crd_ = false;
};

class SpaceToDepth final : public Kernel {
 public:
  explicit SpaceToDepth(const KernelInfo& info) : block_(BlockSize(info)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    RequireRank4(ctx.info(), x);
    const std::vector<int64_t>& d = x.shape().dims();
    const int64_t b = block_;
    if (d[2] % b != 0 || d[3] % b != 0) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "height and width of input " + x.shape().ToString() +
                          " are not divisible by blocksize " + std::to_string(b));
    }
    const int64_t c = CheckedMul(ctx.info(), d[1], CheckedMul(ctx.info(), b, b, "blocksize^2"),
                                 "output channels");
    PermuteListed(ctx, x, {d[0], d[1], d[2] / b, b, d[3] / b, b}, {0, 3, 5, 1, 2, 4},
                  {d[0], c, d[2] / b, d[3] / b});
  }

 private:
  int64_t block_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTranspose(const KernelInfo& info) {
  return Make<Transpose>(info);
}
std::unique_ptr<Kernel> MakeDepthToSpace(const KernelInfo& info) {
  return Make<DepthToSpace>(info);
}
std::unique_ptr<Kernel> MakeSpaceToDepth(const KernelInfo& info) {
  return Make<SpaceToDepth>(info);
}

}  // namespace kiln::cpu
