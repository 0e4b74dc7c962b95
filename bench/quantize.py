#!/usr/bin/env -S /usr/bin/python3
"""Quantize ONNX models as ONNX Runtime's quantization tools do, without them (numpy, onnx, Kiln).

    /usr/bin/python3 bench/quantize.py static MODEL OUT [--calib N] [--seed S] [--per-tensor]
                                              [--keep-removable-activations] [--build DIR]
    /usr/bin/python3 bench/quantize.py dynamic MODEL OUT [--per-channel]
    /usr/bin/python3 bench/quantize.py nbits MODEL OUT [--bits 4] [--block-size 32] [--symmetric]
                                             [--no-gemm]
    /usr/bin/python3 bench/quantize.py compare FP32 INT8 [--inputs DIR] [--count K] [--build DIR]
    /usr/bin/python3 bench/quantize.py zoo MODELS [--only NAME]... [--build DIR]

static: `quantize_static` in QDQ format with MinMax calibration. The fp32 model runs in Kiln (the
Python package of --build, default build/release) on N seeded structured images (smooth random
images: low-frequency noise upsampled, gradients and a few waves, ImageNet-normalized; never the
benchmark input) with every tensor to calibrate as an extra output, and each tensor's range is its
min and max over them, extended to include 0. QuantizeLinear -> DequantizeLinear pairs (uint8,
asymmetric) go on the activations of Conv, Gemm, MatMul, Add, Mul, Concat, GlobalAveragePool,
Sigmoid, Softmax (inputs and outputs, own ranges), and on the outputs of MaxPool, AveragePool,
Reshape, Transpose, Squeeze, Unsqueeze whose input is quantized (the input's parameters). A Relu or
Clip after a quantized op with no other consumer is removed and its range given to the op's output
(Conv -> Relu becomes DequantizeLinear -> Conv -> QuantizeLinear with zero point 0), as ONNX
Runtime does unless told to keep it (--keep-removable-activations). Weights: int8, symmetric
([-127, 127]), per output channel (Conv axis 0; Gemm axis 0 with transB, else 1; MatMul axis 1),
per tensor with --per-tensor, stored as int8 initializers behind DequantizeLinear. Conv and Gemm
biases: int32 with scale x_scale * w_scale and zero point 0. Other constant float inputs of the ops
above: uint8 over their own range. Constant nodes become initializers, Identity nodes over
initializers copies, and BatchNormalization after a Conv is folded into it first.

dynamic: `quantize_dynamic`'s default. Each MatMul whose B is a constant 2-D float becomes
DynamicQuantizeLinear(A) -> MatMulInteger(A_q, B_int8, A_zp, B_zp) -> Cast(float) ->
Mul(., Mul(A_scale, B_scale)), with one DynamicQuantizeLinear per quantized tensor; B int8
symmetric per tensor, per column with --per-channel. Like ONNX Runtime's, it leaves Gemm float.

nbits: `MatMul4BitsQuantizer`'s default (weight-only, com.microsoft MatMulNBits). Each MatMul whose
B is a constant 2-D float [K, N] becomes MatMulNBits(A, B packed, scales, zero points), K, N, bits,
block_size, accuracy_level 0: B quantized per block of --block-size along K for each column, as
MLAS's MlasQuantizeBlockwise does (asymmetric: the block's range with 0, scale (max - min) / 15,
zero point round(-min / scale); --symmetric: scale v / -8 for the block's value v of largest
magnitude, no zero points, i.e. 8), K padded with zeros to whole blocks, packed two to a byte (low
nibble first) as [N, blocks, block_size / 2], zero points likewise [N, ceil(blocks / 2)]. Gemm
with a constant B, transA 0, alpha 1 and a constant [N] bias or none also becomes MatMulNBits
(bias input), unless --no-gemm (ONNX Runtime leaves Gemm float). Activations stay float.

compare: the quantized model's outputs against the fp32 model's in Kiln over K seeded inputs
(structured images, or token ids under the vocabulary size): cosine similarity, max abs diff and,
for one output of shape [1, classes], top-1 agreement.

zoo: for the benchmark zoo in MODELS (bench/export_zoo.py), writes MODELS/<name>_int8/ for each
CNN (static) and transformer (dynamic): model.onnx, the fp32 model's input_<i>.npy and meta.json
(with the recipe and compare's figures). gpt_decoder_q4: gpt_decoder in nbits mode (4 bits, block
32) as MODELS/gpt_decoder_q4, and for one-token timings gpt_decoder_1tok (export_zoo.py's variant at
sequence length 1) as gpt_decoder_1tok_q4 and gpt_decoder_1tok_int8 (dynamic), with
gpt_decoder_int8. A model already quantized by the same script is skipped.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from collections import defaultdict

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BUILD = os.path.join(HERE, "..", "build", "release")

# Which zoo models are quantized how (bench-quant's table).
ZOO = {"resnet50": "static", "mobilenet_v2": "static", "squeezenet1_1": "static",
       "efficientnet_b0": "static", "bert_base": "dynamic", "gpt_decoder": "dynamic",
       "gpt_decoder_q4": "nbits"}
# nbits entries: name -> (fp32 zoo model, its one-token variant (bench/export_zoo.py VARIANTS)).
NBITS_ZOO = {"gpt_decoder_q4": ("gpt_decoder", "gpt_decoder_1tok")}
NBITS = {"bits": 4, "block_size": 32}
CALIB_IMAGES = 16    # calibration images (seeds CALIB_SEED + i)
CALIB_SEED = 100
EVAL_SEED = 10000    # compare's inputs: EVAL_SEED + i, disjoint from the calibration seeds

# ONNX Runtime's QDQ op classes (its QDQRegistry and the QLinear ops its quantize_static takes by
# default, restricted to what the zoo uses).
QDQ_FULL = {"Add", "Mul", "Concat", "GlobalAveragePool", "Sigmoid", "Softmax", "LeakyRelu"}
QDQ_SAME_AS_INPUT = {"MaxPool", "AveragePool", "Reshape", "Transpose", "Squeeze", "Unsqueeze"}
QDQ_REMOVABLE = {"Relu", "Clip"}
QDQ_WEIGHTED = {"Conv", "Gemm", "MatMul"}
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1)


# ----------------------------------------------------------------------------------------------
# Inputs


def _resize(x, h, w):
    """Bilinear resize of [C, h0, w0] to [C, h, w] (align_corners), numpy only."""
    c, h0, w0 = x.shape
    ys, xs = np.linspace(0, h0 - 1, h), np.linspace(0, w0 - 1, w)
    y0 = np.minimum(np.floor(ys).astype(int), h0 - 2)
    x0 = np.minimum(np.floor(xs).astype(int), w0 - 2)
    fy, fx = (ys - y0)[None, :, None], (xs - x0)[None, None, :]
    a, b = x[:, y0][:, :, x0], x[:, y0][:, :, x0 + 1]
    cc, d = x[:, y0 + 1][:, :, x0], x[:, y0 + 1][:, :, x0 + 1]
    return (a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + cc * fy * (1 - fx) + d * fy * fx)


def structured_image(seed, shape=(1, 3, 224, 224)):
    """A smooth, seeded, photograph-like image in [0, 1], ImageNet-normalized: low-frequency noise
    at two scales upsampled, a linear gradient, a few waves, and a little pixel noise."""
    rng = np.random.default_rng(seed)
    n, c, h, w = shape
    out = np.empty(shape, np.float32)
    yy, xx = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
    for i in range(n):
        img = (0.5 * _resize(rng.random((c, 5, 5)), h, w)
               + 0.25 * _resize(rng.random((c, 17, 17)), h, w))
        angle = rng.uniform(0, 2 * np.pi)
        grad = np.cos(angle) * xx + np.sin(angle) * yy
        img += 0.3 * rng.uniform(-1, 1, (c, 1, 1)) * grad
        for _ in range(3):
            f, phase = rng.uniform(2, 20), rng.uniform(0, 2 * np.pi)
            a = rng.uniform(0, 2 * np.pi)
            img += 0.05 * rng.uniform(0, 1, (c, 1, 1)) * np.sin(
                2 * np.pi * f * (np.cos(a) * xx + np.sin(a) * yy) + phase)
        img += 0.02 * rng.standard_normal((c, h, w))
        lo, hi = img.min(), img.max()
        out[i] = (img - lo) / max(hi - lo, 1e-6)
    if c == 3:
        out = (out - MEAN) / STD
    return out.astype(np.float32)


def sample_inputs(model, seed, like=None):
    """One seeded input set for the model's graph inputs: structured images for 4-D float inputs,
    standard normal for other floats, ids under the vocabulary for integer inputs that feed a
    Gather of an initializer, and `like`'s array (the stored input) for other integer inputs
    (an attention mask)."""
    inits = {i.name: i for i in model.graph.initializer}
    vocab = {}
    for node in model.graph.node:
        if node.op_type == "Gather" and node.input[0] in inits:
            vocab[node.input[1]] = inits[node.input[0]].dims[0]
    init_names = set(inits)
    feeds = {}
    rng = np.random.default_rng(seed)
    for i, vi in enumerate(x for x in model.graph.input if x.name not in init_names):
        t = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        if like is not None:
            dims = list(like[i].shape)
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
        if t.elem_type == TensorProto.FLOAT:
            if len(dims) == 4:
                feeds[vi.name] = structured_image(seed, tuple(dims))
            else:
                feeds[vi.name] = rng.standard_normal(dims).astype(np.float32)
        elif vi.name in vocab:
            feeds[vi.name] = rng.integers(0, vocab[vi.name], dims).astype(dtype)
        elif like is not None:
            feeds[vi.name] = like[i]
        else:
            feeds[vi.name] = np.ones(dims, dtype)
    return feeds


# ----------------------------------------------------------------------------------------------
# Running a model in Kiln


class Kiln:
    """Runs models through Kiln's Python package (the build's staged package)."""

    def __init__(self, build=DEFAULT_BUILD, threads=1):
        sys.path.insert(0, os.path.join(os.path.abspath(build), "python"))
        import kiln  # noqa: E402 (the build's package)
        self.kiln = kiln
        self.threads = threads

    def session(self, model):
        so = self.kiln.SessionOptions()
        so.intra_op_num_threads = self.threads
        data = model if isinstance(model, str) else model.SerializeToString()
        return self.kiln.InferenceSession(data, so)

    def run(self, model, feeds_list):
        """The outputs of each input set, in graph output order."""
        sess = self.session(model)
        return [sess.run(None, feeds) for feeds in feeds_list]


# ----------------------------------------------------------------------------------------------
# Graph helpers


def prepare(model):
    """A copy with Constant nodes as initializers, Identity nodes over initializers as copies of
    them, and Conv -> BatchNormalization (constant statistics, one consumer) folded."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    keep = []
    for node in g.node:
        if (node.op_type == "Constant" and len(node.attribute) == 1
                and node.attribute[0].name == "value"):
            t = onnx.TensorProto()
            t.CopyFrom(node.attribute[0].t)
            t.name = node.output[0]
            g.initializer.append(t)
            inits[t.name] = t
        elif node.op_type == "Identity" and node.input[0] in inits:
            t = numpy_helper.from_array(numpy_helper.to_array(inits[node.input[0]]), node.output[0])
            g.initializer.append(t)
            inits[t.name] = t
        else:
            keep.append(node)
    consumers = defaultdict(list)
    for node in keep:
        for x in node.input:
            consumers[x].append(node)
    producer = {o: n for n in keep for o in n.output}
    outputs = {o.name for o in g.output}
    folded = set()
    for bn in keep:
        if bn.op_type != "BatchNormalization" or len(bn.output) != 1:
            continue
        conv = producer.get(bn.input[0])
        if (conv is None or conv.op_type != "Conv" or conv.input[1] not in inits
                or len(consumers[bn.input[0]]) != 1 or bn.input[0] in outputs
                or not all(x in inits for x in bn.input[1:5])):
            continue
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (numpy_helper.to_array(inits[x]) for x in bn.input[1:5])
        w = numpy_helper.to_array(inits[conv.input[1]])
        b = (numpy_helper.to_array(inits[conv.input[2]]) if len(conv.input) > 2 and conv.input[2]
             else np.zeros(w.shape[0], np.float32))
        k = gamma / np.sqrt(var + eps)
        wname, bname = conv.input[1] + "_bn_folded", conv.output[0] + "_bn_bias"
        g.initializer.append(numpy_helper.from_array(
            (w * k.reshape(-1, *[1] * (w.ndim - 1))).astype(np.float32), wname))
        g.initializer.append(
            numpy_helper.from_array(((b - mean) * k + beta).astype(np.float32), bname))
        del conv.input[1:]
        conv.input.extend([wname, bname])
        conv.output[0] = bn.output[0]
        folded.add(id(bn))
    del g.node[:]
    g.node.extend(n for n in keep if id(n) not in folded)
    used = {x for n in g.node for x in n.input} | outputs
    kept_inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept_inits)
    return model


