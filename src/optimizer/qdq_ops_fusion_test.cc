// qdq_ops_fusion (and qdq_fusion's Clip): QDQ graphs of each op at level 2 — the ops the graph
// has afterwards, and its outputs against the unfused graph run at level 0, within one step of
// the output's quantization (exactly for the ops carried through on the quantized tensor).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer::testing {
namespace {

// A scalar zero point of `type`.
ir::Value* Zero(GraphBuilder& b, DataType type, int v) {
  auto t = Tensor::Allocate(type, Shape(std::vector<int64_t>{}), CpuAllocator());
  if (type == DataType::kInt8) {
    *static_cast<int8_t*>(t->data()) = static_cast<int8_t>(v);
  } else {
    *static_cast<uint8_t*>(t->data()) = static_cast<uint8_t>(v);
  }
  return b.Const(std::move(t));
}

// The float x quantized with (s, z) of `type` and dequantized again: the QDQ pair before a node.
ir::Value* Qdq(GraphBuilder& b, ir::Value* x, float s, DataType type, int z) {
  ir::Value* q = b.Op("QuantizeLinear", {x, b.Floats({}, {s}), Zero(b, type, z)});
  return b.Op("DequantizeLinear", {q, b.Floats({}, {s}), Zero(b, type, z)});
}

struct UnaryCase {
  std::string op;
  std::vector<ir::Attribute> attrs;
  std::string fused;  // the op after fusion; the op itself when it is carried through
  float out_scale;    // the output's Q/DQ scale (the input's is 0.01)
  int out_zero;       // as a uint8 value (int8: less 128)
};

// x [1, 4, 6, 6] quantized (0.01, 128 / 0), op, quantized with (out_scale, out_zero), dequantized.
ir::Model UnaryModel(const UnaryCase& c, DataType type) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 4, 6, 6});
  const int shift = type == DataType::kInt8 ? 128 : 0;
  ir::Value* xf = Qdq(b, x, 0.01f, type, 128 - shift);
  std::vector<ir::Value*> in = {xf};
  if (c.op == "Reshape") in.push_back(b.Ints({2}, {4, 36}));
  ir::Value* y = b.Op(c.op, in, c.attrs);
  b.Output(Qdq(b, y, c.out_scale, type, c.out_zero - shift));
  return b.Model();
}

TEST(QdqOpsFusion, UnaryOpsBecomeTheirQuantizedFormsWithinOneStep) {
  const std::vector<UnaryCase> cases = {
      {"Sigmoid", {}, "com.microsoft.QLinearSigmoid", 1.0f / 256, 0},
      {"LeakyRelu", {FloatAttr("alpha", 0.2f)}, "com.microsoft.QLinearLeakyRelu", 0.009f, 100},
      {"GlobalAveragePool", {}, "com.microsoft.QLinearGlobalAveragePool", 0.003f, 128},
      {"AveragePool",
       {IntsAttr("kernel_shape", {3, 3}), IntsAttr("pads", {1, 1, 1, 1}),
        IntsAttr("strides", {2, 2})},
       "com.microsoft.QLinearAveragePool",
       0.004f,
       120},
  };
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    for (const UnaryCase& c : cases) {
      SCOPED_TRACE(c.op + (type == DataType::kInt8 ? " int8" : " uint8"));
      const OpCounts after = OpsAfter(UnaryModel(c, type), 2);
      EXPECT_EQ(after.count(c.op), 0u);
      EXPECT_EQ(after.count(c.fused), 1u);
      EXPECT_EQ(after.at("QuantizeLinear"), 1);  // the input's
      ExpectSameOutputs([&] { return UnaryModel(c, type); }, 2, 0.0f, c.out_scale * 1.001f);
    }
  }
}

