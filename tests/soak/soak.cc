// The soak (issue 32): mixed models from many threads for a long while through the C++ wrapper,
// sessions created and released along the way, and the resident set measured to stay flat.
//
//   kiln_soak [--seconds N] [--threads N] [--seed S] [--models DIR] [--light-cnn PATH]
//             [--digits PATH] [--rss-tolerance-mib M] [--heap-tolerance-mib M]
//             [--leak-bytes-per-run N] [--log CSV]
//
// The models: the bundled digits CNN (dynamic batch), a light zoo CNN from the ONNX backend data
// (light_squeezenet, static 1x3x224x224), and two that make_models.py writes into DIR: a tiny
// transformer block (soak_attention: dynamic batch and sequence length) and control flow
// (soak_loop: a Loop of M iterations, an If inside, dynamic length).
//
// Each thread loops: it picks a model (its own seeded PRNG), runs it on random inputs of valid
// shapes (dynamic dimensions varied), checks that the outputs have the expected shapes and are
// finite, and one run in eight uses the model's reference input instead and compares with the
// outputs computed once at the start by one thread alone (corruption under concurrency). Half the
// runs go through a session shared by all threads, half through the thread's own; after a run,
// one time in 40 the session it used is replaced by a new one (the old one is released when its
// last run ends). One loop run in 25 is a long one (many iterations) that a second thread
// terminates through RunOptions after a random delay: KILN_TERMINATED or success are expected.
//
// The report: runs per model, errors (any unexpected status or wrong output), sessions created
// and released, and the memory, sampled every 250 ms after a warm-up (a twentieth of the soak):
// the RSS (/proc/self/statm) at the start, the middle and the end, and each half's median and
// peak; the heap in use (mallinfo2: the bytes malloc'ed and not freed, all arenas) and the heap
// glibc holds (in use or kept free in its arenas).
//
// Flat means: the median of the second half exceeds that of the first by at most
// max(16 MiB, 5%) for the RSS, and max(8 MiB, 5%) for the heap in use. Medians, not peaks: one
// sample swings by +-30 MiB (CNN runs in flight, sessions being replaced: 4 shared and 4 per
// thread live, and those being replaced), so a half's peak is an extreme of that noise, while a
// half's median moves by a MiB or two between soaks. A leak raises every sample: one output per run
// or one session per replacement passes these floors within the second half of a 10-minute soak
// (about a thousand runs and 25 replacements a second on two cores). The heap in use is the leak
// check proper; the RSS adds glibc's retained free memory (about as much again here), which
// grows a few MiB over a soak as its arenas fragment. --leak-bytes-per-run checks the verdict
// itself (the tests run it). The RSS climbs for the first 15-20 s (the threads' arenas, oneDNN's
// primitive cache filling with the shapes met); a soak shorter than that (the 10-second smoke
// test) raises the floors with --rss-tolerance-mib and --heap-tolerance-mib. --log writes every
// sample as CSV.
//
// Prints "soak: OK" and exits 0 when there were no errors and the memory was flat, 1 otherwise.
#include <kiln/kiln_cxx_api.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifndef KILN_SOAK_DIGITS
#define KILN_SOAK_DIGITS "examples/digits/digits.onnx"
#endif
#ifndef KILN_SOAK_LIGHT_CNN
#define KILN_SOAK_LIGHT_CNN "../shared/onnx-tests/light/light_squeezenet.onnx"
#endif
#ifndef KILN_SOAK_MODELS
#define KILN_SOAK_MODELS "."
#endif

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kModels = 4;
constexpr int kReferenceEvery = 8;   // one run in 8 uses the reference input
constexpr int kReplaceEvery = 40;    // one run in 40 replaces the session it used
constexpr int kTerminateEvery = 25;  // one loop run in 25 is long and terminated
constexpr int64_t kLongLoop = 200000;

// One run's inputs: owned tensors (made with the default allocator) and the expected output
// shapes.
struct Inputs {
  std::vector<std::string> names;
  std::vector<kiln::Value> values;
  std::vector<std::vector<int64_t>> output_shapes;
};

