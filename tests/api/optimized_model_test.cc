// SetOptimizedModelFilePath: the session writes its graph as optimized when it is created, the
// file loads back and gives the same outputs; a file that cannot be written fails creation.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

namespace fs = std::filesystem;

class OptimizedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "optimized-model", &env_));
    ExpectOk(api().CreateSessionOptions(&options_));
    ExpectOk(api().SetIntraOpNumThreads(options_, 1));
    dir_ = fs::path(models::ScratchDir().path()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    api().ReleaseSessionOptions(options_);
    api().ReleaseEnv(env_);
  }

  // Runs y = f(x) on a [3, 2] input and returns y's values.
  std::vector<float> RunIdentity(KilnSession* s) {
    KilnAllocator* allocator = nullptr;
    ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
    const int64_t dims[] = {3, 2};
    KilnValue* x = nullptr;
    ExpectOk(api().CreateTensorAsValue(allocator, dims, 2, KILN_ELEMENT_TYPE_FLOAT, &x));
    float* p = nullptr;
    ExpectOk(api().GetTensorMutableData(x, reinterpret_cast<void**>(&p)));
    for (int i = 0; i < 6; ++i) p[i] = 0.5f * static_cast<float>(i) - 1.0f;
    const char* in[] = {"x"};
    const char* out[] = {"y"};
    const KilnValue* inputs[] = {x};
    KilnValue* y = nullptr;
    ExpectOk(api().Run(s, nullptr, in, inputs, 1, out, 1, &y));
    std::vector<float> values(6);
    if (y != nullptr) {
      float* q = nullptr;
      ExpectOk(api().GetTensorMutableData(y, reinterpret_cast<void**>(&q)));
      std::memcpy(values.data(), q, sizeof(float) * 6);
    }
    api().ReleaseValue(y);
    api().ReleaseValue(x);
    return values;
  }

  std::string Producer(KilnSession* s) {
    KilnAllocator* allocator = nullptr;
    ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
    char* text = nullptr;
    ExpectOk(api().SessionGetModelMetadataString(s, KILN_METADATA_PRODUCER_NAME, allocator, &text));
    std::string result = text != nullptr ? text : "";
    if (text != nullptr) ExpectOk(api().AllocatorFree(allocator, text));
    return result;
  }

  KilnEnv* env_ = nullptr;
  KilnSessionOptions* options_ = nullptr;
  fs::path dir_;
};

TEST_F(OptimizedModelTest, TheSessionWritesAModelThatLoadsBackAtEveryLevel) {
  for (KilnGraphOptimizationLevel level :
       {KILN_GRAPH_OPTIMIZATION_DISABLE_ALL, KILN_GRAPH_OPTIMIZATION_BASIC,
        KILN_GRAPH_OPTIMIZATION_EXTENDED, KILN_GRAPH_OPTIMIZATION_ALL}) {
    const std::string path = (dir_ / ("level" + std::to_string(level) + ".onnx")).string();
    ExpectOk(api().SetSessionGraphOptimizationLevel(options_, level));
    ExpectOk(api().SetOptimizedModelFilePath(options_, path.c_str()));
    KilnSession* s = nullptr;
    ExpectOk(api().CreateSession(env_, models::IdentityModelPath().c_str(), options_, &s));
    ASSERT_TRUE(fs::exists(path)) << path;
    // Loaded back with the same options (optimized again; writing to another file).
    const std::string again = path + ".again.onnx";
    ExpectOk(api().SetOptimizedModelFilePath(options_, again.c_str()));
    KilnSession* back = nullptr;
    ExpectOk(api().CreateSession(env_, path.c_str(), options_, &back));
    EXPECT_EQ(RunIdentity(s), RunIdentity(back));
    EXPECT_EQ(RunIdentity(back), (std::vector<float>{-1, -0.5f, 0, 0.5f, 1, 1.5f}));
    EXPECT_EQ(Producer(back), models::kProducerName);
    EXPECT_TRUE(fs::exists(again));
    api().ReleaseSession(back);
    api().ReleaseSession(s);
  }
}

TEST_F(OptimizedModelTest, AnEmptyPathTurnsWritingOff) {
  const std::string path = (dir_ / "m.onnx").string();
  ExpectOk(api().SetOptimizedModelFilePath(options_, path.c_str()));
  ExpectOk(api().SetOptimizedModelFilePath(options_, ""));
  const std::string model = models::Identity();
  KilnSession* s = nullptr;
  ExpectOk(api().CreateSessionFromArray(env_, model.data(), model.size(), options_, &s));
  api().ReleaseSession(s);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(OptimizedModelTest, ClonedOptionsKeepThePath) {
  const std::string path = (dir_ / "cloned.onnx").string();
  ExpectOk(api().SetOptimizedModelFilePath(options_, path.c_str()));
  KilnSessionOptions* clone = nullptr;
  ExpectOk(api().CloneSessionOptions(options_, &clone));
  ExpectOk(api().SetOptimizedModelFilePath(options_, ""));  // the clone is a copy
  const std::string model = models::Identity();
  KilnSession* s = nullptr;
  ExpectOk(api().CreateSessionFromArray(env_, model.data(), model.size(), clone, &s));
  api().ReleaseSession(s);
  api().ReleaseSessionOptions(clone);
  EXPECT_TRUE(fs::exists(path));
}

TEST_F(OptimizedModelTest, APathThatIsNotUtf8IsRejected) {
  ExpectError(api().SetOptimizedModelFilePath(options_, "\xc3\x28"), KILN_INVALID_ARGUMENT,
              "SetOptimizedModelFilePath", "path");
}

TEST_F(OptimizedModelTest, AFileThatCannotBeWrittenFailsCreationNamingIt) {
  const std::string path = (dir_ / "no" / "such" / "folder" / "m.onnx").string();
  ExpectOk(api().SetOptimizedModelFilePath(options_, path.c_str()));
  const std::string model = models::Identity();
  for (bool from_array : {false, true}) {
    KilnSession* s = Sentinel<KilnSession>();
    KilnStatus* status =
        from_array ? api().CreateSessionFromArray(env_, model.data(), model.size(), options_, &s)
                   : api().CreateSession(env_, models::IdentityModelPath().c_str(), options_, &s);
    ASSERT_NE(status, nullptr);
    const std::string message = api().GetErrorMessage(status);
    EXPECT_EQ(api().GetErrorCode(status), KILN_NO_SUCHFILE) << message;
    EXPECT_EQ(message.rfind(from_array ? "CreateSessionFromArray: " : "CreateSession: ", 0), 0u)
        << message;
    EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
    api().ReleaseStatus(status);
    EXPECT_EQ(s, Sentinel<KilnSession>());
  }
  // A folder where the file should be.
  ExpectOk(api().SetOptimizedModelFilePath(options_, dir_.string().c_str()));
  KilnSession* s = Sentinel<KilnSession>();
  KilnStatus* status = api().CreateSessionFromArray(env_, model.data(), model.size(), options_, &s);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(api().GetErrorCode(status), KILN_NO_SUCHFILE);
  api().ReleaseStatus(status);
  EXPECT_EQ(s, Sentinel<KilnSession>());
}

}  // namespace
}  // namespace kiln_test
