// Rules for the ops that rearrange a tensor, as kernels/cpu/tensor/reshape.cc, transpose.cc,
// concat_split.cc and slice.cc compute their shapes:
//   Reshape (the `shape` attribute before opset 5, then the constant input; 0 copies the input's
//     dimension unless allowzero, one -1 inferred, also when unknown input dimensions are copied
//     by 0), Flatten, Squeeze and Unsqueeze (axes attribute before opset 13, constant input
//     after), Shape (start/end from opset 15; int64 [k]), Size (int64 scalar), Transpose,
//     DepthToSpace, SpaceToDepth, Concat, Split (split attribute, split input at opsets 1 and 13+,
//     num_outputs from 18, else equal parts), Slice (attributes before opset 10, constant inputs
//     after; clamped as the kernel does), Tile (tiles/axis inputs before opset 6, repeats after).
#include <algorithm>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "kernels/cpu/common.h"

namespace kiln::infer {
namespace {

void Reshape(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const bool allowzero = ctx.info().GetInt("allowzero", 0) != 0;
  std::vector<int64_t> dims;
  if (ctx.opset() < 5) {
    if (!ctx.info().HasAttribute("shape")) ctx.Fail("attribute 'shape' is required");
    dims = ctx.info().GetInts("shape");
  } else if (const std::optional<std::vector<int64_t>> given = ConstantInts(ctx, 1)) {
    if (ctx.InputValue(1)->shape().rank() != 1) {
      ctx.Fail("input 'shape' must be 1-D, not shape " + ctx.InputValue(1)->shape().ToString());
    }
    dims = *given;
  } else if (const std::optional<std::vector<int64_t>> named = InputDimsValue(ctx, 1)) {
    dims = *named;  // computed from shapes: values and symbols
  } else {
    // The output rank is the length of 'shape' when that is known.
    const std::optional<std::vector<int64_t>> s = InputDims(ctx, 1);
    const bool length_known = s && s->size() == 1 && IsKnownDim((*s)[0]);
    SetOutputDims(ctx, 0, type,
                  length_known ? std::optional(std::vector<int64_t>(static_cast<size_t>((*s)[0]),
                                                                    kUnknownDim))
                               : std::nullopt);
    return;
  }
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  std::optional<size_t> inferred;
  bool has_zero = false;
  std::vector<bool> copied_unknown(dims.size(), false);  // 0 copying an unknown input dimension
  std::vector<int64_t> out = dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (inferred) ctx.Fail("shape " + DimsText(dims) + " has more than one -1 dimension");
      inferred = i;
    } else if (IsSymbolicDim(dims[i])) {
      continue;  // that dimension
    } else if (dims[i] < -1) {
      ctx.Fail("shape " + DimsText(dims) + " has dimension " + std::to_string(dims[i]) +
               " at index " + std::to_string(i));
    } else if (dims[i] == 0) {
      has_zero = true;
      if (allowzero) continue;
      if (!x) {
        out[i] = kUnknownDim;
        continue;
      }
      if (i >= x->size()) {
        ctx.Fail("shape " + DimsText(dims) + " copies dimension " + std::to_string(i) +
                 " (0) but input 'data' " + DimsText(*x) + " has rank " +
                 std::to_string(x->size()));
      }
      out[i] = (*x)[i];
      copied_unknown[i] = !IsKnownDim(out[i]);
    }
  }
  if (allowzero && has_zero && inferred) {
    ctx.Fail("shape " + DimsText(dims) + " has both 0 and -1 while allowzero is 1");
  }
  if (inferred) out[*inferred] = kUnknownDim;
  if (!x) {
    SetOutputDims(ctx, 0, type, out);
    return;
  }
  // Element counts with the unknown input dimensions that 0 copies, and the symbols on both sides,
  // cancelled out of both sides.
  bool cancelled = false;
  std::vector<int64_t> in_rest;
  for (size_t i = 0; i < x->size(); ++i) {
    if (i < copied_unknown.size() && copied_unknown[i]) {
      cancelled = true;
    } else {
      in_rest.push_back((*x)[i]);
    }
  }
  std::vector<int64_t> out_rest;
  for (size_t i = 0; i < out.size(); ++i) {
    if ((!inferred || i != *inferred) && !copied_unknown[i]) out_rest.push_back(out[i]);
  }
  for (int64_t& o : out_rest) {
    if (!IsSymbolicDim(o)) continue;
    auto it = std::find(in_rest.begin(), in_rest.end(), o);
    if (it == in_rest.end()) continue;
    *it = 1;
    o = 1;
    cancelled = true;
  }
  const int64_t in_count = ProductOfDims(in_rest, 0, in_rest.size());
  const int64_t out_count = ProductOfDims(out_rest, 0, out_rest.size());
  if (!IsKnownDim(in_count) || !IsKnownDim(out_count)) {
    SetOutputDims(ctx, 0, type, out);
    return;
  }
  if (inferred) {
    if (out_count == 0 || in_count % out_count != 0) {
      ctx.Fail("cannot infer the -1 dimension of shape " + DimsText(dims) +
               " for input 'data' of shape " + DimsText(*x));
    }
    out[*inferred] = in_count / out_count;
  } else if (!cancelled && in_count != out_count) {
    ctx.Fail("cannot reshape input 'data' " + DimsText(*x) + " (" + std::to_string(in_count) +
             " elements) to " + DimsText(dims));
  }
  SetOutputDims(ctx, 0, type, out);
}

