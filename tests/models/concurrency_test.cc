// One session, eight threads at once (DESIGN §3 rule 11): every thread classifies every held-out
// digit with the bundled CNN and must get exactly the logits a single thread gets alone.
#include <gtest/gtest.h>
#include <kiln/kiln_cxx_api.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifndef KILN_DIGITS_DIR
#error "KILN_DIGITS_DIR must name examples/digits"
#endif

namespace {

struct Heldout {
  std::vector<float> pixels;  // count × 64
  size_t count = 0;
};

Heldout ReadHeldout() {
  std::ifstream in(std::string(KILN_DIGITS_DIR) + "/heldout.bin", std::ios::binary);
  char magic[4];
  uint32_t count = 0;
  in.read(magic, 4);
  in.read(reinterpret_cast<char*>(&count), sizeof count);
  Heldout h;
  h.count = count;
  h.pixels.resize(size_t{count} * 64);
  in.read(reinterpret_cast<char*>(h.pixels.data()),
          static_cast<std::streamsize>(h.pixels.size() * sizeof(float)));
  if (!in || std::memcmp(magic, "KDIG", 4) != 0) h.count = 0;
  return h;
}

std::vector<float> Classify(const kiln::Session& session, Heldout& h, size_t first, size_t n) {
  std::vector<float> logits;
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  for (size_t i = first; i < first + n; ++i) {
    std::vector<kiln::Value> inputs;
    inputs.push_back(kiln::Value::CreateTensor<float>(cpu, h.pixels.data() + (i % h.count) * 64, 64,
                                                      {1, 1, 8, 8}));
    std::vector<kiln::Value> out = session.Run(kiln::RunOptions(), {"image"}, inputs, {"logits"});
    const float* p = out[0].data<float>();
    logits.insert(logits.end(), p, p + 10);
  }
  return logits;
}

TEST(SessionConcurrency, EightThreadsOnOneSessionGetTheSingleThreadResults) {
  Heldout h = ReadHeldout();
  ASSERT_EQ(h.count, 360u);
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "concurrency");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(2);  // the runs also share the session's pool
  kiln::Session session =
      kiln::Session::Create(env, std::string(KILN_DIGITS_DIR) + "/digits.onnx", options);
  const std::vector<float> alone = Classify(session, h, 0, h.count);

  constexpr int kThreads = 8;
  std::vector<std::vector<float>> got(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        // Each thread starts at a different digit so the runs interleave differently.
        got[t] = Classify(session, h, static_cast<size_t>(t) * 45, h.count);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "") << "thread " << t;
    ASSERT_EQ(got[t].size(), alone.size());
    for (size_t i = 0; i < h.count; ++i) {
      const size_t digit = (static_cast<size_t>(t) * 45 + i) % h.count;
      for (size_t k = 0; k < 10; ++k) {
        ASSERT_EQ(got[t][i * 10 + k], alone[digit * 10 + k])
            << "thread " << t << " digit " << digit << " logit " << k;
      }
    }
  }
}

}  // namespace
