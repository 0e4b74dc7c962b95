// Rules for the ops that gather, pad, resize and generate tensors, as kernels/cpu/tensor/
// gather.cc, pad.cc, resize.cc, generate.cc and trilu_nonzero.cc compute their shapes:
//   Gather, GatherElements, GatherND (batch_dims from opset 12), Pad (`paddings`/`pads`
//   attributes before opset 11, the constant pads input after, the constant axes input from 18),
//   Resize and Upsample (scales attribute of Upsample 7-8, scales input of Upsample 9 and
//   Resize 10, scales or sizes inputs from Resize 11 with axes and keep_aspect_ratio_policy from
//   18; an output size from a scale is floor(dim * scale)), Constant, ConstantOfShape, Range
//   (count = max(ceil((limit - start) / delta), 0) for constant inputs), EyeLike, OneHot
//   (constant depth), NonZero ([rank, unknown]), Compress (the kept count is unknown),
//   RandomNormal, RandomUniform (shape attribute), RandomNormalLike, RandomUniformLike.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "kernels/cpu/common.h"

namespace kiln::infer {
namespace {

void Gather(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> ind = InputNamedDims(ctx, 1);
  std::optional<std::vector<int64_t>> out;
  if (x) {
    const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", 0), x->size(), "axis", "data");
    if (ind) {
      out = std::vector<int64_t>(x->begin(), x->begin() + static_cast<std::ptrdiff_t>(axis));
      out->insert(out->end(), ind->begin(), ind->end());
      out->insert(out->end(), x->begin() + static_cast<std::ptrdiff_t>(axis) + 1, x->end());
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
  // Elements of a shape at constant indices (Gather(Shape(x), i), as exporters size a Reshape).
  const std::optional<std::vector<int64_t>> from = InputDimsValue(ctx, 0);
  const std::optional<std::vector<int64_t>> at = ConstantInts(ctx, 1);
  if (!from || !at || !x || x->size() != 1 || ctx.InputValue(1)->shape().rank() > 1) return;
  std::vector<int64_t> picked;
  const auto n = static_cast<int64_t>(from->size());
  for (int64_t i : *at) {
    if (i < -n || i >= n) return;  // the kernel reports it
    picked.push_back((*from)[static_cast<size_t>(i < 0 ? i + n : i)]);
  }
  ctx.SetOutputDimsValue(0, std::move(picked));
}

void GatherElements(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> ind = InputDims(ctx, 1);
  if (x && ind) {
    const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", 0), x->size(), "axis", "data");
    bool fits = ind->size() == x->size();
    for (size_t k = 0; fits && k < x->size(); ++k) {
      fits = k == axis || !IsKnownDim((*ind)[k]) || !IsKnownDim((*x)[k]) || (*ind)[k] <= (*x)[k];
    }
    if (!fits) {
      ctx.Fail("input 'indices' " + DimsText(*ind) + " does not fit input 'data' " + DimsText(*x) +
               " outside axis " + std::to_string(axis));
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), ind);
}

void GatherND(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> ind = InputDims(ctx, 1);
  const DataType type = InputType(ctx, 0);
  if (!x || !ind) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const auto r = static_cast<int64_t>(x->size());
  const auto q = static_cast<int64_t>(ind->size());
  const int64_t b = ctx.opset() >= 12 ? ctx.info().GetInt("batch_dims", 0) : 0;
  if (r < 1 || q < 1 || b < 0 || b >= std::min(r, q)) {
    ctx.Fail("batch_dims " + std::to_string(b) + " does not fit input 'data' " + DimsText(*x) +
             " and input 'indices' " + DimsText(*ind));
  }
  for (size_t i = 0; i < static_cast<size_t>(b); ++i) {
    if (IsKnownDim((*ind)[i]) && IsKnownDim((*x)[i]) && (*ind)[i] != (*x)[i]) {
      ctx.Fail("batch dimensions of input 'indices' " + DimsText(*ind) +
               " differ from those of input 'data' " + DimsText(*x));
    }
  }
  const int64_t k = ind->back();
  if (!IsKnownDim(k)) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  if (k < 1 || k > r - b) {
    ctx.Fail("the last dimension of input 'indices' " + DimsText(*ind) + " must be in [1, " +
             std::to_string(r - b) + "] for input 'data' " + DimsText(*x));
  }
  std::vector<int64_t> out(ind->begin(), ind->end() - 1);
  out.insert(out.end(), x->begin() + b + k, x->end());
  SetOutputDims(ctx, 0, type, out);
}

void Pad(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const int64_t opset = ctx.opset();
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  std::optional<std::vector<int64_t>> pads;
  if (opset < 11) {
    const char* name = opset < 2 ? "paddings" : "pads";
    if (!ctx.info().HasAttribute(name)) {
      ctx.Fail(std::string("attribute '") + name + "' is required");
    }
    pads = ctx.info().GetInts(name);
  } else {
    pads = ConstantInts(ctx, 1);
  }
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const size_t rank = x->size();
  std::optional<std::vector<size_t>> axes = std::vector<size_t>();
  for (size_t i = 0; i < rank; ++i) axes->push_back(i);
  if (opset >= 18 && !IsMissing(ctx, 3)) {
    const std::optional<std::vector<int64_t>> given = ConstantInts(ctx, 3);
    if (given) {
      axes->clear();
      std::vector<bool> seen(rank, false);
      for (int64_t a : *given) {
        const size_t axis = RequireAxis(ctx, a, rank, "axes entry", "data");
        if (seen[axis]) ctx.Fail("input 'axes' " + DimsText(*given) + " repeats an axis");
        seen[axis] = true;
        axes->push_back(axis);
      }
    } else {
      axes = std::nullopt;
    }
  }
  if (!pads || !axes) {
    // Which dimensions change is not known; the rank stays.
    SetOutputDims(ctx, 0, type, std::vector<int64_t>(rank, kUnknownDim));
    return;
  }
  if (pads->size() != 2 * axes->size()) {
    ctx.Fail("pads " + DimsText(*pads) + " must have " + std::to_string(2 * axes->size()) +
             " values for input 'data' " + DimsText(*x));
  }
  const bool constant_mode = ctx.info().GetString("mode", "constant") == "constant";
  const size_t n = axes->size();
  for (size_t i = 0; i < n; ++i) {
    const size_t k = (*axes)[i];
    const int64_t begin = (*pads)[i];
    const int64_t end = (*pads)[i + n];
    const int64_t limit = INT64_MAX / 4;
    if (begin > limit || begin < -limit || end > limit || end < -limit) {
      ctx.Fail("pads " + DimsText(*pads) + " are too large");
    }
    const int64_t in = (*x)[k];
    if (!IsKnownDim(in)) continue;
    const int64_t kept = in - std::max<int64_t>(0, -begin) - std::max<int64_t>(0, -end);
    if (kept < 0) {
      ctx.Fail("pads " + DimsText(*pads) + " crop more than axis " + std::to_string(k) +
               " of input 'data' " + DimsText(*x) + " holds");
    }
    const int64_t out = kept + std::max<int64_t>(0, begin) + std::max<int64_t>(0, end);
    if (!constant_mode && kept == 0 && out > 0) {
      ctx.Fail("cannot pad empty axis " + std::to_string(k) + " of input 'data' " + DimsText(*x) +
               " in a mode other than constant");
    }
    (*x)[k] = out;
  }
  SetOutputDims(ctx, 0, type, x);
}

// The values of a constant float or double input as double; nullopt for another type.
std::optional<std::vector<double>> ConstantFloats(const InferenceContext& ctx, size_t i) {
  const Tensor* t = ctx.InputValue(i);
  if (t == nullptr) return std::nullopt;
  std::vector<double> v(t->element_count());
  if (t->type() == DataType::kFloat) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<const float*>(t->data())[k];
  } else if (t->type() == DataType::kDouble) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<const double*>(t->data())[k];
  } else {
    return std::nullopt;
  }
  return v;
}

// What is known of one of Resize's optional scales/sizes inputs.
enum class Given { kAbsent, kKnown, kUnknown };

Given ResizeInput(const InferenceContext& ctx, size_t i) {
  if (IsMissing(ctx, i)) return Given::kAbsent;
  if (const Tensor* t = ctx.InputValue(i)) {
    return t->element_count() == 0 ? Given::kAbsent : Given::kKnown;
  }
  const std::optional<std::vector<int64_t>> d = InputDims(ctx, i);
  if (d && ProductOfDims(*d, 0, d->size()) == 0) return Given::kAbsent;
  return Given::kUnknown;
}

// floor(v) as an output dimension; fails where the kernel does.
int64_t ResizedDim(const InferenceContext& ctx, double v) {
  const double d = std::floor(v);
  if (!(d >= 0) || d > 4.0e18) {
    ctx.Fail("an output dimension of " + std::to_string(v) + " is out of range");
  }
  return static_cast<int64_t>(d);
}

void Resize(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const bool upsample = ctx.info().op_type() == "Upsample";
  const int64_t opset = ctx.opset();
  const bool scales_attribute = upsample && opset < 9;
  const bool resize11 = !upsample && opset >= 11;
  if (scales_attribute && !ctx.info().HasAttribute("scales")) {
    ctx.Fail("attribute 'scales' is required");
  }
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const size_t rank = x->size();
  std::vector<size_t> axes;
  const bool has_axes = resize11 && opset >= 18 && ctx.info().HasAttribute("axes");
  if (has_axes) {
    std::vector<bool> seen(rank, false);
    const std::vector<int64_t> given = ctx.info().GetInts("axes");
    for (int64_t a : given) {
      const size_t axis = RequireAxis(ctx, a, rank, "axes entry", "X");
      if (seen[axis]) ctx.Fail("attribute 'axes' " + DimsText(given) + " repeats an axis");
      seen[axis] = true;
      axes.push_back(axis);
    }
  } else {
    for (size_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  const std::string policy = resize11 && opset >= 18
                                 ? ctx.info().GetString("keep_aspect_ratio_policy", "stretch")
                                 : "stretch";
  std::optional<std::vector<double>> scales;
  std::optional<std::vector<int64_t>> sizes;
  bool known = true;
  if (scales_attribute) {
    scales.emplace();
    for (float s : ctx.info().GetFloats("scales")) scales->push_back(s);
  } else if (!resize11) {
    scales = ConstantFloats(ctx, 1);
    known = scales.has_value();
  } else {
    const Given s = ResizeInput(ctx, 2);
    const Given z = ResizeInput(ctx, 3);
    if ((s == Given::kAbsent && z == Given::kAbsent) ||
        (s == Given::kKnown && z == Given::kKnown)) {
      ctx.Fail("exactly one of the inputs 'scales' and 'sizes' must be given");
    }
    if (s == Given::kKnown && z == Given::kAbsent) {
      scales = ConstantFloats(ctx, 2);
    } else if (z == Given::kKnown && s == Given::kAbsent) {
      sizes = ConstantInts(ctx, 3);
    }
    known = scales.has_value() || sizes.has_value();
  }
  if (!known) {
    for (size_t a : axes) (*x)[a] = kUnknownDim;
    SetOutputDims(ctx, 0, type, x);
    return;
  }
  if (scales) {
    if (scales->size() != axes.size()) {
      ctx.Fail("scales has " + std::to_string(scales->size()) + " entries for " +
               std::to_string(axes.size()) + " axes of input 'X' " + DimsText(*x));
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      const double s = (*scales)[i];
      if (!(s > 0) || !std::isfinite(s) || (upsample && s < 1)) {
        ctx.Fail("scale " + std::to_string(s) + " for axis " + std::to_string(axes[i]) +
                 (upsample ? " must be >= 1" : " must be positive and finite"));
      }
      int64_t& d = (*x)[axes[i]];
      d = IsKnownDim(d) ? ResizedDim(ctx, static_cast<double>(d) * s) : kUnknownDim;
    }
    SetOutputDims(ctx, 0, type, x);
    return;
  }
  if (sizes->size() != axes.size()) {
    ctx.Fail("sizes has " + std::to_string(sizes->size()) + " entries for " +
             std::to_string(axes.size()) + " axes of input 'X' " + DimsText(*x));
  }
  std::vector<double> ratio(axes.size());
  bool ratios_known = true;
  for (size_t i = 0; i < axes.size(); ++i) {
    if ((*sizes)[i] < 0) ctx.Fail("sizes " + DimsText(*sizes) + " has a negative entry");
    const int64_t in = (*x)[axes[i]];
    ratios_known = ratios_known && IsKnownDim(in);
    ratio[i] = in > 0 ? static_cast<double>((*sizes)[i]) / static_cast<double>(in) : 1.0;
  }
  const bool not_larger = policy == "not_larger";
  if ((not_larger || policy == "not_smaller") && !axes.empty()) {
    double scale = ratio[0];
    for (double r : ratio) scale = not_larger ? std::min(scale, r) : std::max(scale, r);
    for (size_t a : axes) {
      int64_t& d = (*x)[a];
      d = ratios_known ? ResizedDim(ctx, std::floor(scale * static_cast<double>(d) + 0.5))
                       : kUnknownDim;
    }
  } else {
    for (size_t i = 0; i < axes.size(); ++i) (*x)[axes[i]] = (*sizes)[i];
  }
  SetOutputDims(ctx, 0, type, x);
}

void Constant(InferenceContext& ctx) {
  const KernelInfo& info = ctx.info();
  if (std::shared_ptr<const Tensor> value = info.GetTensor("value")) {
    ctx.SetOutput(0, value->type(), value->shape());
    return;
  }
  if (ctx.opset() < 12) return;
  const auto length = [&](auto values) {
    return std::vector<int64_t>{static_cast<int64_t>(values.size())};
  };
  if (info.HasAttribute("value_float")) {
    SetOutputDims(ctx, 0, DataType::kFloat, std::vector<int64_t>{});
  } else if (info.HasAttribute("value_floats")) {
    SetOutputDims(ctx, 0, DataType::kFloat, length(info.GetFloats("value_floats")));
  } else if (info.HasAttribute("value_int")) {
    SetOutputDims(ctx, 0, DataType::kInt64, std::vector<int64_t>{});
  } else if (info.HasAttribute("value_ints")) {
    SetOutputDims(ctx, 0, DataType::kInt64, length(info.GetInts("value_ints")));
  } else if (info.HasAttribute("value_string")) {
    SetOutputDims(ctx, 0, DataType::kString, std::vector<int64_t>{});
  } else if (info.HasAttribute("value_strings")) {
    SetOutputDims(ctx, 0, DataType::kString, length(info.GetStrings("value_strings")));
  }
}

void ConstantOfShape(InferenceContext& ctx) {
  const std::shared_ptr<const Tensor> value = ctx.info().GetTensor("value");
  const DataType type = value != nullptr ? value->type() : DataType::kFloat;
  if (value != nullptr && value->element_count() != 1) {
    ctx.Fail("attribute 'value' must hold one element, not " + value->shape().ToString());
  }
  if (const std::optional<std::vector<int64_t>> dims = ConstantInts(ctx, 0)) {
    if (ctx.InputValue(0)->shape().rank() != 1) {
      ctx.Fail("input 'input' must be 1-D, not shape " + ctx.InputValue(0)->shape().ToString());
    }
    for (int64_t d : *dims) {
      if (d < 0) ctx.Fail("input 'input' " + DimsText(*dims) + " has a negative dimension");
    }
    SetOutputDims(ctx, 0, type, dims);
    return;
  }
  const std::optional<std::vector<int64_t>> s = InputDims(ctx, 0);
  if (const std::optional<std::vector<int64_t>> named = InputDimsValue(ctx, 0);
      named && s && s->size() == 1) {
    SetOutputDims(ctx, 0, type, named);  // sizes and symbols
    return;
  }
  const bool rank_known = s && s->size() == 1 && IsKnownDim((*s)[0]);
  SetOutputDims(ctx, 0, type,
                rank_known
                    ? std::optional(std::vector<int64_t>(static_cast<size_t>((*s)[0]), kUnknownDim))
                    : std::nullopt);
}

// The element count of a constant Range, computed as the kernel does; nullopt when not known.
template <typename T>
std::optional<int64_t> RangeCount(const InferenceContext& ctx) {
  T v[3];
  for (size_t i = 0; i < 3; ++i) {
    const Tensor* t = ctx.InputValue(i);
    if (t == nullptr || t->element_count() != 1 || t->type() != ctx.InputValue(0)->type()) {
      return std::nullopt;
    }
    v[i] = *static_cast<const T*>(t->data());
  }
  const T start = v[0], limit = v[1], delta = v[2];
  if (delta == T(0)) ctx.Fail("input 'delta' is 0");
  const int64_t count = cpu::RangeCount(start, limit, delta);
  if (count < 0) return std::nullopt;
  return count;
}

void Range(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  std::optional<int64_t> count;
  if (ctx.InputValue(0) != nullptr) {
    switch (ctx.InputValue(0)->type()) {
      case DataType::kFloat:
        count = RangeCount<float>(ctx);
        break;
      case DataType::kDouble:
        count = RangeCount<double>(ctx);
        break;
      case DataType::kInt16:
        count = RangeCount<int16_t>(ctx);
        break;
      case DataType::kInt32:
        count = RangeCount<int32_t>(ctx);
        break;
      case DataType::kInt64:
        count = RangeCount<int64_t>(ctx);
        break;
      default:
        break;
    }
  }
  // Range(0, n, 1) of a dimension n (positions 0 .. n-1, as exporters number a sequence) has n
  // elements.
  if (!count && ConstantScalarInt(ctx, 0) == 0 && ConstantScalarInt(ctx, 2) == 1) {
    const std::optional<std::vector<int64_t>> limit = InputDimsValue(ctx, 1);
    if (limit && limit->size() == 1 && IsSymbolicDim((*limit)[0])) count = (*limit)[0];
  }
  SetOutputDims(ctx, 0, type, std::vector<int64_t>{count ? *count : kUnknownDim});
}

void EyeLike(InferenceContext& ctx) {
  const int64_t dtype = ctx.info().GetInt("dtype", 0);
  if (ctx.info().HasAttribute("dtype") && !IsKnownDataType(static_cast<int32_t>(dtype))) {
    ctx.Fail("attribute 'dtype' " + std::to_string(dtype) + " is not a data type");
  }
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (x && x->size() != 2) ctx.Fail("input 'input' must be 2-D, not shape " + DimsText(*x));
  const DataType type = dtype != 0 ? static_cast<DataType>(dtype) : InputType(ctx, 0);
  SetOutputDims(ctx, 0, type, x ? x : std::optional(std::vector<int64_t>(2, kUnknownDim)));
}

// A constant one-element numeric input truncated to int64, as OneHot reads its depth.
std::optional<int64_t> ConstantDepth(const InferenceContext& ctx, size_t i) {
  if (const std::optional<int64_t> v = ConstantScalarInt(ctx, i)) return v;
  const std::optional<std::vector<double>> f = ConstantFloats(ctx, i);
  if (!f || f->size() != 1 || !std::isfinite((*f)[0]) || std::fabs((*f)[0]) >= 9.2e18) {
    return std::nullopt;
  }
  return static_cast<int64_t>((*f)[0]);
}

void OneHot(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> ind = InputDims(ctx, 0);
  if (ind) {
    const size_t axis =
        RequireAxis(ctx, ctx.info().GetInt("axis", -1), ind->size() + 1, "axis", "indices");
    const std::optional<int64_t> depth = ConstantDepth(ctx, 1);
    if (depth && *depth < 1) ctx.Fail("input 'depth' must be positive");
    ind->insert(ind->begin() + static_cast<std::ptrdiff_t>(axis), depth ? *depth : kUnknownDim);
  }
  SetOutputDims(ctx, 0, InputType(ctx, 2), ind);
}

void NonZero(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const int64_t rank = x ? static_cast<int64_t>(x->size()) : kUnknownDim;
  SetOutputDims(ctx, 0, DataType::kInt64, std::vector<int64_t>{rank, kUnknownDim});
}

void Compress(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (!ctx.info().HasAttribute("axis")) {
    SetOutputDims(ctx, 0, InputType(ctx, 0), std::vector<int64_t>{kUnknownDim});
    return;
  }
  if (x) {
    (*x)[RequireAxis(ctx, ctx.info().GetInt("axis", 0), x->size(), "axis", "input")] = kUnknownDim;
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

// The `dtype` attribute of the random ops; `fallback` when absent.
DataType RandomType(const InferenceContext& ctx, DataType fallback) {
  if (!ctx.info().HasAttribute("dtype")) return fallback;
  const int64_t dtype = ctx.info().GetInt("dtype", 0);
  return IsKnownDataType(static_cast<int32_t>(dtype)) ? static_cast<DataType>(dtype)
                                                      : DataType::kUndefined;
}

void RandomFromShape(InferenceContext& ctx) {
  const std::vector<int64_t> shape = ctx.info().GetInts("shape");
  for (int64_t d : shape) {
    if (d < 0) ctx.Fail("attribute 'shape' " + DimsText(shape) + " has a negative dimension");
  }
  SetOutputDims(ctx, 0, RandomType(ctx, DataType::kFloat),
                ctx.info().HasAttribute("shape") ? std::optional(shape) : std::nullopt);
}

void RandomLike(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, RandomType(ctx, InputType(ctx, 0)), InputDims(ctx, 0));
}

constexpr RuleDef kRules[] = {
    {"Gather", Gather},
    {"GatherElements", GatherElements},
    {"GatherND", GatherND},
    {"Pad", Pad},
    {"Resize", Resize},
    {"Upsample", Resize},
    {"Constant", Constant},
    {"ConstantOfShape", ConstantOfShape},
    {"Range", Range},
    {"EyeLike", EyeLike},
    {"OneHot", OneHot},
    {"NonZero", NonZero},
    {"Compress", Compress},
    {"RandomNormal", RandomFromShape},
    {"RandomUniform", RandomFromShape},
    {"RandomNormalLike", RandomLike},
    {"RandomUniformLike", RandomLike},
};

}  // namespace

std::span<const RuleDef> TensorRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