struct Model {
  std::string name;  // how the report names it
  std::string path;
  std::vector<std::string> output_names;
  int intra_threads_shared = 2;  // the shared session's pool; the threads' own sessions use 1
};

kiln::Value FloatTensor(const std::vector<int64_t>& shape, std::mt19937_64& rng, float lo,
                        float hi) {
  kiln::Value v =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), shape, KILN_ELEMENT_TYPE_FLOAT);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = v.data<float>();
  const size_t n = v.type_and_shape().element_count();
  for (size_t i = 0; i < n; ++i) p[i] = dist(rng);
  return v;
}

kiln::Value Int64Scalar(int64_t value) {
  kiln::Value v =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {}, KILN_ELEMENT_TYPE_INT64);
  *v.data<int64_t>() = value;
  return v;
}

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Random inputs of valid shapes for model `m` (the dynamic dimensions varied); `loop_trips` > 0
// fixes the loop model's iteration count.
Inputs MakeInputs(int m, std::mt19937_64& rng, int64_t loop_trips = 0) {
  Inputs in;
  switch (m) {
    case 0: {  // digits: image [batch, 1, 8, 8] -> logits [batch, 10]
      const int64_t batch = Uniform(rng, 1, 8);
      in.names = {"image"};
      in.values.push_back(FloatTensor({batch, 1, 8, 8}, rng, 0.0f, 1.0f));
      in.output_shapes = {{batch, 10}};
      break;
    }
    case 1: {  // light_squeezenet: data_0 [1, 3, 224, 224] -> softmaxout_1 [1, 1000, 1, 1]
      in.names = {"data_0"};
      in.values.push_back(FloatTensor({1, 3, 224, 224}, rng, -1.0f, 1.0f));
      in.output_shapes = {{1, 1000, 1, 1}};
      break;
    }
    case 2: {  // attention: x [batch, seq, 32] -> y [batch, seq, 32]
      const int64_t batch = Uniform(rng, 1, 2), seq = Uniform(rng, 1, 48);
      in.names = {"x"};
      in.values.push_back(FloatTensor({batch, seq, 32}, rng, -1.0f, 1.0f));
      in.output_shapes = {{batch, seq, 32}};
      break;
    }
    default: {  // loop: M, x [n] -> x_final [n], sums [M]
      const int64_t trips = loop_trips > 0 ? loop_trips : Uniform(rng, 1, 64);
      const int64_t n = Uniform(rng, 1, 64);
      in.names = {"M", "x"};
      in.values.push_back(Int64Scalar(trips));
      in.values.push_back(FloatTensor({n}, rng, -1.0f, 1.0f));
      in.output_shapes = {{n}, {trips}};
      break;
    }
  }
  return in;
}

// The reference input of model `m`: the same every time (its own fixed seed).
Inputs ReferenceInputs(int m) {
  std::mt19937_64 rng(1000 + static_cast<uint64_t>(m));
  return MakeInputs(m, rng);
}

// Empty when the outputs have the expected shapes and are finite, else what is wrong.
std::string CheckOutputs(const std::vector<kiln::Value>& outputs, const Inputs& in) {
  if (outputs.size() != in.output_shapes.size()) return "wrong number of outputs";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const kiln::TensorTypeAndShapeInfo info = outputs[i].type_and_shape();
    if (info.element_type() != KILN_ELEMENT_TYPE_FLOAT) return "output not float";
    if (info.shape() != in.output_shapes[i]) return "output " + std::to_string(i) + " misshapen";
    const float* p = outputs[i].data<float>();
    const size_t n = info.element_count();
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(p[k])) return "output " + std::to_string(i) + " not finite";
    }
  }
  return "";
}

// The reference outputs of one model: flattened, one vector per output.
using Outputs = std::vector<std::vector<float>>;

Outputs Flatten(const std::vector<kiln::Value>& outputs) {
  Outputs flat;
  for (const kiln::Value& v : outputs) {
    const float* p = v.data<float>();
    flat.emplace_back(p, p + v.type_and_shape().element_count());
  }
  return flat;
}

