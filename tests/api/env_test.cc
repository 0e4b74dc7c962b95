// Envs and logging: CreateEnv, CreateEnvWithCustomLogger, ReleaseEnv.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_test_util.h"

namespace kiln_test {
namespace {

struct Log {
  std::vector<std::string> lines;  // "<severity>|<category>|<log id>|<message>"
};

void KILN_API_CALL Record(void* param, KilnLoggingLevel severity, const char* category,
                          const char* log_id, const char* location, const char* message) {
  EXPECT_NE(location, nullptr);
  static_cast<Log*>(param)->lines.push_back(std::to_string(severity) + "|" + category + "|" +
                                            log_id + "|" + message);
}

// Makes Kiln log a warning: releasing something that is not a live handle.
void TriggerWarning() {
  KilnStatus* s = api().CreateStatus(KILN_FAIL, "x");
  api().ReleaseStatus(s);
  api().ReleaseStatus(s);
}

TEST(Env, CreateAndRelease) {
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_INFO, "env-test \xE2\x9C\x93", &env));
  ASSERT_NE(env, nullptr);
  api().ReleaseEnv(env);
  api().ReleaseEnv(nullptr);
}

TEST(Env, CustomLoggerReceivesMessagesAtOrAboveItsLevel) {
  Log log;
  KilnEnv* env = nullptr;
  ExpectOk(
      api().CreateEnvWithCustomLogger(&Record, &log, KILN_LOGGING_LEVEL_WARNING, "my-app", &env));
  TriggerWarning();
  api().ReleaseEnv(env);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].rfind("2|kiln.api|my-app|ReleaseStatus: argument ", 0), 0u)
      << log.lines[0];

  Log quiet;
  ExpectOk(
      api().CreateEnvWithCustomLogger(&Record, &quiet, KILN_LOGGING_LEVEL_ERROR, "quiet", &env));
  TriggerWarning();
  api().ReleaseEnv(env);
  EXPECT_TRUE(quiet.lines.empty());
}

TEST(Env, FirstLiveEnvGetsProcessMessagesAndReleaseDetachesIt) {
  Log first, second;
  KilnEnv* a = nullptr;
  KilnEnv* b = nullptr;
  ExpectOk(api().CreateEnvWithCustomLogger(&Record, &first, KILN_LOGGING_LEVEL_VERBOSE, "a", &a));
  ExpectOk(api().CreateEnvWithCustomLogger(&Record, &second, KILN_LOGGING_LEVEL_VERBOSE, "b", &b));
  TriggerWarning();
  api().ReleaseEnv(a);
  TriggerWarning();
  api().ReleaseEnv(b);
  EXPECT_EQ(first.lines.size(), 1u);
  EXPECT_EQ(second.lines.size(), 1u);
  testing::internal::CaptureStderr();
  TriggerWarning();  // no Env left: stderr
  EXPECT_NE(testing::internal::GetCapturedStderr().find("ReleaseStatus"), std::string::npos);
  EXPECT_EQ(first.lines.size(), 1u);
}

TEST(Env, BadArgumentsLeaveOutUntouched) {
  KilnEnv* env = Sentinel<KilnEnv>();
  ExpectError(api().CreateEnv(static_cast<KilnLoggingLevel>(5), "x", &env), KILN_INVALID_ARGUMENT,
              "CreateEnv", "min_severity");
  ExpectError(api().CreateEnv(static_cast<KilnLoggingLevel>(-1), "x", &env), KILN_INVALID_ARGUMENT,
              "CreateEnv", "min_severity");
  ExpectError(api().CreateEnv(KILN_LOGGING_LEVEL_INFO, nullptr, &env), KILN_INVALID_ARGUMENT,
              "CreateEnv", "log_id");
  ExpectError(api().CreateEnv(KILN_LOGGING_LEVEL_INFO, "bad \xFF utf-8", &env),
              KILN_INVALID_ARGUMENT, "CreateEnv", "log_id");
  ExpectError(api().CreateEnv(KILN_LOGGING_LEVEL_INFO, "x", nullptr), KILN_INVALID_ARGUMENT,
              "CreateEnv", "out");
  Log log;
  ExpectError(api().CreateEnvWithCustomLogger(nullptr, &log, KILN_LOGGING_LEVEL_INFO, "x", &env),
              KILN_INVALID_ARGUMENT, "CreateEnvWithCustomLogger", "logging_function");
  ExpectError(
      api().CreateEnvWithCustomLogger(&Record, &log, static_cast<KilnLoggingLevel>(9), "x", &env),
      KILN_INVALID_ARGUMENT, "CreateEnvWithCustomLogger", "min_severity");
  ExpectError(
      api().CreateEnvWithCustomLogger(&Record, &log, KILN_LOGGING_LEVEL_INFO, nullptr, &env),
      KILN_INVALID_ARGUMENT, "CreateEnvWithCustomLogger", "log_id");
  ExpectError(api().CreateEnvWithCustomLogger(&Record, &log, KILN_LOGGING_LEVEL_INFO, "x", nullptr),
              KILN_INVALID_ARGUMENT, "CreateEnvWithCustomLogger", "out");
  EXPECT_EQ(env, Sentinel<KilnEnv>());
  EXPECT_TRUE(log.lines.empty());
}

TEST(Env, ReleasingAReleasedOrForeignEnvIsIgnored) {
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_WARNING, "x", &env));
  api().ReleaseEnv(env);
  testing::internal::CaptureStderr();
  api().ReleaseEnv(env);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("ReleaseEnv"), std::string::npos);
  KilnMemoryInfo* info = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info));
  testing::internal::CaptureStderr();
  api().ReleaseEnv(reinterpret_cast<KilnEnv*>(info));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("another type"), std::string::npos);
  const char* name = nullptr;
  ExpectOk(api().MemoryInfoGetName(info, &name));  // still alive
  EXPECT_STREQ(name, "Cpu");
  api().ReleaseMemoryInfo(info);
}

}  // namespace
}  // namespace kiln_test
