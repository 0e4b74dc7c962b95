// A user-supplied KilnAllocator for tests: counts live blocks, can fail from the Nth request on,
// and can hand out deliberately misaligned memory.
#ifndef KILN_TESTS_API_COUNTING_ALLOCATOR_H_
#define KILN_TESTS_API_COUNTING_ALLOCATOR_H_

#include <cstdint>
#include <cstdlib>

#include "kiln/kiln_c_api.h"

namespace kiln_test {

class CountingAllocator {
 public:
  CountingAllocator() {
    base_.version = KILN_API_VERSION;
    base_.Alloc = &AllocThunk;
    base_.Free = &FreeThunk;
    base_.Info = nullptr;
  }
  KilnAllocator* get() { return &base_; }
  int live() const { return live_; }
  int calls() const { return calls_; }
  // Requests number n, n+1, … (counting from 1) return NULL.
  void FailFrom(int n) { fail_from_ = n; }
  // Return memory that is 8 bytes past a 64-byte boundary.
  void Misalign(bool on) { misalign_ = on; }

 private:
  static CountingAllocator* Self(KilnAllocator* a) {
    return reinterpret_cast<CountingAllocator*>(a);
  }
  static void* KILN_API_CALL AllocThunk(KilnAllocator* a, size_t size) {
    CountingAllocator* self = Self(a);
    ++self->calls_;
    if (self->fail_from_ > 0 && self->calls_ >= self->fail_from_) return nullptr;
    char* p = static_cast<char*>(std::aligned_alloc(64, (size + 64 + 63) / 64 * 64));
    if (p == nullptr) return nullptr;
    ++self->live_;
    return self->misalign_ ? p + 8 : p;
  }
  static void KILN_API_CALL FreeThunk(KilnAllocator* a, void* p) {
    CountingAllocator* self = Self(a);
    if (p == nullptr) return;
    char* c = static_cast<char*>(p);
    if (reinterpret_cast<uintptr_t>(c) % 64 == 8) c -= 8;
    std::free(c);
    --self->live_;
  }

  KilnAllocator base_;  // first member: a KilnAllocator* is a CountingAllocator*
  int live_ = 0;
  int calls_ = 0;
  int fail_from_ = 0;
  bool misalign_ = false;
};

}  // namespace kiln_test

#endif  // KILN_TESTS_API_COUNTING_ALLOCATOR_H_