// The product of dims[begin, end) with symbols: a symbol when it is the only one and every other
// dimension is 1, else as ProductOfDims.
int64_t NamedProductOfDims(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t symbol = kUnknownDim;
  bool others_one = true;
  for (size_t i = begin; i < end && i < dims.size(); ++i) {
    if (IsSymbolicDim(dims[i]) && symbol == kUnknownDim) {
      symbol = dims[i];
    } else {
      others_one = others_one && dims[i] == 1;
    }
  }
  return symbol != kUnknownDim && others_one ? symbol : ProductOfDims(dims, begin, end);
}

void Flatten(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  std::vector<int64_t> out = {kUnknownDim, kUnknownDim};
  if (x) {
    const int64_t axis = ctx.info().GetInt("axis", 1);
    const auto rank = static_cast<int64_t>(x->size());
    if (axis > rank || axis < (ctx.opset() >= 11 ? -rank : 0)) {
      ctx.Fail("axis " + std::to_string(axis) + " is out of range for input 'input' " +
               DimsText(*x));
    }
    const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    out = {NamedProductOfDims(*x, 0, a), NamedProductOfDims(*x, a, x->size())};
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

// Squeeze and Unsqueeze between ranks 0 and 1 keep the elements in order: so does the input's
// dims_value.
void KeepDimsValue(InferenceContext& ctx, size_t in_rank, size_t out_rank) {
  const TensorFacts* f = ctx.Input(0);
  if (in_rank <= 1 && out_rank <= 1 && f->dims_value) ctx.SetOutputDimsValue(0, *f->dims_value);
}

// Squeeze/Unsqueeze axes: the attribute before opset 13, the constant input after. `given` says
// whether there are any; nullopt when they exist but are not known.
std::optional<std::vector<int64_t>> SqueezeAxes(const InferenceContext& ctx, bool& given) {
  if (ctx.opset() < 13) {
    given = ctx.info().HasAttribute("axes");
    return ctx.info().GetInts("axes");
  }
  given = !IsMissing(ctx, 1);
  if (!given) return std::vector<int64_t>{};
  std::optional<std::vector<int64_t>> axes = ConstantInts(ctx, 1);
  if (axes && ctx.InputValue(1)->shape().rank() > 1) {
    ctx.Fail("input 'axes' must be 1-D, not shape " + ctx.InputValue(1)->shape().ToString());
  }
  return axes;
}

// Sorted, normalised axes of a tensor of `rank`; fails on one out of range or repeated.
std::vector<size_t> UniqueAxes(const InferenceContext& ctx, const std::vector<int64_t>& axes,
                               size_t rank) {
  std::vector<size_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) out.push_back(RequireAxis(ctx, a, rank, "axes entry", "data"));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    ctx.Fail("axes " + DimsText(axes) + " repeat an axis");
  }
  return out;
}

