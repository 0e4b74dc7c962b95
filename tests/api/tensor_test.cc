// Tensor values and type-and-shape info: CreateTensorAsValue … ReleaseValue.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "counting_allocator.h"

namespace kiln_test {
namespace {

KilnAllocator* DefaultAllocator() {
  KilnAllocator* a = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&a));
  return a;
}

KilnMemoryInfo* NewCpuInfo() {
  KilnMemoryInfo* info = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info));
  return info;
}

struct TypeSize {
  KilnElementType type;
  size_t bytes_for_5;  // storage for 5 elements
};

const TypeSize kTypeSizes[] = {
    {KILN_ELEMENT_TYPE_FLOAT, 20},         {KILN_ELEMENT_TYPE_UINT8, 5},
    {KILN_ELEMENT_TYPE_INT8, 5},           {KILN_ELEMENT_TYPE_UINT16, 10},
    {KILN_ELEMENT_TYPE_INT16, 10},         {KILN_ELEMENT_TYPE_INT32, 20},
    {KILN_ELEMENT_TYPE_INT64, 40},         {KILN_ELEMENT_TYPE_BOOL, 5},
    {KILN_ELEMENT_TYPE_FLOAT16, 10},       {KILN_ELEMENT_TYPE_DOUBLE, 40},
    {KILN_ELEMENT_TYPE_UINT32, 20},        {KILN_ELEMENT_TYPE_UINT64, 40},
    {KILN_ELEMENT_TYPE_COMPLEX64, 40},     {KILN_ELEMENT_TYPE_COMPLEX128, 80},
    {KILN_ELEMENT_TYPE_BFLOAT16, 10},      {KILN_ELEMENT_TYPE_FLOAT8E4M3FN, 5},
    {KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ, 5}, {KILN_ELEMENT_TYPE_FLOAT8E5M2, 5},
    {KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ, 5}, {KILN_ELEMENT_TYPE_UINT4, 3},
    {KILN_ELEMENT_TYPE_INT4, 3},           {KILN_ELEMENT_TYPE_FLOAT4E2M1, 3},
    {KILN_ELEMENT_TYPE_FLOAT8E8M0, 5},     {KILN_ELEMENT_TYPE_UINT2, 2},
    {KILN_ELEMENT_TYPE_INT2, 2},
};

TEST(Tensor, EveryNumericTypeAllocatesAlignedZeroedPackedStorage) {
  EXPECT_EQ(sizeof(kTypeSizes) / sizeof(kTypeSizes[0]), 25u);  // all but UNDEFINED and STRING
  const int64_t shape[] = {5};
  for (const TypeSize& ts : kTypeSizes) {
    KilnValue* v = nullptr;
    ExpectOk(api().CreateTensorAsValue(DefaultAllocator(), shape, 1, ts.type, &v));
    size_t bytes = 0;
    void* data = nullptr;
    ExpectOk(api().GetTensorSizeInBytes(v, &bytes));
    ExpectOk(api().GetTensorMutableData(v, &data));
    EXPECT_EQ(bytes, ts.bytes_for_5) << ts.type;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u) << ts.type;
    EXPECT_EQ(std::vector<char>(bytes, 0),
              std::vector<char>(static_cast<char*>(data), static_cast<char*>(data) + bytes));
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ExpectOk(api().GetTensorTypeAndShape(v, &info));
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    ExpectOk(api().GetTensorElementType(info, &type));
    EXPECT_EQ(type, ts.type);
    api().ReleaseTensorTypeAndShapeInfo(info);
    api().ReleaseValue(v);
  }
}

