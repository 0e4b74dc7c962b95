// Optional (opset 15), OptionalHasElement and OptionalGetElement (opsets 15 and 18).
// Optional wraps a tensor (copied) or a sequence (shared), or makes an empty optional whose type
// comes from the node's declared output type: the loader keeps a TypeProto attribute ('type') as
// its attribute type only, without its content. The other two also take a plain tensor or
// sequence (declared from opset 18, accepted at every opset); OptionalHasElement 18 also takes a
// missing input (false).
#include <memory>
#include <string>
#include <utility>

#include "ir/graph.h"
#include "kernels/cpu/sequence/sequence_kernels.h"
#include "kernels/registry.h"

namespace kiln::cpu {
namespace {

class Optional final : public Kernel {
 public:
  explicit Optional(const KernelInfo& info) {
    if (info.HasInput(0)) return;
    // Empty: the content's kind and element type from the output's declared type
    // optional(tensor(T)) or optional(seq(tensor(T))).
    const ir::Value* out = info.HasOutput(0) ? info.node().outputs()[0] : nullptr;
    const ir::TypeInfo* content = nullptr;
    if (out != nullptr && out->type().kind == ir::ValueKind::kOptional) {
      content = out->type().contained.get();
    }
    if (content != nullptr && content->kind == ir::ValueKind::kTensor) {
      contained_ = Value::Kind::kTensor;
    } else if (content != nullptr && content->kind == ir::ValueKind::kSequence) {
      contained_ = Value::Kind::kSequence;
    } else {
      info.Fail(ErrorCode::kNotImplemented,
                "an Optional without input takes its type from attribute 'type' (a TypeProto), "
                "which the loader does not keep, and the output's type is not declared "
                "(value_info or graph output) to stand in for it");
    }
    elem_ = content->elem;
  }

  void Compute(KernelContext& ctx) const override {
    switch (InputKind(ctx, 0)) {
      case Value::Kind::kNone:
        ctx.SetOutputValue(0, Value::EmptyOptional(contained_, elem_));
        return;
      case Value::Kind::kTensor:
        ctx.SetOutputValue(0, Value::OptionalOf(Value(OwnedCopy(*ctx.OptionalInput(0)))));
        return;
      case Value::Kind::kSequence:
        ctx.SetOutputValue(0, Value::OptionalOf(*ctx.InputValue(0)));
        return;
      case Value::Kind::kOptional:
        break;
    }
    ctx.info().Fail(ErrorCode::kInvalidArgument,
                    "input 0 must be a tensor or a sequence, not " + InputTypeText(ctx, 0));
  }

 private:
  Value::Kind contained_ = Value::Kind::kNone;
  DataType elem_ = DataType::kUndefined;
};

// Opsets 15-17 declare an optional input, 18 also a plain tensor or sequence. A plain value is
// taken at every opset: ONNX's own test_loop16_seq_none (opset 16) feeds a Loop's carried
// sequence back into the optional(seq) body input that these ops read.
void RequireInput(const KernelContext& ctx, Value::Kind kind) {
  if (kind == Value::Kind::kNone) {
    ctx.info().Fail(ErrorCode::kInvalidArgument, "input 0 is required");
  }
}

class OptionalHasElement final : public Kernel {
 public:
  explicit OptionalHasElement(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Value::Kind kind = InputKind(ctx, 0);
    if (ctx.info().opset() < 18) RequireInput(ctx, kind);  // 18: a missing input is empty
    bool has = kind == Value::Kind::kTensor || kind == Value::Kind::kSequence;
    if (kind == Value::Kind::kOptional) has = ctx.InputValue(0)->has_value();
    Tensor& y = ctx.Output(0, DataType::kBool, std::span<const int64_t>());
    *static_cast<uint8_t*>(y.data()) = has ? 1 : 0;
  }
};

class OptionalGetElement final : public Kernel {
 public:
  explicit OptionalGetElement(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Value::Kind kind = InputKind(ctx, 0);
    RequireInput(ctx, kind);
    if (kind == Value::Kind::kTensor) {
      const Tensor& x = *ctx.OptionalInput(0);
      CopyInto(x, ctx.Output(0, x.type(), x.shape()));
      return;
    }
    const Value& v = *ctx.InputValue(0);
    if (kind == Value::Kind::kSequence) {
      ctx.SetOutputValue(0, v);
      return;
    }
    if (!v.has_value()) {
      ctx.info().Fail(ErrorCode::kInvalidArgument, "input 0 is an empty " + v.TypeText());
    }
    ctx.SetOutputValue(0, v.Content());  // shared: an optional's content never changes
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeOptional(const KernelInfo& info) {
  return Make<Optional>(info);
}
std::unique_ptr<Kernel> MakeOptionalHasElement(const KernelInfo& info) {
  return Make<OptionalHasElement>(info);
}
std::unique_ptr<Kernel> MakeOptionalGetElement(const KernelInfo& info) {
  return Make<OptionalGetElement>(info);
}

}  // namespace kiln::cpu
