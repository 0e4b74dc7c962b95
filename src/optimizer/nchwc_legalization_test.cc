// The NCHWc legalization: graphs in ONNX Runtime's com.microsoft.nchwc layout, their filters
// blocked here by a reference of MLAS's orders written from its description (not the pass's
// inverse), against the same model in standard ops, at levels 0 and 3; the block size the shapes
// prove; the error paths.
#include "optimizer/nchwc_legalization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"
#include "onnx/text_parser.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::GraphBuilder;
using testing::OpCounts;
using testing::RunModel;
constexpr const char* kNchwc = "com.microsoft.nchwc";

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

int64_t Up(int64_t c, int64_t block) {
  return (c + block - 1) / block * block;
}

// A filter W [o, i, kh, kw] (OIHW) and what ONNX Runtime saves for it.
struct Filter {
  int64_t o, i, kh, kw;
  std::vector<float> w;

  float At(int64_t oc, int64_t ic, int64_t k) const {
    if (oc >= o || ic >= i) return 0.0f;  // the padding: zeros
    return w[static_cast<size_t>((oc * i + ic) * kh * kw + k)];
  }

  // OIHWBiBo, output channels padded to `op` and input channels to `ip`: per block of output
  // channels, per block of input channels, per tap, per input channel of the block, the block's
  // output channels (MLAS's MlasReorderFilterOIHWBiBo).
  std::vector<float> BiBo(int64_t block, int64_t op, int64_t ip) const {
    std::vector<float> d;
    for (int64_t ob = 0; ob < op; ob += block) {
      for (int64_t ib = 0; ib < ip; ib += block) {
        for (int64_t k = 0; k < kh * kw; ++k) {
          for (int64_t bi = 0; bi < block; ++bi) {
            for (int64_t bo = 0; bo < block; ++bo) d.push_back(At(ob + bo, ib + bi, k));
          }
        }
      }
    }
    return d;
  }

  // OIHWBo, output channels padded to `op`: per block of output channels, per input channel, per
  // tap, the block's output channels (MlasReorderFilterOIHWBo).
  std::vector<float> Bo(int64_t block, int64_t op) const {
    std::vector<float> d;
    for (int64_t ob = 0; ob < op; ob += block) {
      for (int64_t ic = 0; ic < i; ++ic) {
        for (int64_t k = 0; k < kh * kw; ++k) {
          for (int64_t bo = 0; bo < block; ++bo) d.push_back(At(ob + bo, ic, k));
        }
      }
    }
    return d;
  }
};

Filter MakeFilter(int64_t o, int64_t i, int64_t kh, int64_t kw, uint32_t seed) {
  return {o, i, kh, kw, Random(static_cast<size_t>(o * i * kh * kw), seed)};
}

std::vector<float> PadTo(std::vector<float> v, int64_t n) {
  v.resize(static_cast<size_t>(n), 0.0f);
  return v;
}

ir::Value* Nchwc(GraphBuilder& b, const std::string& op, std::vector<ir::Value*> inputs,
                 std::vector<ir::Attribute> attrs = {}) {
  return b.Node(op, std::move(inputs), 1, std::move(attrs), 1, kNchwc)[0];
}

ir::Value* ReorderOutput(GraphBuilder& b, ir::Value* x, int64_t channels, bool last = false) {
  return Nchwc(b, "ReorderOutput", {x},
               {IntAttr("channels", channels), IntAttr("channels_last", last ? 1 : 0)});
}

std::shared_ptr<Tensor> RandomTensor(std::vector<int64_t> dims, uint32_t seed) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return FloatTensor(std::move(dims), Random(n, seed));
}

using Build = std::function<ir::Model()>;

