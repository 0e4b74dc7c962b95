#include "runtime/shared_library.h"

#include <dlfcn.h>

#include <mutex>

#include "core/error.h"

namespace kiln::runtime {
namespace {

// dlerror's text is per thread but not per call: open and read it under one lock.
std::mutex& DlMutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

std::shared_ptr<SharedLibrary> SharedLibrary::Open(const std::string& path) {
  void* handle = nullptr;
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(DlMutex());
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      reason = e != nullptr ? e : "dlopen failed";
    }
  }
  if (handle == nullptr) {
    throw Error(ErrorCode::kNoSuchFile, "cannot open library '" + path + "': " + reason);
  }
  try {
    return std::shared_ptr<SharedLibrary>(new SharedLibrary(handle, path));
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

SharedLibrary::~SharedLibrary() {
  dlclose(handle_);
}

void* SharedLibrary::Symbol(const char* name) const noexcept {
  std::lock_guard<std::mutex> lock(DlMutex());
  return dlsym(handle_, name);
}

}  // namespace kiln::runtime
