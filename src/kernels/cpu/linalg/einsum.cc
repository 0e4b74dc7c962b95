// Einsum (opsets 12–23): any equation — implicit or explicit output, "..." with broadcasting,
// repeated labels (diagonals, traces), sums over labels the output drops, any number of operands.
// Each operand first sums the labels only it has and takes its diagonals; the operands are then
// contracted left to right, each pair as one batched matrix product through cpu::Gemm (no copy
// when the operands are already laid out as [batch, rows, depth] or its transposes, as in
// "bij,bjk->bik" or "bhqd,bhkd->bhqk"); the result is permuted to the output order. Types: float
// and double; Float16 and BFloat16 through float; the integer types with wrapping arithmetic.
#include <algorithm>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/einsum_equation.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// A tensor in the compute type C with a label per dimension. Its arrays live in scratch memory
// (or in the bound labels and the input tensors), so an operand is a cheap view; `data` is
// nullptr when the tensor is empty.
template <typename C>
struct Operand {
  std::span<const int> labels;
  std::span<const int64_t> dims;
  const C* data = nullptr;

  int64_t SizeOf(int label) const {
    for (size_t d = 0; d < labels.size(); ++d) {
      if (labels[d] == label) return dims[d];
    }
    return 1;
  }
};

bool Has(std::span<const int> labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

bool Same(std::span<const int> a, std::span<const int> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

SmallVector<int> Concat(std::initializer_list<std::span<const int>> parts) {
  SmallVector<int> out;
  for (std::span<const int> p : parts) {
    for (int label : p) out.push_back(label);
  }
  return out;
}

// A copy of `values` in scratch memory (valid until Compute returns).
template <typename T>
std::span<const T> Keep(KernelContext& ctx, std::span<const T> values) {
  if (values.empty()) return {};
  T* p = ctx.Scratch<T>(values.size());
  std::copy(values.begin(), values.end(), p);
  return {p, values.size()};
}

// The element count of `dims`; fails, naming the node, when it does not fit in size_t.
size_t Count(const KernelInfo& info, std::span<const int64_t> dims) {
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  size_t n = 1;
  for (int64_t d : dims) {
    const auto u = static_cast<size_t>(d);
    if (n > std::numeric_limits<size_t>::max() / u) {
      info.Fail(ErrorCode::kInvalidArgument,
                "an intermediate result of shape " +
                    Shape(std::vector<int64_t>(dims.begin(), dims.end())).ToString() +
                    " is too large");
    }
    n *= u;
  }
  return n;
}

// Calls fn(offset) for the `count` indices of `dims` in row-major order, the offset being
// Σ index·stride.
template <typename F>
void ForEachOffset(std::span<const int64_t> dims, std::span<const size_t> strides, size_t count,
                   F&& fn) {
  SmallVector<int64_t> index(dims.size(), 0);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    fn(offset);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * static_cast<size_t>(dims[d] - 1);
      index[d] = 0;
    }
  }
}

// x laid out with the dimensions `out_labels` (distinct labels of x, in any order): the labels of
// x not listed are summed over, and a label x repeats walks its diagonal.
template <typename C>
Operand<C> Rearrange(KernelContext& ctx, const Operand<C>& x, std::span<const int> out_labels) {
  const KernelInfo& info = ctx.info();
  const SmallVector<size_t> strides = Strides(x.dims);
  // The step along a label is the sum of the strides of its occurrences.
  auto step = [&](int label) {
    size_t s = 0;
    for (size_t d = 0; d < x.labels.size(); ++d) {
      if (x.labels[d] == label) s += strides[d];
    }
    return s;
  };
  SmallVector<int64_t> out_dims;
  SmallVector<size_t> out_steps;
  for (int label : out_labels) {
    out_dims.push_back(x.SizeOf(label));
    out_steps.push_back(step(label));
  }
  SmallVector<int64_t> sum_dims;
  SmallVector<size_t> sum_steps;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    const int label = x.labels[d];
    const bool first = std::find(x.labels.begin(), x.labels.end(), label) ==
                       x.labels.begin() + static_cast<ptrdiff_t>(d);
    if (!first || Has(out_labels, label)) continue;
    sum_dims.push_back(x.dims[d]);
    sum_steps.push_back(step(label));
  }
  Operand<C> out;
  out.labels = Keep(ctx, out_labels);
  out.dims = Keep(ctx, out_dims.span());
  const size_t count = Count(info, out_dims.span());
  if (count == 0) return out;
  // With a non-empty result the summed part is no larger than x.
  const size_t sums = Count(info, sum_dims.span());
  size_t* sum_offsets = sums == 0 ? nullptr : ctx.Scratch<size_t>(sums);
  size_t* next = sum_offsets;
  ForEachOffset(sum_dims.span(), sum_steps.span(), sums, [&](size_t o) { *next++ = o; });
  C* storage = ctx.Scratch<C>(count);
  C* dst = storage;
  ForEachOffset(out_dims.span(), out_steps.span(), count, [&](size_t base) {
    C sum = C(0);
    for (size_t i = 0; i < sums; ++i) sum += x.data[base + sum_offsets[i]];
    *dst++ = sum;
  });
  out.data = storage;
  return out;
}

