// The session config entry "kiln.memory.limit_bytes": a cap on the bytes a session holds for
// activations and scratch. Over the cap, creation (for declared shapes) or a run fails with
// KILN_OUT_OF_MEMORY naming the size, and the session stays usable.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.h"

namespace kiln_test {
namespace {

constexpr int64_t kWidth = 1024;           // floats per batch row: 4 KiB
constexpr const char* kLimit = "1048576";  // 1 MiB

// y = Neg(Neg(Neg(x))) (nodes neg_0, neg_1, neg_2), x and y float [batch, kWidth] (`batch` < 0:
// the free dimension "batch").
std::string NegChain(int64_t batch) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("neg_chain");
  g->add_input()->set_name("x");
  g->add_output()->set_name("y");
  for (auto* vi : {g->mutable_input(0), g->mutable_output(0)}) {
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    auto* d0 = t->mutable_shape()->add_dim();
    if (batch < 0) {
      d0->set_dim_param("batch");
    } else {
      d0->set_dim_value(batch);
    }
    t->mutable_shape()->add_dim()->set_dim_value(kWidth);
  }
  const char* values[] = {"x", "neg_0", "neg_1", "y"};  // node neg_<i> writes values[i + 1]
  for (int i = 0; i < 3; ++i) {
    auto* n = g->add_node();
    n->set_name("neg_" + std::to_string(i));
    n->set_op_type("Neg");
    n->add_input(values[i]);
    n->add_output(values[i + 1]);
  }
  return m.SerializeAsString();
}

class MemoryLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "memory_limit", &env_));
    ExpectOk(api().CreateSessionOptions(&options_));
    ExpectOk(api().SetSessionGraphOptimizationLevel(options_, KILN_GRAPH_OPTIMIZATION_DISABLE_ALL));
    ExpectOk(api().SetIntraOpNumThreads(options_, 1));
  }
  void TearDown() override {
    api().ReleaseSession(session_);
    api().ReleaseSessionOptions(options_);
    api().ReleaseEnv(env_);
  }
  KilnStatus* Create(int64_t batch) {
    const std::string model = NegChain(batch);
    return api().CreateSessionFromArray(env_, model.data(), model.size(), options_, &session_);
  }
  // Runs with x[i] = seed + i over `batch` rows; on success checks y = -x. Returns the status.
  KilnStatus* Run(int64_t batch, float seed, bool* correct) {
    *correct = false;
    std::vector<float> x(static_cast<size_t>(batch * kWidth));
    for (size_t i = 0; i < x.size(); ++i) x[i] = seed + static_cast<float>(i % 1000);
    KilnMemoryInfo* info = nullptr;
    KilnStatus* st = api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info);
    if (st != nullptr) return st;
    const int64_t shape[] = {batch, kWidth};
    KilnValue* in = nullptr;
    st = api().CreateTensorWithDataAsValue(info, x.data(), x.size() * sizeof(float), shape, 2,
                                           KILN_ELEMENT_TYPE_FLOAT, &in);
    api().ReleaseMemoryInfo(info);
    if (st != nullptr) return st;
    const char* in_names[] = {"x"};
    const KilnValue* inputs[] = {in};
    const char* out_names[] = {"y"};
    KilnValue* out = nullptr;
    st = api().Run(session_, nullptr, in_names, inputs, 1, out_names, 1, &out);
    if (st == nullptr) {
      void* data = nullptr;
      size_t bytes = 0;
      *correct = api().GetTensorMutableData(out, &data) == nullptr &&
                 api().GetTensorSizeInBytes(out, &bytes) == nullptr &&
                 bytes == x.size() * sizeof(float);
      for (size_t i = 0; *correct && i < x.size(); ++i) {
        *correct = static_cast<const float*>(data)[i] == -x[i];
      }
    }
    api().ReleaseValue(out);
    api().ReleaseValue(in);
    return st;
  }
  // Asserts `st` is KILN_OUT_OF_MEMORY whose message holds every one of `parts`; releases it.
  static void ExpectOutOfMemory(KilnStatus* st, std::initializer_list<std::string> parts) {
    ASSERT_NE(st, nullptr);
    const std::string message = api().GetErrorMessage(st);
    EXPECT_EQ(api().GetErrorCode(st), KILN_OUT_OF_MEMORY) << message;
    for (const std::string& p : parts) EXPECT_NE(message.find(p), std::string::npos) << message;
    api().ReleaseStatus(st);
  }

  KilnEnv* env_ = nullptr;
  KilnSessionOptions* options_ = nullptr;
  KilnSession* session_ = nullptr;
};

