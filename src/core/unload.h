// Freeing Kiln's process-wide objects when the library is unloaded.
//
//   static Registry* const registry = KeepUntilUnload(new Registry());
//
// The objects Kiln builds on first use and shares process-wide (the handle registry, the kernel
// registry, the loggers, the allocator, RunAsync's pool) are never destroyed by a static
// destructor (DESIGN.md §3 rule 10: a host may release handles from its own static destructors).
// Each registers here when it is built, and the library's finalizer (a .fini_array function in
// unload.cc) destroys them, the last registered first. The finalizer runs when a host dlclose()s
// libkiln.so, and at process exit after every atexit handler and static destructor (the host's
// included); so a host can load and unload Kiln any number of times without leaking
// (tests/unload). A process-wide object that owns threads must stop and join them in its
// destructor.
#ifndef KILN_CORE_UNLOAD_H_
#define KILN_CORE_UNLOAD_H_

namespace kiln {

// Registers `destroy(object)` to run when the library is unloaded. At most 32 registrations (the
// library's singletons); past that the object is kept (a leak at unload, never a crash).
void AtUnload(void (*destroy)(void*), void* object) noexcept;

// `object`, to be deleted when the library is unloaded.
template <typename T>
T* KeepUntilUnload(T* object) noexcept {
  AtUnload([](void* p) { delete static_cast<T*>(p); },
           const_cast<void*>(static_cast<const void*>(object)));
  return object;
}

}  // namespace kiln

#endif  // KILN_CORE_UNLOAD_H_
