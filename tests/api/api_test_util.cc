#include "api_test_util.h"

namespace kiln_test {

TestTensor::TestTensor(KilnElementType type) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t shape[] = {2, 3};
  ExpectOk(api().CreateTensorAsValue(allocator, shape, 2, type, &value_));
}

TestTensor::~TestTensor() {
  api().ReleaseValue(value_);
}

}  // namespace kiln_test

// Under AddressSanitizer, let impossible allocations return NULL (the tests check that Kiln turns
// them into KILN_OUT_OF_MEMORY) instead of aborting, also when a test binary is run by hand.
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name AddressSanitizer looks for.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
