// MatMul (opsets 1–23), numpy.matmul semantics: a 1-D A is promoted to a row and a 1-D B to a
// column, the added dimension is dropped from the result, and the batch dimensions (all but the
// last two) broadcast. Types: float, double, int32, int64, uint32, uint64 (integers wrap),
// Float16 and BFloat16 through float.
#include <string>
#include <vector>

#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

struct MatMulPlan {
  size_t m = 0;
  size_t n = 0;
  size_t k = 0;
  std::vector<int64_t> a_batch;  // A's dimensions before its last two (after promotion)
  std::vector<int64_t> b_batch;
  std::vector<int64_t> batch;  // the two broadcast
  std::vector<int64_t> out_dims;

  // Where each batch's matrix starts in A and B. Called once the output is known to be non-empty,
  // so the batch count (at most the output's element count) fits. When B is one matrix, A's
  // batches are consecutive rows of one tall product instead.
  void Layout(std::vector<size_t>* a_offsets, std::vector<size_t>* b_offsets) {
    if (b_batch.empty()) {
      for (int64_t d : a_batch) m *= static_cast<size_t>(d);
      *a_offsets = {0};
      *b_offsets = {0};
      return;
    }
    *a_offsets = BroadcastOffsets(a_batch, batch);
    *b_offsets = BroadcastOffsets(b_batch, batch);
    for (size_t& o : *a_offsets) o *= m * k;
    for (size_t& o : *b_offsets) o *= k * n;
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
  std::vector<int64_t> a = a_shape.dims();
  std::vector<int64_t> b = b_shape.dims();
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (a.back() != b[b.size() - 2]) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + ": the last dimension of A (" + std::to_string(a.back()) +
                  ") must equal the " + (b_vector ? "only" : "second-to-last") +
                  " dimension of B (" + std::to_string(b[b.size() - 2]) + ")");
  }
  const std::vector<int64_t> a_batch(a.begin(), a.end() - 2);
  const std::vector<int64_t> b_batch(b.begin(), b.end() - 2);
  std::vector<int64_t> batch;
  if (!BroadcastDims(a_batch, b_batch, &batch)) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + ": the batch dimensions (all but the last two) do not broadcast");
  }

  MatMulPlan plan;
  plan.m = static_cast<size_t>(a[a.size() - 2]);
  plan.k = static_cast<size_t>(a.back());
  plan.n = static_cast<size_t>(b.back());
  plan.a_batch = a_batch;
  plan.b_batch = b_batch;
  plan.batch = batch;
  plan.out_dims = batch;
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
    Tensor& y = ctx.Output(0, a.type(), Shape(plan.out_dims));
    if (y.element_count() == 0) return;
    std::vector<size_t> a_offsets;
    std::vector<size_t> b_offsets;
    plan.Layout(&a_offsets, &b_offsets);
    Dispatch<float, double, int32_t, int64_t, uint32_t, uint64_t, Float16, BFloat16>(
        a.type(), info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (kIsHalf<T>) {
            const std::vector<float> af =
                ToFloats(static_cast<const T*>(a.data()), a.element_count());
            const std::vector<float> bf =
                ToFloats(static_cast<const T*>(b.data()), b.element_count());
            std::vector<float> yf(y.element_count());
            BatchedMatMul<float>(false, false, plan.m, plan.n, plan.k, af.data(), a_offsets,
                                 bf.data(), b_offsets, yf.data(), ctx.threads());
            FromFloats(yf.data(), yf.size(), static_cast<T*>(y.data()));
          } else {
            BatchedMatMul<T>(false, false, plan.m, plan.n, plan.k, static_cast<const T*>(a.data()),
                             a_offsets, static_cast<const T*>(b.data()), b_offsets,
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