// Runs `saved` (legalized first with `block` preferred, when not 0; else by the session) and
// `reference` (at level 0) on `inputs`, and expects the same outputs at levels 0 and 3.
void ExpectSame(const Build& saved, const Build& reference, const std::vector<Value>& inputs,
                int64_t block, float tol = 2e-5f) {
  const auto want = RunModel(reference(), 0, inputs);
  for (int level : {0, 3}) {
    SCOPED_TRACE("level " + std::to_string(level) + ", block " + std::to_string(block));
    ir::Model m = saved();
    if (block != 0) {
      EXPECT_GT(LegalizeNchwc(*m.graph, CpuKernels(), {.onnx_opset = 17, .block_size = block}), 0u);
    }
    const auto got = RunModel(std::move(m), level, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k]->shape(), want[k]->shape()) << "output " << k;
      const auto* g = static_cast<const float*>(got[k]->data());
      const auto* w = static_cast<const float*>(want[k]->data());
      size_t bad = 0;
      for (size_t e = 0; e < got[k]->element_count(); ++e) {
        if (!(std::fabs(g[e] - w[e]) <= tol * (1.0f + std::fabs(w[e]))) && bad++ < 5) {
          ADD_FAILURE() << "output " << k << " element " << e << ": " << g[e] << ", want " << w[e];
        }
      }
    }
  }
}

OpCounts OpsOf(const ir::Graph& g) {
  OpCounts counts;
  for (const auto& n : g.nodes()) {
    ++counts[n->domain().empty() ? n->op_type() : n->domain() + "." + n->op_type()];
  }
  return counts;
}

// Blocked input, group 1: x [1, 24, 7, 9] (24 channels: padded to 32 at block 16), W [20, 24, 3, 3]
// in OIHWBiBo, bias and ReLU, ReorderOutput of the 20 channels.
TEST(NchwcLegalization, ConvOverBlockedInputUnblocksOihwBiBo) {
  const Filter f = MakeFilter(20, 24, 3, 3, 1);
  const std::vector<float> bias = Random(20, 2);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 24, 7, 9}, 3))};
  const std::vector<ir::Attribute> window = {IntsAttr("pads", {1, 1, 1, 1})};
  for (int64_t block : {8, 16}) {
    const int64_t op = Up(20, block);
    const int64_t ip = Up(24, block);
    auto saved = [&] {
      GraphBuilder b;
      ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 24, 7, 9})});
      std::vector<ir::Attribute> attrs = window;
      attrs.push_back(StringAttr("activation", "Relu"));
      ir::Value* c = Nchwc(b, "Conv",
                           {r, b.Const(FloatTensor({op, ip, 3, 3}, f.BiBo(block, op, ip))),
                            b.Const(FloatTensor({op}, PadTo(bias, op)))},
                           attrs);
      b.Output(ReorderOutput(b, c, 20));
      return b.Model();
    };
    auto reference = [&] {
      GraphBuilder b;
      ir::Value* c = b.Op("Conv",
                          {b.Input("x", {1, 24, 7, 9}), b.Const(FloatTensor({20, 24, 3, 3}, f.w)),
                           b.Const(FloatTensor({20}, bias))},
                          window);
      b.Output(b.Op("Relu", {c}));
      return b.Model();
    };
    ExpectSame(saved, reference, inputs, block);
    ir::Model m = saved();
    LegalizeNchwc(*m.graph, CpuKernels(), {.onnx_opset = 17, .block_size = block});
    // By 8, the 24 input channels need no padding.
    OpCounts want = {{"com.microsoft.FusedConv", 1}, {"Slice", 1}};
    if (block == 16) want["Pad"] = 1;
    EXPECT_EQ(OpsOf(*m.graph), want) << "block " << block;
  }
}

