// Internal to src/optimizer: small helpers for matching and rewriting node patterns.
#ifndef KILN_OPTIMIZER_PATTERN_H_
#define KILN_OPTIMIZER_PATTERN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln::optimizer {

// Whether the node is `op` of the default ONNX domain ("" or "ai.onnx") and well formed enough
// to match: it has the inputs its schema requires (present, not empty) and a first output. A
// pass may read those inputs without checking; a malformed node is left for its kernel to reject.
bool IsOp(const ir::Node* node, std::string_view op) noexcept;
// Whether the node's first `required` inputs and its first output are present.
bool HasRequiredInputs(const ir::Node* node, size_t required) noexcept;
// The value's producer when it is `op` (default domain), else nullptr.
ir::Node* ProducerIs(const ir::Value* v, std::string_view op) noexcept;
// The one node reading the value, when exactly one node reads it once and it is not a graph
// output; else nullptr.
ir::Node* OnlyConsumer(const ir::Graph& g, const ir::Value* v) noexcept;
// Whether the value is read by exactly these nodes (each once) and is not a graph output.
bool OnlyReadBy(const ir::Graph& g, const ir::Value* v, std::vector<const ir::Node*> readers);
// The initializer's data, or nullptr.
const Tensor* ConstantOf(const ir::Value* v) noexcept;
// A float/double/float16 initializer of one element, as a float.
std::optional<float> ScalarOf(const ir::Value* v);
// An int64/int32 initializer's elements.
std::optional<std::vector<int64_t>> IntsOf(const ir::Value* v);
// A float initializer's elements (float only).
std::optional<std::vector<float>> FloatsOf(const ir::Value* v);
// The other input of a two-input node.
ir::Value* OtherInput(const ir::Node* node, const ir::Value* one) noexcept;

// A new initializer value named from `base`.
ir::Value* AddConstant(ir::Graph& g, const std::string& base, std::shared_ptr<const Tensor> t);
std::shared_ptr<Tensor> FloatTensor(std::vector<int64_t> dims, const std::vector<float>& data);

ir::Attribute IntAttr(const std::string& name, int64_t v);
ir::Attribute FloatAttr(const std::string& name, float v);
ir::Attribute StringAttr(const std::string& name, const std::string& v);
ir::Attribute IntsAttr(const std::string& name, std::vector<int64_t> v);
ir::Attribute FloatsAttr(const std::string& name, std::vector<float> v);
// The node's int attribute, or `fallback`.
int64_t IntAttrOf(const ir::Node* node, const std::string& name, int64_t fallback) noexcept;
// The node's ints attribute when it has one by that name, or `fallback`.
std::vector<int64_t> IntsAttrOf(const ir::Node* node, const std::string& name,
                                const std::vector<int64_t>& fallback);

// Removes `old_nodes` and adds one node (op and domain are copies: they may come from a node
// being removed) `op` (domain, opset) reading `inputs` and writing
// `outputs` (values the removed nodes wrote keep their names, so readers and graph outputs are
// untouched). Named after the first removed node; its fused_from() lists the loaded nodes the
// removed ones stood for.
ir::Node* Replace(ir::Graph& g, const std::vector<ir::Node*>& old_nodes, std::string op,
                  std::string domain, int64_t opset, std::vector<ir::Value*> inputs,
                  std::vector<ir::Value*> outputs, std::vector<ir::Attribute> attributes);

// Calls `rewrite(node)` on nodes in topological order; after each rewrite (it returns true) the
// order is recomputed, since the rewrite removed nodes. Returns the number of rewrites.
template <typename F>
size_t RewriteAll(ir::Graph& g, F rewrite) {
  size_t count = 0;
  for (bool again = true; again;) {
    again = false;
    for (ir::Node* n : g.TopologicalOrder()) {
      if (rewrite(n)) {
        ++count;
        again = true;
        break;
      }
    }
  }
  return count;
}

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_PATTERN_H_
