#include "core/error.h"

namespace kiln {

void ThrowInvalidArgument(const char* argument, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, std::string("argument '") + argument + "': " + what);
}

}  // namespace kiln
