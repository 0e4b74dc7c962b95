#include "alloc_hook.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace kiln_test::alloc_hook {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<bool> g_paused{false};
std::atomic<bool> g_sticky{false};
std::atomic<long> g_target{0};
std::atomic<long> g_seen{0};
std::atomic<long> g_injected{0};
std::atomic<long> g_live{0};

void* Allocate(std::size_t size, std::size_t alignment) noexcept {
  if (g_armed.load(std::memory_order_relaxed)) {
    const long n = ++g_seen;
    const long target = g_target.load(std::memory_order_relaxed);
    if (n == target || (g_sticky.load(std::memory_order_relaxed) && n > target)) {
      ++g_injected;
      return nullptr;
    }
  }
  if (size == 0) size = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else if (posix_memalign(&p, alignment, size) != 0) {
    p = nullptr;
  }
  if (p != nullptr) ++g_live;
  return p;
}

void Deallocate(void* p) noexcept {
  if (p == nullptr) return;
  --g_live;
  std::free(p);
}

}  // namespace

void Arm(long n, bool sticky) {
  g_seen = 0;
  g_injected = 0;
  g_target = n;
  g_sticky = sticky;
  g_paused = false;
  g_armed = true;
}
void Disarm() {
  g_armed = false;
  g_paused = false;
}
void Pause() {
  if (g_armed.exchange(false)) g_paused = true;
}
void Resume() {
  if (g_paused.exchange(false)) g_armed = true;
}
long Injected() {
  return g_injected;
}
long Seen() {
  return g_seen;
}
long Live() {
  return g_live;
}

}  // namespace kiln_test::alloc_hook

using kiln_test::alloc_hook::Allocate;
using kiln_test::alloc_hook::Deallocate;

void* operator new(std::size_t size) {
  if (void* p = Allocate(size, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = Allocate(size, 0)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t a) {
  if (void* p = Allocate(size, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t a) {
  if (void* p = Allocate(size, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
  Deallocate(p);
}
void operator delete[](void* p) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::size_t) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