// Depthwise: x [2, 20, 6, 7], group 20 padded to the block (W [Cp, 1, 3, 3] in OIHWBo), strides
// 2, HardSigmoid.
TEST(NchwcLegalization, DepthwiseConvUnblocksOihwBo) {
  const Filter f = MakeFilter(20, 1, 3, 3, 4);
  const std::vector<float> bias = Random(20, 5);
  const std::vector<Value> inputs = {Value(RandomTensor({2, 20, 6, 7}, 6))};
  const std::vector<ir::Attribute> window = {IntsAttr("pads", {1, 1, 1, 1}),
                                             IntsAttr("strides", {2, 2})};
  for (int64_t block : {8, 16}) {
    const int64_t cp = Up(20, block);
    auto saved = [&] {
      GraphBuilder b;
      ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {2, 20, 6, 7})});
      std::vector<ir::Attribute> attrs = window;
      attrs.push_back(IntAttr("group", cp));
      attrs.push_back(StringAttr("activation", "HardSigmoid"));
      attrs.push_back(FloatsAttr("activation_params", {0.25f, 0.5f}));
      ir::Value* c = Nchwc(b, "Conv",
                           {r, b.Const(FloatTensor({cp, 1, 3, 3}, f.Bo(block, cp))),
                            b.Const(FloatTensor({cp}, PadTo(bias, cp)))},
                           attrs);
      b.Output(ReorderOutput(b, c, 20));
      return b.Model();
    };
    auto reference = [&] {
      GraphBuilder b;
      std::vector<ir::Attribute> attrs = window;
      attrs.push_back(IntAttr("group", 20));
      ir::Value* c = b.Op("Conv",
                          {b.Input("x", {2, 20, 6, 7}), b.Const(FloatTensor({20, 1, 3, 3}, f.w)),
                           b.Const(FloatTensor({20}, bias))},
                          attrs);
      b.Output(b.Op("HardSigmoid", {c}, {FloatAttr("alpha", 0.25f), FloatAttr("beta", 0.5f)}));
      return b.Model();
    };
    ExpectSame(saved, reference, inputs, block);
  }
}

// Plain NCHW input (fewer channels than the block): x [1, 3, 9, 8] read as it is, W [10, 3, 3, 3]
// in OIHWBo, no bias, LeakyReLU, ReorderOutput to NHWC.
TEST(NchwcLegalization, ConvOverPlainInputUnblocksOihwBo) {
  const Filter f = MakeFilter(10, 3, 3, 3, 7);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 3, 9, 8}, 8))};
  const std::vector<ir::Attribute> window = {IntsAttr("strides", {2, 2})};
  for (int64_t block : {8, 16}) {
    const int64_t op = Up(10, block);
    auto saved = [&] {
      GraphBuilder b;
      std::vector<ir::Attribute> attrs = window;
      attrs.push_back(StringAttr("activation", "LeakyRelu"));
      attrs.push_back(FloatsAttr("activation_params", {0.1f}));
      ir::Value* c =
          Nchwc(b, "Conv",
                {b.Input("x", {1, 3, 9, 8}), b.Const(FloatTensor({op, 3, 3, 3}, f.Bo(block, op)))},
                attrs);
      b.Output(ReorderOutput(b, c, 10, true));
      return b.Model();
    };
    auto reference = [&] {
      GraphBuilder b;
      ir::Value* c = b.Op(
          "Conv", {b.Input("x", {1, 3, 9, 8}), b.Const(FloatTensor({10, 3, 3, 3}, f.w))}, window);
      b.Output(b.Op("Transpose", {b.Op("LeakyRelu", {c}, {FloatAttr("alpha", 0.1f)})},
                    {IntsAttr("perm", {0, 2, 3, 1})}));
      return b.Model();
    };
    ExpectSame(saved, reference, inputs, block);
  }
}

