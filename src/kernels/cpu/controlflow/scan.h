// Factories of Scan (controlflow/scan.cc), listed with If and Loop in control_flow.cc.
#ifndef KILN_KERNELS_CPU_CONTROLFLOW_SCAN_H_
#define KILN_KERNELS_CPU_CONTROLFLOW_SCAN_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeScan8(const KernelInfo& info);  // opset 8: batch axis form
std::unique_ptr<Kernel> MakeScan9(const KernelInfo& info);  // opsets 9 and later

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_CONTROLFLOW_SCAN_H_
