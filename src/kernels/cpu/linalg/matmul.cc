// MatMul (opsets 1–23), numpy.matmul semantics: a 1-D A is promoted to a row and a 1-D B to a
// column, the added dimension is dropped from the result, and the batch dimensions (all but the
// last two) broadcast. Types: float, double, int32, int64, uint32, uint64 (integers wrap),
// Float16 and BFloat16 through float.
#include <span>
#include <string>

#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

struct MatMulPlan {
  size_t m = 0;
  size_t n = 0;
  size_t k = 0;
  SmallVector<int64_t> a_batch;  // A's dimensions before its last two (after promotion)
  SmallVector<int64_t> b_batch;
  SmallVector<int64_t> batch;  // the two broadcast
  SmallVector<int64_t> out_dims;

  // The number of matrix products: one when B is one matrix (A's batches are then consecutive
  // rows of one tall product), else the batch count (at most the output's element count).
  size_t products() const {
    if (b_batch.empty()) return 1;
    size_t count = 1;
    for (int64_t d : batch) count *= static_cast<size_t>(d);
    return count;
  }

  // Where each product's matrix starts in A and B (products() entries each). Called once the
  // output is known to be non-empty, so the batch count fits.
  void Layout(size_t* a_offsets, size_t* b_offsets) {
    if (b_batch.empty()) {
      for (int64_t d : a_batch) m *= static_cast<size_t>(d);
      a_offsets[0] = 0;
      b_offsets[0] = 0;
      return;
    }
    BroadcastOffsetsInto(a_batch.span(), batch.span(), a_offsets);
    BroadcastOffsetsInto(b_batch.span(), batch.span(), b_offsets);
    const size_t count = products();
    for (size_t i = 0; i < count; ++i) {
      a_offsets[i] *= m * k;
      b_offsets[i] *= k * n;
    }
  }
};

MatMulPlan Plan(const KernelInfo& info, const Shape& a_shape, const Shape& b_shape) {
  auto shapes = [&] {
    return "input 'A' has shape " + a_shape.ToString() + " and input 'B' has shape " +
           b_shape.ToString();
  };
  if (a_shape.rank() == 0 || b_shape.rank() == 0) {
    info.Fail(ErrorCode::kInvalidArgument, shapes() + ": MatMul needs operands of rank 1 or more");
  }
  SmallVector<int64_t> a(a_shape.dims());
  SmallVector<int64_t> b(b_shape.dims());
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) a.insert(0, 1);
  if (b_vector) b.push_back(1);
  if (a.back() != b[b.size() - 2]) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + ": the last dimension of A (" + std::to_string(a.back()) +
                  ") must equal the " + (b_vector ? "only" : "second-to-last") +
                  " dimension of B (" + std::to_string(b[b.size() - 2]) + ")");
  }
  MatMulPlan plan;
  plan.a_batch.assign(a.begin(), a.end() - 2);
  plan.b_batch.assign(b.begin(), b.end() - 2);
  if (!BroadcastDims(plan.a_batch.span(), plan.b_batch.span(), &plan.batch)) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + ": the batch dimensions (all but the last two) do not broadcast");
  }
  plan.m = static_cast<size_t>(a[a.size() - 2]);
  plan.k = static_cast<size_t>(a.back());
  plan.n = static_cast<size_t>(b.back());
  plan.out_dims = plan.batch;
  if (!a_vector) plan.out_dims.push_back(a[a.size() - 2]);
  if (!b_vector) plan.out_dims.push_back(b.back());
  return plan;
}

class MatMul final : public Kernel {
 public:
  explicit MatMul(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    if (a.type() != b.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input 'A' is ") + DataTypeName(a.type()) +
                                                 " but input 'B' is " + DataTypeName(b.type()));
    }
    MatMulPlan plan = Plan(info, a.shape(), b.shape());
    Tensor& y = ctx.OutputForOverwrite(0, a.type(), plan.out_dims.span());
    if (y.element_count() == 0) return;
    const size_t products = plan.products();
    size_t* a_offsets = ctx.Scratch<size_t>(products);
    size_t* b_offsets = ctx.Scratch<size_t>(products);
    plan.Layout(a_offsets, b_offsets);
    const std::span<const size_t> a_span(a_offsets, products);
    const std::span<const size_t> b_span(b_offsets, products);
    Dispatch<float, double, int32_t, int64_t, uint32_t, uint64_t, Float16, BFloat16>(
        a.type(), info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (kIsHalf<T>) {
            float* af = ctx.Scratch<float>(a.element_count());
            float* bf = ctx.Scratch<float>(b.element_count());
            float* yf = ctx.Scratch<float>(y.element_count());
            ToFloats(static_cast<const T*>(a.data()), a.element_count(), af);
            ToFloats(static_cast<const T*>(b.data()), b.element_count(), bf);
            BatchedMatMul<float>(false, false, plan.m, plan.n, plan.k, af, a_span, bf, b_span, yf,
                                 ctx.threads());
            FromFloats(yf, y.element_count(), static_cast<T*>(y.data()));
          } else {
            BatchedMatMul<T>(false, false, plan.m, plan.n, plan.k, static_cast<const T*>(a.data()),
                             a_span, static_cast<const T*>(b.data()), b_span,
                             static_cast<T*>(y.data()), ctx.threads());
          }
        });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMul(const KernelInfo& info) {
  return Make<MatMul>(info);
}

}  // namespace kiln::cpu
