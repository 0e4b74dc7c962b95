#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace kiln {
namespace {

TEST(Tensor, AllocateIsZeroedAndAligned) {
  auto t = Tensor::Allocate(DataType::kFloat, Shape({3, 5}), CpuAllocator());
  ASSERT_NE(t->data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t->element_count(), 15u);
  EXPECT_EQ(t->byte_size(), 60u);
  const auto* f = static_cast<const float*>(t->data());
  for (size_t i = 0; i < 15; ++i) EXPECT_EQ(f[i], 0.0f);
}

TEST(Tensor, AllocateStringsAreEmpty) {
  auto t = Tensor::Allocate(DataType::kString, Shape({2}), CpuAllocator());
  EXPECT_TRUE(t->strings()[0].empty());
  t->strings()[1] = "a string long enough to leave the small-string buffer";
  EXPECT_EQ(t->strings()[1].size(), 53u);
}

TEST(Tensor, EmptyTensorAllocatesNothing) {
  auto t = Tensor::Allocate(DataType::kInt64, Shape({4, 0}), CpuAllocator());
  EXPECT_EQ(t->data(), nullptr);
  EXPECT_EQ(t->byte_size(), 0u);
}

class NullAllocator final : public Allocator {
 public:
  void* Alloc(size_t) override { return nullptr; }
  void Free(void*) noexcept override {}
  const MemoryInfo& Info() const noexcept override { return kCpuMemoryInfo; }
};

TEST(Tensor, AllocateReportsOutOfMemory) {
  try {
    Tensor::Allocate(DataType::kFloat, Shape({4}), std::make_shared<NullAllocator>());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
  }
}

TEST(Tensor, WrapChecksTheByteLength) {
  int32_t buffer[6] = {1, 2, 3, 4, 5, 6};
  auto t = Tensor::Wrap(DataType::kInt32, Shape({2, 3}), buffer, sizeof buffer, kCpuMemoryInfo);
  EXPECT_EQ(t->data(), buffer);
  try {
    Tensor::Wrap(DataType::kInt32, Shape({2, 3}), buffer, sizeof buffer - 1, kCpuMemoryInfo);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::strstr(e.what(), "needs 24"), nullptr) << e.what();
  }
  EXPECT_THROW(Tensor::Wrap(DataType::kString, Shape({1}), buffer, 32, kCpuMemoryInfo), Error);
  EXPECT_THROW(Tensor::Wrap(DataType::kUndefined, Shape({1}), buffer, 4, kCpuMemoryInfo), Error);
}

}  // namespace
}  // namespace kiln
