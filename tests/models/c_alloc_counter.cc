// The process's C allocation functions, defined in the probe executable so that every shared
// library's calls resolve here; each counts (while counting is on) and hands the request to
// glibc's own implementation.
#include "c_alloc_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>

// glibc's own allocator entry points, which the definitions below hand each request to.
// NOLINTBEGIN(bugprone-reserved-identifier)
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}
// NOLINTEND(bugprone-reserved-identifier)

namespace kiln_test::c_alloc_counter {
namespace {

std::atomic<bool> g_on{false};
std::atomic<long> g_count{0};

void Note() noexcept {
  if (g_on.load(std::memory_order_relaxed)) g_count.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void Start() {
  g_count = 0;
  g_on = true;
}

long Stop() {
  g_on = false;
  return g_count;
}

}  // namespace kiln_test::c_alloc_counter

using kiln_test::c_alloc_counter::Note;

extern "C" {

void* malloc(size_t size) {
  Note();
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  Note();
  return __libc_calloc(count, size);
}

void* realloc(void* p, size_t size) {
  Note();
  return __libc_realloc(p, size);
}

void* memalign(size_t alignment, size_t size) {
  Note();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  Note();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  Note();
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
