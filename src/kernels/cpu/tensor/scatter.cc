// Writes of updates at indices into a copy of data. Without reduction over every element type
// (strings copied as std::string; sub-byte types rejected); with add/mul/max/min over the numeric
// types (float16 and bfloat16 through float, integers wrapping). Indices are int32 or int64,
// negative ones count from the end, any other out-of-range index is an error.
//   Scatter 9–10, and Scatter 11+ (deprecated there, the same as ScatterElements-11): without
//     reduction
//   ScatterElements 11–23 (16+: reduction none/add/mul; 18+: max/min)
//   ScatterND 11–23 (16+: reduction none/add/mul; 18+: max/min)
#include <algorithm>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction ParseReduction(const KernelInfo& info) {
  const bool has_reduction = info.opset() >= 16 && info.op_type() != "Scatter";
  const std::string r = has_reduction ? info.GetString("reduction", "none") : "none";
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (info.opset() >= 18 && r == "max") return Reduction::kMax;
  if (info.opset() >= 18 && r == "min") return Reduction::kMin;
  info.Fail(ErrorCode::kInvalidArgument,
            "reduction '" + r + "' is not supported at opset " + std::to_string(info.opset()));
}

template <typename T>
T Combine(Reduction r, T a, T b) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T::FromFloat(Combine(r, a.ToFloat(), b.ToFloat()));
  } else {
    switch (r) {
      case Reduction::kAdd:
        if constexpr (std::is_integral_v<T>) {
          return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
        } else {
          return a + b;
        }
      case Reduction::kMul:
        if constexpr (std::is_integral_v<T>) {
          return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        } else {
          return a * b;
        }
      case Reduction::kMax:
        return std::max(a, b);
      case Reduction::kMin:
        return std::min(a, b);
      case Reduction::kNone:
        break;
    }
    return b;
  }
}

// fn(p): p the elements of an int32 or int64 tensor (checked with RequireIntType).
template <typename Fn>
void WithIndices(const Tensor& ind, Fn&& fn) {
  if (ind.type() == DataType::kInt64) {
    fn(static_cast<const int64_t*>(ind.data()));
  } else {
    fn(static_cast<const int32_t*>(ind.data()));
  }
}

// Copies data into output 0, then calls fn(out, apply): `out` the output's elements as E (the
// storage type without reduction, the numeric type with one), apply(dst, value) storing value or
// combining it into dst.
template <typename Fn>
void WithOutput(KernelContext& ctx, const Tensor& x, Reduction reduction, Fn&& fn) {
  Tensor& y = ctx.Output(0, x.type(), x.shape());
  CopyTensor(x, y);
  if (reduction == Reduction::kNone) {
    DispatchStorage(x.type(), ctx.info(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      fn(DataAs<E>(y), [](E& dst, const E& v) { dst = v; });
    });
  } else {
    Dispatch<KILN_NUMERIC_TYPES>(x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      fn(DataAs<T>(y), [reduction](T& dst, const T& v) { dst = Combine(reduction, dst, v); });
    });
  }
}

