/**
 * @file
 * Kiln C++ wrapper: kiln::Env, the process-level state (where log messages go).
 *
 * @code
 *   #include <kiln/cxx/env.h>
 *
 *   kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "my-app");  // logs to standard error
 * @endcode
 */
#ifndef KILN_CXX_ENV_H_
#define KILN_CXX_ENV_H_

#include <kiln/cxx/core.h>

namespace kiln {

/** An owned KilnEnv: process-level state, chiefly where log messages go. */
class Env : public Handle<KilnEnv> {
 public:
  /** Holds NULL. */
  Env() noexcept = default;

  /**
   * Takes ownership of an Env.
   *
   * @param env  The Env (may be NULL).
   */
  explicit Env(KilnEnv* env) noexcept : Handle(env) {}

  /**
   * Creates an Env that logs to standard error (KilnApi::CreateEnv).
   *
   * @param min_severity  Messages below this level are dropped.
   * @param log_id        UTF-8 name carried by every message (copied); must not be NULL.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  Env(KilnLoggingLevel min_severity, const char* log_id) {
    KilnEnv* env = nullptr;
    ThrowOnError(Api().CreateEnv(min_severity, log_id, &env));
    Reset(env);
  }

  /**
   * Creates an Env that sends its log messages to a callback (KilnApi::CreateEnvWithCustomLogger).
   * The first live Env also receives messages tied to no Env, such as GetApi's.
   *
   * @param logging_function  The callback; must not be NULL. It may be called from any thread and
   *                          must not call back into Kiln.
   * @param logger_param      Passed to every call of the callback; may be NULL.
   * @param min_severity      Messages below this level are dropped.
   * @param log_id            UTF-8 name carried by every message (copied); must not be NULL.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  Env(KilnLoggingFunction logging_function, void* logger_param, KilnLoggingLevel min_severity,
      const char* log_id) {
    KilnEnv* env = nullptr;
    ThrowOnError(Api().CreateEnvWithCustomLogger(logging_function, logger_param, min_severity,
                                                 log_id, &env));
    Reset(env);
  }
};

}  // namespace kiln

#endif  // KILN_CXX_ENV_H_