void Squeeze(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  bool given = false;
  const std::optional<std::vector<int64_t>> axes = SqueezeAxes(ctx, given);
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (!x || !axes) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  std::vector<bool> drop(x->size(), false);
  if (given) {
    for (size_t a : UniqueAxes(ctx, *axes, x->size())) {
      if (IsKnownDim((*x)[a]) && (*x)[a] != 1) {
        ctx.Fail("cannot squeeze axis " + std::to_string(a) + " of input 'data' " + DimsText(*x) +
                 ": its size is not 1");
      }
      drop[a] = true;
    }
  } else {
    for (size_t i = 0; i < x->size(); ++i) {
      if (!IsKnownDim((*x)[i])) {  // whether it goes depends on its size
        SetOutputDims(ctx, 0, type, std::nullopt);
        return;
      }
      drop[i] = (*x)[i] == 1;
    }
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < x->size(); ++i) {
    if (!drop[i]) out.push_back((*x)[i]);
  }
  SetOutputDims(ctx, 0, type, out);
  KeepDimsValue(ctx, x->size(), out.size());
}

void Unsqueeze(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  bool given = false;
  const std::optional<std::vector<int64_t>> axes = SqueezeAxes(ctx, given);
  if (!given)
    ctx.Fail(ctx.opset() < 13 ? "attribute 'axes' is required" : "input 'axes' is required");
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (!x || !axes) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const size_t rank = x->size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (size_t a : UniqueAxes(ctx, *axes, rank)) inserted[a] = true;
  std::vector<int64_t> out(rank, 1);
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (!inserted[i]) out[i] = (*x)[next++];
  }
  SetOutputDims(ctx, 0, type, out);
  KeepDimsValue(ctx, x->size(), out.size());
}

void ShapeOp(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  int64_t length = kUnknownDim;
  if (x) {
    const auto rank = static_cast<int64_t>(x->size());
    const int64_t start_attr = ctx.opset() >= 15 ? ctx.info().GetInt("start", 0) : 0;
    const int64_t end_attr = ctx.opset() >= 15 && ctx.info().HasAttribute("end")
                                 ? ctx.info().GetInt("end", 0)
                                 : INT64_MAX;
    const auto clamp = [rank](int64_t v) {
      return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank);
    };
    const int64_t start = clamp(start_attr);
    length = std::max(start, clamp(end_attr)) - start;
    const auto first = x->begin() + start;
    const std::vector<int64_t> taken(first, first + length);
    if (std::all_of(taken.begin(), taken.end(), IsNamedDim)) ctx.SetOutputDimsValue(0, taken);
  }
  SetOutputDims(ctx, 0, DataType::kInt64, std::vector<int64_t>{length});
}

void Size(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kInt64, std::vector<int64_t>{});
}

void Transpose(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::vector<int64_t> perm = ctx.info().GetInts("perm");
  const bool has_perm = ctx.info().HasAttribute("perm");
  std::optional<std::vector<int64_t>> out;
  if (x) {
    const size_t rank = x->size();
    if (has_perm && perm.size() != rank) {
      ctx.Fail("perm " + DimsText(perm) + " has " + std::to_string(perm.size()) +
               " entries for input 'data' " + DimsText(*x));
    }
    out = std::vector<int64_t>(rank);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t p = has_perm ? perm[i] : static_cast<int64_t>(rank - 1 - i);
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) {
        ctx.Fail("perm " + DimsText(perm) + " is not a permutation of the axes of input 'data' " +
                 DimsText(*x));
      }
      seen[static_cast<size_t>(p)] = true;
      (*out)[i] = (*x)[static_cast<size_t>(p)];
    }
  } else if (has_perm) {
    out = std::vector<int64_t>(perm.size(), kUnknownDim);
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

// DepthToSpace and SpaceToDepth: [N, C, H, W] with `blocksize`.
template <bool kToSpace>
void BlockRearrange(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  if (!ctx.info().HasAttribute("blocksize")) ctx.Fail("attribute 'blocksize' is required");
  const int64_t b = ctx.info().GetInt("blocksize", 0);
  if (b < 1) ctx.Fail("attribute 'blocksize' must be positive, not " + std::to_string(b));
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::vector<int64_t>(4, kUnknownDim));
    return;
  }
  if (x->size() != 4) {
    ctx.Fail("input 'input' must have rank 4 (N,C,H,W), not shape " + DimsText(*x));
  }
  std::vector<int64_t>& d = *x;
  const int64_t bb = MulDims(b, b);
  if (kToSpace) {
    if (IsKnownDim(d[1]) && IsKnownDim(bb) && d[1] % bb != 0) {
      ctx.Fail("channels of input 'input' " + DimsText(d) +
               " are not divisible by blocksize^2 = " + std::to_string(bb));
    }
    d[1] = IsKnownDim(d[1]) && IsKnownDim(bb) ? d[1] / bb : kUnknownDim;
    d[2] = MulDims(d[2], b);
    d[3] = MulDims(d[3], b);
  } else {
    for (size_t i : {size_t{2}, size_t{3}}) {
      if (IsKnownDim(d[i]) && d[i] % b != 0) {
        ctx.Fail("height and width of input 'input' " + DimsText(d) +
                 " are not divisible by blocksize " + std::to_string(b));
      }
      d[i] = IsKnownDim(d[i]) ? d[i] / b : kUnknownDim;
    }
    d[1] = MulDims(d[1], bb);
  }
  SetOutputDims(ctx, 0, type, d);
}

