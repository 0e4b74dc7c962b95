// The ai.onnx.preview.training Gradient op as a load-time rewrite: every Gradient node of the main
// graph is replaced by ordinary ONNX nodes that compute its outputs by symbolic reverse-mode
// differentiation, so no kernel is needed. The session runs it before the optimizer at every
// level (level 0 too), since a Gradient node cannot run otherwise.
//
//   kiln::optimizer::ExpandGradients(*model.graph);   // then Optimize, then plan
//
// A Gradient(xs, zs, y) node's outputs are d(sum of y's elements)/dx for each x named in "xs"
// (backpropagating ones of y's shape); its inputs are the values at which the graph from xs and zs
// to y is evaluated (when an input is not the named value itself, that part of the graph is
// computed again from the input). An x that y does not depend on gets zeros of x's shape. The
// derivative rules: Add, Sub, Mul, Div, Neg, MatMul (1-D only where the rank is declared, batched
// with broadcasting), Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Identity, Reshape, Transpose, ReduceSum,
// ReduceMean, Sum, Expand, Where and CastLike (the ops the rewrite itself emits on the way from y,
// so a Gradient of a Gradient's output works for these ops), with broadcast operands' gradients
// summed over the broadcast axes.
#ifndef KILN_OPTIMIZER_GRADIENT_H_
#define KILN_OPTIMIZER_GRADIENT_H_

#include <cstddef>

#include "ir/graph.h"

namespace kiln::optimizer {

// Rewrites every Gradient node of `graph` (not of its subgraphs); returns how many. Throws
// kInvalidGraph for a malformed Gradient node (attributes, input counts, names that are not values
// of the graph, a y that depends on the node's own outputs) and kNotImplemented for an op on the
// path from xs to y that has no derivative rule here; both name the Gradient node.
size_t ExpandGradients(ir::Graph& graph);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_GRADIENT_H_