class ScatterElements final : public Kernel {
 public:
  explicit ScatterElements(const KernelInfo& info)
      : axis_(info.GetInt("axis", 0)), reduction_(ParseReduction(info)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& ind = ctx.Input(1);
    const Tensor& upd = ctx.Input(2);
    const std::vector<int64_t>& d = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, d.size());
    if (upd.shape() != ind.shape() || upd.type() != x.type()) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("updates (") + DataTypeName(upd.type()) + " " + upd.shape().ToString() +
                    ") must have the shape of indices " + ind.shape().ToString() +
                    " and the type of data (" + DataTypeName(x.type()) + ")");
    }
    bool fits = id.size() == d.size();
    for (size_t k = 0; fits && k < d.size(); ++k) fits = k == axis || id[k] <= d[k];
    if (!fits) {
      info.Fail(ErrorCode::kInvalidArgument, "indices " + ind.shape().ToString() +
                                                 " do not fit data " + x.shape().ToString() +
                                                 " outside axis " + std::to_string(axis));
    }
    // The indices are read where they are, int32 or int64: checked first, then used (a detector's
    // level merge scatters [rois, 256, 7, 7]: copying them to int64 scratch cost a third of it).
    RequireIntType(info, ind, "indices");
    const int64_t dim = d[axis];
    const size_t count = ind.element_count();
    WithIndices(ind, [&](const auto* index) {
      for (size_t i = 0; i < count; ++i) {
        const auto v = static_cast<int64_t>(index[i]);
        if (v < -dim || v >= dim) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "index " + std::to_string(v) + " at position " + std::to_string(i) +
                        " is out of range for dimension " + std::to_string(dim));
        }
      }
    });
    const SmallVector<int64_t> strides = SignedStrides(d);
    const size_t rank = d.size();
    // Row by row along the last axis of indices (rank >= 1: NormalizeAxis checked it): a row's
    // elements are contiguous in data unless it is the scatter axis, then its indices say where.
    const auto inner = static_cast<size_t>(id[rank - 1]);
    if (inner == 0) {
      WithOutput(ctx, x, reduction_, [](auto* /*out*/, auto /*apply*/) {});
      return;
    }
    const size_t rows = count / inner;
    const int64_t axis_stride = axis + 1 == rank ? 1 : strides[axis];
    const int64_t element_step = axis + 1 == rank ? 0 : 1;
    WithOutput(ctx, x, reduction_, [&](auto* out, auto apply) {
      using E = std::remove_pointer_t<decltype(out)>;
      const E* values = DataAs<E>(upd);
      WithIndices(ind, [&](const auto* index) {
        SmallVector<int64_t> pos(rank, 0);  // of the row's first element; pos[rank - 1] stays 0
        for (size_t r = 0; r < rows; ++r) {
          int64_t base = 0;
          for (size_t k = 0; k + 1 < rank; ++k) base += k == axis ? 0 : pos[k] * strides[k];
          const auto* idx = index + r * inner;
          const E* v = values + r * inner;
          for (size_t j = 0; j < inner; ++j) {
            auto at = static_cast<int64_t>(idx[j]);
            at += at < 0 ? dim : 0;
            apply(out[base + at * axis_stride + static_cast<int64_t>(j) * element_step], v[j]);
          }
          for (size_t k = rank - 1; k-- > 0;) {
            if (++pos[k] < id[k]) break;
            pos[k] = 0;
          }
        }
      });
    });
  }

 private:
  int64_t axis_;
  Reduction reduction_;
};

class ScatterND final : public Kernel {
 public:
  explicit ScatterND(const KernelInfo& info) : reduction_(ParseReduction(info)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& ind = ctx.Input(1);
    const Tensor& upd = ctx.Input(2);
    const std::vector<int64_t>& d = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    if (id.empty() || d.empty() || id.back() < 1 || id.back() > static_cast<int64_t>(d.size())) {
      info.Fail(ErrorCode::kInvalidArgument, "indices " + ind.shape().ToString() +
                                                 " must have rank >= 1 and a last dimension in "
                                                 "[1, rank of data] for data " +
                                                 x.shape().ToString());
    }
    const auto k = static_cast<size_t>(id.back());
    SmallVector<int64_t> expected;
    for (size_t i = 0; i + 1 < id.size(); ++i) expected.push_back(id[i]);
    for (size_t i = k; i < d.size(); ++i) expected.push_back(d[i]);
    const std::vector<int64_t>& ud = upd.shape().dims();
    if (!std::equal(ud.begin(), ud.end(), expected.begin(), expected.end()) ||
        upd.type() != x.type()) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("updates (") + DataTypeName(upd.type()) + " " + upd.shape().ToString() +
                    ") must be " + DataTypeName(x.type()) + " " + DimsText(expected.span()) +
                    " for data " + x.shape().ToString() + " and indices " + ind.shape().ToString());
    }
    const std::span<int64_t> indices = ReadIndices(ctx, ind);
    for (size_t i = 0; i < indices.size(); ++i) {
      const int64_t dim = d[i % k];
      int64_t& v = indices[i];
      if (v < -dim || v >= dim) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "index " + std::to_string(v) + " at position " + std::to_string(i) +
                      " is out of range for dimension " + std::to_string(dim));
      }
      if (v < 0) v += dim;
    }
    const SmallVector<int64_t> strides = SignedStrides(d);
    const size_t slice = Product(d, k, d.size());
    const size_t tuples = indices.size() / k;
    WithOutput(ctx, x, reduction_, [&](auto* out, auto apply) {
      using E = std::remove_pointer_t<decltype(out)>;
      const E* values = DataAs<E>(upd);
      for (size_t t = 0; t < tuples; ++t) {
        int64_t offset = 0;
        for (size_t j = 0; j < k; ++j) offset += indices[t * k + j] * strides[j];
        for (size_t s = 0; s < slice; ++s) {
          apply(out[static_cast<size_t>(offset) + s], values[t * slice + s]);
        }
      }
    });
  }

 private:
  Reduction reduction_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScatterElements(const KernelInfo& info) {
  return Make<ScatterElements>(info);
}
std::unique_ptr<Kernel> MakeScatterND(const KernelInfo& info) {
  return Make<ScatterND>(info);
}

}  // namespace kiln::cpu
