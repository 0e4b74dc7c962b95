// A C++ custom-op library that breaks the rule "a callback must not throw", built twice
// (tests/api/CMakeLists.txt): with -DKILN_TEST_OPS_THROW_IN_REGISTER its KilnRegisterCustomOps
// throws; with -DKILN_TEST_OPS_THROW_IN_COMPUTE it registers test.kiln.ops Throw (float X to
// float Y), whose Compute throws. Kiln must turn both into a status. Built with -fno-gnu-unique
// (GCC) so that, like any well-made C++ plugin, it can be unloaded. It does not link libkiln.
#include <cstring>
#include <stdexcept>

#include "kiln/kiln_c_api.h"

#ifndef KILN_TEST_OPS_THROW_IN_REGISTER
namespace {

KilnStatus* KILN_API_CALL ThrowingCompute(void*, KilnKernelContext*) {
  throw std::runtime_error("test_ops_throw: Compute threw");
}

}  // namespace
#endif

extern "C" KILN_EXPORT KilnStatus* KILN_API_CALL
KilnRegisterCustomOps(KilnCustomOpRegistry* registry, const KilnApiBase* base) {
#ifdef KILN_TEST_OPS_THROW_IN_REGISTER
  (void)registry;
  (void)base;
  throw std::runtime_error("test_ops_throw: KilnRegisterCustomOps threw");
#else
  const KilnApi* api = base->GetApi(KILN_API_VERSION);
  if (api == nullptr) return nullptr;
  static const KilnElementType kFloat[] = {KILN_ELEMENT_TYPE_FLOAT};
  static const KilnCustomOpTypeParam kT[] = {{sizeof(KilnCustomOpTypeParam), "T", kFloat, 1}};
  static const KilnCustomOpArg kX[] = {{sizeof(KilnCustomOpArg), "X", "T",
                                        KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
  static const KilnCustomOpArg kY[] = {{sizeof(KilnCustomOpArg), "Y", "T",
                                        KILN_ELEMENT_TYPE_UNDEFINED, KILN_CUSTOM_OP_ARG_REQUIRED}};
  KilnCustomOp op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  op.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  op.domain = "test.kiln.ops";
  op.name = "Throw";
  op.type_params = kT;
  op.type_param_count = 1;
  op.inputs = kX;
  op.input_count = 1;
  op.outputs = kY;
  op.output_count = 1;
  op.Compute = ThrowingCompute;
  return api->CustomOpRegistryAdd(registry, &op);
#endif
}
