// Comparisons, logic and tests, every opset up to 23; all outputs but Where's are bool:
//   Equal (1+): all numeric types, bool and string; Less, Greater (1+), LessOrEqual,
//   GreaterOrEqual (12+): all numeric types. Float16/BFloat16 compare as float; NaN compares
//   unequal and unordered.
//   And, Or, Xor (1+), Not (1+): bool.
//   Equal, Less, Greater, And, Or, Xor broadcast like numpy from opset 7 and with the legacy
//   `broadcast`/`axis` attributes before.
//   Where (9+): bool condition, X and Y of any type of 1, 2, 4 or 8 bytes or string, numpy
//   broadcasting of all three.
//   IsNaN (9+), IsInf (10+, detect_negative/detect_positive): float, double, Float16, BFloat16.
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

// An element as compared: bytes of bool tensors as true/false, halves as float, strings by
// reference.
template <typename T>
decltype(auto) Value(const Storage<T>& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (kIsHalf<T>) {
    return v.ToFloat();
  } else {
    return (v);  // a reference for std::string
  }
}

using EqualTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string>;
using LogicTypes = TypeList<bool>;

struct EqualOp {
  using Types = EqualTypes;
  template <typename V>
  bool operator()(const V& a, const V& b) const {
    return a == b;
  }
};
struct LessOp {
  using Types = NumericTypes;
  template <typename V>
  bool operator()(V a, V b) const {
    return a < b;
  }
};
struct GreaterOp {
  using Types = NumericTypes;
  template <typename V>
  bool operator()(V a, V b) const {
    return a > b;
  }
};
struct LessOrEqualOp {
  using Types = NumericTypes;
  template <typename V>
  bool operator()(V a, V b) const {
    return a <= b;
  }
};
struct GreaterOrEqualOp {
  using Types = NumericTypes;
  template <typename V>
  bool operator()(V a, V b) const {
    return a >= b;
  }
};
struct AndOp {
  using Types = LogicTypes;
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  using Types = LogicTypes;
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  using Types = LogicTypes;
  bool operator()(bool a, bool b) const { return a != b; }
};

// A binary op with a bool output.
template <typename Op>
class Predicate final : public Kernel {
 public:
  explicit Predicate(const KernelInfo& info) {
    if (info.opset() < 7) legacy_ = LegacyBroadcast::FromInfo(info);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireSameType(info, a, "A", b, "B");
    const BinaryShapes shapes =
        ResolveBinaryShapes(info, a.shape().dims(), b.shape().dims(), legacy_);
    DispatchList(typename Op::Types{}, a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using S = Storage<T>;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, DataType::kBool, shapes.out.span());
      const BroadcastPlan plan(shapes.out.span(), {shapes.a.span(), shapes.b.span()});
      RunBinary(ctx.threads(), plan, static_cast<const S*>(a.data()),
                static_cast<const S*>(b.data()), static_cast<bool*>(y.data()),
                [](const S& p, const S& q) { return Op{}(Value<T>(p), Value<T>(q)); });
    });
  }

 private:
  std::optional<LegacyBroadcast> legacy_;
};

// Throws kInvalidArgument unless input `name` is bool.
void RequireBool(const KernelInfo& info, const Tensor& t, const char* name) {
  if (t.type() != DataType::kBool) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + name + "' must be bool, not " + DataTypeName(t.type()));
  }
}

class Not final : public Kernel {
 public:
  explicit Not(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    RequireBool(ctx.info(), x, "X");
    if (!ctx.WantsOutput(0)) return;
    Tensor& y = ctx.Output(0, DataType::kBool, x.shape());
    RunUnary(ctx.threads(), x.element_count(), static_cast<const uint8_t*>(x.data()),
             static_cast<bool*>(y.data()), [](uint8_t v) { return v == 0; });
  }
};

class Where final : public Kernel {
 public:
  explicit Where(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& cond = ctx.Input(0);
    const Tensor& x = ctx.Input(1);
    const Tensor& y = ctx.Input(2);
    RequireBool(info, cond, "condition");
    RequireSameType(info, x, "X", y, "Y");
    SmallVector<int64_t> out(cond.shape().dims());
    BroadcastInto(info, out, x.shape().dims(), "X");
    BroadcastInto(info, out, y.shape().dims(), "Y");
    DispatchStorage(x.type(), info, [&](auto tag) {
      using U = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& z = ctx.Output(0, x.type(), out.span());
      const BroadcastPlan plan(out.span(),
                               {cond.shape().dims(), x.shape().dims(), y.shape().dims()});
      RunTernary(ctx.threads(), plan, static_cast<const uint8_t*>(cond.data()),
                 static_cast<const U*>(x.data()), static_cast<const U*>(y.data()),
                 static_cast<U*>(z.data()),
                 [](uint8_t c, const U& p, const U& q) -> const U& { return c != 0 ? p : q; });
    });
  }
};

struct IsNaNOp {
  explicit IsNaNOp(const KernelInfo&) {}
  template <typename C>
  bool operator()(C x) const {
    return std::isnan(x);
  }
};

class IsInfOp {
 public:
  explicit IsInfOp(const KernelInfo& info)
      : negative_(info.GetInt("detect_negative", 1) != 0),
        positive_(info.GetInt("detect_positive", 1) != 0) {}
  template <typename C>
  bool operator()(C x) const {
    return std::isinf(x) && (x > 0 ? positive_ : negative_);
  }

 private:
  bool negative_;
  bool positive_;
};

// A float test with a bool output.
template <typename Op>
class FloatTest final : public Kernel {
 public:
  explicit FloatTest(const KernelInfo& info) : op_(info) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    DispatchList(FloatTypes{}, x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, DataType::kBool, x.shape());
      RunUnary(ctx.threads(), x.element_count(), static_cast<const T*>(x.data()),
               static_cast<bool*>(y.data()), [this](T v) { return op_(Load(v)); });
    });
  }

 private:
  Op op_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEqual(const KernelInfo& info) {
  return Make<Predicate<EqualOp>>(info);
}
std::unique_ptr<Kernel> MakeLess(const KernelInfo& info) {
  return Make<Predicate<LessOp>>(info);
}
std::unique_ptr<Kernel> MakeGreater(const KernelInfo& info) {
  return Make<Predicate<GreaterOp>>(info);
}
std::unique_ptr<Kernel> MakeLessOrEqual(const KernelInfo& info) {
  return Make<Predicate<LessOrEqualOp>>(info);
}
std::unique_ptr<Kernel> MakeGreaterOrEqual(const KernelInfo& info) {
  return Make<Predicate<GreaterOrEqualOp>>(info);
}
std::unique_ptr<Kernel> MakeAnd(const KernelInfo& info) {
  return Make<Predicate<AndOp>>(info);
}
std::unique_ptr<Kernel> MakeOr(const KernelInfo& info) {
  return Make<Predicate<OrOp>>(info);
}
std::unique_ptr<Kernel> MakeXor(const KernelInfo& info) {
  return Make<Predicate<XorOp>>(info);
}
std::unique_ptr<Kernel> MakeNot(const KernelInfo& info) {
  return Make<Not>(info);
}
std::unique_ptr<Kernel> MakeWhere(const KernelInfo& info) {
  return Make<Where>(info);
}
std::unique_ptr<Kernel> MakeIsNaN(const KernelInfo& info) {
  return Make<FloatTest<IsNaNOp>>(info);
}
std::unique_ptr<Kernel> MakeIsInf(const KernelInfo& info) {
  return Make<FloatTest<IsInfOp>>(info);
}

}  // namespace kiln::cpu
