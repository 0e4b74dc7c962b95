// Det (opsets 11, 22+): the determinant of each [M, M] matrix in the last two dimensions of a
// float, double, float16 or bfloat16 tensor (bfloat16 from 22), by LU decomposition with partial
// pivoting in double. Output [...] (the leading dimensions); a 0x0 matrix has determinant 1.
#include <cmath>
#include <string>
#include <utility>

#include "kernels/cpu/quant/codec.h"
#include "kernels/cpu/signal/signal_kernels.h"
#include "kernels/cpu/small_vector.h"

namespace kiln::cpu {
namespace {

// Determinant of the n x n row-major matrix `a` (overwritten).
double Determinant(double* a, size_t n) {
  double det = 1;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    }
    if (a[pivot * n + col] == 0) return 0;
    if (pivot != col) {
      for (size_t c = 0; c < n; ++c) std::swap(a[pivot * n + c], a[col * n + c]);
      det = -det;
    }
    const double p = a[col * n + col];
    det *= p;
    for (size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / p;
      if (f == 0) continue;
      for (size_t c = col + 1; c < n; ++c) a[r * n + c] -= f * a[col * n + c];
    }
  }
  return det;
}

class Det final : public Kernel {
 public:
  explicit Det(const KernelInfo& /*info*/) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const DataType t = x.type();
    const bool ok = t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
                    (t == DataType::kBfloat16 && info.opset() >= 22);
    if (!ok) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'X' has element type ") + DataTypeName(t) +
                    "; expected float, double or float16 (bfloat16 from opset 22)");
    }
    const auto& xd = x.shape().dims();
    if (xd.size() < 2 || xd[xd.size() - 1] != xd[xd.size() - 2]) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() +
                    "; expected [..., M, M] (square matrices in the last two dimensions)");
    }
    const SmallVector<int64_t> out(std::span<const int64_t>(xd).first(xd.size() - 2));
    Tensor& y = ctx.OutputForOverwrite(0, t, out.span());
    const auto n = static_cast<size_t>(xd.back());
    size_t count = 1;
    for (int64_t d : out) count *= static_cast<size_t>(d);
    double* a = ctx.Scratch<double>(n * n);
    for (size_t m = 0; m < count; ++m) {
      for (size_t i = 0; i < n * n; ++i) a[i] = quant::LoadElement(t, x.data(), m * n * n + i);
      quant::StoreElement(t, y.data(), m, Determinant(a, n), true);
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeDet(const KernelInfo& info) {
  return Make<Det>(info);
}

}  // namespace kiln::cpu
