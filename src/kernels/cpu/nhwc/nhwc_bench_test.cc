// Timing (not a test; run with --gtest_also_run_disabled_tests --gtest_filter=NhwcBench*):
// NhwcConv (with a bias and a fused Clip, as level 3 makes them) against NCHW Conv on MobileNetV2,
// EfficientNet-B0 and ResNet-50 layers, Compute only, kernel created once, best of 10 runs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/registry.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

class FixedOutputs final : public OutputAllocator {
 public:
  Tensor& Allocate(size_t, DataType type, std::span<const int64_t> dims, bool) override {
    if (t_ == nullptr) {
      t_ = Tensor::Allocate(type, Shape(std::vector<int64_t>(dims.begin(), dims.end())),
                            CpuAllocator());
    }
    return *t_;
  }
  void* Scratch(size_t bytes) override { return scratch_.Get(bytes); }
  void SetValue(size_t, Value) override {}
  std::shared_ptr<Tensor> t_;
  HeapScratch scratch_;
};

double TimeOp(const std::string& op, const std::string& domain, int64_t group,
              const std::vector<int64_t>& pads, const std::vector<int64_t>& strides,
              const std::shared_ptr<Tensor>& x, const std::shared_ptr<Tensor>& w,
              const std::shared_ptr<Tensor>& b, int threads) {
  ir::Graph g;
  ir::Value* xv = g.AddValue("x");
  xv->type().kind = ir::ValueKind::kTensor;
  xv->type().elem = DataType::kFloat;
  g.inputs().push_back(xv);
  ir::Value* wv = g.AddValue("w");
  wv->type().kind = ir::ValueKind::kTensor;
  wv->type().elem = DataType::kFloat;
  wv->set_initializer(w);
  wv->type().shape = w->shape();
  std::vector<ir::Value*> node_ins = {xv, wv};
  if (b != nullptr) {
    ir::Value* bv = g.AddValue("b");
    bv->type().kind = ir::ValueKind::kTensor;
    bv->type().elem = DataType::kFloat;
    bv->set_initializer(b);
    bv->type().shape = b->shape();
    node_ins.push_back(bv);
  }
  ir::Value* yv = g.AddValue("y");
  ir::Node* node = g.AddNode("test_node", op, domain);
  node->set_opset(op == "Conv" ? 22 : 1);
  ir::Attribute a;
  a.name = "group";
  a.type = ir::AttrType::kInt;
  a.i = group;
  node->attributes().push_back(a);
  a = {};
  a.name = "pads";
  a.type = ir::AttrType::kInts;
  a.ints = pads;
  node->attributes().push_back(a);
  a = {};
  a.name = "strides";
  a.type = ir::AttrType::kInts;
  a.ints = strides;
  node->attributes().push_back(a);
  if (b != nullptr) {
    a = {};
    a.name = "activation";
    a.type = ir::AttrType::kString;
    a.s = "Clip";
    node->attributes().push_back(a);
    a = {};
    a.name = "activation_params";
    a.type = ir::AttrType::kFloats;
    a.floats = {0.0f, 6.0f};
    node->attributes().push_back(a);
  }
  g.Connect(node, node_ins, {yv});
  KernelInfo info(*node);
  std::unique_ptr<Kernel> kernel = CpuKernels().Find(domain, op, node->opset())->create(info);
  std::vector<const Tensor*> ins = {x.get(), w.get()};
  if (b != nullptr) ins.push_back(b.get());
  FixedOutputs alloc;
  ThreadPool pool(threads);
  double best = 1e30;
  for (int rep = 0; rep < 12; ++rep) {
    std::vector<Tensor*> outs(1, nullptr);
    KernelContext ctx(info, ins, outs, alloc, pool);
    const auto t0 = std::chrono::steady_clock::now();
    kernel->Compute(ctx);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep >= 2) best = std::min(best, s);
  }
  return best;
}

TEST(NhwcBench, DISABLED_Layers) {
  struct Layer {
    const char* name;
    int64_t h, c, m, k, stride, pad, group;
  };
  const Layer layers[] = {
      {"dw 3x3 C=32 112^2", 112, 32, 32, 3, 1, 1, 32},
      {"dw 3x3/2 C=96 112^2", 112, 96, 96, 3, 2, 1, 96},
      {"dw 3x3 C=144 56^2", 56, 144, 144, 3, 1, 1, 144},
      {"dw 3x3/2 C=144 56^2", 56, 144, 144, 3, 2, 1, 144},
      {"dw 3x3 C=192 28^2", 28, 192, 192, 3, 1, 1, 192},
      {"dw 3x3/2 C=192 28^2", 28, 192, 192, 3, 2, 1, 192},
      {"dw 3x3 C=384 14^2", 14, 384, 384, 3, 1, 1, 384},
      {"dw 3x3 C=576 14^2", 14, 576, 576, 3, 1, 1, 576},
      {"dw 3x3/2 C=576 14^2", 14, 576, 576, 3, 2, 1, 576},
      {"dw 3x3 C=960 7^2", 7, 960, 960, 3, 1, 1, 960},
      {"dw 5x5/2 C=144 56^2", 56, 144, 144, 5, 2, 2, 144},
      {"dw 5x5 C=240 28^2", 28, 240, 240, 5, 1, 2, 240},
      {"dw 5x5 C=672 14^2", 14, 672, 672, 5, 1, 2, 672},
      {"dw 5x5/2 C=672 14^2", 14, 672, 672, 5, 2, 2, 672},
      {"dw 5x5 C=1152 7^2", 7, 1152, 1152, 5, 1, 2, 1152},
      {"1x1 96->576 14^2", 14, 96, 576, 1, 1, 0, 1},
      {"1x1 32->192 56^2", 56, 32, 192, 1, 1, 0, 1},
  };
  for (int threads : {1, 2}) {
    for (const Layer& l : layers) {
      const auto xs = static_cast<size_t>(l.h * l.h * l.c);
      const std::vector<float> xd = nhwc_test::Random(xs, 1);
      auto x_nhwc = MakeTensor<float>({1, l.h, l.h, l.c}, xd);
      auto x_nchw = MakeTensor<float>({1, l.c, l.h, l.h}, xd);
      auto w = MakeTensor<float>(
          {l.m, l.c / l.group, l.k, l.k},
          nhwc_test::Random(static_cast<size_t>(l.m * (l.c / l.group) * l.k * l.k), 2));
      const std::vector<int64_t> pads(4, l.pad);
      const std::vector<int64_t> strides(2, l.stride);
      const int64_t oh = (l.h + 2 * l.pad - l.k) / l.stride + 1;
      const int64_t group_channels = l.c / l.group;
      const double flops = 2.0 * static_cast<double>(oh * oh * l.m * group_channels * l.k * l.k);
      auto b = MakeTensor<float>({l.m}, nhwc_test::Random(static_cast<size_t>(l.m), 3));
      const double t_nhwc =
          TimeOp("NhwcConv", "ai.kiln", l.group, pads, strides, x_nhwc, w, b, threads);
      const double t_nchw = TimeOp("Conv", "", l.group, pads, strides, x_nchw, w, nullptr, threads);
      std::printf("%d thr  %-28s NhwcConv %8.3f ms %6.1f GFLOP/s | Conv %8.3f ms %6.1f GFLOP/s\n",
                  threads, l.name, t_nhwc * 1e3, flops / t_nhwc * 1e-9, t_nchw * 1e3,
                  flops / t_nchw * 1e-9);
    }
  }
}

}  // namespace
}  // namespace kiln::testing