// Conv + Sum + activation: Y = Clip(conv(X) + B + Sum), the activation after the sum (ONNX
// Runtime's kernel adds into the Sum's buffer and activates last); grouped convolution over
// blocked input (2 groups of 16 input channels).
TEST(NchwcLegalization, SumIsAddedBeforeTheActivation) {
  const Filter f1 = MakeFilter(32, 32, 1, 1, 9);
  const Filter f2 = MakeFilter(32, 16, 3, 3, 10);
  const std::vector<float> bias = Random(32, 11);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 32, 5, 6}, 12))};
  for (int64_t block : {8, 16}) {
    auto saved = [&] {
      GraphBuilder b;
      ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 32, 5, 6})});
      ir::Value* c1 =
          Nchwc(b, "Conv", {r, b.Const(FloatTensor({32, 32, 1, 1}, f1.BiBo(block, 32, 32)))});
      ir::Value* c2 =
          Nchwc(b, "Conv",
                {r, b.Const(FloatTensor({32, 16, 3, 3}, f2.BiBo(block, 32, 16))),
                 b.Const(FloatTensor({32}, bias)), c1},
                {IntAttr("group", 2), IntsAttr("pads", {1, 1, 1, 1}),
                 StringAttr("activation", "Clip"), FloatsAttr("activation_params", {-0.5f, 0.6f})});
      b.Output(ReorderOutput(b, c2, 32));
      return b.Model();
    };
    auto reference = [&] {
      GraphBuilder b;
      ir::Value* x = b.Input("x", {1, 32, 5, 6});
      ir::Value* c1 = b.Op("Conv", {x, b.Const(FloatTensor({32, 32, 1, 1}, f1.w))});
      ir::Value* c2 = b.Op(
          "Conv", {x, b.Const(FloatTensor({32, 16, 3, 3}, f2.w)), b.Const(FloatTensor({32}, bias))},
          {IntAttr("group", 2), IntsAttr("pads", {1, 1, 1, 1})});
      b.Output(b.Op("Clip", {b.Op("Add", {c2, c1}), b.Floats({}, {-0.5f}), b.Floats({}, {0.6f})}));
      return b.Model();
    };
    ExpectSame(saved, reference, inputs, block);
  }
}

// The pools and Upsample over a ReorderInput that pads 12 channels to 16 and a ReorderOutput that
// drops the padding.
TEST(NchwcLegalization, PoolsAndUpsampleKeepTheirAttributes) {
  const std::vector<Value> inputs = {Value(RandomTensor({1, 12, 7, 8}, 13))};
  struct Case {
    std::string nchwc_op;
    std::vector<ir::Attribute> attrs;
    std::string op;  // the standard op
    std::vector<ir::Attribute> op_attrs;
    int64_t opset = 17;
  };
  const std::vector<float> scales = {1.0f, 1.0f, 2.0f, 3.0f};
  auto resize = [](const std::string& mode, const std::string& ctm) {
    std::vector<ir::Attribute> a = {StringAttr("mode", mode),
                                    StringAttr("coordinate_transformation_mode", ctm)};
    if (mode == "nearest") a.push_back(StringAttr("nearest_mode", "floor"));
    return a;
  };
  auto upsample = [](const std::string& mode, const std::string& ctm) {
    return std::vector<ir::Attribute>{IntsAttr("scales", {1, 1, 2, 3}), StringAttr("mode", mode),
                                      StringAttr("coordinate_transformation_mode", ctm)};
  };
  const std::vector<ir::Attribute> max_pool = {
      IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntsAttr("pads", {1, 1, 1, 1}),
      IntAttr("ceil_mode", 1)};
  const std::vector<ir::Attribute> avg_pool = {
      IntsAttr("kernel_shape", {3, 2}), IntsAttr("strides", {2, 1}), IntsAttr("pads", {1, 0, 1, 1}),
      IntAttr("count_include_pad", 1)};
  const std::vector<ir::Attribute> dilated = {IntsAttr("kernel_shape", {2, 2}),
                                              IntsAttr("dilations", {2, 2})};
  const std::vector<Case> cases = {
      {"MaxPool", max_pool, "MaxPool", max_pool},
      {"AveragePool", avg_pool, "AveragePool", avg_pool},
      {"AveragePool", dilated, "AveragePool", dilated, 19},
      {"MaxPool",
       {IntsAttr("kernel_shape", {2, 3}), StringAttr("auto_pad", "SAME_UPPER")},
       "MaxPool",
       {IntsAttr("kernel_shape", {2, 3}), StringAttr("auto_pad", "SAME_UPPER")}},
      {"GlobalAveragePool", {}, "GlobalAveragePool", {}},
      {"GlobalMaxPool", {}, "GlobalMaxPool", {}},
      {"Upsample", upsample("nearest", "asymmetric"), "Resize", resize("nearest", "asymmetric")},
      {"Upsample", {IntsAttr("scales", {1, 1, 3, 2})}, "Resize", resize("nearest", "asymmetric")},
      {"Upsample", upsample("linear", "asymmetric"), "Resize", resize("linear", "asymmetric")},
      {"Upsample", upsample("linear", "half_pixel"), "Resize", resize("linear", "half_pixel")},
      {"Upsample", upsample("linear", "align_corners"), "Resize",
       resize("linear", "align_corners")},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE("case " + std::to_string(k) + " (" + c.nchwc_op + ")");
    const bool scales_3_2 = k == 7;
    for (int64_t block : {8, 16}) {
      auto saved = [&] {
        GraphBuilder b;
        ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 12, 7, 8})});
        b.Output(ReorderOutput(b, Nchwc(b, c.nchwc_op, {r}, c.attrs), 12));
        return b.Model();
      };
      auto reference = [&] {
        GraphBuilder b;
        ir::Value* x = b.Input("x", {1, 12, 7, 8});
        if (c.op == "Resize") {
          const std::vector<float> s =
              scales_3_2 ? std::vector<float>{1.0f, 1.0f, 3.0f, 2.0f} : scales;
          b.Output(b.Op("Resize", {x, nullptr, b.Floats({4}, s)}, c.op_attrs, 13));
        } else {
          b.Output(b.Op(c.op, {x}, c.op_attrs, c.opset));
        }
        return b.Model();
      };
      ExpectSame(saved, reference, inputs, block);
    }
  }
}

