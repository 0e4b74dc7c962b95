// The probe: a custom op linked into the test binaries (registered with
// SessionOptionsRegisterCustomOps) whose callbacks hand their live transient handles to a test's
// code. The entries taking a KilnCustomOpRegistry, KilnKernelInfo, KilnShapeInferContext or
// KilnKernelContext can only be called with a live one from inside such a callback.
//
//   KilnStatus* s = probe::InCallback(env, probe::Stage::kCompute, [&](const probe::Live& live) {
//     return api().KernelContextGetInputCount(live.ctx, &count);
//   });
#ifndef KILN_TESTS_API_CUSTOM_OP_PROBE_H_
#define KILN_TESTS_API_CUSTOM_OP_PROBE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln_c_api.h"

namespace kiln_test::probe {

inline constexpr const char* kDomain = "test.kiln.probe";
inline constexpr const char* kOp = "Probe";  // Y = X (float), X and Y float [3, 2]
inline constexpr const char* kNode = "probe_node";

// The probe's attributes, one of each type: their defaults, or what Model(true) sets.
struct Attributes {
  int64_t i;
  float f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
};
const Attributes& Defaults();
const Attributes& NodeAttributes();

// y = Probe(x) (node kNode), x and y float [3, 2]; with `attributes`, the node sets each of the
// probe's attributes to NodeAttributes(), else they take their defaults.
std::string Model(bool attributes = false);

// The probe's KilnRegisterCustomOpsFn: adds the op Probe (and runs a kRegister call).
KilnStatus* KILN_API_CALL Register(KilnCustomOpRegistry* registry, const KilnApiBase* base);

// Another valid description (test.kiln.probe Probe2), for calls that add an op.
const KilnCustomOp* SecondOp();

// The callback a call runs in.
enum class Stage { kRegister, kCreateKernel, kInferShapes, kCompute };

// The live handles of that callback; the others are NULL.
struct Live {
  KilnCustomOpRegistry* registry = nullptr;  // kRegister
  const KilnKernelInfo* info = nullptr;      // kCreateKernel
  KilnShapeInferContext* infer = nullptr;    // kInferShapes
  KilnKernelContext* ctx = nullptr;          // kCompute
};
using Call = std::function<KilnStatus*(const Live&)>;

struct Setup {
  KilnSessionOptions* options = nullptr;  // the probe is registered on these; NULL: fresh ones
  KilnRunOptions* run_options = nullptr;
  std::string model = Model();
};

struct Outcome {
  bool reached = false;         // the callback ran the call
  KilnStatus* inner = nullptr;  // what the call returned
  KilnStatus* outer = nullptr;  // the first failure of registering, making the session or running
};

// Registers the probe, makes a session of the model in `env` and runs it once (x = 0 to 5); `call`
// runs once, in the first callback of `stage`. The caller releases both statuses. Not reentrant:
// one at a time in the process.
Outcome Run(KilnEnv* env, Stage stage, const Call& call, const Setup& setup = {});

// Run, with the callback reached and all else succeeding (else a test failure); returns what
// `call` returned.
KilnStatus* InCallback(KilnEnv* env, Stage stage, const Call& call);

// A handle of each transient kind as a callback had it, captured once and used after the
// callback returned: released handles.
struct Stale {
  KilnCustomOpRegistry* registry = nullptr;
  const KilnKernelInfo* info = nullptr;
  KilnShapeInferContext* infer = nullptr;
  KilnKernelContext* ctx = nullptr;
};
const Stale& StaleHandles();

}  // namespace kiln_test::probe

#endif  // KILN_TESTS_API_CUSTOM_OP_PROBE_H_
