"""Writes the reference models of src/api/graph_api_test.cc with Debian's python3-onnx:
the models the test also builds through the graph API, which must equal these once loaded.

    /usr/bin/python3 src/api/testdata/graph_api/make_models.py src/api/testdata/graph_api
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
W = np.arange(12, dtype=np.float32).reshape(3, 4) / 8.0 - 0.5
B = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)


def save(graph, name, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, f"{OUT}/{name}.onnx")


def matmul_add():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    nodes = [helper.make_node("MatMul", ["x", "W"], ["xw"], name="mm"),
             helper.make_node("Add", ["xw", "b"], ["y"], name="add")]
    g = helper.make_graph(nodes, "matmul_add", [x], [y],
                          [numpy_helper.from_array(W, "W"), numpy_helper.from_array(B, "b")])
    save(g, "matmul_add")


def if_two_branches():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    flag = helper.make_tensor_value_info("flag", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    then_y = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, ["N", 4])
    else_y = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, ["N", 4])
    then_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["then_xw"], name="then_mm"),
         helper.make_node("Add", ["then_xw", "b"], ["then_y"], name="then_add")],
        "then_branch", [], [then_y])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_nx"], name="else_neg"),
         helper.make_node("MatMul", ["else_nx", "W"], ["else_y"], name="else_mm")],
        "else_branch", [], [else_y])
    node = helper.make_node("If", ["flag"], ["y"], name="choose", then_branch=then_g,
                            else_branch=else_g)
    g = helper.make_graph([node], "if_two_branches", [x, flag], [y],
                          [numpy_helper.from_array(W, "W"), numpy_helper.from_array(B, "b")])
    save(g, "if_two_branches")


def loop_sum():
    # acc_out = acc + x, M times; scan output: each step's acc.
    trip = helper.make_tensor_value_info("M", TensorProto.INT64, [])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    acc0 = helper.make_tensor_value_info("acc0", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("acc", TensorProto.FLOAT, [4])
    steps = helper.make_tensor_value_info("steps", TensorProto.FLOAT, ["T", 4])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Add", ["acc_in", "b"], ["acc_out"], name="accumulate"),
         helper.make_node("Identity", ["acc_out"], ["step"], name="record")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("step", TensorProto.FLOAT, [4])])
    node = helper.make_node("Loop", ["M", "cond", "acc0"], ["acc", "steps"], name="loop", body=body)
    g = helper.make_graph([node], "loop_sum", [trip, cond, acc0], [y, steps],
                          [numpy_helper.from_array(B, "b")])
    save(g, "loop_sum")


def conv_relu():
    # A Conv followed by Relu: the optimizer fuses them.
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    g = helper.make_graph(nodes, "conv_relu", [x], [y], [numpy_helper.from_array(w, "w")])
    save(g, "conv_relu")


def sparse_and_types():
    # Attributes of the kinds Kiln keeps but no kernel here needs: a Constant's sparse_value and
    # an Optional's type.
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.5, -2.0], dtype=np.float32), "values"),
        numpy_helper.from_array(np.array([0, 5], dtype=np.int64), "indices"), [2, 3])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3])
    o = helper.make_value_info("o", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))
    nodes = [helper.make_node("Constant", [], ["c"], name="const", sparse_value=sparse),
             helper.make_node("Optional", [], ["o"], name="none",
                              type=helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))]
    g = helper.make_graph(nodes, "sparse_and_types", [], [c, o])
    save(g, "sparse_and_types")


matmul_add()
sparse_and_types()
if_two_branches()
loop_sum()
conv_relu()