// The product of x and y summed over their shared labels that `keep` (indexed by label) does not
// hold, with dimensions [shared kept labels (broadcast), x's own labels, y's own labels].
template <typename C>
Operand<C> Contract(KernelContext& ctx, Operand<C> x, Operand<C> y, std::span<const uint8_t> keep) {
  const KernelInfo& info = ctx.info();
  // A label summed here that only one side has, or that one side has with size 1 (broadcast), is
  // summed on each side first: Σ_k x·y_k = x·Σ_k y_k.
  auto contractible = [&](const Operand<C>& self, const Operand<C>& other, int label) {
    return keep[static_cast<size_t>(label)] != 0 ||
           (Has(other.labels, label) && self.SizeOf(label) == other.SizeOf(label));
  };
  SmallVector<int> x_labels;
  SmallVector<int> y_labels;
  for (int label : x.labels) {
    if (contractible(x, y, label)) x_labels.push_back(label);
  }
  for (int label : y.labels) {
    if (contractible(y, x, label)) y_labels.push_back(label);
  }
  if (!Same(x_labels.span(), x.labels)) x = Rearrange(ctx, x, x_labels.span());
  if (!Same(y_labels.span(), y.labels)) y = Rearrange(ctx, y, y_labels.span());

  SmallVector<int> batch;
  SmallVector<int> depth;
  SmallVector<int> rows;
  SmallVector<int> cols;
  for (int label : x.labels) {
    if (!Has(y.labels, label)) {
      rows.push_back(label);
    } else if (keep[static_cast<size_t>(label)] != 0) {
      batch.push_back(label);
    } else {
      depth.push_back(label);
    }
  }
  for (int label : y.labels) {
    if (!Has(x.labels, label)) cols.push_back(label);
  }
  // Use the operands as they lie when they already are [batch, rows, depth] and
  // [batch, depth, cols] or either's transpose; otherwise copy them into that order.
  bool trans_a = false;
  bool trans_b = false;
  const SmallVector<int> x_order = Concat({batch.span(), rows.span(), depth.span()});
  const SmallVector<int> y_order = Concat({batch.span(), depth.span(), cols.span()});
  if (Same(x.labels, Concat({batch.span(), depth.span(), rows.span()}).span()) && !depth.empty() &&
      !rows.empty()) {
    trans_a = true;
  } else if (!Same(x.labels, x_order.span())) {
    x = Rearrange(ctx, x, x_order.span());
  }
  if (Same(y.labels, Concat({batch.span(), cols.span(), depth.span()}).span()) && !depth.empty() &&
      !cols.empty()) {
    trans_b = true;
  } else if (!Same(y.labels, y_order.span())) {
    y = Rearrange(ctx, y, y_order.span());
  }

  SmallVector<int64_t> x_batch;
  SmallVector<int64_t> y_batch;
  for (int label : batch) {
    x_batch.push_back(x.SizeOf(label));
    y_batch.push_back(y.SizeOf(label));
  }
  SmallVector<int64_t> out_dims;
  BroadcastDims(x_batch.span(), y_batch.span(), &out_dims);
  size_t m = 1;
  size_t n = 1;
  size_t k = 1;
  for (int label : rows) {
    m *= static_cast<size_t>(x.SizeOf(label));
    out_dims.push_back(x.SizeOf(label));
  }
  for (int label : cols) {
    n *= static_cast<size_t>(y.SizeOf(label));
    out_dims.push_back(y.SizeOf(label));
  }
  for (int label : depth) k *= static_cast<size_t>(x.SizeOf(label));
  Operand<C> out;
  out.labels = Keep(ctx, Concat({batch.span(), rows.span(), cols.span()}).span());
  out.dims = Keep(ctx, out_dims.span());
  const size_t count = Count(info, out_dims.span());
  if (count == 0) return out;
  // With a non-empty result, the batch count (at most the result's size) fits.
  const std::span<const int64_t> out_batch = out_dims.span().first(batch.size());
  const size_t batches = Count(info, out_batch);
  size_t* a_offsets = ctx.Scratch<size_t>(batches);
  size_t* b_offsets = ctx.Scratch<size_t>(batches);
  BroadcastOffsetsInto(x_batch.span(), out_batch, a_offsets);
  BroadcastOffsetsInto(y_batch.span(), out_batch, b_offsets);
  for (size_t i = 0; i < batches; ++i) {
    a_offsets[i] *= m * k;
    b_offsets[i] *= k * n;
  }
  C* storage = ctx.Scratch<C>(count);
  BatchedMatMul<C>(trans_a, trans_b, m, n, k, x.data, {a_offsets, batches}, y.data,
                   {b_offsets, batches}, storage, ctx.threads());
  out.data = storage;
  return out;
}

