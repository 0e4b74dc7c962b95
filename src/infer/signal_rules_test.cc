// Inference rules of DFT, STFT, the windows, MelWeightMatrix and Det.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferDft, AxisLengthOnesidedAndInverseReal) {
  auto out = RuleTest("DFT", 17).Attr("axis", int64_t{1}).Input(kF, {1, 10, 10, 1}).Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 10, 10, 2}));
  auto half = RuleTest("DFT", 20)
                  .Attr("onesided", int64_t{1})
                  .Input(kF, {1, 10, 10, 1})
                  .ConstInput<int64_t>({}, {8})
                  .ConstInput<int64_t>({}, {1})
                  .Run();
  EXPECT_EQ(Dims(half[0]), (V{1, 5, 10, 2}));
  auto irfft = RuleTest("DFT", 20)
                   .Attr("inverse", int64_t{1})
                   .Attr("onesided", int64_t{1})
                   .Input(kF, {1, 6, 10, 2})
                   .MissingInput()
                   .ConstInput<int64_t>({}, {1})
                   .Run();
  EXPECT_EQ(Dims(irfft[0]), (V{1, 10, 10, 1}));
  auto unknown_axis =
      RuleTest("DFT", 20).Input(kF, {1, 6, 10, 2}).MissingInput().Input(DataType::kInt64, {}).Run();
  EXPECT_EQ(Dims(unknown_axis[0]), (V{-1, -1, -1, 2}));
}

TEST(InferDft, Errors) {
  EXPECT_THROW(RuleTest("DFT", 17).Attr("axis", int64_t{2}).Input(kF, {1, 4, 1}).Run(), Error);
  EXPECT_THROW(RuleTest("DFT", 17).Input(kF, {4}).Run(), Error);
}

TEST(InferStft, FramesAndBins) {
  auto out = RuleTest("STFT", 17)
                 .Input(kF, {1, 128, 1})
                 .ConstInput<int64_t>({}, {8})
                 .MissingInput()
                 .ConstInput<int64_t>({}, {16})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 15, 9, 2}));
  auto window =
      RuleTest("STFT", 17).Input(kF, {1, 128, 1}).Input(DataType::kInt64, {}).Input(kF, {16}).Run();
  EXPECT_EQ(Dims(window[0]), (V{1, -1, 9, 2}));
}

TEST(InferWindows, SizeAndType) {
  auto out = RuleTest("HannWindow", 17).ConstInput<int32_t>({}, {10}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{10}));
  auto dbl = RuleTest("BlackmanWindow", 17)
                 .Attr("output_datatype", int64_t{11})
                 .Input(DataType::kInt32, {})
                 .Run();
  EXPECT_EQ(dbl[0].type, DataType::kDouble);
  EXPECT_EQ(Dims(dbl[0]), (V{-1}));
  auto mel = RuleTest("MelWeightMatrix", 17)
                 .ConstInput<int32_t>({}, {8})
                 .ConstInput<int32_t>({}, {16})
                 .Input(DataType::kInt32, {})
                 .Input(kF, {})
                 .Input(kF, {})
                 .Run();
  EXPECT_EQ(Dims(mel[0]), (V{9, 8}));
}

TEST(InferDet, LeadingDimensions) {
  auto out = RuleTest("Det", 11).Input(kF, {3, 2, 2}).Run();
  EXPECT_EQ(Dims(out[0]), (V{3}));
  EXPECT_THROW(RuleTest("Det", 11).Input(kF, {2, 3}).Run(), Error);
}

}  // namespace
}  // namespace kiln::infer::testing
