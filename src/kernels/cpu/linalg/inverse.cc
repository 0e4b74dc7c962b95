// com.microsoft Inverse (opset 1 of the domain): the inverse of each square matrix of X
// [..., M, M] (float, double or float16), which ONNX Runtime's exporter helper writes for
// torch.inverse. Each matrix is inverted in double by Gauss-Jordan elimination with partial
// pivoting (the row of the largest remaining pivot swapped in), then stored in X's type. A
// singular matrix gives what the elimination gives (a zero pivot: infinities and NaN), as ONNX
// Runtime's LU-based inverse does; it is not an error. Threaded over the matrices.
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "core/float16.h"
#include "kernels/cpu/linalg/linalg_kernels.h"

namespace kiln::cpu {
namespace {

template <typename T>
double Load(const T* p, size_t i) {
  if constexpr (std::is_same_v<T, Float16>) {
    return p[i].ToFloat();
  } else {
    return static_cast<double>(p[i]);
  }
}

template <typename T>
void Store(T* p, size_t i, double v) {
  if constexpr (std::is_same_v<T, Float16>) {
    p[i] = Float16::FromFloat(static_cast<float>(v));
  } else {
    p[i] = static_cast<T>(v);
  }
}

// a (m × m, row-major) becomes the identity and `inv` its inverse.
void GaussJordan(double* a, double* inv, size_t m) {
  for (size_t i = 0; i < m * m; ++i) inv[i] = 0.0;
  for (size_t i = 0; i < m; ++i) inv[i * m + i] = 1.0;
  for (size_t col = 0; col < m; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < m; ++r) {
      if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
    }
    if (pivot != col) {
      for (size_t j = 0; j < m; ++j) {
        std::swap(a[col * m + j], a[pivot * m + j]);
        std::swap(inv[col * m + j], inv[pivot * m + j]);
      }
    }
    const double d = a[col * m + col];
    for (size_t j = 0; j < m; ++j) {
      a[col * m + j] /= d;
      inv[col * m + j] /= d;
    }
    for (size_t r = 0; r < m; ++r) {
      if (r == col) continue;
      const double f = a[r * m + col];
      if (f == 0.0) continue;
      for (size_t j = 0; j < m; ++j) {
        a[r * m + j] -= f * a[col * m + j];
        inv[r * m + j] -= f * inv[col * m + j];
      }
    }
  }
}

class Inverse final : public Kernel {
 public:
  explicit Inverse(const KernelInfo& info) { (void)info; }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    if (d.size() < 2 || d[d.size() - 1] != d[d.size() - 2]) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                 "; it must be [..., M, M], square matrices");
    }
    if (x.type() != DataType::kFloat && x.type() != DataType::kDouble &&
        x.type() != DataType::kFloat16) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'X' is ") + DataTypeName(x.type()) +
                                                 "; it must be float, double or float16");
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const auto m = static_cast<size_t>(d.back());
    if (y.element_count() == 0) return;
    const size_t matrices = static_cast<size_t>(x.element_count()) / (m * m);
    ctx.threads().ParallelFor(matrices, 1, [&](size_t begin, size_t end) {
      double* a = ctx.Scratch<double>(2 * m * m);
      double* inv = a + m * m;
      for (size_t k = begin; k < end; ++k) {
        const size_t base = k * m * m;
        const auto run = [&](const auto* src, auto* dst) {
          for (size_t i = 0; i < m * m; ++i) a[i] = Load(src, base + i);
          GaussJordan(a, inv, m);
          for (size_t i = 0; i < m * m; ++i) Store(dst, base + i, inv[i]);
        };
        if (x.type() == DataType::kFloat) {
          run(static_cast<const float*>(x.data()), static_cast<float*>(y.data()));
        } else if (x.type() == DataType::kDouble) {
          run(static_cast<const double*>(x.data()), static_cast<double*>(y.data()));
        } else {
          run(static_cast<const Float16*>(x.data()), static_cast<Float16*>(y.data()));
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeInverse(const KernelInfo& info) {
  return Make<Inverse>(info);
}

}  // namespace kiln::cpu