// NHWC in and out: ReorderInput(channels_last) of x [1, 5, 6, 12] (a transpose and a pad), a 1×1
// Conv with HardSwish, ReorderOutput(channels_last) of 10 channels.
TEST(NchwcLegalization, ChannelsLastReorders) {
  const Filter f = MakeFilter(10, 12, 1, 1, 14);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 5, 6, 12}, 15))};
  for (int64_t block : {8, 16}) {
    const int64_t op = Up(10, block);
    const int64_t ip = Up(12, block);
    auto saved = [&] {
      GraphBuilder b;
      ir::Value* r =
          Nchwc(b, "ReorderInput", {b.Input("x", {1, 5, 6, 12})}, {IntAttr("channels_last", 1)});
      ir::Value* c =
          Nchwc(b, "Conv", {r, b.Const(FloatTensor({op, ip, 1, 1}, f.BiBo(block, op, ip)))},
                {StringAttr("activation", "HardSwish")});
      b.Output(ReorderOutput(b, c, 10, true));
      return b.Model();
    };
    auto reference = [&] {
      GraphBuilder b;
      ir::Value* x =
          b.Op("Transpose", {b.Input("x", {1, 5, 6, 12})}, {IntsAttr("perm", {0, 3, 1, 2})});
      ir::Value* c =
          b.Op("HardSwish", {b.Op("Conv", {x, b.Const(FloatTensor({10, 12, 1, 1}, f.w))})});
      b.Output(b.Op("Transpose", {c}, {IntsAttr("perm", {0, 2, 3, 1})}));
      return b.Model();
    };
    ExpectSame(saved, reference, inputs, block);
  }
}

