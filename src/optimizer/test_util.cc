#include "optimizer/test_util.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/allocator.h"
#include "kernels/registry.h"
#include "onnx/loader.h"
#include "optimizer/optimizer.h"
#include "optimizer/pattern.h"
#include "runtime/session.h"

namespace kiln::optimizer::testing {

GraphBuilder::GraphBuilder() : graph_(std::make_shared<ir::Graph>()) {}

ir::Value* GraphBuilder::Input(const std::string& name, std::vector<int64_t> dims, DataType type) {
  ir::Value* v = graph_->AddValue(name);
  v->type().kind = ir::ValueKind::kTensor;
  v->type().elem = type;
  v->type().shape = Shape(std::move(dims));
  graph_->inputs().push_back(v);
  return v;
}

ir::Value* GraphBuilder::DynamicInput(const std::string& name, const std::vector<Dim>& dims,
                                      DataType type) {
  std::vector<int64_t> sizes;
  std::vector<std::string> symbols;
  for (const Dim& d : dims) {
    sizes.push_back(d.symbol.empty() ? d.size : -1);
    symbols.push_back(d.symbol);
  }
  ir::Value* v = Input(name, std::vector<int64_t>{}, type);
  v->type().shape = Shape(std::move(sizes), std::move(symbols));
  return v;
}

ir::Value* GraphBuilder::Const(std::shared_ptr<const Tensor> t) {
  return AddConstant(*graph_, "c" + std::to_string(counter_++), std::move(t));
}

ir::Value* GraphBuilder::Floats(std::vector<int64_t> dims, std::vector<float> values) {
  if (values.empty()) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    std::mt19937 rng(seed_++);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    values.resize(n);
    for (float& x : values) x = u(rng);
  }
  return Const(FloatTensor(std::move(dims), values));
}

ir::Value* GraphBuilder::Ints(std::vector<int64_t> dims, std::vector<int64_t> values) {
  std::shared_ptr<Tensor> t =
      Tensor::Allocate(DataType::kInt64, Shape(std::move(dims)), CpuAllocator());
  if (!values.empty()) std::memcpy(t->data(), values.data(), values.size() * sizeof(int64_t));
  return Const(std::move(t));
}

std::vector<ir::Value*> GraphBuilder::Node(const std::string& op, std::vector<ir::Value*> inputs,
                                           size_t outputs, std::vector<ir::Attribute> attrs,
                                           int64_t opset, const std::string& domain) {
  const std::string name = op + std::to_string(counter_++);
  ir::Node* n = graph_->AddNode(name, op, domain);
  n->set_opset(opset);
  n->attributes() = std::move(attrs);
  std::vector<ir::Value*> outs;
  for (size_t i = 0; i < outputs; ++i)
    outs.push_back(graph_->AddValue(name + "_out" + std::to_string(i)));
  graph_->Connect(n, std::move(inputs), outs);
  return outs;
}

ir::Value* GraphBuilder::Op(const std::string& op, std::vector<ir::Value*> inputs,
                            std::vector<ir::Attribute> attrs, int64_t opset) {
  return Node(op, std::move(inputs), 1, std::move(attrs), opset)[0];
}

void GraphBuilder::Output(ir::Value* v) {
  graph_->outputs().push_back(v);
}

ir::Model GraphBuilder::Model() {
  ir::Model m;
  m.ir_version = 8;
  m.opsets[""] = 17;
  m.graph = graph_;
  return m;
}

std::shared_ptr<Tensor> Bytes(DataType type, std::vector<int64_t> dims, int seed) {
  auto t = Tensor::Allocate(type, Shape(std::move(dims)), CpuAllocator());
  auto* d = static_cast<uint8_t*>(t->data());
  for (size_t i = 0; i < t->byte_size(); ++i) d[i] = static_cast<uint8_t>((i * 73 + seed) % 251);
  return t;
}

std::shared_ptr<Tensor> Int32s(std::vector<int32_t> values) {
  auto t = Tensor::Allocate(DataType::kInt32, Shape({static_cast<int64_t>(values.size())}),
                            CpuAllocator());
  std::copy(values.begin(), values.end(), static_cast<int32_t*>(t->data()));
  return t;
}

OpCounts OpsAfter(const ir::Model& model, int level) {
  Optimize(*model.graph, level, CpuKernels());
  OpCounts counts;
  for (const auto& n : model.graph->nodes()) {
    ++counts[n->domain().empty() ? n->op_type() : n->domain() + "." + n->op_type()];
  }
  return counts;
}

