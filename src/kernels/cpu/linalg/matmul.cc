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
  std::vector<int64_t> out_dims;
  std::vector<size_t> a_offsets;  // where each batch's matrix starts, one entry per batch
  std::vector<size_t> b_offsets;
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
  plan.out_dims = batch;
  if (!a_vector) plan.out_dims.push_back(a[a.size() - 2]);
  if (!b_vector) plan.out_dims.push_back(b.back());

  if (b_batch.empty()) {
    // B is one matrix: A's batches are consecutive rows of one tall product.
    for (int64_t d : a_batch) plan.m *= static_cast<size_t>(d);
    plan.a_offsets = {0};
    plan.b_offsets = {0};
    return plan;
  }
  plan.a_offsets = BroadcastOffsets(a_batch, batch);
  plan.b_offsets = BroadcastOffsets(b_batch, batch);
  for (size_t& o : plan.a_offsets) o *= plan.m * plan.k;
  for (size_t& o : plan.b_offsets) o *= plan.k * plan.n;
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
    const MatMulPlan plan = Plan(info, a.shape(), b.shape());
    Tensor& y = ctx.Output(0, a.type(), Shape(plan.out_dims));
    if (y.element_count() == 0) return;
    Dispatch<float, double, int32_t, int64_t, uint32_t, uint64_t, Float16, BFloat16>(
        a.type(), info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (kIsHalf<T>) {
            const std::vector<float> af =
                ToFloats(static_cast<const T*>(a.data()), a.element_count());
            const std::vector<float> bf =
                ToFloats(static_cast<const T*>(b.data()), b.element_count());
            std::vector<float> yf(y.element_count());
            BatchedMatMul<float>(false, false, plan.m, plan.n, plan.k, af.data(), plan.a_offsets,
                                 bf.data(), plan.b_offsets, yf.data(), ctx.threads());
            FromFloats(yf.data(), yf.size(), static_cast<T*>(y.data()));
          } else {
            BatchedMatMul<T>(false, false, plan.m, plan.n, plan.k, static_cast<const T*>(a.data()),
                             plan.a_offsets, static_cast<const T*>(b.data()), plan.b_offsets,
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
