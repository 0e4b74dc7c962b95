// Test helper: expects two models to be the same graph, as the loader builds it (names, types,
// nodes with their attributes and subgraphs, initializers byte for byte).
//
//   kiln::onnx::testing::ExpectSameModel(loaded, LoadModelBytes(ModelToBytes(loaded)));
#ifndef KILN_ONNX_MODEL_COMPARE_H_
#define KILN_ONNX_MODEL_COMPARE_H_

#include "ir/graph.h"

namespace kiln::onnx::testing {

// Adds a gtest failure naming the first difference in each part that differs. Nodes are compared
// in topological order; node opsets are compared too.
void ExpectSameModel(const ir::Model& a, const ir::Model& b);

// Whether two tensors have the same type, shape and bytes (strings: the same strings).
bool SameTensor(const Tensor& a, const Tensor& b);

}  // namespace kiln::onnx::testing

#endif  // KILN_ONNX_MODEL_COMPARE_H_
