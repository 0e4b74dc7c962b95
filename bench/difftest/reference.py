"""Numpy references for operators where ONNX Runtime is known to depart from the ONNX formulas, so
that difftest.py can tell a Kiln bug from an ONNX Runtime one: when Kiln and ONNX Runtime differ
and Kiln matches the reference here, the case is listed as ONNX Runtime's, not failed.

Each reference takes (node attributes, input arrays) and returns the outputs, or None when the
case is outside what it implements. Written from the operator specs, in float64.
"""
import math

import numpy as np


def _resize_plan(attrs, x, roi, scales, sizes):
    rank = x.ndim
    axes = [a % rank for a in attrs.get("axes", list(range(rank)))]
    policy = attrs.get("keep_aspect_ratio_policy", b"stretch").decode()
    scale = [1.0] * rank
    out = list(x.shape)
    lo, hi = [0.0] * rank, [1.0] * rank
    for j, a in enumerate(axes):
        if roi is not None and roi.size:
            lo[a], hi[a] = float(roi[j]), float(roi[j + len(axes)])
        if sizes is not None and sizes.size:
            out[a] = int(sizes[j])
            scale[a] = out[a] / x.shape[a]
            if policy != "stretch":  # one scale for every axis: the smallest or the largest
                ratios = [int(sizes[i]) / x.shape[b] for i, b in enumerate(axes)]
                scale[a] = min(ratios) if policy == "not_larger" else max(ratios)
                out[a] = int(math.floor(scale[a] * x.shape[a] + 0.5))
        else:
            scale[a] = float(scales[j])
            out[a] = int(math.floor(x.shape[a] * scale[a]))
    return scale, out, lo, hi


def _original(ctm, i, length, out, scale, lo, hi):
    """The input coordinate of output index i (ONNX Resize; tf_crop_and_resize and
    half_pixel_symmetric on the integer output length, the others on scale * length)."""
    resized = scale * length
    if ctm == "half_pixel":
        return (i + 0.5) / scale - 0.5
    if ctm == "half_pixel_symmetric":
        adjustment = out / resized
        return length / 2 * (1 - adjustment) + (i + 0.5) / scale - 0.5
    if ctm == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if resized > 1 else 0.0
    if ctm == "align_corners":
        return i * (length - 1) / (resized - 1) if resized > 1 else 0.0
    if ctm == "asymmetric":
        return i / scale
    if ctm == "tf_half_pixel_for_nn":
        return (i + 0.5) / scale
    if ctm == "tf_crop_and_resize":
        if out > 1:
            return lo * (length - 1) + i * (hi - lo) * (length - 1) / (out - 1)
        return 0.5 * (lo + hi) * (length - 1)
    raise ValueError(ctm)


def _nearest(mode, v):
    if mode == "round_prefer_floor":
        return math.ceil(v - 0.5)
    if mode == "round_prefer_ceil":
        return math.floor(v + 0.5)
    if mode == "floor":
        return math.floor(v)
    return math.ceil(v)