def float_tensors(model):
    """Names of the float tensors (shape inference, graph inputs and outputs, initializers)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    out = set()
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            out.add(vi.name)
    out.update(i.name for i in g.initializer if i.data_type == TensorProto.FLOAT)
    return out, {vi.name: vi for vi in list(g.value_info) + list(g.output)}


def quant_params(rmin, rmax):
    """uint8 asymmetric parameters of ONNX Runtime's compute_scale_zp: the range extended to
    include 0, scale (rmax - rmin) / 255, zero point round(-rmin / scale)."""
    rmin, rmax = min(float(rmin), 0.0), max(float(rmax), 0.0)
    scale = np.float32((rmax - rmin) / 255.0)
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), np.uint8(0)
    zp = np.clip(np.round(-rmin / scale), 0, 255)
    return scale, np.uint8(zp)


def quantize_weight(w, axis):
    """int8 symmetric in [-127, 127]: per tensor (axis None) or along axis. Returns (q, scale)."""
    if axis is None:
        absmax = np.float32(np.abs(w).max()) if w.size else np.float32(0)
        scale = np.float32(absmax / 127.0) if absmax > 0 else np.float32(1.0)
        return np.clip(np.round(w / scale), -127, 127).astype(np.int8), np.array(scale, np.float32)
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    absmax = np.abs(moved).max(axis=1).astype(np.float32)
    scale = np.where(absmax > 0, absmax / np.float32(127.0), np.float32(1.0)).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


# ----------------------------------------------------------------------------------------------
# Static (QDQ)


def _replace_graph(model, nodes, initializers):
    """The model with its graph's nodes and initializers replaced (the old value_info dropped:
    the quantized values have other types), com.microsoft imported when a node needs it, and
    checked (com.microsoft nodes have no schema here: the checker skips them)."""
    g = model.graph
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(initializers)
    del g.value_info[:]
    if (any(n.domain == "com.microsoft" for n in nodes)
            and not any(o.domain == "com.microsoft" for o in model.opset_import)):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.checker.check_model(model)
    return model


def plan_static(model, per_channel=True, keep_removable=False):
    """ONNX Runtime's QDQ quantizer's walk over the nodes, in order. Returns
    (nodes, activations, weights, biases): the node list (removable activations dropped and their
    producers' outputs renamed), {tensor: None (own range) or the tensor whose parameters it
    shares}, {(node index, input index): axis, None (per tensor) or "uint8" (a constant input
    quantized as an activation)}, {(node index, input index): (x, w, axis)}."""
    g = model.graph
    inits = {i.name for i in g.initializer}
    floats, _ = float_tensors(model)
    nodes = [onnx.NodeProto.FromString(n.SerializeToString()) for n in g.node]
    consumers = defaultdict(list)
    for n in nodes:
        for x in n.input:
            consumers[x].append(n)
    graph_io = {v.name for v in g.input} | {v.name for v in g.output}
    producer = {o: n for n in nodes for o in n.output}
    acts = {}          # tensor -> None (calibrated) or source tensor (same parameters)
    weights, biases = {}, {}
    removed = set()

    def activation(name):
        if name and name in floats and name not in acts:
            acts[name] = None

    for idx, node in enumerate(nodes):
        op = node.op_type
        if op in ("Conv", "Gemm", "MatMul"):
            if not all(x in floats for x in node.input[:2]):
                continue
            for j, x in enumerate(node.input[:2]):
                if x in inits and (j == 1 or op == "MatMul"):
                    if op == "Conv":
                        axis = 0
                    elif op == "Gemm":
                        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
                        axis = 0 if trans_b else 1
                    else:
                        axis = 1
                    weights[(idx, j)] = axis if per_channel else None
                else:
                    activation(x)
            if op in ("Conv", "Gemm") and len(node.input) > 2 and node.input[2] in inits \
                    and node.input[2] in floats and (idx, 1) in weights:
                beta = next((a.f for a in node.attribute if a.name == "beta"), 1.0)
                if beta == 1.0:
                    biases[(idx, 2)] = (node.input[0], node.input[1], weights[(idx, 1)])
            activation(node.output[0])
        elif op in QDQ_FULL:
            for j, x in enumerate(node.input):
                if x in inits:
                    if x in floats:
                        weights[(idx, j)] = "uint8"
                else:
                    activation(x)
            for y in node.output:
                activation(y)
        elif op in QDQ_REMOVABLE:
            x, y = node.input[0], node.output[0]
            if x not in acts:
                continue
            up = producer.get(x)
            if (not keep_removable and up is not None and acts[x] is None
                    and len(consumers[x]) == 1 and x not in graph_io):
                up.output[list(up.output).index(x)] = y
                del acts[x]
                producer[y] = up
                removed.add(idx)
            else:
                activation(x)
            activation(y)
        elif op in QDQ_SAME_AS_INPUT:
            x = node.input[0]
            if x in acts and (op != "MaxPool" or len(node.output) == 1):
                acts.setdefault(node.output[0], x if acts[x] is None else acts[x])
    kept = [n for i, n in enumerate(nodes) if i not in removed]
    # Indices into the kept list.
    remap = {old: new for new, old in enumerate(i for i in range(len(nodes)) if i not in removed)}
    weights = {(remap[i], j): a for (i, j), a in weights.items()}
    biases = {(remap[i], j): b for (i, j), b in biases.items()}
    return kept, acts, weights, biases


def calibrate(model, tensors, feeds_list, runner):
    """{tensor: (min, max)} over the input sets: the model run with the tensors as extra outputs."""
    m = onnx.ModelProto.FromString(model.SerializeToString())
    _, infos = float_tensors(m)
    present = {o.name for o in m.graph.output}
    names = [o.name for o in m.graph.output]
    for t in tensors:
        if t not in present:
            vi = infos.get(t)
            m.graph.output.append(vi if vi is not None else
                                  helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
            names.append(t)
    sess = runner.session(m)
    ranges = {}
    for feeds in feeds_list:
        for name, value in zip(names, sess.run(None, feeds)):
            if name in tensors and value.size:
                lo, hi = float(value.min()), float(value.max())
                old = ranges.get(name)
                ranges[name] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    return ranges


def quantize_static(model, feeds_list, runner, per_channel=True, keep_removable=False):
    """The QDQ model (see the module's docstring); model is an fp32 ModelProto, feeds_list the
    calibration input sets, runner a Kiln."""
    model = prepare(model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, acts, weights, biases = plan_static(model, per_channel, keep_removable)
    calibrated = [t for t, src in acts.items() if src is None]
    ranges = calibrate(model, calibrated, feeds_list, runner)
    params = {}
    for t in calibrated:
        if t in ranges:
            params[t] = quant_params(*ranges[t])
    for t, src in acts.items():
        if src is not None and src in params:
            params[t] = params[src]
    new_inits = []
    made = set()

    def add_init(arr, name):
        if name not in made:
            made.add(name)
            new_inits.append(numpy_helper.from_array(arr, name))
        return name

    # Weights and biases: quantized initializers and their DequantizeLinear nodes, placed first.
    head = []
    w_scales = {}  # a weight's DequantizeLinear output -> its scale
    for (idx, j), axis in sorted(weights.items()):
        node = nodes[idx]
        name = node.input[j]
        w = numpy_helper.to_array(inits[name])
        if axis == "uint8":
            s, z = quant_params(w.min(), w.max())
            q = np.clip(np.round(w / s) + int(z), 0, 255).astype(np.uint8)
            scale, zp = np.array(s, np.float32), np.array(z, np.uint8)
        else:
            q, scale = quantize_weight(w, axis)
            zp = np.zeros(scale.shape, np.int8)
        base = name if axis in (None, "uint8", 0) else f"{name}_axis{axis}"
        out = base + "_DequantizeLinear_Output"
        if out not in w_scales:
            w_scales[out] = scale
            add_init(q, base + "_quantized")
            add_init(scale, base + "_scale")
            add_init(zp, base + "_zero_point")
            kw = {"axis": axis} if scale.ndim == 1 else {}
            head.append(helper.make_node(
                "DequantizeLinear", [base + "_quantized", base + "_scale", base + "_zero_point"],
                [out], base + "_DequantizeLinear", **kw))
        node.input[j] = out
    for (idx, j), (x, _, axis) in sorted(biases.items()):
        node = nodes[idx]
        if x not in params:
            continue  # the input was not calibrated: the bias stays float
        scale = (np.float32(params[x][0]) * w_scales[node.input[1]]).astype(np.float32)
        q = np.round(numpy_helper.to_array(inits[node.input[j]]) /
                     np.where(scale == 0, np.float32(1), scale)).astype(np.int32)
        base = node.input[j]
        if base + "_quantized" in made:  # a bias shared by two nodes: one copy each
            base = f"{base}_{idx}"
        add_init(q, base + "_quantized")
        add_init(scale, base + "_quantized_scale")
        add_init(np.zeros(scale.shape, np.int32), base + "_quantized_zero_point")
        kw = {"axis": 0} if scale.ndim == 1 else {}
        head.append(helper.make_node(
            "DequantizeLinear",
            [base + "_quantized", base + "_quantized_scale", base + "_quantized_zero_point"],
            [base + "_DequantizeLinear_Output"], base + "_DequantizeLinear", **kw))
        node.input[j] = base + "_DequantizeLinear_Output"

    # Activations: one QuantizeLinear -> DequantizeLinear pair per tensor, right after its
    # producer (graph inputs: at the top); every consumer reads the DequantizeLinear.
    outputs = {o.name for o in g.output}
    pairs = {}
    for t in acts:
        if t not in params:
            continue
        s, z = params[t]
        add_init(np.array(s, np.float32), t + "_scale")
        add_init(np.array(z, np.uint8), t + "_zero_point")
        if t in outputs:  # the graph output keeps its name, as the DequantizeLinear's output
            src, dq = t + "_QuantizeLinear_Input", t
        else:
            src, dq = t, t + "_DequantizeLinear_Output"
        pairs[t] = (src, dq, [
            helper.make_node("QuantizeLinear", [src, t + "_scale", t + "_zero_point"],
                             [t + "_QuantizeLinear_Output"], t + "_QuantizeLinear"),
            helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", t + "_scale",
                                                  t + "_zero_point"], [dq],
                             t + "_DequantizeLinear")])
    for n in nodes:
        for j, x in enumerate(n.input):
            if x in pairs and x not in outputs:
                n.input[j] = pairs[x][1]
        for j, y in enumerate(n.output):
            if y in pairs and y in outputs:
                n.output[j] = pairs[y][0]
    ordered = list(head)
    graph_inputs = {v.name for v in g.input}
    for t in pairs:
        if t in graph_inputs:
            ordered.extend(pairs[t][2])
    by_output = {pairs[t][0]: t for t in pairs}
    for n in nodes:
        ordered.append(n)
        for y in n.output:
            if y in by_output:
                ordered.extend(pairs[by_output[y]][2])
    used = {x for n in ordered for x in n.input}
    return _replace_graph(model, ordered,
                          [i for i in list(g.initializer) + new_inits if i.name in used])


# ----------------------------------------------------------------------------------------------
# Dynamic


def quantize_dynamic(model, per_channel=False):
    """The DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul model (see the docstring)."""
    model = prepare(model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    floats, _ = float_tensors(model)
    out_nodes, new_inits = [], []
    dql = {}       # activation -> (q, scale, zp)
    wq = {}        # weight -> (q, scale, zp)
    for node in g.node:
        b = node.input[1] if node.op_type == "MatMul" else None
        if (b is None or b not in inits or inits[b].data_type != TensorProto.FLOAT
                or len(inits[b].dims) != 2 or node.input[0] not in floats
                or node.input[0] in inits):
            out_nodes.append(node)
            continue
        x = node.input[0]
        if x not in dql:
            dql[x] = (x + "_quantized", x + "_scale", x + "_zero_point")
            out_nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(dql[x]),
                                              x + "_QuantizeLinear"))
        if b not in wq:
            q, scale = quantize_weight(numpy_helper.to_array(inits[b]), 1 if per_channel else None)
            wq[b] = (b + "_quantized", b + "_scale", b + "_zero_point")
            new_inits += [numpy_helper.from_array(q, wq[b][0]),
                          numpy_helper.from_array(scale, wq[b][1]),
                          numpy_helper.from_array(np.zeros(scale.shape, np.int8), wq[b][2])]
        xq, xs, xz = dql[x]
        bq, bs, bz = wq[b]
        name = (node.name or node.output[0]) + "_quant"
        y = node.output[0]
        out_nodes += [
            helper.make_node("MatMulInteger", [xq, bq, xz, bz], [y + "_output_quantized"], name),
            helper.make_node("Cast", [y + "_output_quantized"],
                             [y + "_output_quantized_cast_output"],
                             y + "_output_quantized_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [xs, bs], [name + "_scales_mul:0"], name + "_scales_mul"),
            helper.make_node("Mul", [y + "_output_quantized_cast_output", name + "_scales_mul:0"],
                             [y], name + "_output_scale_mul")]
    used = {x for n in out_nodes for x in n.input} | {o.name for o in g.output}
    return _replace_graph(model, out_nodes,
                          [i for i in g.initializer if i.name in used] + new_inits)


# ----------------------------------------------------------------------------------------------
# N-bit weights (com.microsoft MatMulNBits)


def quantize_blockwise(w, bits=4, block_size=32, symmetric=False):
    """ONNX Runtime's block-wise weight quantization (MLAS's MlasQuantizeBlockwise, which its
    MatMul4BitsQuantizer calls) of w [K, N] along K. Returns (packed uint8 [N, k_blocks,
    block_size * bits / 8], scales float32 [N, k_blocks], zero points uint8 [N, k_blocks]), K
    padded with zeros to k_blocks * block_size. Asymmetric: each block's range extended to
    include 0, scale (max - min) / (2^bits - 1), zero point round(-min / scale) clamped;
    symmetric: scale = v / -2^(bits - 1) for the block's value v of largest magnitude, zero point
    2^(bits - 1). Values round(v / scale + zero point) (half away from zero) clamped to
    [0, 2^bits - 1], packed 8 / bits to a byte from the low bits up."""
    k, n = w.shape
    qmax = (1 << bits) - 1
    blocks = -(-k // block_size)
    padded = np.zeros((blocks * block_size, n), np.float32)
    padded[:k] = w
    x = padded.T.reshape(n, blocks, block_size)           # [N, blocks, block_size]
    if symmetric:
        lo, hi = x.min(axis=2), x.max(axis=2)
        big = np.where(np.abs(hi) > np.abs(lo), hi, lo)
        scale = (big / np.float32(-(1 << (bits - 1)))).astype(np.float32)
        zp = np.full(scale.shape, 1 << (bits - 1), np.uint8)
    else:
        lo = np.minimum(x.min(axis=2), np.float32(0))
        hi = np.maximum(x.max(axis=2), np.float32(0))
        scale = ((hi - lo) / np.float32(qmax)).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            zf = np.where(scale != 0, np.float32(0) - lo / scale, lo).astype(np.float32)
        zp = np.clip(np.floor(zf + np.float32(0.5)), 0, qmax).astype(np.uint8)
    with np.errstate(divide="ignore"):
        recip = np.where(scale != 0, np.float32(1) / scale, np.float32(0)).astype(np.float32)
    v = x * recip[..., None] + zp[..., None].astype(np.float32)
    q = np.clip(np.sign(v) * np.floor(np.abs(v) + np.float32(0.5)), 0, qmax).astype(np.uint8)
    return pack_bits(q, bits), scale, zp


def pack_bits(q, bits):
    """Values of `bits` bits along the last axis, 8 / bits to a byte from the low bits up (the
    last axis padded with zeros to a whole byte)."""
    per = 8 // bits
    pad = -q.shape[-1] % per
    if pad:
        q = np.concatenate([q, np.zeros(q.shape[:-1] + (pad,), np.uint8)], axis=-1)
    q = q.reshape(q.shape[:-1] + (-1, per)).astype(np.uint16)
    out = np.zeros(q.shape[:-1], np.uint16)
    for i in range(per):
        out |= q[..., i] << (i * bits)
    return out.astype(np.uint8)


def unpack_bits(packed, bits, count):
    """pack_bits' inverse: the first `count` values along the last axis."""
    per = 8 // bits
    parts = [(packed >> (i * bits)) & ((1 << bits) - 1) for i in range(per)]
    return np.stack(parts, axis=-1).reshape(packed.shape[:-1] + (-1,))[..., :count]


