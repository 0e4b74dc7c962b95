// The rnn family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/rnn/rnn_kernels.h"

namespace kiln::cpu {
namespace {

// One range per op: the constructors read the attributes their opset defines (GRU's
// linear_before_reset from 3, layout from 14; opset 1's output_sequence is ignored).
constexpr KernelDef kDefs[] = {
    {"", "LSTM", 1, kLatestOpset, MakeLstm},
    {"", "GRU", 1, kLatestOpset, MakeGru},
    {"", "RNN", 1, kLatestOpset, MakeRnn},
    {"com.microsoft", "DynamicQuantizeLSTM", 1, kLatestOpset, MakeDynamicQuantizeLstm},
};

}  // namespace

std::span<const KernelDef> RnnKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
