// Test helper: builds a one-node graph, creates the registered CPU kernel for it and runs it.
// Only linked into the unit tests.
//
//   auto out = kiln::testing::NodeTest("Add", 14)
//                  .Input<float>({2}, {1, 2})
//                  .Input<float>({2}, {3, 4})
//                  .Run();
//   EXPECT_EQ(kiln::testing::Values<float>(*out[0]), (std::vector<float>{4, 6}));
#ifndef KILN_KERNELS_TEST_UTIL_H_
#define KILN_KERNELS_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "kernels/cpu/types.h"

namespace kiln::testing {

// A tensor with these values (bool as uint8_t-compatible storage).
template <typename T>
std::shared_ptr<Tensor> MakeTensor(std::vector<int64_t> shape, const std::vector<T>& values) {
  std::shared_ptr<Tensor> t =
      Tensor::Allocate(cpu::DataTypeOf<T>(), Shape(std::move(shape)), CpuAllocator());
  if (t->element_count() != values.size()) {
    throw Error(ErrorCode::kInvalidArgument, "MakeTensor: " + std::to_string(values.size()) +
                                                 " values for " +
                                                 std::to_string(t->element_count()) + " elements");
  }
  T* p = static_cast<T*>(t->data());
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  if (t.type() != cpu::DataTypeOf<T>()) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string("Values: tensor holds ") + DataTypeName(t.type()));
  }
  const T* p = static_cast<const T*>(t.data());
  return std::vector<T>(p, p + t.element_count());
}

// n values of T (8-bit operands: every value of the type reachable), each the top byte of a step
// of a linear congruential generator seeded with `seed`.
template <typename T>
std::vector<T> RandomInts(size_t n, uint32_t seed) {
  std::vector<T> v(n);
  for (T& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<T>(seed >> 24);
  }
  return v;
}

class NodeTest {
 public:
  NodeTest(std::string op_type, int64_t opset, std::string domain = "");

  NodeTest& Attr(const std::string& name, int64_t v);
  NodeTest& Attr(const std::string& name, float v);
  NodeTest& Attr(const std::string& name, const std::string& v);
  NodeTest& Attr(const std::string& name, const char* v) { return Attr(name, std::string(v)); }
  NodeTest& Attr(const std::string& name, std::vector<int64_t> v);
  NodeTest& Attr(const std::string& name, std::vector<float> v);
  NodeTest& Attr(const std::string& name, std::vector<std::string> v);
  NodeTest& Attr(const std::string& name, std::shared_ptr<const Tensor> v);
  NodeTest& Attr(const std::string& name, std::shared_ptr<const ir::Graph> v);

  // Adds an input; `constant` makes it an initializer (what a kernel may pre-pack).
  NodeTest& Input(std::shared_ptr<const Tensor> t, bool constant = false);
  template <typename T>
  NodeTest& Input(std::vector<int64_t> shape, const std::vector<T>& values, bool constant = false) {
    return Input(MakeTensor<T>(std::move(shape), values), constant);
  }
  // An input that is a sequence or an optional (or a tensor, as a value).
  NodeTest& InputValue(Value v);
  // An optional input left out.
  NodeTest& MissingInput();
  // How many outputs the node has (default 1); `missing` lists ones left out.
  NodeTest& Outputs(size_t n, std::vector<size_t> missing = {});
  // Before running, hands the kernel `shape` as what is known of input i's shape
  // (Kernel::SpecializeForShapes, as a session does after inference at load; the other inputs
  // unknown). Without it the kernel is never specialized.
  NodeTest& ShapeHint(size_t i, Shape shape);

  // Creates the kernel and runs it once with `threads` threads. Entries for outputs left out are
  // null. Throws what the kernel throws.
  std::vector<std::shared_ptr<Tensor>> Run(int threads = 1);
  // The same, with every output as a value (sequences and optionals included).
  std::vector<Value> RunValues(int threads = 1);

 private:
  std::string op_type_;
  std::string domain_;
  int64_t opset_;
  std::vector<ir::Attribute> attrs_;
  std::vector<Value> inputs_;  // empty for a missing one
  std::vector<bool> constant_;
  size_t outputs_ = 1;
  std::vector<size_t> missing_outputs_;
  std::vector<std::optional<Shape>> hints_;  // per input; empty: no SpecializeForShapes call
};

}  // namespace kiln::testing

#endif  // KILN_KERNELS_TEST_UTIL_H_
