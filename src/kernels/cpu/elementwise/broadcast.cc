// Broadcast shapes (numpy and legacy) and the BroadcastPlan's dimension collapsing; see
// broadcast.h.
#include "kernels/cpu/elementwise/broadcast.h"

#include "core/shape.h"
#include "kernels/cpu/common.h"

namespace kiln::cpu {

void BroadcastInto(const KernelInfo& info, std::vector<int64_t>& out,
                   const std::vector<int64_t>& dims, const std::string& name) {
  const std::vector<int64_t> before = out;
  if (dims.size() > out.size()) out.insert(out.begin(), dims.size() - out.size(), 1);
  const size_t offset = out.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t& o = out[offset + i];
    const int64_t d = dims[i];
    if (d == o || d == 1) continue;
    if (o == 1) {
      o = d;
      continue;
    }
    info.Fail(ErrorCode::kInvalidArgument,
              "input '" + name + "' has shape " + Shape(dims).ToString() +
                  ", which does not broadcast with " + Shape(before).ToString() + " (" +
                  std::to_string(d) + " vs " + std::to_string(o) + ")");
  }
}

bool BroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[offset + i]) return false;
  }
  return true;
}

std::vector<int64_t> LegacyBroadcastDims(const KernelInfo& info, const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b, bool broadcast,
                                         std::optional<int64_t> axis, const char* a_name,
                                         const char* b_name) {
  const std::string shapes = std::string("input '") + b_name + "' has shape " +
                             Shape(b).ToString() + " and '" + a_name + "' has shape " +
                             Shape(a).ToString();
  if (!broadcast) {
    if (a != b) {
      info.Fail(ErrorCode::kInvalidArgument,
                shapes + "; they must be equal unless attribute 'broadcast' is 1");
    }
    return b;
  }
  std::vector<int64_t> out(a.size(), 1);
  if (Shape(b).ElementCount() == std::optional<size_t>(1)) return out;
  if (b.size() > a.size()) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes + "; with legacy broadcasting its rank may not exceed the first input's");
  }
  const size_t start = axis ? NormalizeAxis(info, *axis, a.size()) : a.size() - b.size();
  bool fits = start + b.size() <= a.size();
  for (size_t i = 0; fits && i < b.size(); ++i) fits = b[i] == a[start + i];
  if (!fits) {
    info.Fail(ErrorCode::kInvalidArgument,
              shapes + "; legacy broadcasting needs it to match the dimensions from axis " +
                  std::to_string(start));
  }
  std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(start));
  return out;
}

LegacyBroadcast LegacyBroadcast::FromInfo(const KernelInfo& info) {
  LegacyBroadcast legacy;
  legacy.broadcast = info.GetInt("broadcast", 0) != 0;
  if (info.HasAttribute("axis")) legacy.axis = info.GetInt("axis", 0);
  return legacy;
}

BinaryShapes ResolveBinaryShapes(const KernelInfo& info, const std::vector<int64_t>& a,
                                 const std::vector<int64_t>& b,
                                 const std::optional<LegacyBroadcast>& legacy, const char* a_name,
                                 const char* b_name) {
  BinaryShapes shapes{a, a, b};
  if (legacy) {
    shapes.b = LegacyBroadcastDims(info, a, b, legacy->broadcast, legacy->axis, a_name, b_name);
  } else {
    BroadcastInto(info, shapes.out, b, b_name);
  }
  return shapes;
}

BroadcastPlan::BroadcastPlan(const std::vector<int64_t>& out,
                             std::initializer_list<const std::vector<int64_t>*> inputs) {
  const size_t n = inputs.size();
  if (n == 0 || n > kMaxOperands) {
    throw Error(ErrorCode::kFail, "BroadcastPlan: " + std::to_string(n) + " operands");
  }
  size_ = 1;
  for (int64_t d : out) size_ *= static_cast<size_t>(d);
  if (size_ == 0) return;

  // Each input's strides in output coordinates: 0 along broadcast dimensions.
  const size_t rank = out.size();
  std::array<std::vector<size_t>, kMaxOperands> strides;
  size_t k = 0;
  for (const std::vector<int64_t>* dims : inputs) {
    if (!BroadcastsTo(*dims, out)) {
      throw Error(ErrorCode::kFail, "BroadcastPlan: " + Shape(*dims).ToString() +
                                        " does not broadcast to " + Shape(out).ToString());
    }
    strides[k].assign(rank, 0);
    const size_t offset = rank - dims->size();
    size_t stride = 1;
    for (size_t j = dims->size(); j-- > 0;) {
      if ((*dims)[j] != 1) strides[k][offset + j] = stride;
      stride *= static_cast<size_t>((*dims)[j]);
    }
    ++k;
  }

  // Drop size-1 dimensions and merge a dimension into the one before it when every input
  // continues contiguously across the boundary (or is broadcast across both).
  std::vector<size_t> dims;
  std::array<std::vector<size_t>, kMaxOperands> merged;
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
  dims.pop_back();
  for (size_t i = 0; i < n; ++i) {
    step_[i] = merged[i].back();
    merged[i].pop_back();
    outer_strides_[i] = std::move(merged[i]);
  }
  outer_dims_ = std::move(dims);
  rows_ = size_ / inner_;
}

}  // namespace kiln::cpu
