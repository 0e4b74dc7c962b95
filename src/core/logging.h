// Log messages: a Logger per Env, plus a process-wide route for messages tied to no Env.
//
//   kiln::Logger log(kiln::LogLevel::kWarning, "my-app", nullptr);  // nullptr sink: stderr
//   log.Log(kiln::LogLevel::kError, "kiln.api", KILN_LOCATION, "something failed");
#ifndef KILN_CORE_LOGGING_H_
#define KILN_CORE_LOGGING_H_

#include <functional>
#include <string>

namespace kiln {

// Same values as the C ABI's KilnLoggingLevel.
enum class LogLevel : int { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// Receives (level, category, log id, code location, message).
using LogSink = std::function<void(LogLevel, const char*, const char*, const char*, const char*)>;

#define KILN_STRINGIFY_INNER(x) #x
#define KILN_STRINGIFY(x) KILN_STRINGIFY_INNER(x)
// "file.cc:123" of the line it appears on.
#define KILN_LOCATION (__FILE__ ":" KILN_STRINGIFY(__LINE__))

class Logger {
 public:
  // An empty `sink` writes to stderr.
  Logger(LogLevel min_level, std::string id, LogSink sink);

  LogLevel min_level() const noexcept { return min_level_; }
  const std::string& id() const noexcept { return id_; }
  const LogSink& sink() const noexcept { return sink_; }

  // Drops messages below min_level(); never throws.
  void Log(LogLevel level, const char* category, const char* location,
           const char* message) const noexcept;

 private:
  LogLevel min_level_;
  std::string id_;
  LogSink sink_;
};

// The first attached logger receives process-wide messages; with none they go to stderr (warnings
// and above). Attach/Detach are thread-safe; a logger must be detached before it is destroyed.
// Attach throws std::bad_alloc when it cannot record the logger.
void AttachProcessLogger(const Logger* logger);
void DetachProcessLogger(const Logger* logger) noexcept;
void LogProcess(LogLevel level, const char* category, const char* location,
                const char* message) noexcept;

}  // namespace kiln

#endif  // KILN_CORE_LOGGING_H_
