// Joining and cutting along one axis, over every element type (strings copied as std::string;
// sub-byte types rejected):
//   Concat 1–23 (1–3: axis defaults to 1; 4+: axis required; 11+: negative axis)
//   Split 1–23 (1: sizes from the `split` attribute or a second input; 2–12: `split` attribute;
//     13+: split input; 18+: num_outputs, the last part smaller when uneven; 11+: negative axis)
#include <algorithm>
#include <span>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// For each of `rows` rows, copies `width` elements from src (rows of `src_row` elements, from
// column `src_col`) to dst (rows of `dst_row` elements, from column `dst_col`).
template <typename E>
void CopyRows(ThreadPool& threads, const E* src, size_t src_row, size_t src_col, E* dst,
              size_t dst_row, size_t dst_col, size_t width, size_t rows) {
  if (width == 0) return;
  const size_t grain = std::max<size_t>(1, 16384 / width);
  threads.ParallelFor(rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      std::copy_n(src + r * src_row + src_col, width, dst + r * dst_row + dst_col);
    }
  });
}

class Concat final : public Kernel {
 public:
  explicit Concat(const KernelInfo& info)
      : axis_(info.opset() < 4 ? info.GetInt("axis", 1) : info.RequireInt("axis")) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    // The inputs given, in scratch memory.
    const Tensor** given = ctx.Scratch<const Tensor*>(ctx.input_count());
    size_t given_count = 0;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      if (ctx.OptionalInput(i) != nullptr) given[given_count++] = ctx.OptionalInput(i);
    }
    const std::span<const Tensor*> inputs(given, given_count);
    if (inputs.empty()) info.Fail(ErrorCode::kInvalidArgument, "needs at least one input");
    const Tensor& first = *inputs[0];
    const std::vector<int64_t>& d0 = first.shape().dims();
    const size_t rank = d0.size();
    if (rank == 0) info.Fail(ErrorCode::kInvalidArgument, "cannot concatenate scalars");
    const size_t axis = NormalizeAxis(info, axis_, rank);
    SmallVector<int64_t> out(d0);
    out[axis] = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = *inputs[i];
      const std::vector<int64_t>& d = t.shape().dims();
      bool same = t.type() == first.type() && d.size() == rank;
      for (size_t k = 0; same && k < rank; ++k) same = k == axis || d[k] == d0[k];
      if (!same) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input " + std::to_string(i) + " (" + DataTypeName(t.type()) + " " +
                      t.shape().ToString() + ") does not match input 0 (" +
                      DataTypeName(first.type()) + " " + first.shape().ToString() +
                      ") outside axis " + std::to_string(axis));
      }
      out[axis] += d[axis];
    }
    const size_t rows = Product(d0, 0, axis);
    const size_t inner = Product(d0, axis + 1, rank);
    Tensor& y = ctx.OutputForOverwrite(0, first.type(),
                                       CheckedDims(info, first.type(), out.span(), "output shape"));
    if (y.element_count() == 0) return;
    const size_t out_row = static_cast<size_t>(out[axis]) * inner;
    DispatchStorage(first.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      size_t col = 0;
      for (const Tensor* t : inputs) {
        const size_t width = static_cast<size_t>(t->shape().dims()[axis]) * inner;
        CopyRows(ctx.threads(), DataAs<E>(*t), width, 0, DataAs<E>(y), out_row, col, width, rows);
        col += width;
      }
    });
  }

 private:
  int64_t axis_;  // negative counts from the back in every opset (older exporters wrote it too)
};

