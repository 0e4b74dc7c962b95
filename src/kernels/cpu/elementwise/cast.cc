// Cast (opsets 1–23) and CastLike (opsets 15–23) between all numeric types, bool, Float16,
// BFloat16 and string. Cast-1 to Cast-5 take `to` as a type name ("FLOAT", …; an int is
// accepted too), later opsets as a TensorProto type number; CastLike takes the type of its second
// input. `saturate` (opset 19+) only concerns float8 and is ignored: float8, 4-bit, 2-bit and
// complex types are not supported (kNotImplemented).
// Conversions follow the ONNX rules: floating to integer truncates toward zero (NaN gives 0 and
// out-of-range values saturate, where ONNX leaves them undefined); integer to integer keeps the
// low bits; anything to bool is "!= 0"; Float16/BFloat16 go through float. Strings parse
// decimal and scientific notation and INF/+INF/-INF/NaN in any case ("100.5" to an integer
// gives 100; "true"/"false" to bool); anything else is kInvalidArgument. Numbers print as the
// shortest text that reads back to the same value, NaN as "NaN", infinities as "INF"/"-INF",
// bools as "1"/"0".
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "ir/graph.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

using CastTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string>;

bool IsCastable(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kBool:
    case DataType::kString:
      return true;
    default:
      return false;
  }
}

// Throws kNotImplemented unless Cast converts to `to`.
void CheckTarget(const KernelInfo& info, DataType to) {
  if (!IsCastable(to)) {
    info.Fail(ErrorCode::kNotImplemented,
              std::string("casting to ") + DataTypeName(to) + " is not supported");
  }
}

// The int attribute 'to' as a DataType; kInvalidGraph unless it names one.
DataType TargetFromNumber(const KernelInfo& info, int64_t v) {
  if (v <= 0 || v > kMaxDataType) {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute 'to' is " + std::to_string(v) + ", not a known element type");
  }
  return static_cast<DataType>(v);
}

// Cast-1's `to`: a TensorProto.DataType name such as "FLOAT" (any case), or a number.
DataType TargetBeforeOpset6(const KernelInfo& info) {
  const ir::Attribute* a = info.node().FindAttribute("to");
  if (a == nullptr || a->type != ir::AttrType::kString) {
    return TargetFromNumber(info, info.RequireInt("to"));
  }
  std::string name = a->s;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (int32_t v = 1; v <= kMaxDataType; ++v) {
    if (name == DataTypeName(static_cast<DataType>(v))) return static_cast<DataType>(v);
  }
  info.Fail(ErrorCode::kInvalidGraph, "attribute 'to' is \"" + a->s + "\", not a type name");
}