TEST(Tensor, TypeAndShapeInfo) {
  const int64_t shape[] = {2, 3, 4};
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(DefaultAllocator(), shape, 3, KILN_ELEMENT_TYPE_INT64, &v));
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().GetTensorTypeAndShape(v, &info));
  api().ReleaseValue(v);  // the info is a snapshot: it outlives the value
  size_t rank = 0, count = 0;
  int64_t dims[4] = {-7, -7, -7, -7};
  const char* names[3] = {nullptr, nullptr, nullptr};
  ExpectOk(api().GetDimensionsCount(info, &rank));
  ExpectOk(api().GetDimensions(info, dims, 4));
  ExpectOk(api().GetSymbolicDimensions(info, names, 3));
  ExpectOk(api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(rank, 3u);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + 4), (std::vector<int64_t>{2, 3, 4, -7}));
  for (const char* n : names) EXPECT_STREQ(n, "");
  EXPECT_EQ(count, 24u);
  api().ReleaseTensorTypeAndShapeInfo(info);
}

TEST(Tensor, ScalarAndEmptyTensors) {
  KilnValue* scalar = nullptr;
  ExpectOk(
      api().CreateTensorAsValue(DefaultAllocator(), nullptr, 0, KILN_ELEMENT_TYPE_DOUBLE, &scalar));
  size_t bytes = 0;
  ExpectOk(api().GetTensorSizeInBytes(scalar, &bytes));
  EXPECT_EQ(bytes, 8u);
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().GetTensorTypeAndShape(scalar, &info));
  size_t count = 0;
  ExpectOk(api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(count, 1u);
  ExpectOk(api().GetDimensions(info, nullptr, 0));
  api().ReleaseTensorTypeAndShapeInfo(info);
  api().ReleaseValue(scalar);

  const int64_t empty_shape[] = {3, 0, int64_t{1} << 40};
  KilnValue* empty = nullptr;
  ExpectOk(api().CreateTensorAsValue(DefaultAllocator(), empty_shape, 3, KILN_ELEMENT_TYPE_FLOAT,
                                     &empty));
  void* data = Sentinel<void>();
  ExpectOk(api().GetTensorMutableData(empty, &data));
  EXPECT_EQ(data, nullptr);
  api().ReleaseValue(empty);
}

TEST(Tensor, ValueKind) {
  TestTensor t;
  KilnValueType kind = KILN_VALUE_TYPE_UNKNOWN;
  int is_tensor = 0;
  ExpectOk(api().GetValueType(t.get(), &kind));
  ExpectOk(api().IsTensor(t.get(), &is_tensor));
  EXPECT_EQ(kind, KILN_VALUE_TYPE_TENSOR);
  EXPECT_EQ(is_tensor, 1);
}

TEST(Tensor, CreateRejectsBadShapesAndTypes) {
  KilnValue* v = Sentinel<KilnValue>();
  const int64_t negative[] = {2, -1};
  ExpectError(
      api().CreateTensorAsValue(DefaultAllocator(), negative, 2, KILN_ELEMENT_TYPE_FLOAT, &v),
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "shape");
  const int64_t overflow[] = {int64_t{1} << 40, int64_t{1} << 40};
  ExpectError(
      api().CreateTensorAsValue(DefaultAllocator(), overflow, 2, KILN_ELEMENT_TYPE_UINT8, &v),
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "shape");
  const int64_t byte_overflow[] = {int64_t{1} << 62};  // the count fits, the bytes do not
  ExpectError(
      api().CreateTensorAsValue(DefaultAllocator(), byte_overflow, 1, KILN_ELEMENT_TYPE_FLOAT, &v),
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "shape");
  ExpectError(
      api().CreateTensorAsValue(DefaultAllocator(), nullptr, 2, KILN_ELEMENT_TYPE_FLOAT, &v),
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "shape");
  const int64_t ok[] = {2};
  for (int bad : {0, 27, -1, 1000}) {
    ExpectError(
        api().CreateTensorAsValue(DefaultAllocator(), ok, 1, static_cast<KilnElementType>(bad), &v),
        KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "element_type");
  }
  ExpectError(api().CreateTensorAsValue(nullptr, ok, 1, KILN_ELEMENT_TYPE_FLOAT, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "allocator");
  ExpectError(
      api().CreateTensorAsValue(DefaultAllocator(), ok, 1, KILN_ELEMENT_TYPE_FLOAT, nullptr),
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "out");
  EXPECT_EQ(v, Sentinel<KilnValue>());
}

TEST(Tensor, HugeAllocationIsOutOfMemory) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const struct {
    std::vector<int64_t> shape;
    KilnElementType type;
  } cases[] = {
      {{int64_t{1} << 60}, KILN_ELEMENT_TYPE_UINT8},
      {{max, 2}, KILN_ELEMENT_TYPE_UINT8},  // 2^64-2 bytes: fits size_t, near its end
      {{max}, KILN_ELEMENT_TYPE_INT16},
      {{(int64_t{1} << 62) - 1}, KILN_ELEMENT_TYPE_FLOAT},
      {{(int64_t{1} << 59) - 1}, KILN_ELEMENT_TYPE_STRING},
  };
  for (const auto& c : cases) {
    KilnValue* v = Sentinel<KilnValue>();
    KilnStatus* s =
        api().CreateTensorAsValue(DefaultAllocator(), c.shape.data(), c.shape.size(), c.type, &v);
    EXPECT_EQ(api().GetErrorCode(s), KILN_OUT_OF_MEMORY) << c.shape[0];
    api().ReleaseStatus(s);
    EXPECT_EQ(v, Sentinel<KilnValue>());
  }
}

