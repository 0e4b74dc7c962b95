// The one table of CPU kernels: every family is added here and nowhere else.
#include "core/unload.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/registry.h"

namespace kiln {

const KernelRegistry& CpuKernels() {
  static const KernelRegistry* const registry = [] {
    // No exit-time destructor (DESIGN §3.10): freed when the library is unloaded (core/unload.h).
    auto* r = new KernelRegistry();
    r->Add(cpu::ElementwiseKernels());
    r->Add(cpu::LinalgKernels());
    r->Add(cpu::NnKernels());
    r->Add(cpu::TensorKernels());
    r->Add(cpu::ReduceKernels());
    r->Add(cpu::RnnKernels());
    r->Add(cpu::ControlFlowKernels());
    r->Add(cpu::SequenceKernels());
    r->Add(cpu::NhwcKernels());
    r->Add(cpu::ContribKernels());
    r->Add(cpu::AttentionKernels());
    r->Add(cpu::QuantKernels());
    r->Add(cpu::SignalKernels());
    r->Add(cpu::ImageKernels());
    r->Add(cpu::TrainingKernels());
    r->Add(cpu::TextKernels());
    r->Add(cpu::MlKernels());
    r->Add(cpu::RandomKernels());
    r->Add(cpu::ImageDecoderKernels());
    return KeepUntilUnload(r);
  }();
  return *registry;
}

void PrepareCpuKernelThread() noexcept {
  cpu::PrepareGemmWorkspaces();
  cpu::PreparePackedGemmWorkspace();
}

}  // namespace kiln