namespace {

std::vector<std::shared_ptr<Tensor>> Run(ir::Model model, int level,
                                         const std::vector<Value>& inputs, int threads,
                                         const std::string& optimized_model_path) {
  runtime::SessionOptions options;
  options.optimization_level = level;
  options.intra_op_threads = threads;
  options.optimized_model_path = optimized_model_path;
  runtime::Session s(std::move(model), options);
  std::vector<std::string> in_names, out_names;
  for (const auto& d : s.inputs()) in_names.push_back(d.name);
  for (const auto& d : s.outputs()) out_names.push_back(d.name);
  std::vector<std::shared_ptr<Tensor>> outs(out_names.size());
  std::vector<Value> others(out_names.size());
  s.Run(runtime::RunOptions(), in_names, inputs, out_names, outs, others);
  return outs;
}

// Whether two outputs hold the same bytes (strings: the same strings).
bool SameBytes(const Tensor& a, const Tensor& b) {
  if (a.type() != b.type() || a.shape() != b.shape()) return false;
  if (a.type() == DataType::kString) {
    return std::equal(a.strings(), a.strings() + a.element_count(), b.strings());
  }
  return a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

}  // namespace

std::vector<std::shared_ptr<Tensor>> RunModel(ir::Model model, int level,
                                              const std::vector<Value>& inputs, int threads) {
  return Run(std::move(model), level, inputs, threads, "");
}

void ExpectOptimizedModelRoundTrips(const std::function<ir::Model()>& build, int level,
                                    const std::vector<Value>& inputs) {
  static int written = 0;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("kiln_optimized_" + std::to_string(::getpid()) + "_" + std::to_string(written++) + ".onnx");
  const auto direct = Run(build(), level, inputs, 2, path.string());
  // As written (level 0), and optimized again at the same level.
  for (int again : {0, level}) {
    const auto reloaded = Run(onnx::LoadModelFile(path.string()), again, inputs, 2, "");
    ASSERT_EQ(direct.size(), reloaded.size());
    for (size_t k = 0; k < direct.size(); ++k) {
      EXPECT_TRUE(SameBytes(*direct[k], *reloaded[k]))
          << "output " << k << " differs when the model written at level " << level
          << " is loaded back and run at level " << again;
    }
  }
  std::filesystem::remove(path);
}

float ExpectSameOutputs(const std::function<ir::Model()>& build, int level, float rtol,
                        float atol) {
  return ExpectSameOutputsSized(build, level, {}, rtol, atol);
}

float ExpectSameOutputsSized(const std::function<ir::Model()>& build, int level,
                             const std::map<std::string, int64_t>& sizes, float rtol, float atol) {
  ir::Model probe = build();
  std::vector<Value> inputs;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const ir::Value* in : probe.graph->inputs()) {
    std::vector<int64_t> dims = in->type().shape->dims();
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] >= 0) continue;
      auto it = sizes.find(in->type().shape->symbols()[d]);
      dims[d] = it != sizes.end() ? it->second : 1;
    }
    std::shared_ptr<Tensor> t = Tensor::Allocate(in->type().elem, Shape(dims), CpuAllocator());
    if (t->type() == DataType::kFloat) {
      auto* p = static_cast<float*>(t->data());
      for (size_t i = 0; i < t->element_count(); ++i) p[i] = u(rng);
    }
    inputs.emplace_back(t);
  }
  const auto want = RunModel(build(), 0, inputs);
  const auto got = RunModel(build(), level, inputs);
  ExpectOptimizedModelRoundTrips(build, level, inputs);
  float worst = 0;
  EXPECT_EQ(want.size(), got.size());
  for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
    EXPECT_EQ(want[k]->type(), got[k]->type());
    EXPECT_EQ(want[k]->shape(), got[k]->shape()) << "output " << k;
    if (want[k]->type() != DataType::kFloat || want[k]->shape() != got[k]->shape()) continue;
    const auto* a = static_cast<const float*>(want[k]->data());
    const auto* b = static_cast<const float*>(got[k]->data());
    for (size_t i = 0; i < want[k]->element_count(); ++i) {
      const float diff = std::fabs(a[i] - b[i]);
      worst = std::max(worst, diff);
      if (diff > atol + rtol * std::fabs(a[i])) {
        ADD_FAILURE() << "output " << k << " element " << i << ": " << b[i] << " instead of "
                      << a[i];
        return worst;
      }
    }
  }
  return worst;
}

}  // namespace kiln::optimizer::testing
