// A tensor shape: dimensions (-1 for one not known until run time) and their symbolic names.
//
//   kiln::Shape s = kiln::Shape::FromUser("shape", dims, rank);  // throws on a negative dim
//   std::optional<size_t> n = s.ElementCount();                  // nullopt on overflow or -1
#ifndef KILN_CORE_SHAPE_H_
#define KILN_CORE_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

class Shape {
 public:
  Shape() = default;
  explicit Shape(std::vector<int64_t> dims);
  Shape(std::vector<int64_t> dims, std::vector<std::string> symbols);

  // Validates concrete dimensions given through the C ABI: `dims` may be NULL only when `rank` is
  // 0, every dimension must be >= 0 and their product must fit in size_t. Throws
  // kInvalidArgument naming `argument` and the offending dimension.
  static Shape FromUser(const char* argument, const int64_t* dims, size_t rank);

  size_t rank() const noexcept { return dims_.size(); }
  const std::vector<int64_t>& dims() const noexcept { return dims_; }
  // One entry per dimension; "" where the dimension has no name.
  const std::vector<std::string>& symbols() const noexcept { return symbols_; }

  // Product of the dimensions (1 for rank 0); nullopt when a dimension is unknown (< 0) or the
  // product overflows size_t.
  std::optional<size_t> ElementCount() const noexcept;

  // "[2,3,batch]" style text for messages.
  std::string ToString() const;

  bool operator==(const Shape& other) const = default;

 private:
  std::vector<int64_t> dims_;
  std::vector<std::string> symbols_;
};

}  // namespace kiln

#endif  // KILN_CORE_SHAPE_H_