TEST(Tensor, UserAllocatorOwnsTheMemoryUntilRelease) {
  CountingAllocator counting;
  const int64_t shape[] = {4, 4};
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(counting.get(), shape, 2, KILN_ELEMENT_TYPE_FLOAT, &v));
  EXPECT_EQ(counting.live(), 1);
  api().ReleaseValue(v);
  EXPECT_EQ(counting.live(), 0);

  counting.Misalign(true);
  v = Sentinel<KilnValue>();
  ExpectError(api().CreateTensorAsValue(counting.get(), shape, 2, KILN_ELEMENT_TYPE_FLOAT, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorAsValue", "allocator");
  EXPECT_EQ(counting.live(), 0);  // the misaligned block went back
  counting.Misalign(false);
  counting.FailFrom(counting.calls() + 1);
  KilnStatus* s = api().CreateTensorAsValue(counting.get(), shape, 2, KILN_ELEMENT_TYPE_FLOAT, &v);
  EXPECT_EQ(api().GetErrorCode(s), KILN_OUT_OF_MEMORY);
  api().ReleaseStatus(s);
  EXPECT_EQ(v, Sentinel<KilnValue>());
}

TEST(Tensor, WrapsTheCallersBufferWithoutCopying) {
  KilnMemoryInfo* info = NewCpuInfo();
  int32_t buffer[2][3] = {{1, 2, 3}, {4, 5, 6}};
  const int64_t shape[] = {2, 3};
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, shape, 2,
                                             KILN_ELEMENT_TYPE_INT32, &v));
  api().ReleaseMemoryInfo(info);  // the value keeps its own copy
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &data));
  EXPECT_EQ(data, buffer);
  static_cast<int32_t*>(data)[5] = 60;
  EXPECT_EQ(buffer[1][2], 60);
  const KilnMemoryInfo* where = nullptr;
  ExpectOk(api().GetTensorMemoryInfo(v, &where));
  const char* name = nullptr;
  ExpectOk(api().MemoryInfoGetName(where, &name));
  EXPECT_STREQ(name, "Cpu");
  api().ReleaseValue(v);
  EXPECT_EQ(buffer[0][0], 1);  // release leaves the buffer alone

  uint8_t nibbles[3] = {0x21, 0x43, 0x05};  // five int4 values
  const int64_t five[] = {5};
  info = NewCpuInfo();
  ExpectOk(
      api().CreateTensorWithDataAsValue(info, nibbles, 3, five, 1, KILN_ELEMENT_TYPE_INT4, &v));
  size_t bytes = 0;
  ExpectOk(api().GetTensorSizeInBytes(v, &bytes));
  EXPECT_EQ(bytes, 3u);
  api().ReleaseValue(v);
  api().ReleaseMemoryInfo(info);
}

