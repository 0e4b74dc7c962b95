// Cast (opsets 1–25+) and CastLike (opsets 15–25+) between all numeric types, bool, Float16,
// BFloat16, string and the narrow types, each from the opset that allows it: float8e4m3fn,
// float8e4m3fnuz, float8e5m2, float8e5m2fnuz from 19, int4/uint4 from 21, float4e2m1 from 23,
// float8e8m0 from 24, int2/uint2 from 25 (earlier opsets refuse them, kInvalidGraph for `to`,
// kInvalidArgument for an input). Complex types are not supported (kNotImplemented).
// Cast-1 to Cast-5 take `to` as a type name ("FLOAT", …; an int is accepted too), later opsets as
// a TensorProto type number; CastLike takes the type of its second input. `saturate` (19+,
// default 1) concerns float8 targets, `round_mode` (24+, "up" (default), "down", "nearest")
// float8e8m0 targets; see small_types.h for those encodings (round to nearest even, the ONNX
// saturation tables).
// Conversions follow the ONNX rules: floating to integer truncates toward zero (NaN gives 0 and
// out-of-range values saturate, where ONNX leaves them undefined), except to the packed int4,
// uint4, int2 and uint2, which keep the low bits of the truncated value as the ONNX reference does
// (-9.0 to int4 gives 7); integer to integer keeps the low bits; anything to bool is "!= 0";
// Float16/BFloat16 go through float, narrow floats through their exact value. Strings parse
// decimal and scientific notation and INF/+INF/-INF/NaN in any case ("100.5" to an integer
// gives 100; "true"/"false" to bool); anything else is kInvalidArgument. Numbers print as the
// shortest text that reads back to the same value (narrow floats: to the same float), NaN as
// "NaN", infinities as "INF"/"-INF", bools as "1"/"0".
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"
#include "kernels/cpu/elementwise/small_types.h"