class Split final : public Kernel {
 public:
  explicit Split(const KernelInfo& info)
      : opset_(info.opset()),
        axis_(info.GetInt("axis", 0)),
        has_split_attribute_(info.opset() < 13 && info.HasAttribute("split")),
        split_(info.opset() < 13 ? info.GetInts("split") : std::vector<int64_t>{}),
        num_outputs_(info.opset() >= 18 ? info.GetInt("num_outputs", 0) : 0) {
    if (info.opset() >= 18 && info.HasAttribute("num_outputs")) {
      if (num_outputs_ < 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'num_outputs' must be positive, not " + std::to_string(num_outputs_));
      }
      if (static_cast<size_t>(num_outputs_) != info.output_count()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'num_outputs' is " + std::to_string(num_outputs_) +
                      " but the node has " + std::to_string(info.output_count()) + " outputs");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, d.size());
    const int64_t dim = d[axis];
    const size_t parts = ctx.output_count();
    if (parts == 0) info.Fail(ErrorCode::kInvalidArgument, "needs at least one output");
    const SmallVector<int64_t> sizes = Sizes(ctx, dim, parts);
    if (sizes.size() != parts) {
      info.Fail(ErrorCode::kInvalidArgument, "split " + DimsText(sizes) + " has " +
                                                 std::to_string(sizes.size()) + " entries for " +
                                                 std::to_string(parts) + " outputs");
    }
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > dim - total) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "split " + DimsText(sizes) + " does not add up to dimension " +
                      std::to_string(axis) + " of input " + x.shape().ToString());
      }
      total += s;
    }
    if (total != dim) {
      info.Fail(ErrorCode::kInvalidArgument, "split " + DimsText(sizes) + " adds up to " +
                                                 std::to_string(total) + ", not dimension " +
                                                 std::to_string(axis) + " of input " +
                                                 x.shape().ToString() + "");
    }
    const size_t rows = Product(d, 0, axis);
    const size_t inner = Product(d, axis + 1, d.size());
    const size_t in_row = static_cast<size_t>(dim) * inner;
    size_t col = 0;
    for (size_t i = 0; i < parts; ++i) {
      const size_t width = static_cast<size_t>(sizes[i]) * inner;
      if (ctx.WantsOutput(i)) {
        SmallVector<int64_t> out(d);
        out[axis] = sizes[i];
        Tensor& y = ctx.Output(i, x.type(), out.span());
        DispatchStorage(x.type(), info, [&](auto tag) {
          using E = typename decltype(tag)::type;
          CopyRows(ctx.threads(), DataAs<E>(x), in_row, col, DataAs<E>(y), width, 0, width, rows);
        });
      }
      col += width;
    }
  }

 private:
  SmallVector<int64_t> Sizes(KernelContext& ctx, int64_t dim, size_t parts) const {
    if (has_split_attribute_) return split_;
    const Tensor* split = ctx.OptionalInput(1);
    if ((opset_ == 1 || opset_ >= 13) && split != nullptr && split->element_count() != 0) {
      return ReadSmallInts(ctx.info(), *split, "split");
    }
    const auto n = static_cast<int64_t>(parts);
    if (num_outputs_ > 0) {
      const int64_t chunk = dim / n + (dim % n != 0 ? 1 : 0);
      SmallVector<int64_t> sizes(parts, chunk);
      sizes.back() = dim - chunk * (n - 1);
      if (sizes.back() < 0) {
        ctx.info().Fail(ErrorCode::kInvalidArgument,
                        "dimension " + std::to_string(dim) + " cannot be split into " +
                            std::to_string(n) + " parts of " + std::to_string(chunk));
      }
      return sizes;
    }
    if (dim % n != 0) {
      ctx.info().Fail(ErrorCode::kInvalidArgument, "dimension " + std::to_string(dim) +
                                                       " cannot be split into " +
                                                       std::to_string(n) + " equal parts");
    }
    return SmallVector<int64_t>(parts, dim / n);
  }

  int64_t opset_;
  int64_t axis_;
  bool has_split_attribute_;
  SmallVector<int64_t> split_;
  int64_t num_outputs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConcat(const KernelInfo& info) {
  return Make<Concat>(info);
}
std::unique_ptr<Kernel> MakeSplit(const KernelInfo& info) {
  return Make<Split>(info);
}

}  // namespace kiln::cpu