// Empty when `outputs` match the reference within 1e-4 (absolute and relative): the sessions'
// thread counts differ, which may change the order of a sum, not more.
std::string Compare(const std::vector<kiln::Value>& outputs, const Outputs& reference) {
  const Outputs got = Flatten(outputs);
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].size() != reference[i].size()) return "reference size differs";
    for (size_t k = 0; k < got[i].size(); ++k) {
      if (std::fabs(got[i][k] - reference[i][k]) > 1e-4f + 1e-4f * std::fabs(reference[i][k])) {
        std::ostringstream text;
        text << "output " << i << "[" << k << "] = " << got[i][k] << ", reference "
             << reference[i][k];
        return text.str();
      }
    }
  }
  return "";
}

size_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t total = 0, resident = 0;
  statm >> total >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// One sample of the process's memory: the resident set, and glibc's view of the heap (mallinfo2,
// all arenas): the bytes handed out and not freed (a leak raises these), and the bytes it holds
// from the system (in use or kept free for reuse).
struct Sample {
  double seconds = 0;
  size_t rss = 0;
  size_t heap_in_use = 0;
  size_t heap_held = 0;
  uint64_t runs = 0;
  uint64_t live_sessions = 0;
};

double Mib(size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// What every thread shares: the models, the shared sessions, the counters and the errors.
class Soak {
 public:
  // `leak_bytes_per_run` > 0 tests the verdict: each run keeps that many bytes (written, so
  // resident) until the soak ends, as a leak of one output per run would.
  Soak(const kiln::Env& env, std::vector<Model> models, size_t leak_bytes_per_run)
      : env_(env), models_(std::move(models)), leak_bytes_per_run_(leak_bytes_per_run) {}

  // Creates the shared sessions and computes the references, one thread alone.
  void Start() {
    for (int m = 0; m < kModels; ++m) {
      shared_[m] = Create(m, models_[m].intra_threads_shared);
      Inputs in = ReferenceInputs(m);
      const std::vector<kiln::Value> out =
          shared_[m]->Run(in.names, in.values, models_[m].output_names);
      const std::string wrong = CheckOutputs(out, in);
      if (!wrong.empty()) throw kiln::Exception(KILN_FAIL, models_[m].name + ": " + wrong);
      reference_[m] = Flatten(out);
    }
  }

  // One thread's loop until `stop`.
  void Worker(uint64_t seed, const std::atomic<bool>& stop) {
    std::mt19937_64 rng(seed);
    std::array<std::shared_ptr<const kiln::Session>, kModels> own;
    while (!stop.load(std::memory_order_relaxed)) {
      const int m = static_cast<int>(Uniform(rng, 0, kModels - 1));
      const bool use_shared = Uniform(rng, 0, 1) == 0;
      try {
        std::shared_ptr<const kiln::Session> session;
        if (use_shared) {
          const std::lock_guard<std::mutex> lock(mutex_);
          session = shared_[m];
        } else {
          if (!own[m]) own[m] = Create(m, 1);
          session = own[m];
        }
        if (m == 3 && Uniform(rng, 1, kTerminateEvery) == 1) {
          RunTerminated(*session, rng);
        } else {
          RunOnce(m, *session, rng);
        }
        session.reset();
        if (Uniform(rng, 1, kReplaceEvery) == 1) {
          // Created outside the lock; the old one goes when its last run ends.
          std::shared_ptr<const kiln::Session> fresh =
              Create(m, use_shared ? models_[m].intra_threads_shared : 1);
          if (use_shared) {
            const std::lock_guard<std::mutex> lock(mutex_);
            shared_[m].swap(fresh);
          } else {
            own[m].swap(fresh);
          }
        }
      } catch (const kiln::Exception& e) {
        Error(models_[m].name + ": " + e.what() + " (code " + std::to_string(e.code()) + ")");
      } catch (const std::exception& e) {
        Error(models_[m].name + ": " + e.what());
      }
    }
  }

  // Releases the shared sessions (the threads have released theirs).
  void Finish() {
    for (auto& s : shared_) s.reset();
  }

  void Error(const std::string& what) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (errors_.size() < 20) errors_.push_back(what);
    ++error_count_;
  }

  uint64_t TotalRuns() const {
    uint64_t total = 0;
    for (const auto& r : runs_) total += r.load();
    return total;
  }

  const std::vector<Model>& models() const { return models_; }
  const std::array<std::atomic<uint64_t>, kModels>& runs() const { return runs_; }
  uint64_t reference_checks() const { return reference_checks_.load(); }
  uint64_t created() const { return created_.load(); }
  uint64_t released() const { return released_->load(); }
  uint64_t terminated() const { return terminated_.load(); }
  uint64_t terminate_finished() const { return terminate_finished_.load(); }
  uint64_t error_count() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return error_count_;
  }
  std::vector<std::string> errors() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }

 private:
  // A new session for model `m`, counted when it is created and when it is released.
  std::shared_ptr<const kiln::Session> Create(int m, int intra_threads) {
    kiln::SessionOptions options = kiln::SessionOptions::Create();
    options.SetIntraOpNumThreads(intra_threads);
    auto* session = new kiln::Session(kiln::Session::Create(env_, models_[m].path, options));
    created_.fetch_add(1);
    std::shared_ptr<std::atomic<uint64_t>> released = released_;
    return {session, [released](const kiln::Session* s) {
              delete s;
              released->fetch_add(1);
            }};
  }

  void RunOnce(int m, const kiln::Session& session, std::mt19937_64& rng) {
    const bool reference = Uniform(rng, 1, kReferenceEvery) == 1;
    const Inputs in = reference ? ReferenceInputs(m) : MakeInputs(m, rng);
    const std::vector<kiln::Value> out = session.Run(in.names, in.values, models_[m].output_names);
    std::string wrong = CheckOutputs(out, in);
    if (wrong.empty() && reference) {
      wrong = Compare(out, reference_[m]);
      reference_checks_.fetch_add(1);
    }
    if (!wrong.empty()) {
      Error(models_[m].name + ": " + wrong);
      return;
    }
    if (leak_bytes_per_run_ > 0) {
      auto kept = std::make_unique<char[]>(leak_bytes_per_run_);
      std::memset(kept.get(), 1, leak_bytes_per_run_);
      const std::lock_guard<std::mutex> lock(mutex_);
      leaked_.push_back(std::move(kept));
    }
    runs_[m].fetch_add(1);
  }

  // A long loop run that another thread terminates after 0-20 ms: KILN_TERMINATED, or success
  // with valid outputs when it finished first.
  void RunTerminated(const kiln::Session& session, std::mt19937_64& rng) {
    const Inputs in = MakeInputs(3, rng, kLongLoop);
    kiln::RunOptions options = kiln::RunOptions::Create();
    const auto delay = std::chrono::microseconds(Uniform(rng, 0, 20000));
    std::thread terminator([&options, delay] {
      std::this_thread::sleep_for(delay);
      options.SetTerminate();
    });
    try {
      const std::vector<kiln::Value> out =
          session.Run(options, in.names, in.values, models_[3].output_names);
      terminator.join();
      const std::string wrong = CheckOutputs(out, in);
      if (!wrong.empty()) {
        Error(models_[3].name + " (long run): " + wrong);
        return;
      }
      terminate_finished_.fetch_add(1);
    } catch (const kiln::Exception& e) {
      terminator.join();
      if (e.code() != KILN_TERMINATED) throw;
      terminated_.fetch_add(1);
    }
    runs_[3].fetch_add(1);
  }

  const kiln::Env& env_;
  std::vector<Model> models_;
  mutable std::mutex mutex_;
  std::array<std::shared_ptr<const kiln::Session>, kModels> shared_;
  std::array<Outputs, kModels> reference_;
  std::array<std::atomic<uint64_t>, kModels> runs_{};
  std::atomic<uint64_t> reference_checks_{0}, created_{0}, terminated_{0}, terminate_finished_{0};
  // Shared with the sessions' deleters, which may outlive nothing here but keep it simple.
  std::shared_ptr<std::atomic<uint64_t>> released_ = std::make_shared<std::atomic<uint64_t>>(0);
  std::vector<std::string> errors_;
  uint64_t error_count_ = 0;
  const size_t leak_bytes_per_run_;
  std::vector<std::unique_ptr<char[]>> leaked_;  // see leak_bytes_per_run
};