namespace kiln::cpu {
namespace {

using CastTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string>;

// Types every Cast opset may take: 1; narrow types: the first opset that allows them; complex
// and unknown types: 0 (not supported).
int FirstOpsetFor(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 19;
    case DataType::kInt4:
    case DataType::kUint4:
      return 21;
    case DataType::kFloat4E2M1:
      return 23;
    case DataType::kFloat8E8M0:
      return 24;
    case DataType::kInt2:
    case DataType::kUint2:
      return 25;
    case DataType::kUndefined:
    case DataType::kComplex64:
    case DataType::kComplex128:
      return 0;
    default:
      return 1;
  }
}

bool IsNarrow(DataType t) {
  return FirstOpsetFor(t) > 1;
}

// Throws unless this opset of the op converts from or to `t`: kNotImplemented for complex,
// `code` (naming `what`, the attribute or input that gave the type) for a type the opset lacks.
// `what` is a C string so that the check builds no std::string when it passes.
void CheckType(const KernelInfo& info, DataType t, ErrorCode code, const char* what) {
  const int first = FirstOpsetFor(t);
  if (first == 0) {
    info.Fail(ErrorCode::kNotImplemented, std::string(what) + " is " + DataTypeName(t) +
                                              "; casting from or to it is not supported");
  }
  if (info.opset() < first) {
    info.Fail(code, std::string(what) + " is " + DataTypeName(t) + ", which " + info.op_type() +
                        "-" + std::to_string(info.opset()) + " does not allow (it needs opset " +
                        std::to_string(first) + " or later)");
  }
}

struct CastOptions {
  bool saturate = true;
  E8M0Rounding rounding = E8M0Rounding::kUp;
};

// `saturate` (opset 19+) and `round_mode` (opset 24+); kInvalidGraph for an unknown round_mode.
CastOptions ReadOptions(const KernelInfo& info) {
  CastOptions o;
  if (info.opset() >= 19) o.saturate = info.GetInt("saturate", 1) != 0;
  if (info.opset() >= 24) {
    const std::string mode = info.GetString("round_mode", "up");
    if (mode == "down") {
      o.rounding = E8M0Rounding::kDown;
    } else if (mode == "nearest") {
      o.rounding = E8M0Rounding::kNearest;
    } else if (mode != "up") {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'round_mode' is \"" + mode +
                                              "\"; expected \"up\", \"down\" or \"nearest\"");
    }
  }
  return o;
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

// An element on its way between a narrow type and any other: its value as a double and as an
// integer (truncated, saturated; for integer sources their bits), and which of them is exact.
struct Wide {
  double f;
  int64_t i;
  bool integral;
};

template <typename From>
Wide ToWide(Storage<From> v) {
  if constexpr (std::is_same_v<From, bool>) {
    return {v != 0 ? 1.0 : 0.0, v != 0 ? 1 : 0, true};
  } else if constexpr (std::is_integral_v<From>) {
    return {static_cast<double>(v), static_cast<int64_t>(v), true};
  } else {
    const auto d = static_cast<double>(Load(v));
    return {d, SaturateCast<int64_t>(d), false};
  }
}

Wide FloatWide(double d) {
  return {d, SaturateCast<int64_t>(d), false};
}

template <typename To>
Storage<To> FromWide(const Wide& w) {
  if constexpr (std::is_same_v<To, bool>) {
    return (w.integral ? w.i != 0 : w.f != 0) ? 1 : 0;
  } else if constexpr (std::is_same_v<To, std::string>) {
    return w.integral ? std::to_string(w.i) : FormatFloating(static_cast<float>(w.f));
  } else if constexpr (std::is_integral_v<To>) {
    return w.integral ? static_cast<To>(w.i) : SaturateCast<To>(w.f);
  } else if constexpr (kIsHalf<To>) {
    return To::FromFloat(static_cast<float>(w.f));
  } else {
    return static_cast<To>(w.f);
  }
}

const MiniFloat* MiniFloatOf(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
      return &kE4M3FN;
    case DataType::kFloat8E4M3FNUZ:
      return &kE4M3FNUZ;
    case DataType::kFloat8E5M2:
      return &kE5M2;
    case DataType::kFloat8E5M2FNUZ:
      return &kE5M2FNUZ;
    case DataType::kFloat4E2M1:
      return &kE2M1;
    default:
      return nullptr;
  }
}

bool IsSigned(DataType t) {
  return t == DataType::kInt4 || t == DataType::kInt2;
}

// Elements converted per step: a multiple of 4 so that no packed byte is shared by two steps.
constexpr size_t kChunk = 256;

// Elements [begin, end) of x as Wide values.
void ReadWide(const KernelInfo& info, const Tensor& x, size_t begin, size_t end, Wide* out) {
  const DataType t = x.type();
  if (!IsNarrow(t)) {
    DispatchList(CastTypes{}, t, info, [&](auto tag) {
      using From = typename decltype(tag)::type;
      const auto* p = static_cast<const Storage<From>*>(x.data());
      for (size_t i = begin; i < end; ++i) {
        if constexpr (std::is_same_v<From, std::string>) {
          out[i - begin] = FloatWide(ParseNumber<double>(info, p[i], i));
        } else {
          out[i - begin] = ToWide<From>(p[i]);
        }
      }
    });
    return;
  }
  const auto* p = static_cast<const uint8_t*>(x.data());
  const size_t bits = BitsPerElement(t);
  const size_t per_byte = 8 / bits;
  const auto code = [&](size_t i) {
    return static_cast<uint8_t>(p[i / per_byte] >> (bits * (i % per_byte)));
  };
  const MiniFloat* mini = MiniFloatOf(t);
  for (size_t i = begin; i < end; ++i) {
    if (mini != nullptr) {
      out[i - begin] = FloatWide(DecodeMiniFloat(*mini, code(i) & ((1u << bits) - 1)));
    } else if (t == DataType::kFloat8E8M0) {
      out[i - begin] = FloatWide(DecodeE8M0(p[i]));
    } else {
      const int64_t v = IntFromCode(code(i), static_cast<int>(bits), IsSigned(t));
      out[i - begin] = {static_cast<double>(v), v, true};
    }
  }
}

