// Entries: CreateStatus, GetErrorCode, GetErrorMessage, ReleaseStatus.
#include <new>

#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {
namespace {

bool IsLiveStatus(const KilnStatus* status) noexcept {
  return status == OutOfMemoryStatus() || registry::Find(status) == HandleKind::kStatus;
}

}  // namespace

KilnStatus* KILN_API_CALL CreateStatus(KilnErrorCode code, const char* msg) {
  const int v = EnumValue(code);
  const KilnErrorCode known =
      v > KILN_OK && v <= KILN_TERMINATED ? static_cast<KilnErrorCode>(v) : KILN_FAIL;
  return MakeStatus(known, nullptr, msg == nullptr ? "" : msg);
}

KilnErrorCode KILN_API_CALL GetErrorCode(const KilnStatus* status) {
  if (status == nullptr) return KILN_OK;
  if (!IsLiveStatus(status)) return KILN_INVALID_ARGUMENT;
  return status->code;
}

const char* KILN_API_CALL GetErrorMessage(const KilnStatus* status) {
  if (status == nullptr) return "";
  if (!IsLiveStatus(status)) {
    return "GetErrorMessage: argument 'status' is not a live KilnStatus (already released, or "
           "not made by Kiln)";
  }
  return status->message;
}

void KILN_API_CALL ReleaseStatus(KilnStatus* status) {
  if (status == nullptr || status == OutOfMemoryStatus()) return;
  if (!registry::Remove(status, HandleKind::kStatus)) {
    LogIgnoredRelease("ReleaseStatus", status, HandleKind::kStatus);
    return;
  }
  status->~KilnStatus();
  ::operator delete(status);
}

}  // namespace kiln::api
