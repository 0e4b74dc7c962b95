#include "core/shape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/error.h"

namespace kiln {
namespace {

TEST(Shape, ElementCount) {
  EXPECT_EQ(Shape().ElementCount(), 1u);
  EXPECT_EQ(Shape({2, 3, 4}).ElementCount(), 24u);
  EXPECT_EQ(Shape({2, 0, 4}).ElementCount(), 0u);
  EXPECT_FALSE(Shape({2, -1}).ElementCount());
}

TEST(Shape, ElementCountOverflowUnlessAZeroDimension) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(Shape({big, big}).ElementCount());
  EXPECT_EQ(Shape({big, big, 0}).ElementCount(), 0u);
}

TEST(Shape, FromUserAcceptsValidDims) {
  const int64_t dims[] = {1, 2, 3};
  const Shape s = Shape::FromUser("shape", dims, 3);
  EXPECT_EQ(s.dims(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(s.symbols().size(), 3u);
  EXPECT_EQ(Shape::FromUser("shape", nullptr, 0).rank(), 0u);
}

void ExpectInvalid(const int64_t* dims, size_t rank, const char* fragment) {
  try {
    Shape::FromUser("shape", dims, rank);
    FAIL() << "no error for " << fragment;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("argument 'shape'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Shape, FromUserRejectsBadDims) {
  const int64_t negative[] = {2, -3};
  ExpectInvalid(negative, 2, "dimension 1 is negative (-3)");
  const int64_t huge[] = {std::numeric_limits<int64_t>::max(), 4};
  ExpectInvalid(huge, 2, "overflows size_t");
  ExpectInvalid(nullptr, 2, "is NULL");
}

TEST(Shape, ToStringUsesSymbolsForUnknownDims) {
  EXPECT_EQ(Shape({-1, 3}, {"batch", ""}).ToString(), "[batch,3]");
  EXPECT_EQ(Shape({-1, 3}).ToString(), "[-1,3]");
  EXPECT_THROW(Shape({1}, {"a", "b"}), Error);
}

}  // namespace
}  // namespace kiln