// Writes elements [begin, end) of y (begin a multiple of kChunk) from Wide values.
void WriteWide(const KernelInfo& info, Tensor& y, size_t begin, size_t end, const Wide* in,
               const CastOptions& options) {
  const DataType t = y.type();
  if (!IsNarrow(t)) {
    DispatchList(CastTypes{}, t, info, [&](auto tag) {
      using To = typename decltype(tag)::type;
      auto* p = static_cast<Storage<To>*>(y.data());
      for (size_t i = begin; i < end; ++i) p[i] = FromWide<To>(in[i - begin]);
    });
    return;
  }
  const MiniFloat* mini = MiniFloatOf(t);
  const auto encode = [&](const Wide& w) -> uint8_t {
    if (mini != nullptr) return EncodeMiniFloat(*mini, w.f, options.saturate);
    if (t == DataType::kFloat8E8M0) {
      return EncodeE8M0(static_cast<float>(w.f), options.saturate, options.rounding);
    }
    return IntCode(w.i, static_cast<int>(BitsPerElement(t)));
  };
  auto* p = static_cast<uint8_t*>(y.data());
  const size_t bits = BitsPerElement(t);
  const size_t per_byte = 8 / bits;
  for (size_t byte = begin / per_byte; byte * per_byte < end; ++byte) {
    uint8_t packed = 0;
    for (size_t k = 0; k < per_byte && byte * per_byte + k < end; ++k) {
      packed = static_cast<uint8_t>(packed | encode(in[byte * per_byte + k - begin]) << (bits * k));
    }
    p[byte] = packed;
  }
}

// A cast where the input or the output type is narrow, through Wide values.
void RunNarrowCast(KernelContext& ctx, const Tensor& x, Tensor& y, const CastOptions& options) {
  const KernelInfo& info = ctx.info();
  if (x.type() == y.type()) {
    std::memcpy(y.data(), x.data(), x.byte_size());
    return;
  }
  const size_t n = x.element_count();
  ctx.threads().ParallelFor((n + kChunk - 1) / kChunk, 16, [&](size_t first, size_t last) {
    Wide values[kChunk];
    for (size_t c = first; c < last; ++c) {
      const size_t begin = c * kChunk;
      const size_t end = std::min(n, begin + kChunk);
      ReadWide(info, x, begin, end, values);
      WriteWide(info, y, begin, end, values, options);
    }
  });
}

void RunCast(KernelContext& ctx, const Tensor& x, DataType to, const CastOptions& options) {
  const KernelInfo& info = ctx.info();
  CheckType(info, x.type(), ErrorCode::kInvalidArgument, "input 'input'");
  if (!ctx.WantsOutput(0)) return;
  if (IsNarrow(x.type()) || IsNarrow(to)) {
    RunNarrowCast(ctx, x, ctx.Output(0, to, x.shape()), options);
    return;
  }
  DispatchList(CastTypes{}, x.type(), info, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchList(CastTypes{}, to, info, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
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
                             : TargetFromNumber(info, info.RequireInt("to"))),
        options_(ReadOptions(info)) {
    CheckType(info, to_, ErrorCode::kInvalidGraph, "attribute 'to'");
  }
  void Compute(KernelContext& ctx) const override { RunCast(ctx, ctx.Input(0), to_, options_); }

 private:
  DataType to_;
  CastOptions options_;
};

class CastLike final : public Kernel {
 public:
  explicit CastLike(const KernelInfo& info) : options_(ReadOptions(info)) {}
  void Compute(KernelContext& ctx) const override {
    const DataType to = ctx.Input(1).type();
    CheckType(ctx.info(), to, ErrorCode::kInvalidArgument, "input 'target_type'");
    RunCast(ctx, ctx.Input(0), to, options_);
  }

 private:
  CastOptions options_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCast(const KernelInfo& info) {
  return Make<Cast>(info);
}
std::unique_ptr<Kernel> MakeCastLike(const KernelInfo& info) {
  return Make<CastLike>(info);
}

}  // namespace kiln::cpu
