// Reads at indices taken from data, over every element type (strings copied as std::string;
// sub-byte types rejected). Indices are int32 or int64; negative ones count from the end; any
// index outside [-dim, dim) is an error naming its position.
//   Gather 1–23, GatherElements 11–23, GatherND 11–23 (12+: batch_dims)
#include <algorithm>
#include <span>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// Checks every index against [-dim, dim) and maps it to [0, dim).
void WrapIndices(const KernelInfo& info, std::span<int64_t> indices, int64_t dim,
                 const char* what) {
  for (size_t i = 0; i < indices.size(); ++i) {
    int64_t v = indices[i];
    if (v < -dim || v >= dim) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string(what) + " " + std::to_string(v) + " at position " + std::to_string(i) +
                    " is out of range for dimension " + std::to_string(dim));
    }
    indices[i] = v < 0 ? v + dim : v;
  }
}

class Gather final : public Kernel {
 public:
  explicit Gather(const KernelInfo& info) : axis_(info.GetInt("axis", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& ind = ctx.Input(1);
    const std::vector<int64_t>& d = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, d.size());
    const std::span<int64_t> indices = ReadIndices(ctx, ind);
    WrapIndices(info, indices, d[axis], "index");
    SmallVector<int64_t> out;
    for (size_t k = 0; k < axis; ++k) out.push_back(d[k]);
    for (int64_t v : ind.shape().dims()) out.push_back(v);
    for (size_t k = axis + 1; k < d.size(); ++k) out.push_back(d[k]);
    Tensor& y = ctx.Output(0, x.type(), CheckedDims(info, x.type(), out.span(), "output shape"));
    if (y.element_count() == 0) return;
    const size_t outer = Product(d, 0, axis);
    const size_t inner = Product(d, axis + 1, d.size());
    const auto dim = static_cast<size_t>(d[axis]);
    const size_t n = indices.size();
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      const size_t grain = std::max<size_t>(1, 16384 / inner);
      ctx.threads().ParallelFor(outer * n, grain, [&](size_t begin, size_t end) {
        for (size_t r = begin; r < end; ++r) {
          const size_t o = r / n;
          const auto idx = static_cast<size_t>(indices[r % n]);
          std::copy_n(src + (o * dim + idx) * inner, inner, dst + r * inner);
        }
      });
    });
  }

 private:
  int64_t axis_;
};

class GatherElements final : public Kernel {
 public:
  explicit GatherElements(const KernelInfo& info) : axis_(info.GetInt("axis", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& ind = ctx.Input(1);
    const std::vector<int64_t>& d = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, d.size());
    bool fits = id.size() == d.size();
    for (size_t k = 0; fits && k < d.size(); ++k) fits = k == axis || id[k] <= d[k];
    if (!fits) {
      info.Fail(ErrorCode::kInvalidArgument, "indices " + ind.shape().ToString() +
                                                 " do not fit data " + x.shape().ToString() +
                                                 " outside axis " + std::to_string(axis));
    }
    const std::span<int64_t> indices = ReadIndices(ctx, ind);
    WrapIndices(info, indices, d[axis], "index");
    Tensor& y = ctx.Output(0, x.type(), ind.shape());
    if (y.element_count() == 0) return;
    const SmallVector<int64_t> strides = SignedStrides(d);
    const size_t rank = d.size();
    const auto inner = static_cast<size_t>(id[rank - 1]);
    const size_t rows = indices.size() / inner;
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      ctx.threads().ParallelFor(rows, std::max<size_t>(1, 16384 / inner), [&](size_t b, size_t e) {
        for (size_t row = b; row < e; ++row) {
          // Offset of the row start in data, leaving out the axis coordinate.
          int64_t base = 0;
          size_t rest = row;
          for (size_t k = rank - 1; k-- > 0;) {
            const auto c = static_cast<int64_t>(rest % static_cast<size_t>(id[k]));
            rest /= static_cast<size_t>(id[k]);
            if (k != axis) base += c * strides[k];
          }
          const int64_t* idx = indices.data() + row * inner;
          E* out = dst + row * inner;
          for (size_t j = 0; j < inner; ++j) {
            const int64_t last = axis == rank - 1 ? 0 : static_cast<int64_t>(j);
            out[j] = src[base + last + idx[j] * strides[axis]];
          }
        }
      });
    });
  }

 private:
  int64_t axis_;
};

