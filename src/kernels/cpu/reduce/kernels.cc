// The reduce family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/reduce/reduce_kernels.h"

namespace kiln::cpu {
namespace {

// Each Reduce* kernel reads `axes` from the attribute or, from ReduceSum-13 and the others' 18
// on, from the optional second input; the constructors branch on the opset.
constexpr KernelDef kDefs[] = {
    {"", "ReduceSum", 1, kLatestOpset, MakeReduceSum},
    {"", "ReduceMean", 1, kLatestOpset, MakeReduceMean},
    {"", "ReduceMax", 1, kLatestOpset, MakeReduceMax},
    {"", "ReduceMin", 1, kLatestOpset, MakeReduceMin},
    {"", "ReduceProd", 1, kLatestOpset, MakeReduceProd},
    {"", "ReduceL1", 1, kLatestOpset, MakeReduceL1},
    {"", "ReduceL2", 1, kLatestOpset, MakeReduceL2},
    {"", "ReduceLogSum", 1, kLatestOpset, MakeReduceLogSum},
    {"", "ReduceLogSumExp", 1, kLatestOpset, MakeReduceLogSumExp},
    {"", "ReduceSumSquare", 1, kLatestOpset, MakeReduceSumSquare},
    {"", "ArgMax", 1, kLatestOpset, MakeArgMax},
    {"", "ArgMin", 1, kLatestOpset, MakeArgMin},
    {"", "TopK", 1, kLatestOpset, MakeTopK},
    {"", "CumSum", 11, kLatestOpset, MakeCumSum},
    {"", "CumProd", 26, kLatestOpset, MakeCumProd},
};

}  // namespace

std::span<const KernelDef> ReduceKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
