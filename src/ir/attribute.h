// A node attribute: a name, a type (ONNX AttributeProto.AttributeType values) and one value.
//
//   const kiln::ir::Attribute* a = node.FindAttribute("axis");
//   if (a != nullptr && a->type == kiln::ir::AttrType::kInt) axis = a->i;
#ifndef KILN_IR_ATTRIBUTE_H_
#define KILN_IR_ATTRIBUTE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace kiln::ir {

class Graph;
struct TypeInfo;  // ir/graph.h

// A sparse tensor (ONNX's SparseTensorProto): its non-zero values, where they are, and the dense
// shape. `indices` is int64, [NNZ, rank] (coordinates) or [NNZ] (offsets into the dense tensor).
struct SparseTensor {
  std::shared_ptr<const Tensor> values;  // [NNZ]
  std::shared_ptr<const Tensor> indices;
  std::vector<int64_t> dims;
};

// Same values as ONNX's AttributeProto.AttributeType.
enum class AttrType : int {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

// What is wrong with a sparse tensor ("" when nothing): values not 1-D, indices not int64 of
// shape [NNZ, rank] or [NNZ], an index outside the dense shape, a negative dimension.
std::string SparseTensorProblem(const SparseTensor& s);

// "int", "floats", "graph", … for messages.
const char* AttrTypeName(AttrType type) noexcept;

// Only the member that matches `type` is meaningful.
struct Attribute {
  std::string name;
  AttrType type = AttrType::kUndefined;
  float f = 0.0f;
  int64_t i = 0;
  std::string s;  // bytes, not necessarily UTF-8 (ONNX strings attributes are bytes)
  std::shared_ptr<const Tensor> t;
  std::shared_ptr<const Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<const Tensor>> tensors;
  std::vector<std::shared_ptr<const Graph>> graphs;
  std::shared_ptr<const SparseTensor> sparse;                       // kSparseTensor
  std::vector<std::shared_ptr<const SparseTensor>> sparse_tensors;  // kSparseTensors
  std::shared_ptr<const TypeInfo> type_proto;                       // kTypeProto
  std::vector<std::shared_ptr<const TypeInfo>> type_protos;         // kTypeProtos
};

}  // namespace kiln::ir

#endif  // KILN_IR_ATTRIBUTE_H_
