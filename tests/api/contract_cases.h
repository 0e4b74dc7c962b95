// A case of the table-driven contract test (contract_test.cc): one call that must fail with
// KILN_INVALID_ARGUMENT naming `argument` of `entry`, leaving the out-parameters untouched.
// Families of entries may keep their cases in a file of their own and list them here.
#ifndef KILN_TESTS_API_CONTRACT_CASES_H_
#define KILN_TESTS_API_CONTRACT_CASES_H_

#include <functional>
#include <vector>

#include "fixtures.h"

namespace kiln_test {

struct Case {
  const char* entry;
  const char* argument;
  std::function<KilnStatus*(Objects&, Outs&)> call;
};

// Session inputs and config (contract_session_inputs.cc): NULL for each pointer argument, and a
// handle of another type (or, when `stale`, a released one) for each handle argument.
std::vector<Case> SessionInputsNullCases();
std::vector<Case> SessionInputsHandleCases(bool stale);

}  // namespace kiln_test

#endif  // KILN_TESTS_API_CONTRACT_CASES_H_
