// The text family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/text/text_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "StringNormalizer", 10, kLatestOpset, MakeStringNormalizer},
    {"", "StringConcat", 20, kLatestOpset, MakeStringConcat},
    {"", "StringSplit", 20, kLatestOpset, MakeStringSplit},
    {"", "RegexFullMatch", 20, kLatestOpset, MakeRegexFullMatch},
    {"", "TfIdfVectorizer", 9, kLatestOpset, MakeTfIdfVectorizer},
};

}  // namespace

std::span<const KernelDef> TextKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
