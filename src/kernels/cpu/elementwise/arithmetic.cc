// Add, Sub, Mul, Div (opsets 1–23) and Mod (opsets 10–23) over all numeric types (Float16 and
// BFloat16 computed in float). Opsets 7+ broadcast like numpy; opsets 1–6 use the legacy
// `broadcast`/`axis` attributes (and ignore `consumed_inputs`). Integer arithmetic wraps like
// numpy; integer Div truncates toward zero; integer Mod follows Python's sign rule unless
// fmod=1 (C's). An integer divisor of 0 is an error.
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

struct AddOp {
  static constexpr bool kIntegerDivision = false;
  explicit AddOp(const KernelInfo&) {}
  template <typename T>
  void Validate(const KernelInfo&) const {}
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};

struct SubOp {
  static constexpr bool kIntegerDivision = false;
  explicit SubOp(const KernelInfo&) {}
  template <typename T>
  void Validate(const KernelInfo&) const {}
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return WrapSub(a, b);
    } else {
      return a - b;
    }
  }
};

struct MulOp {
  static constexpr bool kIntegerDivision = false;
  explicit MulOp(const KernelInfo&) {}
  template <typename T>
  void Validate(const KernelInfo&) const {}
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return WrapMul(a, b);
    } else {
      return a * b;
    }
  }
};

struct DivOp {
  static constexpr bool kIntegerDivision = true;
  explicit DivOp(const KernelInfo&) {}
  template <typename T>
  void Validate(const KernelInfo&) const {}
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return TruncDiv(a, b);
    } else {
      return a / b;
    }
  }
};

bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBfloat16;
}

[[noreturn]] void FailFloatModWithoutFmod(const KernelInfo& info, DataType type) {
  info.Fail(ErrorCode::kInvalidGraph, std::string("attribute 'fmod' must be 1 for ") +
                                          DataTypeName(type) + " inputs (it is 0)");
}

class ModOp {
 public:
  static constexpr bool kIntegerDivision = true;
  explicit ModOp(const KernelInfo& info) : fmod_(info.GetInt("fmod", 0) != 0) {
    if (!fmod_ && IsFloatType(info.InputType(0))) FailFloatModWithoutFmod(info, info.InputType(0));
  }
  template <typename T>
  void Validate(const KernelInfo& info) const {
    if (!fmod_ && !std::is_integral_v<T>) FailFloatModWithoutFmod(info, DataTypeOf<T>());
  }
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return fmod_ ? TruncMod(a, b) : FloorMod(a, b);
    } else {
      return std::fmod(a, b);
    }
  }

 private:
  bool fmod_;
};

template <typename T>
bool ContainsZero(const T* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == 0) return true;
  }
  return false;
}

template <typename Op>
class Arithmetic final : public Kernel {
 public:
  explicit Arithmetic(const KernelInfo& info) : op_(info) {
    if (info.opset() < 7) legacy_ = LegacyBroadcast::FromInfo(info);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireSameType(info, a, "A", b, "B");
    const BinaryShapes shapes =
        ResolveBinaryShapes(info, a.shape().dims(), b.shape().dims(), legacy_);
    DispatchList(NumericTypes{}, a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      op_.template Validate<T>(info);
      const T* pb = static_cast<const T*>(b.data());
      if constexpr (Op::kIntegerDivision && std::is_integral_v<T>) {
        // Only a divisor that meets a dividend counts: none does when the output is empty.
        const bool empty = std::find(shapes.out.begin(), shapes.out.end(), 0) != shapes.out.end();
        if (!empty && ContainsZero(pb, b.element_count())) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'B' contains 0, and integer division by zero is undefined");
        }
      }
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, a.type(), shapes.out.span());
      const BroadcastPlan plan(shapes.out.span(), {shapes.a.span(), shapes.b.span()});
      RunBinary(ctx.threads(), plan, static_cast<const T*>(a.data()), pb, static_cast<T*>(y.data()),
                [this](T p, T q) { return Store<T>(op_(Load(p), Load(q))); });
    });
  }

 private:
  Op op_;
  std::optional<LegacyBroadcast> legacy_;
};

}  // namespace

std::unique_ptr<Kernel> MakeAdd(const KernelInfo& info) {
  return Make<Arithmetic<AddOp>>(info);
}
std::unique_ptr<Kernel> MakeSub(const KernelInfo& info) {
  return Make<Arithmetic<SubOp>>(info);
}
std::unique_ptr<Kernel> MakeMul(const KernelInfo& info) {
  return Make<Arithmetic<MulOp>>(info);
}
std::unique_ptr<Kernel> MakeDiv(const KernelInfo& info) {
  return Make<Arithmetic<DivOp>>(info);
}
std::unique_ptr<Kernel> MakeMod(const KernelInfo& info) {
  return Make<Arithmetic<ModOp>>(info);
}

}  // namespace kiln::cpu