struct Options {
  int seconds = 600;
  int threads = 8;
  uint64_t seed = 32;
  std::string models_dir = KILN_SOAK_MODELS;
  std::string light_cnn = KILN_SOAK_LIGHT_CNN;
  std::string digits = KILN_SOAK_DIGITS;
  double rss_tolerance_mib = 16.0;  // the floors of the tolerances (see the top of the file)
  double heap_tolerance_mib = 8.0;
  size_t leak_bytes_per_run = 0;  // a test of the verdict: bytes kept per run until the end
  std::string log;                // a CSV of every sample, when set
};

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (arg == "--seconds") {
      o.seconds = std::atoi(value);
    } else if (arg == "--threads") {
      o.threads = std::atoi(value);
    } else if (arg == "--seed") {
      o.seed = std::strtoull(value, nullptr, 10);
    } else if (arg == "--models") {
      o.models_dir = value;
    } else if (arg == "--light-cnn") {
      o.light_cnn = value;
    } else if (arg == "--digits") {
      o.digits = value;
    } else if (arg == "--heap-tolerance-mib") {
      o.heap_tolerance_mib = std::atof(value);
    } else if (arg == "--leak-bytes-per-run") {
      o.leak_bytes_per_run = std::strtoull(value, nullptr, 10);
    } else if (arg == "--log") {
      o.log = value;
    } else if (arg == "--rss-tolerance-mib") {
      o.rss_tolerance_mib = std::atof(value);
    } else {
      return false;
    }
  }
  return o.seconds >= 2 && o.threads >= 1;
}

