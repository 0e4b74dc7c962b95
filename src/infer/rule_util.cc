#include "infer/rule_util.h"

#include <utility>

namespace kiln::infer {

std::optional<std::vector<int64_t>> InputDims(const InferenceContext& ctx, size_t i) {
  const TensorFacts* f = ctx.Input(i);
  if (f == nullptr || !f->shape) return std::nullopt;
  std::vector<int64_t> dims = f->shape->dims();
  for (int64_t& d : dims) {
    if (d < 0) d = kUnknownDim;
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
    if (v < 0) v = kUnknownDim;
  }
  ctx.SetOutput(i, type, Shape(std::move(d)));
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return Shape(dims).ToString();
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
      // An unknown dimension is 1 or the other one: the other one decides unless it is 1.
      if (o == 1) o = kUnknownDim;
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
    const std::optional<std::vector<int64_t>> dims = InputDims(ctx, in.index);
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
