// conv_dead_taps.cc: kernel taps that only ever read padding are dropped, outputs unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/registry.h"
#include "optimizer/optimizer.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::ExpectSameOutputs;
using testing::GraphBuilder;

// y = Conv(x [1, 4, h, w], W [8, 4 / group, k, k]) with bias, `dilation` and `pad` on every side.
ir::Model AtrousConv(int64_t h, int64_t w, int64_t k, int64_t dilation, int64_t pad,
                     int64_t stride = 1, int64_t group = 1) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 4, h, w});
  b.Output(b.Op("Conv", {x, b.Floats({8, 4 / group, k, k}), b.Floats({8})},
                {IntsAttr("dilations", {dilation, dilation}),
                 IntsAttr("pads", {pad, pad, pad, pad}), IntsAttr("strides", {stride, stride}),
                 IntAttr("group", group), IntsAttr("kernel_shape", {k, k})}));
  return b.Model();
}

struct ConvAfter {
  std::vector<int64_t> weight_dims;
  std::vector<int64_t> pads;
  std::vector<int64_t> dilations;
};

// The Conv level 2 leaves: its weights' dims, pads and dilations.
ConvAfter After(const ir::Model& model) {
  Optimize(*model.graph, 2, CpuKernels());
  for (const auto& n : model.graph->nodes()) {
    if (n->op_type() != "Conv" || !n->domain().empty()) continue;
    ConvAfter c;
    c.weight_dims = ConstantOf(n->inputs()[1])->shape().dims();
    c.pads = n->FindAttribute("pads")->ints;
    c.dilations = n->FindAttribute("dilations")->ints;
    return c;
  }
  ADD_FAILURE() << "no Conv left";
  return {};
}

TEST(ConvDeadTaps, AnAtrousConvWiderThanTheMapBecomesOneByOne) {
  // Dilation 36 on 24×32: only the centre tap ever reads the map.
  const ConvAfter c = After(AtrousConv(24, 32, 3, 36, 36));
  EXPECT_EQ(c.weight_dims, (std::vector<int64_t>{8, 4, 1, 1}));
  EXPECT_EQ(c.pads, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(c.dilations, (std::vector<int64_t>{1, 1}));
  ExpectSameOutputs([] { return AtrousConv(24, 32, 3, 36, 36); }, 2);
}

TEST(ConvDeadTaps, EachAxisKeepsTheTapsThatReachTheMap) {
  // Dilation 24 on 24×32: rows keep the centre tap only; columns keep all three.
  const ConvAfter c = After(AtrousConv(24, 32, 3, 24, 24));
  EXPECT_EQ(c.weight_dims, (std::vector<int64_t>{8, 4, 1, 3}));
  EXPECT_EQ(c.pads, (std::vector<int64_t>{0, 24, 0, 24}));
  EXPECT_EQ(c.dilations, (std::vector<int64_t>{1, 24}));
  ExpectSameOutputs([] { return AtrousConv(24, 32, 3, 24, 24); }, 2);
  // A 7×7 on a 3×3 map with pad 3: taps 1-5 reach it.
  const ConvAfter big = After(AtrousConv(3, 3, 7, 1, 3));
  EXPECT_EQ(big.weight_dims, (std::vector<int64_t>{8, 4, 5, 5}));
  EXPECT_EQ(big.pads, (std::vector<int64_t>{2, 2, 2, 2}));
  ExpectSameOutputs([] { return AtrousConv(3, 3, 7, 1, 3); }, 2);
}

TEST(ConvDeadTaps, StridesAndGroupsAreKept) {
  ExpectSameOutputs([] { return AtrousConv(24, 32, 3, 36, 36, 2); }, 2);
  ExpectSameOutputs([] { return AtrousConv(24, 32, 3, 36, 36, 1, 4); }, 2);
  ExpectSameOutputs([] { return AtrousConv(5, 7, 3, 4, 4, 3, 2); }, 2);
  EXPECT_EQ(After(AtrousConv(24, 32, 3, 36, 36, 1, 4)).weight_dims,
            (std::vector<int64_t>{8, 1, 1, 1}));
}

TEST(ConvDeadTaps, ConvsWhoseTapsAllReachTheMapAreLeftAlone) {
  for (const auto& [k, d, p] : {std::tuple{3, 1, 1}, std::tuple{3, 12, 12}, std::tuple{1, 1, 0}}) {
    const ConvAfter c = After(AtrousConv(24, 32, k, d, p));
    EXPECT_EQ(c.weight_dims, (std::vector<int64_t>{8, 4, k, k}));
    EXPECT_EQ(c.pads, (std::vector<int64_t>{p, p, p, p}));
  }
}

}  // namespace
}  // namespace kiln::optimizer