def quantize_nbits(model, bits=4, block_size=32, symmetric=False, gemm=True):
    """Each MatMul whose B is a constant 2-D float initializer [K, N] becomes com.microsoft
    MatMulNBits(A, B packed, scales, zero points) (attributes K, N, bits, block_size,
    accuracy_level 0; no zero points when symmetric), as ONNX Runtime's MatMul4BitsQuantizer
    writes it (quantize_blockwise). With `gemm`, also a Gemm with a constant 2-D B (transB
    either way), transA 0, alpha 1 and C absent or a constant [N] or [1, N] (beta folded into
    it), C as MatMulNBits' bias; other Gemms stay float (ONNX Runtime's quantizer leaves every
    Gemm float). Output names are kept."""
    model = prepare(model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    out_nodes, new_inits = [], []
    done = {}      # (weight name, transposed) -> (B, scales, zero points or "", K, N)

    def attr(node, name, default):
        a = next((a for a in node.attribute if a.name == name), None)
        return default if a is None else helper.get_attribute_value(a)

    def weight(name, trans):
        key = (name, trans)
        if key not in done:
            w = numpy_helper.to_array(inits[name]).astype(np.float32)
            w = w.T if trans else w
            packed, scale, zp = quantize_blockwise(w, bits, block_size, symmetric)
            base = f"{name}{'_T' if trans else ''}_Q{bits}G{block_size}"
            new_inits.append(numpy_helper.from_array(packed, base))
            new_inits.append(numpy_helper.from_array(scale.reshape(-1), base + "_scales"))
            zname = ""
            if not symmetric:
                zname = base + "_zero_points"
                new_inits.append(numpy_helper.from_array(pack_bits(zp, bits), zname))
            done[key] = (base, base + "_scales", zname, w.shape[0], w.shape[1])
        return done[key]

    for node in g.node:
        b = node.input[1] if node.op_type in ("MatMul", "Gemm") and len(node.input) > 1 else ""
        ok = (b in inits and inits[b].data_type == TensorProto.FLOAT and len(inits[b].dims) == 2
              and node.input[0] not in inits)
        bias = None
        if ok and node.op_type == "Gemm":
            ok = gemm and attr(node, "transA", 0) == 0 and attr(node, "alpha", 1.0) == 1.0
            n = inits[b].dims[0 if attr(node, "transB", 0) else 1]
            c = node.input[2] if len(node.input) > 2 else ""
            if ok and c:
                cv = numpy_helper.to_array(inits[c]) if c in inits else None
                ok = (cv is not None and cv.dtype == np.float32
                      and cv.shape in ((n,), (1, n)))
                if ok:
                    bias = (cv.reshape(n) * np.float32(attr(node, "beta", 1.0))).astype(
                        np.float32)
        if not ok:
            out_nodes.append(node)
            continue
        trans = node.op_type == "Gemm" and attr(node, "transB", 0) == 1
        bq, scales, zps, k, n = weight(b, trans)
        inputs = [node.input[0], bq, scales, zps]
        if bias is not None:
            bname = (node.name or node.output[0]) + "_bias"
            new_inits.append(numpy_helper.from_array(bias, bname))
            inputs += ["", bname]
        while inputs[-1] == "":
            inputs.pop()
        out_nodes.append(helper.make_node(
            "MatMulNBits", inputs, [node.output[0]], f"{node.name or node.output[0]}_Q{bits}",
            domain="com.microsoft", K=k, N=n, bits=bits, block_size=block_size,
            accuracy_level=0))
    used = {x for n in out_nodes for x in n.input} | {o.name for o in g.output}
    return _replace_graph(model, out_nodes,
                          [i for i in g.initializer if i.name in used] + new_inits)


# ----------------------------------------------------------------------------------------------
# Accuracy


def agreement(refs, gots):
    """refs, gots: per input set, the list of outputs. Per output: worst and mean cosine
    similarity, max abs diff, and top-1 agreement where the model's one output is [1, classes]
    (else None)."""
    out = []
    for k in range(len(refs[0])):
        cos, diff, same = [], 0.0, 0
        shape = refs[0][k].shape
        classifier = len(refs[0]) == 1 and len(shape) == 2 and shape[0] == 1 and shape[1] > 1
        for r, q in zip(refs, gots):
            a, b = r[k].astype(np.float64).ravel(), q[k].astype(np.float64).ravel()
            na, nb = np.linalg.norm(a), np.linalg.norm(b)
            c = float(a @ b / (na * nb)) if na > 0 and nb > 0 else float(na == nb)
            cos.append(c)
            diff = max(diff, float(np.abs(a - b).max()) if a.size else 0.0)
            same += int(np.argmax(a) == np.argmax(b))
        out.append({"cosine": min(cos), "mean_cosine": sum(cos) / len(cos), "max_abs_diff": diff,
                    "top1": same / len(refs) if classifier else None})
    return out


def eval_inputs(model, count, like=None):
    return [sample_inputs(model, EVAL_SEED + i, like) for i in range(count)]


def stored_inputs(model_dir):
    """The model directory's input_<i>.npy, in order, or None."""
    with open(os.path.join(model_dir, "meta.json")) as f:
        n = len(json.load(f)["inputs"])
    return [np.load(os.path.join(model_dir, f"input_{i}.npy")) for i in range(n)]


# ----------------------------------------------------------------------------------------------
# The zoo


def stamp():
    h = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def zoo_jobs(name):
    """What `zoo` writes for a ZOO entry: [(fp32 model, quantized copy, mode)], in order."""
    if ZOO[name] != "nbits":
        return [(name, name + "_int8", ZOO[name])]
    src, step = NBITS_ZOO[name]
    return [(src, name, "nbits"), (src, src + "_int8", "dynamic"),
            (step, f"{step}_q{NBITS['bits']}", "nbits"), (step, step + "_int8", "dynamic")]


def quantize_zoo_model(models, src_name, dst_name, mode, runner, count=8):
    """Writes models/<dst_name> from models/<src_name> in the given mode; returns (path,
    reused)."""
    src, dst = os.path.join(models, src_name), os.path.join(models, dst_name)
    done = os.path.join(dst, ".quantize-" + stamp())
    if os.path.exists(done) and os.path.exists(os.path.join(src, "model.onnx")) and \
            os.path.getmtime(done) >= os.path.getmtime(os.path.join(src, "model.onnx")):
        return os.path.join(dst, "model.onnx"), True
    fp32 = onnx.load(os.path.join(src, "model.onnx"))
    like = stored_inputs(src)
    if mode == "static":
        calib = [sample_inputs(fp32, CALIB_SEED + i, like) for i in range(CALIB_IMAGES)]
        q = quantize_static(fp32, calib, runner)
        recipe = (f"static QDQ, uint8 activations (MinMax over {CALIB_IMAGES} structured images), "
                  "int8 weights per channel, int32 biases")
    elif mode == "nbits":
        q = quantize_nbits(fp32, **NBITS)
        recipe = (f"weight-only {NBITS['bits']}-bit, com.microsoft MatMulNBits (every MatMul with "
                  f"a constant weight, the LM head included), blocks of {NBITS['block_size']} "
                  "along K, asymmetric (uint8 zero points), as ONNX Runtime's "
                  "MatMul4BitsQuantizer; activations float")
    else:
        q = quantize_dynamic(fp32)
        recipe = "dynamic, DynamicQuantizeLinear + MatMulInteger, int8 weights per tensor"
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    path = os.path.join(dst, "model.onnx")
    onnx.save(q, path)
    for f in os.listdir(src):
        if f.startswith("input_") and f.endswith(".npy"):
            shutil.copy(os.path.join(src, f), dst)
    with open(os.path.join(src, "meta.json")) as f:
        meta = json.load(f)
    feeds = eval_inputs(fp32, count, like)
    acc = agreement(runner.run(os.path.join(src, "model.onnx"), feeds), runner.run(path, feeds))
    meta.update({"quantization": recipe, "fp32": src_name,
                 "kiln_vs_fp32": {"inputs": count, "outputs": acc}})
    with open(os.path.join(dst, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    open(done, "w").close()
    return path, False


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("static")
    s.add_argument("model")
    s.add_argument("out")
    s.add_argument("--calib", type=int, default=CALIB_IMAGES)
    s.add_argument("--seed", type=int, default=CALIB_SEED)
    s.add_argument("--per-tensor", action="store_true")
    s.add_argument("--keep-removable-activations", action="store_true")
    d = sub.add_parser("dynamic")
    d.add_argument("model")
    d.add_argument("out")
    d.add_argument("--per-channel", action="store_true")
    nb = sub.add_parser("nbits")
    nb.add_argument("model")
    nb.add_argument("out")
    nb.add_argument("--bits", type=int, choices=(2, 4, 8), default=4)
    nb.add_argument("--block-size", type=int, default=32)
    nb.add_argument("--symmetric", action="store_true")
    nb.add_argument("--no-gemm", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("fp32")
    c.add_argument("int8")
    c.add_argument("--inputs", help="a model directory whose input_<i>.npy give shapes and masks")
    c.add_argument("--count", type=int, default=8)
    z = sub.add_parser("zoo")
    z.add_argument("models")
    z.add_argument("--only", action="append", choices=sorted(ZOO))
    for q in (s, c, z):
        q.add_argument("--build", default=DEFAULT_BUILD)
    args = p.parse_args()

    if args.cmd == "dynamic":
        onnx.save(quantize_dynamic(onnx.load(args.model), args.per_channel), args.out)
        return
    if args.cmd == "nbits":
        onnx.save(quantize_nbits(onnx.load(args.model), args.bits, args.block_size,
                                 args.symmetric, not args.no_gemm), args.out)
        return
    runner = Kiln(args.build)
    if args.cmd == "static":
        fp32 = onnx.load(args.model)
        calib = [sample_inputs(fp32, args.seed + i) for i in range(args.calib)]
        onnx.save(quantize_static(fp32, calib, runner, not args.per_tensor,
                                  args.keep_removable_activations), args.out)
    elif args.cmd == "compare":
        fp32 = onnx.load(args.fp32)
        like = stored_inputs(args.inputs) if args.inputs else None
        feeds = eval_inputs(fp32, args.count, like)
        acc = agreement(runner.run(args.fp32, feeds), runner.run(args.int8, feeds))
        for k, a in enumerate(acc):
            top1 = "" if a["top1"] is None else f", top-1 agreement {a['top1']:.0%}"
            print(f"output {k}: cosine worst {a['cosine']:.5f} mean {a['mean_cosine']:.5f}, "
                  f"max abs diff {a['max_abs_diff']:.4g}{top1}")
    else:
        for name in args.only or ZOO:
            for src, dst, mode in zoo_jobs(name):
                start = time.monotonic()
                path, reused = quantize_zoo_model(args.models, src, dst, mode, runner)
                what = "reused" if reused else f"{time.monotonic() - start:.1f} s"
                print(f"{path}  {os.path.getsize(path) / 1e6:.1f} MB  {what}", flush=True)


if __name__ == "__main__":
    main()
