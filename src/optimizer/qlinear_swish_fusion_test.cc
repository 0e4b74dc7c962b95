// qlinear_swish_fusion: QLinearMul(x, QLinearSigmoid(x)) into ai.kiln QLinearSwish — the ops
// after level 2 and the outputs against level 0: the same bytes as the pair of ops (QOperator
// models), within one output step of the float chain (QDQ models); and the pairs it must leave.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

ir::Value* Zero(GraphBuilder& b, DataType type, int v) {
  auto t = Tensor::Allocate(type, Shape(std::vector<int64_t>{}), CpuAllocator());
  if (type == DataType::kInt8) {
    *static_cast<int8_t*>(t->data()) = static_cast<int8_t>(v);
  } else {
    *static_cast<uint8_t*>(t->data()) = static_cast<uint8_t>(v);
  }
  return b.Const(std::move(t));
}

struct PairCase {
  bool sigmoid_first = false;   // QLinearMul(s, x) rather than (x, s)
  float mul_x_scale = 0.05f;    // the product's scale for x (the sigmoid's is 0.05)
  bool sigmoid_output = false;  // the sigmoid's output is a graph output too
  bool other_operand = false;   // the product reads the sigmoid of another tensor
};

// x (float [1, 3, 5, 7], ×6 so that the bytes cover the range) quantized (0.05, zx), the
// QOperator pair, dequantized.
ir::Model PairModel(DataType type, const PairCase& c) {
  GraphBuilder b;
  const int shift = type == DataType::kInt8 ? 128 : 0;
  ir::Value* x = b.Op("Mul", {b.Input("x", {1, 3, 5, 7}), b.Floats({}, {6.0f})});
  ir::Value* xq = b.Op("QuantizeLinear", {x, b.Floats({}, {0.05f}), Zero(b, type, 130 - shift)});
  ir::Value* other = b.Op("QuantizeLinear", {x, b.Floats({}, {0.03f}), Zero(b, type, 120 - shift)});
  ir::Value* s =
      b.Node("QLinearSigmoid",
             {c.other_operand ? other : xq, b.Floats({}, {0.05f}), Zero(b, type, 130 - shift),
              b.Floats({}, {1.0f / 256}), Zero(b, type, 0 - shift)},
             1, {}, 1, kMs)[0];
  std::vector<ir::Value*> a = {xq, b.Floats({}, {c.mul_x_scale}), Zero(b, type, 130 - shift)};
  std::vector<ir::Value*> sb = {s, b.Floats({}, {1.0f / 256}), Zero(b, type, 0 - shift)};
  std::vector<ir::Value*> in = c.sigmoid_first ? sb : a;
  const std::vector<ir::Value*>& second = c.sigmoid_first ? a : sb;
  in.insert(in.end(), second.begin(), second.end());
  in.push_back(b.Floats({}, {0.02f}));
  in.push_back(Zero(b, type, 20 - shift));
  ir::Value* y = b.Node("QLinearMul", in, 1, {}, 1, kMs)[0];
  b.Output(b.Op("DequantizeLinear", {y, b.Floats({}, {0.02f}), Zero(b, type, 20 - shift)}));
  if (c.sigmoid_output) {
    b.Output(b.Op("DequantizeLinear", {s, b.Floats({}, {1.0f / 256}), Zero(b, type, 0 - shift)}));
  }
  return b.Model();
}

TEST(QLinearSwishFusion, TheQOperatorPairBecomesOneLookupGivingItsBytes) {
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    for (bool sigmoid_first : {false, true}) {
      SCOPED_TRACE(std::string(type == DataType::kInt8 ? "int8" : "uint8") +
                   (sigmoid_first ? " Mul(s, x)" : " Mul(x, s)"));
      const PairCase c{.sigmoid_first = sigmoid_first};
      const OpCounts after = OpsAfter(PairModel(type, c), 2);
      EXPECT_EQ(after.at("ai.kiln.QLinearSwish"), 1);
      EXPECT_EQ(after.count("com.microsoft.QLinearMul"), 0u);
      EXPECT_EQ(after.count("com.microsoft.QLinearSigmoid"), 0u);
      // Exactly the pair's bytes (level 0 runs the two ops).
      ExpectSameOutputs([&] { return PairModel(type, c); }, 2, 0.0f, 0.0f);
    }
  }
}

TEST(QLinearSwishFusion, LeavesPairsItCannotTake) {
  const PairCase cases[] = {
      {.mul_x_scale = 0.06f},    // the product reads x with another scale
      {.sigmoid_output = true},  // the sigmoid's output is read elsewhere
      {.other_operand = true},   // x times the sigmoid of another tensor
  };
  for (const PairCase& c : cases) {
    const OpCounts after = OpsAfter(PairModel(DataType::kUint8, c), 2);
    EXPECT_EQ(after.count("ai.kiln.QLinearSwish"), 0u);
    EXPECT_EQ(after.at("com.microsoft.QLinearMul"), 1);
    EXPECT_EQ(after.at("com.microsoft.QLinearSigmoid"), 1);
    ExpectSameOutputs([&] { return PairModel(DataType::kUint8, c); }, 2, 0.0f, 0.0f);
  }
}

// The QDQ form quantize_static writes, x·sigmoid(x) between QDQ pairs, at levels 2 and 3 (where
// the lookup runs on the channels-last tensor): within one output step of the float chain.
TEST(QLinearSwishFusion, QdqSwishFusesAtLevels2And3) {
  for (DataType type : {DataType::kUint8, DataType::kInt8}) {
    const int shift = type == DataType::kInt8 ? 128 : 0;
    auto build = [&] {
      GraphBuilder b;
      auto qdq = [&](ir::Value* v, float s, int z) {
        ir::Value* q = b.Op("QuantizeLinear", {v, b.Floats({}, {s}), Zero(b, type, z - shift)});
        return b.Op("DequantizeLinear", {q, b.Floats({}, {s}), Zero(b, type, z - shift)});
      };
      ir::Value* x =
          qdq(b.Op("Mul", {b.Input("x", {1, 4, 6, 6}), b.Floats({}, {5.0f})}), 0.04f, 128);
      ir::Value* s = qdq(b.Op("Sigmoid", {x}), 1.0f / 256, 0);
      b.Output(qdq(b.Op("Mul", {x, s}), 0.025f, 12));
      return b.Model();
    };
    for (int level : {2, 3}) {
      SCOPED_TRACE(std::string(type == DataType::kInt8 ? "int8" : "uint8") + " level " +
                   std::to_string(level));
      const OpCounts after = OpsAfter(build(), level);
      EXPECT_EQ(after.at("ai.kiln.QLinearSwish"), 1);
      EXPECT_EQ(after.count("Sigmoid"), 0u);
      EXPECT_EQ(after.count("Mul"), 1u);  // the input's scaling, in float
      ExpectSameOutputs(build, level, 0.0f, 0.025f * 1.001f);
    }
  }
}

}  // namespace
}  // namespace kiln::optimizer::testing
