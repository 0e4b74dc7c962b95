// Models that compute (convolutions, matrix products) for the tests of `kiln profile`, of the
// progress line and of run failures, built with ONNX's protobuf classes on top of
// test_models.h's Identity models.
//
//   onnx::ModelProto m = MatMulChainModel("batch");  // x [batch, 64] -> MatMul -> Relu -> MatMul
//   WriteModel(m, dir / "mm.onnx");
#ifndef KILN_TESTS_TOOLS_COMPUTE_MODELS_H_
#define KILN_TESTS_TOOLS_COMPUTE_MODELS_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::test {

// x float [batch, 64] -> MatMul "mm1" (w1 [64, 32]) -> Relu "act" -> MatMul "mm2" (w2 [32, 8])
// -> y [batch, 8]. `batch` is the first dimension's dim_param, a number ("4"), or "" for an
// unknown unnamed dimension. Weights are small seeded values.
onnx::ModelProto MatMulChainModel(const std::string& batch);

// x float [1, 16, 32, 32] -> Conv "conv" (w [32, 8, 3, 3], group 2, pads 1, bias b [32]) -> y
// [1, 32, 32, 32]: 2 · 32768 · 72 = 4718592 FLOPs a run.
onnx::ModelProto GroupedConvModel();

// x float [n, n] -> MatMul "big" (w [n, n]) -> y: 2 n³ FLOPs a run, for work that takes long.
onnx::ModelProto SquareMatMulModel(int64_t n);

// x float [n, n] -> Loop "loop" (`trips` iterations; body: v = MatMul "body_mm"(v, w), w [n, n]
// from the outer graph, and Identity "body_cond" of the condition) -> y: the Loop's time holds
// its body's, 2 n³ FLOPs an iteration.
onnx::ModelProto LoopMatMulModel(int64_t n, int64_t trips);

// idx int64 [1] -> Gather "gather" of a row of table float [rows, cols] -> y [1, cols]: a model
// whose weights are large (rows · cols · 4 bytes) and whose runs cost nothing.
onnx::ModelProto GatherTableModel(int64_t rows, int64_t cols);

// x float [batch, 6] -> Reshape "reshape" to [7] -> y: every run fails (6·batch elements never
// make 7), and only when run, since batch is symbolic.
onnx::ModelProto FailingReshapeModel();

}  // namespace kiln::test

#endif  // KILN_TESTS_TOOLS_COMPUTE_MODELS_H_
