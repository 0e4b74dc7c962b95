// The C++ wrapper from many threads on the bundled digits CNN (DESIGN §3 rule 11), in the release,
// ASan and TSan presets:
//   - one session, eight threads at once: every thread classifies every held-out digit and must
//     get exactly the logits a single thread gets alone;
//   - sessions created, run and released on some threads while others run a shared session;
//   - runs terminated from another thread (RunOptions::SetTerminate) while several threads use
//     those options: each run either completes with the right logits or fails with
//     KILN_TERMINATED, and the session gives right results again once the request is cleared.
#include <gtest/gtest.h>
#include <kiln/kiln_cxx_api.h>

#include <atomic>
#include <chrono>
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

kiln::Session DigitsSession(const kiln::Env& env, int intra_threads) {
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(intra_threads);
  return kiln::Session::Create(env, std::string(KILN_DIGITS_DIR) + "/digits.onnx", options);
}

// Whether `got` (n digits from `first`) equals the single-thread logits `alone`; the first
// difference goes to *where.
bool SameLogits(const std::vector<float>& got, const std::vector<float>& alone, size_t count,
                size_t first, size_t n, std::string* where) {
  if (got.size() != n * 10) {
    *where = "got " + std::to_string(got.size()) + " logits for " + std::to_string(n) + " digits";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t digit = (first + i) % count;
    for (size_t k = 0; k < 10; ++k) {
      if (got[i * 10 + k] != alone[digit * 10 + k]) {
        *where = "digit " + std::to_string(digit) + " logit " + std::to_string(k);
        return false;
      }
    }
  }
  return true;
}

TEST(SessionConcurrency, SessionsCreatedAndReleasedWhileOthersRun) {
  Heldout h = ReadHeldout();
  ASSERT_EQ(h.count, 360u);
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "concurrency");
  kiln::Session shared = DigitsSession(env, 2);
  const std::vector<float> alone = Classify(shared, h, 0, h.count);

  constexpr int kRunners = 4;
  constexpr int kChurners = 3;
  constexpr int kSessionsPerChurner = 8;
  std::atomic<int> churners_left{kChurners};
  std::vector<std::string> errors(kRunners + kChurners);
  std::vector<int> runner_rounds(kRunners, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kRunners; ++t) {
    threads.emplace_back([&, t] {
      try {
        // Until every churner is done, and at least twice.
        for (int round = 0; round < 2 || churners_left.load() > 0; ++round) {
          const size_t first = static_cast<size_t>(t * 90 + round * 7);
          std::string where;
          if (!SameLogits(Classify(shared, h, first, 20), alone, h.count, first, 20, &where)) {
            errors[t] = "shared session: " + where;
            return;
          }
          ++runner_rounds[t];
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (int c = 0; c < kChurners; ++c) {
    threads.emplace_back([&, c] {
      try {
        for (int i = 0; i < kSessionsPerChurner; ++i) {
          // Sessions with a pool of their own and without one, released at the end of each round.
          kiln::Session mine = DigitsSession(env, 1 + (i + c) % 2);
          const size_t first = static_cast<size_t>(c * 31 + i * 11);
          std::string where;
          if (!SameLogits(Classify(mine, h, first, 5), alone, h.count, first, 5, &where)) {
            errors[kRunners + c] = "session " + std::to_string(i) + ": " + where;
            break;
          }
        }
      } catch (const std::exception& e) {
        errors[kRunners + c] = e.what();
      }
      churners_left.fetch_sub(1);
    });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < errors.size(); ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  for (int t = 0; t < kRunners; ++t) EXPECT_GE(runner_rounds[t], 2) << "runner " << t;
}

TEST(SessionConcurrency, TerminateFromAnotherThreadStopsRunsAndTheSessionStaysUsable) {
  Heldout h = ReadHeldout();
  ASSERT_EQ(h.count, 360u);
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "concurrency");
  kiln::Session session = DigitsSession(env, 2);
  const std::vector<float> alone = Classify(session, h, 0, h.count);
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);

  kiln::RunOptions options = kiln::RunOptions::Create();
  options.SetRunLogSeverityLevel(KILN_LOGGING_LEVEL_FATAL);  // the terminations are expected
  constexpr int kThreads = 4;
  std::atomic<bool> stop{false};
  std::atomic<int> terminated{0};
  std::atomic<int> completed{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t) * 50; !stop.load(); ++i) {
        const size_t digit = i % h.count;
        std::vector<kiln::Value> inputs;
        inputs.push_back(
            kiln::Value::CreateTensor<float>(cpu, h.pixels.data() + digit * 64, 64, {1, 1, 8, 8}));
        try {
          std::vector<kiln::Value> out = session.Run(options, {"image"}, inputs, {"logits"});
          const float* p = out[0].data<float>();
          for (size_t k = 0; k < 10; ++k) {
            if (p[k] != alone[digit * 10 + k]) {
              errors[t] = "digit " + std::to_string(digit) + " logit " + std::to_string(k);
              return;
            }
          }
          completed.fetch_add(1);
        } catch (const kiln::Exception& e) {
          if (e.code() != KILN_TERMINATED) {
            errors[t] = e.what();
            return;
          }
          terminated.fetch_add(1);
        }
      }
    });
  }
  // Let runs complete, request termination, let runs fail, clear it, let runs complete again.
  auto wait_for = [](const std::atomic<int>& counter, int at_least) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (counter.load() < at_least && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return counter.load() >= at_least;
  };
  const bool ran_before = wait_for(completed, 20);
  options.SetTerminate();
  const bool stopped = wait_for(terminated, 20);
  options.UnsetTerminate();
  const bool ran_after = wait_for(completed, completed.load() + 20);
  stop.store(true);
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  EXPECT_TRUE(ran_before);
  EXPECT_TRUE(stopped) << terminated.load() << " runs terminated";
  EXPECT_TRUE(ran_after) << completed.load() << " runs completed";
  // The session is still right on every digit.
  EXPECT_EQ(Classify(session, h, 0, h.count), alone);
}

}  // namespace
