// AffineGrid (version 20): the sampling grid GridSample reads for a batch of affine maps.
//   theta [N, 2, 3] with size (N, C, H, W) gives grid [N, H, W, 2];
//   theta [N, 3, 4] with size (N, C, D, H, W) gives grid [N, D, H, W, 3];
// grid[n, ..., :] = theta[n] · (x, y[, z], 1), where each base coordinate runs over [-1, 1]:
// pixel centres -1 + (2i + 1) / L, or with align_corners -1 + 2i / (L - 1) (-1 when L is 1).
// Types: float, double, float16 and bfloat16 (computed in double).
#include <array>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class AffineGrid final : public Kernel {
 public:
  explicit AffineGrid(const KernelInfo& info) : align_corners_(info.GetInt("align_corners", 0)) {
    if (align_corners_ != 0 && align_corners_ != 1) {
      info.Fail(
          ErrorCode::kInvalidGraph,
          "attribute 'align_corners' is " + std::to_string(align_corners_) + "; it must be 0 or 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& theta = ctx.Input(0);
    const Tensor& size = ctx.Input(1);
    RequireIntType(info, size, "size");
    const SmallVector<int64_t> sz = ReadSmallInts(info, size, "size");
    if (size.shape().rank() != 1 || (sz.size() != 4 && sz.size() != 5)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'size' has shape " + size.shape().ToString() +
                    "; it must hold 4 values (N, C, H, W) or 5 (N, C, D, H, W)");
    }
    const size_t spatial = sz.size() - 2;
    const auto& td = theta.shape().dims();
    if (td.size() != 3 || td[0] != sz[0] || td[1] != static_cast<int64_t>(spatial) ||
        td[2] != static_cast<int64_t>(spatial + 1)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'theta' has shape " + theta.shape().ToString() + "; expected [" +
                    std::to_string(sz[0]) + ", " + std::to_string(spatial) + ", " +
                    std::to_string(spatial + 1) + "] for size (" + std::to_string(sz.size()) +
                    " values, N = " + std::to_string(sz[0]) + ")");
    }
    std::array<int64_t, 5> gd{};
    gd[0] = sz[0];
    for (size_t a = 0; a < spatial; ++a) {
      if (sz[2 + a] < 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'size' has a negative dimension " + std::to_string(sz[2 + a]));
      }
      gd[1 + a] = sz[2 + a];
    }
    gd[1 + spatial] = static_cast<int64_t>(spatial);
    Tensor& grid =
        ctx.OutputForOverwrite(0, theta.type(), std::span<const int64_t>(gd.data(), spatial + 2));
    if (grid.element_count() == 0) return;
    const auto batch = static_cast<size_t>(sz[0]);
    const size_t points = grid.element_count() / (batch * spatial);
    Dispatch<float, double, Float16, BFloat16>(theta.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* th = static_cast<const T*>(theta.data());
      T* out = static_cast<T*>(grid.data());
      for (size_t n = 0; n < batch; ++n) {
        const T* m = th + n * spatial * (spatial + 1);
        for (size_t p = 0; p < points; ++p) {
          // Base coordinates, x first (the innermost axis).
          std::array<double, 4> base{};
          size_t rest = p;
          for (size_t a = 0; a < spatial; ++a) {
            const int64_t length = gd[spatial - a];
            const auto i = static_cast<double>(rest % static_cast<size_t>(length));
            rest /= static_cast<size_t>(length);
            const auto l = static_cast<double>(length);
            base[a] = align_corners_ != 0 ? (length > 1 ? -1 + 2 * i / (l - 1) : -1.0)
                                          : -1 + (2 * i + 1) / l;
          }
          base[spatial] = 1;
          T* o = out + (n * points + p) * spatial;
          for (size_t r = 0; r < spatial; ++r) {
            double v = 0;
            for (size_t k = 0; k <= spatial; ++k) {
              v += static_cast<double>(nn::Load(m[r * (spatial + 1) + k])) * base[k];
            }
            o[r] = nn::Store<T>(static_cast<nn::AccOf<T>>(v));
          }
        }
      }
    });
  }

 private:
  int64_t align_corners_;
};

}  // namespace

std::unique_ptr<Kernel> MakeAffineGrid(const KernelInfo& info) {
  return std::make_unique<AffineGrid>(info);
}

}  // namespace kiln::cpu
