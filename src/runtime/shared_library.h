// A shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL) and closed with dlclose when the
// last owner lets it go: what keeps a custom-op library loaded while options or sessions use it.
//
//   auto lib = kiln::runtime::SharedLibrary::Open("./libops.so");  // throws kNoSuchFile
//   void* entry = lib->Symbol("KilnRegisterCustomOps");              // nullptr when absent
#ifndef KILN_RUNTIME_SHARED_LIBRARY_H_
#define KILN_RUNTIME_SHARED_LIBRARY_H_

#include <memory>
#include <string>

namespace kiln::runtime {

class SharedLibrary {
 public:
  // Opens `path`: one with a slash as it is, one without as dlopen searches for it. Throws
  // Error(kNoSuchFile) with dlopen's reason.
  static std::shared_ptr<SharedLibrary> Open(const std::string& path);
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  const std::string& path() const noexcept { return path_; }
  // The handle dlopen gave (two opens of one file give the same one).
  const void* handle() const noexcept { return handle_; }
  // The address of an exported symbol, or nullptr.
  void* Symbol(const char* name) const noexcept;

 private:
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_SHARED_LIBRARY_H_
