// The cases of the table-driven contract tests (contract_test.cc), and the families whose cases
// live in files of their own.
#ifndef KILN_TESTS_API_CONTRACT_CASES_H_
#define KILN_TESTS_API_CONTRACT_CASES_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "fixtures.h"

namespace kiln_test {

// One call of `entry` that must fail with KILN_INVALID_ARGUMENT naming `argument`, leaving the
// out-parameters untouched.
struct Case {
  const char* entry;
  const char* argument;
  std::function<KilnStatus*(Objects&, Outs&)> call;
};

// Session inputs and config (contract_session_inputs.cc): NULL for each pointer argument, and a
// handle of another type (or, when `stale`, a released one) for each handle argument.
std::vector<Case> SessionInputsNullCases();
std::vector<Case> SessionInputsHandleCases(bool stale);

// IO binding and RunAsync (contract_binding_cases.cc): one NULL case per pointer argument, and one
// case per handle argument given a handle of another type (stale: a released one of its own).
std::vector<Case> BindingNullCases();
std::vector<Case> BindingHandleCases(bool stale);

// Custom operators (contract_custom_op_cases.cc): as above; the cases that need a live registry,
// kernel info, kernel context or shape-inference context run inside a custom op's callback, and
// the stale ones use such a handle after its callback returned.
std::vector<Case> CustomOpNullCases();
std::vector<Case> CustomOpHandleCases(bool stale);

// The graph API, the KilnGraphApi sub-table (contract_graph_cases.cc): as above, for every
// status-returning entry of graph_slots.h; and the graph entries that take no handle.
std::vector<Case> GraphNullCases();
// The sparse-tensor and type-proto attribute entries' (contract_graph_attribute_cases.cc), which
// GraphNullCases and GraphHandleCases include.
std::vector<Case> GraphAttributeNullCases();
std::vector<Case> GraphAttributeHandleCases(bool stale);
std::vector<Case> GraphHandleCases(bool stale);
std::set<std::string> GraphNoHandleArgument();

}  // namespace kiln_test

#endif  // KILN_TESTS_API_CONTRACT_CASES_H_
