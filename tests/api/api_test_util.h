// Helpers shared by the C ABI contract tests.
//
//   ExpectError(api().CreateEnv(KILN_LOGGING_LEVEL_INFO, nullptr, &env), KILN_INVALID_ARGUMENT,
//               "CreateEnv", "log_id");
#ifndef KILN_TESTS_API_API_TEST_UTIL_H_
#define KILN_TESTS_API_API_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "kiln/kiln_c_api.h"

namespace kiln_test {

inline const KilnApi& api() {
  static const KilnApi* const kApi = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  return *kApi;
}

// Asserts `status` is an error with `code` whose message starts with "<entry>: " and names
// `argument` ("argument '<argument>'"), then releases it.
inline void ExpectError(KilnStatus* status, KilnErrorCode code, const char* entry,
                        const char* argument) {
  ASSERT_NE(status, nullptr) << entry << " succeeded; expected an error naming '" << argument
                             << "'";
  const std::string message = api().GetErrorMessage(status);
  const KilnErrorCode got = api().GetErrorCode(status);
  api().ReleaseStatus(status);
  EXPECT_EQ(got, code) << message;
  EXPECT_EQ(message.rfind(std::string(entry) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(std::string("argument '") + argument + "'"), std::string::npos) << message;
}

// Asserts success; on failure prints the message.
inline void ExpectOk(KilnStatus* status) {
  if (status != nullptr) {
    ADD_FAILURE() << api().GetErrorMessage(status);
    api().ReleaseStatus(status);
  }
}

// Sentinels for out-parameters that must be left untouched by a failing call.
template <class T>
T* Sentinel() {
  return reinterpret_cast<T*>(uintptr_t{0x5e5e5e5e});
}
inline constexpr size_t kSizeSentinel = 0x5e5e5e5e;

// An RAII float tensor over a caller buffer, for tests that need a live value.
class TestTensor {
 public:
  explicit TestTensor(KilnElementType type = KILN_ELEMENT_TYPE_FLOAT);
  ~TestTensor();
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;
  KilnValue* get() const { return value_; }

 private:
  KilnValue* value_ = nullptr;
};

}  // namespace kiln_test

#endif  // KILN_TESTS_API_API_TEST_UTIL_H_