TEST_F(MemoryLimit, UnlimitedByDefaultAndWithZero) {
  for (const char* value : {static_cast<const char*>(nullptr), "0"}) {
    if (value != nullptr) {
      ExpectOk(api().AddSessionConfigEntry(options_, "kiln.memory.limit_bytes", value));
    }
    api().ReleaseSession(session_);
    session_ = nullptr;
    ExpectOk(Create(-1));
    bool correct = false;
    ExpectOk(Run(1024, 1.0f, &correct));  // 4 MiB a tensor
    EXPECT_TRUE(correct);
    api().ReleaseSession(session_);
    session_ = nullptr;
    ExpectOk(Create(512));  // declared shapes: an 8 MiB tensor
    ExpectOk(Run(512, 2.0f, &correct));
    EXPECT_TRUE(correct);
  }
}

TEST_F(MemoryLimit, DeclaredShapesOverTheLimitFailAtCreation) {
  ExpectOk(api().AddSessionConfigEntry(options_, "kiln.memory.limit_bytes", kLimit));
  // 2 MiB a tensor: the planned activations cannot fit.
  ExpectOutOfMemory(Create(512), {"bytes per run", "kiln.memory.limit_bytes=1048576"});
  EXPECT_EQ(session_, nullptr);
  // 64 KiB a tensor: fits, and runs.
  ExpectOk(Create(16));
  bool correct = false;
  ExpectOk(Run(16, 3.0f, &correct));
  EXPECT_TRUE(correct);
}

TEST_F(MemoryLimit, ARunOverTheLimitFailsNamingTheNodeAndTheSessionStaysUsable) {
  ExpectOk(api().AddSessionConfigEntry(options_, "kiln.memory.limit_bytes", kLimit));
  ExpectOk(Create(-1));
  bool correct = false;
  for (int round = 0; round < 3; ++round) {
    // Twice each: the second run with a shape uses the arena laid out by the first.
    for (int again = 0; again < 2; ++again) {
      ExpectOk(Run(8, 4.0f + static_cast<float>(round), &correct));  // 32 KiB a tensor
      EXPECT_TRUE(correct);
    }
    // 4 MiB a tensor: the first node's output already passes the limit.
    ExpectOutOfMemory(Run(1024, 5.0f, &correct),
                      {"node 'neg_0' (Neg)", "needs 4194304 bytes for activations",
                       "kiln.memory.limit_bytes=1048576 has "});
    EXPECT_FALSE(correct);
    // 192 KiB a tensor: over the limit only at the last node (its output joins the two before).
    ExpectOk(Run(48, 6.0f, &correct));
    EXPECT_TRUE(correct);
  }
}

TEST_F(MemoryLimit, ConcurrentRunsEachSucceedOrFailCleanly) {
  ExpectOk(api().AddSessionConfigEntry(options_, "kiln.memory.limit_bytes", kLimit));
  ExpectOk(Create(-1));
  constexpr int kThreads = 6;
  constexpr int kRounds = 150;
  constexpr int64_t kMaxBatch = 56;  // 224 KiB a tensor: alone, a run fits
  std::atomic<int> wrong{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t batch = 24 + (t * 7 + r * 5) % (kMaxBatch - 23);
        bool correct = false;
        KilnStatus* st = Run(batch, static_cast<float>(t * 100 + r), &correct);
        if (st == nullptr) {
          if (!correct) ++wrong;
          continue;
        }
        const std::string message = api().GetErrorMessage(st);
        if (api().GetErrorCode(st) != KILN_OUT_OF_MEMORY ||
            message.find("kiln.memory.limit_bytes=1048576") == std::string::npos) {
          ++wrong;
          ADD_FAILURE() << message;
        }
        ++failed;
        api().ReleaseStatus(st);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  std::printf("%d of %d concurrent runs over the limit\n", failed.load(), kThreads * kRounds);
  // Everything those runs held is back (or reclaimable): the largest run fits alone, again and
  // again, with new shapes and old ones.
  for (int64_t batch : {kMaxBatch, kMaxBatch - 1, kMaxBatch, int64_t{8}, kMaxBatch}) {
    bool correct = false;
    ExpectOk(Run(batch, 7.0f, &correct));
    EXPECT_TRUE(correct);
  }
}

TEST_F(MemoryLimit, InvalidValuesAreRejectedNamingTheKey) {
  for (const char* value :
       {"", "-1", "abc", "1e6", " 5", "5 ", "+5", "0x10", "99999999999999999999999"}) {
    KilnStatus* st = api().AddSessionConfigEntry(options_, "kiln.memory.limit_bytes", value);
    ASSERT_NE(st, nullptr) << "'" << value << "'";
    const std::string message = api().GetErrorMessage(st);
    EXPECT_EQ(api().GetErrorCode(st), KILN_INVALID_ARGUMENT) << message;
    EXPECT_NE(message.find("kiln.memory.limit_bytes"), std::string::npos) << message;
    api().ReleaseStatus(st);
  }
  // Nothing was recorded: the session has no limit.
  ExpectOk(Create(512));
  bool correct = false;
  ExpectOk(Run(512, 8.0f, &correct));
  EXPECT_TRUE(correct);
}

}  // namespace
}  // namespace kiln_test
