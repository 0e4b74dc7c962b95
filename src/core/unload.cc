#include "core/unload.h"

#include <cstddef>
#include <mutex>

namespace kiln {
namespace {

struct Entry {
  void (*destroy)(void*);
  void* object;
};

// Constant-initialised and trivially destructible: nothing runs at load time, nothing at exit
// but the finalizer below.
constexpr size_t kCapacity = 32;
Entry entries[kCapacity];
size_t used = 0;
std::mutex mutex;

// The library's finalizer (see unload.h): after the host's static destructors at exit, or at
// dlclose. Entries are taken one at a time, last first, so a destructor may register nothing
// new or use what was registered before it.
[[gnu::destructor]] void DestroyAtUnload() {
  for (;;) {
    Entry e{};
    {
      const std::lock_guard lock(mutex);
      if (used == 0) return;
      e = entries[--used];
    }
    e.destroy(e.object);
  }
}

}  // namespace

void AtUnload(void (*destroy)(void*), void* object) noexcept {
  const std::lock_guard lock(mutex);
  if (used < kCapacity) entries[used++] = {destroy, object};
}

}  // namespace kiln
