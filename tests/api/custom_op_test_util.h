// Helpers of the custom-op tests: owned Envs and options, sessions made and run over float
// tensors, statuses taken apart, the test libraries' state read through dlopen, and an op of the
// program itself (Twice) for SessionOptionsRegisterCustomOps.
//
//   TestEnv env;
//   Options options;
//   ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
//   KilnSession* session = nullptr;
//   ExpectOk(MakeSession(env.get(), model, options.get(), &session));
//   Ran r = RunX(session, {3, 2}, x);  // r.status, r.y, r.dims
#ifndef KILN_TESTS_API_CUSTOM_OP_TEST_UTIL_H_
#define KILN_TESTS_API_CUSTOM_OP_TEST_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include "api_test_util.h"

namespace kiln_test {

// What loggers of an Env made with one received.
class CapturedLog {
 public:
  static void KILN_API_CALL Sink(void* self, KilnLoggingLevel severity, const char* category,
                                 const char* log_id, const char* location, const char* message);
  struct Entry {
    KilnLoggingLevel severity;
    std::string category;
    std::string message;
  };
  std::vector<Entry> Entries() const;
  // The messages containing `text`.
  std::vector<std::string> Containing(const std::string& text) const;
  // Every message, one a line, for failure output.
  std::string All() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

// An Env (logging only fatal messages, or everything to `log`), released on destruction.
class TestEnv {
 public:
  explicit TestEnv(CapturedLog* log = nullptr);
  ~TestEnv();
  TestEnv(const TestEnv&) = delete;
  TestEnv& operator=(const TestEnv&) = delete;
  KilnEnv* get() const { return env_; }

 private:
  KilnEnv* env_ = nullptr;
};

// Session options, released on destruction.
class Options {
 public:
  Options();
  ~Options();
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  KilnSessionOptions* get() const { return options_; }
  // Gives them up to the caller.
  KilnSessionOptions* release() {
    KilnSessionOptions* o = options_;
    options_ = nullptr;
    return o;
  }

 private:
  KilnSessionOptions* options_ = nullptr;
};

// CreateSessionFromArray over `model`.
KilnStatus* MakeSession(KilnEnv* env, const std::string& model, KilnSessionOptions* options,
                        KilnSession** out);

// A run's status (owned by the caller) and its output y, when it succeeded.
struct Ran {
  KilnStatus* status = nullptr;
  std::vector<float> y;
  std::vector<int64_t> dims;
};
// Runs `session` with its input x (float, of `dims`) for its output y.
Ran RunX(KilnSession* session, const std::vector<int64_t>& dims, const std::vector<float>& x,
         const KilnRunOptions* run_options = nullptr);

// A status's code (KILN_OK for NULL) and message; the status is released.
struct Failure {
  KilnErrorCode code = KILN_OK;
  std::string message;
};
Failure Take(KilnStatus* status);

// Expects `message` to contain each of `parts`.
void ExpectMentions(const std::string& message, std::initializer_list<std::string> parts);

// Whether the library at `path` is loaded in the process (dlopen with RTLD_NOLOAD).
bool Loaded(const char* path);

// How many times Kiln called each callback of a test library (its KilnTestOpsCalls).
struct Counts {
  long infer_shapes = 0;
  long create_kernel = 0;
  long compute = 0;
  long destroy_kernel = 0;
  long release_op_state = 0;
  Counts operator-(const Counts& o) const;
};

// Keeps a test library loaded (a dlopen of the test's own) so that its counts can be read after
// Kiln has let it go.
class Pin {
 public:
  explicit Pin(const char* path);
  ~Pin();
  Pin(const Pin&) = delete;
  Pin& operator=(const Pin&) = delete;
  Counts Calls() const;

 private:
  void* handle_ = nullptr;
  long (*calls_)(const char*) = nullptr;
};

// An op of the program itself: kProgramDomain Twice, Y = 2 X (float); RegisterTwice is its
// KilnRegisterCustomOpsFn, TwiceReleases how many times Kiln called its ReleaseOpState.
inline constexpr const char* kProgramDomain = "test.kiln.program";
KilnStatus* KILN_API_CALL RegisterTwice(KilnCustomOpRegistry* registry, const KilnApiBase* base);
long TwiceReleases();

}  // namespace kiln_test

#endif  // KILN_TESTS_API_CUSTOM_OP_TEST_UTIL_H_