TEST(QdqOpsFusion, MovingOpsRunOnTheQuantizedTensorExactly) {
  const std::vector<UnaryCase> cases = {
      {"MaxPool",
       {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2})},
       "MaxPool",
       0.01f,
       128},
      {"Transpose", {IntsAttr("perm", {0, 2, 3, 1})}, "Transpose", 0.01f, 128},
      {"Reshape", {}, "Reshape", 0.01f, 128},
      {"Relu", {}, "", 0.01f, 0},  // zero point the least value: Relu is the identity
  };
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    for (UnaryCase c : cases) {
      // Relu's input and output share (0.01, least value); the others (0.01, 128).
      SCOPED_TRACE(c.op + (type == DataType::kInt8 ? " int8" : " uint8"));
      auto build = [&] {
        GraphBuilder b;
        ir::Value* x = b.Input("x", {1, 4, 6, 6});
        const int shift = type == DataType::kInt8 ? 128 : 0;
        ir::Value* xf = Qdq(b, x, 0.01f, type, c.out_zero - shift);
        std::vector<ir::Value*> in = {xf};
        if (c.op == "Reshape") in.push_back(b.Ints({2}, {4, 36}));
        b.Output(Qdq(b, b.Op(c.op, in, c.attrs), 0.01f, type, c.out_zero - shift));
        return b.Model();
      };
      const OpCounts after = OpsAfter(build(), 2);
      EXPECT_EQ(after.at("QuantizeLinear"), 1);
      EXPECT_EQ(after.at("DequantizeLinear"), 1);
      if (!c.fused.empty()) {
        EXPECT_EQ(after.at(c.fused), 1);
      }
      ExpectSameOutputs(build, 2, 0.0f, 0.0f);
    }
  }
  // Different parameters on the two sides: the MaxPool stays between its DQ and Q.
  auto differ = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {1, 4, 6, 6});
    ir::Value* xf = Qdq(b, x, 0.01f, DataType::kUint8, 128);
    ir::Value* y = b.Op("MaxPool", {xf}, {IntsAttr("kernel_shape", {2, 2})});
    b.Output(Qdq(b, y, 0.02f, DataType::kUint8, 128));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(differ(), 2).at("QuantizeLinear"), 2);
}

// x and y quantized, op(x, y) [→ Relu] quantized and dequantized: a residual block's end.
ir::Model BinaryModel(const std::string& op, bool relu, DataType type, int out_zero) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 3, 5});
  ir::Value* y = b.Input("y", {3, 1});
  const int shift = type == DataType::kInt8 ? 128 : 0;
  ir::Value* s =
      b.Op(op, {Qdq(b, x, 0.01f, type, 120 - shift), Qdq(b, y, 0.02f, type, 130 - shift)});
  if (relu) s = b.Op("Relu", {s});
  b.Output(Qdq(b, s, 0.015f, type, out_zero - shift));
  return b.Model();
}

TEST(QdqOpsFusion, AddAndMulBecomeQLinearOpsTakingAnImpliedRelu) {
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    for (const std::string op : {"Add", "Mul"}) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(op + (relu ? " relu" : "") + (type == DataType::kInt8 ? " int8" : ""));
        const int zero = relu ? 0 : 128;  // the least value with a Relu
        const OpCounts after = OpsAfter(BinaryModel(op, relu, type, zero), 2);
        EXPECT_EQ(after.at("com.microsoft.QLinear" + op), 1);
        EXPECT_EQ(after.count(op), 0u);
        EXPECT_EQ(after.count("Relu"), 0u);
        ExpectSameOutputs([&] { return BinaryModel(op, relu, type, zero); }, 2, 0.0f, 0.0151f);
      }
    }
  }
  // A Relu the saturation would not apply (zero point 128) keeps the Add in float.
  const OpCounts kept = OpsAfter(BinaryModel("Add", true, DataType::kUint8, 128), 2);
  EXPECT_EQ(kept.count("com.microsoft.QLinearAdd"), 0u);
  EXPECT_EQ(kept.at("Relu"), 1);
  ExpectSameOutputs([&] { return BinaryModel("Add", true, DataType::kUint8, 128); }, 2, 0.0f,
                    1e-6f);
}

ir::Model ConcatModel(DataType type) {
  GraphBuilder b;
  const int shift = type == DataType::kInt8 ? 128 : 0;
  ir::Value* a = Qdq(b, b.Input("a", {1, 2, 4}), 0.01f, type, 128 - shift);
  ir::Value* c = Qdq(b, b.Input("c", {1, 3, 4}), 0.02f, type, 100 - shift);
  ir::Value* y = b.Op("Concat", {a, c}, {IntAttr("axis", 1)});
  b.Output(Qdq(b, y, 0.01f, type, 128 - shift));
  return b.Model();
}

TEST(QdqOpsFusion, ConcatBecomesQLinearConcat) {
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    const OpCounts after = OpsAfter(ConcatModel(type), 2);
    EXPECT_EQ(after.at("com.microsoft.QLinearConcat"), 1);
    EXPECT_EQ(after.count("Concat"), 0u);
    // Requantizing c to a's parameters rounds once, as the float chain does: the same values.
    ExpectSameOutputs([&] { return ConcatModel(type); }, 2, 0.0f, 1e-6f);
  }
}