// A ReorderInput whose channel count the model does not declare pads by what the input has at
// run time (12 channels here, to 16).
TEST(NchwcLegalization, ChannelsKnownOnlyAtRunTimeArePaddedAtRunTime) {
  const Filter f = MakeFilter(10, 12, 3, 3, 16);
  const std::vector<Value> inputs = {Value(RandomTensor({2, 12, 6, 5}, 17))};
  auto saved = [&] {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.DynamicInput("x", {"n", "c", "h", "w"})});
    ir::Value* c = Nchwc(b, "Conv", {r, b.Const(FloatTensor({16, 16, 3, 3}, f.BiBo(16, 16, 16)))},
                         {IntsAttr("pads", {1, 1, 1, 1})});
    b.Output(ReorderOutput(b, c, 10));
    return b.Model();
  };
  auto reference = [&] {
    GraphBuilder b;
    b.Output(
        b.Op("Conv",
             {b.DynamicInput("x", {"n", "c", "h", "w"}), b.Const(FloatTensor({10, 12, 3, 3}, f.w))},
             {IntsAttr("pads", {1, 1, 1, 1})}));
    return b.Model();
  };
  ExpectSame(saved, reference, inputs, 16);
  ir::Model m = saved();
  LegalizeNchwc(*m.graph, CpuKernels(), {.block_size = 16});
  const OpCounts ops = OpsOf(*m.graph);
  EXPECT_EQ(ops.at("Shape"), 1);
  EXPECT_EQ(ops.at("Pad"), 1);
  EXPECT_EQ(ops.count("com.microsoft.nchwc.ReorderInput"), 0u);
}

// The block size the shapes prove wins over the preferred one: a model blocked by 8 read on a
// machine of 16 (its 24 output channels are no multiple of 16), and one blocked by 16 read on a
// machine of 8 (its ReorderOutput keeps 8 of 16 channels: by 8, they would not have been padded).
TEST(NchwcLegalization, TakesTheBlockSizeTheShapesProve) {
  const Filter f = MakeFilter(24, 16, 3, 3, 18);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 16, 5, 5}, 19))};
  auto saved8 = [&] {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    ir::Value* c = Nchwc(b, "Conv", {r, b.Const(FloatTensor({24, 16, 3, 3}, f.BiBo(8, 24, 16)))});
    b.Output(ReorderOutput(b, c, 24));
    return b.Model();
  };
  auto reference = [&] {
    GraphBuilder b;
    b.Output(
        b.Op("Conv", {b.Input("x", {1, 16, 5, 5}), b.Const(FloatTensor({24, 16, 3, 3}, f.w))}));
    return b.Model();
  };
  ExpectSame(saved8, reference, inputs, 16);

  const Filter g = MakeFilter(8, 16, 1, 1, 20);
  auto saved16 = [&] {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    ir::Value* c = Nchwc(b, "Conv", {r, b.Const(FloatTensor({16, 16, 1, 1}, g.BiBo(16, 16, 16)))});
    b.Output(ReorderOutput(b, c, 8));
    return b.Model();
  };
  auto reference16 = [&] {
    GraphBuilder b;
    b.Output(b.Op("Conv", {b.Input("x", {1, 16, 5, 5}), b.Const(FloatTensor({8, 16, 1, 1}, g.w))}));
    return b.Model();
  };
  ExpectSame(saved16, reference16, inputs, 8);
  // The session takes this machine's size, or what the shapes prove: either way 16 here.
  ExpectSame(saved16, reference16, inputs, 0);
}

std::string ErrorOf(const std::function<void()>& f, ErrorCode code) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

void ExpectMentions(const std::string& what, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) {
    EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

TEST(NchwcLegalization, RefusesShapesThatFitNoBlockSize) {
  auto model = [](int64_t out) {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    ir::Value* c = Nchwc(b, "Conv", {r, b.Floats({out, 16, 1, 1})});
    b.Output(ReorderOutput(b, c, 4));
    return b.Model();
  };
  for (int64_t machine : {8, 16}) {
    ir::Model m = model(20);
    const std::string what =
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels(), {.block_size = machine}); },
                ErrorCode::kInvalidGraph);
    ExpectMentions(what, {"(Conv)", "20 output channels", "block size 8", "block size 16"});
  }
  // 16 output channels of which 4 are kept: by 16 it fits; told 8, the shapes prove 16.
  ir::Model ok = model(16);
  EXPECT_EQ(LegalizeNchwc(*ok.graph, CpuKernels(), {.block_size = 8}), 3u);
}

