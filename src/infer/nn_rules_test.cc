// Inference rules of Conv, ConvTranspose, the pooling ops and BatchNormalization.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferConv, StridesAndPads) {
  auto out = RuleTest("Conv", 11)
                 .Attr("strides", V{2, 2})
                 .Attr("pads", V{1, 1, 1, 1})
                 .Input(kF, {1, 3, 32, 31})
                 .Input(kF, {8, 3, 3, 3})
                 .Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{1, 8, 16, 16}));
}

TEST(InferConv, DilationsGroupsAndAutoPad) {
  auto dilated = RuleTest("Conv", 11)
                     .Attr("dilations", V{2})
                     .Attr("group", 2)
                     .Input(kF, {1, 4, 10})
                     .Input(kF, {6, 2, 3})
                     .Run();
  EXPECT_EQ(Dims(dilated[0]), (V{1, 6, 6}));
  auto same = RuleTest("Conv", 11)
                  .Attr("auto_pad", "SAME_UPPER")
                  .Attr("strides", V{2, 2})
                  .Input(kF, {-1, 3, 7, -1})
                  .Input(kF, {8, 3, 3, 3})
                  .Run();
  EXPECT_EQ(Dims(same[0]), (V{-1, 8, 4, -1}));
}

TEST(InferConv, UnknownWeightsUseKernelShape) {
  auto out = RuleTest("Conv", 11)
                 .Attr("kernel_shape", V{3, 3})
                 .Input(kF, {1, 3, 8, 8})
                 .UnknownRankInput(kF)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, -1, 6, 6}));
  EXPECT_FALSE(RuleTest("Conv", 11).UnknownRankInput(kF).UnknownRankInput(kF).Run()[0].shape);
}

TEST(InferConv, FailsOnContradictions) {
  ExpectFail(
      [] {
        RuleTest("Conv", 11).Input(kF, {1, 4, 8}).Input(kF, {2, 3, 3}).Run();
      },
      {"input 'W'", "input channels per group"});
  ExpectFail(
      [] {
        RuleTest("Conv", 11).Input(kF, {1, 3, 2}).Input(kF, {2, 3, 3}).Run();
      },
      {"kernel extent 3", "input 'X'"});
  ExpectFail(
      [] {
        RuleTest("Conv", 11).Input(kF, {1, 3}).Input(kF, {2, 3, 3}).Run();
      },
      {"input 'X'", "rank 3 or more"});
  ExpectFail(
      [] {
        RuleTest("Conv", 11).Attr("group", 2).Input(kF, {1, 3, 8}).Input(kF, {2, 1, 3}).Run();
      },
      {"input 'X' has 3 channels"});
  ExpectFail(
      [] {
        RuleTest("Conv", 11).Attr("strides", V{0}).Input(kF, {1, 3, 8}).Input(kF, {2, 3, 3}).Run();
      },
      {"attribute 'strides'", "positive"});
}

TEST(InferConvTranspose, OutputSizes) {
  auto plain = RuleTest("ConvTranspose", 11)
                   .Attr("strides", V{2, 2})
                   .Input(kF, {1, 2, 3, 3})
                   .Input(kF, {2, 4, 3, 3})
                   .Run();
  EXPECT_EQ(Dims(plain[0]), (V{1, 4, 7, 7}));
  auto padded = RuleTest("ConvTranspose", 11)
                    .Attr("strides", V{2, 2})
                    .Attr("output_padding", V{1, 0})
                    .Attr("pads", V{1, 1, 1, 1})
                    .Attr("group", 2)
                    .Input(kF, {1, 2, 3, 3})
                    .Input(kF, {2, 4, 3, 3})
                    .Run();
  EXPECT_EQ(Dims(padded[0]), (V{1, 8, 6, 5}));
  auto shaped = RuleTest("ConvTranspose", 11)
                    .Attr("strides", V{2, 2})
                    .Attr("output_shape", V{10, 9})
                    .Input(kF, {1, 2, 3, 3})
                    .Input(kF, {2, 4, 3, 3})
                    .Run();
  EXPECT_EQ(Dims(shaped[0]), (V{1, 4, 10, 9}));
  auto same = RuleTest("ConvTranspose", 11)
                  .Attr("strides", V{3})
                  .Attr("auto_pad", "SAME_LOWER")
                  .Input(kF, {1, 2, 5})
                  .Input(kF, {2, 1, 4})
                  .Run();
  EXPECT_EQ(Dims(same[0]), (V{1, 1, 15}));
}

TEST(InferConvTranspose, FailsOnContradictions) {
  ExpectFail(
      [] {
        RuleTest("ConvTranspose", 11).Input(kF, {1, 2, 3}).Input(kF, {3, 4, 3}).Run();
      },
      {"input 'W'", "input channels"});
  ExpectFail(
      [] {
        RuleTest("ConvTranspose", 11)
            .Attr("output_padding", V{1})
            .Input(kF, {1, 2, 3})
            .Input(kF, {2, 4, 3})
            .Run();
      },
      {"attribute 'output_padding'"});
  ExpectFail(
      [] {
        RuleTest("ConvTranspose", 11)
            .Attr("pads", V{2, 2})
            .Input(kF, {1, 2, 1})
            .Input(kF, {2, 4, 3})
            .Run();
      },
      {"attribute 'pads' leaves no output"});
}

