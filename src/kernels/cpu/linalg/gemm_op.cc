// Gemm (opsets 1–23): Y = alpha · op(A) · op(B) + beta · C, op transposing when transA / transB
// is set. Opsets 1–6: C is required, of shape M×N when broadcast = 0 and broadcasting
// (unidirectionally, numpy rules) to M×N when broadcast = 1. Opsets 7–10: C is required and
// broadcasts. Opset 11+: C is optional. Types: float and double; Float16 and BFloat16 through
// float; int32, int64, uint32 and uint64 with wrapping arithmetic when alpha and beta are whole
// numbers.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// Whether dimensions `c` broadcast unidirectionally (numpy rules, right-aligned) to m×n.
bool BroadcastsToMatrix(const std::vector<int64_t>& c, int64_t m, int64_t n) {
  if (c.size() > 2) return false;
  if (!c.empty() && c.back() != 1 && c.back() != n) return false;
  return c.size() < 2 || c[0] == 1 || c[0] == m;
}

// out (m×n, row-major) = C broadcast to m×n, converted to Acc; `c_dims` broadcast to m×n.
template <typename T, typename Acc>
void BroadcastC(const T* c, const std::vector<int64_t>& c_dims, size_t m, size_t n, Acc* out) {
  const size_t rows = c_dims.size() == 2 ? static_cast<size_t>(c_dims[0]) : 1;
  const size_t cols = c_dims.empty() ? 1 : static_cast<size_t>(c_dims.back());
  for (size_t i = 0; i < m; ++i) {
    const T* row = c + (rows == 1 ? 0 : i) * cols;
    for (size_t j = 0; j < n; ++j) {
      const T v = row[cols == 1 ? 0 : j];
      if constexpr (kIsHalf<T>) {
        out[i * n + j] = static_cast<Acc>(v.ToFloat());
      } else {
        out[i * n + j] = static_cast<Acc>(v);
      }
    }
  }
}