// The median and the highest of one field of `samples` (0 when there are none).
size_t Median(const std::vector<Sample>& samples, size_t Sample::*field) {
  std::vector<size_t> v;
  v.reserve(samples.size());
  for (const Sample& s : samples) v.push_back(s.*field);
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

size_t Peak(const std::vector<Sample>& samples, size_t Sample::*field) {
  size_t peak = 0;
  for (const Sample& s : samples) peak = std::max(peak, s.*field);
  return peak;
}

Sample TakeSample(Clock::time_point begin, const Soak& soak) {
  Sample s;
  s.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  s.rss = RssBytes();
  const struct mallinfo2 heap = mallinfo2();
  s.heap_in_use = heap.uordblks + heap.hblkhd;
  s.heap_held = heap.arena + heap.hblkhd;
  s.runs = soak.TotalRuns();
  const uint64_t released = soak.released();  // read first: created never falls behind it
  s.live_sessions = soak.created() - released;
  return s;
}

// Sleeps until `deadline`, printing a progress line at each tenth of the soak and sampling every
// 250 ms into `samples` (and a line per sample to `log` when there is one).
void WaitUntil(Clock::time_point deadline, Clock::time_point begin, int seconds, const Soak& soak,
               std::FILE* log, int& next_tenth, std::vector<Sample>& samples) {
  while (Clock::now() < deadline) {
    const auto tenth = begin + std::chrono::milliseconds(int64_t{seconds} * 100 * next_tenth);
    const auto until = std::min({deadline, tenth, Clock::now() + std::chrono::milliseconds(250)});
    std::this_thread::sleep_until(until);
    const Sample s = TakeSample(begin, soak);
    samples.push_back(s);
    if (log != nullptr) {
      std::fprintf(log, "%.2f,%.2f,%.2f,%.2f,%llu,%llu\n", s.seconds, Mib(s.rss),
                   Mib(s.heap_in_use), Mib(s.heap_held), static_cast<unsigned long long>(s.runs),
                   static_cast<unsigned long long>(s.live_sessions));
    }
    if (until == tenth && next_tenth < 10) {
      std::printf("soak: %3d%%  %llu runs  RSS %.1f MiB  heap in use %.1f MiB  %llu errors\n",
                  next_tenth * 10, static_cast<unsigned long long>(s.runs), Mib(s.rss),
                  Mib(s.heap_in_use), static_cast<unsigned long long>(soak.error_count()));
      std::fflush(stdout);
      ++next_tenth;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: kiln_soak [--seconds N>=2] [--threads N] [--seed S] [--models DIR] "
                 "[--light-cnn PATH] [--digits PATH] [--rss-tolerance-mib M] "
                 "[--heap-tolerance-mib M] [--leak-bytes-per-run N] [--log CSV]\n");
    return 2;
  }
  std::vector<Model> models = {
      {"cnn digits", o.digits, {"logits"}},
      {"cnn light_squeezenet", o.light_cnn, {"softmaxout_1"}},
      {"transformer (dynamic seq)", o.models_dir + "/soak_attention.onnx", {"y"}},
      {"control flow Loop+If", o.models_dir + "/soak_loop.onnx", {"x_final", "sums"}},
  };
  std::printf("soak: %d threads, %d s, seed %llu\n", o.threads, o.seconds,
              static_cast<unsigned long long>(o.seed));
  for (const Model& m : models) std::printf("soak: model %s: %s\n", m.name.c_str(), m.path.c_str());

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> log(nullptr, &std::fclose);
  if (!o.log.empty()) {
    log.reset(std::fopen(o.log.c_str(), "w"));
    if (!log) {
      std::fprintf(stderr, "soak: cannot write %s: %s\n", o.log.c_str(), std::strerror(errno));
      return 2;
    }
    std::fprintf(log.get(), "seconds,rss_mib,heap_in_use_mib,heap_held_mib,runs,live_sessions\n");
  }
  int status = 0;
  size_t rss_start = 0, rss_middle = 0, rss_end = 0;
  std::vector<Sample> warm_up, first, second;  // the samples of each half after the warm-up
  uint64_t created = 0, released = 0;
  std::unique_ptr<Soak> soak;
  try {
    const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "soak");
    soak = std::make_unique<Soak>(env, models, o.leak_bytes_per_run);
    soak->Start();
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(o.threads));
    const Clock::time_point begin = Clock::now();
    for (int t = 0; t < o.threads; ++t) {
      threads.emplace_back([&soak, &stop, seed = o.seed * 1000 + static_cast<uint64_t>(t)] {
        soak->Worker(seed, stop);
      });
    }
    // Warm-up: a twentieth of the soak, at least 1 s (the threads' arenas and pools fill).
    int next_tenth = 1;
    const auto warm = std::chrono::milliseconds(std::max<int64_t>(1000, int64_t{o.seconds} * 50));
    WaitUntil(begin + warm, begin, o.seconds, *soak, log.get(), next_tenth, warm_up);
    rss_start = RssBytes();
    WaitUntil(begin + std::chrono::milliseconds(int64_t{o.seconds} * 500), begin, o.seconds, *soak,
              log.get(), next_tenth, first);
    rss_middle = RssBytes();
    WaitUntil(begin + std::chrono::seconds(o.seconds), begin, o.seconds, *soak, log.get(),
              next_tenth, second);
    rss_end = RssBytes();  // the threads still running, as at the middle
    stop = true;
    for (std::thread& t : threads) t.join();
    soak->Finish();
  } catch (const kiln::Exception& e) {
    std::fprintf(stderr, "soak: %s (code %d)\n", e.what(), static_cast<int>(e.code()));
    return 1;
  }
  created = soak->created();
  released = soak->released();

  std::printf("soak: report\n");
  uint64_t total = 0;
  for (int m = 0; m < kModels; ++m) {
    const uint64_t runs = soak->runs()[m].load();
    total += runs;
    std::printf("  runs %-28s %llu\n", soak->models()[m].name.c_str(),
                static_cast<unsigned long long>(runs));
  }
  std::printf("  runs completed               %llu (%.1f per second)\n",
              static_cast<unsigned long long>(total), static_cast<double>(total) / o.seconds);
  std::printf("  reference comparisons        %llu\n",
              static_cast<unsigned long long>(soak->reference_checks()));
  std::printf("  long runs terminated         %llu (finished first: %llu)\n",
              static_cast<unsigned long long>(soak->terminated()),
              static_cast<unsigned long long>(soak->terminate_finished()));
  std::printf("  sessions created / released  %llu / %llu\n",
              static_cast<unsigned long long>(created), static_cast<unsigned long long>(released));
  // The verdict compares the halves' medians. The RSS of one sample swings by +-30 MiB from moment
  // to moment (runs of the CNN in flight, sessions being replaced), so a half's peak is one extreme
  // of that noise and the two halves' peaks differ by chance; the median of a half's thousand-odd
  // samples moves by a MiB or two between soaks, and a leak raises it (by what leaks in half the
  // soak). The heap in use (mallinfo2) is what Kiln and the soak hold: a leak raises it the same,
  // while glibc's free memory kept in its arenas (the RSS beyond the heap in use, about half of it
  // here) does not.
  const size_t rss_first = Median(first, &Sample::rss), rss_second = Median(second, &Sample::rss);
  const size_t heap_first = Median(first, &Sample::heap_in_use);
  const size_t heap_second = Median(second, &Sample::heap_in_use);
  const double rss_growth = Mib(rss_second) - Mib(rss_first);
  const double rss_tolerance = std::max(o.rss_tolerance_mib, 0.05 * Mib(rss_first));
  const double heap_growth = Mib(heap_second) - Mib(heap_first);
  const double heap_tolerance = std::max(o.heap_tolerance_mib, 0.05 * Mib(heap_first));
  std::printf("  RSS start %.1f MiB, middle %.1f MiB, end %.1f MiB\n", Mib(rss_start),
              Mib(rss_middle), Mib(rss_end));
  std::printf(
      "  RSS median first half %.1f MiB, second half %.1f MiB (growth %+.1f MiB, "
      "tolerance %.1f MiB)\n",
      Mib(rss_first), Mib(rss_second), rss_growth, rss_tolerance);
  std::printf("  RSS peak first half %.1f MiB, second half %.1f MiB\n",
              Mib(Peak(first, &Sample::rss)), Mib(Peak(second, &Sample::rss)));
  std::printf(
      "  heap in use median first half %.1f MiB, second half %.1f MiB (growth %+.1f MiB, "
      "tolerance %.1f MiB)\n",
      Mib(heap_first), Mib(heap_second), heap_growth, heap_tolerance);
  std::printf("  heap held by glibc median first half %.1f MiB, second half %.1f MiB\n",
              Mib(Median(first, &Sample::heap_held)), Mib(Median(second, &Sample::heap_held)));
  const uint64_t errors = soak->error_count();
  std::printf("  errors                       %llu\n", static_cast<unsigned long long>(errors));
  for (const std::string& e : soak->errors()) std::printf("    %s\n", e.c_str());
  if (errors != 0) status = 1;
  if (created != released) {
    std::printf("soak: FAIL: %llu sessions not released\n",
                static_cast<unsigned long long>(created - released));
    status = 1;
  }
  if (rss_growth <= rss_tolerance) {
    std::printf("soak: RSS flat\n");
  } else {
    std::printf("soak: FAIL: RSS grew %.1f MiB in the second half\n", rss_growth);
    status = 1;
  }
  if (heap_growth <= heap_tolerance) {
    std::printf("soak: heap in use flat\n");
  } else {
    std::printf("soak: FAIL: heap in use grew %.1f MiB in the second half\n", heap_growth);
    status = 1;
  }
  if (total == 0) status = 1;
  if (status == 0) std::printf("soak: OK\n");
  return status;
}