// Evaluates the bound equation over inputs of element type T in compute type C and writes the
// output.
template <typename T, typename C>
void Evaluate(KernelContext& ctx, const EinsumLabels& labels, DataType type) {
  const size_t count = labels.operand_count();
  SmallVector<Operand<C>> ops(count);
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = ctx.Input(i);
    Operand<C>& op = ops[i];
    op.labels = labels.input(i);
    op.dims = t.shape().dims();
    const T* p = static_cast<const T*>(t.data());
    if constexpr (std::is_same_v<T, C>) {
      op.data = p;
    } else {
      const size_t n = t.element_count();
      C* storage = n == 0 ? nullptr : ctx.Scratch<C>(n);
      for (size_t e = 0; e < n; ++e) {
        if constexpr (kIsHalf<T>) {
          storage[e] = p[e].ToFloat();
        } else {
          // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 is numeric; sign extension meant.
          storage[e] = static_cast<C>(p[e]);
        }
      }
      op.data = storage;
    }
  }

  // Each operand keeps, once each, the labels the output or another operand has.
  for (size_t i = 0; i < count; ++i) {
    SmallVector<int> needed;
    for (int label : ops[i].labels) {
      if (Has(needed.span(), label)) continue;
      bool elsewhere = Has(labels.output.span(), label);
      for (size_t j = 0; j < count && !elsewhere; ++j)
        elsewhere = j != i && Has(ops[j].labels, label);
      if (elsewhere) needed.push_back(label);
    }
    if (!Same(needed.span(), ops[i].labels)) ops[i] = Rearrange(ctx, ops[i], needed.span());
  }

  Operand<C> result = ops[0];
  for (size_t i = 1; i < count; ++i) {
    SmallVector<uint8_t, 64> keep(labels.sizes.size(), 0);
    for (int label : labels.output) keep[static_cast<size_t>(label)] = 1;
    for (size_t j = i + 1; j < count; ++j) {
      for (int label : ops[j].labels) keep[static_cast<size_t>(label)] = 1;
    }
    result = Contract(ctx, result, ops[i], keep.span());
  }
  if (!Same(result.labels, labels.output.span())) {
    result = Rearrange(ctx, result, labels.output.span());
  }

  Tensor& y = ctx.Output(0, type, result.dims);
  T* out = static_cast<T*>(y.data());
  for (size_t e = 0; e < y.element_count(); ++e) {
    if constexpr (kIsHalf<T>) {
      out[e] = T::FromFloat(result.data[e]);
    } else {
      out[e] = static_cast<T>(result.data[e]);
    }
  }
}

class Einsum final : public Kernel {
 public:
  explicit Einsum(const KernelInfo& info)
      : equation_(ParseEinsum(info, RequireEquation(info), info.input_count())) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const DataType type = ctx.Input(0).type();
    SmallVector<std::span<const int64_t>> dims;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const Tensor& t = ctx.Input(i);
      if (t.type() != type) {
        info.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is " +
                                                   DataTypeName(t.type()) + " but input 0 is " +
                                                   DataTypeName(type));
      }
      dims.push_back(t.shape().dims());
    }
    const EinsumLabels labels = BindEinsum(info, equation_, dims.span());
    Dispatch<float, double, Float16, BFloat16, KILN_INT_TYPES>(type, info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = std::conditional_t<kIsHalf<T>, float,
                                   std::conditional_t<std::is_integral_v<T>, WrapType<T>, T>>;
      Evaluate<T, C>(ctx, labels, type);
    });
  }

 private:
  static std::string RequireEquation(const KernelInfo& info) {
    if (!info.HasAttribute("equation")) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'equation' is required");
    }
    return info.GetString("equation", "");
  }

  EinsumEquation equation_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEinsum(const KernelInfo& info) {
  return Make<Einsum>(info);
}

}  // namespace kiln::cpu