TEST(NchwcLegalization, RefusesWhatItCannotRewrite) {
  {
    GraphBuilder b;
    b.Output(Nchwc(b, "Shuffle", {b.Input("x", {1, 16, 5, 5})}));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kNotImplemented),
        {"(Shuffle)", "com.microsoft.nchwc"});
  }
  {
    GraphBuilder b;
    ir::Value* c = Nchwc(b, "Conv", {b.Input("x", {1, 3, 5, 5}), b.Input("w", {16, 3, 1, 1})});
    b.Output(ReorderOutput(b, c, 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kInvalidGraph),
        {"(Conv)", "'w'", "not a constant"});
  }
  {
    GraphBuilder b;
    ir::Value* c = Nchwc(b, "Conv", {b.Input("x", {1, 3, 5, 5}), b.Floats({16, 3, 1, 1})},
                         {StringAttr("activation", "Gelu")});
    b.Output(ReorderOutput(b, c, 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kNotImplemented),
        {"(Conv)", "'Gelu'"});
  }
  {
    GraphBuilder b;
    ir::Value* c = Nchwc(b, "Conv", {b.Input("x", {1, 3, 5, 5}), b.Floats({16, 3, 1, 1})},
                         {StringAttr("activation", "Clip"), FloatsAttr("activation_params", {0})});
    b.Output(ReorderOutput(b, c, 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kInvalidGraph),
        {"(Conv)", "'activation_params'", "takes 2"});
  }
  {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    ir::Value* u = Nchwc(b, "Upsample", {r},
                         {IntsAttr("scales", {1, 1, 2, 2}), StringAttr("mode", "linear"),
                          StringAttr("coordinate_transformation_mode", "pytorch_half_pixel")});
    b.Output(ReorderOutput(b, u, 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kNotImplemented),
        {"(Upsample)", "pytorch_half_pixel"});
  }
  {
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    b.Output(ReorderOutput(b, Nchwc(b, "Upsample", {r}, {IntsAttr("scales", {1, 2, 2, 2})}), 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kInvalidGraph),
        {"(Upsample)", "'scales'"});
  }
  {  // a blocked input read as plain: 3 input channels per group are fewer than either block
    GraphBuilder b;
    ir::Value* r = Nchwc(b, "ReorderInput", {b.Input("x", {1, 16, 5, 5})});
    b.Output(ReorderOutput(b, Nchwc(b, "Conv", {r, b.Floats({16, 3, 1, 1})}), 16));
    ir::Model m = b.Model();
    ExpectMentions(
        ErrorOf([&] { LegalizeNchwc(*m.graph, CpuKernels()); }, ErrorCode::kInvalidGraph),
        {"(Conv)", "3 input channels per group", "blocked layout"});
  }
}

// Through the session, at every level: the legalization runs before the optimizer (level 0 too).
TEST(NchwcLegalization, SessionsRunSavedModelsAtEveryLevel) {
  const Filter f = MakeFilter(8, 3, 3, 3, 21);
  const std::vector<Value> inputs = {Value(RandomTensor({1, 3, 6, 6}, 22))};
  auto saved = [&] {
    GraphBuilder b;
    ir::Value* c = Nchwc(
        b, "Conv", {b.Input("x", {1, 3, 6, 6}), b.Const(FloatTensor({16, 3, 3, 3}, f.Bo(16, 16)))},
        {StringAttr("activation", "Silu")});
    ir::Value* p = Nchwc(b, "MaxPool", {c}, {IntsAttr("kernel_shape", {2, 2})});
    b.Output(ReorderOutput(b, p, 8));
    return b.Model();
  };
  auto reference = [&] {
    GraphBuilder b;
    ir::Value* c =
        b.Op("Conv", {b.Input("x", {1, 3, 6, 6}), b.Const(FloatTensor({8, 3, 3, 3}, f.w))});
    ir::Value* s = b.Op("Mul", {c, b.Op("Sigmoid", {c})});
    b.Output(b.Op("MaxPool", {s}, {IntsAttr("kernel_shape", {2, 2})}));
    return b.Model();
  };
  const auto want = RunModel(reference(), 0, inputs);
  for (int level = 0; level <= 3; ++level) {
    const auto got = RunModel(saved(), level, inputs);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0]->shape(), want[0]->shape()) << "level " << level;
    for (size_t e = 0; e < got[0]->element_count(); ++e) {
      EXPECT_NEAR(static_cast<const float*>(got[0]->data())[e],
                  static_cast<const float*>(want[0]->data())[e], 2e-5f)
          << "level " << level << " element " << e;
    }
  }
  testing::ExpectOptimizedModelRoundTrips(saved, 3, inputs);
}

