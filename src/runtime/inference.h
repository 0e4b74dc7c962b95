// Static shape and type inference over a plan's steps, at load: graph inputs from their declared
// types, initializers with their values, then each step in order — its inputs all known
// constants: evaluated with its own kernel (so shape subgraphs like Shape→Gather→Concat→Reshape
// become values); otherwise the op's rule (src/infer) derives what it can. Whatever stays unknown
// is found at run time.
#ifndef KILN_RUNTIME_INFERENCE_H_
#define KILN_RUNTIME_INFERENCE_H_

#include <map>
#include <span>
#include <string>
#include <vector>

#include "infer/infer.h"
#include "ir/graph.h"

namespace kiln::runtime {

// What inference needs of one step (GraphPlan::Step without the plan).
struct InferenceStep {
  const ir::Node* node;
  const KernelInfo* info;
  const Kernel* kernel;
  const std::vector<int>* inputs;   // slots; -1: left out
  const std::vector<int>* outputs;  // slots; -1: left out
};

// The largest tensor constant evaluation may produce (bytes); larger ones stay unevaluated.
inline constexpr size_t kMaxFoldedBytes = size_t{64} << 20;

// Fills `facts` (one per slot; entries for graph inputs and initializers set by the caller, the
// rest unknown)
// step by step. Returns, per step, whether every output it has got a value (the step can be
// folded into constants). Throws kInvalidGraph, naming the node, when a rule proves a node cannot
// run.
std::vector<bool> InferFacts(std::span<const InferenceStep> steps,
                             std::vector<infer::TensorFacts>& facts);

// The symbols (infer.h) of a graph's inputs' unknown dimensions: one per dim_param name, shared by
// every dimension with that name (Session::Run checks that they agree), and one of its own for
// each unnamed unknown dimension.
class DimSymbols {
 public:
  // The symbol of `name` ("" for an unnamed dimension: a new symbol); -1 once there are
  // infer::kMaxSymbolicDims.
  int64_t Of(const std::string& name);

 private:
  std::map<std::string, int64_t> named_;
  int64_t next_ = 0;
};

// What a graph input's declared type says, as facts (no value), its unknown dimensions given
// their symbols.
infer::TensorFacts FactsOf(const ir::TypeInfo& type, DimSymbols& symbols);

// Whether the facts fix a buffer: a known non-string element type and a fully static shape.
bool IsStatic(const infer::TensorFacts& f) noexcept;

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_INFERENCE_H_
