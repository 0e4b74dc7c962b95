// Ops that keep or reorder slices by a data input:
//   Compress 9–23: the slices along `axis` (without it, the elements of the flattened input)
//     whose condition entry is true; a condition shorter than the axis counts as false beyond
//     its end, a true entry past the axis is an error. The output size depends on the data.
//   ReverseSequence 10–23: for each batch entry b, the first sequence_lens[b] steps along
//     `time_axis` reversed and the rest copied (time_axis and batch_axis are 0 and 1).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Compress final : public Kernel {
 public:
  explicit Compress(const KernelInfo& info)
      : has_axis_(info.HasAttribute("axis")), axis_(info.GetInt("axis", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& condition = ctx.Input(1);
    if (condition.type() != DataType::kBool || condition.shape().rank() != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'condition' must be a 1-D bool tensor, not " +
                                                 std::string(DataTypeName(condition.type())) + " " +
                                                 condition.shape().ToString());
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    size_t axis = 0, length = x.element_count(), outer = 1, inner = 1;
    if (has_axis_) {
      if (dims.empty()) info.Fail(ErrorCode::kInvalidArgument, "attribute 'axis' needs rank >= 1");
      axis = NormalizeAxis(info, axis_, dims.size());
      length = static_cast<size_t>(dims[axis]);
      outer = Product(dims, 0, axis);
      inner = Product(dims, axis + 1, dims.size());
    }
    const auto* keep = static_cast<const bool*>(condition.data());
    const size_t entries = condition.element_count();
    size_t kept = 0;
    for (size_t i = 0; i < entries; ++i) {
      if (!keep[i]) continue;
      if (i >= length) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'condition' selects entry " +
                                                   std::to_string(i) + " of an axis of " +
                                                   std::to_string(length));
      }
      ++kept;
    }
    SmallVector<int64_t> y_dims{static_cast<int64_t>(kept)};
    if (has_axis_) {
      y_dims.assign(dims.begin(), dims.end());
      y_dims[axis] = static_cast<int64_t>(kept);
    }
    Tensor& y = ctx.Output(0, x.type(), y_dims.span());
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < entries && i < length; ++i) {
          if (!keep[i]) continue;
          const E* from = src + (o * length + i) * inner;
          for (size_t k = 0; k < inner; ++k) *dst++ = from[k];
        }
      }
    });
  }

 private:
  bool has_axis_;
  int64_t axis_;
};

class ReverseSequence final : public Kernel {
 public:
  explicit ReverseSequence(const KernelInfo& info)
      : batch_axis_(info.GetInt("batch_axis", 1)), time_axis_(info.GetInt("time_axis", 0)) {
    if (!((batch_axis_ == 0 && time_axis_ == 1) || (batch_axis_ == 1 && time_axis_ == 0))) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'batch_axis' (" +
                                              std::to_string(batch_axis_) + ") and 'time_axis' (" +
                                              std::to_string(time_axis_) + ") must be 0 and 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& lens = ctx.Input(1);
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.size() < 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' must have rank >= 2, not shape " + x.shape().ToString());
    }
    const auto batch = static_cast<size_t>(dims[static_cast<size_t>(batch_axis_)]);
    const auto steps = static_cast<size_t>(dims[static_cast<size_t>(time_axis_)]);
    if (lens.type() != DataType::kInt64 || lens.shape().rank() != 1 ||
        lens.element_count() != batch) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'sequence_lens' must be int64 of shape [" + std::to_string(batch) +
                    "], not " + DataTypeName(lens.type()) + " " + lens.shape().ToString());
    }
    const auto* len = static_cast<const int64_t*>(lens.data());
    for (size_t b = 0; b < batch; ++b) {
      if (len[b] < 0 || static_cast<size_t>(len[b]) > steps) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'sequence_lens' entry " + std::to_string(b) +
                                                   " is " + std::to_string(len[b]) +
                                                   ", outside [0, " + std::to_string(steps) + "]");
      }
    }
    const size_t inner = Product(dims, 2, dims.size());
    Tensor& y = x.type() == DataType::kString ? ctx.Output(0, x.type(), x.shape())
                                              : ctx.OutputForOverwrite(0, x.type(), x.shape());
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      // Element (t, b, k) lies at ((t*batch + b) or (b*steps + t)) * inner + k.
      auto offset = [&](size_t t, size_t b) {
        return (time_axis_ == 0 ? t * batch + b : b * steps + t) * inner;
      };
      for (size_t b = 0; b < batch; ++b) {
        const auto n = static_cast<size_t>(len[b]);
        for (size_t t = 0; t < steps; ++t) {
          const size_t from = t < n ? n - 1 - t : t;
          std::copy_n(src + offset(from, b), inner, dst + offset(t, b));
        }
      }
    });
  }

 private:
  int64_t batch_axis_;
  int64_t time_axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCompress(const KernelInfo& info) {
  return Make<Compress>(info);
}
std::unique_ptr<Kernel> MakeReverseSequence(const KernelInfo& info) {
  return Make<ReverseSequence>(info);
}

}  // namespace kiln::cpu