TEST(Tensor, WrapRejectsMismatchedBuffers) {
  KilnMemoryInfo* info = NewCpuInfo();
  float buffer[6] = {};
  const int64_t shape[] = {2, 3};
  KilnValue* v = Sentinel<KilnValue>();
  for (size_t len : {sizeof buffer - 1, sizeof buffer + 4, size_t{0}}) {
    ExpectError(
        api().CreateTensorWithDataAsValue(info, buffer, len, shape, 2, KILN_ELEMENT_TYPE_FLOAT, &v),
        KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "data_len");
  }
  ExpectError(api().CreateTensorWithDataAsValue(info, nullptr, sizeof buffer, shape, 2,
                                                KILN_ELEMENT_TYPE_FLOAT, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "data");
  ExpectError(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, shape, 2,
                                                KILN_ELEMENT_TYPE_STRING, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "element_type");
  ExpectError(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, shape, 2,
                                                KILN_ELEMENT_TYPE_UNDEFINED, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "element_type");
  const int64_t negative[] = {-2, 3};
  ExpectError(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, negative, 2,
                                                KILN_ELEMENT_TYPE_FLOAT, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "shape");
  const int64_t overflow[] = {int64_t{1} << 62};
  ExpectError(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, overflow, 1,
                                                KILN_ELEMENT_TYPE_DOUBLE, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "shape");
  ExpectError(api().CreateTensorWithDataAsValue(nullptr, buffer, sizeof buffer, shape, 2,
                                                KILN_ELEMENT_TYPE_FLOAT, &v),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "info");
  ExpectError(api().CreateTensorWithDataAsValue(info, buffer, sizeof buffer, shape, 2,
                                                KILN_ELEMENT_TYPE_FLOAT, nullptr),
              KILN_INVALID_ARGUMENT, "CreateTensorWithDataAsValue", "out");
  EXPECT_EQ(v, Sentinel<KilnValue>());
  api().ReleaseMemoryInfo(info);
}

TEST(Tensor, StringTensorsHaveNoRawData) {
  TestTensor t(KILN_ELEMENT_TYPE_STRING);
  void* data = Sentinel<void>();
  size_t bytes = kSizeSentinel;
  ExpectError(api().GetTensorMutableData(t.get(), &data), KILN_INVALID_ARGUMENT,
              "GetTensorMutableData", "value");
  ExpectError(api().GetTensorSizeInBytes(t.get(), &bytes), KILN_INVALID_ARGUMENT,
              "GetTensorSizeInBytes", "value");
  EXPECT_EQ(data, Sentinel<void>());
  EXPECT_EQ(bytes, kSizeSentinel);
}

TEST(Tensor, ShapeQueriesCheckTheCallersArrays) {
  TestTensor t;  // 2x3
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().GetTensorTypeAndShape(t.get(), &info));
  int64_t dims[2] = {-9, -9};
  const char* names[2] = {"untouched", "untouched"};
  ExpectError(api().GetDimensions(info, dims, 1), KILN_INVALID_ARGUMENT, "GetDimensions",
              "dims_len");
  ExpectError(api().GetDimensions(info, nullptr, 2), KILN_INVALID_ARGUMENT, "GetDimensions",
              "dims");
  ExpectError(api().GetSymbolicDimensions(info, names, 1), KILN_INVALID_ARGUMENT,
              "GetSymbolicDimensions", "names_len");
  ExpectError(api().GetSymbolicDimensions(info, nullptr, 2), KILN_INVALID_ARGUMENT,
              "GetSymbolicDimensions", "names");
  EXPECT_EQ(dims[0], -9);
  EXPECT_EQ(dims[1], -9);
  EXPECT_STREQ(names[0], "untouched");
  api().ReleaseTensorTypeAndShapeInfo(info);
}

}  // namespace
}  // namespace kiln_test
