#include <cstring>
#include <string>

#include "kernels/cpu/sequence/sequence_kernels.h"

namespace kiln::cpu {

Value::Kind InputKind(const KernelContext& ctx, size_t i) {
  if (ctx.OptionalInput(i) != nullptr) return Value::Kind::kTensor;
  const Value* v = ctx.InputValue(i);
  return v == nullptr ? Value::Kind::kNone : v->kind();
}

std::string InputTypeText(const KernelContext& ctx, size_t i) {
  if (const Tensor* t = ctx.OptionalInput(i)) {
    return std::string("tensor(") + DataTypeName(t->type()) + ")";
  }
  const Value* v = ctx.InputValue(i);
  return v == nullptr ? std::string("no value") : v->TypeText();
}

const std::shared_ptr<const TensorSequence>& SequenceInput(const KernelContext& ctx, size_t i) {
  const Value* v = ctx.InputValue(i);
  if (ctx.OptionalInput(i) != nullptr || v == nullptr || v->kind() != Value::Kind::kSequence) {
    ctx.info().Fail(
        ErrorCode::kInvalidArgument,
        "input " + std::to_string(i) + " must be a sequence, not " + InputTypeText(ctx, i));
  }
  return v->sequence();
}

std::optional<int64_t> PositionInput(const KernelContext& ctx, size_t i) {
  const Value::Kind kind = InputKind(ctx, i);
  if (kind == Value::Kind::kNone) return std::nullopt;
  const KernelInfo& info = ctx.info();
  if (kind != Value::Kind::kTensor) {
    info.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) +
                                               " ('position') must be a tensor, not " +
                                               InputTypeText(ctx, i));
  }
  const Tensor& t = *ctx.OptionalInput(i);
  if ((t.type() != DataType::kInt64 && t.type() != DataType::kInt32) || t.element_count() != 1) {
    info.Fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) +
                                               " ('position') must be one int32 or int64, not " +
                                               DataTypeName(t.type()) + " " + t.shape().ToString());
  }
  return t.type() == DataType::kInt64 ? *static_cast<const int64_t*>(t.data())
                                      : *static_cast<const int32_t*>(t.data());
}

size_t NormalizePosition(const KernelInfo& info, int64_t position, size_t n, bool end_allowed) {
  const auto len = static_cast<int64_t>(n);
  const int64_t hi = end_allowed ? len : len - 1;
  if (position < -len || position > hi) {
    if (hi < -len) {
      info.Fail(ErrorCode::kInvalidArgument,
                "position " + std::to_string(position) + " is out of range: the sequence is empty");
    }
    info.Fail(ErrorCode::kInvalidArgument, "position " + std::to_string(position) +
                                               " is out of range [" + std::to_string(-len) + ", " +
                                               std::to_string(hi) + "] for a sequence of " +
                                               std::to_string(n) + " tensors");
  }
  return static_cast<size_t>(position < 0 ? position + len : position);
}

std::shared_ptr<const Tensor> OwnedCopy(const Tensor& t) {
  return CopyTensor(t, CpuAllocator());
}

void CopyInto(const Tensor& from, Tensor& to) {
  if (from.type() == DataType::kString) {
    for (size_t i = 0; i < from.element_count(); ++i) to.strings()[i] = from.strings()[i];
  } else if (from.byte_size() != 0) {
    std::memcpy(to.data(), from.data(), from.byte_size());
  }
}

}  // namespace kiln::cpu
