// InstanceNormalization, LRN and LpNormalization: values computed with numpy from the ONNX
// formulas and nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;
using nn_test::Vec;

constexpr float kInstance[] = {
    -1.213916f,  0.1640426f,  1.542001f,   -0.4265109f, 0.9514473f,  -1.017064f,
    0.1914805f,  1.010754f,   -0.1596368f, 0.6596368f,  -0.5107541f, 0.3085195f,
    -1.873655f,  1.718414f,   -0.7960345f, 2.796034f,   0.2815862f,  3.873655f,
    -0.1170391f, 1.521508f,   -0.8192737f, 0.8192737f,  -1.521508f,  0.1170391f,
    0.7585322f,  -0.2257237f, 0.4632554f,  -0.5210004f, 0.1679787f,  0.8569578f,
    1.234078f,   -2.043016f,  2.638547f,   -0.6385473f, 4.043016f,   0.7659218f};

TEST(NnInstanceNormalization, EveryVersion) {
  for (int64_t opset : {1, 6, 22}) {
    SCOPED_TRACE(opset);
    NodeTest t("InstanceNormalization", opset);
    t.Input<float>({2, 3, 2, 3}, Pattern(36))
        .Input<float>({3}, {1.0f, 0.5f, -2.0f})
        .Input<float>({3}, {0.0f, 0.25f, 1.0f});
    if (opset == 1) t.Attr("consumed_inputs", std::vector<int64_t>{0, 0, 0});
    ExpectNear(Values<float>(*t.Run(opset == 6 ? 3 : 1)[0]), Vec(kInstance), 1e-5);
  }
}

TEST(NnInstanceNormalization, DoubleFloat16AndEpsilon) {
  const std::vector<float> xf = Pattern(36);
  auto d = NodeTest("InstanceNormalization", 6)
               .Input<double>({2, 3, 2, 3}, nn_test::Cast<double>(xf))
               .Input<double>({3}, {1.0, 0.5, -2.0})
               .Input<double>({3}, {0.0, 0.25, 1.0})
               .Run();
  ExpectNear(Values<double>(*d[0]), nn_test::Cast<double>(Vec(kInstance)), 1e-5);
  const std::vector<Float16> xh = nn_test::Cast<Float16>(xf);
  auto h =
      NodeTest("InstanceNormalization", 6)
          .Input<Float16>({2, 3, 2, 3}, xh)
          .Input<Float16>(
              {3}, {Float16::FromFloat(1.0f), Float16::FromFloat(0.5f), Float16::FromFloat(-2.0f)})
          .Input<Float16>(
              {3}, {Float16::FromFloat(0.0f), Float16::FromFloat(0.25f), Float16::FromFloat(1.0f)})
          .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<Float16>(*h[0]));
  ExpectNear(got, Vec(kInstance), 4e-3);
  // Variance 1 with epsilon 3: (x - mean) / 2.
  auto eps = NodeTest("InstanceNormalization", 6)
                 .Attr("epsilon", 3.0f)
                 .Input<float>({1, 1, 2}, {-1.0f, 1.0f})
                 .Input<float>({1}, {1.0f})
                 .Input<float>({1}, {0.0f})
                 .Run();
  ExpectNear(Values<float>(*eps[0]), {-0.5f, 0.5f}, 1e-6);
}