TEST(InferMaxPool, CeilModeAndIndices) {
  auto out = RuleTest("MaxPool", 12)
                 .Attr("kernel_shape", V{2, 2})
                 .Attr("strides", V{2, 2})
                 .Attr("ceil_mode", 1)
                 .Input(kF, {1, 3, 5, 4})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 3, 3, 2}));
  EXPECT_EQ(out[1].type, DataType::kInt64);
  EXPECT_EQ(Dims(out[1]), (V{1, 3, 3, 2}));
  // ceil_mode does not exist before opset 10.
  auto old = RuleTest("MaxPool", 8)
                 .Attr("kernel_shape", V{2})
                 .Attr("strides", V{2})
                 .Attr("ceil_mode", 1)
                 .Input(kF, {1, 3, 5})
                 .Run();
  EXPECT_EQ(Dims(old[0]), (V{1, 3, 2}));
}

TEST(InferAveragePool, DilationsOnlyFromOpset19) {
  auto with = RuleTest("AveragePool", 19)
                  .Attr("kernel_shape", V{3})
                  .Attr("dilations", V{2})
                  .Input(kF, {1, 1, 7})
                  .Run();
  EXPECT_EQ(Dims(with[0]), (V{1, 1, 3}));
  auto without = RuleTest("AveragePool", 11)
                     .Attr("kernel_shape", V{3})
                     .Attr("dilations", V{2})
                     .Input(kF, {1, 1, 7})
                     .Run();
  EXPECT_EQ(Dims(without[0]), (V{1, 1, 5}));
}

TEST(InferLpPool, UnknownInputKeepsRank) {
  auto out = RuleTest("LpPool", 18).Attr("kernel_shape", V{2, 2}).UnknownRankInput(kF).Run();
  EXPECT_EQ(Dims(out[0]), (V{-1, -1, -1, -1}));
  ExpectFail(
      [] {
        RuleTest("LpPool", 18).Input(kF, {1, 1, 4}).Run();
      },
      {"attribute 'kernel_shape' is required"});
}

TEST(InferGlobalAveragePool, OnesForSpatialAxes) {
  auto out = RuleTest("GlobalMaxPool", 1).Input(kF, {2, 3, -1, 7}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 1, 1}));
  ExpectFail([] { RuleTest("GlobalAveragePool", 1).Input(kF, {2}).Run(); }, {"input 'X'"});
}

TEST(InferBatchNormalization, OutputsAndTrainingStatistics) {
  auto out = RuleTest("BatchNormalization", 15)
                 .Input(DataType::kFloat16, {2, 3, 4})
                 .Input(DataType::kFloat16, {3})
                 .Input(DataType::kFloat16, {3})
                 .Input(kF, {3})
                 .Input(kF, {3})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  EXPECT_EQ(out[1].type, kF);
  EXPECT_EQ(Dims(out[1]), (V{3}));
  auto old =
      RuleTest("BatchNormalization", 6).Attr("spatial", 0).Input(kF, {2, 3, 4}).Outputs(5).Run();
  EXPECT_FALSE(old[1].shape.has_value());
}

TEST(InferLstm, OutputsInBothLayouts) {
  auto out = RuleTest("LSTM", 14)
                 .Attr("hidden_size", 5)
                 .Attr("direction", "bidirectional")
                 .Input(kF, {7, 2, 3})
                 .Input(kF, {2, 20, 3})
                 .Input(kF, {2, 20, 5})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{7, 2, 2, 5}));
  EXPECT_EQ(Dims(out[1]), (V{2, 2, 5}));
  EXPECT_EQ(Dims(out[2]), (V{2, 2, 5}));
  auto batch_first = RuleTest("GRU", 14)
                         .Attr("layout", 1)
                         .Input(kF, {2, 7, 3})
                         .Input(kF, {1, 12, 3})
                         .Input(kF, {1, 12, 4})
                         .Outputs(2)
                         .Run();
  EXPECT_EQ(Dims(batch_first[0]), (V{2, 7, 1, 4}));
  EXPECT_EQ(Dims(batch_first[1]), (V{2, 1, 4}));
  ExpectFail([] { RuleTest("RNN", 14).Input(kF, {7, 3}).Outputs(2).Run(); }, {"input 'X'"});
}

// com.microsoft's: W [dirs, input, 4·hidden] and R [dirs, hidden, 4·hidden] 8-bit; hidden_size
// from R's middle axis when the attribute is left out.
TEST(InferDynamicQuantizeLstm, OutputsWithHiddenSizeFromR) {
  auto out = RuleTest("DynamicQuantizeLSTM", 1, "com.microsoft")
                 .Attr("direction", "bidirectional")
                 .Input(kF, {7, 2, 3})
                 .Input(DataType::kInt8, {2, 3, 20})
                 .Input(DataType::kInt8, {2, 5, 20})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{7, 2, 2, 5}));
  EXPECT_EQ(Dims(out[1]), (V{2, 2, 5}));
  EXPECT_EQ(Dims(out[2]), (V{2, 2, 5}));
  auto attr = RuleTest("DynamicQuantizeLSTM", 1, "com.microsoft")
                  .Attr("hidden_size", 4)
                  .Input(kF, {7, -1, 3})
                  .Input(DataType::kUint8, {1, 3, 16})
                  .Input(DataType::kUint8, {1, 4, 16})
                  .Outputs(2)
                  .Run();
  EXPECT_EQ(Dims(attr[0]), (V{7, 1, -1, 4}));
  EXPECT_EQ(Dims(attr[1]), (V{1, -1, 4}));
  EXPECT_EQ(FindRule("", "DynamicQuantizeLSTM"), nullptr);
  ExpectFail(
      [] {
        RuleTest("DynamicQuantizeLSTM", 1, "com.microsoft").Input(kF, {7, 3}).Run();
      },
      {"input 'X'"});
}

}  // namespace
}  // namespace kiln::infer::testing
