// The sequence family's registry entries: sequence and optional ops, default domain.
#include "kernels/cpu/families.h"
#include "kernels/cpu/sequence/sequence_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "SequenceEmpty", 11, kLatestOpset, MakeSequenceEmpty},
    {"", "SequenceConstruct", 11, kLatestOpset, MakeSequenceConstruct},
    {"", "SequenceInsert", 11, kLatestOpset, MakeSequenceInsert},
    {"", "SequenceAt", 11, kLatestOpset, MakeSequenceAt},
    {"", "SequenceErase", 11, kLatestOpset, MakeSequenceErase},
    {"", "SequenceLength", 11, kLatestOpset, MakeSequenceLength},
    {"", "SplitToSequence", 11, kLatestOpset, MakeSplitToSequence},
    {"", "ConcatFromSequence", 11, kLatestOpset, MakeConcatFromSequence},
    {"", "SequenceMap", 17, kLatestOpset, MakeSequenceMap},
    {"", "Optional", 15, kLatestOpset, MakeOptional},
    {"", "OptionalHasElement", 15, kLatestOpset, MakeOptionalHasElement},
    {"", "OptionalGetElement", 15, kLatestOpset, MakeOptionalGetElement},
};

}  // namespace

std::span<const KernelDef> SequenceKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
