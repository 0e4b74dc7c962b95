#include "kernels/cpu/small_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kiln::cpu {
namespace {

TEST(SmallVector, KeepsValuesInlineAndGrowsPastTheInlineCapacity) {
  SmallVector<int64_t, 2> v{1, 2};
  const int64_t* inline_data = v.data();
  v.push_back(3);
  EXPECT_NE(v.data(), inline_data);  // moved to the heap
  v.insert(0, 0);
  EXPECT_EQ(v.ToVector(), (std::vector<int64_t>{0, 1, 2, 3}));
  v.erase(1);
  EXPECT_EQ(v.ToVector(), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(v.back(), 3);
}

TEST(SmallVector, CopiesAreIndependentAndCompareByValue) {
  SmallVector<int64_t> a(std::vector<int64_t>{4, 5, 6});
  SmallVector<int64_t> b = a;
  b[0] = 7;
  EXPECT_EQ(a[0], 4);
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  b.resize(5, 9);
  EXPECT_EQ(b.ToVector(), (std::vector<int64_t>{4, 5, 6, 9, 9}));
  EXPECT_EQ(b.span().size(), 5u);
  b.clear();
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace kiln::cpu
