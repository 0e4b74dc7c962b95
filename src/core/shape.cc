#include "core/shape.h"

#include <limits>
#include <utility>

#include "core/error.h"

namespace kiln {

Shape::Shape(std::vector<int64_t> dims) : dims_(std::move(dims)), symbols_(dims_.size()) {}

Shape::Shape(std::vector<int64_t> dims, std::vector<std::string> symbols)
    : dims_(std::move(dims)), symbols_(std::move(symbols)) {
  if (symbols_.size() != dims_.size()) {
    throw Error(ErrorCode::kFail, "Shape: " + std::to_string(symbols_.size()) +
                                      " symbolic names for rank " + std::to_string(dims_.size()));
  }
}

Shape Shape::FromUser(const char* argument, const int64_t* dims, size_t rank) {
  if (dims == nullptr && rank != 0) {
    ThrowInvalidArgument(argument, "is NULL but the rank is " + std::to_string(rank));
  }
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) {
      ThrowInvalidArgument(argument, "dimension " + std::to_string(i) + " is negative (" +
                                         std::to_string(dims[i]) + ")");
    }
  }
  Shape shape(std::vector<int64_t>(dims, dims + rank));
  if (!shape.ElementCount()) {
    ThrowInvalidArgument(argument,
                         "the product of the dimensions " + shape.ToString() + " overflows size_t");
  }
  return shape;
}

std::optional<size_t> Shape::ElementCount() const noexcept {
  for (int64_t d : dims_) {
    if (d < 0) return std::nullopt;
  }
  for (int64_t d : dims_) {
    if (d == 0) return 0;  // empty, however large the other dimensions
  }
  size_t count = 1;
  for (int64_t d : dims_) {
    const auto ud = static_cast<uint64_t>(d);
    if (count > std::numeric_limits<size_t>::max() / ud) return std::nullopt;
    count *= static_cast<size_t>(ud);
  }
  return count;
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i != 0) s += ",";
    s += (dims_[i] < 0 && !symbols_[i].empty()) ? symbols_[i] : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace kiln
