#!/usr/bin/env -S /usr/bin/python3
"""bench/quantize.py on a small model made here: Conv (bias) -> Relu -> Conv -> Add (residual) ->
GlobalAveragePool -> Flatten -> Gemm (transB) -> MatMul. Checks the static QDQ graph (the Relu
absorbed, one QuantizeLinear -> DequantizeLinear pair per activation, int8 weights per channel on
the right axis, int32 biases with scale x_scale * w_scale) and the dynamic one (MatMulInteger's
node pattern, per tensor and per column), and that both run in Kiln close to fp32 (cosine above
0.99). Exits 1 on a failure.

    /usr/bin/python3 bench/quantize_test.py [BUILD_DIR]   (default build/release)
"""
import collections
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantize  # noqa: E402

failed = 0


def check(what, ok):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'}: {what}", flush=True)


def tiny_model():
    rng = np.random.default_rng(5)

    def init(name, *shape, std=0.2):
        return numpy_helper.from_array((rng.standard_normal(shape) * std).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], "conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r1"], ["sum"], "add"),
        helper.make_node("GlobalAveragePool", ["sum"], ["gap"], "gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], "flatten"),
        helper.make_node("Gemm", ["flat", "wg", "bg"], ["fc"], "fc", transB=1),
        helper.make_node("MatMul", ["fc", "wm"], ["logits"], "head"),
    ]
    inits = [init("w1", 16, 3, 3, 3), init("b1", 16, std=0.1), init("w2", 16, 16, 3, 3, std=0.1),
             init("wg", 16, 16), init("bg", 16, std=0.1), init("wm", 16, 10)]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def inits_of(model):
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def producers(model):
    return {o: n for n in model.graph.node for o in n.output}


def static_checks(fp32, runner):
    calib = [quantize.sample_inputs(fp32, quantize.CALIB_SEED + i) for i in range(8)]
    q = quantize.quantize_static(fp32, calib, runner)
    ops = collections.Counter(n.op_type for n in q.graph.node)
    check(f"static: the Relu is absorbed ({dict(ops)})", ops["Relu"] == 0)
    # Activations with a pair: input, c1 (as r1), c2, sum, gap, flat (Gemm's input), fc, logits.
    check("static: 8 QuantizeLinear", ops["QuantizeLinear"] == 8)
    # 8 activation DequantizeLinear + 4 weights + 2 biases.
    check("static: 14 DequantizeLinear", ops["DequantizeLinear"] == 14)
    inits, prod = inits_of(q), producers(q)
    by_name = {n.name: n for n in q.graph.node}
    axes = {}
    for conv, want_axis, channels in (("conv1", 0, 16), ("conv2", 0, 16), ("fc", 0, 16),
                                      ("head", 1, 10)):
        node = by_name[conv]
        dq = prod[node.input[1]]
        axis = next((a.i for a in dq.attribute if a.name == "axis"), 1)
        axes[conv] = axis
        w, s, z = (inits[x] for x in dq.input)
        check(f"static: {conv} weight int8 per channel on axis {want_axis}",
              dq.op_type == "DequantizeLinear" and w.dtype == np.int8 and axis == want_axis
              and s.shape == (channels,) and z.dtype == np.int8 and not z.any()
              and np.abs(w).max() <= 127)
        x_dq = prod[node.input[0]]
        check(f"static: {conv} input through QuantizeLinear -> DequantizeLinear (uint8)",
              x_dq.op_type == "DequantizeLinear" and prod[x_dq.input[0]].op_type == "QuantizeLinear"
              and inits[x_dq.input[2]].dtype == np.uint8)
        if len(node.input) > 2:
            b_dq = prod[node.input[2]]
            b, bs, bz = (inits[x] for x in b_dq.input)
            want = np.float32(inits[x_dq.input[1]]) * s
            check(f"static: {conv} bias int32, scale x_scale * w_scale, zero point 0",
                  b.dtype == np.int32 and bz.dtype == np.int32 and not bz.any()
                  and np.allclose(bs, want, rtol=1e-6))
    relu_q = next(n for n in q.graph.node
                  if n.op_type == "QuantizeLinear" and n.input[0] == "r1")
    check("static: the absorbed Relu's range starts at 0 (zero point 0)",
          inits[relu_q.input[2]] == 0 and prod["r1"].name == "conv1")
    check("static: the graph output keeps its name, out of a DequantizeLinear",
          prod["logits"].op_type == "DequantizeLinear")
    return q


def dynamic_checks(fp32, per_channel):
    q = quantize.quantize_dynamic(fp32, per_channel)
    ops = collections.Counter(n.op_type for n in q.graph.node)
    tag = "per column" if per_channel else "per tensor"
    check(f"dynamic {tag}: MatMul -> DynamicQuantizeLinear, MatMulInteger, Cast, 2 Mul; Conv and "
          f"Gemm left float ({dict(ops)})",
          ops["MatMul"] == 0 and ops["DynamicQuantizeLinear"] == 1 and ops["MatMulInteger"] == 1
          and ops["Cast"] == 1 and ops["Mul"] == 2 and ops["Conv"] == 2 and ops["Gemm"] == 1)
    inits, prod = inits_of(q), producers(q)
    mmi = next(n for n in q.graph.node if n.op_type == "MatMulInteger")
    w, wz = inits[mmi.input[1]], inits[mmi.input[3]]
    dql = prod[mmi.input[0]]
    mul = prod["logits"]
    scales = prod[mul.input[1]]
    ws = inits[scales.input[1]]
    shape = (10,) if per_channel else ()
    check(f"dynamic {tag}: int8 weight, zero point and scale of shape {shape}",
          w.dtype == np.int8 and wz.dtype == np.int8 and not wz.any()
          and ws.shape == shape and wz.shape == ws.shape)
    check(f"dynamic {tag}: MatMulInteger(x_q, w, x_zp, w_zp) and Mul(x_scale, w_scale)",
          dql.op_type == "DynamicQuantizeLinear" and mmi.input[2] == dql.output[2]
          and scales.op_type == "Mul" and scales.input[0] == dql.output[1]
          and prod[mul.input[0]].op_type == "Cast")
    return q


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else quantize.DEFAULT_BUILD
    runner = quantize.Kiln(build)
    fp32 = tiny_model()
    models = {"static": static_checks(fp32, runner)}
    for pc in (False, True):
        models[f"dynamic{' per column' if pc else ''}"] = dynamic_checks(fp32, pc)
    feeds = quantize.eval_inputs(fp32, 4)
    ref = runner.run(fp32, feeds)
    for name, q in models.items():
        a = quantize.agreement(ref, runner.run(q, feeds))[0]
        check(f"{name}: Kiln's output close to fp32's (cosine {a['cosine']:.5f} > 0.99)",
              a["cosine"] > 0.99)
    print(f"{failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
