// The C++ wrapper with KILN_API_MANUAL_INIT: no table until kiln::InitApi sets one. Built as its
// own program: every translation unit of a program must agree on KILN_API_MANUAL_INIT.
#define KILN_API_MANUAL_INIT
#include "kiln/kiln_cxx_api.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/kiln_c_api.h"

namespace {

// One test, so the order of "before" and "after" InitApi cannot be shuffled.
TEST(CxxManualInit, ApiThrowsUntilInitApiThenWorks) {
  kiln::detail::ApiSlot().store(nullptr);  // as in a fresh process, also under --gtest_repeat
  try {
    kiln::Api();
    ADD_FAILURE() << "kiln::Api() did not throw before kiln::InitApi";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_FAIL);
    EXPECT_NE(std::string(e.what()).find("InitApi"), std::string::npos) << e.what();
  }
  try {
    kiln::Value::CreateTensor(kiln::Allocator::Default(), {1}, KILN_ELEMENT_TYPE_FLOAT);
    ADD_FAILURE() << "creating a tensor did not throw before kiln::InitApi";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_FAIL) << e.what();
  }
  try {
    kiln::InitApi(nullptr);
    ADD_FAILURE() << "kiln::InitApi(nullptr) did not throw";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_INVALID_ARGUMENT) << e.what();
  }
  EXPECT_THROW(kiln::Api(), kiln::Exception);  // still not initialised

  const KilnApi* table = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  ASSERT_NE(table, nullptr);
  kiln::InitApi(table);
  EXPECT_EQ(&kiln::Api(), table);

  kiln::Value t =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, 2}, KILN_ELEMENT_TYPE_INT32);
  int32_t* data = t.data<int32_t>();
  ASSERT_NE(data, nullptr);
  for (int32_t i = 0; i < 4; ++i) data[i] = 10 * i;
  EXPECT_EQ(t.type_and_shape().shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.data<int32_t>()[3], 30);

  float user[3] = {1.5f, 2.5f, 3.5f};
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  const kiln::Value wrapped = kiln::Value::CreateTensor(cpu, user, 3, {3});
  EXPECT_EQ(wrapped.data<float>(), user);
  EXPECT_EQ(wrapped.type_and_shape().element_type(), KILN_ELEMENT_TYPE_FLOAT);
}

}  // namespace