class GemmOp final : public Kernel {
 public:
  explicit GemmOp(const KernelInfo& info)
      : trans_a_(info.GetInt("transA", 0) != 0),
        trans_b_(info.GetInt("transB", 0) != 0),
        alpha_(info.GetFloat("alpha", 1.0f)),
        beta_(info.GetFloat("beta", 1.0f)),
        c_exact_(info.opset() < 7 && info.GetInt("broadcast", 0) == 0) {
    if (info.opset() < 11 && !info.HasInput(2)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'C' is required before opset 11");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    const Tensor* c = ctx.OptionalInput(2);
    CheckType(info, b, "B", a.type());
    if (c != nullptr) CheckType(info, *c, "C", a.type());
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'A' has shape " + a.shape().ToString() +
                                                 " and input 'B' has shape " +
                                                 b.shape().ToString() + ": both must be 2-D");
    }
    const std::vector<int64_t>& ad = a.shape().dims();
    const std::vector<int64_t>& bd = b.shape().dims();
    const int64_t m = trans_a_ ? ad[1] : ad[0];
    const int64_t k = trans_a_ ? ad[0] : ad[1];
    const int64_t kb = trans_b_ ? bd[1] : bd[0];
    const int64_t n = trans_b_ ? bd[0] : bd[1];
    if (k != kb) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'A' has shape " + a.shape().ToString() + " (transA=" +
                    std::to_string(trans_a_) + ") and input 'B' has shape " + b.shape().ToString() +
                    " (transB=" + std::to_string(trans_b_) + "): the inner dimensions " +
                    std::to_string(k) + " and " + std::to_string(kb) + " differ");
    }
    const int64_t y_dims[2] = {m, n};
    if (c != nullptr) {
      const std::vector<int64_t>& cd = c->shape().dims();
      if (c_exact_ && !std::equal(cd.begin(), cd.end(), std::begin(y_dims), std::end(y_dims))) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'C' has shape " + c->shape().ToString() +
                                                   " but must be " + Shape({m, n}).ToString() +
                                                   " when broadcast is 0");
      }
      if (!BroadcastsToMatrix(cd, m, n)) CheckBroadcastable(info, *c, "C", y_dims);
    }
    Tensor& y = ctx.OutputForOverwrite(0, a.type(), y_dims);
    if (y.element_count() == 0) return;

    const auto mu = static_cast<size_t>(m);
    const auto nu = static_cast<size_t>(n);
    const auto ku = static_cast<size_t>(k);
    const size_t lda = static_cast<size_t>(ad[1]);
    const size_t ldb = static_cast<size_t>(bd[1]);
    const bool add_c = c != nullptr && beta_ != 0.0f;
    Dispatch<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>(
        a.type(), info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (kIsHalf<T>) {
            // Through float, the operands converted into scratch memory.
            float* af = ctx.Scratch<float>(a.element_count());
            float* bf = ctx.Scratch<float>(b.element_count());
            float* yf = ctx.Scratch<float>(y.element_count());
            const auto* ap = static_cast<const T*>(a.data());
            const auto* bp = static_cast<const T*>(b.data());
            for (size_t i = 0; i < a.element_count(); ++i) af[i] = ap[i].ToFloat();
            for (size_t i = 0; i < b.element_count(); ++i) bf[i] = bp[i].ToFloat();
            if (add_c) {
              BroadcastC(static_cast<const T*>(c->data()), c->shape().dims(), mu, nu, yf);
            }
            Gemm<float>(trans_a_, trans_b_, mu, nu, ku, alpha_, af, lda, bf, ldb,
                        add_c ? beta_ : 0.0f, yf, nu, &ctx.threads());
            FromFloats(yf, y.element_count(), static_cast<T*>(y.data()));
          } else if constexpr (std::is_floating_point_v<T>) {
            T* yp = static_cast<T*>(y.data());
            if (add_c) BroadcastC(static_cast<const T*>(c->data()), c->shape().dims(), mu, nu, yp);
            Gemm<T>(trans_a_, trans_b_, mu, nu, ku, static_cast<T>(alpha_),
                    static_cast<const T*>(a.data()), lda, static_cast<const T*>(b.data()), ldb,
                    add_c ? static_cast<T>(beta_) : T(0), yp, nu, &ctx.threads());
          } else {
            ComputeInteger<T>(ctx, a, b, add_c ? c : nullptr, mu, nu, ku, y);
          }
        });
  }

 private:
  static void CheckType(const KernelInfo& info, const Tensor& t, const char* name, DataType want) {
    if (t.type() != want) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                 DataTypeName(t.type()) + " but input 'A' is " +
                                                 DataTypeName(want));
    }
  }

  // alpha or beta as a wrapping integer; only whole numbers have an exact integer meaning.
  template <typename W>
  static W WholeNumber(const KernelInfo& info, float v, const char* name) {
    if (!(std::trunc(v) == v && std::fabs(v) < 9.2e18f)) {
      info.Fail(ErrorCode::kNotImplemented, std::string("attribute '") + name + "' is " +
                                                std::to_string(v) +
                                                ": integer Gemm needs a whole number");
    }
    return static_cast<W>(static_cast<int64_t>(v));
  }

  template <typename T>
  void ComputeInteger(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor* c,
                      size_t m, size_t n, size_t k, Tensor& y) const {
    using W = WrapType<T>;
    const W alpha = WholeNumber<W>(ctx.info(), alpha_, "alpha");
    const W beta = c != nullptr ? WholeNumber<W>(ctx.info(), beta_, "beta") : W(0);
    const size_t zero = 0;
    T* yp = static_cast<T*>(y.data());
    BatchedMatMul<T>(trans_a_, trans_b_, m, n, k, static_cast<const T*>(a.data()), {&zero, 1},
                     static_cast<const T*>(b.data()), {&zero, 1}, yp, ctx.threads());
    T* cv = nullptr;
    if (c != nullptr) {
      cv = ctx.Scratch<T>(m * n);
      BroadcastC(static_cast<const T*>(c->data()), c->shape().dims(), m, n, cv);
    }
    for (size_t i = 0; i < m * n; ++i) {
      W v = alpha * static_cast<W>(yp[i]);
      if (c != nullptr) v += beta * static_cast<W>(cv[i]);
      yp[i] = static_cast<T>(v);
    }
  }

  bool trans_a_;
  bool trans_b_;
  float alpha_;
  float beta_;
  bool c_exact_;  // opsets 1–6 with broadcast = 0: C must be exactly M×N
};

}  // namespace

std::unique_ptr<Kernel> MakeGemm(const KernelInfo& info) {
  return Make<GemmOp>(info);
}

}  // namespace kiln::cpu
