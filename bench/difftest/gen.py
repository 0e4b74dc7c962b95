"""Random small ONNX models for the differential test (difftest.py): one generator per operator
or pattern, each drawing attributes, shapes and types from a seeded numpy Generator.

A generator takes (rng, case) and fills the case with nodes, inputs, initializers and outputs.
It may draw combinations the spec forbids: when both runtimes refuse a case, difftest.py drops it.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NP_TO_ONNX = {
    np.dtype("float32"): TensorProto.FLOAT,
    np.dtype("float64"): TensorProto.DOUBLE,
    np.dtype("float16"): TensorProto.FLOAT16,
    np.dtype("int8"): TensorProto.INT8,
    np.dtype("uint8"): TensorProto.UINT8,
    np.dtype("int16"): TensorProto.INT16,
    np.dtype("uint16"): TensorProto.UINT16,
    np.dtype("int32"): TensorProto.INT32,
    np.dtype("uint32"): TensorProto.UINT32,
    np.dtype("int64"): TensorProto.INT64,
    np.dtype("uint64"): TensorProto.UINT64,
    np.dtype("bool"): TensorProto.BOOL,
}

F32 = np.dtype("float32")
I64 = np.dtype("int64")


class Case:
    """One model under construction."""

    def __init__(self, rng, opset=17):
        self.rng = rng
        self.opset = opset
        self.nodes = []
        self.inputs = []  # (name, array)
        self.inits = []  # (name, array)
        self.protos = []  # initializers as TensorProtos (types numpy lacks: int4, uint4)
        self.outputs = []  # (name, dtype)
        self.ms_opset = None
        self.int_tol = 0  # integer outputs may differ by this much (one quantization step)
        self.counter = 0
        self.symbolic = rng.random() < 0.25  # graph inputs with named dimensions

    def name(self, prefix="t"):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def input(self, array, prefix="x"):
        n = self.name(prefix)
        self.inputs.append((n, np.asarray(array)))
        return n

    def init(self, array, prefix="w"):
        n = self.name(prefix)
        self.inits.append((n, np.asarray(array)))
        return n

    def value(self, array, prefix="v"):
        """An input or an initializer, at random (initializers take the constant paths)."""
        return self.init(array, prefix) if self.rng.random() < 0.5 else self.input(array, prefix)

    def node(self, op, ins, n_out=1, domain="", **attrs):
        outs = [self.name("y") for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op, ins, outs, domain=domain or None, **attrs))
        return outs[0] if n_out == 1 else outs

    def output(self, name, dtype):
        self.outputs.append((name, np.dtype(dtype)))

    def model(self):
        def vi(name, arr, symbolic):
            dims = list(arr.shape)
            if symbolic:
                dims = ["d%d_%s" % (i, name) if self.rng.random() < 0.5 else d
                        for i, d in enumerate(dims)]
            return helper.make_tensor_value_info(name, NP_TO_ONNX[arr.dtype], dims)

        graph = helper.make_graph(
            self.nodes, "difftest",
            [vi(n, a, self.symbolic) for n, a in self.inputs],
            [helper.make_tensor_value_info(n, NP_TO_ONNX[d], None) for n, d in self.outputs],
            initializer=[numpy_helper.from_array(a, n) for n, a in self.inits] + self.protos)
        opsets = [helper.make_opsetid("", self.opset)]
        if self.ms_opset:
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        model = helper.make_model(graph, opset_imports=opsets, producer_name="kiln-difftest")
        model.ir_version = 8 if self.opset <= 18 else 9
        return model


# ---------------------------------------------------------------------------------- helpers


def randf(rng, shape, lo=-2.0, hi=2.0, dtype=F32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def rand_shape(rng, rank, lo=1, hi=5):
    return [int(rng.integers(lo, hi + 1)) for _ in range(rank)]


def broadcast_partner(rng, shape):
    """A shape that broadcasts against SHAPE (fewer dims, some ones)."""
    rank = int(rng.integers(0, len(shape) + 1))
    tail = shape[len(shape) - rank:] if rank else []
    return [1 if rng.random() < 0.3 else d for d in tail]


def pick(rng, items):
    return items[int(rng.integers(0, len(items)))]


def maybe(rng, p=0.5):
    return rng.random() < p


def int_array(rng, shape, lo, hi, dtype=I64):
    return rng.integers(lo, hi, size=shape).astype(dtype)


# ---------------------------------------------------------------------------------- operators

GENERATORS = {}


def gen(name):
    def register(f):
        assert name not in GENERATORS, "two generators named " + name
        GENERATORS[name] = f
        return f
    return register


def conv_like(rng, c, transpose):
    nd = pick(rng, [1, 2, 2, 2, 3])
    group = pick(rng, [1, 1, 1, 2, 3]) if not maybe(rng, 0.2) else None
    cin_g = int(rng.integers(1, 5))
    cout_g = int(rng.integers(1, 5))
    if group is None:  # depthwise
        cin_g, cout_g = 1, int(rng.integers(1, 3))
        group = int(rng.integers(2, 9))
    cin, cout = cin_g * group, cout_g * group
    kernel = [int(rng.integers(1, 5)) for _ in range(nd)]
    strides = [int(rng.integers(1, 4)) for _ in range(nd)]
    dil = [int(rng.integers(1, 3)) if maybe(rng, 0.3) else 1 for _ in range(nd)]
    spatial = [int(rng.integers(max(4, (k - 1) * d + 1), 12)) for k, d in zip(kernel, dil)]
    if nd == 3:
        spatial = [min(s, 7) for s in spatial]
    n = int(rng.integers(1, 3))
    x = c.input(randf(rng, [n, cin] + spatial))
    wshape = [cin, cout_g] + kernel if transpose else [cout, cin_g] + kernel
    w = c.value(randf(rng, wshape, -1, 1))
    ins = [x, w]
    if maybe(rng):
        ins.append(c.value(randf(rng, [cout])))
    attrs = {"group": group if group > 1 or maybe(rng) else None,
             "strides": strides if maybe(rng, 0.8) else None,
             "dilations": dil if maybe(rng, 0.8) else None,
             "kernel_shape": kernel if maybe(rng) else None}
    modes = ["pads", "pads", "none", "VALID"]
    # SAME with a span ((kernel - 1) * dilation + 1) under the stride: ONNX gives in * stride
    # outputs (negative padding), ONNX Runtime clamps the padding at 0 and gives fewer. Kiln
    # follows ONNX, so the comparison leaves it out. ONNX Runtime refuses dilated SAME Convs.
    eff_dil = attrs["dilations"] or [1] * nd  # (what the node says: an omitted one is 1)
    eff_strides = attrs["strides"] or [1] * nd
    if all((k - 1) * d + 1 >= s for k, d, s in zip(kernel, eff_dil, eff_strides)) or not transpose:
        if not (not transpose and any(d > 1 for d in eff_dil)):
            modes += ["SAME_UPPER", "SAME_LOWER"]
    mode = pick(rng, modes)
    if mode == "pads":
        attrs["pads"] = [int(rng.integers(0, k)) for k in kernel] * 2 if not maybe(rng, 0.5) else \
            [int(rng.integers(0, k)) for k in kernel + kernel]
    elif mode != "none":
        attrs["auto_pad"] = mode
    if transpose and not mode.startswith("SAME"):  # (these set strides the SAME check has not seen)
        if maybe(rng, 0.4):
            attrs["output_padding"] = [int(rng.integers(0, max(s, d))) for s, d in zip(strides, dil)]
            attrs["strides"] = strides
            attrs["dilations"] = dil
        elif maybe(rng, 0.2) and mode in ("pads", "none"):
            attrs.pop("pads", None)
            attrs["strides"] = strides
            attrs["output_shape"] = [s * st + int(rng.integers(0, st)) for s, st in zip(spatial, strides)]
    c.output(c.node("ConvTranspose" if transpose else "Conv", ins, **attrs), F32)


@gen("Conv")
def g_conv(rng, c):
    conv_like(rng, c, False)


@gen("ConvTranspose")
def g_convt(rng, c):
    conv_like(rng, c, True)


@gen("Pool")
def g_pool(rng, c):
    op = pick(rng, ["MaxPool", "MaxPool", "AveragePool", "AveragePool", "LpPool"])
    c.opset = pick(rng, [11, 17, 19]) if op != "LpPool" else pick(rng, [11, 18])
    nd = pick(rng, [1, 2, 2, 3])
    kernel = [int(rng.integers(1, 5)) for _ in range(nd)]
    strides = [int(rng.integers(1, 4)) for _ in range(nd)]
    dil = [int(rng.integers(1, 3)) if maybe(rng, 0.3) else 1 for _ in range(nd)]
    spatial = [int(rng.integers((k - 1) * d + 1, 11)) for k, d in zip(kernel, dil)]
    x = c.input(randf(rng, [int(rng.integers(1, 3)), int(rng.integers(1, 5))] + spatial))
    attrs = {"kernel_shape": kernel, "strides": strides if maybe(rng, 0.8) else None}
    if op == "MaxPool" or (op == "AveragePool" and c.opset >= 19) or (op == "LpPool" and c.opset >= 18):
        if maybe(rng, 0.4):
            attrs["dilations"] = dil
    if op != "LpPool" or c.opset >= 18:
        attrs["ceil_mode"] = int(rng.integers(0, 2)) if maybe(rng) else None
    modes = ["pads", "pads", "none", "VALID"]
    dilated = "dilations" in attrs and any(d > 1 for d in attrs["dilations"])
    stride = attrs.get("strides") or [1] * nd
    if not dilated and all(k >= s for k, s in zip(kernel, stride)):
        # Left out: ONNX Runtime sizes dilated SAME pools as if undilated (one output short), and
        # pads a kernel under its stride by a negative amount, which shifts the windows (Kiln
        # pads 0, as TensorFlow's SAME).
        modes += ["SAME_UPPER", "SAME_LOWER"]
    mode = pick(rng, modes)
    if mode == "pads":
        attrs["pads"] = [int(rng.integers(0, k)) for k in kernel + kernel]
    elif mode != "none":
        attrs["auto_pad"] = mode
    if op == "AveragePool":
        attrs["count_include_pad"] = int(rng.integers(0, 2)) if maybe(rng) else None
    if op == "LpPool":
        attrs["p"] = pick(rng, [1, 2, 3])
    if op == "MaxPool" and maybe(rng, 0.3) and nd <= 2:
        attrs.pop("dilations", None) if maybe(rng) else None
        attrs["storage_order"] = int(rng.integers(0, 2)) if maybe(rng) else None
        y, idx = c.node(op, [x], n_out=2, **attrs)
        c.output(y, F32)
        c.output(idx, I64)
        return
    c.output(c.node(op, [x], **attrs), F32)


@gen("GlobalPool")
def g_gpool(rng, c):
    op = pick(rng, ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"])
    rank = pick(rng, [3, 4, 4, 5])
    x = c.input(randf(rng, rand_shape(rng, rank, 1, 6)))
    attrs = {"p": pick(rng, [1, 2, 3])} if op == "GlobalLpPool" and maybe(rng) else {}
    c.output(c.node(op, [x], **attrs), F32)


@gen("Resize")
def g_resize(rng, c):
    c.opset = pick(rng, [11, 13, 18, 19])
    rank = pick(rng, [2, 3, 4, 4, 4, 5])
    shape = rand_shape(rng, rank, 1, 6)
    x = c.input(randf(rng, shape))
    mode = pick(rng, ["nearest", "linear", "cubic"])
    ctms = ["half_pixel", "asymmetric", "pytorch_half_pixel", "align_corners", "tf_crop_and_resize"]
    if c.opset >= 19:
        ctms.append("half_pixel_symmetric")
    ctm = pick(rng, ctms)
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm}
    if mode == "nearest":
        attrs["nearest_mode"] = pick(rng, ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
    if mode == "cubic":
        attrs["cubic_coeff_a"] = pick(rng, [-0.75, -0.5, -0.6])
        attrs["exclude_outside"] = int(rng.integers(0, 2))
    # Only the last two axes resize for linear/cubic in ONNX Runtime; nearest may resize any.
    resized = list(range(rank)) if mode == "nearest" else list(range(max(0, rank - 2), rank))
    axes = None
    if c.opset >= 18 and maybe(rng, 0.3):
        axes = sorted(set(int(a) for a in rng.choice(resized, size=int(rng.integers(1, len(resized) + 1)))))
        attrs["axes"] = axes
        if maybe(rng, 0.3):
            attrs["antialias"] = 1
    elif c.opset >= 18 and maybe(rng, 0.2) and mode != "nearest":
        attrs["antialias"] = 1
    sel = axes if axes is not None else list(range(rank))
    roi = ""
    if ctm == "tf_crop_and_resize":
        lo = rng.uniform(0, 0.4, size=len(sel))
        hi = rng.uniform(0.6, 1.0, size=len(sel))
        full_lo = np.zeros(len(sel))
        full_hi = np.ones(len(sel))
        for j, a in enumerate(sel):
            if a in resized:
                full_lo[j], full_hi[j] = lo[j], hi[j]
        roi = c.init(np.concatenate([full_lo, full_hi]).astype(F32))
        attrs["extrapolation_value"] = float(rng.uniform(-1, 1)) if maybe(rng) else None
    use_sizes = maybe(rng)
    if use_sizes:
        sizes = [int(rng.integers(1, 2 * shape[a] + 3)) if a in resized else shape[a] for a in sel]
        if c.opset >= 18 and maybe(rng, 0.3) and axes is None:
            attrs["keep_aspect_ratio_policy"] = pick(rng, ["not_larger", "not_smaller"])
        scales = "" if c.opset >= 13 else c.init(np.zeros([0], F32))
        ins = [x, roi if roi else "", scales, c.value(np.array(sizes, I64))]
    else:
        # Nearest takes scales exact in binary: ONNX Runtime computes coordinates in float32, Kiln
        # (and the ONNX reference) in double, and 1.3 or 0.6 make ties that round apart.
        choices = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.75] + ([0.6, 1.3] if mode != "nearest" else [])
        scales = [float(pick(rng, choices)) if a in resized else 1.0 for a in sel]
        ins = [x, roi if roi else "", c.value(np.array(scales, F32))]
    if c.opset == 11 and not roi:
        ins[1] = c.init(np.zeros([0], F32))
    c.output(c.node("Resize", ins, **attrs), F32)


@gen("Gather")
def g_gather(rng, c):
    op = pick(rng, ["Gather", "GatherElements", "GatherND"])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 5)
    dtype = pick(rng, [F32, F32, I64, np.dtype("int32"), np.dtype("uint8")])
    data = c.input(randf(rng, shape, -5, 5).astype(dtype))
    itype = pick(rng, [I64, np.dtype("int32")])
    if op == "Gather":
        axis = int(rng.integers(-rank, rank))
        idx_shape = rand_shape(rng, int(rng.integers(0, 3)), 1, 4)
        idx = int_array(rng, idx_shape, -shape[axis], shape[axis], itype)
        c.output(c.node(op, [data, c.value(idx)], axis=axis), dtype)
    elif op == "GatherElements":
        axis = int(rng.integers(-rank, rank))
        idx_shape = list(shape)
        idx_shape[axis] = int(rng.integers(1, 5))
        idx = int_array(rng, idx_shape, -shape[axis], shape[axis], itype)
        c.output(c.node(op, [data, c.value(idx)], axis=axis), dtype)
    else:
        b = int(rng.integers(0, rank))
        k = int(rng.integers(1, rank - b + 1))
        idx_shape = shape[:b] + rand_shape(rng, int(rng.integers(0, 2)), 1, 3) + [k]
        cols = [int_array(rng, idx_shape[:-1] + [1], -shape[b + j], shape[b + j]) for j in range(k)]
        idx = np.concatenate(cols, axis=-1).astype(I64)
        c.output(c.node(op, [data, c.value(idx)], batch_dims=b if b else None), dtype)


@gen("Scatter")
def g_scatter(rng, c):
    op = pick(rng, ["ScatterElements", "ScatterND"])
    c.opset = pick(rng, [13, 16, 18])
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, 2, 5)
    data = c.input(randf(rng, shape))
    red = pick(rng, ["none", "add", "mul"] + (["min", "max"] if c.opset >= 18 else []))
    attrs = {"reduction": red} if c.opset >= 16 and red != "none" else {}
    if op == "ScatterElements":
        axis = int(rng.integers(-rank, rank))
        n = shape[axis]
        idx_shape = [int(rng.integers(1, d + 1)) for d in shape]
        if red == "none" or c.opset < 16:  # unique targets along the axis
            idx_shape[axis] = int(rng.integers(1, n + 1))
            idx = np.stack([rng.permutation(n)[:idx_shape[axis]]
                            for _ in range(int(np.prod(idx_shape)) // idx_shape[axis])])
            idx = np.moveaxis(idx.reshape([-1] + [idx_shape[axis]]), -1, 0)
            other = [d for i, d in enumerate(idx_shape) if i != (axis % rank)]
            idx = np.moveaxis(idx.reshape([idx_shape[axis]] + other), 0, axis % rank)
            idx = np.where(rng.random(idx.shape) < 0.3, idx - n, idx).astype(I64)
        else:
            idx = int_array(rng, idx_shape, -n, n)
        upd = randf(rng, list(idx.shape))
        c.output(c.node(op, [data, c.value(idx), c.value(upd)], axis=axis, **attrs), F32)
    else:
        k = int(rng.integers(1, rank + 1))
        combos = np.array(np.meshgrid(*[np.arange(d) for d in shape[:k]], indexing="ij")).reshape(k, -1).T
        m = int(rng.integers(1, len(combos) + 1))
        if red == "none" or c.opset < 16:
            chosen = combos[rng.permutation(len(combos))[:m]]
        else:
            chosen = combos[rng.integers(0, len(combos), size=m)]
        idx = chosen.reshape([m, k]).astype(I64)
        upd = randf(rng, [m] + shape[k:])
        c.output(c.node(op, [data, c.value(idx), c.value(upd)], **attrs), F32)


@gen("Slice")
def g_slice(rng, c):
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 7)
    x = c.input(randf(rng, shape))
    axes = list(rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
    starts, ends, steps = [], [], []
    for a in axes:
        d = shape[a]
        step = int(pick(rng, [1, 1, 2, 3, -1, -2]))
        s = int(rng.integers(-d - 2, d + 3))
        e = int(rng.integers(-d - 2, d + 3))
        if maybe(rng, 0.1):  # "to the end", as the spec recommends: INT_MAX forward, INT_MIN back
            e = 2**63 - 1 if step > 0 else -(2**63)
            # (ONNX Runtime also reads INT_MAX as the end when stepping back; ONNX clamps it to
            # dims - 1, numpy too, and so does Kiln: that combination is left out.)
        starts.append(s)
        ends.append(e)
        steps.append(step)
    neg_axes = [int(a) - rank if maybe(rng, 0.3) else int(a) for a in axes]
    ins = [x, c.value(np.array(starts, I64)), c.value(np.array(ends, I64))]
    if maybe(rng, 0.8):
        ins.append(c.value(np.array(neg_axes, I64)))
        if any(s != 1 for s in steps) or maybe(rng):
            ins.append(c.value(np.array(steps, I64)))
    elif sorted(axes) == list(range(len(axes))):
        pass
    else:
        ins.append(c.value(np.array(neg_axes, I64)))
    c.output(c.node("Slice", ins), F32)


@gen("Pad")
def g_pad(rng, c):
    c.opset = pick(rng, [13, 18, 19])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 2, 6)
    modes = ["constant", "reflect", "edge"] + (["wrap"] if c.opset >= 19 else [])
    mode = pick(rng, modes)
    dtype = pick(rng, [F32, F32, I64, np.dtype("int32")])
    x = c.input(randf(rng, shape, -5, 5).astype(dtype))
    axes = list(range(rank))
    if c.opset >= 18 and maybe(rng, 0.4):
        axes = sorted(int(a) for a in rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
    lim = lambda a: shape[a] - 1 if mode == "reflect" else 3  # noqa: E731
    pads = [int(rng.integers(-1 if mode == "constant" else 0, lim(a) + 1)) for a in axes] + \
           [int(rng.integers(-1 if mode == "constant" else 0, lim(a) + 1)) for a in axes]
    ins = [x, c.value(np.array(pads, I64))]
    if mode == "constant" and maybe(rng):
        ins.append(c.init(np.array(rng.uniform(-3, 3)).astype(dtype)))
    if c.opset >= 18 and len(axes) != rank:
        if len(ins) == 2:
            ins.append("")
        ins.append(c.value(np.array([a - rank if maybe(rng, 0.3) else a for a in axes], I64)))
    c.output(c.node("Pad", ins, mode=mode), dtype)


REDUCTIONS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
              "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]


@gen("Reduce")
def g_reduce(rng, c):
    op = pick(rng, REDUCTIONS)
    c.opset = pick(rng, [13, 18])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 6)
    if maybe(rng, 0.1):
        shape[int(rng.integers(0, rank))] = 0 if op in ("ReduceSum", "ReduceProd", "ReduceSumSquare") else 1
    lo = 0.1 if op in ("ReduceLogSum",) else -2
    dtype = pick(rng, [F32, F32, F32, I64, np.dtype("int32")]) if op in (
        "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1") else F32
    x = c.input(randf(rng, shape, lo, 2).astype(dtype) if dtype == F32 else int_array(rng, shape, -4, 5, dtype))
    axes = [int(a) - rank if maybe(rng, 0.3) else int(a)
            for a in rng.permutation(rank)[: int(rng.integers(0, rank + 1))]]
    attrs = {"keepdims": int(rng.integers(0, 2)) if maybe(rng, 0.7) else None}
    ins = [x]
    if op == "ReduceSum" and c.opset < 13:
        c.opset = 13
    use_input = c.opset >= 18 or op == "ReduceSum"
    if axes or maybe(rng):
        if use_input:
            ins.append(c.value(np.array(axes, I64)))
        elif axes:
            attrs["axes"] = axes
    if use_input and maybe(rng, 0.3):
        attrs["noop_with_empty_axes"] = int(rng.integers(0, 2))
    c.output(c.node(op, ins, **attrs), dtype)


@gen("ArgMinMax")
def g_arg(rng, c):
    op = pick(rng, ["ArgMax", "ArgMin"])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 6)
    dtype = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("uint8")])
    x = c.input(rng.integers(0, 4, size=shape).astype(dtype))  # ties on purpose
    c.output(c.node(op, [x], axis=int(rng.integers(-rank, rank)),
                    keepdims=int(rng.integers(0, 2)) if maybe(rng) else None,
                    select_last_index=int(rng.integers(0, 2)) if maybe(rng) else None), I64)


@gen("Softmax")
def g_softmax(rng, c):
    op = pick(rng, ["Softmax", "LogSoftmax", "Hardmax"])
    c.opset = pick(rng, [11, 13])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 7)
    vals = randf(rng, shape, -5, 5)
    if op == "Hardmax":
        vals = rng.integers(0, 3, size=shape).astype(F32)
    x = c.input(vals)
    c.output(c.node(op, [x], axis=int(rng.integers(-rank, rank)) if maybe(rng, 0.8) else None), F32)


@gen("Shape")
def g_shape_ops(rng, c):
    op = pick(rng, ["Transpose", "Reshape", "Expand", "Tile", "Concat", "Split", "Squeeze",
                    "Unsqueeze", "Flatten", "DepthToSpace", "SpaceToDepth", "Shape", "Size"])
    c.opset = 18 if op == "Split" and maybe(rng) else (15 if op == "Shape" else 14)
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 5)
    dtype = pick(rng, [F32, F32, I64, np.dtype("uint8"), np.dtype("bool")])
    arr = randf(rng, shape, -3, 3).astype(dtype)
    if op == "Transpose":
        x = c.input(arr)
        perm = [int(p) for p in rng.permutation(rank)]
        c.output(c.node(op, [x], perm=perm if maybe(rng, 0.9) else None), dtype)
    elif op == "Reshape":
        x = c.input(arr)
        target = [int(d) for d in np.random.default_rng(int(rng.integers(1 << 30))).permutation(
            [d for d in shape])]
        total = int(np.prod(shape))
        # Fold some dims, then write 0 (copy) and -1 (infer) where they are legal.
        if len(target) > 1 and maybe(rng):
            target = [target[0] * target[1]] + target[2:]
        target = [int(d) for d in target]
        assert int(np.prod(target)) == total
        out = list(target)
        for i in range(len(out)):
            if i < rank and out[i] == shape[i] and maybe(rng, 0.3):
                out[i] = 0
        if maybe(rng, 0.5):
            j = int(rng.integers(0, len(out)))
            if out[j] != 0:
                out[j] = -1
        c.output(c.node(op, [x, c.value(np.array(out, I64))]), dtype)
    elif op == "Expand":
        small = [1 if maybe(rng) else d for d in shape]
        x = c.input(randf(rng, small, -3, 3).astype(dtype))
        target = broadcast_partner(rng, shape) if maybe(rng, 0.3) else shape
        if maybe(rng, 0.3):
            target = [int(rng.integers(1, 3))] + list(shape)
        c.output(c.node(op, [x, c.value(np.array(target, I64))]), dtype)
    elif op == "Tile":
        x = c.input(arr)
        c.output(c.node(op, [x, c.value(int_array(rng, [rank], 0 if maybe(rng, 0.1) else 1, 4))]), dtype)
    elif op == "Concat":
        axis = int(rng.integers(-rank, rank))
        ins = []
        for _ in range(int(rng.integers(1, 4))):
            s = list(shape)
            s[axis] = int(rng.integers(0 if maybe(rng, 0.1) else 1, 4))
            ins.append(c.value(randf(rng, s, -3, 3).astype(dtype)))
        c.output(c.node(op, ins, axis=axis), dtype)
    elif op == "Split":
        axis = int(rng.integers(-rank, rank))
        d = shape[axis]
        parts = int(rng.integers(1, d + 1))
        x = c.input(arr)
        if c.opset >= 18 and maybe(rng):
            outs = c.node(op, [x], n_out=parts, axis=axis, num_outputs=parts)
        else:
            cuts = sorted(rng.choice(np.arange(1, d), size=parts - 1, replace=False)) if parts > 1 else []
            sizes = np.diff([0] + [int(q) for q in cuts] + [d]).astype(I64)
            outs = c.node(op, [x, c.value(sizes)] if maybe(rng, 0.8) or parts == 1 else [x],
                          n_out=parts, axis=axis)
        for o in ([outs] if parts == 1 else outs):
            c.output(o, dtype)
    elif op == "Squeeze":
        shape = [1 if maybe(rng, 0.5) else d for d in shape]
        x = c.input(randf(rng, shape, -3, 3).astype(dtype))
        ones = [i for i, d in enumerate(shape) if d == 1]
        ins = [x]
        if ones and maybe(rng, 0.8):
            sel = [i - rank if maybe(rng, 0.3) else i for i in ones if maybe(rng, 0.7)]
            if sel:
                ins.append(c.value(np.array(sel, I64)))
        c.output(c.node(op, ins), dtype)
    elif op == "Unsqueeze":
        x = c.input(arr)
        k = int(rng.integers(1, 3))
        out_rank = rank + k
        axes = [int(a) for a in rng.permutation(out_rank)[:k]]
        axes = [a - out_rank if maybe(rng, 0.3) else a for a in axes]
        c.output(c.node(op, [x, c.value(np.array(axes, I64))]), dtype)
    elif op == "Flatten":
        x = c.input(arr)
        c.output(c.node(op, [x], axis=int(rng.integers(-rank, rank + 1))), dtype)
    elif op in ("DepthToSpace", "SpaceToDepth"):
        b = int(rng.integers(1, 4))
        n, ch, h, w = rand_shape(rng, 4, 1, 4)
        if op == "DepthToSpace":
            x = c.input(randf(rng, [n, ch * b * b, h, w]))
            c.output(c.node(op, [x], blocksize=b, mode=pick(rng, ["DCR", "CRD"]) if maybe(rng) else None), F32)
        else:
            x = c.input(randf(rng, [n, ch, h * b, w * b]))
            c.output(c.node(op, [x], blocksize=b), F32)
    elif op == "Shape":
        x = c.input(arr)
        c.output(c.node(op, [x], start=int(rng.integers(-rank - 1, rank + 1)) if maybe(rng) else None,
                        end=int(rng.integers(-rank - 1, rank + 2)) if maybe(rng) else None), I64)
    else:
        x = c.input(arr)
        c.output(c.node(op, [x]), I64)


@gen("MatMul")
def g_matmul(rng, c):
    op = pick(rng, ["MatMul", "MatMul", "Gemm", "Gemm"])
    m, k, n = (int(rng.integers(1, 40)) for _ in range(3))
    if op == "MatMul":
        batch = rand_shape(rng, int(rng.integers(0, 3)), 1, 3)
        a_shape = broadcast_partner(rng, batch) + [m, k] if maybe(rng) else batch + [m, k]
        b_shape = batch + [k, n] if maybe(rng) else broadcast_partner(rng, batch) + [k, n]
        if maybe(rng, 0.15):
            a_shape = [k]
        elif maybe(rng, 0.15):
            b_shape = [k]
        a = c.input(randf(rng, a_shape))
        b = c.value(randf(rng, b_shape))
        c.output(c.node(op, [a, b]), F32)
    else:
        ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        a = c.input(randf(rng, [k, m] if ta else [m, k]))
        b = c.value(randf(rng, [n, k] if tb else [k, n]))
        ins = [a, b]
        if maybe(rng, 0.7):
            cs = pick(rng, [[], [n], [1, n], [m, 1], [m, n], [1], [1, 1]])
            ins.append(c.value(randf(rng, cs)))
        c.output(c.node(op, ins, transA=ta if ta or maybe(rng) else None, transB=tb if tb or maybe(rng) else None,
                        alpha=float(pick(rng, [1.0, 0.5, -2.0])) if maybe(rng) else None,
                        beta=float(pick(rng, [1.0, 0.0, 3.0])) if maybe(rng) else None), F32)


EINSUMS = ["ij,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk", "ij->ji", "ii->i", "ii", "ij->",
           "i,i", "i,j->ij", "bij->bi", "ijk,k->ij", "...ij,...jk->...ik", "abc,cd->abd",
           "bmhd,bnhd->bhmn", "ij,ij->ij", "i...->...", "ijk->kji", "bi,bi->b"]


@gen("Einsum")
def g_einsum(rng, c):
    eq = pick(rng, EINSUMS)
    lhs = eq.split("->")[0]
    sizes = {ch: int(rng.integers(1, 6)) for ch in "abcdefghijklmnopqrstuvwxyz"}
    ell = rand_shape(rng, int(rng.integers(0, 3)), 1, 3)
    ins = []
    for term in lhs.split(","):
        shape = []
        for part in term.replace("...", "E"):
            shape += ell if part == "E" else [sizes[part]]
        ins.append(c.value(randf(rng, shape)))
    c.output(c.node("Einsum", ins, equation=eq), F32)


@gen("Norm")
def g_norm(rng, c):
    op = pick(rng, ["LayerNormalization", "InstanceNormalization", "BatchNormalization", "LRN",
                    "MeanVarianceNormalization", "LpNormalization", "GroupNormalization"])
    rank = int(rng.integers(3, 5))
    shape = rand_shape(rng, rank, 1, 7)
    x = c.input(randf(rng, shape, -3, 3))
    ch = shape[1]
    if op == "LayerNormalization":
        axis = int(rng.integers(-rank, rank))
        norm_shape = shape[axis:]
        ins = [x, c.value(randf(rng, norm_shape))]
        if maybe(rng):
            ins.append(c.value(randf(rng, norm_shape)))
        c.output(c.node(op, ins, axis=axis, epsilon=float(pick(rng, [1e-5, 1e-3, 0.1]))), F32)
    elif op == "InstanceNormalization":
        c.output(c.node(op, [x, c.value(randf(rng, [ch])), c.value(randf(rng, [ch]))],
                        epsilon=float(pick(rng, [1e-5, 0.1]))), F32)
    elif op == "BatchNormalization":
        c.opset = pick(rng, [9, 14, 15])
        ins = [x] + [c.value(randf(rng, [ch])) for _ in range(3)] + [c.value(randf(rng, [ch], 0.1, 2))]
        c.output(c.node(op, ins, epsilon=float(pick(rng, [1e-5, 0.1]))), F32)
    elif op == "LRN":
        c.output(c.node(op, [x], size=int(pick(rng, [1, 2, 3, 5])), alpha=float(pick(rng, [1e-4, 0.1])),
                        beta=float(pick(rng, [0.75, 0.5])), bias=float(pick(rng, [1.0, 2.0]))), F32)
    elif op == "MeanVarianceNormalization":
        axes = sorted(int(a) for a in rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
        c.output(c.node(op, [x], axes=axes if maybe(rng, 0.7) or rank != 4 else None), F32)
    elif op == "LpNormalization":
        c.output(c.node(op, [x], axis=int(rng.integers(-rank, rank)), p=int(pick(rng, [1, 2]))), F32)
    else:
        c.opset = 21
        groups = pick(rng, [g for g in range(1, ch + 1) if ch % g == 0])
        c.output(c.node(op, [x, c.value(randf(rng, [ch])), c.value(randf(rng, [ch]))], num_groups=groups,
                        epsilon=float(pick(rng, [1e-5, 0.1]))), F32)


BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Equal", "Less",
          "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "Where",
          "PRelu", "BitwiseAnd", "BitwiseOr", "BitwiseXor"]


@gen("Binary")
def g_binary(rng, c):
    op = pick(rng, BINARY)
    c.opset = 18
    shape = rand_shape(rng, int(rng.integers(0, 5)), 1, 5)
    other = broadcast_partner(rng, shape)
    if maybe(rng):
        shape, other = other, shape
    ints = [np.dtype(t) for t in ("int32", "int64", "int8", "uint8")]
    if op in ("And", "Or", "Xor"):
        dt = np.dtype("bool")
    elif op == "BitShift":
        dt = pick(rng, [np.dtype("uint8"), np.dtype("uint32"), np.dtype("uint64")])
    elif op.startswith("Bitwise"):
        dt = pick(rng, ints)
    elif op in ("Sum", "Mean", "PRelu"):
        dt = pick(rng, [F32, F32, np.dtype("float64")] + ([np.dtype("int32"), I64] if op == "PRelu" else []))
    else:
        dt = pick(rng, [F32, F32, np.dtype("float64")] + ints)

    def arr(s, nonzero=False, small=False):
        if dt == np.dtype("bool"):
            return rng.random(s) < 0.5
        if dt.kind in "iu":
            info = np.iinfo(dt)
            lo, hi = max(info.min, -20), min(info.max, 20)
            if small:
                lo, hi = 0, min(hi, 7)
            a = rng.integers(lo, hi + 1, size=s).astype(dt)
            if nonzero:
                a[a == 0] = 1
            return a
        a = rng.uniform(-4, 4, size=s).astype(dt)
        if nonzero:
            a[np.abs(a) < 0.1] = 0.5
        return a

    attrs = {}
    if op == "Where":
        cond = c.value(rng.random(rand_shape(rng, 0, 1, 1) if maybe(rng, 0.2) else shape) < 0.5)
        c.output(c.node(op, [cond, c.input(arr(shape)), c.value(arr(other))]), dt)
        return
    if op in ("Sum", "Mean", "Max", "Min") and maybe(rng, 0.4):
        ins = [c.input(arr(shape))] + [c.value(arr(broadcast_partner(rng, shape))) for _ in range(
            int(rng.integers(0, 3)))]
        c.output(c.node(op, ins), dt)
        return
    a_arr, b_arr = arr(shape), arr(other, nonzero=op in ("Div", "Mod"), small=op in ("Pow", "BitShift"))
    if op == "Pow" and dt.kind == "f":
        a_arr = np.abs(a_arr) + 0.1
        if maybe(rng, 0.5):
            b_arr = pick(rng, [np.array(2.0, dt), np.array(0.5, dt), np.array(3.0, dt), np.array(-1.0, dt)]).reshape(
                other and [1] * len(other))
    if op == "Pow" and dt.kind in "iu":
        a_arr = np.clip(a_arr, -4, 4).astype(dt)
        b_arr = np.clip(b_arr, 0, 5).astype(dt)
    if op == "Mod":
        if dt.kind == "f":
            attrs["fmod"] = 1
        elif maybe(rng):
            attrs["fmod"] = 1
    if op == "BitShift":
        attrs["direction"] = pick(rng, ["LEFT", "RIGHT"])
    if op == "PRelu":
        other = broadcast_partner(rng, shape)
        b_arr = arr(other)
    if op == "Div" and dt.kind in "iu":
        b_arr[b_arr == 0] = 3
    out_dt = np.dtype("bool") if op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                        "And", "Or", "Xor") else dt
    c.output(c.node(op, [c.input(a_arr), c.value(b_arr)], **attrs), out_dt)


UNARY = {
    "Abs": None, "Neg": None, "Exp": (-5, 5), "Log": (0.01, 5), "Sqrt": (0, 5), "Reciprocal": (0.1, 4),
    "Floor": None, "Ceil": None, "Round": "halves", "Sign": None, "Erf": None, "Sigmoid": (-10, 10),
    "HardSigmoid": None, "HardSwish": None, "Tanh": None, "Softplus": (-10, 10), "Softsign": None,
    "Elu": None, "Selu": None, "LeakyRelu": None, "Relu": None, "ThresholdedRelu": None, "Celu": None,
    "Mish": None, "Gelu": None, "Sin": None, "Cos": None, "Tan": (-1.4, 1.4), "Asin": (-1, 1),
    "Acos": (-1, 1), "Atan": None, "Sinh": None, "Cosh": None, "Asinh": None, "Acosh": (1, 5),
    "Atanh": (-0.99, 0.99), "IsNaN": "special", "IsInf": "special", "Not": "bool", "Clip": None,
    "Identity": None, "Shrink": None,
}


@gen("Unary")
def g_unary(rng, c):
    op = pick(rng, sorted(UNARY))
    c.opset = 20 if op == "Gelu" else 18
    shape = rand_shape(rng, int(rng.integers(0, 5)), 1, 6)
    rng_spec = UNARY[op]
    dt = F32
    if rng_spec == "bool":
        dt = np.dtype("bool")
        a = rng.random(shape) < 0.5
    elif rng_spec == "halves":
        a = (rng.integers(-10, 11, size=shape) / 2.0).astype(F32)
    elif rng_spec == "special":
        a = rng.uniform(-3, 3, size=shape).astype(F32)
        a[rng.random(shape) < 0.3] = np.inf
        a[rng.random(shape) < 0.2] = -np.inf
        a[rng.random(shape) < 0.2] = np.nan
    else:
        lo, hi = rng_spec or (-4, 4)
        if op in ("Abs", "Neg", "Sign", "Relu", "Clip", "Identity") and maybe(rng, 0.4):
            dt = pick(rng, [np.dtype("int32"), I64, np.dtype("int8"), np.dtype("float64")])
        a = rng.uniform(lo, hi, size=shape).astype(dt) if dt.kind == "f" else rng.integers(
            -50, 50, size=shape).astype(dt)
    x = c.input(a)
    attrs = {}
    ins = [x]
    if op in ("Elu", "Celu", "LeakyRelu", "ThresholdedRelu", "HardSigmoid") and maybe(rng):
        attrs["alpha"] = float(pick(rng, [0.1, 0.5, 2.0]))
    if op == "HardSigmoid" and maybe(rng):
        attrs["beta"] = float(pick(rng, [0.3, 0.6]))
    if op == "Selu" and maybe(rng):
        attrs["gamma"] = 1.5
    if op == "Gelu" and maybe(rng):
        attrs["approximate"] = pick(rng, ["none", "tanh"])
    if op == "IsInf" and maybe(rng):
        attrs["detect_positive"] = int(rng.integers(0, 2))
        attrs["detect_negative"] = int(rng.integers(0, 2))
    if op == "Shrink":
        attrs["lambd"] = float(pick(rng, [0.5, 1.0]))
        attrs["bias"] = float(pick(rng, [0.0, 0.3]))
    if op == "Clip":
        lo = np.array(rng.uniform(-3, 0), dt) if dt.kind == "f" else np.array(rng.integers(-20, 0), dt)
        hi = np.array(rng.uniform(0, 3), dt) if dt.kind == "f" else np.array(rng.integers(0, 20), dt)
        if maybe(rng, 0.8):
            ins.append(c.value(lo))
        else:
            ins.append("")
        if maybe(rng, 0.8):
            ins.append(c.value(hi))
    out_dt = np.dtype("bool") if op in ("IsNaN", "IsInf", "Not") else dt
    c.output(c.node(op, ins, **attrs), out_dt)


@gen("Cast")
def g_cast(rng, c):
    types = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "uint32",
             "bool"]
    src = np.dtype(pick(rng, types))
    dst = np.dtype(pick(rng, types))
    shape = rand_shape(rng, int(rng.integers(0, 4)), 1, 5)
    if src.kind == "f":
        a = rng.uniform(-100, 100, size=shape)
        if dst.kind == "u":
            a = np.abs(a)
        if dst == np.dtype("int8"):
            a = a / 1.5
        a = a.astype(src)
        if dst.kind == "f" and maybe(rng, 0.3):
            a.flat[0] = np.nan if a.size else 0
    elif src.kind == "b":
        a = rng.random(shape) < 0.5
    else:
        info = np.iinfo(src)
        a = rng.integers(max(info.min, -100 if dst.kind != "u" else 0), min(info.max, 127) + 1,
                         size=shape).astype(src)
    x = c.input(a)
    y = c.node("Cast", [x], to=NP_TO_ONNX[dst])
    c.output(y, dst)


@gen("Misc")
def g_misc(rng, c):
    op = pick(rng, ["CumSum", "TopK", "NonZero", "Trilu", "OneHot", "Range", "ConstantOfShape",
                    "EyeLike", "GridSample", "RoiAlign", "ReverseSequence", "Compress", "Unique",
                    "CenterCropPad", "Col2Im", "Mod", "Det"])
    if op == "CumSum":
        rank = int(rng.integers(1, 4))
        shape = rand_shape(rng, rank, 1, 6)
        dt = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("float64")])
        x = c.input(randf(rng, shape, -5, 5).astype(dt))
        ax = c.value(np.array(int(rng.integers(-rank, rank)), pick(rng, [I64, np.dtype("int32")])))
        c.output(c.node(op, [x, ax], exclusive=int(rng.integers(0, 2)) if maybe(rng) else None,
                        reverse=int(rng.integers(0, 2)) if maybe(rng) else None), dt)
    elif op == "TopK":
        rank = int(rng.integers(1, 4))
        shape = rand_shape(rng, rank, 1, 8)
        axis = int(rng.integers(-rank, rank))
        dt = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("float64")])
        # Distinct values, so the indices are defined whatever the tie rule.
        vals = rng.permutation(int(np.prod(shape))).reshape(shape).astype(dt)
        x = c.input(vals)
        k = c.value(np.array([int(rng.integers(0, shape[axis] + 1))], I64))
        v, i = c.node(op, [x, k], n_out=2, axis=axis, largest=int(rng.integers(0, 2)) if maybe(rng) else None,
                      sorted=1)
        c.output(v, dt)
        c.output(i, I64)
    elif op == "NonZero":
        shape = rand_shape(rng, int(rng.integers(0, 4)), 1, 5)
        dt = pick(rng, [F32, I64, np.dtype("bool"), np.dtype("uint8")])
        x = c.input((rng.random(shape) < 0.5).astype(dt))
        c.output(c.node(op, [x]), I64)
    elif op == "Trilu":
        rank = int(rng.integers(2, 5))
        shape = rand_shape(rng, rank, 1, 6)
        ins = [c.input(randf(rng, shape))]
        if maybe(rng, 0.7):
            ins.append(c.value(np.array(int(rng.integers(-6, 7)), I64)))
        c.output(c.node(op, ins, upper=int(rng.integers(0, 2)) if maybe(rng) else None), F32)
    elif op == "OneHot":
        shape = rand_shape(rng, int(rng.integers(0, 3)), 1, 4)
        depth = int(rng.integers(1, 6))
        idx = c.input(rng.integers(-depth, depth, size=shape).astype(pick(rng, [I64, F32, np.dtype("int32")])))
        vals = c.value(np.array([rng.uniform(-2, 0), rng.uniform(1, 3)], F32))
        rank = len(shape)
        c.output(c.node(op, [idx, c.value(np.array(depth, I64)), vals],
                        axis=int(rng.integers(-rank - 1, rank + 1)) if maybe(rng) else None), F32)
    elif op == "Range":
        dt = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("float64")])
        start = rng.integers(-5, 5)
        delta = pick(rng, [1, 2, -1, -3, 0.5] if dt.kind == "f" else [1, 2, -1, -3])
        limit = start + delta * rng.integers(-2, 8) + (0.3 if dt.kind == "f" else 0)
        ins = [c.value(np.array(v, dt)) for v in (start, limit, delta)]
        c.output(c.node(op, ins), dt)
    elif op == "ConstantOfShape":
        shape = rand_shape(rng, int(rng.integers(0, 4)), 0, 4)
        dt = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("bool")])
        value = helper.make_tensor("value", NP_TO_ONNX[dt], [1], [1 if dt.kind == "b" else 3])
        with_value = maybe(rng, 0.8)
        c.output(c.node(op, [c.value(np.array(shape, I64))], value=value if with_value else None),
                 dt if with_value else F32)
    elif op == "EyeLike":
        shape = rand_shape(rng, 2, 1, 6)
        dt = pick(rng, [F32, I64, np.dtype("int32")])
        out = pick(rng, [None, np.dtype("float64"), np.dtype("int32")])
        c.output(c.node(op, [c.input(np.zeros(shape, dt))], k=int(rng.integers(-6, 7)) if maybe(rng) else None,
                        dtype=NP_TO_ONNX[out] if out is not None else None), out if out is not None else dt)
    elif op == "GridSample":
        c.opset = 16
        n, ch = rand_shape(rng, 2, 1, 3)
        h, w = rand_shape(rng, 2, 2, 7)
        oh, ow = rand_shape(rng, 2, 1, 6)
        x = c.input(randf(rng, [n, ch, h, w]))
        grid = c.value(rng.uniform(-1.3, 1.3, size=[n, oh, ow, 2]).astype(F32))
        c.output(c.node(op, [x, grid], mode=pick(rng, ["bilinear", "nearest", "bicubic"]),
                        padding_mode=pick(rng, ["zeros", "border", "reflection"]),
                        align_corners=int(rng.integers(0, 2))), F32)
    elif op == "RoiAlign":
        c.opset = 16
        n, ch = rand_shape(rng, 2, 1, 3)
        h, w = rand_shape(rng, 2, 3, 10)
        x = c.input(randf(rng, [n, ch, h, w]))
        r = int(rng.integers(1, 5))
        x1 = rng.uniform(0, w * 2, size=r)
        y1 = rng.uniform(0, h * 2, size=r)
        rois = np.stack([x1, y1, x1 + rng.uniform(1, w * 2, size=r), y1 + rng.uniform(1, h * 2, size=r)], 1)
        idx = rng.integers(0, n, size=r).astype(I64)
        c.output(c.node(op, [x, c.value(rois.astype(F32)), c.value(idx)], mode=pick(rng, ["avg", "max"]),
                        output_height=int(rng.integers(1, 5)), output_width=int(rng.integers(1, 5)),
                        sampling_ratio=int(rng.integers(0, 3)), spatial_scale=float(pick(rng, [1.0, 0.5, 0.25])),
                        coordinate_transformation_mode=pick(rng, ["half_pixel", "output_half_pixel"])), F32)
    elif op == "ReverseSequence":
        b, t = rand_shape(rng, 2, 1, 5)
        rest = rand_shape(rng, int(rng.integers(0, 2)), 1, 3)
        time_axis = int(rng.integers(0, 2))
        shape = ([t, b] if time_axis == 0 else [b, t]) + rest
        x = c.input(randf(rng, shape))
        lens = c.value(rng.integers(1, t + 1, size=b).astype(I64))
        c.output(c.node(op, [x, lens], time_axis=time_axis, batch_axis=1 - time_axis), F32)
    elif op == "Compress":
        rank = int(rng.integers(1, 4))
        shape = rand_shape(rng, rank, 1, 5)
        x = c.input(randf(rng, shape))
        axis = int(rng.integers(-rank, rank)) if maybe(rng, 0.7) else None
        n = shape[axis] if axis is not None else int(np.prod(shape))
        cond = c.value(rng.random(int(rng.integers(1, n + 1))) < 0.6)
        c.output(c.node(op, [x, cond], axis=axis), F32)
    elif op == "Unique":
        rank = int(rng.integers(1, 3))
        shape = rand_shape(rng, rank, 1, 6)
        dt = pick(rng, [F32, I64])
        x = c.input(rng.integers(0, 4, size=shape).astype(dt))
        axis = int(rng.integers(-rank, rank)) if maybe(rng, 0.4) else None
        outs = c.node(op, [x], n_out=4, axis=axis, sorted=1)
        c.output(outs[0], dt)
        for o in outs[1:]:
            c.output(o, I64)
    elif op == "CenterCropPad":
        c.opset = 18
        rank = int(rng.integers(1, 4))
        shape = rand_shape(rng, rank, 1, 7)
        x = c.input(randf(rng, shape))
        axes = sorted(int(a) for a in rng.permutation(rank)[: int(rng.integers(1, rank + 1))])
        target = [int(rng.integers(1, 9)) for _ in axes]
        ins = [x, c.value(np.array(target, I64))]
        c.output(c.node(op, ins, axes=axes if len(axes) != rank or maybe(rng) else None), F32)
        if len(axes) != rank and len(c.nodes[-1].attribute) == 0:
            c.nodes[-1].attribute.append(helper.make_attribute("axes", axes))
    elif op == "Col2Im":
        c.opset = 18
        k = rand_shape(rng, 2, 1, 3)
        s = rand_shape(rng, 2, 1, 3)
        d = [1, 1]
        img = [int(rng.integers(k[i], 8)) for i in range(2)]
        p = [int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))] * 2
        blocks = [(img[i] + p[i] + p[i + 2] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
        ch = int(rng.integers(1, 3))
        x = c.input(randf(rng, [1, ch * k[0] * k[1], blocks[0] * blocks[1]]))
        c.output(c.node(op, [x, c.value(np.array(img, I64)), c.value(np.array(k, I64))],
                        strides=s, pads=p, dilations=d), F32)
    elif op == "Det":
        shape = rand_shape(rng, int(rng.integers(0, 2)), 1, 3) + [int(rng.integers(1, 5))] * 2
        c.output(c.node(op, [c.input(randf(rng, shape))]), F32)
    else:  # Mod with negative operands on every integer type, and fmod on floats
        g_binary(rng, c)


# ---------------------------------------------------------------------------------- patterns
# Small graphs in the shapes the optimizer fuses, drawn with the variations a fusion must check
# (other constants, other axes, intermediate values that are also graph outputs).


def expose(rng, c, name, dtype=F32, p=0.15):
    """Makes an intermediate value a graph output too, now and then: a fusion must keep it."""
    if maybe(rng, p):
        c.output(name, dtype)


def activation(rng, c, x, p_none=0.2):
    kind = pick(rng, ["Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "SiLU",
                      "Tanh", "Gelu-erf", "Gelu-tanh", "Elu", "none"])
    if maybe(rng, p_none) or kind == "none":
        return x
    if kind == "Clip":
        lo = c.init(np.array(pick(rng, [0.0, -1.0, -np.inf]), F32))
        hi = c.init(np.array(pick(rng, [6.0, 1.0, 0.5]), F32))
        return c.node("Clip", [x, lo, hi] if maybe(rng, 0.8) else [x, lo])
    if kind == "SiLU":
        return c.node("Mul", [x, c.node("Sigmoid", [x])] if maybe(rng) else [c.node("Sigmoid", [x]), x])
    if kind == "Gelu-erf":
        div = c.node("Div", [x, c.init(np.array(pick(rng, [1.4142135, 1.5]), F32))])
        erf = c.node("Erf", [div])
        add = c.node("Add", [erf, c.init(np.array(1.0, F32))])
        mul = c.node("Mul", [x, add])
        return c.node("Mul", [mul, c.init(np.array(pick(rng, [0.5, 0.5, 0.25]), F32))])
    if kind == "Gelu-tanh":
        cube = c.node("Pow", [x, c.init(np.array(pick(rng, [3.0, 3.0, 2.0]), F32))])
        inner = c.node("Add", [x, c.node("Mul", [cube, c.init(np.array(0.044715, F32))])])
        t = c.node("Tanh", [c.node("Mul", [inner, c.init(np.array(0.7978846, F32))])])
        half = c.node("Mul", [x, c.init(np.array(0.5, F32))])
        return c.node("Mul", [half, c.node("Add", [t, c.init(np.array(1.0, F32))])])
    if kind == "LeakyRelu":
        return c.node("LeakyRelu", [x], alpha=float(pick(rng, [0.01, 0.2])))
    if kind == "HardSigmoid":
        return c.node("HardSigmoid", [x], alpha=float(pick(rng, [0.2, 1 / 6])), beta=0.5)
    if kind == "Elu":
        return c.node("Elu", [x], alpha=float(pick(rng, [1.0, 0.5])))
    return c.node(kind, [x])


@gen("ConvChain")
def g_conv_chain(rng, c):
    nd = pick(rng, [1, 2, 2, 2])
    group = pick(rng, [1, 1, 2, 4])
    cin = group * int(rng.integers(1, 5))
    cout = group * int(rng.integers(1, 6))
    if maybe(rng, 0.25):  # depthwise
        group, cin, cout = cin, cin, cin
    k = int(pick(rng, [1, 3, 3, 5]))
    spatial = [int(rng.integers(k, 14)) for _ in range(nd)]
    x = c.input(randf(rng, [int(rng.integers(1, 3)), cin] + spatial))
    w = c.init(randf(rng, [cout, cin // group] + [k] * nd, -1, 1))
    ins = [x, w] + ([c.init(randf(rng, [cout]))] if maybe(rng) else [])
    s = int(pick(rng, [1, 1, 2]))
    y = c.node("Conv", ins, group=group, kernel_shape=[k] * nd, strides=[s] * nd,
               pads=[k // 2] * (2 * nd) if maybe(rng, 0.7) else None)
    expose(rng, c, y)
    bshape = lambda: pick(rng, [[cout] + [1] * nd, [1, cout] + [1] * nd, [1], [], [cout, 1] + [1] * (nd - 1)  # noqa
                                if nd > 1 else [cout, 1], [1] * nd])
    if maybe(rng, 0.5):
        y = c.node("BatchNormalization", [y] + [c.init(randf(rng, [cout])) for _ in range(3)] +
                   [c.init(randf(rng, [cout], 0.1, 2))], epsilon=float(pick(rng, [1e-5, 1e-3])))
        expose(rng, c, y)
    if maybe(rng, 0.4):
        y = c.node(pick(rng, ["Add", "Mul", "Sub", "Div"]), [y, c.init(randf(rng, bshape(), 0.5, 2))])
        expose(rng, c, y)
    y = activation(rng, c, y)
    if maybe(rng, 0.3):  # a residual
        y = c.node("Add", [y, y] if maybe(rng, 0.3) else [y, c.input(randf(rng, [1] * (nd + 2)))])
        y = activation(rng, c, y, 0.5)
    if maybe(rng, 0.3):
        y = c.node(pick(rng, ["GlobalAveragePool", "MaxPool"]), [y], **(
            {"kernel_shape": [2] * nd, "strides": [2] * nd} if maybe(rng, 0) else {}))
        if c.nodes[-1].op_type == "MaxPool":
            c.nodes[-1].attribute.append(helper.make_attribute("kernel_shape", [1] * nd))
    c.output(y, F32)


@gen("MatMulChain")
def g_matmul_chain(rng, c):
    m, k, n = int(rng.integers(1, 24)), int(rng.integers(1, 40)), int(rng.integers(1, 40))
    batch = rand_shape(rng, int(rng.integers(0, 3)), 1, 3)
    x = c.input(randf(rng, batch + [m, k]))
    if maybe(rng, 0.2):
        x = c.node("Transpose", [c.input(randf(rng, batch + [k, m]))],
                   perm=list(range(len(batch))) + [len(batch) + 1, len(batch)])
    w = c.init(randf(rng, [k, n], -1, 1))
    y = c.node("MatMul", [x, w] if maybe(rng, 0.9) else [x, c.node("Transpose", [c.init(randf(rng, [n, k]))])])
    expose(rng, c, y)
    if maybe(rng, 0.7):
        bias = pick(rng, [[n], [1, n], [m, n], [], [m, 1], batch + [m, n]])
        y = c.node("Add", [y, c.init(randf(rng, bias))] if maybe(rng) else [c.init(randf(rng, bias)), y])
        expose(rng, c, y)
    if maybe(rng, 0.3):
        y = c.node("Mul", [y, c.init(np.array(pick(rng, [0.125, 2.0]), F32))])
    y = activation(rng, c, y)
    if maybe(rng, 0.3):
        w2 = c.init(randf(rng, [n, int(rng.integers(1, 20))]))
        y = c.node("MatMul", [y, w2])
    c.output(y, F32)


@gen("LayerNormChain")
def g_layernorm_chain(rng, c):
    rank = int(rng.integers(2, 4))
    shape = rand_shape(rng, rank, 1, 8)
    shape[-1] = int(rng.integers(2, 40))
    x = c.input(randf(rng, shape, -3, 3))
    axes = pick(rng, [[-1], [-1], [rank - 1], [-2, -1], [0]])
    opset_axes = c.opset >= 18
    if maybe(rng, 0.3):
        c.opset = 18
        opset_axes = True

    def rmean(v):
        if opset_axes:
            return c.node("ReduceMean", [v, c.init(np.array(axes, I64))])
        return c.node("ReduceMean", [v], axes=axes)

    mean = rmean(x)
    d = c.node("Sub", [x, mean])
    # Exponent 4 is a look-alike no fusion may take for a variance (ONNX Runtime's LayerNorm fusion
    # does, at level "all"); an odd one would make the mean near zero, ill-conditioned.
    var = rmean(c.node("Pow", [d, c.init(np.array(pick(rng, [2.0, 2.0, 4.0]), F32))]) if maybe(rng, 0.8)
                else c.node("Mul", [d, d]))
    eps = c.init(np.array(pick(rng, [1e-5, 1e-12, 0.1]), F32))
    std = c.node("Sqrt", [c.node("Add", [var, eps])])
    y = c.node("Div", [d, std]) if maybe(rng, 0.8) else c.node("Mul", [d, c.node("Reciprocal", [std])])
    expose(rng, c, y)
    norm = [shape[a] for a in axes] if axes != [0] else [1] * (rank - 1) + [shape[-1]]
    if len(axes) == 2:
        norm = shape[-2:]
    if maybe(rng, 0.8):
        y = c.node("Mul", [y, c.init(randf(rng, pick(rng, [norm, [norm[-1]], []])))])
    if maybe(rng, 0.8):
        y = c.node("Add", [y, c.init(randf(rng, pick(rng, [norm, [norm[-1]], []])))])
    c.output(y, F32)


@gen("Attention")
def g_attention(rng, c):
    b, s, heads, hd = int(rng.integers(1, 3)), int(rng.integers(1, 9)), int(pick(rng, [1, 2, 4])), \
        int(pick(rng, [2, 4, 8]))
    hidden = heads * hd
    x = c.input(randf(rng, [b, s, hidden]))

    def proj():
        y = c.node("MatMul", [x, c.init(randf(rng, [hidden, hidden], -0.5, 0.5))])
        y = c.node("Add", [y, c.init(randf(rng, [hidden]))]) if maybe(rng, 0.8) else y
        y = c.node("Reshape", [y, c.init(np.array([b, s, heads, hd] if maybe(rng) else [0, 0, heads, hd], I64))])
        return y

    q = c.node("Transpose", [proj()], perm=[0, 2, 1, 3])
    k = c.node("Transpose", [proj()], perm=[0, 2, 3, 1]) if maybe(rng, 0.7) else None
    v = c.node("Transpose", [proj()], perm=[0, 2, 1, 3])
    if k is None:
        kk = c.node("Transpose", [proj()], perm=[0, 2, 1, 3])
        k = c.node("Transpose", [kk], perm=[0, 1, 3, 2])
    scale = float(pick(rng, [1 / np.sqrt(hd), 1 / np.sqrt(hd), 0.3]))
    if maybe(rng):
        scores = c.node("Div", [c.node("MatMul", [q, k]), c.init(np.array(1 / scale, F32))])
    else:
        scores = c.node("Mul", [c.node("MatMul", [q, k]), c.init(np.array(scale, F32))])
    expose(rng, c, scores)
    if maybe(rng, 0.5):
        mshape = pick(rng, [[b, 1, 1, s], [1, 1, s, s], [b, heads, s, s], [s]])
        mask = c.input(np.where(rng.random(mshape) < 0.2, -10000.0, 0.0).astype(F32))
        scores = c.node("Add", [scores, mask])
    probs = c.node("Softmax", [scores], axis=pick(rng, [-1, -1, 3, 2]))
    ctx = c.node("MatMul", [probs, v])
    ctx = c.node("Transpose", [ctx], perm=[0, 2, 1, 3])
    ctx = c.node("Reshape", [ctx, c.init(np.array([b, s, hidden] if maybe(rng) else [0, 0, -1], I64))])
    c.output(ctx, F32)


@gen("LayoutChain")
def g_layout(rng, c):
    """Transposes, reshapes and elementwise nodes in a row (the layout passes' ground)."""
    rank = int(rng.integers(2, 5))
    shape = rand_shape(rng, rank, 1, 5)
    y = c.input(randf(rng, shape))
    cur = list(shape)
    for _ in range(int(rng.integers(2, 6))):
        kind = pick(rng, ["Transpose", "Reshape", "Unary", "Add", "Squeeze", "Softmax", "Reduce"])
        if kind == "Transpose":
            perm = [int(p) for p in rng.permutation(len(cur))]
            y = c.node("Transpose", [y], perm=perm)
            cur = [cur[p] for p in perm]
        elif kind == "Reshape" and len(cur) >= 2:
            new = [cur[0] * cur[1]] + cur[2:] if maybe(rng) else cur[:-1] + [1, cur[-1]]
            y = c.node("Reshape", [y, c.init(np.array(new, I64))])
            cur = new
        elif kind == "Unary":
            y = c.node(pick(rng, ["Relu", "Neg", "Sigmoid", "Abs"]), [y])
        elif kind == "Add":
            y = c.node(pick(rng, ["Add", "Mul"]), [y, c.value(randf(rng, broadcast_partner(rng, cur)))])
        elif kind == "Softmax":
            y = c.node("Softmax", [y], axis=int(rng.integers(-len(cur), len(cur))))
        elif kind == "Reduce" and len(cur) >= 2:
            ax = int(rng.integers(0, len(cur)))
            y = c.node("ReduceSum", [y, c.init(np.array([ax], I64))], keepdims=1)
            cur[ax] = 1
        expose(rng, c, y)
    c.output(y, F32)


# ---------------------------------------------------------------------------------- quantized

I8 = np.dtype("int8")
U8 = np.dtype("uint8")


def qparams(rng, c, dtype, channels=None):
    """A scale and zero point (per tensor, or per channel when CHANNELS), as initializers."""
    shape = [] if channels is None else [channels]
    scale = rng.uniform(0.01, 0.1, size=shape).astype(F32)
    info = np.iinfo(dtype)
    zp = rng.integers(info.min // 4, info.max // 4 + 1, size=shape).astype(dtype)
    if dtype == I8 and maybe(rng, 0.3):
        zp = np.zeros(shape, dtype)  # symmetric
    return c.init(scale, "s"), c.init(zp, "z")


def qtensor(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


@gen("QuantizeLinear")
def g_quant(rng, c):
    c.opset = pick(rng, [13, 19])
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, 1, 6)
    dtype = pick(rng, [I8, U8])
    axis = int(rng.integers(-rank, rank))
    per_axis = maybe(rng, 0.4)
    if maybe(rng):  # QuantizeLinear, with values on the .5 ties of round half to even
        scale = pick(rng, [0.5, 0.25, 0.1, 0.03]) if not per_axis else None
        xs = (rng.integers(-300, 300, size=shape) / 2.0 * (scale or 1)).astype(F32)
        if per_axis:
            sc = c.init(rng.uniform(0.02, 0.5, size=[shape[axis]]).astype(F32), "s")
        else:
            sc = c.init(np.array(scale, F32), "s")
        ins = [c.input(xs), sc]
        if maybe(rng, 0.8):
            info = np.iinfo(dtype)
            n = [shape[axis]] if per_axis else []
            ins.append(c.init(rng.integers(info.min // 2, info.max // 2 + 1, size=n).astype(dtype), "z"))
            out_dt = dtype
        else:
            out_dt = U8
        c.output(c.node("QuantizeLinear", ins, axis=axis if per_axis or maybe(rng, 0.2) else None), out_dt)
    else:
        s, z = qparams(rng, c, dtype, shape[axis] if per_axis else None)
        ins = [c.input(qtensor(rng, dtype, shape)), s] + ([z] if maybe(rng, 0.8) else [])
        if len(ins) == 2 and dtype == I8:
            ins[0] = c.input(qtensor(rng, U8, shape))
            c.inputs.pop(-2)
        c.output(c.node("DequantizeLinear", ins, axis=axis if per_axis or maybe(rng, 0.2) else None), F32)


@gen("QuantizeMs")
def g_quantize_ms(rng, c):
    """com.microsoft QuantizeLinear / DequantizeLinear, which ONNX Runtime's quantizer writes for
    16-bit types (and for 8-bit ones in older models): per tensor or per axis."""
    c.ms_opset = True
    dt = pick(rng, [np.dtype("int16"), np.dtype("uint16"), I8, U8])
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, 1, 5)
    axis = int(rng.integers(-rank, rank))
    per_axis = maybe(rng, 0.4)
    n = [shape[axis]] if per_axis else []
    info = np.iinfo(dt)
    scale = c.init(rng.uniform(0.001, 0.05, size=n).astype(F32), "s")
    zp = c.init(rng.integers(info.min // 4, info.max // 4 + 1, size=n).astype(dt), "z")
    attrs = {"axis": axis} if per_axis else {}
    if maybe(rng):
        x = c.input((rng.integers(-4000, 4000, size=shape) / 2.0 * 0.01).astype(F32))
        c.output(c.node("QuantizeLinear", [x, scale, zp], domain="com.microsoft", **attrs), dt)
    else:
        x = c.input(qtensor(rng, dt, shape))
        c.output(c.node("DequantizeLinear", [x, scale, zp], domain="com.microsoft", **attrs), F32)


@gen("QLinearOps")
def g_qlinear(rng, c):
    op = pick(rng, ["QLinearConv", "QLinearMatMul", "MatMulInteger", "ConvInteger",
                    "DynamicQuantizeLinear"])
    c.int_tol = 1  # requantization may round one step apart where the spec leaves it open
    xt = U8 if op in ("ConvInteger", "DynamicQuantizeLinear") or maybe(rng) else I8
    wt = pick(rng, [I8, U8]) if op != "QLinearConv" or xt == U8 else I8
    if op == "DynamicQuantizeLinear":
        x = c.input(randf(rng, rand_shape(rng, int(rng.integers(1, 4)), 1, 8), -3, 5))
        y, s, z = c.node(op, [x], n_out=3)
        c.output(y, U8)
        c.output(s, F32)
        c.output(z, U8)
        return
    if op in ("QLinearMatMul", "MatMulInteger"):
        m, k, n = (int(rng.integers(1, 33)) for _ in range(3))
        batch = rand_shape(rng, int(rng.integers(0, 2)), 1, 3)
        a = c.input(qtensor(rng, xt, batch + [m, k]))
        per_col = maybe(rng, 0.4)
        b = c.value(qtensor(rng, wt, [k, n]))
        if op == "MatMulInteger":
            ins = [a, b]
            if maybe(rng, 0.7):
                ins.append(c.init(np.array(rng.integers(0, 20), xt)))
                if maybe(rng):
                    zb = rng.integers(-5, 6, size=[n] if per_col else []).astype(wt) if wt == I8 else \
                        rng.integers(0, 20, size=[n] if per_col else []).astype(wt)
                    ins.append(c.init(zb))
            c.output(c.node(op, ins), np.dtype("int32"))
            return
        sa, za = qparams(rng, c, xt)
        sb, zb = qparams(rng, c, wt, n if per_col else None)
        sy, zy = qparams(rng, c, xt)
        c.output(c.node(op, [a, sa, za, b, sb, zb, sy, zy]), xt)
        return
    nd = pick(rng, [1, 2, 2])
    group = pick(rng, [1, 1, 2])
    cin, cout = group * int(rng.integers(1, 4)), group * int(rng.integers(1, 5))
    k = int(pick(rng, [1, 3]))
    spatial = [int(rng.integers(k, 9)) for _ in range(nd)]
    x = c.input(qtensor(rng, xt, [1, cin] + spatial))
    w = c.init(qtensor(rng, wt, [cout, cin // group] + [k] * nd), "w")
    attrs = dict(group=group, kernel_shape=[k] * nd, pads=[k // 2] * (2 * nd) if maybe(rng) else None,
                 strides=[int(pick(rng, [1, 2]))] * nd)
    if op == "ConvInteger":
        ins = [x, w] + ([c.init(np.array(rng.integers(0, 30), U8))] if maybe(rng, 0.7) else [])
        c.output(c.node(op, ins, **attrs), np.dtype("int32"))
        return
    sx, zx = qparams(rng, c, xt)
    per_channel = maybe(rng, 0.5)
    sw = c.init(rng.uniform(0.005, 0.05, size=[cout] if per_channel else []).astype(F32), "s")
    zw = c.init(np.zeros([cout] if per_channel else [], wt), "z")
    sy, zy = qparams(rng, c, xt)
    ins = [x, sx, zx, w, sw, zw, sy, zy]
    if maybe(rng):
        ins.append(c.init(rng.integers(-500, 500, size=[cout]).astype(np.int32), "b"))
    c.output(c.node(op, ins, **attrs), xt)


@gen("QDQChain")
def g_qdq_chain(rng, c):
    """DequantizeLinear -> Conv/MatMul/Gemm -> QuantizeLinear (-> more), what static quantization
    tools emit; Kiln fuses these into int8 kernels at level 3."""
    c.int_tol = 1
    xt = pick(rng, [U8, I8])
    kind = pick(rng, ["Conv", "Conv", "MatMul", "Gemm"])
    sx, zx = qparams(rng, c, xt)
    if kind == "Conv":
        nd = 2
        group = pick(rng, [1, 1, 2])
        cin, cout = group * int(rng.integers(1, 5)), group * int(rng.integers(1, 6))
        if maybe(rng, 0.25):
            group, cin, cout = cin, cin, cin
        k = int(pick(rng, [1, 3]))
        xq = c.input(qtensor(rng, xt, [1, cin] + [int(rng.integers(max(k, 2), 10)) for _ in range(nd)]))
        wshape = [cout, cin // group, k, k]
        ch = cout
    else:
        m, kk, n = (int(rng.integers(1, 33)) for _ in range(3))
        xq = c.input(qtensor(rng, xt, ([int(rng.integers(1, 3))] if kind == "MatMul" and maybe(rng) else [])
                             + [m, kk]))
        wshape = [kk, n]
        ch = n
    x = c.node("DequantizeLinear", [xq, sx, zx])
    per_channel = maybe(rng, 0.5)
    wq = c.init(qtensor(rng, I8, wshape), "w")
    sw = c.init(rng.uniform(0.005, 0.05, size=[ch] if per_channel else []).astype(F32), "s")
    zw = c.init(np.zeros([ch] if per_channel else [], I8), "z")
    w = c.node("DequantizeLinear", [wq, sw, zw], axis=(0 if kind == "Conv" else 1) if per_channel else None)
    ins = [x, w]
    if maybe(rng, 0.7):
        bias = c.init(rng.integers(-300, 300, size=[ch]).astype(np.int32), "b")
        bscale = c.init((rng.uniform(0.01, 0.1) * rng.uniform(0.005, 0.05, size=[ch])).astype(F32), "s")
        ins.append(c.node("DequantizeLinear", [bias, bscale, c.init(np.zeros([ch], np.int32), "z")], axis=0))
    if kind == "Conv":
        y = c.node("Conv", ins, group=group, kernel_shape=[k, k], pads=[k // 2] * 4)
    elif kind == "MatMul":
        y = c.node("MatMul", ins[:2])
        if len(ins) == 3:
            y = c.node("Add", [y, ins[2]])
    else:
        y = c.node("Gemm", ins)
    if maybe(rng, 0.5):
        y = c.node(pick(rng, ["Relu", "Relu", "Sigmoid"]), [y])
    sy, zy = qparams(rng, c, xt)
    yq = c.node("QuantizeLinear", [y, sy, zy])
    if maybe(rng, 0.4):  # a second quantized step: Add / Relu / pooling on dequantized values
        yd = c.node("DequantizeLinear", [yq, sy, zy])
        op = pick(rng, ["Add", "Relu", "MaxPool", "GlobalAveragePool"] if kind == "Conv" else ["Add", "Relu"])
        if op == "Add":
            z = c.node("Add", [yd, yd] if maybe(rng) else [yd, c.init(randf(rng, [ch] if kind != "Conv" else [ch, 1, 1]))])
        elif op == "MaxPool":
            z = c.node(op, [yd], kernel_shape=[2, 2])
        else:
            z = c.node(op, [yd])
        s2, z2 = qparams(rng, c, xt)
        yq = c.node("QuantizeLinear", [z, s2, z2])
    c.output(yq, xt)
    if maybe(rng, 0.3):
        c.output(y, F32)


# ---------------------------------------------------------------------------------- recurrent


@gen("Recurrent")
def g_rnn(rng, c):
    op = pick(rng, ["RNN", "GRU", "LSTM"])
    c.opset = 14
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    direction = pick(rng, ["forward", "reverse", "bidirectional"])
    dirs = 2 if direction == "bidirectional" else 1
    seq, batch, inp, hid = int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 6)), \
        int(rng.integers(1, 6))
    layout = int(rng.integers(0, 2)) if maybe(rng, 0.3) else 0
    x = c.input(randf(rng, [batch, seq, inp] if layout else [seq, batch, inp], -1, 1))
    w = c.value(randf(rng, [dirs, gates * hid, inp], -0.7, 0.7))
    r = c.value(randf(rng, [dirs, gates * hid, hid], -0.7, 0.7))
    ins = [x, w, r]
    if maybe(rng, 0.7):
        ins.append(c.value(randf(rng, [dirs, 2 * gates * hid], -0.5, 0.5)))
    else:
        ins.append("")
    if maybe(rng, 0.4):
        ins.append(c.value(rng.integers(1, seq + 1, size=[batch]).astype(np.int32)))
    else:
        ins.append("")
    hshape = [batch, dirs, hid] if layout else [dirs, batch, hid]
    ins.append(c.value(randf(rng, hshape, -1, 1)) if maybe(rng) else "")
    if op == "LSTM":
        ins.append(c.value(randf(rng, hshape, -1, 1)) if maybe(rng) else "")
        if maybe(rng, 0.3):
            ins.append(c.value(randf(rng, [dirs, 3 * hid], -0.5, 0.5)))
    while ins and ins[-1] == "":
        ins.pop()
    attrs = {"direction": direction, "hidden_size": hid, "layout": layout if layout else None}
    if maybe(rng, 0.2):
        attrs["clip"] = float(pick(rng, [0.5, 2.0]))
    if op == "GRU" and maybe(rng):
        attrs["linear_before_reset"] = 1
    if op == "RNN" and maybe(rng, 0.3):
        attrs["activations"] = [pick(rng, ["Tanh", "Relu", "Sigmoid"])] * dirs
    n_out = 3 if op == "LSTM" else 2
    outs = c.node(op, ins, n_out=n_out, **attrs)
    for o in outs:
        if maybe(rng, 0.8) or o == outs[0]:
            c.output(o, F32)


@gen("DynamicQuantizeLSTM")
def g_dqlstm(rng, c):
    """com.microsoft DynamicQuantizeLSTM as ONNX Runtime's quantize_dynamic writes it: W [D, I, 4H]
    and R [D, H, 4H] (LSTM's transposed), int8 or uint8, scales and zero points per direction or
    per gate column. ONNX Runtime quantizes X and each step's hidden state to uint8 over their
    range, and a finished sequence's state is 0 in that range when Y is made, its last value
    otherwise: so an output not compared is left out of the node, and without Y no sequence is
    empty (ONNX Runtime reads memory it never wrote for one)."""
    c.ms_opset = True
    direction = pick(rng, ["forward", "reverse", "bidirectional"])
    dirs = 2 if direction == "bidirectional" else 1
    seq, batch = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    inp, hid = int(rng.integers(1, 7)), int(pick(rng, [1, 2, 3, 4, 5, 8, 11]))
    wt = pick(rng, [I8, U8])

    def quantized(rows):
        """(weights [D, rows, 4H], scale, zero point) from floats in [-0.7, 0.7]."""
        w = randf(rng, [dirs, rows, 4 * hid], -0.7, 0.7)
        per_col = maybe(rng)
        peak = np.abs(w).max(axis=1) if per_col else np.abs(w).max(axis=(1, 2))  # [D, 4H] or [D]
        scale = (np.maximum(peak, 1e-3) / 127).astype(F32)
        if wt == U8:
            zp = np.full(scale.shape, 128 if per_col else 0, np.int64)
            if not per_col:
                zp = rng.integers(118, 139, size=scale.shape)
        else:  # ONNX Runtime wants 0 for int8 per column; per direction any value goes
            zp = np.zeros(scale.shape, np.int64) if per_col or maybe(rng, 0.7) else \
                rng.integers(-3, 4, size=scale.shape)
        s = scale[:, None, :] if per_col else scale[:, None, None]
        z = zp[:, None, :] if per_col else zp[:, None, None]
        info = np.iinfo(wt)
        q = np.clip(np.rint(w / s) + z, info.min, info.max).astype(wt)
        zps = zp.astype(wt)
        if per_col and maybe(rng, 0.2):  # one zero point per direction with per-column scales
            zps = zps[:, 0].copy() if dirs == 1 else zps
        elif not per_col and maybe(rng, 0.2) and len(set(zps.tolist())) == 1 and \
                (wt == U8 or not zps.any()):  # per column, all one value (int8: 0)
            zps = np.repeat(zps[:, None], 4 * hid, axis=1)
        return q, scale, zps

    wq, ws, wz = quantized(inp)
    rq, rs, rz = quantized(hid)
    outputs = [maybe(rng, 0.8), maybe(rng, 0.7), maybe(rng, 0.5)]
    if not any(outputs):
        outputs[int(rng.integers(0, 3))] = True
    x = c.input(randf(rng, [seq, batch, inp], -1, 1))
    ins = [x, c.value(wq), c.value(rq)]
    ins.append(c.value(randf(rng, [dirs, 8 * hid], -0.5, 0.5)) if maybe(rng, 0.7) else "")
    if maybe(rng, 0.4):
        lens = rng.integers(0 if outputs[0] else 1, seq + 1, size=[batch])
        ins.append(c.value(lens.astype(np.int32)))
    else:
        ins.append("")
    ins.append(c.value(randf(rng, [dirs, batch, hid], -1, 1)) if maybe(rng) else "")
    ins.append(c.value(randf(rng, [dirs, batch, hid], -1, 1)) if maybe(rng) else "")
    ins.append(c.value(randf(rng, [dirs, 3 * hid], -0.5, 0.5)) if maybe(rng, 0.3) else "")
    ins += [c.init(ws, "s"), c.init(wz, "z"), c.init(rs, "s"), c.init(rz, "z")]
    attrs = {"direction": direction if maybe(rng, 0.8) or dirs == 2 else None, "hidden_size": hid}
    if maybe(rng, 0.2):
        attrs["clip"] = float(pick(rng, [0.5, 2.0]))
    if maybe(rng, 0.15):
        attrs["input_forget"] = 1
    if maybe(rng, 0.15):
        acts = [pick(rng, ["Sigmoid", "HardSigmoid"]), pick(rng, ["Tanh", "Softsign"]),
                pick(rng, ["Tanh", "Softsign"])]
        attrs["activations"] = acts * dirs
    outs = c.node("DynamicQuantizeLSTM", ins, n_out=3, domain="com.microsoft", **attrs)
    for i, o in enumerate(outs):
        if outputs[i]:
            c.output(o, F32)
        else:
            c.nodes[-1].output[i] = ""


# ---------------------------------------------------------------------------------- contrib
# What ONNX Runtime's transformer optimizer and its generative-AI exports leave in a model: ops of
# com.microsoft, and LayerNormalization / SimplifiedLayerNormalization in the ONNX domain at
# opsets before ONNX defined them (ONNX Runtime registers both from version 1).


@gen("Contrib")
def g_contrib(rng, c):
    op = pick(rng, ["LayerNormalization", "SimplifiedLayerNormalization", "SkipLayerNormalization",
                    "SkipSimplifiedLayerNormalization", "QuickGelu", "FastGelu",
                    "EmbedLayerNormalization", "FusedGemm", "FusedMatMul",
                    "BiasGelu", "Gelu"])
    c.opset = pick(rng, [11, 12, 13, 14, 16])
    hidden = int(pick(rng, [4, 8, 16, 24, 33]))
    lead = rand_shape(rng, int(pick(rng, [1, 2, 2])), 1, 5)
    shape = lead + [hidden]
    x = c.input(randf(rng, shape, -3, 3))
    if op in ("LayerNormalization", "SimplifiedLayerNormalization"):
        rank = len(shape)
        axis = int(pick(rng, [-1, -1, rank - 1, -2])) if rank > 1 else -1
        norm = shape[axis:]
        ins = [x, c.value(randf(rng, norm))]
        if op == "LayerNormalization" and maybe(rng):
            ins.append(c.value(randf(rng, norm)))
        n_out = 1 if maybe(rng, 0.6) else (3 if op == "LayerNormalization" else 2)
        outs = c.node(op, ins, n_out=n_out, axis=axis if maybe(rng, 0.7) else None,
                      epsilon=float(pick(rng, [1e-5, 1e-6, 0.01])) if maybe(rng) else None)
        for o in ([outs] if n_out == 1 else outs):
            c.output(o, F32)
        return
    c.ms_opset = True
    ms = "com.microsoft"
    if op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization"):
        skip_shape = shape if maybe(rng, 0.8) else shape[-2:] if len(shape) == 3 else shape
        ins = [x, c.value(randf(rng, skip_shape, -3, 3)), c.value(randf(rng, [hidden]))]
        if op == "SkipLayerNormalization":
            ins.append(c.value(randf(rng, [hidden])) if maybe(rng) else "")
        if maybe(rng):
            ins.append(c.value(randf(rng, [hidden])))
        while ins[-1] == "":
            ins.pop()
        n_out = int(pick(rng, [1, 1, 4]))
        outs = c.node(op, ins, n_out=n_out, domain=ms,
                      epsilon=float(pick(rng, [1e-5, 1e-12, 0.01])) if maybe(rng) else None)
        if n_out == 1:
            c.output(outs, F32)
        else:
            # mean (1) is training-only for the simplified form; inv_std_var (2) and the sum (3).
            c.nodes[-1].output[1] = "" if op == "SkipSimplifiedLayerNormalization" else outs[1]
            for i, o in enumerate(outs):
                if c.nodes[-1].output[i]:
                    c.output(o, F32)
        return
    if op == "FusedGemm":
        c.inputs.pop()
        m, k, n = (int(rng.integers(1, 20)) for _ in range(3))
        ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        act = pick(rng, ["", "Relu", "LeakyRelu", "Tanh", "Sigmoid", "HardSigmoid", "Elu", "Selu",
                         "Softsign", "ThresholdedRelu", "ScaledTanh", "ParametricSoftplus"])
        attrs = {"transA": ta, "transB": tb, "alpha": float(pick(rng, [1.0, 0.5])),
                 "beta": float(pick(rng, [1.0, 2.0])), "activation": act or None}
        if act in ("LeakyRelu", "HardSigmoid", "Elu", "ThresholdedRelu", "ScaledTanh",
                   "ParametricSoftplus") and maybe(rng):
            attrs["activation_alpha"] = float(rng.uniform(0.1, 1.5))
        if act in ("HardSigmoid", "ScaledTanh", "ParametricSoftplus") and maybe(rng):
            attrs["activation_beta"] = float(rng.uniform(0.1, 1.0))
        ins = [c.input(randf(rng, [k, m] if ta else [m, k])), c.value(randf(rng, [n, k] if tb else [k, n]))]
        if maybe(rng, 0.7):
            ins.append(c.value(randf(rng, pick(rng, [[n], [1, n], [m, n], [m, 1]]))))
        c.output(c.node(op, ins, domain=ms, **attrs), F32)
        return
    if op == "FusedMatMul":  # transBatchA / transBatchB, as ONNX Runtime's fusion writes them
        c.inputs.pop()
        b_, m, k, n = (int(rng.integers(1, 5)) for _ in range(4))
        extra = rand_shape(rng, int(rng.integers(0, 2)), 1, 3)
        tba, tbb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        def stored(rows, cols, batch_first):
            logical = extra + [b_, rows, cols]
            if not batch_first:
                return logical
            return [logical[-2]] + logical[:-2] + [logical[-1]]  # first axis becomes the rows
        a_rows, a_cols = (k, m) if ta else (m, k)
        b_rows, b_cols = (n, k) if tb else (k, n)
        ins = [c.input(randf(rng, stored(a_rows, a_cols, tba))),
               c.value(randf(rng, stored(b_rows, b_cols, tbb)))]
        c.output(c.node(op, ins, domain=ms, transA=ta, transB=tb, transBatchA=tba, transBatchB=tbb,
                        alpha=float(pick(rng, [1.0, 0.25]))), F32)
        return
    if op == "EmbedLayerNormalization":
        c.inputs.pop()  # x: the op takes token ids
        b_, s_ = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        vocab, npos, nseg = int(rng.integers(2, 30)), s_ + int(rng.integers(0, 4)), int(rng.integers(1, 4))
        i32 = np.dtype("int32")
        ins = [c.input(rng.integers(0, vocab, size=[b_, s_]).astype(i32), "ids")]
        segments = maybe(rng, 0.6)
        ins.append(c.input(rng.integers(0, nseg, size=[b_, s_]).astype(i32), "seg") if segments else "")
        ins += [c.init(randf(rng, [vocab, hidden])), c.init(randf(rng, [npos, hidden]))]
        ins.append(c.init(randf(rng, [nseg, hidden])) if segments else "")
        ins += [c.init(randf(rng, [hidden], 0.5, 1.5)), c.init(randf(rng, [hidden]))]
        if maybe(rng, 0.6):
            ins.append(c.input((rng.random([b_, s_]) < 0.7).astype(i32), "mask"))
        if maybe(rng, 0.4):
            if len(ins) == 7:
                ins.append("")
            pshape = [1, s_] if maybe(rng) else [b_, s_]
            ins.append(c.input(rng.integers(0, npos, size=pshape).astype(i32), "pos"))
        n_out = int(pick(rng, [2, 2, 3]))
        outs = c.node(op, ins, n_out=n_out, domain=ms,
                      epsilon=float(pick(rng, [1e-12, 1e-5])) if maybe(rng) else None)
        c.output(outs[0], F32)
        c.output(outs[1], np.dtype("int32"))
        if n_out == 3:
            c.output(outs[2], F32)
        return
    if op == "QuickGelu":
        c.output(c.node(op, [x], domain=ms, alpha=float(pick(rng, [1.702, 1.0, 0.5])) if maybe(rng) else None),
                 F32)
    elif op == "BiasAdd":  # X [N, S, C] + bias [C] + skip [N, S, C]
        c.inputs.pop()  # x: BiasAdd takes rank 3 only
        shape3 = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), hidden]
        x3 = c.input(randf(rng, shape3, -3, 3))
        c.output(c.node(op, [x3, c.value(randf(rng, [hidden])), c.value(randf(rng, shape3, -3, 3))],
                        domain=ms), F32)
    elif op in ("FastGelu", "BiasGelu"):
        ins = [x] + ([c.value(randf(rng, [hidden]))] if op == "BiasGelu" or maybe(rng) else [])
        c.output(c.node(op, ins, domain=ms), F32)
    else:
        c.output(c.node("Gelu", [x], domain=ms), F32)


def int4_init(c, values, signed, prefix="w"):
    """An int4 or uint4 initializer of VALUES (an integer array), packed two to a byte from the low
    nibble up (this onnx lacks the types: data_type 22 / 21 with raw_data)."""
    flat = (np.asarray(values).astype(np.int64).ravel() & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    t = onnx.TensorProto()
    t.name = c.name(prefix)
    t.data_type = 22 if signed else 21
    t.dims.extend(np.asarray(values).shape)
    t.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    c.protos.append(t)
    return t.name


def pack_rows(codes, bits):
    """uint8 rows of CODES (2-D, values of BITS bits) packed from the low bits up, each row
    starting a new byte."""
    per = 8 // bits
    rows, cols = codes.shape
    out = np.zeros((rows, (cols + per - 1) // per), np.uint8)
    for j in range(cols):
        out[:, j // per] |= (codes[:, j].astype(np.uint8) << ((j % per) * bits)).astype(np.uint8)
    return out


@gen("QuantTables")
def g_quant_tables(rng, c):
    """The quantized com.microsoft ops of ONNX Runtime's quantization tool and LLM exports:
    QEmbedLayerNormalization (8-bit embedding tables) and GatherBlockQuantized (block-quantized
    tables of 2, 4 or 8 bits in uint8, or int4 / uint4)."""
    c.ms_opset = True
    ms = "com.microsoft"
    i32 = np.dtype("int32")
    if maybe(rng):
        b_, s_ = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        hidden = int(pick(rng, [4, 8, 16, 33]))
        vocab, npos, nseg = int(rng.integers(2, 30)), s_ + int(rng.integers(0, 4)), int(rng.integers(1, 4))
        segments = maybe(rng, 0.6)
        tables = [[vocab, hidden], [npos, hidden], [nseg, hidden] if segments else None,
                  [hidden], [hidden]]
        dts = [pick(rng, [U8, I8]) for _ in tables]
        if maybe(rng, 0.85):
            dts = [dts[0]] * 5  # ONNX Runtime's schema binds every table to one type
        ins = [c.input(rng.integers(0, vocab, size=[b_, s_]).astype(i32), "ids")]
        ins.append(c.input(rng.integers(0, nseg, size=[b_, s_]).astype(i32), "seg") if segments else "")
        for shape, dt in zip(tables, dts):
            ins.append(c.init(qtensor(rng, dt, shape)) if shape else "")
        ins.append(c.input((rng.random([b_, s_]) < 0.7).astype(i32), "mask") if maybe(rng, 0.6) else "")
        for k, shape in enumerate(tables):
            scale = rng.uniform(0.01, 0.05) if k < 3 else rng.uniform(0.002, 0.01)
            ins.append(c.init(np.array([scale], F32), "s") if shape else "")
        for shape, dt in zip(tables, dts):
            info = np.iinfo(dt)
            zp = rng.integers(info.min // 4, info.max // 4 + 1, size=[1]).astype(dt)
            ins.append(c.init(zp, "z") if shape else "")
        outs = c.node("QEmbedLayerNormalization", ins, n_out=2, domain=ms,
                      epsilon=float(pick(rng, [1e-12, 1e-5])) if maybe(rng) else None)
        c.output(outs[0], F32)
        c.output(outs[1], i32)
        return
    kind = pick(rng, ["uint8", "uint8", "int4", "uint4"])
    bits = int(pick(rng, [4, 4, 8, 2])) if kind == "uint8" else 4
    block = int(pick(rng, [16, 32]))
    if kind == "uint8":
        rank = int(pick(rng, [2, 2, 3]))
        per = 8 // bits
        dims = rand_shape(rng, rank - 1, 1, 6) + [per * int(rng.integers(2, 24))]
        gaxis, qaxis = 0, rank - 1
    else:
        rank = int(pick(rng, [2, 3]))
        dims = rand_shape(rng, rank, 1, 6)
        qaxis = int(rng.integers(0, rank))
        dims[qaxis] = int(rng.integers(1, 50))
        gaxis = int(rng.integers(0, rank))
    sdims = list(dims)
    sdims[qaxis] = (dims[qaxis] + block - 1) // block
    signed = kind == "int4"
    lo, hi = (-8, 7) if signed else (0, (1 << bits) - 1)
    codes = rng.integers(lo, hi + 1, size=dims)
    zeros = rng.integers(lo, hi + 1, size=sdims) if maybe(rng, 0.6) else None
    if kind == "uint8":
        data = c.init(pack_rows(codes.reshape(-1, dims[-1]), bits).reshape(dims[:-1] + [-1]), "q")
        zp = (c.init(pack_rows(zeros.reshape(-1, sdims[-1]), bits).reshape(sdims[:-1] + [-1]), "z")
              if zeros is not None else None)
    else:
        data = int4_init(c, codes, signed, "q")
        zp = int4_init(c, zeros, signed, "z") if zeros is not None else None
    scale_dt = pick(rng, [F32, F32, np.dtype("float16")])
    scales = c.init(rng.uniform(0.01, 0.1, size=sdims).astype(scale_dt), "s")
    n = dims[gaxis]
    idx_dt = pick(rng, [i32, I64])
    indices = c.input(rng.integers(-n, n, size=rand_shape(rng, int(rng.integers(0, 3)), 1, 4)).astype(idx_dt), "i")
    ins = [data, indices, scales] + ([zp] if zp is not None else [])
    attrs = {"gather_axis": gaxis if gaxis or maybe(rng) else None,
             "quantize_axis": qaxis if qaxis != 1 or maybe(rng) else None,
             "block_size": block if block != 128 else None, "bits": bits if bits != 4 or maybe(rng) else None}
    c.output(c.node("GatherBlockQuantized", ins, domain=ms, **attrs), scale_dt)


@gen("MatMulBnb4")
def g_matmul_bnb4(rng, c):
    """com.microsoft MatMulBnb4 (ONNX Runtime's bitsandbytes-style 4-bit weights): random codes
    and block maxima, FP4 or NF4, N·K odd at times (a last block short)."""
    c.ms_opset = True
    k, n = int(rng.integers(1, 70)), int(rng.integers(1, 20))
    block = int(pick(rng, [16, 32, 64]))
    count = n * k
    b = rng.integers(0, 256, size=[(count + 1) // 2]).astype(U8)
    absmax = rng.uniform(0.1, 2.0, size=[(count + block - 1) // block]).astype(F32)
    lead = rand_shape(rng, int(rng.integers(1, 3)), 1, 5)
    a = c.input(randf(rng, lead + [k]))
    c.output(c.node("MatMulBnb4", [a, c.value(b), c.value(absmax)], domain="com.microsoft",
                    K=k, N=n, block_size=block, quant_type=int(rng.integers(0, 2))), F32)


@gen("TorchContrib")
def g_torch_contrib(rng, c):
    """The com.microsoft ops ONNX Runtime's PyTorch-export helper writes (before ONNX had them):
    GridSample (opset 16's modes), Inverse, Trilu."""
    c.ms_opset = True
    ms = "com.microsoft"
    op = pick(rng, ["GridSample", "Inverse", "Trilu"])
    if op == "GridSample":
        n, ch = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        h, w = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        oh, ow = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        x = c.input(randf(rng, [n, ch, h, w]))
        grid = c.value(randf(rng, [n, oh, ow, 2], -1.3, 1.3))
        c.output(c.node(op, [x, grid], domain=ms,
                        mode=pick(rng, ["bilinear", "nearest", "bicubic"]) if maybe(rng, 0.8) else None,
                        padding_mode=pick(rng, ["zeros", "border", "reflection"]) if maybe(rng, 0.8) else None,
                        align_corners=int(rng.integers(0, 2)) if maybe(rng) else None), F32)
        return
    if op == "Inverse":
        m = int(rng.integers(1, 7))
        lead = rand_shape(rng, int(rng.integers(0, 3)), 1, 4)
        dt = pick(rng, [F32, F32, np.dtype("float64")])
        a = rng.uniform(-1, 1, size=lead + [m, m]) + m * np.eye(m)  # well conditioned
        if m > 1 and maybe(rng, 0.3):
            a[..., 0, 0] = 0.0  # a row swap needed
        c.output(c.node(op, [c.input(a.astype(dt))], domain=ms), dt)
        return
    shape = rand_shape(rng, int(rng.integers(2, 5)), 1, 6)
    dt = pick(rng, [F32, I64, np.dtype("int32")])
    x = c.input(rng.integers(-9, 10, size=shape).astype(dt) if dt != F32 else randf(rng, shape))
    ins = [x]
    if maybe(rng, 0.7):
        ins.append(c.value(np.array(int(rng.integers(-4, 5)), I64)))
    c.output(c.node(op, ins, domain=ms, upper=int(rng.integers(0, 2)) if maybe(rng) else None), dt)


@gen("MoE")
def g_moe(rng, c):
    """com.microsoft MoE (ONNX Runtime's model builder: Mixtral, Phi-3.5-MoE, gpt-oss): 2-D or
    3-D input, top-k softmax routing, each activation_type (swiglu interleaved, with gpt-oss's
    alpha / beta / limit), biases, normalize_routing_weights, use_sparse_mixer, ONNX Runtime's
    legacy weight shapes, and now and then the fc3 gate (which ONNX Runtime's CPU kernel refuses)."""
    c.ms_opset = True
    hidden = int(pick(rng, [4, 8, 16]))
    inter = int(pick(rng, [4, 8, 12]))
    experts = int(rng.integers(1, 9))
    k = int(rng.integers(1, min(experts, 3) + 1))
    dims = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), hidden] if maybe(rng, 0.3) else \
        [int(rng.integers(1, 9)), hidden]
    rows = int(np.prod(dims[:-1]))
    act = pick(rng, ["relu", "gelu", "silu", "identity", "swiglu", "swiglu"])
    f1 = 2 * inter if act == "swiglu" else inter
    legacy = inter != hidden and maybe(rng, 0.15)
    attrs = {"k": k if k > 1 or maybe(rng) else None,
             "activation_type": act if act != "relu" or maybe(rng) else None,
             "normalize_routing_weights": int(rng.integers(0, 2)) if maybe(rng) else None}
    if k == 2 and maybe(rng, 0.2):
        attrs["use_sparse_mixer"] = 1
    if act == "swiglu":
        attrs["swiglu_fusion"] = 1
        if maybe(rng):
            attrs["activation_alpha"] = 1.702
            attrs["activation_beta"] = 1.0
            attrs["swiglu_limit"] = float(pick(rng, [7.0, 1.0]))
    scale = 1.0 / np.sqrt(hidden)
    ins = [c.input(randf(rng, dims)), c.input(randf(rng, [rows, experts], -3, 3))]
    ins.append(c.value(randf(rng, [experts, hidden, f1] if legacy else [experts, f1, hidden],
                             -scale * 2, scale * 2)))
    ins.append(c.value(randf(rng, [experts, f1], -0.5, 0.5)) if maybe(rng) else "")
    ins.append(c.value(randf(rng, [experts, inter, hidden] if legacy else [experts, hidden, inter],
                             -0.5, 0.5)))
    ins.append(c.value(randf(rng, [experts, hidden], -0.5, 0.5)) if maybe(rng) else "")
    if act != "swiglu" and not legacy and maybe(rng, 0.1):
        ins.append(c.value(randf(rng, [experts, inter, hidden], -scale * 2, scale * 2)))
        if maybe(rng):
            ins.append(c.value(randf(rng, [experts, inter], -0.5, 0.5)))
    while ins[-1] == "":
        ins.pop()
    c.output(c.node("MoE", ins, domain="com.microsoft", **attrs), F32)


@gen("QMoE")
def g_qmoe(rng, c):
    """com.microsoft QMoE (ONNX Runtime's model builder, int4 / int8 MoE models on CPU): 2, 4 or
    8-bit weights, per-row or block-wise scales, packed zero points or the implicit 2^(bits-1),
    biases, each activation_type (swiglu interleaved, with gpt-oss's alpha / beta / limit), 2-D
    or 3-D input, k 1-3."""
    c.ms_opset = True
    bits = int(pick(rng, [2, 4, 4, 8, 8]))
    pack = 8 // bits
    block = int(pick(rng, [16, 32])) if maybe(rng) else 0
    hidden = int(pick(rng, [16, 32, 64]))
    inter = int(pick(rng, [16, 32, 48]))
    experts = int(rng.integers(1, 9))
    k = int(rng.integers(1, min(experts, 3) + 1))
    dims = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), hidden] if maybe(rng, 0.3) else \
        [int(rng.integers(1, 9)), hidden]
    rows = int(np.prod(dims[:-1]))
    act = pick(rng, ["relu", "gelu", "silu", "identity", "swiglu", "swiglu"])
    f1 = 2 * inter if act == "swiglu" else inter
    attrs = {"k": k if k > 1 or maybe(rng) else None,
             "activation_type": act if act != "relu" or maybe(rng) else None,
             "normalize_routing_weights": int(rng.integers(0, 2)) if maybe(rng) else None,
             "expert_weight_bits": bits if bits != 4 or maybe(rng) else None,
             "block_size": block if block else None}
    if act == "swiglu":
        attrs["swiglu_fusion"] = 1
        if maybe(rng):
            attrs["activation_alpha"] = 1.702
            attrs["activation_beta"] = 1.0
            attrs["swiglu_limit"] = float(pick(rng, [7.0, 1.0]))
    use_zp = maybe(rng, 0.4)

    def weights(n_out, n_in):
        q = rng.integers(0, 256, size=[experts, n_out, n_in // pack]).astype(np.uint8)
        top = 1.0 / (n_in * (1 << (bits - 1)))
        scales = randf(rng, [experts, n_out, (n_in + block - 1) // block] if block else
                       [experts, n_out], top * 0.2, top * 2)
        zp = None
        if use_zp:
            blocks = (n_in + block - 1) // block if block else 1  # one block: zero points per row
            shape = [experts, n_out, (blocks + pack - 1) // pack] if blocks > 1 \
                else [experts, (n_out + pack - 1) // pack]
            zp = rng.integers(0, 256, size=shape).astype(np.uint8)
        return q, scales, zp

    q1, s1, z1 = weights(f1, hidden)
    q2, s2, z2 = weights(hidden, inter)
    ins = [c.input(randf(rng, dims)), c.input(randf(rng, [rows, experts], -3, 3)),
           c.value(q1), c.value(s1),
           c.value(randf(rng, [experts, f1], -0.5, 0.5)) if maybe(rng) else "",
           c.value(q2), c.value(s2),
           c.value(randf(rng, [experts, hidden], -0.5, 0.5)) if maybe(rng) else ""]
    if use_zp:
        ins += ["", "", "", c.value(z1), c.value(z2)]
    c.output(c.node("QMoE", ins, domain="com.microsoft", **attrs), F32)


@gen("Legacy")
def g_legacy(rng, c):
    """ONNX's early experimental ops and MVN before opset 9, in models of opsets 7-8 (older
    converters' output, still run by ONNX Runtime)."""
    op = pick(rng, ["ImageScaler", "Crop", "Affine", "ScaledTanh", "ParametricSoftplus", "Scale",
                    "MeanVarianceNormalization"])
    c.opset = pick(rng, [7, 8])
    n, ch, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 8)), \
        int(rng.integers(1, 8))
    x = c.input(randf(rng, [n, ch, h, w], -3, 3))
    if op == "ImageScaler":
        c.output(c.node(op, [x], scale=float(rng.uniform(0.1, 3)) if maybe(rng) else None,
                        bias=[float(v) for v in rng.uniform(-1, 1, size=ch)] if maybe(rng, 0.8) else None),
                 F32)
    elif op == "Crop":
        top, bottom = int(rng.integers(0, h)), 0
        left, right = int(rng.integers(0, w)), 0
        bottom = int(rng.integers(0, h - top))
        right = int(rng.integers(0, w - left))
        attrs = {"border": [left, top, right, bottom]}
        if maybe(rng, 0.3):
            attrs["scale"] = [int(rng.integers(0, h - top + 1)), int(rng.integers(0, w - left + 1))]
        c.output(c.node(op, [x], **attrs), F32)
    elif op == "MeanVarianceNormalization":
        c.output(c.node(op, [x], across_channels=int(rng.integers(0, 2)) if maybe(rng) else None,
                        normalize_variance=int(rng.integers(0, 2)) if maybe(rng) else None), F32)
    elif op == "Scale":
        c.output(c.node(op, [x], scale=float(rng.uniform(-2, 2)) if maybe(rng) else None), F32)
    else:
        c.output(c.node(op, [x], alpha=float(rng.uniform(-2, 2)) if maybe(rng) else None,
                        beta=float(rng.uniform(-2, 2)) if maybe(rng) else None), F32)


@gen("Attention23")
def g_attention23(rng, c):
    """ONNX's Attention (opset 23): grouped heads, causal, masks, a past cache, scale, softcap,
    the 3-D form."""
    c.opset = 23
    b, s_, past = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(pick(rng, [0, 0, 2, 3]))
    kv_heads = int(pick(rng, [1, 2]))
    q_heads = kv_heads * int(pick(rng, [1, 2]))
    hd = int(pick(rng, [2, 4, 8]))
    vd = hd if maybe(rng, 0.7) else int(pick(rng, [2, 6]))
    kv_len = s_ if maybe(rng, 0.7) else int(rng.integers(1, 6))
    three_d = maybe(rng, 0.3)
    attrs = {}
    if three_d:
        q = c.input(randf(rng, [b, s_, q_heads * hd]))
        k = c.input(randf(rng, [b, kv_len, kv_heads * hd]))
        v = c.input(randf(rng, [b, kv_len, kv_heads * vd]))
        attrs.update(q_num_heads=q_heads, kv_num_heads=kv_heads)
    else:
        q = c.input(randf(rng, [b, q_heads, s_, hd]))
        k = c.input(randf(rng, [b, kv_heads, kv_len, hd]))
        v = c.input(randf(rng, [b, kv_heads, kv_len, vd]))
    total = past + kv_len
    ins = [q, k, v]
    if maybe(rng, 0.5):
        mshape = pick(rng, [[s_, total], [1, 1, s_, total], [b, q_heads, s_, total], [b, 1, s_, total]])
        if maybe(rng):
            m = rng.random(mshape) < 0.8
            if len(mshape) >= 2:
                m[..., 0] = True  # no row fully masked
        else:
            m = np.where(rng.random(mshape) < 0.2, -1e4, rng.uniform(-1, 1, mshape)).astype(F32)
        ins.append(c.input(m))
    elif past:
        ins.append("")
    if past:
        ins.append(c.input(randf(rng, [b, kv_heads, past, hd])))
        ins.append(c.input(randf(rng, [b, kv_heads, past, vd])))
    if maybe(rng, 0.3) and kv_len >= s_ and not past:
        attrs["is_causal"] = 1
    elif maybe(rng, 0.2) and past == 0:
        attrs["is_causal"] = 1
    if maybe(rng, 0.3):
        attrs["scale"] = float(pick(rng, [0.1, 0.5, 1.0]))
    if maybe(rng, 0.2):
        attrs["softcap"] = float(pick(rng, [1.0, 5.0]))
    n_out = 3 if past and maybe(rng, 0.6) else 1
    outs = c.node("Attention", ins, n_out=n_out, **attrs)
    for o in ([outs] if n_out == 1 else outs):
        c.output(o, F32)


@gen("Rotary23")
def g_rotary23(rng, c):
    c.opset = 23
    b, s_, heads = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(pick(rng, [1, 2, 3]))
    hd = int(pick(rng, [4, 8, 6]))
    rot = int(pick(rng, [0, 0, hd, 2, 4])) if hd >= 4 else 0
    rot = 0 if rot > hd else rot
    half = (rot or hd) // 2
    three_d = maybe(rng, 0.4)
    x = c.input(randf(rng, [b, s_, heads * hd] if three_d else [b, heads, s_, hd]))
    attrs = {"interleaved": int(rng.integers(0, 2)) if maybe(rng) else None,
             "rotary_embedding_dim": rot if rot else None,
             "num_heads": heads if three_d else None}
    if maybe(rng, 0.6):
        max_pos = s_ + int(rng.integers(0, 5))
        ang = rng.uniform(0, 6.3, size=[max_pos, half])
        ins = [x, c.value(np.cos(ang).astype(F32)), c.value(np.sin(ang).astype(F32)),
               c.input(rng.integers(0, max_pos, size=[b, s_]).astype(I64))]
    else:
        ang = rng.uniform(0, 6.3, size=[b, s_, half])
        ins = [x, c.value(np.cos(ang).astype(F32)), c.value(np.sin(ang).astype(F32))]
    c.output(c.node("RotaryEmbedding", ins, **attrs), F32)


@gen("RotaryMs")
def g_rotary_ms(rng, c):
    """com.microsoft RotaryEmbedding (ONNX Runtime's model builders): position_ids [B, S] or [1]
    (the first position), 3-D input with or without num_heads, or 4-D."""
    c.ms_opset = True
    b, s_, heads = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(pick(rng, [1, 2, 3]))
    hd = int(pick(rng, [4, 8, 6]))
    rot = int(pick(rng, [0, 0, hd, 4])) if hd >= 4 else 0
    half = (rot or hd) // 2
    three_d = maybe(rng, 0.6)
    x = c.input(randf(rng, [b, s_, heads * hd] if three_d else [b, heads, s_, hd]))
    max_pos = s_ + int(rng.integers(0, 6))
    if maybe(rng):
        pos = c.input(rng.integers(0, max_pos, size=[b, s_]).astype(I64))
    else:
        pos = c.input(np.array([int(rng.integers(0, max_pos - s_ + 1))], I64))
    ang = rng.uniform(0, 6.3, size=[max_pos, half])
    attrs = {"interleaved": int(rng.integers(0, 2)) if maybe(rng) else None,
             "rotary_embedding_dim": rot if rot else None,
             "num_heads": heads if three_d and (rot or maybe(rng)) else None}
    c.output(c.node("RotaryEmbedding", [x, pos, c.init(np.cos(ang).astype(F32)),
                                        c.init(np.sin(ang).astype(F32))],
                    domain="com.microsoft", **attrs), F32)


@gen("GQA")
def g_gqa(rng, c):
    """com.microsoft GroupQueryAttention, as ONNX Runtime's model builder uses it: a first
    prompt, token generation over a past of different lengths per sequence, or a further
    prompt (batch 1); grouped heads, packed QKV, rotary, local window, softcap, smooth softmax."""
    c.ms_opset = True
    i32 = np.dtype("int32")
    kv_heads = int(pick(rng, [1, 2]))
    heads = kv_heads * int(pick(rng, [1, 2, 4]))
    hd = int(pick(rng, [8, 16, 16, 32]))
    mode = pick(rng, ["prompt", "token", "token", "next_prompt"])
    b = 1 if mode == "next_prompt" else int(rng.integers(1, 4))
    past_rows = 0 if mode == "prompt" and maybe(rng, 0.7) else int(rng.integers(1, 9))
    if mode == "prompt":
        s_ = int(rng.integers(1, 7))
        lens = [s_] * b
    elif mode == "token":
        s_ = 1
        lens = [int(rng.integers(1, past_rows + 2)) for _ in range(b)]
    else:
        s_ = int(rng.integers(2, 6))
        lens = [int(rng.integers(s_ + 1, s_ + past_rows + 1))]
    total = max(lens) if mode != "prompt" else s_
    packed = maybe(rng, 0.3)
    if packed:
        ins = [c.input(randf(rng, [b, s_, (heads + 2 * kv_heads) * hd])), "", ""]
    else:
        ins = [c.input(randf(rng, [b, s_, heads * hd])), c.input(randf(rng, [b, s_, kv_heads * hd])),
               c.input(randf(rng, [b, s_, kv_heads * hd]))]
    if past_rows:
        ins += [c.input(randf(rng, [b, kv_heads, past_rows, hd])),
                c.input(randf(rng, [b, kv_heads, past_rows, hd]))]
    else:
        ins += ["", ""]
    ins += [c.input(np.array([n - 1 for n in lens], i32)), c.input(np.array([total], i32))]
    attrs = {"num_heads": heads, "kv_num_heads": kv_heads}
    if hd >= 16 and maybe(rng, 0.5):
        half = int(pick(rng, [8, hd // 2]))
        ang = rng.uniform(0, 6.3, size=[max(total, past_rows) + int(rng.integers(0, 4)), half])
        ins += [c.init(np.cos(ang).astype(F32)), c.init(np.sin(ang).astype(F32))]
        attrs["do_rotary"] = 1
        attrs["rotary_interleaved"] = int(rng.integers(0, 2)) if maybe(rng) else None
    if maybe(rng, 0.25):
        attrs["local_window_size"] = int(rng.integers(1, 5))
    if maybe(rng, 0.2):
        attrs["softcap"] = float(pick(rng, [1.0, 5.0]))
    if maybe(rng, 0.2):
        attrs["smooth_softmax"] = 1
    if maybe(rng, 0.2):
        attrs["scale"] = float(pick(rng, [0.1, 0.5]))
    while ins[-1] == "":
        ins.pop()
    y, pk, pv = c.node("GroupQueryAttention", ins, n_out=3, domain="com.microsoft", **attrs)
    c.output(y, F32)
    c.output(pk, F32)
    c.output(pv, F32)


@gen("GQAExtras")
def g_gqa_extras(rng, c):
    """com.microsoft GroupQueryAttention's further inputs and output, each at random: position_ids
    (the rotary positions of the new tokens; a first prompt reads only its first element, a wider
    one is read flat), attention_bias of each broadcast [B or 1, N or 1, S, T], head_sink (with or
    without smooth_softmax), qk_output 1 or 2 with output_qk (then every sequence T long: ONNX
    Runtime leaves the columns past a shorter one's length unwritten)."""
    c.ms_opset = True
    i32 = np.dtype("int32")
    kv_heads = int(pick(rng, [1, 2]))
    heads = kv_heads * int(pick(rng, [1, 2, 4]))
    hd = int(pick(rng, [8, 16, 16, 32]))
    mode = pick(rng, ["prompt", "token", "token", "next_prompt"])
    b = 1 if mode == "next_prompt" else int(rng.integers(1, 4))
    past_rows = 0 if mode == "prompt" and maybe(rng, 0.7) else int(rng.integers(1, 9))
    qk_output = int(pick(rng, [1, 2])) if maybe(rng, 0.4) else 0
    if mode == "prompt":
        s_ = int(rng.integers(1, 7))
        lens = [s_] * b
    elif mode == "token":
        s_ = 1
        lens = [int(rng.integers(1, past_rows + 2)) for _ in range(b)]
        if qk_output:
            lens = [max(lens)] * b
    else:
        s_ = int(rng.integers(2, 6))
        lens = [int(rng.integers(s_ + 1, s_ + past_rows + 1))]
    total = max(lens) if mode != "prompt" else s_
    packed = maybe(rng, 0.3)
    if packed:
        ins = [c.input(randf(rng, [b, s_, (heads + 2 * kv_heads) * hd])), "", ""]
    else:
        ins = [c.input(randf(rng, [b, s_, heads * hd])), c.input(randf(rng, [b, s_, kv_heads * hd])),
               c.input(randf(rng, [b, s_, kv_heads * hd]))]
    if past_rows:
        ins += [c.input(randf(rng, [b, kv_heads, past_rows, hd])),
                c.input(randf(rng, [b, kv_heads, past_rows, hd]))]
    else:
        ins += ["", ""]
    ins += [c.input(np.array([n - 1 for n in lens], i32)), c.input(np.array([total], i32))]
    attrs = {"num_heads": heads, "kv_num_heads": kv_heads}
    positions = 0
    if hd >= 16 and maybe(rng, 0.7):
        half = int(pick(rng, [8, hd // 2]))
        positions = max(total, past_rows) + int(rng.integers(0, 9))
        ang = rng.uniform(0, 6.3, size=[positions, half])
        ins += [c.init(np.cos(ang).astype(F32)), c.init(np.sin(ang).astype(F32))]
        attrs["do_rotary"] = 1
        attrs["rotary_interleaved"] = int(rng.integers(0, 2)) if maybe(rng) else None
    else:
        ins += ["", ""]
    if maybe(rng, 0.5):
        cols = s_ + (int(rng.integers(1, 3)) if maybe(rng, 0.25) else 0)
        top = positions if positions else 16
        ids = rng.integers(0, top, size=[b, cols]).astype(I64)
        if mode == "prompt" and positions:
            ids[0, 0] = int(rng.integers(0, positions - s_ + 1))  # the first prompt's start
        ins.append(c.input(ids))
    else:
        ins.append("")
    if maybe(rng, 0.5):
        shape = [b if maybe(rng) else 1, heads if maybe(rng) else 1, s_, total]
        ins.append(c.value(randf(rng, shape, -3.0, 3.0)))
    else:
        ins.append("")
    if maybe(rng, 0.4):
        ins.append(c.value(randf(rng, [heads], -2.0, 3.0)))
    if maybe(rng, 0.25):
        attrs["local_window_size"] = int(rng.integers(1, 5))
    if maybe(rng, 0.2):
        attrs["softcap"] = float(pick(rng, [1.0, 5.0]))
    if maybe(rng, 0.25):
        attrs["smooth_softmax"] = 1
    if maybe(rng, 0.2):
        attrs["scale"] = float(pick(rng, [0.1, 0.5]))
    if qk_output:
        attrs["qk_output"] = qk_output
    while ins[-1] == "":
        ins.pop()
    outs = c.node("GroupQueryAttention", ins, n_out=4 if qk_output else 3, domain="com.microsoft",
                  **attrs)
    for o in outs:
        c.output(o, F32)


@gen("IntImages")
def g_int_images(rng, c):
    """8-bit images through the ops that take them: MaxPool (opset 12+), Resize (nearest and
    linear, rounding back to the integer type), Pad, Transpose, Relu (opset 14), Clip."""
    op = pick(rng, ["MaxPool", "Resize", "Resize", "Pad", "Relu", "Clip", "GlobalMaxPool"])
    dt = pick(rng, [np.dtype("uint8"), np.dtype("int8")])
    info = np.iinfo(dt)
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(2, 9)),
             int(rng.integers(2, 9))]
    x = c.input(rng.integers(info.min, info.max + 1, size=shape).astype(dt))
    if op == "MaxPool":
        c.opset = 12
        k = [int(rng.integers(1, min(4, shape[2] + 1))), int(rng.integers(1, min(4, shape[3] + 1)))]
        c.output(c.node(op, [x], kernel_shape=k, strides=[int(rng.integers(1, 3))] * 2,
                        pads=[int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))] * 2 if maybe(rng) else None), dt)
    elif op == "GlobalMaxPool":
        c.opset = 12
        c.output(c.node(op, [x]), dt)
    elif op == "Resize":
        c.opset = 13
        mode = pick(rng, ["nearest", "linear"])
        scales = [1.0, 1.0] + [float(pick(rng, [0.5, 1.5, 2.0, 3.0])) for _ in range(2)]
        c.output(c.node(op, [x, "", c.init(np.array(scales, F32))], mode=mode,
                        coordinate_transformation_mode=pick(rng, ["half_pixel", "asymmetric", "align_corners"])), dt)
    elif op == "Pad":
        c.opset = 13
        pads = [0, 0, int(rng.integers(0, 3)), int(rng.integers(0, 3)), 0, 0, int(rng.integers(0, 3)), int(rng.integers(0, 3))]
        c.output(c.node(op, [x, c.init(np.array(pads, I64))], mode=pick(rng, ["constant", "edge", "reflect"])), dt)
    elif op == "Relu":
        c.opset = 14
        if dt == np.dtype("uint8"):
            c.inputs[-1] = (c.inputs[-1][0], c.inputs[-1][1].astype(np.int8))
            dt = np.dtype("int8")
        c.output(c.node(op, [x]), dt)
    else:
        c.opset = 13
        lo, hi = sorted(int(v) for v in rng.integers(info.min, info.max + 1, size=2))
        c.output(c.node(op, [x, c.init(np.array(lo, dt)), c.init(np.array(hi, dt))]), dt)


@gen("QuantContrib")
def g_quant_contrib(rng, c):
    """The com.microsoft quantized ops that ONNX Runtime's quantization tools write."""
    c.ms_opset = True
    c.int_tol = 1
    ms = "com.microsoft"
    op = pick(rng, ["QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu",
                    "QLinearGlobalAveragePool", "QLinearConcat", "QLinearAveragePool",
                    "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "MatMulNBits"])
    dt = pick(rng, [U8, I8])
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 6))]
    if op in ("QLinearAdd", "QLinearMul"):
        sa, za = qparams(rng, c, dt)
        sb, zb = qparams(rng, c, dt)
        sy, zy = qparams(rng, c, dt)
        a = c.input(qtensor(rng, dt, shape))
        b = c.value(qtensor(rng, dt, broadcast_partner(rng, shape)))
        c.output(c.node(op, [a, sa, za, b, sb, zb, sy, zy], domain=ms), dt)
    elif op in ("QLinearSigmoid", "QLinearLeakyRelu"):
        sx, zx = qparams(rng, c, dt)
        sy, zy = qparams(rng, c, dt)
        attrs = {"alpha": float(pick(rng, [0.01, 0.2]))} if op == "QLinearLeakyRelu" else {}
        c.output(c.node(op, [c.input(qtensor(rng, dt, shape)), sx, zx, sy, zy], domain=ms, **attrs), dt)
    elif op == "QLinearGlobalAveragePool":
        sx, zx = qparams(rng, c, dt)
        sy, zy = qparams(rng, c, dt)
        c.output(c.node(op, [c.input(qtensor(rng, dt, shape)), sx, zx, sy, zy], domain=ms,
                        channels_last=0), dt)
    elif op == "QLinearAveragePool":
        sx, zx = qparams(rng, c, dt)
        sy, zy = qparams(rng, c, dt)
        k = [int(rng.integers(1, shape[2] + 1)), int(rng.integers(1, shape[3] + 1))]
        c.output(c.node(op, [c.input(qtensor(rng, dt, shape)), sx, zx, sy, zy], domain=ms,
                        kernel_shape=k, strides=[int(rng.integers(1, 3))] * 2,
                        count_include_pad=int(rng.integers(0, 2)),
                        pads=[int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))] * 2 if maybe(rng) else None), dt)
    elif op == "QLinearConcat":
        sy, zy = qparams(rng, c, dt)
        ins = [sy, zy]
        axis = int(rng.integers(0, 4))
        for _ in range(int(rng.integers(1, 4))):
            s2 = list(shape)
            s2[axis] = int(rng.integers(1, 4))
            sx, zx = qparams(rng, c, dt)
            ins += [c.input(qtensor(rng, dt, s2)), sx, zx]
        c.output(c.node(op, ins, domain=ms, axis=axis), dt)
    elif op == "DynamicQuantizeMatMul":
        c.int_tol = 0
        m, k, n = (int(rng.integers(1, 24)) for _ in range(3))
        a = c.input(randf(rng, [m, k]))
        b = c.init(qtensor(rng, I8, [k, n]))
        per_col = maybe(rng)
        bs = c.init(rng.uniform(0.005, 0.05, size=[n] if per_col else [1]).astype(F32))
        ins = [a, b, bs, c.init(np.zeros([n] if per_col else [1], I8))]
        if maybe(rng):
            ins.append(c.init(randf(rng, [n])))
        c.output(c.node(op, ins, domain=ms), F32)
    elif op == "MatMulIntegerToFloat":
        c.int_tol = 0
        m, k, n = (int(rng.integers(1, 24)) for _ in range(3))
        a = c.input(qtensor(rng, U8, [m, k]))
        b = c.init(qtensor(rng, I8, [k, n]))
        ins = [a, b, c.init(np.array(rng.uniform(0.01, 0.1), F32)),
               c.init(rng.uniform(0.005, 0.05, size=[n]).astype(F32)),
               c.init(np.array(rng.integers(0, 200), U8)), c.init(np.zeros([n], I8))]
        if maybe(rng):
            ins.append(c.init(randf(rng, [n])))
        c.output(c.node(op, ins, domain=ms), F32)
    else:  # MatMulNBits: 4-bit blocks along K, packed two per byte, with scales (and zero points)
        c.int_tol = 0
        m, n = int(rng.integers(1, 9)), int(rng.integers(1, 17))
        block = int(pick(rng, [16, 32]))
        k = block * int(rng.integers(1, 4))
        blocks = k // block
        q = rng.integers(0, 16, size=[n, blocks, block]).astype(np.uint8)
        packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)
        scales = rng.uniform(0.01, 0.1, size=[n * blocks]).astype(F32)
        ins = [c.input(randf(rng, [m, k])), c.init(packed), c.init(scales)]
        if maybe(rng):
            zp = rng.integers(0, 16, size=[n, (blocks + 1) // 2 * 2]).astype(np.uint8)
            ins.append(c.init((zp[:, 0::2] | (zp[:, 1::2] << 4)).astype(np.uint8).reshape(-1)))
        c.output(c.node(op, ins, domain=ms, K=k, N=n, bits=4, block_size=block), F32)


@gen("Sequences")
def g_sequences(rng, c):
    """Sequence ops inside a graph whose inputs and outputs are tensors."""
    shape = rand_shape(rng, int(rng.integers(1, 4)), 1, 5)
    rank = len(shape)
    x = c.input(randf(rng, shape))
    axis = int(rng.integers(-rank, rank))
    if maybe(rng):
        seq = c.node("SplitToSequence", [x], axis=axis,
                     keepdims=int(rng.integers(0, 2)) if maybe(rng) else None)
    else:
        parts = [c.value(randf(rng, shape)) for _ in range(int(rng.integers(1, 4)))]
        seq = c.node("SequenceConstruct", [x] + parts)
    kind = pick(rng, ["ConcatFromSequence", "SequenceAt", "SequenceLength", "Insert"])
    if kind == "ConcatFromSequence":
        c.output(c.node(kind, [seq], axis=0, new_axis=int(rng.integers(0, 2))), F32)
    elif kind == "SequenceAt":
        c.output(c.node(kind, [seq, c.value(np.array(int(rng.integers(-1, 1)), I64))]), F32)
    elif kind == "SequenceLength":
        c.output(c.node(kind, [seq]), I64)
    else:
        seq2 = c.node("SequenceInsert", [seq, c.value(randf(rng, c.inputs[0][1].shape))])
        c.output(c.node("SequenceAt", [seq2, c.value(np.array(-1, I64))]), F32)


@gen("NMS")
def g_nms(rng, c):
    c.opset = 11
    b, classes, n = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 12))
    center = int(rng.integers(0, 2))
    xy = rng.uniform(0, 10, size=[b, n, 2])
    wh = rng.uniform(0.5, 4, size=[b, n, 2])
    boxes = np.concatenate([xy, wh], -1) if center else np.concatenate([xy, xy + wh], -1)
    if not center and maybe(rng, 0.3):
        boxes = boxes[..., [2, 3, 0, 1]]  # corners in the other order
    scores = rng.permutation(b * classes * n).reshape([b, classes, n]).astype(F32) / (b * classes * n)
    ins = [c.input(boxes.astype(F32)), c.input(scores)]
    if maybe(rng, 0.8):
        ins.append(c.value(np.array([int(rng.integers(0, n + 2))], I64)))
        if maybe(rng, 0.8):
            ins.append(c.value(np.array([float(rng.uniform(0, 0.8))], F32)))
            if maybe(rng):
                ins.append(c.value(np.array([float(rng.uniform(0, 0.9))], F32)))
    c.output(c.node("NonMaxSuppression", ins, center_point_box=center if center or maybe(rng) else None), I64)


@gen("AttentionMs")
def g_attention_ms(rng, c):
    """com.microsoft Attention (what the transformer optimizer fuses BERT and GPT-2 into) and
    MultiHeadAttention: masks in their forms, unidirectional, a past, attention bias, bias."""
    c.ms_opset = True
    ms = "com.microsoft"
    i32 = np.dtype("int32")
    b, s_, heads, hd = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(pick(rng, [1, 2, 4])), \
        int(pick(rng, [2, 4, 8]))
    hidden = heads * hd
    if maybe(rng):
        past = int(pick(rng, [0, 0, 1, 3]))
        total = past + s_
        ins = [c.input(randf(rng, [b, s_, int(rng.integers(2, 12))])), "", c.init(randf(rng, [3 * hidden]))]
        din = c.inputs[-1][1].shape[2]
        ins[1] = c.init(randf(rng, [din, 3 * hidden], -0.5, 0.5))
        mask_kind = pick(rng, ["none", "raw", "end", "end_start"])
        if mask_kind == "raw":
            m = (rng.random([b, total]) < 0.8).astype(i32)
            m[:, 0] = 1
            ins.append(c.input(m))
        elif mask_kind == "end":
            ins.append(c.input(rng.integers(past + 1, total + 1, size=[b]).astype(i32)))
        elif mask_kind == "end_start":
            # (No query row may have every key hidden: there ONNX Runtime's additive -10000 makes
            # every key, future ones too, count again, which no model relies on.)
            ends = rng.integers(past + 1, total + 1, size=[b])
            starts = np.array([int(rng.integers(0, min(e, past + 1))) for e in ends])
            ins.append(c.input(np.concatenate([ends, starts]).astype(i32)))
        else:
            ins.append("")
        if past:
            ins.append(c.input(randf(rng, [2, b, heads, past, hd])))
        attrs = {"num_heads": heads, "unidirectional": 1 if past or maybe(rng, 0.3) else None,
                 "scale": float(pick(rng, [0.3, 1.0])) if maybe(rng, 0.2) else None}
        while ins[-1] == "":
            ins.pop()
        if past:
            y, present = c.node("Attention", ins, n_out=2, domain=ms, **attrs)
            c.output(y, F32)
            c.output(present, F32)
        else:
            c.output(c.node("Attention", ins, domain=ms, **attrs), F32)
        return
    kv_len = s_ if maybe(rng) else int(rng.integers(1, 6))
    vd_head = hd if maybe(rng, 0.7) else int(pick(rng, [2, 6]))
    ins = [c.input(randf(rng, [b, s_, hidden])), c.input(randf(rng, [b, kv_len, hidden])),
           c.input(randf(rng, [b, kv_len, heads * vd_head]))]
    ins.append(c.init(randf(rng, [2 * hidden + heads * vd_head])) if maybe(rng, 0.4) else "")
    mask_kind = pick(rng, ["none", "none", "lengths", "raw"])
    if mask_kind == "lengths":
        ins.append(c.input(rng.integers(1, kv_len + 1, size=[b]).astype(i32)))
    elif mask_kind == "raw":
        m = (rng.random([b, kv_len]) < 0.8).astype(i32)
        m[:, 0] = 1
        ins.append(c.input(m))
    else:
        ins.append("")
    if maybe(rng, 0.3):
        ins.append(c.input(randf(rng, [pick(rng, [1, b]), pick(rng, [1, heads]), s_, kv_len])))
    attrs = {"num_heads": heads, "scale": float(pick(rng, [0.3, 1.0])) if maybe(rng, 0.2) else None,
             "unidirectional": 1 if kv_len == s_ and maybe(rng, 0.2) else None}
    while ins[-1] == "":
        ins.pop()
    c.output(c.node("MultiHeadAttention", ins, domain=ms, **attrs), F32)


@gen("BigConv")
def g_big_conv(rng, c):
    """Convolutions the size of real layers (the packed, Winograd, depthwise and channels-last
    paths level 3 takes), with bias, a residual and an activation."""
    cin = int(pick(rng, [3, 16, 24, 32, 64]))
    depthwise = maybe(rng, 0.25) and cin > 3
    group = cin if depthwise else int(pick(rng, [1, 1, 1, 2])) if cin % 2 == 0 else 1
    cout = cin if depthwise else int(pick(rng, [8, 16, 32, 48, 64]))
    cout -= cout % group
    k = int(pick(rng, [1, 3, 3, 5, 7] if not depthwise else [3, 3, 5]))
    stride = int(pick(rng, [1, 1, 2]))
    hw = [int(rng.integers(max(k, 8), 33)), int(rng.integers(max(k, 8), 33))]
    x = c.input(randf(rng, [1, cin] + hw, -1, 1))
    w = c.init((randf(rng, [cout, cin // group, k, k], -1, 1) / np.sqrt(cin // group * k * k)).astype(F32))
    ins = [x, w] + ([c.init(randf(rng, [cout], -0.5, 0.5))] if maybe(rng, 0.8) else [])
    same = maybe(rng, 0.8)
    dil = 2 if k == 3 and maybe(rng, 0.15) else 1
    pad = (k // 2) * dil if same else 0
    y = c.node("Conv", ins, group=group, kernel_shape=[k, k], strides=[stride, stride],
               pads=[pad] * 4, dilations=[dil, dil] if dil > 1 else None)
    if maybe(rng, 0.4):
        y = c.node("BatchNormalization", [y] + [c.init(randf(rng, [cout], -0.5, 0.5)) for _ in range(3)] +
                   [c.init(randf(rng, [cout], 0.5, 1.5))])
    y = activation(rng, c, y, 0.3)
    if maybe(rng, 0.3) and stride == 1 and same and cout == cin:
        y = c.node("Add", [y, x])
    c.output(y, F32)


@gen("BigMatMul")
def g_big_matmul(rng, c):
    """Products the size of transformer layers (the blocked and packed GEMM paths)."""
    m = int(pick(rng, [1, 2, 7, 16, 64, 129]))
    k = int(pick(rng, [16, 64, 100, 256, 384]))
    n = int(pick(rng, [16, 33, 64, 256, 300]))
    batch = rand_shape(rng, int(rng.integers(0, 2)), 1, 3)
    x = c.input(randf(rng, batch + [m, k], -1, 1))
    w = c.init((randf(rng, [k, n], -1, 1) / np.sqrt(k)).astype(F32))
    if maybe(rng, 0.3):
        y = c.node("Gemm", [x if not batch else c.node("Reshape", [x, c.init(np.array([-1, k], I64))]), w,
                            c.init(randf(rng, [n]))], transB=0)
    else:
        y = c.node("MatMul", [x, w])
        if maybe(rng, 0.7):
            y = c.node("Add", [y, c.init(randf(rng, [n]))])
    y = activation(rng, c, y, 0.4)
    c.output(y, F32)


@gen("BigQuant")
def g_big_quant(rng, c):
    """Static-quantized (QDQ) convolutions and products the size of real layers: the int8 (VNNI or
    AVX2) kernels level 3 fuses them into. One quantization step of difference is allowed."""
    c.int_tol = 1
    xt = pick(rng, [U8, I8])
    sx, zx = qparams(rng, c, xt)
    sy, zy = qparams(rng, c, xt)
    if maybe(rng):
        cin = int(pick(rng, [16, 32, 64]))
        depthwise = maybe(rng, 0.3)
        cout = cin if depthwise else int(pick(rng, [16, 32, 48, 64]))
        group = cin if depthwise else 1
        k = int(pick(rng, [1, 3, 3]))
        hw = [int(rng.integers(8, 25)), int(rng.integers(8, 25))]
        xq = c.input(qtensor(rng, xt, [1, cin] + hw))
        x = c.node("DequantizeLinear", [xq, sx, zx])
        wq = c.init(qtensor(rng, I8, [cout, cin // group, k, k]), "w")
        per_channel = maybe(rng, 0.6)
        sw = c.init(rng.uniform(0.001, 0.01, size=[cout] if per_channel else []).astype(F32), "s")
        w = c.node("DequantizeLinear", [wq, sw, c.init(np.zeros([cout] if per_channel else [], I8), "z")],
                   axis=0 if per_channel else None)
        ins = [x, w]
        if maybe(rng, 0.8):
            # The bias scale is the input's scale times the weight's, as quantizers write it.
            xs = float(np.asarray([a for n, a in c.inits if n == sx][0]))
            ws = np.asarray([a for n, a in c.inits if n == sw][0]).astype(np.float64)
            bias_scale = (xs * (ws if per_channel else np.full([cout], float(ws)))).astype(F32)
            bq = c.init(rng.integers(-2000, 2000, size=[cout]).astype(np.int32), "b")
            ins.append(c.node("DequantizeLinear", [bq, c.init(bias_scale, "s"),
                                                   c.init(np.zeros([cout], np.int32), "z")], axis=0))
        y = c.node("Conv", ins, group=group, kernel_shape=[k, k], pads=[k // 2] * 4,
                   strides=[int(pick(rng, [1, 1, 2]))] * 2)
    else:
        m, k, n = int(pick(rng, [1, 8, 64])), int(pick(rng, [64, 128, 256])), int(pick(rng, [64, 96, 256]))
        xq = c.input(qtensor(rng, xt, [m, k]))
        x = c.node("DequantizeLinear", [xq, sx, zx])
        wq = c.init(qtensor(rng, I8, [k, n]), "w")
        per_channel = maybe(rng, 0.6)
        sw = c.init(rng.uniform(0.001, 0.01, size=[n] if per_channel else []).astype(F32), "s")
        w = c.node("DequantizeLinear", [wq, sw, c.init(np.zeros([n] if per_channel else [], I8), "z")],
                   axis=1 if per_channel else None)
        y = c.node("MatMul", [x, w])
    if maybe(rng, 0.5):
        y = c.node("Relu", [y])
    c.output(c.node("QuantizeLinear", [y, sy, zy]), xt)


@gen("TopKTies")
def g_topk_ties(rng, c):
    """TopK over values with ties: the spec orders equal values by index (smaller first)."""
    c.opset = pick(rng, [11, 18])
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, 1, 9)
    axis = int(rng.integers(-rank, rank))
    dt = pick(rng, [F32, I64, np.dtype("int32"), np.dtype("float64")])
    x = c.input(rng.integers(0, 4, size=shape).astype(dt))
    k = c.value(np.array([int(rng.integers(0, shape[axis] + 1))], I64))
    v, i = c.node("TopK", [x, k], n_out=2, axis=axis,
                  largest=int(rng.integers(0, 2)) if maybe(rng) else None, sorted=1)
    c.output(v, dt)
    c.output(i, I64)


@gen("ControlFlow")
def g_control_flow(rng, c):
    """If, Loop and Scan with small bodies that read outer values (what a fusion or constant
    folding must not break)."""
    kind = pick(rng, ["If", "Loop", "Scan"])
    c.opset = 17
    shape = rand_shape(rng, 2, 1, 5)
    x = c.input(randf(rng, shape))
    outer = c.init(randf(rng, shape))
    if kind == "If":
        cond = c.input(np.array(maybe(rng)))
        then_g = helper.make_graph(
            [helper.make_node("Add", [x, outer], ["t_out"]), helper.make_node("Relu", ["t_out"], ["t_res"])],
            "then", [], [helper.make_tensor_value_info("t_res", TensorProto.FLOAT, None)])
        else_g = helper.make_graph(
            [helper.make_node("Mul", [x, outer], ["e_out"]), helper.make_node("Sigmoid", ["e_out"], ["e_res"])],
            "else", [], [helper.make_tensor_value_info("e_res", TensorProto.FLOAT, None)])
        c.output(c.node("If", [cond], then_branch=then_g, else_branch=else_g), F32)
    elif kind == "Loop":
        trips = c.value(np.array(int(rng.integers(0, 5)), I64))
        cond = c.value(np.array(True))
        body = helper.make_graph(
            [helper.make_node("Identity", ["b_cond"], ["b_cond_out"]),
             helper.make_node("Mul", ["b_state", outer], ["b_m"]),
             helper.make_node("Add", ["b_m", x], ["b_a"]),
             helper.make_node("Tanh", ["b_a"], ["b_state_out"]),
             helper.make_node("ReduceSum", ["b_state_out"], ["b_scan"], keepdims=0)],
            "body",
            [helper.make_tensor_value_info("b_iter", TensorProto.INT64, []),
             helper.make_tensor_value_info("b_cond", TensorProto.BOOL, []),
             helper.make_tensor_value_info("b_state", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("b_cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("b_state_out", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("b_scan", TensorProto.FLOAT, None)])
        final, scanned = c.node("Loop", [trips, cond, x], n_out=2, body=body)
        c.output(final, F32)
        c.output(scanned, F32)
    else:
        seq = c.input(randf(rng, [int(rng.integers(1, 5))] + shape[1:]))
        body = helper.make_graph(
            [helper.make_node("Add", ["s_acc", "s_x"], ["s_acc_out"]),
             helper.make_node("Mul", ["s_acc_out", "s_x"], ["s_y"])],
            "scan",
            [helper.make_tensor_value_info("s_acc", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("s_x", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("s_acc_out", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("s_y", TensorProto.FLOAT, None)])
        init = c.input(randf(rng, shape[1:]))
        final, ys = c.node("Scan", [init, seq], n_out=2, body=body, num_scan_inputs=1,
                           scan_input_directions=[int(rng.integers(0, 2))],
                           scan_output_directions=[int(rng.integers(0, 2))])
        c.output(final, F32)
        c.output(ys, F32)


@gen("Signal")
def g_signal(rng, c):
    op = pick(rng, ["DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow",
                    "MelWeightMatrix"])
    c.opset = 17
    if op == "DFT":
        n = int(rng.integers(1, 12))
        complex_in = maybe(rng, 0.3)
        x = c.input(randf(rng, [int(rng.integers(1, 3)), n, 2 if complex_in else 1]))
        ins = [x]
        if maybe(rng, 0.4):
            ins.append(c.value(np.array(int(rng.integers(1, 14)), I64)))
        onesided = int(rng.integers(0, 2)) if not complex_in and maybe(rng) else None
        inverse = int(rng.integers(0, 2)) if not onesided and maybe(rng, 0.3) else None
        c.output(c.node(op, ins, axis=1, onesided=onesided, inverse=inverse), F32)
    elif op == "STFT":
        sig = int(rng.integers(8, 40))
        frame = int(rng.integers(2, min(sig, 12) + 1))
        step = int(rng.integers(1, frame + 1))
        x = c.input(randf(rng, [int(rng.integers(1, 3)), sig, 1]))
        ins = [x, c.value(np.array(step, I64))]
        if maybe(rng):
            ins.append(c.value(np.hanning(frame).astype(F32)))
        else:
            ins.append("")
            ins.append(c.value(np.array(frame, I64)))
        if len(ins) == 3 and maybe(rng):
            ins.append(c.value(np.array(frame, I64)))
        c.output(c.node(op, ins, onesided=int(rng.integers(0, 2)) if maybe(rng) else None), F32)
    elif op == "MelWeightMatrix":
        dft = int(pick(rng, [8, 16, 32]))
        ins = [c.value(np.array(int(rng.integers(1, 8)), I64)), c.value(np.array(dft, I64)),
               c.value(np.array(int(pick(rng, [8000, 16000])), I64)),
               c.value(np.array(float(rng.uniform(0, 500)), F32)),
               c.value(np.array(float(rng.uniform(1000, 4000)), F32))]
        c.output(c.node(op, ins), F32)
    else:
        size = c.value(np.array(int(rng.integers(1, 20)), I64))
        c.output(c.node(op, [size], periodic=int(rng.integers(0, 2)) if maybe(rng) else None), F32)


def make(name, seed):
    """The case SEED of generator NAME: (model, [(input name, array)], integer tolerance)."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    c = Case(rng)
    GENERATORS[name](rng, c)
    # An intermediate value exposed twice, or an output that is also an input, is not a graph.
    seen = set()
    outs = []
    inputs = {n for n, _ in c.inputs}
    for n, d in c.outputs:
        if n not in seen and n not in inputs:
            seen.add(n)
            outs.append((n, d))
    c.outputs = outs
    return c.model(), c.inputs, c.int_tol
