#include "api_test_util.h"

namespace kiln_test {

TestTensor::TestTensor(KilnElementType type) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t shape[] = {2, 3};
  ExpectOk(api().CreateTensorAsValue(allocator, shape, 2, type, &value_));
}

TestTensor::~TestTensor() { api().ReleaseValue(value_); }

}  // namespace kiln_test