// A number (or bool) as another number type.
template <typename To, typename From>
Storage<To> ConvertNumber(Storage<From> v) {
  using Source = std::conditional_t<std::is_same_v<From, bool>, int, ComputeType<From>>;
  Source s;
  if constexpr (std::is_same_v<From, bool>) {
    s = v != 0 ? 1 : 0;
  } else {
    s = Load(v);
  }
  if constexpr (std::is_same_v<To, bool>) {
    return s != 0 ? 1 : 0;  // NaN is true
  } else if constexpr (kIsHalf<To>) {
    return To::FromFloat(static_cast<float>(s));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<Source>) {
    return SaturateCast<To>(s);
  } else {
    return static_cast<To>(s);
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// Parses all of `s` as F (decimal, scientific, inf, infinity, nan in any case, with an optional
// sign); false if it is not such a number.
template <typename F>
bool ParseFloating(std::string_view s, F& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  const char* last = s.data() + s.size();
  const auto [end, ec] = std::from_chars(s.data(), last, out);
  if (end != last || (ec != std::errc() && ec != std::errc::result_out_of_range)) return false;
  if (ec == std::errc::result_out_of_range) {  // beyond F: ±inf, or ±0 for a negative exponent
    const size_t e = s.find_first_of("eE");
    const bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    out = tiny ? F(0) : std::numeric_limits<F>::infinity();
    if (s[0] == '-') out = -out;
  }
  return true;
}

template <typename To>
Storage<To> ParseNumber(const KernelInfo& info, const std::string& text, size_t index) {
  const std::string_view s = Trim(text);
  auto fail = [&]() {
    info.Fail(ErrorCode::kInvalidArgument,
              "input element " + std::to_string(index) + " (\"" + text + "\") is not a number");
  };
  if constexpr (std::is_same_v<To, bool>) {
    auto equals = [&](const char* word) {
      return s.size() == std::strlen(word) &&
             std::equal(s.begin(), s.end(), word, [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
             });
    };
    if (equals("true")) return 1;
    if (equals("false")) return 0;
    double d = 0;
    if (!ParseFloating(s, d)) fail();
    return d != 0 ? 1 : 0;
  } else if constexpr (std::is_integral_v<To>) {
    std::string_view digits = s;
    if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
    To v{};
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && end == digits.data() + digits.size()) return v;
    double d = 0;  // "100.5", "1e3" or out of range
    if (!ParseFloating(s, d)) fail();
    return SaturateCast<To>(d);
  } else {
    using F = std::conditional_t<std::is_same_v<To, double>, double, float>;
    F v = 0;
    if (!ParseFloating(s, v)) fail();
    return Store<To>(v);
  }
}

// The shortest text that reads back as `v` in F's precision.
template <typename F>
std::string FormatFloating(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-INF" : "INF";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

// For Float16/BFloat16: the shortest text that reads back to the same 16 bits.
template <typename H>
std::string FormatHalf(H h) {
  const float f = h.ToFloat();
  if (std::isnan(f) || std::isinf(f)) return FormatFloating(f);
  char buf[64];
  for (int precision = 1; precision < 9; ++precision) {
    const auto [end, ec] =
        std::to_chars(buf, buf + sizeof buf, f, std::chars_format::general, precision);
    float back = 0;
    if (ec == std::errc() && std::from_chars(buf, end, back).ec == std::errc() &&
        H::FromFloat(back).bits == h.bits) {
      return std::string(buf, end);
    }
  }
  return FormatFloating(f);
}

template <typename From>
std::string FormatNumber(Storage<From> v) {
  if constexpr (std::is_same_v<From, bool>) {
    return v != 0 ? "1" : "0";
  } else if constexpr (kIsHalf<From>) {
    return FormatHalf(v);
  } else if constexpr (std::is_floating_point_v<From>) {
    return FormatFloating(v);
  } else if constexpr (std::is_signed_v<From>) {
    return std::to_string(static_cast<int64_t>(v));
  } else {
    return std::to_string(static_cast<uint64_t>(v));
  }
}

void RunCast(KernelContext& ctx, const Tensor& x, DataType to) {
  const KernelInfo& info = ctx.info();
  DispatchList(CastTypes{}, x.type(), info, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchList(CastTypes{}, to, info, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, to, x.shape());
      const auto* px = static_cast<const Storage<From>*>(x.data());
      auto* py = static_cast<Storage<To>*>(y.data());
      const size_t n = x.element_count();
      if constexpr (std::is_same_v<From, To>) {
        RunUnary(ctx.threads(), n, px, py, [](const Storage<From>& v) { return v; });
      } else if constexpr (std::is_same_v<From, std::string>) {
        ctx.threads().ParallelFor(n, BroadcastPlan::kBlock, [&](size_t begin, size_t end) {
          for (size_t i = begin; i < end; ++i) py[i] = ParseNumber<To>(info, px[i], i);
        });
      } else if constexpr (std::is_same_v<To, std::string>) {
        RunUnary(ctx.threads(), n, px, py, [](Storage<From> v) { return FormatNumber<From>(v); });
      } else {
        RunUnary(ctx.threads(), n, px, py,
                 [](Storage<From> v) { return ConvertNumber<To, From>(v); });
      }
    });
  });
}

class Cast final : public Kernel {
 public:
  explicit Cast(const KernelInfo& info)
      : to_(info.opset() < 6 ? TargetBeforeOpset6(info)
                             : TargetFromNumber(info, info.RequireInt("to"))) {
    CheckTarget(info, to_);
  }
  void Compute(KernelContext& ctx) const override { RunCast(ctx, ctx.Input(0), to_); }

 private:
  DataType to_;
};

class CastLike final : public Kernel {
 public:
  explicit CastLike(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const DataType to = ctx.Input(1).type();
    CheckTarget(ctx.info(), to);
    RunCast(ctx, ctx.Input(0), to);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeCast(const KernelInfo& info) {
  return Make<Cast>(info);
}
std::unique_ptr<Kernel> MakeCastLike(const KernelInfo& info) {
  return Make<CastLike>(info);
}

}  // namespace kiln::cpu
