// KilnAllocator structs as the engine sees them: Kiln's own default one, checks on ones a user
// fills in, and an adapter that lets a tensor allocate from either.
//
//   std::shared_ptr<kiln::Allocator> a = AdaptAllocator(user_allocator, "allocator");
#ifndef KILN_API_ALLOCATORS_H_
#define KILN_API_ALLOCATORS_H_

#include <memory>
#include <string>

#include "core/allocator.h"
#include "kiln/kiln_c_api.h"

namespace kiln::api {

// Kiln's CPU allocator as a KilnAllocator: a static, never released.
KilnAllocator* DefaultAllocator() noexcept;

// Throws INVALID_ARGUMENT naming `argument` unless `allocator` looks like a usable KilnAllocator:
// not NULL, not one of Kiln's handles, version >= 1, Alloc and Free set.
void CheckAllocator(const KilnAllocator* allocator, const char* argument);

// The memory a checked allocator returns (its Info callback must give a live KilnMemoryInfo).
const KilnMemoryInfo* AllocatorInfo(const KilnAllocator* allocator, const char* argument);

// An engine Allocator drawing from a checked KilnAllocator (which must outlive it).
std::shared_ptr<Allocator> AdaptAllocator(KilnAllocator* allocator, const char* argument);

// Copies `text` (NUL-terminated) into memory from a checked `allocator`. Throws
// KILN_OUT_OF_MEMORY when the allocator returns NULL.
char* CopyString(KilnAllocator* allocator, const std::string& text);

}  // namespace kiln::api

#endif  // KILN_API_ALLOCATORS_H_
