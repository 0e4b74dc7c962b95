// Broadcast shapes (numpy and legacy) and the BroadcastPlan's dimension collapsing; see
// broadcast.h.
#include "kernels/cpu/elementwise/broadcast.h"

#include <algorithm>
#include <string>

#include "core/shape.h"
#include "kernels/cpu/common.h"

namespace kiln::cpu {

namespace {

std::string Text(std::span<const int64_t> dims) {
  return Shape(std::vector<int64_t>(dims.begin(), dims.end())).ToString();
}

}  // namespace

void BroadcastInto(const KernelInfo& info, SmallVector<int64_t>& out, std::span<const int64_t> dims,
                   const char* name) {
  const SmallVector<int64_t> before = out;
  if (dims.size() > out.size()) {
    for (size_t i = out.size(); i < dims.size(); ++i) out.insert(0, 1);
  }
  const size_t offset = out.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t& o = out[offset + i];
    const int64_t d = dims[i];
    if (d == o || d == 1) continue;
    if (o == 1) {
      o = d;
      continue;
    }
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                               Text(dims) + ", which does not broadcast with " +
                                               Text(before.span()) + " (" + std::to_string(d) +
                                               " vs " + std::to_string(o) + ")");
  }
}

bool BroadcastsTo(std::span<const int64_t> from, std::span<const int64_t> to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[offset + i]) return false;
  }
  return true;
}

SmallVector<int64_t> LegacyBroadcastDims(const KernelInfo& info, std::span<const int64_t> a,
                                         std::span<const int64_t> b, bool broadcast,
                                         std::optional<int64_t> axis, const char* a_name,
                                         const char* b_name) {
  const auto shapes = [&] {
    return std::string("input '") + b_name + "' has shape " + Text(b) + " and '" + a_name +
           "' has shape " + Text(a);
  };
  if (!broadcast) {
    if (!std::equal(a.begin(), a.end(), b.begin(), b.end())) {
      info.Fail(ErrorCode::kInvalidArgument,
                shapes() + "; they must be equal unless attribute 'broadcast' is 1");
    }
    return SmallVector<int64_t>(b);
  }
  SmallVector<int64_t> out(a.size(), 1);
  size_t b_count = 1;
  for (int64_t d : b) b_count *= static_cast<size_t>(std::max<int64_t>(d, 0));
  if (b_count == 1) return out;
  if (b.size() > a.size()) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + "; with legacy broadcasting its rank may not exceed the first input's");
  }
  const size_t start = axis ? NormalizeAxis(info, *axis, a.size()) : a.size() - b.size();
  bool fits = start + b.size() <= a.size();
  // A dimension of 1 in B repeats along A's (the PyTorch exporter's legacy Add relies on it).
  for (size_t i = 0; fits && i < b.size(); ++i) fits = b[i] == a[start + i] || b[i] == 1;
  if (!fits) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes() + "; legacy broadcasting needs it to match the dimensions from axis " +
                  std::to_string(start));
  }
  std::copy(b.begin(), b.end(), out.begin() + start);
  return out;
}

LegacyBroadcast LegacyBroadcast::FromInfo(const KernelInfo& info) {
  LegacyBroadcast legacy;
  legacy.broadcast = info.GetInt("broadcast", 0) != 0;
  if (info.HasAttribute("axis")) legacy.axis = info.GetInt("axis", 0);
  return legacy;
}

BinaryShapes ResolveBinaryShapes(const KernelInfo& info, std::span<const int64_t> a,
                                 std::span<const int64_t> b,
                                 const std::optional<LegacyBroadcast>& legacy, const char* a_name,
                                 const char* b_name) {
  BinaryShapes shapes{SmallVector<int64_t>(a), SmallVector<int64_t>(a), SmallVector<int64_t>(b)};
  if (legacy) {
    shapes.b = LegacyBroadcastDims(info, a, b, legacy->broadcast, legacy->axis, a_name, b_name);
  } else {
    BroadcastInto(info, shapes.out, b, b_name);
  }
  return shapes;
}

BroadcastPlan::BroadcastPlan(std::span<const int64_t> out,
                             std::initializer_list<std::span<const int64_t>> inputs) {
  Init(out, std::span<const std::span<const int64_t>>(inputs.begin(), inputs.size()));
}

BroadcastPlan::BroadcastPlan(const std::vector<int64_t>& out,
                             std::initializer_list<const std::vector<int64_t>*> inputs) {
  std::array<std::span<const int64_t>, kMaxOperands> spans;
  size_t n = 0;
  for (const std::vector<int64_t>* dims : inputs) {
    if (n < kMaxOperands) spans[n] = *dims;
    ++n;
  }
  if (n > kMaxOperands) {
    throw Error(ErrorCode::kFail, "BroadcastPlan: " + std::to_string(n) + " operands");
  }
  Init(out, std::span<const std::span<const int64_t>>(spans.data(), n));
}

void BroadcastPlan::Init(std::span<const int64_t> out,
                         std::span<const std::span<const int64_t>> inputs) {
  const size_t n = inputs.size();
  if (n == 0 || n > kMaxOperands) {
    throw Error(ErrorCode::kFail, "BroadcastPlan: " + std::to_string(n) + " operands");
  }
  size_ = 1;
  for (int64_t d : out) size_ *= static_cast<size_t>(d);
  if (size_ == 0) return;

  // Each input's strides in output coordinates: 0 along broadcast dimensions.
  const size_t rank = out.size();
  std::array<SmallVector<size_t>, kMaxOperands> strides;
  size_t k = 0;
  for (std::span<const int64_t> dims : inputs) {
    if (!BroadcastsTo(dims, out)) {
      throw Error(ErrorCode::kFail,
                  "BroadcastPlan: " + Text(dims) + " does not broadcast to " + Text(out));
    }
    strides[k].assign(rank, 0);
    const size_t offset = rank - dims.size();
    size_t stride = 1;
    for (size_t j = dims.size(); j-- > 0;) {
      if (dims[j] != 1) strides[k][offset + j] = stride;
      stride *= static_cast<size_t>(dims[j]);
    }
    ++k;
  }

  // Drop size-1 dimensions and merge a dimension into the one before it when every input
  // continues contiguously across the boundary (or is broadcast across both).
  SmallVector<size_t> dims;
  std::array<SmallVector<size_t>, kMaxOperands> merged;
  for (size_t j = 0; j < rank; ++j) {
    const auto d = static_cast<size_t>(out[j]);
    if (d == 1) continue;
    bool mergeable = !dims.empty();
    for (size_t i = 0; mergeable && i < n; ++i) {
      mergeable = merged[i].back() == strides[i][j] * d;
    }
    if (mergeable) {
      dims.back() *= d;
      for (size_t i = 0; i < n; ++i) merged[i].back() = strides[i][j];
    } else {
      dims.push_back(d);
      for (size_t i = 0; i < n; ++i) merged[i].push_back(strides[i][j]);
    }
  }

  if (dims.empty()) {  // every input is a single element
    rows_ = 1;
    return;
  }
  inner_ = dims.back();
  dims.resize(dims.size() - 1);
  for (size_t i = 0; i < n; ++i) {
    step_[i] = merged[i].back();
    merged[i].resize(merged[i].size() - 1);
    outer_strides_[i] = merged[i];
  }
  outer_dims_ = dims;
  rows_ = size_ / inner_;
}

}  // namespace kiln::cpu
