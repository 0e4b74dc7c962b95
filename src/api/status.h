// Making KilnStatus values, and Guard: the wrapper every entry body runs in, which turns any
// exception into a status so none crosses the C boundary.
//
//   KilnStatus* KILN_API_CALL IsTensor(const KilnValue* value, int* out) {
//     return Guard("IsTensor", [&] { ... throw kiln::Error(...) ... });
//   }
#ifndef KILN_API_STATUS_H_
#define KILN_API_STATUS_H_

#include <exception>
#include <new>

#include "core/error.h"
#include "kiln/kiln_c_api.h"

namespace kiln::api {

// A new status "<entry>: <what>" (entry may be null). Never throws: when memory runs out the
// result is the shared out-of-memory status.
KilnStatus* MakeStatus(KilnErrorCode code, const char* entry, const char* what) noexcept;

// The shared status returned when a status itself cannot be allocated; ReleaseStatus ignores it.
KilnStatus* OutOfMemoryStatus() noexcept;

// Maps the exception being handled to a status for `entry`.
KilnStatus* StatusFromCurrentException(const char* entry) noexcept;

template <class Body>
KilnStatus* Guard(const char* entry, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (...) {
    return StatusFromCurrentException(entry);
  }
}

}  // namespace kiln::api

#endif  // KILN_API_STATUS_H_