class GatherND final : public Kernel {
 public:
  explicit GatherND(const KernelInfo& info)
      : batch_dims_(info.opset() >= 12 ? info.GetInt("batch_dims", 0) : 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& ind = ctx.Input(1);
    const std::vector<int64_t>& d = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    const auto r = static_cast<int64_t>(d.size());
    const auto q = static_cast<int64_t>(id.size());
    const int64_t b = batch_dims_;
    if (r < 1 || q < 1 || b < 0 || b >= std::min(r, q)) {
      info.Fail(ErrorCode::kInvalidArgument, "batch_dims " + std::to_string(b) +
                                                 " does not fit data " + x.shape().ToString() +
                                                 " and indices " + ind.shape().ToString());
    }
    const int64_t k = id.back();
    if (k < 1 || k > r - b) {
      info.Fail(ErrorCode::kInvalidArgument,
                "the last dimension of indices " + ind.shape().ToString() + " must be in [1, " +
                    std::to_string(r - b) + "] for data " + x.shape().ToString());
    }
    const auto ub = static_cast<size_t>(b);
    const auto uk = static_cast<size_t>(k);
    for (size_t i = 0; i < ub; ++i) {
      if (id[i] != d[i]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "batch dimensions of indices " + ind.shape().ToString() +
                      " differ from those of data " + x.shape().ToString());
      }
    }
    const std::span<int64_t> indices = ReadIndices(ctx, ind);
    const SmallVector<int64_t> strides = SignedStrides(d);
    for (size_t i = 0; i < indices.size(); ++i) {
      const int64_t dim = d[ub + i % uk];
      int64_t& v = indices[i];
      if (v < -dim || v >= dim) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "index " + std::to_string(v) + " at position " + std::to_string(i) +
                      " is out of range for dimension " + std::to_string(dim));
      }
      if (v < 0) v += dim;
    }
    SmallVector<int64_t> out;
    for (size_t i = 0; i + 1 < id.size(); ++i) out.push_back(id[i]);
    for (size_t i = ub + uk; i < d.size(); ++i) out.push_back(d[i]);
    Tensor& y = ctx.Output(0, x.type(), CheckedDims(info, x.type(), out.span(), "output shape"));
    if (y.element_count() == 0) return;
    const size_t slice = Product(d, ub + uk, d.size());
    const size_t tuples = indices.size() / uk;
    const size_t per_batch = tuples / std::max<size_t>(1, Product(d, 0, ub));
    const size_t batch_stride = Product(d, ub, d.size());
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      ctx.threads().ParallelFor(
          tuples, std::max<size_t>(1, 16384 / slice), [&](size_t s, size_t e) {
            for (size_t t = s; t < e; ++t) {
              size_t offset = (t / per_batch) * batch_stride;
              for (size_t j = 0; j < uk; ++j) {
                offset += static_cast<size_t>(indices[t * uk + j] * strides[ub + j]);
              }
              std::copy_n(src + offset, slice, dst + t * slice);
            }
          });
    });
  }

 private:
  int64_t batch_dims_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGather(const KernelInfo& info) {
  return Make<Gather>(info);
}
std::unique_ptr<Kernel> MakeGatherElements(const KernelInfo& info) {
  return Make<GatherElements>(info);
}
std::unique_ptr<Kernel> MakeGatherND(const KernelInfo& info) {
  return Make<GatherND>(info);
}

}  // namespace kiln::cpu
