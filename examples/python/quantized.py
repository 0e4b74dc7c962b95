#!/usr/bin/python3
"""Quantized models as ONNX Runtime's quantization tools write them, run by Kiln.

Builds two small models with the onnx helper (no onnxruntime needed): a dynamically quantized
linear layer (DynamicQuantizeLinear → MatMulInteger → Cast → Mul, `quantize_dynamic`'s form) and a
statically quantized convolution in QDQ form (DequantizeLinear → Conv → Relu → QuantizeLinear,
`quantize_static`'s form). Each runs with every graph optimization (Kiln fuses them into
DynamicQuantizeMatMul and QLinearConv — run channels-last as NhwcQLinearConv at the highest
level — on its int8 kernels) and with none (the nodes as written),
and the results are compared: the dynamic layer's bit for bit, the convolution's within one step
of its output quantization.

    /usr/bin/python3 examples/python/quantized.py
"""

import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import kiln as ort  # the same code runs with `import onnxruntime as ort`

rng = np.random.default_rng(0)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def dynamic_linear():
    """y = x · W for x [8, 64] float, W [64, 32] int8 with a per-column scale."""
    inits = [const("W", rng.integers(-127, 128, (64, 32)).astype(np.int8)),
             const("w_scale", (rng.random(32) * 0.01 + 0.001).astype(np.float32))]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("MatMulInteger", ["xq", "W", "xz"], ["acc"]),
             helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["xs", "w_scale"], ["scale"]),
             helper.make_node("Mul", ["accf", "scale"], ["y"])]
    graph = helper.make_graph(nodes, "dynamic_linear",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 32])],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def qdq_conv():
    """A 3×3 convolution of 8 → 16 channels over 12×12, its input, weights and output quantized."""
    xs, ys = np.float32(0.02), np.float32(0.05)
    ws = (rng.random(16) * 0.01 + 0.002).astype(np.float32)
    inits = [const("xs", xs), const("xz", np.uint8(128)),
             const("wq", rng.integers(-127, 128, (16, 8, 3, 3)).astype(np.int8)),
             const("ws", ws), const("wz", np.zeros(16, np.int8)),
             const("bq", rng.integers(-500, 500, 16).astype(np.int32)),
             const("bs", (xs * ws).astype(np.float32)),
             const("ys", ys), const("yz", np.uint8(0))]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xf"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wf"], axis=0),
             helper.make_node("DequantizeLinear", ["bq", "bs"], ["bf"], axis=0),
             helper.make_node("Conv", ["xf", "wf", "bf"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    graph = helper.make_graph(nodes, "qdq_conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                             [1, 8, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                             [1, 16, 12, 12])],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def run(model, level, x, optimized=None):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    if optimized is not None:
        so.optimized_model_filepath = optimized
    sess = ort.InferenceSession(model.SerializeToString(), sess_options=so,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


ok = True
with tempfile.TemporaryDirectory() as tmp:
    for build, x, step, fused_ops in [
            (dynamic_linear, rng.standard_normal((8, 64)).astype(np.float32), 0.0,
             {"DynamicQuantizeMatMul"}),
            (qdq_conv, rng.standard_normal((1, 8, 12, 12)).astype(np.float32), 0.05,
             {"QLinearConv", "NhwcQLinearConv"})]:
        model = build()
        optimized = os.path.join(tmp, model.graph.name + ".onnx")
        fused = run(model, ort.GraphOptimizationLevel.ORT_ENABLE_ALL, x, optimized)
        plain = run(model, ort.GraphOptimizationLevel.ORT_DISABLE_ALL, x)
        ops = sorted({n.op_type for n in onnx.load(optimized).graph.node})
        diff = float(np.abs(fused - plain).max())
        print(f"{model.graph.name}: ops after optimization {ops}; "
              f"largest difference from the unoptimized graph {diff:.4g}")
        ok = ok and bool(fused_ops & set(ops)) and diff <= step * 1.0001
print("quantized: OK" if ok else "quantized: FAILED")