struct GemmCase {
  bool trans_b;
  bool per_column;
  bool bias;
  bool quantized;  // a QuantizeLinear after the Gemm
};

// a [3, 20] quantized, an int8 weight (per tensor or per column) and an int32 bias in QDQ form.
ir::Model GemmModel(const GemmCase& c) {
  GraphBuilder b;
  ir::Value* a = Qdq(b, b.Input("a", {3, 20}), 0.01f, DataType::kUint8, 128);
  const int64_t n = 6;
  std::vector<float> ws(c.per_column ? n : 1);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = 0.003f + 0.001f * static_cast<float>(i);
  const std::vector<int64_t> ws_dims =
      c.per_column ? std::vector<int64_t>{n} : std::vector<int64_t>{};
  ir::Value* w = b.Op(
      "DequantizeLinear",
      {b.Const(Bytes(DataType::kInt8,
                     c.trans_b ? std::vector<int64_t>{n, 20} : std::vector<int64_t>{20, n}, 3)),
       b.Floats(ws_dims, ws)},
      {IntAttr("axis", c.trans_b ? 0 : 1)});
  std::vector<ir::Value*> in = {a, w};
  if (c.bias) {
    std::vector<float> bs(ws.size());
    for (size_t i = 0; i < ws.size(); ++i) bs[i] = 0.01f * ws[i];
    in.push_back(b.Op("DequantizeLinear",
                      {b.Const(Int32s({100, -50, 7, 0, 900, -300})), b.Floats(ws_dims, bs)},
                      {IntAttr("axis", 0)}));
  }
  ir::Value* y = b.Op("Gemm", in, {IntAttr("transB", c.trans_b ? 1 : 0)});
  b.Output(c.quantized ? Qdq(b, y, 0.02f, DataType::kUint8, 128) : y);
  return b.Model();
}

TEST(QdqOpsFusion, GemmBecomesQGemmQuantizedOrFloat) {
  const GemmCase cases[] = {
      {false, false, true, true}, {true, true, true, true},     {false, true, false, true},
      {true, true, true, false},  {false, false, false, false},
  };
  for (const GemmCase& c : cases) {
    SCOPED_TRACE("transB " + std::to_string(c.trans_b) + " per column " +
                 std::to_string(c.per_column) + " bias " + std::to_string(c.bias) + " quantized " +
                 std::to_string(c.quantized));
    const OpCounts after = OpsAfter(GemmModel(c), 2);
    EXPECT_EQ(after.at("com.microsoft.QGemm"), 1);
    EXPECT_EQ(after.count("Gemm"), 0u);
    EXPECT_EQ(after.at("QuantizeLinear"), 1);
    // One step of y's quantization (0.02) quantized; float rounding otherwise.
    if (c.quantized) {
      ExpectSameOutputs([&] { return GemmModel(c); }, 2, 0.0f, 0.0201f);
    } else {
      ExpectSameOutputs([&] { return GemmModel(c); }, 2, 1e-5f, 1e-6f);
    }
  }
}

ir::Model MatMulToFloatModel(bool per_column) {
  GraphBuilder b;
  ir::Value* a = Qdq(b, b.Input("a", {2, 3, 16}), 0.01f, DataType::kUint8, 128);
  std::vector<float> ws(per_column ? 5 : 1, 0.004f);
  if (per_column) ws[3] = 0.007f;
  ir::Value* w =
      b.Op("DequantizeLinear",
           {b.Const(Bytes(DataType::kInt8, {16, 5}, 11)),
            b.Floats(per_column ? std::vector<int64_t>{5} : std::vector<int64_t>{}, ws)});
  b.Output(b.Op("MatMul", {a, w}));
  return b.Model();
}

TEST(QdqOpsFusion, MatMulWithoutQuantizeBecomesMatMulIntegerToFloat) {
  for (bool per_column : {false, true}) {
    const OpCounts after = OpsAfter(MatMulToFloatModel(per_column), 2);
    EXPECT_EQ(after.at("com.microsoft.MatMulIntegerToFloat"), 1);
    EXPECT_EQ(after.count("MatMul"), 0u);
    ExpectSameOutputs([&] { return MatMulToFloatModel(per_column); }, 2, 1e-5f, 1e-6f);
  }
}

