// Test helper for the inference rules: builds a one-node graph with the given attributes, gives
// the rule what is known of each input and returns what it derived of the outputs. Only linked
// into the unit tests.
//
//   std::vector<TensorFacts> out = RuleTest("MatMul", 13)
//                                      .Input(DataType::kFloat, {2, 3})
//                                      .Input(DataType::kFloat, {3, 4})
//                                      .Run();
//   EXPECT_EQ(Dims(out[0]), (std::vector<int64_t>{2, 4}));
#ifndef KILN_INFER_RULE_TEST_UTIL_H_
#define KILN_INFER_RULE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "infer/infer.h"
#include "ir/graph.h"
#include "kernels/test_util.h"  // MakeTensor

namespace kiln::infer::testing {

using kiln::testing::MakeTensor;

// The output's dimensions; {-100} when not even its rank is known, so that a comparison with an
// expected shape fails clearly.
inline std::vector<int64_t> Dims(const TensorFacts& f) {
  return f.shape ? f.shape->dims() : std::vector<int64_t>{-100};
}

class RuleTest {
 public:
  // `domain`: "" for ONNX ops, else e.g. "ai.kiln" or "com.microsoft".
  RuleTest(std::string op_type, int64_t opset, std::string domain = "")
      : op_type_(std::move(op_type)), domain_(std::move(domain)), opset_(opset) {}

  template <typename T>
  RuleTest& Attr(const std::string& name, T v) {
    ir::Attribute a = MakeAttribute(name, std::move(v));
    attrs_.push_back(std::move(a));
    return *this;
  }

  // An input of this type and shape (-1 for an unknown dimension).
  RuleTest& Input(DataType type, std::vector<int64_t> dims) {
    TensorFacts f;
    f.type = type;
    f.shape = Shape(std::move(dims));
    return Input(std::move(f));
  }
  // An input whose rank is not known.
  RuleTest& UnknownRankInput(DataType type) {
    TensorFacts f;
    f.type = type;
    return Input(std::move(f));
  }
  // An input whose value is known at load.
  RuleTest& ConstInput(std::shared_ptr<const Tensor> t) {
    TensorFacts f;
    f.type = t->type();
    f.shape = t->shape();
    f.value = std::move(t);
    return Input(std::move(f));
  }
  template <typename T>
  RuleTest& ConstInput(std::vector<int64_t> shape, const std::vector<T>& values) {
    return ConstInput(MakeTensor<T>(std::move(shape), values));
  }
  RuleTest& Input(TensorFacts f) {
    inputs_.push_back(std::move(f));
    present_.push_back(true);
    return *this;
  }
  // An optional input left out.
  RuleTest& MissingInput() {
    inputs_.emplace_back();
    present_.push_back(false);
    return *this;
  }
  // How many outputs the node has (default 1); `missing` lists ones left out.
  RuleTest& Outputs(size_t n, std::vector<size_t> missing = {}) {
    outputs_ = n;
    missing_outputs_ = std::move(missing);
    return *this;
  }

  // Runs the rule (which must exist); throws what it throws.
  std::vector<TensorFacts> Run() const {
    ir::Graph g;
    std::vector<ir::Value*> ins;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      ins.push_back(present_[i] ? g.AddValue("in" + std::to_string(i)) : nullptr);
    }
    std::vector<ir::Value*> outs;
    for (size_t i = 0; i < outputs_; ++i) {
      const bool missing =
          std::find(missing_outputs_.begin(), missing_outputs_.end(), i) != missing_outputs_.end();
      outs.push_back(missing ? nullptr : g.AddValue("out" + std::to_string(i)));
    }
    ir::Node* node = g.AddNode("test_node", op_type_, domain_);
    node->set_opset(opset_);
    node->attributes() = attrs_;
    g.Connect(node, ins, outs);
    const KernelInfo info(*node);
    std::vector<const TensorFacts*> in_ptrs;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      in_ptrs.push_back(present_[i] ? &inputs_[i] : nullptr);
    }
    std::vector<TensorFacts> out(outputs_);
    InferenceContext ctx(info, in_ptrs, out);
    const Rule rule = FindRule(domain_, op_type_);
    if (rule == nullptr) throw Error(ErrorCode::kNotImplemented, "no rule for " + op_type_);
    rule(ctx);
    return out;
  }

 private:
  static ir::Attribute Named(const std::string& name, ir::AttrType type) {
    ir::Attribute a;
    a.name = name;
    a.type = type;
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, int64_t v) {
    ir::Attribute a = Named(name, ir::AttrType::kInt);
    a.i = v;
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, int v) {
    return MakeAttribute(name, static_cast<int64_t>(v));
  }
  static ir::Attribute MakeAttribute(const std::string& name, float v) {
    ir::Attribute a = Named(name, ir::AttrType::kFloat);
    a.f = v;
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, const char* v) {
    ir::Attribute a = Named(name, ir::AttrType::kString);
    a.s = v;
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, std::vector<int64_t> v) {
    ir::Attribute a = Named(name, ir::AttrType::kInts);
    a.ints = std::move(v);
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, std::vector<float> v) {
    ir::Attribute a = Named(name, ir::AttrType::kFloats);
    a.floats = std::move(v);
    return a;
  }
  static ir::Attribute MakeAttribute(const std::string& name, std::shared_ptr<const Tensor> v) {
    ir::Attribute a = Named(name, ir::AttrType::kTensor);
    a.t = std::move(v);
    return a;
  }

  std::string op_type_;
  std::string domain_;
  int64_t opset_;
  std::vector<ir::Attribute> attrs_;
  std::vector<TensorFacts> inputs_;
  std::vector<bool> present_;
  size_t outputs_ = 1;
  std::vector<size_t> missing_outputs_;
};

// Expects `run` to throw kInvalidGraph with a message naming the test node and containing each
// of `parts`.
template <typename F>
void ExpectFail(F&& run, std::initializer_list<std::string> parts) {
  try {
    run();
    ADD_FAILURE() << "expected kInvalidGraph";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("node 'test_node'"), std::string::npos) << message;
    for (const std::string& p : parts) {
      EXPECT_NE(message.find(p), std::string::npos) << "'" << p << "' not in: " << message;
    }
  }
}

}  // namespace kiln::infer::testing

#endif  // KILN_INFER_RULE_TEST_UTIL_H_
