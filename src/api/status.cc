#include "api/status.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "api/handles.h"

namespace kiln::api {
namespace {

// Constant-initialised and trivially destructible: safe as a static.
KilnStatus g_out_of_memory{KILN_OUT_OF_MEMORY,
                           "out of memory (there was not even room for the error's details)"};

}  // namespace

KilnStatus* OutOfMemoryStatus() noexcept {
  return &g_out_of_memory;
}

KilnStatus* MakeStatus(KilnErrorCode code, const char* entry, const char* what) noexcept {
  if (what == nullptr) what = "";
  const size_t entry_len = entry == nullptr ? 0 : std::strlen(entry);
  const size_t what_len = std::strlen(what);
  const size_t prefix = entry_len == 0 ? 0 : entry_len + 2;  // "entry: "
  void* block = ::operator new(sizeof(KilnStatus) + prefix + what_len + 1, std::nothrow);
  if (block == nullptr) return OutOfMemoryStatus();
  char* text = static_cast<char*>(block) + sizeof(KilnStatus);
  if (entry_len != 0) {
    std::copy_n(entry, entry_len, text);
    std::copy_n(": ", 2, text + entry_len);
  }
  std::copy_n(what, what_len + 1, text + prefix);  // with the terminator
  auto* status = new (block) KilnStatus{code, text};
  try {
    registry::Add(status, HandleKind::kStatus);
  } catch (...) {
    ::operator delete(block);
    return OutOfMemoryStatus();
  }
  return status;
}

KilnStatus* StatusFromCurrentException(const char* entry) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return MakeStatus(static_cast<KilnErrorCode>(e.code()), entry, e.what());
  } catch (const std::bad_alloc&) {
    return MakeStatus(KILN_OUT_OF_MEMORY, entry, "out of memory");
  } catch (const std::exception& e) {
    return MakeStatus(KILN_RUNTIME_EXCEPTION, entry, e.what());
  } catch (...) {
    return MakeStatus(KILN_RUNTIME_EXCEPTION, entry, "unknown exception");
  }
}

}  // namespace kiln::api
