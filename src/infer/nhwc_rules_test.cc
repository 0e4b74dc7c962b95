// Inference rules of the ai.kiln channels-last ops and com.microsoft FusedConv.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferNhwc, ConvShapes) {
  auto out = RuleTest("NhwcConv", 1, "ai.kiln")
                 .Attr("strides", V{2, 2})
                 .Attr("pads", V{3, 3, 3, 3})
                 .Input(kF, {1, 224, 224, 3})
                 .Input(kF, {64, 3, 7, 7})
                 .Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{1, 112, 112, 64}));
  auto dw = RuleTest("NhwcConv", 1, "ai.kiln")
                .Attr("group", 144)
                .Attr("auto_pad", "SAME_UPPER")
                .Attr("strides", V{2, 2})
                .Input(kF, {-1, 57, 56, 144})
                .Input(kF, {144, 1, 3, 3})
                .Input(kF, {144})
                .Input(kF, {-1, 29, 28, 144})
                .Run();
  EXPECT_EQ(Dims(dw[0]), (V{-1, 29, 28, 144}));
  auto unknown_w = RuleTest("NhwcConv", 1, "ai.kiln")
                       .Attr("kernel_shape", V{3, 3})
                       .Attr("dilations", V{2, 2})
                       .Input(kF, {2, 10, 9, 4})
                       .UnknownRankInput(kF)
                       .Run();
  EXPECT_EQ(Dims(unknown_w[0]), (V{2, 6, 5, -1}));
}

// input_channels (X in parts): input 0 holds the first part; the parts add up to W's channels.
TEST(InferNhwc, ConvWithInputInParts) {
  auto out = RuleTest("NhwcConv", 1, "ai.kiln")
                 .Attr("input_channels", V{3, 5})
                 .Input(kF, {1, 6, 7, 3})
                 .Input(kF, {4, 8, 1, 1})
                 .Input(kF, {4})
                 .MissingInput()
                 .Input(kF, {1, 6, 7, 5})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 6, 7, 4}));
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln")
            .Attr("input_channels", V{3, 5})
            .Input(kF, {1, 6, 7, 4})
            .Input(kF, {4, 8, 1, 1})
            .Run();
      },
      {"input 'X'", "attribute 'input_channels' gives it 3 channels"});
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln")
            .Attr("input_channels", V{3, 4})
            .Input(kF, {1, 6, 7, 3})
            .Input(kF, {4, 8, 1, 1})
            .Run();
      },
      {"attribute 'input_channels' adds up to 7 channels", "input 'W'"});
}

TEST(InferNhwc, ConvFailsOnContradictions) {
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln").Input(kF, {1, 4, 4}).Input(kF, {2, 4, 1, 1}).Run();
      },
      {"input 'X'", "rank 4"});
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln").Input(kF, {1, 4, 4, 3}).Input(kF, {2, 4, 1, 1}).Run();
      },
      {"input 'W'", "channels"});
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln").Input(kF, {1, 4, 4, 4}).Input(kF, {2, 4, 1}).Run();
      },
      {"input 'W'", "rank 4"});
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln")
            .Input(kF, {1, 4, 4, 4})
            .Input(kF, {2, 4, 1, 1})
            .MissingInput()
            .Input(kF, {1, 4, 4, 3})
            .Run();
      },
      {"input 'Z'"});
  ExpectFail(
      [] {
        RuleTest("NhwcConv", 1, "ai.kiln")
            .Attr("group", 2)
            .Input(kF, {1, 4, 4, 4})
            .Input(kF, {3, 2, 1, 1})
            .Run();
      },
      {"attribute 'group'"});
}

TEST(InferNhwc, PoolShapes) {
  auto max = RuleTest("NhwcMaxPool", 1, "ai.kiln")
                 .Attr("kernel_shape", V{3, 3})
                 .Attr("strides", V{2, 2})
                 .Attr("pads", V{1, 1, 1, 1})
                 .Input(kF, {1, 112, 112, 64})
                 .Run();
  EXPECT_EQ(Dims(max[0]), (V{1, 56, 56, 64}));
  auto avg = RuleTest("NhwcAveragePool", 1, "ai.kiln")
                 .Attr("kernel_shape", V{3, 3})
                 .Attr("strides", V{2, 2})
                 .Attr("ceil_mode", 1)
                 .Input(kF, {2, 8, 10, 3})
                 .Run();
  EXPECT_EQ(Dims(avg[0]), (V{2, 4, 5, 3}));
  auto global = RuleTest("NhwcGlobalAveragePool", 1, "ai.kiln").Input(kF, {2, 7, 7, 960}).Run();
  EXPECT_EQ(Dims(global[0]), (V{2, 1, 1, 960}));
  auto global_max = RuleTest("NhwcGlobalMaxPool", 1, "ai.kiln").UnknownRankInput(kF).Run();
  EXPECT_EQ(Dims(global_max[0]), (V{-1, 1, 1, -1}));
  ExpectFail(
      [] {
        RuleTest("NhwcMaxPool", 1, "ai.kiln").Input(kF, {1, 4, 4, 1}).Run();
      },
      {"attribute 'kernel_shape'"});
  ExpectFail(
      [] {
        RuleTest("NhwcAveragePool", 1, "ai.kiln")
            .Attr("kernel_shape", V{2, 2})
            .Input(kF, {1, 4, 4})
            .Run();
      },
      {"input 'X'", "rank 4"});
  ExpectFail(
      [] {
        RuleTest("NhwcGlobalMaxPool", 1, "ai.kiln").Input(kF, {1, 4}).Run();
      },
      {"input 'X'"});
}

TEST(InferNhwc, FusedConvIsConvWithZ) {
  auto out = RuleTest("FusedConv", 1, "com.microsoft")
                 .Attr("pads", V{1, 1, 1, 1})
                 .Attr("activation", "Relu")
                 .Input(kF, {1, 3, 32, 31})
                 .Input(kF, {8, 3, 3, 3})
                 .Input(kF, {8})
                 .Input(kF, {1, 8, 32, 31})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 8, 32, 31}));
  ExpectFail(
      [] {
        RuleTest("FusedConv", 1, "com.microsoft")
            .Input(kF, {1, 3, 8, 8})
            .Input(kF, {8, 3, 3, 3})
            .MissingInput()
            .Input(kF, {1, 8, 8, 8})
            .Run();
      },
      {"input 'Z'"});
  ExpectFail(
      [] {
        RuleTest("FusedConv", 1, "com.microsoft")
            .Input(kF, {1, 4, 8, 8})
            .Input(kF, {8, 3, 3, 3})
            .Run();
      },
      {"input 'W'"});
}

}  // namespace
}  // namespace kiln::infer::testing