void Concat(InferenceContext& ctx) {
  const int64_t axis_attr =
      ctx.opset() < 4 ? ctx.info().GetInt("axis", 1) : ctx.info().GetInt("axis", INT64_MIN);
  if (axis_attr == INT64_MIN) ctx.Fail("attribute 'axis' is required");
  DataType type = DataType::kUndefined;
  std::optional<std::vector<int64_t>> out;
  std::optional<size_t> axis;
  bool all_ranks_known = true;
  size_t first = 0;  // the first input present
  while (first < ctx.input_count() && IsMissing(ctx, first)) ++first;
  for (size_t i = first; i < ctx.input_count(); ++i) {
    if (IsMissing(ctx, i)) continue;
    if (type == DataType::kUndefined) type = InputType(ctx, i);
    const std::optional<std::vector<int64_t>> d = InputNamedDims(ctx, i);
    if (!d) {
      all_ranks_known = false;
      continue;
    }
    if (!out) {
      if (d->empty()) ctx.Fail("cannot concatenate scalars (input " + std::to_string(i) + ")");
      axis = RequireAxis(ctx, axis_attr, d->size(), "axis", "inputs");
      out = *d;
      continue;
    }
    bool same = d->size() == out->size();
    for (size_t k = 0; same && k < d->size(); ++k) {
      int64_t& o = (*out)[k];
      if (k == *axis) {
        o = AddDims(o, (*d)[k]);
      } else if (!IsKnownDim(o)) {
        o = (*d)[k];
      } else {
        same = !IsKnownDim((*d)[k]) || (*d)[k] == o;
      }
    }
    if (!same) {
      ctx.Fail("input " + std::to_string(i) + " has shape " + DimsText(*d) +
               ", which does not match the shape " + DimsText(*out) + " of the inputs before it" +
               " outside axis " + std::to_string(*axis));
    }
  }
  if (out && !all_ranks_known) (*out)[*axis] = kUnknownDim;
  SetOutputDims(ctx, 0, type, out);
  // Shapes put together from pieces (1-D, axis 0): dimensions too when every piece is.
  if (out && out->size() == 1 && (type == DataType::kInt64 || type == DataType::kInt32)) {
    std::vector<int64_t> joined;
    for (size_t i = first; i < ctx.input_count(); ++i) {
      if (IsMissing(ctx, i)) continue;
      const std::optional<std::vector<int64_t>> v = InputDimsValue(ctx, i);
      if (!v) return;
      joined.insert(joined.end(), v->begin(), v->end());
    }
    ctx.SetOutputDimsValue(0, std::move(joined));
  }
}

