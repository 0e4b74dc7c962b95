#!/usr/bin/env -S /usr/bin/python3
"""bench/quantize.py on a small model made here: Conv (bias) -> Relu -> Conv -> Add (residual) ->
GlobalAveragePool -> Flatten -> Gemm (transB) -> MatMul. Checks the static QDQ graph (the Relu
absorbed, one QuantizeLinear -> DequantizeLinear pair per activation, int8 weights per channel on
the right axis, int32 biases with scale x_scale * w_scale) and the dynamic one (MatMulInteger's
node pattern, per tensor and per column), and that both run in Kiln close to fp32 (cosine above
0.99). Then the nbits mode (com.microsoft MatMulNBits) on a second model, MatMul (K 64) -> Relu ->
MatMul (K 40, a partial last block) -> Gemm (transB, bias; K 24): the nodes, attributes and the
shapes of the packed weights, scales and zero points; that unpacking them in numpy gives back each
weight within half a quantization step of its block (asymmetric; symmetric: within one step, half
a step where not clamped), with the block's scale and zero point as defined; that Kiln's output
matches numpy's product with the dequantized weights (cosine above 0.99999, 1e-4 relative), and is
close to fp32's: cosine above 0.98 for 4 bits (0.988 here: three layers of random weights at 4 bits
lose about 0.4 % each, so 0.999 is out of reach), above 0.9999 for 8 bits. Exits 1 on a failure.

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


def nbits_model():
    rng = np.random.default_rng(6)

    def init(name, *shape, std=0.2):
        return numpy_helper.from_array((rng.standard_normal(shape) * std).astype(np.float32), name)

    nodes = [helper.make_node("MatMul", ["x", "wa"], ["a"], "mm_a"),
             helper.make_node("Relu", ["a"], ["r"], "relu"),
             helper.make_node("MatMul", ["r", "wb"], ["b"], "mm_b"),
             helper.make_node("Gemm", ["b", "wg", "bg"], ["y"], "fc", transB=1)]
    inits = [init("wa", 64, 40), init("wb", 40, 24), init("wg", 16, 24), init("bg", 16, std=0.1)]
    graph = helper.make_graph(
        nodes, "nbits", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 16])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def dequantize_nbits(node, inits):
    """W [K, N] from a MatMulNBits node's packed inputs (numpy, independent of quantize.py)."""
    at = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    k, n, bits, block = at["K"], at["N"], at["bits"], at["block_size"]
    packed = inits[node.input[1]]
    per = 8 // bits
    q = np.stack([(packed >> (bits * i)) & ((1 << bits) - 1) for i in range(per)], -1)
    q = q.reshape(n, packed.shape[1], block).astype(np.float32)
    scales = inits[node.input[2]].reshape(n, -1)
    if len(node.input) > 3 and node.input[3]:
        z = inits[node.input[3]]
        z = np.stack([(z >> (bits * i)) & ((1 << bits) - 1) for i in range(per)], -1)
        z = z.reshape(n, -1)[:, :packed.shape[1]].astype(np.float32)
    else:
        z = np.full(scales.shape, 1 << (bits - 1), np.float32)
    w = (q - z[..., None]) * scales[..., None]
    return w.reshape(n, -1)[:, :k].T, q, scales, z


