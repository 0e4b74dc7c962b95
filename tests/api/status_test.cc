// Statuses: CreateStatus, GetErrorCode, GetErrorMessage, ReleaseStatus (DESIGN.md §3 rule 3).
#include <gtest/gtest.h>

#include <string>

#include "api_test_util.h"

namespace kiln_test {
namespace {

TEST(Status, CarriesCodeAndMessage) {
  for (int code = KILN_FAIL; code <= KILN_TERMINATED; ++code) {
    KilnStatus* s = api().CreateStatus(static_cast<KilnErrorCode>(code), "caf\xC3\xA9 failed");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(api().GetErrorCode(s), code);
    EXPECT_STREQ(api().GetErrorMessage(s), "caf\xC3\xA9 failed");
    api().ReleaseStatus(s);
  }
}

TEST(Status, OkIsNotAnErrorCodeAndIsStoredAsFail) {
  KilnStatus* s = api().CreateStatus(KILN_OK, "a status is always an error");
  EXPECT_EQ(api().GetErrorCode(s), KILN_FAIL);
  api().ReleaseStatus(s);
}

TEST(Status, UnknownCodeIsStoredAsFail) {
  KilnStatus* s = api().CreateStatus(static_cast<KilnErrorCode>(99), "from a newer client");
  EXPECT_EQ(api().GetErrorCode(s), KILN_FAIL);
  api().ReleaseStatus(s);
}

TEST(Status, NullMessageIsEmpty) {
  KilnStatus* s = api().CreateStatus(KILN_FAIL, nullptr);
  EXPECT_STREQ(api().GetErrorMessage(s), "");
  api().ReleaseStatus(s);
}

TEST(Status, NullMeansSuccess) {
  EXPECT_EQ(api().GetErrorCode(nullptr), KILN_OK);
  EXPECT_STREQ(api().GetErrorMessage(nullptr), "");
  api().ReleaseStatus(nullptr);
}

TEST(Status, ErrorCodeValuesAreFixed) {
  EXPECT_EQ(KILN_OK, 0);
  EXPECT_EQ(KILN_FAIL, 1);
  EXPECT_EQ(KILN_INVALID_ARGUMENT, 2);
  EXPECT_EQ(KILN_NO_SUCHFILE, 3);
  EXPECT_EQ(KILN_NO_MODEL, 4);
  EXPECT_EQ(KILN_ENGINE_ERROR, 5);
  EXPECT_EQ(KILN_RUNTIME_EXCEPTION, 6);
  EXPECT_EQ(KILN_INVALID_PROTOBUF, 7);
  EXPECT_EQ(KILN_MODEL_LOADED, 8);
  EXPECT_EQ(KILN_NOT_IMPLEMENTED, 9);
  EXPECT_EQ(KILN_INVALID_GRAPH, 10);
  EXPECT_EQ(KILN_OUT_OF_MEMORY, 11);
  EXPECT_EQ(KILN_TERMINATED, 12);
}

TEST(Status, ReleasedStatusIsReportedNotRead) {
  KilnStatus* s = api().CreateStatus(KILN_FAIL, "gone");
  api().ReleaseStatus(s);
  EXPECT_EQ(api().GetErrorCode(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(api().GetErrorMessage(s)).find("not a live KilnStatus"), std::string::npos);
  testing::internal::CaptureStderr();
  api().ReleaseStatus(s);  // a second release is ignored, and said so
  EXPECT_NE(testing::internal::GetCapturedStderr().find("ReleaseStatus"), std::string::npos);
}

TEST(Status, HandleOfAnotherTypeIsNotAStatus) {
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_WARNING, "status-test", &env));
  auto* fake = reinterpret_cast<KilnStatus*>(env);
  EXPECT_EQ(api().GetErrorCode(fake), KILN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(api().GetErrorMessage(fake)).find("not a live KilnStatus"),
            std::string::npos);
  testing::internal::CaptureStderr();
  api().ReleaseStatus(fake);  // ignored: the Env stays alive
  EXPECT_NE(testing::internal::GetCapturedStderr().find("another type"), std::string::npos);
  KilnMemoryInfo* info = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info));
  api().ReleaseMemoryInfo(info);
  api().ReleaseEnv(env);
}

TEST(Status, ErrorsFromEntriesNameTheEntryAndArgument) {
  KilnEnv* env = Sentinel<KilnEnv>();
  ExpectError(api().CreateEnv(KILN_LOGGING_LEVEL_WARNING, nullptr, &env), KILN_INVALID_ARGUMENT,
              "CreateEnv", "log_id");
  EXPECT_EQ(env, Sentinel<KilnEnv>());
}

}  // namespace
}  // namespace kiln_test
