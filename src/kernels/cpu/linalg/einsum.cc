// Einsum (opsets 12–23): any equation — implicit or explicit output, "..." with broadcasting,
// repeated labels (diagonals, traces), sums over labels the output drops, any number of operands.
// Each operand first sums the labels only it has and takes its diagonals; the operands are then
// contracted left to right, each pair as one batched matrix product through cpu::Gemm (no copy
// when the operands are already laid out as [batch, rows, depth] or its transposes, as in
// "bij,bjk->bik" or "bhqd,bhkd->bhqk"); the result is permuted to the output order. Types: float
// and double; Float16 and BFloat16 through float; the integer types with wrapping arithmetic.
#include <algorithm>
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

// A tensor in the compute type C with a label per dimension. `data` points into `storage`, or at
// an input tensor that is already of type C.
template <typename C>
struct Operand {
  std::vector<int> labels;
  std::vector<int64_t> dims;
  std::vector<C> storage;
  const C* data = nullptr;

  Operand() = default;
  Operand(Operand&&) noexcept = default;
  Operand& operator=(Operand&&) noexcept = default;
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;

  int64_t SizeOf(int label) const {
    for (size_t d = 0; d < labels.size(); ++d) {
      if (labels[d] == label) return dims[d];
    }
    return 1;
  }
};