void Split(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const size_t parts = ctx.output_count();
  const int64_t opset = ctx.opset();
  const int64_t axis_attr = ctx.info().GetInt("axis", 0);
  const bool has_num_outputs = opset >= 18 && ctx.info().HasAttribute("num_outputs");
  if (has_num_outputs) {
    const int64_t n = ctx.info().GetInt("num_outputs", 0);
    if (n < 1 || static_cast<size_t>(n) != parts) {
      ctx.Fail("attribute 'num_outputs' is " + std::to_string(n) + " but the node has " +
               std::to_string(parts) + " outputs");
    }
  }
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  // The sizes along the axis; nullopt when not known.
  std::optional<std::vector<int64_t>> sizes;
  size_t axis = 0;
  int64_t dim = kUnknownDim;
  if (x) {
    axis = RequireAxis(ctx, axis_attr, x->size(), "axis", "input");
    dim = (*x)[axis];
  }
  const bool split_input = (opset == 1 || opset >= 13) && !IsMissing(ctx, 1);
  if (opset < 13 && ctx.info().HasAttribute("split")) {
    sizes = ctx.info().GetInts("split");
  } else if (split_input && !ctx.InputValue(1)) {
    sizes = std::nullopt;  // given at run time
  } else if (split_input && ctx.InputValue(1)->element_count() != 0) {
    sizes = ConstantInts(ctx, 1);
  } else if (parts > 0 && IsKnownDim(dim)) {
    const auto n = static_cast<int64_t>(parts);
    if (has_num_outputs) {
      const int64_t chunk = dim / n + (dim % n != 0 ? 1 : 0);
      sizes = std::vector<int64_t>(parts, chunk);
      sizes->back() = dim - chunk * (n - 1);
      if (sizes->back() < 0) {
        ctx.Fail("dimension " + std::to_string(dim) + " cannot be split into " + std::to_string(n) +
                 " parts of " + std::to_string(chunk));
      }
    } else {
      if (dim % n != 0) {
        ctx.Fail("dimension " + std::to_string(dim) + " cannot be split into " + std::to_string(n) +
                 " equal parts");
      }
      sizes = std::vector<int64_t>(parts, dim / n);
    }
  }
  if (sizes) {
    if (sizes->size() != parts) {
      ctx.Fail("split " + DimsText(*sizes) + " has " + std::to_string(sizes->size()) +
               " entries for " + std::to_string(parts) + " outputs");
    }
    int64_t total = 0;
    for (size_t i = 0; i < sizes->size(); ++i) {
      const int64_t s = (*sizes)[i];
      if (s < 0) {
        ctx.Fail("split entry " + std::to_string(i) + " is " + std::to_string(s) +
                 "; sizes cannot be negative");
      }
      if (IsKnownDim(dim) && s > dim - total) {  // (dim is known only when x is)
        ctx.Fail("split " + DimsText(*sizes) + " does not add up to dimension " +
                 std::to_string(axis) + " of input 'input' " + DimsText(*x));
      }
      total = AddDims(total, s);
    }
    if (IsKnownDim(dim) && total != dim) {
      ctx.Fail("split " + DimsText(*sizes) + " adds up to " + std::to_string(total) +
               ", not dimension " + std::to_string(axis) + " of input 'input' " + DimsText(*x));
    }
  }
  for (size_t i = 0; i < parts; ++i) {
    if (!ctx.WantsOutput(i)) continue;
    std::optional<std::vector<int64_t>> out = x;
    if (out) (*out)[axis] = sizes ? (*sizes)[i] : kUnknownDim;
    SetOutputDims(ctx, i, type, out);
  }
}

// Slice's starts, ends, axes and steps: the attributes before opset 10, the constant inputs after.
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes = false;
};

// nullopt when an input is not known.
std::optional<SliceParams> ReadSlice(const InferenceContext& ctx) {
  SliceParams p;
  if (ctx.opset() < 10) {
    for (const char* name : {"starts", "ends"}) {
      if (!ctx.info().HasAttribute(name)) {
        ctx.Fail(std::string("attribute '") + name + "' is required");
      }
    }
    p.starts = ctx.info().GetInts("starts");
    p.ends = ctx.info().GetInts("ends");
    p.has_axes = ctx.info().HasAttribute("axes");
    p.axes = ctx.info().GetInts("axes");
    return p;
  }
  const char* names[] = {"", "starts", "ends", "axes", "steps"};
  std::vector<int64_t>* targets[] = {nullptr, &p.starts, &p.ends, &p.axes, &p.steps};
  for (size_t i = 1; i <= 4; ++i) {
    if (i >= 3 && IsMissing(ctx, i)) continue;
    const std::optional<std::vector<int64_t>> v = ConstantInts(ctx, i);
    if (!v) return std::nullopt;
    if (ctx.InputValue(i)->shape().rank() != 1) {
      ctx.Fail(std::string("input '") + names[i] + "' must be 1-D, not shape " +
               ctx.InputValue(i)->shape().ToString());
    }
    *targets[i] = *v;
  }
  p.has_axes = !IsMissing(ctx, 3);
  return p;
}

