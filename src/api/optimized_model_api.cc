// Entries: SetOptimizedModelFilePath (slot 101). The session writes the file (runtime/session.cc).
#include <string>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {

KilnStatus* KILN_API_CALL SetOptimizedModelFilePath(KilnSessionOptions* options, const char* path) {
  return Guard("SetOptimizedModelFilePath", [&] {
    auto& o = Unwrap(options, "options");
    std::string p = CheckedUtf8(path, "path");
    o.options.optimized_model_path = std::move(p);
  });
}

}  // namespace kiln::api
