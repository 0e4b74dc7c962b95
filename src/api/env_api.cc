// Entries: CreateEnv, CreateEnvWithCustomLogger, ReleaseEnv.
#include <memory>
#include <string>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "core/utf8.h"

namespace kiln::api {
namespace {

void MakeEnv(LogLevel level, std::string log_id, LogSink sink, KilnEnv** out) {
  auto env =
      std::unique_ptr<KilnEnv>(new KilnEnv{Logger(level, std::move(log_id), std::move(sink))});
  AttachProcessLogger(&env->logger);
  try {
    registry::Add(env.get(), HandleKind::kEnv);
  } catch (...) {
    DetachProcessLogger(&env->logger);
    throw;
  }
  *out = env.release();
}

}  // namespace

KilnStatus* KILN_API_CALL CreateEnv(KilnLoggingLevel min_severity, const char* log_id,
                                    KilnEnv** out) {
  return Guard("CreateEnv", [&] {
    const LogLevel level = CheckedLevel(min_severity, "min_severity");
    std::string id = CheckedUtf8(log_id, "log_id");
    CheckOut(out, "out");
    MakeEnv(level, std::move(id), LogSink(), out);
  });
}

KilnStatus* KILN_API_CALL CreateEnvWithCustomLogger(KilnLoggingFunction logging_function,
                                                    void* logger_param,
                                                    KilnLoggingLevel min_severity,
                                                    const char* log_id, KilnEnv** out) {
  return Guard("CreateEnvWithCustomLogger", [&] {
    if (logging_function == nullptr) ThrowInvalidArgument("logging_function", "is NULL");
    const LogLevel level = CheckedLevel(min_severity, "min_severity");
    std::string id = CheckedUtf8(log_id, "log_id");
    CheckOut(out, "out");
    LogSink sink = [logging_function, logger_param](LogLevel l, const char* category,
                                                    const char* id_text, const char* location,
                                                    const char* message) {
      logging_function(logger_param, static_cast<KilnLoggingLevel>(l), category, id_text, location,
                       message);
    };
    MakeEnv(level, std::move(id), std::move(sink), out);
  });
}

void KILN_API_CALL ReleaseEnv(KilnEnv* env) {
  if (env == nullptr) return;
  if (registry::Find(env) == HandleKind::kEnv) DetachProcessLogger(&env->logger);
  Release(env, "ReleaseEnv");
}

}  // namespace kiln::api