TEST(NnInstanceNormalization, RejectsBadInputs) {
  ExpectError(
      [] {
        NodeTest("InstanceNormalization", 6)
            .Input<float>({1, 2, 2}, Pattern(4))
            .Input<float>({3}, Pattern(3))
            .Input<float>({2}, Pattern(2))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'scale'", "[3]", "expected [2]"});
  ExpectError(
      [] {
        NodeTest("InstanceNormalization", 6)
            .Input<float>({1, 2, 2}, Pattern(4))
            .Input<float>({2}, Pattern(2))
            .Input<float>({1, 2}, Pattern(2))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'B'", "expected [2]"});
  ExpectError(
      [] {
        NodeTest("InstanceNormalization", 6)
            .Input<float>({2, 2}, Pattern(4))
            .Input<float>({2}, Pattern(2))
            .Input<float>({2}, Pattern(2))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'input'", "rank 3"});
  ExpectError(
      [] {
        NodeTest("InstanceNormalization", 6)
            .Input<float>({1, 2, 2}, Pattern(4))
            .Input<double>({2}, {1.0, 1.0})
            .Input<float>({2}, Pattern(2))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'scale'", "double", "'input'"});
  ExpectError(
      [] {
        NodeTest("InstanceNormalization", 6)
            .Input<BFloat16>({1, 1, 2}, std::vector<BFloat16>(2))
            .Input<BFloat16>({1}, std::vector<BFloat16>(1))
            .Input<BFloat16>({1}, std::vector<BFloat16>(1))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"bfloat16", "opset 22"});
}

std::vector<float> RunLrn(int64_t opset, int64_t size, float alpha, float beta, float bias) {
  return Values<float>(*NodeTest("LRN", opset)
                            .Attr("size", size)
                            .Attr("alpha", alpha)
                            .Attr("beta", beta)
                            .Attr("bias", bias)
                            .Input<float>({1, 5, 2, 2}, Pattern(20))
                            .Run()[0]);
}

TEST(NnLrn, OddAndEvenWindows) {
  ExpectNear(
      RunLrn(1, 3, 0.5f, 0.75f, 1.0f),
      {-0.8776296f, -0.1140358f, 0.7012497f, -0.4446657f, 0.3243323f,  -0.7768677f, 0.0f,
       0.7768677f,  -0.3243323f, 0.4417177f, -0.6714902f, 0.109345f,   0.8719121f,  -0.2155282f,
       0.5586339f,  -0.5586339f, 0.2212252f, -0.8849008f, -0.1190065f, 0.6714902f},
      1e-5);
  // size 2: channels [c, c + 1]; size 4: channels [c - 1, c + 2].
  ExpectNear(
      RunLrn(13, 2, 0.9f, 0.6f, 2.0f),
      {-0.5752483f, -0.07483351f, 0.4606702f, -0.2915571f, 0.2384648f,   -0.5102249f, 0.0f,
       0.5238345f,  -0.2157181f,  0.3166982f, -0.440367f,  0.07825285f,  0.580131f,   -0.1450327f,
       0.3912642f,  -0.3669725f,  0.1635623f, -0.5841177f, -0.08229577f, 0.4606702f},
      1e-5);
  ExpectNear(
      RunLrn(13, 4, 0.9f, 0.6f, 2.0f),
      {-0.6085473f, -0.0772129f, 0.4606702f, -0.3088516f, 0.2157181f,   -0.5384574f, 0.0f,
       0.5281096f,  -0.2273679f, 0.2908087f, -0.4650375f, 0.07410469f,  0.6113695f,  -0.151857f,
       0.3875313f,  -0.3875313f, 0.1541346f, -0.6165386f, -0.08028732f, 0.4654804f},
      1e-5);
}

TEST(NnLrn, DefaultsDoubleAndBFloat16) {
  auto out =
      NodeTest("LRN", 13).Attr("size", int64_t{2}).Input<float>({1, 5, 2, 2}, Pattern(20)).Run(2);
  ExpectNear(
      Values<float>(*out[0]),
      {-0.9999572f, -0.1249963f, 0.7499842f, -0.499981f,  0.374996f,   -0.8749667f, 0.0f,
       0.8749744f,  -0.374984f,  0.4999941f, -0.7499732f, 0.1249981f,  0.9999602f,  -0.24999f,
       0.6249905f,  -0.6249777f, 0.2499994f, -0.9999625f, -0.1249999f, 0.7499842f},
      1e-6);
  const std::vector<float> xf = Pattern(20);
  auto d = NodeTest("LRN", 1)
               .Attr("size", int64_t{3})
               .Attr("alpha", 0.5f)
               .Input<double>({1, 5, 2, 2}, nn_test::Cast<double>(xf))
               .Run();
  EXPECT_NEAR(Values<double>(*d[0])[0], -0.8776296, 1e-6);
  const std::vector<BFloat16> xb = nn_test::Cast<BFloat16>(xf);
  auto b = NodeTest("LRN", 13).Attr("size", int64_t{3}).Input<BFloat16>({1, 5, 2, 2}, xb).Run();
  EXPECT_NEAR(Values<BFloat16>(*b[0])[0].ToFloat(), -1.0f, 1e-2);
  ExpectError(
      [&] {
        NodeTest("LRN", 12).Attr("size", int64_t{3}).Input<BFloat16>({1, 5, 2, 2}, xb).Run();
      },
      ErrorCode::kInvalidArgument, {"bfloat16", "opset 13"});
}

TEST(NnLrn, RejectsBadSizeAndRank) {
  ExpectError(
      [] {
        NodeTest("LRN", 13).Input<float>({1, 2, 1}, {1, 2}).Run();
      },
      ErrorCode::kInvalidGraph, {"'size'", "required"});
  ExpectError(
      [] {
        NodeTest("LRN", 13).Attr("size", int64_t{0}).Input<float>({1, 2, 1}, {1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'size'", "positive"});
  ExpectError(
      [] {
        NodeTest("LRN", 13).Attr("size", int64_t{1}).Input<float>({2}, {1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "rank 2"});
}

std::vector<float> RunLpNorm(int64_t opset, int64_t axis, int64_t p) {
  return Values<float>(*NodeTest("LpNormalization", opset)
                            .Attr("axis", axis)
                            .Attr("p", p)
                            .Input<float>({2, 3, 4}, Pattern(24))
                            .Run()[0]);
}

TEST(NnLpNormalization, AxesAndOrders) {
  const std::vector<float> last = {-0.7396003f, -0.09245003f, 0.5547002f,  -0.3698001f,  0.2900209f,
                                   -0.6767155f, 0.0f,         0.6767155f,  -0.3810004f,  0.5080005f,
                                   -0.7620008f, 0.1270001f,   0.7364597f,  -0.1841149f,  0.4602873f,
                                   -0.4602873f, 0.19518f,     -0.7807201f, -0.09759001f, 0.58554f,
                                   -0.4649906f, 0.3487429f,   -0.8137335f, 0.0f};
  ExpectNear(RunLpNorm(1, -1, 2), last, 1e-6);
  ExpectNear(RunLpNorm(22, 2, 2), last, 1e-6);
  ExpectNear(RunLpNorm(1, 1, 1),
             {-0.5714286f,  -0.08333333f, 0.5f,        -0.3333333f, 0.2142857f,  -0.5833333f,
              0.0f,         0.5833333f,   -0.2142857f, 0.3333333f,  -0.5f,       0.08333333f,
              0.5714286f,   -0.1538462f,  0.3846154f,  -0.4545455f, 0.1428571f,  -0.6153846f,
              -0.07692308f, 0.5454545f,   -0.2857143f, 0.2307692f,  -0.5384615f, 0.0f},
             1e-6);
  ExpectNear(RunLpNorm(1, -3, 2),
             {-0.7071068f, -0.4472136f, 0.7682213f, -0.624695f,  0.8320503f,  -0.6585046f,
              0.0f,        0.7592566f,  -0.6f,      0.8f,        -0.6507914f, 1.0f,
              0.7071068f,  -0.8944272f, 0.6401844f, -0.7808688f, 0.5547002f,  -0.7525767f,
              -1.0f,       0.6507914f,  -0.8f,      0.6f,        -0.7592566f, 0.0f},
             1e-6);
}

TEST(NnLpNormalization, ZeroNormGivesZeroAndDefaults) {
  auto out = NodeTest("LpNormalization", 1).Input<float>({2, 2}, {0.0f, 0.0f, 3.0f, -4.0f}).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0.0f, 0.0f, 0.6f, -0.8f}));
  auto d = NodeTest("LpNormalization", 1).Input<double>({2}, {3.0, 4.0}).Run(2);
  EXPECT_EQ(Values<double>(*d[0]), (std::vector<double>{0.6, 0.8}));
  auto h = NodeTest("LpNormalization", 1)
               .Attr("p", int64_t{1})
               .Input<Float16>({2}, {Float16::FromFloat(1.0f), Float16::FromFloat(-3.0f)})
               .Run();
  EXPECT_EQ(Values<Float16>(*h[0])[1].ToFloat(), -0.75f);
}

TEST(NnLpNormalization, RejectsBadAttributes) {
  ExpectError([] { RunLpNorm(1, 0, 3); }, ErrorCode::kInvalidArgument, {"'p'", "1 and 2"});
  ExpectError([] { RunLpNorm(1, 3, 2); }, ErrorCode::kInvalidArgument, {"axis 3", "rank 3"});
  ExpectError(
      [] { NodeTest("LpNormalization", 21).Input<BFloat16>({2}, std::vector<BFloat16>(2)).Run(); },
      ErrorCode::kInvalidArgument, {"bfloat16", "opset 22"});
}

}  // namespace
}  // namespace kiln::testing
