// ThreadCache<T>: one T per thread, made on the thread's first Get() and kept for reuse
// (workspaces, argument lists), without holding the library in memory.
//
//   T& panels = ThreadCacheOf<Panels>();  // this thread's, made on first use
//
// Why not `thread_local T`: for a thread_local with a destructor glibc keeps the shared object
// that defines it mapped until every thread that touched it has exited, so a host that calls Kiln
// from its main thread and then dlclose()s libkiln.so would never see it unloaded (issue 32,
// part 4). Here each cache is a pthread key: a thread's T is freed when the thread exits (the
// key's destructor), and whatever is left when the cache itself is destroyed (at dlclose or
// process exit, core/unload.h) is freed then, after the key is deleted, so that no destructor of an
// unloaded library can run later. Get() throws std::bad_alloc when memory or keys run out.
#ifndef KILN_CORE_THREAD_CACHE_H_
#define KILN_CORE_THREAD_CACHE_H_

#include <pthread.h>

#include <memory>
#include <mutex>
#include <new>

#include "core/unload.h"

namespace kiln {

template <typename T>
class ThreadCache {
 public:
  ThreadCache() {
    if (pthread_key_create(&key_, &ThreadExit) != 0) throw std::bad_alloc();
  }
  ThreadCache(const ThreadCache&) = delete;
  ThreadCache& operator=(const ThreadCache&) = delete;
  ~ThreadCache() {
    pthread_key_delete(key_);
    const std::lock_guard lock(mutex_);
    while (head_ != nullptr) {
      Node* next = head_->next;
      delete head_;
      head_ = next;
    }
  }

  T& Get() {
    if (void* mine = pthread_getspecific(key_); mine != nullptr) {
      return static_cast<Node*>(mine)->value;
    }
    auto node = std::make_unique<Node>(this);
    {
      const std::lock_guard lock(mutex_);
      node->next = head_;
      if (head_ != nullptr) head_->prev = node.get();
      head_ = node.get();
    }
    if (pthread_setspecific(key_, node.get()) != 0) {
      Unlink(node.get());
      throw std::bad_alloc();
    }
    return node.release()->value;
  }

 private:
  struct Node {
    explicit Node(ThreadCache* o) : owner(o) {}
    ThreadCache* owner;
    T value{};
    Node* prev = nullptr;
    Node* next = nullptr;
  };

  void Unlink(Node* node) {
    const std::lock_guard lock(mutex_);
    if (node->prev != nullptr) node->prev->next = node->next;
    if (node->next != nullptr) node->next->prev = node->prev;
    if (head_ == node) head_ = node->next;
  }

  static void ThreadExit(void* mine) {
    auto* node = static_cast<Node*>(mine);
    node->owner->Unlink(node);
    delete node;
  }

  pthread_key_t key_{};
  std::mutex mutex_;
  Node* head_ = nullptr;
};

// The calling thread's T from the one cache of T in the library. The cache is not a static
// object (DESIGN.md §3 rule 10): it is freed with the library's other singletons when the library
// is unloaded, or at exit after every static destructor (core/unload.h).
template <typename T>
T& ThreadCacheOf() {
  static ThreadCache<T>* const cache = KeepUntilUnload(new ThreadCache<T>());
  return cache->Get();
}

}  // namespace kiln

#endif  // KILN_CORE_THREAD_CACHE_H_
