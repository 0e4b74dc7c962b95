// Inference rules of the quantization ops.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kU8 = DataType::kUint8;
constexpr DataType kI8 = DataType::kInt8;

TEST(InferQuantizeLinear, TypeFromZeroPointAttributeOrDefault) {
  auto zp = RuleTest("QuantizeLinear", 13).Input(kF, {2, -1}).Input(kF, {}).Input(kI8, {}).Run();
  EXPECT_EQ(zp[0].type, kI8);
  EXPECT_EQ(Dims(zp[0]), (V{2, -1}));
  auto attr = RuleTest("QuantizeLinear", 21)
                  .Attr("output_dtype", int64_t{22})
                  .Input(kF, {3})
                  .Input(kF, {})
                  .Run();
  EXPECT_EQ(attr[0].type, DataType::kInt4);
  auto plain = RuleTest("QuantizeLinear", 10).Input(kF, {3}).Input(kF, {}).Run();
  EXPECT_EQ(plain[0].type, kU8);
}

TEST(InferDequantizeLinear, ScaleTypeOrOutputDtype) {
  auto out = RuleTest("DequantizeLinear", 19).Input(kU8, {4}).Input(DataType::kFloat16, {}).Run();
  EXPECT_EQ(out[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(out[0]), (V{4}));
  auto typed = RuleTest("DequantizeLinear", 23)
                   .Attr("output_dtype", int64_t{11})
                   .Input(kU8, {4})
                   .Input(kF, {})
                   .Run();
  EXPECT_EQ(typed[0].type, DataType::kDouble);
}

TEST(InferDynamicQuantizeLinear, ThreeOutputs) {
  auto out = RuleTest("DynamicQuantizeLinear", 11).Outputs(3).Input(kF, {2, 3}).Run();
  EXPECT_EQ(out[0].type, kU8);
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
  EXPECT_EQ(out[1].type, kF);
  EXPECT_EQ(Dims(out[1]), (V{}));
  EXPECT_EQ(out[2].type, kU8);
}

TEST(InferQLinearMatMul, MatMulShapeAndZeroPointType) {
  auto out = RuleTest("QLinearMatMul", 10)
                 .Input(kI8, {2, 3, 4})
                 .Input(kF, {})
                 .Input(kI8, {})
                 .Input(kI8, {4, 5})
                 .Input(kF, {})
                 .Input(kI8, {})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Run();
  EXPECT_EQ(out[0].type, kU8);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 5}));
}

TEST(InferConvInteger, ConvShapes) {
  auto out = RuleTest("ConvInteger", 10)
                 .Attr("pads", V{1, 1, 1, 1})
                 .Input(kU8, {1, 1, 3, 3})
                 .Input(kU8, {2, 1, 2, 2})
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kInt32);
  EXPECT_EQ(Dims(out[0]), (V{1, 2, 4, 4}));
  auto q = RuleTest("QLinearConv", 10)
               .Input(kU8, {1, 1, 7, 7})
               .Input(kF, {})
               .Input(kU8, {})
               .Input(kI8, {4, 1, 3, 3})
               .Input(kF, {4})
               .Input(kI8, {4})
               .Input(kF, {})
               .Input(kU8, {})
               .Run();
  EXPECT_EQ(q[0].type, kU8);
  EXPECT_EQ(Dims(q[0]), (V{1, 4, 5, 5}));
}

}  // namespace
}  // namespace kiln::infer::testing