// Conv → Clip(0, 6) → Q: ReLU6 is taken into the QLinearConv when y's range is [0, 6] (scale
// 6/255, zero point 0), and left when the range reaches past 6.
ir::Model ConvClipModel(float y_scale) {
  GraphBuilder b;
  ir::Value* x = Qdq(b, b.Input("x", {1, 3, 6, 6}), 0.01f, DataType::kUint8, 128);
  ir::Value* w = b.Op("DequantizeLinear",
                      {b.Const(Bytes(DataType::kInt8, {4, 3, 3, 3}, 5)), b.Floats({}, {0.05f})});
  ir::Value* y = b.Op("Conv", {x, w}, {IntsAttr("pads", {1, 1, 1, 1})});
  y = b.Op("Clip", {y, b.Floats({}, {0.0f}), b.Floats({}, {6.0f})});
  b.Output(Qdq(b, y, y_scale, DataType::kUint8, 0));
  return b.Model();
}

TEST(QdqOpsFusion, ConvClipIntoQLinearConvOnlyWhenTheSaturationImpliesIt) {
  const float implied = 6.0f / 255.0f;
  EXPECT_EQ(OpsAfter(ConvClipModel(implied), 2).at("QLinearConv"), 1);
  EXPECT_EQ(OpsAfter(ConvClipModel(implied), 2).count("Clip"), 0u);
  ExpectSameOutputs([&] { return ConvClipModel(implied); }, 2, 0.0f, implied * 1.001f);
  // The float Conv and Clip stay (conv_activation_fusion may join them) between the Q nodes.
  const OpCounts kept = OpsAfter(ConvClipModel(0.05f), 2);
  EXPECT_EQ(kept.count("QLinearConv"), 0u);
  EXPECT_EQ(kept.at("QuantizeLinear"), 2);
  ExpectSameOutputs([&] { return ConvClipModel(0.05f); }, 2, 0.0f, 0.0501f);
}

// A quantized residual network's pieces at level 3: the fused ops run channels-last between one
// transpose in and one out, within one step of the float chain's output.
ir::Model QuantizedBlock() {
  GraphBuilder b;
  const DataType u8 = DataType::kUint8;
  ir::Value* x = Qdq(b, b.Input("x", {1, 8, 10, 10}), 0.01f, u8, 128);
  auto conv = [&](ir::Value* in, int64_t c, int64_t m, int64_t k, int seed) {
    ir::Value* w = b.Op("DequantizeLinear", {b.Const(Bytes(DataType::kInt8, {m, c, k, k}, seed)),
                                             b.Floats({}, {0.004f})});
    const int64_t p = k / 2;
    ir::Value* y = b.Op("Relu", {b.Op("Conv", {in, w}, {IntsAttr("pads", {p, p, p, p})})});
    return Qdq(b, y, 0.02f, u8, 0);
  };
  ir::Value* c1 = conv(x, 8, 16, 3, 3);
  ir::Value* pooled =
      Qdq(b, b.Op("MaxPool", {c1}, {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2})}),
          0.02f, u8, 0);
  ir::Value* c2 = conv(pooled, 16, 16, 1, 5);
  ir::Value* sum = Qdq(b, b.Op("Relu", {b.Op("Add", {pooled, c2})}), 0.03f, u8, 0);
  ir::Value* avg = Qdq(b,
                       b.Op("AveragePool", {sum},
                            {IntsAttr("kernel_shape", {3, 3}), IntsAttr("pads", {1, 1, 1, 1})}),
                       0.03f, u8, 0);
  b.Output(Qdq(b, b.Op("GlobalAveragePool", {avg}), 0.01f, u8, 0));
  return b.Model();
}

TEST(QdqOpsFusion, QuantizedChainsRunChannelsLastAtLevel3) {
  const OpCounts after = OpsAfter(QuantizedBlock(), 3);
  EXPECT_EQ(after.at("ai.kiln.NhwcQLinearConv"), 2);
  EXPECT_EQ(after.at("ai.kiln.NhwcMaxPool"), 1);
  EXPECT_EQ(after.at("com.microsoft.QLinearAdd"), 1);
  EXPECT_EQ(after.at("com.microsoft.QLinearAveragePool"), 1);
  EXPECT_EQ(after.at("com.microsoft.QLinearGlobalAveragePool"), 1);
  EXPECT_EQ(after.at("Transpose"), 2);  // the input's, and the pooled result's
  EXPECT_EQ(after.count("QLinearConv"), 0u);
  EXPECT_EQ(after.count("MaxPool"), 0u);
  ExpectSameOutputs(QuantizedBlock, 3, 0.0f, 0.0101f);
}

}  // namespace
}  // namespace kiln::optimizer::testing
