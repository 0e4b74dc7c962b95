// Internal to src/optimizer: recognising an activation that a fused op can apply as its epilogue
// (ONNX Runtime's FusedConv convention: attribute `activation`, floats `activation_params`).
#ifndef KILN_OPTIMIZER_ACTIVATION_H_
#define KILN_OPTIMIZER_ACTIVATION_H_

#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::optimizer {

struct Activation {
  std::string name;              // "Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid",
                                 // "HardSwish", "Swish"
  std::vector<float> params;     // LeakyRelu: alpha; Clip: min, max; HardSigmoid: alpha, beta
  std::vector<ir::Node*> nodes;  // what the activation replaces (Swish: Sigmoid and Mul)
  ir::Value* output = nullptr;   // the activation's result
};

// The activation that alone reads `v` (a float value), if it is one a fused op can apply.
bool MatchActivation(const ir::Graph& g, ir::Value* v, Activation& out);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_ACTIVATION_H_