def _cubic_weight(t, a):
    t = abs(t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    if t < 2:
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
    return 0.0


def resize(attrs, inputs):
    x = inputs[0]
    if x.dtype.kind not in "fiu":
        return None
    roi = inputs[1] if len(inputs) > 1 else None
    scales = inputs[2] if len(inputs) > 2 else None
    sizes = inputs[3] if len(inputs) > 3 else None
    plan = _resize_plan(attrs, x, roi, scales, sizes)
    if plan is None:
        return None
    scale, out, lo, hi = plan
    antialias = attrs.get("antialias", 0)
    ctm = attrs.get("coordinate_transformation_mode", b"half_pixel").decode()
    mode = attrs.get("mode", b"nearest").decode()
    nearest_mode = attrs.get("nearest_mode", b"round_prefer_floor").decode()
    a = attrs.get("cubic_coeff_a", -0.75)
    exclude = attrs.get("exclude_outside", 0)
    extrapolation = attrs.get("extrapolation_value", 0.0)
    y = x.astype(np.float64)
    outside = np.zeros(out, dtype=bool)
    for ax in range(x.ndim):
        length = x.shape[ax]
        if out[ax] == length and scale[ax] == 1 and ctm != "tf_crop_and_resize":
            continue
        if out[ax] == 0:
            return None
        rows = []
        for i in range(out[ax]):
            v = _original(ctm, i, length, out[ax], scale[ax], lo[ax], hi[ax])
            if ctm == "tf_crop_and_resize" and (v < 0 or v > length - 1):
                shape = [1] * x.ndim
                shape[ax] = out[ax]
                mark = np.zeros(out[ax], dtype=bool)
                mark[i] = True
                outside |= mark.reshape(shape)
                rows.append(np.take(y, [0], axis=ax) * 0)
                continue
            if mode == "nearest":
                j = min(max(_nearest(nearest_mode, v), 0), length - 1)
                rows.append(np.take(y, [j], axis=ax))
                continue
            f = math.floor(v)
            t = v - f
            if t == 0:  # the ONNX reference takes the fraction in (0, 1]
                f, t = f - 1, 1.0
            # antialias widens the filter of a shrink by 1 / scale (and normalizes its weights)
            fs = min(scale[ax], 1.0) if antialias else 1.0
            reach = 1 if mode == "linear" else 2
            start = math.floor(-reach / fs) + 1
            taps = []
            for k in range(2 - 2 * start):
                d = (start + k - t) * fs
                w = max(0.0, 1 - abs(d)) if mode == "linear" else _cubic_weight(d, a)
                taps.append((f + start + k, w))
            if antialias:
                total = sum(w for _, w in taps)
                taps = [(j, w / total) for j, w in taps]
            if exclude:
                taps = [(j, w) for j, w in taps if 0 <= j < length]
                total = sum(w for _, w in taps)
                taps = [(j, w / total) for j, w in taps]
            acc = 0
            for j, w in taps:
                acc = acc + w * np.take(y, [min(max(j, 0), length - 1)], axis=ax)
            rows.append(acc)
        y = np.concatenate(rows, axis=ax)
    y = np.where(outside, extrapolation, y)
    if x.dtype.kind in "iu":  # truncated toward zero, but an integer result a rounding error off
        near = np.rint(y)      # stays that integer
        y = np.where(np.abs(y - near) < 1e-9 * np.maximum(1, np.abs(y)), near, np.trunc(y))
        info = np.iinfo(x.dtype)
        y = np.clip(y, info.min, info.max)
    return [y.astype(x.dtype)]


def mean_variance_normalization(attrs, inputs):
    """MeanVarianceNormalization's function body (opset 13): (X - E[X]) / (sqrt(E[X^2] - E[X]^2)
    + 1e-9), so an axis of one element gives 0, not 0 / 0."""
    x = inputs[0].astype(np.float64)
    axes = tuple(attrs.get("axes", [0, 2, 3]))
    mean = x.mean(axis=axes, keepdims=True)
    var = (x * x).mean(axis=axes, keepdims=True) - mean * mean
    return [((x - mean) / (np.sqrt(np.maximum(var, 0)) + 1e-9)).astype(inputs[0].dtype)]


def pad(attrs, inputs):
    """Pad: numpy.pad's constant, reflect and edge, and wrap as a periodic extension (repeating
    past the data's own size); negative pads crop."""
    x, pads = inputs[0], [int(p) for p in inputs[1]]
    value = inputs[2] if len(inputs) > 2 and inputs[2] is not None else np.array(0, x.dtype)
    axes = list(range(x.ndim))
    if len(inputs) > 3 and inputs[3] is not None:
        axes = [int(a) % x.ndim for a in inputs[3]]
    before, after = [0] * x.ndim, [0] * x.ndim
    for j, a in enumerate(axes):
        before[a], after[a] = pads[j], pads[j + len(axes)]
    mode = attrs.get("mode", b"constant").decode()
    crop = tuple(slice(max(0, -b), x.shape[a] - max(0, -e)) for a, (b, e) in enumerate(zip(before, after)))
    x = x[crop]
    widths = [(max(0, b), max(0, e)) for b, e in zip(before, after)]
    if mode == "constant":
        return [np.pad(x, widths, mode="constant", constant_values=value.item())]
    if any(d == 0 for d in x.shape):
        return None
    if mode == "wrap":  # periodic, however wide (numpy's wrap is not, past the axis's size)
        for a, (b, e) in enumerate(widths):
            x = np.take(x, [(i - b) % x.shape[a] for i in range(x.shape[a] + b + e)], axis=a)
        return [x]
    return [np.pad(x, widths, mode={"reflect": "reflect", "edge": "edge"}[mode])]


_REDUCE = {
    "ReduceSum": lambda x, ax, kd: np.sum(x, axis=ax, keepdims=kd),
    "ReduceMean": lambda x, ax, kd: np.mean(x, axis=ax, keepdims=kd),
    "ReduceMax": lambda x, ax, kd: np.max(x, axis=ax, keepdims=kd),
    "ReduceMin": lambda x, ax, kd: np.min(x, axis=ax, keepdims=kd),
    "ReduceProd": lambda x, ax, kd: np.prod(x, axis=ax, keepdims=kd),
    "ReduceL1": lambda x, ax, kd: np.sum(np.abs(x), axis=ax, keepdims=kd),
    "ReduceL2": lambda x, ax, kd: np.sqrt(np.sum(x * x, axis=ax, keepdims=kd)),
    "ReduceLogSum": lambda x, ax, kd: np.log(np.sum(x, axis=ax, keepdims=kd)),
    "ReduceLogSumExp": lambda x, ax, kd: np.log(np.sum(np.exp(x), axis=ax, keepdims=kd)),
    "ReduceSumSquare": lambda x, ax, kd: np.sum(x * x, axis=ax, keepdims=kd),
}


def reduction(op):
    def run(attrs, inputs):
        x = inputs[0]
        axes = attrs.get("axes")
        if len(inputs) > 1 and inputs[1] is not None:
            axes = [int(a) for a in inputs[1]]
        if not axes and attrs.get("noop_with_empty_axes", 0):
            axes = ()  # reduced over no axis: each element alone (|x| for ReduceL1, as ONNX 1.18)
        elif not axes:
            axes = tuple(range(x.ndim))
        else:
            axes = tuple(sorted(set(a % x.ndim for a in axes))) if x.ndim else ()
        if x.size == 0 and op in ("ReduceMax", "ReduceMin", "ReduceMean", "ReduceLogSumExp"):
            return None  # the empty set's value differs between opsets
        wide = x.astype(np.float64 if x.dtype.kind == "f" else np.int64)
        y = _REDUCE[op](wide, axes, bool(attrs.get("keepdims", 1)))
        return [np.asarray(y).astype(x.dtype)]
    return run


REFERENCES = {"Resize": resize, "MeanVarianceNormalization": mean_variance_normalization,
              "Pad": pad}
REFERENCES.update({op: reduction(op) for op in _REDUCE})