// A node a registered custom op implements is its kernel's to run.
std::unique_ptr<Kernel> NoKernel(const KernelInfo&) {
  return nullptr;
}

TEST(NchwcLegalization, LeavesCustomOpsOfTheDomainAlone) {
  static const KernelDef kDefs[] = {{kNchwc, "Conv", 1, 1, &NoKernel}};
  KernelRegistry custom(&CpuKernels());
  custom.Add(kDefs);
  GraphBuilder b;
  b.Output(Nchwc(b, "Conv", {b.Input("x", {1, 3, 5, 5}), b.Floats({16, 3, 1, 1})}));
  ir::Model m = b.Model();
  EXPECT_EQ(LegalizeNchwc(*m.graph, custom), 0u);
  EXPECT_EQ(OpsOf(*m.graph), (OpCounts{{"com.microsoft.nchwc.Conv", 1}}));
}

// ONNX Runtime blocks the bodies of If, Loop and Scan too: the then-branch here is its save of
// the else-branch (shapes only block size 16 fits: 8 of 16 channels kept).
TEST(NchwcLegalization, RewritesSubgraphs) {
  const Filter f = MakeFilter(8, 16, 1, 1, 23);
  auto list = [](const std::vector<float>& v) {
    std::ostringstream s;
    s.precision(9);
    for (size_t k = 0; k < v.size(); ++k) s << (k ? ", " : "") << v[k];
    return s.str();
  };
  const std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft.nchwc\" : 1]>\n"
      "g (bool c, float[1, 16, 3, 4] x) => (float[1, 8, 3, 4] y)\n"
      "{\n"
      "  y = If <then_branch = then_g () => (float[1, 8, 3, 4] t)\n"
      "    <float[16, 16, 1, 1] wb = {" +
      list(f.BiBo(16, 16, 16)) +
      "}>\n"
      "    {\n"
      "      r = com.microsoft.nchwc.ReorderInput (x)\n"
      "      k = com.microsoft.nchwc.Conv (r, wb)\n"
      "      t = com.microsoft.nchwc.ReorderOutput <channels: int = 8> (k)\n"
      "    }, else_branch = else_g () => (float[1, 8, 3, 4] e)\n"
      "    <float[8, 16, 1, 1] w = {" +
      list(f.w) +
      "}>\n"
      "    {\n"
      "      e = Conv (x, w)\n"
      "    }> (c)\n"
      "}\n";
  auto flag = [](bool v) {
    std::shared_ptr<Tensor> t =
        Tensor::Allocate(DataType::kBool, Shape(std::vector<int64_t>{}), CpuAllocator());
    *static_cast<bool*>(t->data()) = v;
    return Value(t);
  };
  const Value x(RandomTensor({1, 16, 3, 4}, 24));
  for (int level : {0, 3}) {
    const auto then_out = RunModel(onnx::ParseModelText(text), level, {flag(true), x});
    const auto else_out = RunModel(onnx::ParseModelText(text), level, {flag(false), x});
    ASSERT_EQ(then_out[0]->shape(), else_out[0]->shape());
    for (size_t e = 0; e < then_out[0]->element_count(); ++e) {
      EXPECT_NEAR(static_cast<const float*>(then_out[0]->data())[e],
                  static_cast<const float*>(else_out[0]->data())[e], 2e-5f)
          << "level " << level << " element " << e;
    }
  }
}

}  // namespace
}  // namespace kiln::optimizer
