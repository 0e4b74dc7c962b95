#include "core/data_type.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace kiln {
namespace {

TEST(DataType, NamesAndKnownRange) {
  EXPECT_STREQ(DataTypeName(DataType::kFloat), "float");
  EXPECT_STREQ(DataTypeName(DataType::kInt2), "int2");
  EXPECT_STREQ(DataTypeName(static_cast<DataType>(99)), "undefined");
  EXPECT_FALSE(IsKnownDataType(0));
  EXPECT_TRUE(IsKnownDataType(1));
  EXPECT_TRUE(IsKnownDataType(kMaxDataType));
  EXPECT_FALSE(IsKnownDataType(kMaxDataType + 1));
  EXPECT_FALSE(IsKnownDataType(-1));
}

TEST(DataType, StorageBytesOfWholeByteTypes) {
  EXPECT_EQ(StorageBytes(DataType::kFloat, 6), 24u);
  EXPECT_EQ(StorageBytes(DataType::kComplex128, 2), 32u);
  EXPECT_EQ(StorageBytes(DataType::kBool, 3), 3u);
  EXPECT_EQ(StorageBytes(DataType::kString, 2), 2 * sizeof(std::string));
  EXPECT_EQ(StorageBytes(DataType::kDouble, 0), 0u);
}

TEST(DataType, StorageBytesPacksSubByteTypes) {
  EXPECT_EQ(StorageBytes(DataType::kInt4, 5), 3u);
  EXPECT_EQ(StorageBytes(DataType::kUint4, 4), 2u);
  EXPECT_EQ(StorageBytes(DataType::kFloat4E2M1, 1), 1u);
  EXPECT_EQ(StorageBytes(DataType::kInt2, 5), 2u);
  EXPECT_EQ(StorageBytes(DataType::kUint2, 8), 2u);
}

TEST(DataType, StorageBytesRejectsOverflowAndUnknownTypes) {
  const size_t max = std::numeric_limits<size_t>::max();
  EXPECT_FALSE(StorageBytes(DataType::kFloat, max / 2));
  EXPECT_TRUE(StorageBytes(DataType::kUint8, max));
  EXPECT_FALSE(StorageBytes(DataType::kUndefined, 1));
  EXPECT_FALSE(StorageBytes(static_cast<DataType>(27), 1));
}

}  // namespace
}  // namespace kiln