def nbits_checks(fp32, runner, feeds, ref):
    inits32 = inits_of(fp32)
    weights = {"mm_a": inits32["wa"], "mm_b": inits32["wb"], "fc": inits32["wg"].T}
    models = {}
    for bits, symmetric in ((4, False), (4, True), (8, False)):
        tag = f"nbits {bits}-bit{' symmetric' if symmetric else ''}"
        q = quantize.quantize_nbits(fp32, bits=bits, block_size=32, symmetric=symmetric)
        ops = collections.Counter((n.domain, n.op_type) for n in q.graph.node)
        check(f"{tag}: 3 com.microsoft MatMulNBits and the Relu ({dict(ops)}), opset "
              "com.microsoft 1, output name kept",
              ops[("com.microsoft", "MatMulNBits")] == 3 and ops[("", "Relu")] == 1
              and len(ops) == 2 and q.graph.output[0].name == "y"
              and any(o.domain == "com.microsoft" and o.version == 1 for o in q.opset_import))
        inits = inits_of(q)
        for name, w in weights.items():
            node = next(n for n in q.graph.node if n.name.startswith(name + "_"))
            at = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            k, n = w.shape
            blocks = -(-k // 32)
            zshape = None if symmetric else (n, -(-blocks * bits // 8))
            check(f"{tag} {name}: K {k}, N {n}, bits, block_size 32, accuracy_level 0; B "
                  f"{(n, blocks, 32 * bits // 8)}, scales {(n * blocks,)}, zero points {zshape}",
                  at == {"K": k, "N": n, "bits": bits, "block_size": 32, "accuracy_level": 0}
                  and inits[node.input[1]].shape == (n, blocks, 32 * bits // 8)
                  and inits[node.input[1]].dtype == np.uint8
                  and inits[node.input[2]].shape == (n * blocks,)
                  and inits[node.input[2]].dtype == np.float32
                  and (len(node.input) == 3 or node.input[3] == "" if symmetric
                       else inits[node.input[3]].shape == zshape
                       and inits[node.input[3]].dtype == np.uint8))
            deq, qv, scales, z = dequantize_nbits(node, inits)
            # The blocks' own definition, on the weights padded with zeros to whole blocks.
            padded = np.zeros((blocks * 32, n), np.float32)
            padded[:k] = w
            x = padded.T.reshape(n, blocks, 32)
            qmax = (1 << bits) - 1
            if symmetric:
                big = np.where(np.abs(x.max(2)) > np.abs(x.min(2)), x.max(2), x.min(2))
                want_s, want_z = big / -8, np.full(scales.shape, 8)
            else:
                lo, hi = np.minimum(x.min(2), 0), np.maximum(x.max(2), 0)
                want_s = (hi - lo) / qmax
                want_z = np.clip(np.floor(-lo / want_s + 0.5), 0, qmax)
            step = np.repeat(np.abs(scales), 32, axis=1)[:, :k].T
            err = np.abs(deq - w)
            unclamped = np.abs((x / want_s[..., None] + want_z[..., None]) -
                               qv) <= 0.5 + 1e-4
            unclamped = unclamped.reshape(n, -1)[:, :k].T
            check(f"{tag} {name}: scales and zero points as defined, dequantized weights within "
                  f"half a step ({float((err / step).max()):.3f} steps"
                  f"{', one step where clamped' if symmetric else ''})",
                  np.allclose(scales, want_s, rtol=1e-6, atol=0) and np.array_equal(z, want_z)
                  and np.all(err[unclamped] <= step[unclamped] * (0.5 + 1e-4))
                  and np.all(err <= step * (1.0 + 1e-4))
                  and (symmetric or unclamped.all()))
        deqs = {name: dequantize_nbits(next(n for n in q.graph.node
                                            if n.name.startswith(name + "_")), inits)[0]
                for name in weights}
        outs = runner.run(q, feeds)
        for i, f in enumerate(feeds):
            a = np.maximum(f["x"] @ deqs["mm_a"], 0) @ deqs["mm_b"]
            want = a @ deqs["fc"] + inits32["bg"]
            got = outs[i][0].astype(np.float64)
            want = want.astype(np.float64)
            cos = float((want * got).sum() / np.linalg.norm(want) / np.linalg.norm(got))
            check(f"{tag}: Kiln's output is numpy's with the dequantized weights (input {i}: "
                  f"cosine {cos:.7f}, max diff {float(np.abs(got - want).max()):.2g})",
                  cos > 0.99999 and np.allclose(got, want, rtol=1e-4, atol=1e-4))
        a = quantize.agreement(ref, outs)[0]
        bound = 0.98 if bits == 4 else 0.9999
        check(f"{tag}: Kiln's output close to fp32's (cosine {a['cosine']:.5f} > {bound})",
              a["cosine"] > bound)
        models[tag] = q
    return models


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
    nb = nbits_model()
    nb_feeds = quantize.eval_inputs(nb, 4)
    nbits_checks(nb, runner, nb_feeds, runner.run(nb, nb_feeds))
    print(f"{failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
