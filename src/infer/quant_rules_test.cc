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

// com.microsoft's quantized ops.
constexpr const char* kMs = "com.microsoft";

TEST(InferQLinearConv, MicrosoftFormInBothLayouts) {
  for (int64_t channels_last : {0, 1}) {
    auto q = RuleTest("QLinearConv", 1, kMs)
                 .Attr("channels_last", channels_last)
                 .Input(kU8, channels_last != 0 ? V{1, 7, 7, 2} : V{1, 2, 7, 7})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Input(kI8, {4, 2, 3, 3})
                 .Input(kF, {4})
                 .Input(kI8, {4})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Run();
    EXPECT_EQ(q[0].type, kU8);
    EXPECT_EQ(Dims(q[0]), channels_last != 0 ? (V{1, 5, 5, 4}) : (V{1, 4, 5, 5}));
  }
  auto pool = RuleTest("NhwcMaxPool", 1, kMs)
                  .Attr("kernel_shape", V{2, 2})
                  .Attr("strides", V{2, 2})
                  .Input(kI8, {1, 8, 6, 3})
                  .Run();
  EXPECT_EQ(pool[0].type, kI8);
  EXPECT_EQ(Dims(pool[0]), (V{1, 4, 3, 3}));
}

TEST(InferQGemm, ShapeAndOutputType) {
  auto q = RuleTest("QGemm", 1, kMs)
               .Attr("transA", int64_t{1})
               .Input(kU8, {5, 3})
               .Input(kF, {})
               .Input(kU8, {})
               .Input(kI8, {5, 7})
               .Input(kF, {})
               .Input(kI8, {})
               .MissingInput()
               .Input(kF, {})
               .Input(kU8, {})
               .Run();
  EXPECT_EQ(q[0].type, kU8);
  EXPECT_EQ(Dims(q[0]), (V{3, 7}));
  auto f = RuleTest("QGemm", 1, kMs)
               .Attr("transB", int64_t{1})
               .Input(kI8, {2, 4})
               .Input(kF, {})
               .Input(kI8, {})
               .Input(kI8, {6, 4})
               .Input(kF, {})
               .Run();
  EXPECT_EQ(f[0].type, kF);
  EXPECT_EQ(Dims(f[0]), (V{2, 6}));
  EXPECT_THROW(RuleTest("QGemm", 1, kMs)
                   .Input(kU8, {2, 4})
                   .Input(kF, {})
                   .Input(kU8, {})
                   .Input(kI8, {3, 4})
                   .Input(kF, {})
                   .Run(),
               Error);
}

TEST(InferGatherBlockQuantized, GatherShapeOfUnpackedDataInScalesType) {
  // uint8 4-bit [V, H/2] → [indices..., H]; scales' type.
  auto four = RuleTest("GatherBlockQuantized", 1, kMs)
                  .Input(kU8, {100, 16})
                  .Input(DataType::kInt64, {2, -1})
                  .Input(DataType::kFloat16, {100, 1})
                  .Run();
  EXPECT_EQ(four[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(four[0]), (V{2, -1, 32}));
  auto eight = RuleTest("GatherBlockQuantized", 1, kMs)
                   .Attr("bits", int64_t{8})
                   .Input(kU8, {100, 16})
                   .Input(DataType::kInt32, {3})
                   .Input(kF, {100, 1})
                   .Run();
  EXPECT_EQ(Dims(eight[0]), (V{3, 16}));
  // int4 holds its logical shape; gathered along axis 1 (-1).
  auto int4 = RuleTest("GatherBlockQuantized", 1, kMs)
                  .Attr("gather_axis", int64_t{-1})
                  .Attr("quantize_axis", int64_t{0})
                  .Input(DataType::kInt4, {40, 6})
                  .Input(DataType::kInt64, {})
                  .Input(kF, {3, 6})
                  .Run();
  EXPECT_EQ(Dims(int4[0]), (V{40}));
  EXPECT_THROW(RuleTest("GatherBlockQuantized", 1, kMs)
                   .Attr("gather_axis", int64_t{2})
                   .Input(kU8, {100, 16})
                   .Input(DataType::kInt64, {1})
                   .Input(kF, {100, 1})
                   .Run(),
               Error);
}

TEST(InferQLinearContrib, ElementwisePoolingAndConcat) {
  auto add = RuleTest("QLinearAdd", 1, kMs)
                 .Input(kI8, {2, 1, 4})
                 .Input(kF, {})
                 .Input(kI8, {})
                 .Input(kI8, {3, 1})
                 .Input(kF, {})
                 .Input(kI8, {})
                 .Input(kF, {})
                 .Input(kI8, {})
                 .Run();
  EXPECT_EQ(add[0].type, kI8);
  EXPECT_EQ(Dims(add[0]), (V{2, 3, 4}));
  auto sig = RuleTest("QLinearSigmoid", 1, kMs).Input(kU8, {2, -1}).Input(kF, {}).Run();
  EXPECT_EQ(Dims(sig[0]), (V{2, -1}));
  auto gap = RuleTest("QLinearGlobalAveragePool", 1, kMs)
                 .Attr("channels_last", int64_t{1})
                 .Input(kU8, {1, 7, 7, 32})
                 .Run();
  EXPECT_EQ(Dims(gap[0]), (V{1, 1, 1, 32}));
  auto pool = RuleTest("QLinearAveragePool", 1, kMs)
                  .Attr("kernel_shape", V{3, 3})
                  .Attr("strides", V{2, 2})
                  .Attr("pads", V{1, 1, 1, 1})
                  .Attr("ceil_mode", int64_t{1})
                  .Input(kU8, {1, 8, 10, 10})
                  .Run();
  EXPECT_EQ(Dims(pool[0]), (V{1, 8, 6, 6}));
  auto last = RuleTest("QLinearAveragePool", 1, kMs)
                  .Attr("kernel_shape", V{2, 2})
                  .Attr("strides", V{2, 2})
                  .Attr("channels_last", int64_t{1})
                  .Input(kU8, {1, 10, 8, 3})
                  .Run();
  EXPECT_EQ(Dims(last[0]), (V{1, 5, 4, 3}));
  auto cat = RuleTest("QLinearConcat", 1, kMs)
                 .Attr("axis", int64_t{1})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Input(kU8, {2, 3, 4})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Input(kU8, {2, 5, 4})
                 .Input(kF, {})
                 .Input(kU8, {})
                 .Run();
  EXPECT_EQ(cat[0].type, kU8);
  EXPECT_EQ(Dims(cat[0]), (V{2, 8, 4}));
}

}  // namespace
}  // namespace kiln::infer::testing
