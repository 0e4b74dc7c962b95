// SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase, SequenceLength
// (opset 11 onwards): make and take apart seq(tensor(T)) values, every element type. Tensors
// put into a sequence are copied; tensors taken from one are shared (sequences are immutable).
#include <memory>
#include <string>
#include <utility>

#include "kernels/cpu/sequence/sequence_kernels.h"
#include "kernels/registry.h"

namespace kiln::cpu {
namespace {

std::string TensorText(DataType type) {
  return std::string("tensor(") + DataTypeName(type) + ")";
}

// Input i as a tensor; "input i must be a tensor, not seq(…)" otherwise.
const Tensor& TensorInput(const KernelContext& ctx, size_t i) {
  const Tensor* t = ctx.OptionalInput(i);
  if (t == nullptr && InputKind(ctx, i) == Value::Kind::kNone) {
    ctx.info().Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is required");
  }
  if (t == nullptr) {
    ctx.info().Fail(
        ErrorCode::kInvalidArgument,
        "input " + std::to_string(i) + " must be a tensor, not " + InputTypeText(ctx, i));
  }
  return *t;
}

class SequenceEmpty final : public Kernel {
 public:
  explicit SequenceEmpty(const KernelInfo& info) {
    const int64_t dtype = info.GetInt("dtype", static_cast<int64_t>(DataType::kFloat));
    if (dtype <= 0 || dtype > INT32_MAX || !IsKnownDataType(static_cast<int32_t>(dtype))) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'dtype' " + std::to_string(dtype) + " is not a known element type");
    }
    type_ = static_cast<DataType>(dtype);
  }
  void Compute(KernelContext& ctx) const override {
    auto seq = std::make_shared<TensorSequence>();
    seq->elem_type = type_;
    ctx.SetOutputValue(0, Value::FromSequence(std::move(seq)));
  }

 private:
  DataType type_ = DataType::kFloat;
};

class SequenceConstruct final : public Kernel {
 public:
  explicit SequenceConstruct(const KernelInfo& info) {
    if (info.input_count() == 0) info.Fail(ErrorCode::kInvalidGraph, "needs at least one input");
  }
  void Compute(KernelContext& ctx) const override {
    auto seq = std::make_shared<TensorSequence>();
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const Tensor& t = TensorInput(ctx, i);
      if (i == 0) {
        seq->elem_type = t.type();
      } else if (t.type() != seq->elem_type) {
        ctx.info().Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is " +
                                                         TensorText(t.type()) + ", input 0 " +
                                                         TensorText(seq->elem_type) +
                                                         ": a sequence holds one element type");
      }
      seq->tensors.push_back(OwnedCopy(t));
    }
    ctx.SetOutputValue(0, Value::FromSequence(std::move(seq)));
  }
};

class SequenceInsert final : public Kernel {
 public:
  explicit SequenceInsert(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const TensorSequence& in = *SequenceInput(ctx, 0);
    const Tensor& t = TensorInput(ctx, 1);
    if (in.elem_type != DataType::kUndefined && t.type() != in.elem_type) {
      ctx.info().Fail(ErrorCode::kInvalidArgument, "input 1 is " + TensorText(t.type()) +
                                                       " but the sequence holds " +
                                                       TensorText(in.elem_type));
    }
    const size_t n = in.tensors.size();
    size_t at = n;
    if (std::optional<int64_t> p = PositionInput(ctx, 2)) {
      at = NormalizePosition(ctx.info(), *p, n, /*end_allowed=*/true);
    }
    auto seq = std::make_shared<TensorSequence>();
    seq->elem_type = t.type();
    seq->tensors.reserve(n + 1);
    seq->tensors.insert(seq->tensors.end(), in.tensors.begin(),
                        in.tensors.begin() + static_cast<std::ptrdiff_t>(at));
    seq->tensors.push_back(OwnedCopy(t));
    seq->tensors.insert(seq->tensors.end(), in.tensors.begin() + static_cast<std::ptrdiff_t>(at),
                        in.tensors.end());
    ctx.SetOutputValue(0, Value::FromSequence(std::move(seq)));
  }
};

class SequenceAt final : public Kernel {
 public:
  explicit SequenceAt(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const TensorSequence& in = *SequenceInput(ctx, 0);
    std::optional<int64_t> p = PositionInput(ctx, 1);
    if (!p) ctx.info().Fail(ErrorCode::kInvalidArgument, "input 1 ('position') is required");
    const size_t at = NormalizePosition(ctx.info(), *p, in.tensors.size(), false);
    ctx.SetOutputValue(0, Value(in.tensors[at]));  // shared: a sequence's tensors never change
  }
};

class SequenceErase final : public Kernel {
 public:
  explicit SequenceErase(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const TensorSequence& in = *SequenceInput(ctx, 0);
    const size_t n = in.tensors.size();
    std::optional<int64_t> p = PositionInput(ctx, 1);
    if (!p && n == 0) {
      ctx.info().Fail(ErrorCode::kInvalidArgument, "cannot erase from an empty sequence");
    }
    const size_t at = p ? NormalizePosition(ctx.info(), *p, n, false) : n - 1;
    auto seq = std::make_shared<TensorSequence>();
    seq->elem_type = in.elem_type;
    seq->tensors.reserve(n - 1);
    for (size_t i = 0; i < n; ++i) {
      if (i != at) seq->tensors.push_back(in.tensors[i]);
    }
    ctx.SetOutputValue(0, Value::FromSequence(std::move(seq)));
  }
};

class SequenceLength final : public Kernel {
 public:
  explicit SequenceLength(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const TensorSequence& in = *SequenceInput(ctx, 0);
    Tensor& y = ctx.Output(0, DataType::kInt64, std::span<const int64_t>());
    *static_cast<int64_t*>(y.data()) = static_cast<int64_t>(in.tensors.size());
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSequenceEmpty(const KernelInfo& info) {
  return Make<SequenceEmpty>(info);
}
std::unique_ptr<Kernel> MakeSequenceConstruct(const KernelInfo& info) {
  return Make<SequenceConstruct>(info);
}
std::unique_ptr<Kernel> MakeSequenceInsert(const KernelInfo& info) {
  return Make<SequenceInsert>(info);
}
std::unique_ptr<Kernel> MakeSequenceAt(const KernelInfo& info) {
  return Make<SequenceAt>(info);
}
std::unique_ptr<Kernel> MakeSequenceErase(const KernelInfo& info) {
  return Make<SequenceErase>(info);
}
std::unique_ptr<Kernel> MakeSequenceLength(const KernelInfo& info) {
  return Make<SequenceLength>(info);
}

}  // namespace kiln::cpu
