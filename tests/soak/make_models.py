#!/usr/bin/python3
"""Writes the soak's generated models (onnx.helper only) into a directory:

  soak_attention.onnx  a tiny transformer encoder block: two-head self-attention (MatMul, Softmax),
                       a Relu feed-forward, residual Adds and LayerNormalization; x [batch, seq, 32]
                       with both dimensions symbolic, so the soak varies the sequence length.
  soak_loop.onnx       control flow: a Loop over M iterations (an input) whose body branches with an
                       If on the iteration's parity; x [n] symbolic; outputs the final x and the
                       scan of each iteration's sum ([M]). A large M makes a long run to terminate.

  make_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D, HEADS, FF = 32, 2, 64


def weight(rng, name, shape, scale):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def attention_model():
    rng = np.random.default_rng(32)
    dh = D // HEADS
    inits = [
        weight(rng, "wq", [D, D], D ** -0.5), weight(rng, "wk", [D, D], D ** -0.5),
        weight(rng, "wv", [D, D], D ** -0.5), weight(rng, "wo", [D, D], D ** -0.5),
        weight(rng, "w1", [D, FF], D ** -0.5), weight(rng, "b1", [FF], 0.1),
        weight(rng, "w2", [FF, D], FF ** -0.5), weight(rng, "b2", [D], 0.1),
        numpy_helper.from_array(np.ones(D, np.float32), "ln_scale"),
        numpy_helper.from_array(np.zeros(D, np.float32), "ln_bias"),
        numpy_helper.from_array(np.array([0, 0, HEADS, dh], np.int64), "split_shape"),
        numpy_helper.from_array(np.array([0, 0, D], np.int64), "merge_shape"),
        numpy_helper.from_array(np.array(dh ** -0.5, np.float32), "scale"),
    ]
    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "wq"], ["q"]), n("MatMul", ["x", "wk"], ["k"]),
        n("MatMul", ["x", "wv"], ["v"]),
        n("Reshape", ["q", "split_shape"], ["q4"]), n("Reshape", ["k", "split_shape"], ["k4"]),
        n("Reshape", ["v", "split_shape"], ["v4"]),
        n("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
        n("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        n("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], ["scores"]), n("Mul", ["scores", "scale"], ["scaled"]),
        n("Softmax", ["scaled"], ["probs"], axis=-1), n("MatMul", ["probs", "vh"], ["ctx"]),
        n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "merge_shape"], ["ctx_m"]), n("MatMul", ["ctx_m", "wo"], ["attn"]),
        n("Add", ["x", "attn"], ["res1"]),
        n("LayerNormalization", ["res1", "ln_scale", "ln_bias"], ["h1"], axis=-1, epsilon=1e-5),
        n("MatMul", ["h1", "w1"], ["f1"]), n("Add", ["f1", "b1"], ["f1b"]),
        n("Relu", ["f1b"], ["f1r"]), n("MatMul", ["f1r", "w2"], ["f2"]),
        n("Add", ["f2", "b2"], ["f2b"]), n("Add", ["h1", "f2b"], ["res2"]),
        n("LayerNormalization", ["res2", "ln_scale", "ln_bias"], ["y"], axis=-1, epsilon=1e-5),
    ]
    graph = helper.make_graph(
        nodes, "soak_attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", D])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def loop_model():
    n = helper.make_node
    const = helper.make_tensor

    def branch(name, nodes, out):
        return helper.make_graph(nodes, name, [],
                                 [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["n"])])

    # then: tanh(1.1 x + 0.1); else: 0.9 sin(x). Both stay in [-1, 1].
    then_graph = branch("even", [
        n("Constant", [], ["a"], value=const("a", TensorProto.FLOAT, [], [1.1])),
        n("Constant", [], ["b"], value=const("b", TensorProto.FLOAT, [], [0.1])),
        n("Mul", ["x_in", "a"], ["xa"]), n("Add", ["xa", "b"], ["xb"]),
        n("Tanh", ["xb"], ["x_even"])], "x_even")
    else_graph = branch("odd", [
        n("Constant", [], ["c"], value=const("c", TensorProto.FLOAT, [], [0.9])),
        n("Sin", ["x_in"], ["xs"]), n("Mul", ["xs", "c"], ["x_odd"])], "x_odd")
    body = helper.make_graph(
        [
            n("Constant", [], ["two"], value=const("two", TensorProto.INT64, [], [2])),
            n("Constant", [], ["zero"], value=const("zero", TensorProto.INT64, [], [0])),
            n("Mod", ["iter", "two"], ["parity"]), n("Equal", ["parity", "zero"], ["even"]),
            n("If", ["even"], ["x_out"], then_branch=then_graph, else_branch=else_graph),
            n("Identity", ["cond_in"], ["cond_out"]),
            n("ReduceSum", ["x_out"], ["sum"], keepdims=0),
        ],
        "body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_out", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("sum", TensorProto.FLOAT, [])])
    graph = helper.make_graph(
        [n("Constant", [], ["cond"], value=const("cond", TensorProto.BOOL, [], [True])),
         n("Loop", ["M", "cond", "x"], ["x_final", "sums"], body=body)],
        "soak_loop",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("x_final", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("sums", TensorProto.FLOAT, ["M"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py OUT_DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, model in (("soak_attention", attention_model()), ("soak_loop", loop_model())):
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(sys.argv[1], name + ".onnx"))


if __name__ == "__main__":
    main()
