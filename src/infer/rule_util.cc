#include "infer/rule_util.h"

#include <utility>

namespace kiln::infer {

std::optional<std::vector<int64_t>> InputNamedDims(const InferenceContext& ctx, size_t i) {
  const TensorFacts* f = ctx.Input(i);
  if (f == nullptr || !f->shape) return std::nullopt;
  std::vector<int64_t> dims = f->shape->dims();
  for (int64_t& d : dims) {
    if (d < 0 && !IsSymbolicDim(d)) d = kUnknownDim;
  }
  return dims;
}

std::optional<std::vector<int64_t>> InputDims(const InferenceContext& ctx, size_t i) {
  std::optional<std::vector<int64_t>> dims = InputNamedDims(ctx, i);
  if (dims) {
    for (int64_t& d : *dims) d = d < 0 ? kUnknownDim : d;
  }
  return dims;
}

DataType InputType(const InferenceContext& ctx, size_t i) {
  const TensorFacts* f = ctx.Input(i);
  return f == nullptr ? DataType::kUndefined : f->type;
}

void SetOutputDims(InferenceContext& ctx, size_t i, DataType type,
                   const std::optional<std::vector<int64_t>>& dims) {
  if (!dims) {
    ctx.SetOutput(i, type, std::nullopt);
    return;
  }
  std::vector<int64_t> d = *dims;
  for (int64_t& v : d) {
    if (v >= 0 || !IsSymbolicDim(v)) {
      if (v < 0) v = kUnknownDim;
      continue;
    }
    // A symbol stays only where an input has it (in its shape or its dims_value): a rule passes
    // dimensions through, it does not make symbols.
    bool from_input = false;
    for (size_t k = 0; k < ctx.input_count() && !from_input; ++k) {
      const TensorFacts* f = ctx.Input(k);
      if (f == nullptr) continue;
      if (f->shape) {
        for (int64_t in : f->shape->dims()) from_input = from_input || in == v;
      }
      if (f->dims_value) {
        for (int64_t in : *f->dims_value) from_input = from_input || in == v;
      }
    }
    if (!from_input) v = kUnknownDim;
  }
  ctx.SetOutput(i, type, Shape(std::move(d)));
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = dims;
  for (int64_t& v : d) v = v < 0 ? kUnknownDim : v;  // a symbol reads as unknown
  return Shape(std::move(d)).ToString();
}

void BroadcastInto(const InferenceContext& ctx, std::vector<int64_t>& out,
                   const std::vector<int64_t>& dims, const std::string& name) {
  const std::vector<int64_t> before = out;
  if (dims.size() > out.size()) out.insert(out.begin(), dims.size() - out.size(), 1);
  const size_t offset = out.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t& o = out[offset + i];
    const int64_t d = dims[i];
    if (!IsKnownDim(d)) {
      // An unknown dimension is 1 or the other one: the other one decides unless it is 1 (then
      // the unknown one does), or unknown too (then only the same symbol on both sides names it).
      if (o == 1) {
        o = IsSymbolicDim(d) ? d : kUnknownDim;
      } else if (!IsKnownDim(o) && o != d) {
        o = kUnknownDim;
      }
      continue;
    }
    if (!IsKnownDim(o)) {
      if (d != 1) o = d;
      continue;
    }
    if (d == o || d == 1) continue;
    if (o == 1) {
      o = d;
      continue;
    }
    ctx.Fail("input '" + name + "' has shape " + DimsText(dims) +
             ", which does not broadcast with " + DimsText(before) + " (" + std::to_string(d) +
             " vs " + std::to_string(o) + ")");
  }
}

std::optional<std::vector<int64_t>> BroadcastInputs(const InferenceContext& ctx,
                                                    std::span<const NamedInput> inputs) {
  std::optional<std::vector<int64_t>> out;
  bool rank_known = true;
  for (const NamedInput& in : inputs) {
    if (IsMissing(ctx, in.index)) continue;
    const std::optional<std::vector<int64_t>> dims = InputNamedDims(ctx, in.index);
    if (!dims) {
      rank_known = false;
      continue;
    }
    if (!out) {
      out = *dims;
    } else {
      BroadcastInto(ctx, *out, *dims, in.name);
    }
  }
  if (!rank_known) return std::nullopt;
  return out;
}

std::optional<size_t> NormalizeAxis(int64_t axis, size_t rank) noexcept {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

size_t RequireAxis(const InferenceContext& ctx, int64_t axis, size_t rank, const std::string& what,
                   const std::string& input) {
  const std::optional<size_t> a = NormalizeAxis(axis, rank);
  if (!a) {
    ctx.Fail(what + " " + std::to_string(axis) + " is out of range for input '" + input +
             "' of rank " + std::to_string(rank));
  }
  return *a;
}

std::optional<std::vector<int64_t>> ConstantInts(const InferenceContext& ctx, size_t i) {
  const Tensor* t = ctx.InputValue(i);
  if (t == nullptr) return std::nullopt;
  const size_t n = t->element_count();
  std::vector<int64_t> values(n);
  if (t->type() == DataType::kInt64) {
    const auto* p = static_cast<const int64_t*>(t->data());
    for (size_t k = 0; k < n; ++k) values[k] = p[k];
  } else if (t->type() == DataType::kInt32) {
    const auto* p = static_cast<const int32_t*>(t->data());
    for (size_t k = 0; k < n; ++k) values[k] = p[k];
  } else {
    return std::nullopt;
  }
  return values;
}

std::optional<std::vector<int64_t>> InputDimsValue(const InferenceContext& ctx, size_t i) {
  const TensorFacts* f = ctx.Input(i);
  if (f == nullptr) return std::nullopt;
  if (f->dims_value) return f->dims_value;
  const Tensor* t = f->value.get();
  if (t == nullptr || t->shape().rank() > 1) return std::nullopt;
  std::optional<std::vector<int64_t>> v = ConstantInts(ctx, i);
  if (v) {
    for (int64_t x : *v) {
      if (IsSymbolicDim(x)) return std::nullopt;
    }
  }
  return v;
}

std::optional<int64_t> ConstantScalarInt(const InferenceContext& ctx, size_t i) {
  const Tensor* t = ctx.InputValue(i);
  if (t == nullptr || t->shape().rank() > 1) return std::nullopt;
  const std::optional<std::vector<int64_t>> v = ConstantInts(ctx, i);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

int64_t MulDims(int64_t a, int64_t b) noexcept {
  if (a == 0 || b == 0) return 0;
  if (!IsKnownDim(a) || !IsKnownDim(b)) return kUnknownDim;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return kUnknownDim;
  return r;
}

int64_t AddDims(int64_t a, int64_t b) noexcept {
  if (!IsKnownDim(a) || !IsKnownDim(b)) return kUnknownDim;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return kUnknownDim;
  return r;
}

int64_t ProductOfDims(const std::vector<int64_t>& dims, size_t begin, size_t end) noexcept {
  int64_t p = 1;
  bool unknown = false;
  for (size_t i = begin; i < end && i < dims.size(); ++i) {
    if (dims[i] == 0) return 0;
    if (unknown) continue;
    p = MulDims(p, dims[i]);
    unknown = !IsKnownDim(p);
  }
  return unknown ? kUnknownDim : p;
}

}  // namespace kiln::infer
