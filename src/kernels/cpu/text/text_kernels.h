// Factories of the text family (string ops), listed in text/kernels.cc.
#ifndef KILN_KERNELS_CPU_TEXT_TEXT_KERNELS_H_
#define KILN_KERNELS_CPU_TEXT_TEXT_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeStringNormalizer(const KernelInfo& info);  // strings.cc
std::unique_ptr<Kernel> MakeStringConcat(const KernelInfo& info);
std::unique_ptr<Kernel> MakeStringSplit(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRegexFullMatch(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTfIdfVectorizer(const KernelInfo& info);  // tfidf.cc

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TEXT_TEXT_KERNELS_H_