bool Has(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

std::vector<int> Concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> out;
  for (const std::vector<int>* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// The element count of `dims`; fails, naming the node, when it does not fit in size_t.
size_t Count(const KernelInfo& info, const std::vector<int64_t>& dims) {
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  size_t n = 1;
  for (int64_t d : dims) {
    const auto u = static_cast<size_t>(d);
    if (n > std::numeric_limits<size_t>::max() / u) {
      info.Fail(ErrorCode::kInvalidArgument,
                "an intermediate result of shape " + Shape(dims).ToString() + " is too large");
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
Operand<C> Rearrange(const KernelInfo& info, const Operand<C>& x,
                     const std::vector<int>& out_labels) {
  const SmallVector<size_t> strides = Strides(x.dims);
  // The step along a label is the sum of the strides of its occurrences.
  auto step = [&](int label) {
    size_t s = 0;
    for (size_t d = 0; d < x.labels.size(); ++d) {
      if (x.labels[d] == label) s += strides[d];
    }
    return s;
  };
  std::vector<int64_t> out_dims;
  std::vector<size_t> out_steps;
  for (int label : out_labels) {
    out_dims.push_back(x.SizeOf(label));
    out_steps.push_back(step(label));
  }
  std::vector<int64_t> sum_dims;
  std::vector<size_t> sum_steps;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    const int label = x.labels[d];
    const bool first = std::find(x.labels.begin(), x.labels.end(), label) ==
                       x.labels.begin() + static_cast<ptrdiff_t>(d);
    if (!first || Has(out_labels, label)) continue;
    sum_dims.push_back(x.dims[d]);
    sum_steps.push_back(step(label));
  }
  Operand<C> out;
  out.labels = out_labels;
  out.dims = out_dims;
  const size_t count = Count(info, out_dims);
  if (count == 0) return out;
  // With a non-empty result the summed part is no larger than x.
  std::vector<size_t> sum_offsets;
  ForEachOffset(sum_dims, sum_steps, Count(info, sum_dims),
                [&](size_t o) { sum_offsets.push_back(o); });
  out.storage.resize(count);
  C* dst = out.storage.data();
  ForEachOffset(out_dims, out_steps, count, [&](size_t base) {
    C sum = C(0);
    for (size_t o : sum_offsets) sum += x.data[base + o];
    *dst++ = sum;
  });
  out.data = out.storage.data();
  return out;
}

// The product of x and y summed over their shared labels that `keep` (indexed by label) does not
// hold, with dimensions [shared kept labels (broadcast), x's own labels, y's own labels].
template <typename C>
Operand<C> Contract(const KernelInfo& info, Operand<C> x, Operand<C> y,
                    const std::vector<bool>& keep, ThreadPool& pool) {
  // A label summed here that only one side has, or that one side has with size 1 (broadcast), is
  // summed on each side first: Σ_k x·y_k = x·Σ_k y_k.
  auto contractible = [&](const Operand<C>& self, const Operand<C>& other, int label) {
    return keep[static_cast<size_t>(label)] ||
           (Has(other.labels, label) && self.SizeOf(label) == other.SizeOf(label));
  };
  std::vector<int> x_labels;
  std::vector<int> y_labels;
  for (int label : x.labels) {
    if (contractible(x, y, label)) x_labels.push_back(label);
  }
  for (int label : y.labels) {
    if (contractible(y, x, label)) y_labels.push_back(label);
  }
  if (x_labels != x.labels) x = Rearrange(info, x, x_labels);
  if (y_labels != y.labels) y = Rearrange(info, y, y_labels);

  std::vector<int> batch;
  std::vector<int> depth;
  std::vector<int> rows;
  std::vector<int> cols;
  for (int label : x.labels) {
    if (!Has(y.labels, label)) {
      rows.push_back(label);
    } else if (keep[static_cast<size_t>(label)]) {
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
  if (x.labels == Concat({&batch, &depth, &rows}) && !depth.empty() && !rows.empty()) {
    trans_a = true;
  } else if (x.labels != Concat({&batch, &rows, &depth})) {
    x = Rearrange(info, x, Concat({&batch, &rows, &depth}));
  }
  if (y.labels == Concat({&batch, &cols, &depth}) && !depth.empty() && !cols.empty()) {
    trans_b = true;
  } else if (y.labels != Concat({&batch, &depth, &cols})) {
    y = Rearrange(info, y, Concat({&batch, &depth, &cols}));
  }

  std::vector<int64_t> x_batch;
  std::vector<int64_t> y_batch;
  for (int label : batch) {
    x_batch.push_back(x.SizeOf(label));
    y_batch.push_back(y.SizeOf(label));
  }
  Operand<C> out;
  out.labels = Concat({&batch, &rows, &cols});
  SmallVector<int64_t> out_batch_dims;
  BroadcastDims(x_batch, y_batch, &out_batch_dims);
  out.dims = out_batch_dims.ToVector();
  size_t m = 1;
  size_t n = 1;
  size_t k = 1;
  for (int label : rows) {
    m *= static_cast<size_t>(x.SizeOf(label));
    out.dims.push_back(x.SizeOf(label));
  }
  for (int label : cols) {
    n *= static_cast<size_t>(y.SizeOf(label));
    out.dims.push_back(y.SizeOf(label));
  }
  for (int label : depth) k *= static_cast<size_t>(x.SizeOf(label));
  const size_t count = Count(info, out.dims);
  if (count == 0) return out;
  // With a non-empty result, the batch count (at most the result's size) fits.
  const std::vector<int64_t> out_batch(out.dims.begin(),
                                       out.dims.begin() + static_cast<ptrdiff_t>(batch.size()));
  std::vector<size_t> a_offsets = BroadcastOffsets(x_batch, out_batch);
  std::vector<size_t> b_offsets = BroadcastOffsets(y_batch, out_batch);
  for (size_t& o : a_offsets) o *= m * k;
  for (size_t& o : b_offsets) o *= k * n;
  out.storage.resize(count);
  BatchedMatMul<C>(trans_a, trans_b, m, n, k, x.data, a_offsets, y.data, b_offsets,
                   out.storage.data(), pool);
  out.data = out.storage.data();
  return out;
}

// Evaluates the bound equation over inputs of element type T in compute type C and writes the
// output.
template <typename T, typename C>
void Evaluate(KernelContext& ctx, const EinsumLabels& labels, DataType type) {
  const size_t count = labels.inputs.size();
  std::vector<Operand<C>> ops(count);
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = ctx.Input(i);
    Operand<C>& op = ops[i];
    op.labels = labels.inputs[i];
    op.dims = t.shape().dims();
    const T* p = static_cast<const T*>(t.data());
    if constexpr (std::is_same_v<T, C>) {
      op.data = p;
    } else {
      op.storage.resize(t.element_count());
      for (size_t e = 0; e < op.storage.size(); ++e) {
        if constexpr (kIsHalf<T>) {
          op.storage[e] = p[e].ToFloat();
        } else {
          // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 is numeric; sign extension meant.
          op.storage[e] = static_cast<C>(p[e]);
        }
      }
      op.data = op.storage.data();
    }
  }

  // Each operand keeps, once each, the labels the output or another operand has.
  for (size_t i = 0; i < count; ++i) {
    std::vector<int> needed;
    for (int label : ops[i].labels) {
      if (Has(needed, label)) continue;
      bool elsewhere = Has(labels.output, label);
      for (size_t j = 0; j < count && !elsewhere; ++j)
        elsewhere = j != i && Has(ops[j].labels, label);
      if (elsewhere) needed.push_back(label);
    }
    if (needed != ops[i].labels) ops[i] = Rearrange(ctx.info(), ops[i], needed);
  }

  Operand<C> result = std::move(ops[0]);
  for (size_t i = 1; i < count; ++i) {
    std::vector<bool> keep(labels.sizes.size(), false);
    for (int label : labels.output) keep[static_cast<size_t>(label)] = true;
    for (size_t j = i + 1; j < count; ++j) {
      for (int label : ops[j].labels) keep[static_cast<size_t>(label)] = true;
    }
    result = Contract(ctx.info(), std::move(result), std::move(ops[i]), keep, ctx.threads());
  }
  if (result.labels != labels.output) result = Rearrange(ctx.info(), result, labels.output);

  Tensor& y = ctx.Output(0, type, Shape(result.dims));
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
    std::vector<std::vector<int64_t>> dims;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const Tensor& t = ctx.Input(i);
      if (t.type() != type) {
        info.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is " +
                                                   DataTypeName(t.type()) + " but input 0 is " +
                                                   DataTypeName(type));
      }
      dims.push_back(t.shape().dims());
    }
    const EinsumLabels labels = BindEinsum(info, equation_, dims);
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
