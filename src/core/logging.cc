#include "core/logging.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "core/unload.h"

namespace kiln {
namespace {

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kVerbose:
      return "VERBOSE";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
    case LogLevel::kFatal:
      return "FATAL";
  }
  return "?";
}

void WriteStderr(LogLevel level, const char* category, const char* id, const char* location,
                 const char* message) {
  std::fprintf(stderr, "kiln %s [%s] %s (%s): %s\n", LevelName(level), id, category, location,
               message);
}

// Logging takes the lock shared, so concurrent messages (and a callback that takes a lock of the
// caller's own while another thread logs) do not wait on each other; attaching and detaching take
// it exclusively, so once DetachProcessLogger returns the logger is never called again.
struct ProcessLoggers {
  std::shared_mutex mutex;
  std::vector<const Logger*> loggers;
};

ProcessLoggers& Process() {
  // Not a static object: logging must keep working while other statics are torn down. Freed when
  // the library is unloaded (core/unload.h).
  static auto* const kLoggers = KeepUntilUnload(new ProcessLoggers());
  return *kLoggers;
}

}  // namespace

Logger::Logger(LogLevel min_level, std::string id, LogSink sink)
    : min_level_(min_level), id_(std::move(id)), sink_(std::move(sink)) {}

void Logger::Log(LogLevel level, const char* category, const char* location,
                 const char* message) const noexcept {
  if (level < min_level_) return;
  try {
    if (sink_) {
      sink_(level, category, id_.c_str(), location, message);
    } else {
      WriteStderr(level, category, id_.c_str(), location, message);
    }
  } catch (...) {
    // A throwing sink must not take the caller down; the message is lost.
  }
}

void AttachProcessLogger(const Logger* logger) {
  ProcessLoggers& p = Process();
  std::unique_lock<std::shared_mutex> lock(p.mutex);
  p.loggers.push_back(logger);
}

void DetachProcessLogger(const Logger* logger) noexcept {
  try {
    ProcessLoggers& p = Process();
    std::unique_lock<std::shared_mutex> lock(p.mutex);
    p.loggers.erase(std::remove(p.loggers.begin(), p.loggers.end(), logger), p.loggers.end());
  } catch (...) {
    // Process() could not be built, so no logger was ever attached.
  }
}

void LogProcess(LogLevel level, const char* category, const char* location,
                const char* message) noexcept {
  try {
    ProcessLoggers& p = Process();
    std::shared_lock<std::shared_mutex> lock(p.mutex);
    if (!p.loggers.empty()) {
      p.loggers.front()->Log(level, category, location, message);
      return;
    }
  } catch (...) {
    // Out of memory before any logger was attached: fall through to stderr.
  }
  if (level >= LogLevel::kWarning) WriteStderr(level, category, "kiln", location, message);
}

}  // namespace kiln
