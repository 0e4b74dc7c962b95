// GridSample (versions 16, 20 (N-d; modes "linear"/"cubic" instead of "bilinear"/"bicubic"),
// 22 (bfloat16)): Y[n, c, o...] = X[n, c] sampled at grid[n, o...], whose last axis holds the
// normalized coordinates in [-1, 1], innermost spatial axis first (x, y, z).
//   mode: nearest (round half to even), linear (2^r corners), cubic (4^r taps, A = -0.75, only
//     for 2 spatial axes);
//   padding_mode: zeros (outside taps read 0), border (coordinates and taps clamped), reflection
//     (reflected at the borders, which are the outer pixel edges, or the centres with
//     align_corners); cubic pads its taps only, as PyTorch does, never the point itself;
//   align_corners: -1 and 1 are the centres of the corner pixels rather than their outer edges.
// Types: X float, double, float16 or bfloat16; grid any of those (computed in double).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Spatial ranks this kernel handles (taps per point stay on the stack: 4^3 at most).
constexpr size_t kMaxSpatial = 3;

// x reflected into [lo, hi] (repeatedly, as a mirror at each edge).
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return x;
}

void CubicCoefficients(double t, std::array<double, 4>& c) {
  constexpr double kA = -0.75;
  const double x = std::abs(t);
  c[0] = ((kA * (x + 1) - 5 * kA) * (x + 1) + 8 * kA) * (x + 1) - 4 * kA;
  c[1] = ((kA + 2) * x - (kA + 3)) * x * x + 1;
  c[2] = ((kA + 2) * (1 - x) - (kA + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = ((kA * (2 - x) - 5 * kA) * (2 - x) + 8 * kA) * (2 - x) - 4 * kA;
}

class GridSample final : public Kernel {
 public:
  explicit GridSample(const KernelInfo& info) : align_corners_(info.GetInt("align_corners", 0)) {
    const bool old = info.opset() < 20;
    const std::string mode = info.GetString("mode", old ? "bilinear" : "linear");
    if (mode == "nearest") {
      mode_ = Mode::kNearest;
    } else if (mode == (old ? "bilinear" : "linear")) {
      mode_ = Mode::kLinear;
    } else if (mode == (old ? "bicubic" : "cubic")) {
      mode_ = Mode::kCubic;
    } else {
      info.Fail(
          ErrorCode::kInvalidGraph,
          "attribute 'mode' is '" + mode + "'; opset " + std::to_string(info.opset()) +
              (old ? " takes bilinear, nearest or bicubic" : " takes linear, nearest or cubic"));
    }
    const std::string padding = info.GetString("padding_mode", "zeros");
    if (padding == "zeros") {
      padding_ = Padding::kZeros;
    } else if (padding == "border") {
      padding_ = Padding::kBorder;
    } else if (padding == "reflection") {
      padding_ = Padding::kReflection;
    } else {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'padding_mode' is '" + padding +
                                              "'; it must be zeros, border or reflection");
    }
    if (align_corners_ != 0 && align_corners_ != 1) {
      info.Fail(
          ErrorCode::kInvalidGraph,
          "attribute 'align_corners' is " + std::to_string(align_corners_) + "; it must be 0 or 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& grid = ctx.Input(1);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    const auto& xd = x.shape().dims();
    const auto& gd = grid.shape().dims();
    const size_t rank = xd.size();
    const size_t max_rank = info.opset() < 20 ? 4 : kMaxSpatial + 2;
    if (rank < 3 || rank > max_rank) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; opset " +
                    std::to_string(info.opset()) + " takes rank " +
                    (info.opset() < 20 ? "4 (N, C, H, W)" : "3 to 5 (N, C, D1, ...)"));
    }
    const size_t spatial = rank - 2;
    if (mode_ == Mode::kCubic && spatial != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                 "; cubic mode takes 2 spatial axes only");
    }
    if (gd.size() != rank || gd[0] != xd[0] || gd[rank - 1] != static_cast<int64_t>(spatial)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'grid' has shape " + grid.shape().ToString() + "; expected [" +
                    std::to_string(xd[0]) + ", out spatial dims..., " + std::to_string(spatial) +
                    "] for 'X' of shape " + x.shape().ToString());
    }
    SmallVector<int64_t> yd;
    yd.push_back(xd[0]);
    yd.push_back(xd[1]);
    for (size_t i = 1; i + 1 < rank; ++i) yd.push_back(gd[i]);
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), std::span<const int64_t>(yd.data(), yd.size()));
    if (y.element_count() == 0) return;
    const auto n_count = static_cast<size_t>(xd[0]);
    const auto channels = static_cast<size_t>(xd[1]);
    const size_t points = y.element_count() / (n_count * channels);
    const size_t plane = x.element_count() / (n_count * channels);
    if (plane == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; it has no pixels to sample");
    }
    // The grid may have another float type than X (separate type constraints).
    double* g = ctx.Scratch<double>(grid.element_count());
    nn::ReadAsDouble(info, grid, "grid", g);
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      ctx.threads().ParallelFor(n_count * points, 64, [&](size_t begin, size_t end) {
        std::array<size_t, 64> offsets{};
        std::array<double, 64> weights{};
        for (size_t p = begin; p < end; ++p) {
          const size_t n = p / points;
          const size_t taps = Taps(xd, g + p * spatial, offsets, weights);
          const T* in = src + n * channels * plane;
          T* out = dst + n * channels * points + p % points;
          for (size_t c = 0; c < channels; ++c) {
            double sum = 0;
            for (size_t t = 0; t < taps; ++t) {
              sum += weights[t] * static_cast<double>(nn::Load(in[c * plane + offsets[t]]));
            }
            out[c * points] = nn::Store<T>(static_cast<nn::AccOf<T>>(sum));
          }
        }
      });
    });
  }

 private:
  // The pixels (offsets in one plane) and weights that make the sample at the normalized point
  // `coords` (x first); taps outside the image under zeros padding are left out.
  size_t Taps(const std::vector<int64_t>& xd, const double* coords, std::array<size_t, 64>& offsets,
              std::array<double, 64>& weights) const {
    const size_t spatial = xd.size() - 2;
    // Per axis (outermost first): the tap indices and weights.
    std::array<std::array<int64_t, 4>, kMaxSpatial> index{};
    std::array<std::array<double, 4>, kMaxSpatial> weight{};
    const size_t per_axis = mode_ == Mode::kNearest ? 1 : mode_ == Mode::kLinear ? 2 : 4;
    for (size_t a = 0; a < spatial; ++a) {
      const auto size = static_cast<double>(xd[2 + a]);
      const double norm = coords[spatial - 1 - a];
      double v = align_corners_ != 0 ? (norm + 1) / 2 * (size - 1) : ((norm + 1) * size - 1) / 2;
      const double lo = align_corners_ != 0 ? 0 : -0.5;
      const double hi = align_corners_ != 0 ? size - 1 : size - 0.5;
      if (!std::isfinite(v)) v = lo - 4;  // NaN and infinities sample outside the image
      if (mode_ == Mode::kNearest) v = std::nearbyint(v);
      if (mode_ != Mode::kCubic) {
        if (v < lo || v > hi) {
          if (padding_ == Padding::kBorder) v = std::clamp(v, 0.0, size - 1);
          if (padding_ == Padding::kReflection) v = Reflect(v, lo, hi);
        }
      } else if (padding_ == Padding::kReflection && hi > lo && (v < lo || v > hi)) {
        // Cubic pads its taps only, not the point (as PyTorch, where the operator comes from,
        // and ONNX Runtime do; the ONNX reference also moves the point, and no backend case
        // pins it). Reflected taps repeat with period 2 (hi - lo), an integer: the point moves
        // by whole periods next to the image, which keeps its fraction and every tap's value.
        const double period = 2 * (hi - lo);
        double r = std::fmod(v - lo, period);  // exact, however far out v is
        if (r < 0) r += period;
        v = lo + r;
      }
      // Past a few pixels outside, every tap reads zero or the edge (zeros, border); this keeps
      // huge values out of the integer conversions below.
      if (!(mode_ == Mode::kCubic && padding_ == Padding::kReflection && hi > lo)) {
        v = std::clamp(v, lo - 4, hi + 4);
      }
      if (mode_ == Mode::kNearest) {
        index[a][0] = static_cast<int64_t>(v);
        weight[a][0] = 1;
      } else if (mode_ == Mode::kLinear) {
        const double f = std::floor(v);
        index[a][0] = static_cast<int64_t>(f);
        index[a][1] = index[a][0] + 1;
        weight[a][1] = v - f;
        weight[a][0] = 1 - weight[a][1];
      } else {
        const double f = std::floor(v);
        for (size_t k = 0; k < 4; ++k)
          index[a][k] = static_cast<int64_t>(f) - 1 + static_cast<int64_t>(k);
        CubicCoefficients(v - f, weight[a]);
      }
      for (size_t k = 0; k < per_axis; ++k) index[a][k] = Fix(index[a][k], xd[2 + a], lo, hi);
    }
    size_t taps = 0;
    size_t total = 1;
    for (size_t a = 0; a < spatial; ++a) total *= per_axis;
    for (size_t t = 0; t < total; ++t) {
      size_t rest = t;
      size_t offset = 0;
      double w = 1;
      bool inside = true;
      for (size_t a = spatial; a-- > 0;) {
        const size_t k = rest % per_axis;
        rest /= per_axis;
        const int64_t i = index[a][k];
        if (i < 0) inside = false;
        w *= weight[a][k];
      }
      if (!inside) continue;
      rest = t;
      size_t stride = 1;
      for (size_t a = spatial; a-- > 0;) {
        offset += static_cast<size_t>(index[a][rest % per_axis]) * stride;
        rest /= per_axis;
        stride *= static_cast<size_t>(xd[2 + a]);
      }
      offsets[taps] = offset;
      weights[taps] = w;
      ++taps;
    }
    return taps;
  }

  // A tap index after padding: inside [0, size), or -1 for a zero tap.
  int64_t Fix(int64_t i, int64_t size, double lo, double hi) const {
    if (i >= 0 && i < size) return i;
    switch (padding_) {
      case Padding::kZeros:
        return -1;
      case Padding::kBorder:
        return std::clamp<int64_t>(i, 0, size - 1);
      case Padding::kReflection:
        return std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(i), lo, hi)), 0,
                                   size - 1);
    }
    return -1;
  }

  Mode mode_ = Mode::kLinear;
  Padding padding_ = Padding::kZeros;
  int64_t align_corners_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGridSample(const KernelInfo& info) {
  return std::make_unique<GridSample>(info);
}

}  // namespace kiln::cpu
