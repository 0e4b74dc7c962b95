// Test helpers for the optimizer's passes: build a graph in code, look at what a level made of
// it, and compare its outputs with the unoptimized graph's on random inputs.
//
//   auto build = [] {
//     kiln::optimizer::testing::GraphBuilder b;
//     ir::Value* x = b.Input("x", {1, 8});
//     b.Output(b.Op("Relu", {b.Op("Identity", {x})}));
//     return b.Model();
//   };
//   EXPECT_EQ(OpsAfter(build(), 1), (OpCounts{{"Relu", 1}}));
//   ExpectSameOutputs(build, 1);
#ifndef KILN_OPTIMIZER_TEST_UTIL_H_
#define KILN_OPTIMIZER_TEST_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"
#include "ir/graph.h"

namespace kiln::optimizer::testing {

class GraphBuilder {
 public:
  GraphBuilder();
  // A float graph input (or of `type`).
  ir::Value* Input(const std::string& name, std::vector<int64_t> dims,
                   DataType type = DataType::kFloat);
  // A dimension of an input: a size, or a dim_param name ({"batch"}).
  struct Dim {
    Dim(int64_t s) : size(s) {}              // NOLINT(google-explicit-constructor)
    Dim(const char* name) : symbol(name) {}  // NOLINT(google-explicit-constructor)
    int64_t size = -1;
    std::string symbol;
  };
  // An input with named dimensions, as a model with dynamic axes declares them.
  ir::Value* DynamicInput(const std::string& name, const std::vector<Dim>& dims,
                          DataType type = DataType::kFloat);
  ir::Value* Const(std::shared_ptr<const Tensor> t);
  // A float constant with these values (random ones in [-1, 1) when `values` is empty).
  ir::Value* Floats(std::vector<int64_t> dims, std::vector<float> values = {});
  ir::Value* Ints(std::vector<int64_t> dims, std::vector<int64_t> values);
  // A node of the default domain at opset 17 (or as given); returns its outputs.
  std::vector<ir::Value*> Node(const std::string& op, std::vector<ir::Value*> inputs,
                               size_t outputs = 1, std::vector<ir::Attribute> attrs = {},
                               int64_t opset = 17, const std::string& domain = "");
  // The same, one output.
  ir::Value* Op(const std::string& op, std::vector<ir::Value*> inputs,
                std::vector<ir::Attribute> attrs = {}, int64_t opset = 17);
  void Output(ir::Value* v);
  ir::Model Model();

 private:
  std::shared_ptr<ir::Graph> graph_;
  size_t counter_ = 0;
  uint32_t seed_ = 1;
};

// Runs the model in a session at `level` with `threads` intra-op threads on `inputs` (in the
// order of the session's inputs) and returns its outputs.
std::vector<std::shared_ptr<Tensor>> RunModel(ir::Model model, int level,
                                              const std::vector<Value>& inputs, int threads = 2);

// An 8-bit (or any) tensor of `type` whose bytes are (i * 73 + seed) % 251: weights and zero
// points for the quantized passes' tests.
std::shared_ptr<Tensor> Bytes(DataType type, std::vector<int64_t> dims, int seed);
// A 1-D int32 tensor of `values` (a quantized bias).
std::shared_ptr<Tensor> Int32s(std::vector<int32_t> values);

using OpCounts = std::map<std::string, int>;
// The ops (as "Op" or "domain.Op") the model's graph has after Optimize at `level`.
OpCounts OpsAfter(const ir::Model& model, int level);
// Runs the model built by `build` at `level` with the session writing its optimized model, loads
// that file back and expects the same output bytes from it run as written (level 0) and
// optimized again at `level`: every op the pass emits has a kernel and survives the write/load.
void ExpectOptimizedModelRoundTrips(const std::function<ir::Model()>& build, int level,
                                    const std::vector<Value>& inputs);
// Runs the model built by `build` at level 0 and at `level` on the same random inputs (float in
// [-1, 1)) and expects every output to match within rtol/atol; returns the largest difference.
// Also ExpectOptimizedModelRoundTrips.
float ExpectSameOutputs(const std::function<ir::Model()>& build, int level, float rtol = 1e-4f,
                        float atol = 1e-5f);
// The same with each named input dimension given its size in `sizes` (1 if absent); integer
// inputs are zeros.
float ExpectSameOutputsSized(const std::function<ir::Model()>& build, int level,
                             const std::map<std::string, int64_t>& sizes, float rtol = 1e-4f,
                             float atol = 1e-5f);

}  // namespace kiln::optimizer::testing

#endif  // KILN_OPTIMIZER_TEST_UTIL_H_
