// Error codes and the exception the engine throws; src/api turns it into a KilnStatus.
//
//   if (dim < 0) throw kiln::Error(kiln::ErrorCode::kInvalidArgument, "dimension 0 is negative");
#ifndef KILN_CORE_ERROR_H_
#define KILN_CORE_ERROR_H_

#include <stdexcept>
#include <string>

namespace kiln {

// Same values as the C ABI's KilnErrorCode (src/api checks that with static_asserts).
enum class ErrorCode : int {
  kOk = 0,
  kFail = 1,
  kInvalidArgument = 2,
  kNoSuchFile = 3,
  kNoModel = 4,
  kEngineError = 5,
  kRuntimeException = 6,
  kInvalidProtobuf = 7,
  kModelLoaded = 8,
  kNotImplemented = 9,
  kInvalidGraph = 10,
  kOutOfMemory = 11,
  kTerminated = 12,
};

// An error with a code; the message says what is wrong without naming the C entry (the API layer
// prefixes that).
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Throws kInvalidArgument naming the argument: "argument 'shape': <what>".
[[noreturn]] void ThrowInvalidArgument(const char* argument, const std::string& what);

}  // namespace kiln

#endif  // KILN_CORE_ERROR_H_
