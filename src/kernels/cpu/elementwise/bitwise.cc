// Bit operations:
//   BitShift (11+, direction "LEFT" or "RIGHT"): uint8, uint16, uint32, uint64; a shift by the
//     type's width or more gives 0 (what numpy gives, where C++ leaves it undefined).
//   BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (18+): every integer type.
//   The binary ones broadcast like numpy.
//   BitCast (26+, `to`): reinterprets each element's bits as another type of the same width;
//     strings and sub-byte types are refused.
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/unary_kernel.h"

namespace kiln::cpu {
namespace {

using IntegerTypes =
    TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using UnsignedTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;

struct AndOp {
  using Types = IntegerTypes;
  explicit AndOp(const KernelInfo&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct OrOp {
  using Types = IntegerTypes;
  explicit OrOp(const KernelInfo&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct XorOp {
  using Types = IntegerTypes;
  explicit XorOp(const KernelInfo&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};

class ShiftOp {
 public:
  using Types = UnsignedTypes;
  explicit ShiftOp(const KernelInfo& info) {
    if (!info.HasAttribute("direction")) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'direction' is required");
    }
    const std::string direction = info.GetString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'direction' must be \"LEFT\" or \"RIGHT\", not \"" + direction + "\"");
    }
    left_ = direction == "LEFT";
  }
  template <typename T>
  T operator()(T a, T b) const {
    if (b >= sizeof(T) * 8) return T(0);
    // Promotion to int for narrow types is harmless: the cast keeps the low bits.
    return left_ ? static_cast<T>(a << b) : static_cast<T>(a >> b);
  }

 private:
  bool left_;
};

template <typename Op>
class BitwiseBinary final : public Kernel {
 public:
  explicit BitwiseBinary(const KernelInfo& info) : op_(info) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireSameType(info, a, "A", b, "B");
    const BinaryShapes shapes =
        ResolveBinaryShapes(info, a.shape().dims(), b.shape().dims(), std::nullopt);
    DispatchList(typename Op::Types{}, a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, a.type(), shapes.out.span());
      const BroadcastPlan plan(shapes.out.span(), {shapes.a.span(), shapes.b.span()});
      RunBinary(ctx.threads(), plan, static_cast<const T*>(a.data()),
                static_cast<const T*>(b.data()), static_cast<T*>(y.data()),
                [this](T p, T q) { return op_(p, q); });
    });
  }

 private:
  Op op_;
};

class BitwiseNot final : public Kernel {
 public:
  explicit BitwiseNot(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    DispatchList(IntegerTypes{}, x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
      RunUnary(ctx.threads(), x.element_count(), static_cast<const T*>(x.data()),
               static_cast<T*>(y.data()), [](T v) { return static_cast<T>(~v); });
    });
  }
};

// Whether BitCast can reinterpret elements of this type: whole bytes, not strings.
bool BitCastable(DataType type) {
  const size_t bits = BitsPerElement(type);
  return type != DataType::kString && bits >= 8 && bits % 8 == 0;
}

class BitCast final : public Kernel {
 public:
  explicit BitCast(const KernelInfo& info) {
    const int64_t to = info.RequireInt("to");
    if (to <= 0 || to > kMaxDataType || !BitCastable(static_cast<DataType>(to))) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'to' is " + std::to_string(to) +
                                              ", not a non-string element type of whole bytes");
    }
    to_ = static_cast<DataType>(to);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    if (!BitCastable(x.type()) || BitsPerElement(x.type()) != BitsPerElement(to_)) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input 'input' is ") + DataTypeName(x.type()) +
                    ", which cannot be reinterpreted as " + DataTypeName(to_) +
                    " (attribute 'to'): the types must have the same bit width");
    }
    if (!ctx.WantsOutput(0)) return;
    Tensor& y = ctx.OutputForOverwrite(0, to_, x.shape());
    if (x.byte_size() != 0) std::memcpy(y.data(), x.data(), x.byte_size());
  }

 private:
  DataType to_ = DataType::kUndefined;
};

}  // namespace

std::unique_ptr<Kernel> MakeBitShift(const KernelInfo& info) {
  return Make<BitwiseBinary<ShiftOp>>(info);
}
std::unique_ptr<Kernel> MakeBitwiseAnd(const KernelInfo& info) {
  return Make<BitwiseBinary<AndOp>>(info);
}
std::unique_ptr<Kernel> MakeBitwiseOr(const KernelInfo& info) {
  return Make<BitwiseBinary<OrOp>>(info);
}
std::unique_ptr<Kernel> MakeBitwiseXor(const KernelInfo& info) {
  return Make<BitwiseBinary<XorOp>>(info);
}
std::unique_ptr<Kernel> MakeBitwiseNot(const KernelInfo& info) {
  return Make<BitwiseNot>(info);
}
std::unique_ptr<Kernel> MakeBitCast(const KernelInfo& info) {
  return Make<BitCast>(info);
}

}  // namespace kiln::cpu