void Slice(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  // Axes the slice does not touch keep their symbols.
  std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::optional<SliceParams> p = ReadSlice(ctx);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  if (!p) {
    // Which axes change is not known: every dimension may, but the rank stays.
    SetOutputDims(ctx, 0, type, std::vector<int64_t>(x->size(), kUnknownDim));
    return;
  }
  const size_t n = p->starts.size();
  if (p->ends.size() != n || (p->has_axes && p->axes.size() != n) ||
      (!p->steps.empty() && p->steps.size() != n)) {
    ctx.Fail("starts " + DimsText(p->starts) + ", ends " + DimsText(p->ends) +
             (p->has_axes ? ", axes " + DimsText(p->axes) : std::string()) +
             (p->steps.empty() ? std::string() : ", steps " + DimsText(p->steps)) +
             " differ in length");
  }
  std::vector<bool> seen(x->size(), false);
  for (size_t i = 0; i < n; ++i) {
    const size_t axis = RequireAxis(ctx, p->has_axes ? p->axes[i] : static_cast<int64_t>(i),
                                    x->size(), "axes entry", "data");
    if (seen[axis]) ctx.Fail("axes " + DimsText(p->axes) + " repeat an axis");
    seen[axis] = true;
    const int64_t step = p->steps.empty() ? 1 : p->steps[i];
    if (step == 0) ctx.Fail("steps " + DimsText(p->steps) + " has a 0");
    const int64_t dim = (*x)[axis];
    if (!IsKnownDim(dim)) {
      (*x)[axis] = kUnknownDim;  // the count depends on the clamping
      continue;
    }
    (*x)[axis] = cpu::ClampSliceAxis(p->starts[i], p->ends[i], step, dim).count;
  }
  SetOutputDims(ctx, 0, type, x);
}

void Tile(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  std::vector<int64_t> repeats(x->size(), 1);
  if (ctx.opset() < 6) {
    const std::optional<int64_t> tiles = ConstantScalarInt(ctx, 1);
    const std::optional<int64_t> axis = ConstantScalarInt(ctx, 2);
    if (!axis) {
      SetOutputDims(ctx, 0, type, std::vector<int64_t>(x->size(), kUnknownDim));
      return;
    }
    const size_t a = RequireAxis(ctx, *axis, x->size(), "axis", "input");
    repeats[a] = tiles ? *tiles : kUnknownDim;
  } else {
    const std::optional<std::vector<int64_t>> r = ConstantInts(ctx, 1);
    if (!r) {
      SetOutputDims(ctx, 0, type, std::vector<int64_t>(x->size(), kUnknownDim));
      return;
    }
    if (ctx.InputValue(1)->shape().rank() != 1 || r->size() != x->size()) {
      ctx.Fail("input 'repeats' has shape " + ctx.InputValue(1)->shape().ToString() +
               " for input 'input' " + DimsText(*x));
    }
    repeats = *r;
    for (int64_t v : repeats) {
      if (v < 0) ctx.Fail("repeats " + DimsText(repeats) + " has a negative entry");
    }
  }
  for (size_t k = 0; k < x->size(); ++k) (*x)[k] = MulDims((*x)[k], repeats[k]);
  SetOutputDims(ctx, 0, type, x);
}

constexpr RuleDef kRules[] = {
    {"Reshape", Reshape},
    {"Flatten", Flatten},
    {"Squeeze", Squeeze},
    {"Unsqueeze", Unsqueeze},
    {"Shape", ShapeOp},
    {"Size", Size},
    {"Transpose", Transpose},
    {"DepthToSpace", BlockRearrange<true>},
    {"SpaceToDepth", BlockRearrange<false>},
    {"Concat", Concat},
    {"Split", Split},
    {"Slice", Slice},
    {"Tile", Tile},
};

}  // namespace

std::span<const RuleDef> ShapeRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
