#!/usr/bin/env -S /usr/bin/python3
"""Export the model sweep (issue 27) with Debian's torch: models Kiln was never tuned on.

    /usr/bin/python3 bench/sweep/export_sweep.py OUTDIR [--only NAME]... [--list] [--timeout S]
    /usr/bin/python3 bench/sweep/export_sweep.py OUTDIR --only NAME... --exact

Every torchvision classification model; the segmentation, detection, video and optical-flow
models where torch 1.13 exports them; two streaming models written here (streaming_models.py: a
voice-activity detector with LSTM state and an If on the sample rate, a keyword spotter with a
GRU), each at opsets 13 and 17, and their dynamic-shape variants (batch and frames free). Random
weights, fixed seeds, BatchNorm statistics recomputed as bench/export_zoo.py does.

For each model OUTDIR/<name>/ gets model.onnx, input_<i>.npy, torch's outputs as ref_<i>.npy
(and, for a dynamic variant, a second shape as input2_<i>.npy / ref2_<i>.npy), and meta.json
{"inputs", "outputs", "gflop", "shapes"}: the layout bench/side_by_side.py reads. A model that
does not export is listed in OUTDIR/export_failures.json with torch's error, not skipped
silently. A model already exported at the same EXPORT_REVISION and torch is reused. Each model is exported
in a child process of its own (its memory is returned when it is done) that is stopped after
--timeout seconds (recorded as a failure). meta.json's "torch_ms" is torch's own forward time at
1 thread, which side_by_side.py uses to size its iteration counts.

--exact writes an exported model's outputs computed in float64 (exact_<i>.npy): check_sweep.py
asks for them when Kiln's outputs miss torch's float32 ones, to see whether torch's own float32
result is within the tolerance of the exact one.
"""
import argparse
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from streaming_models import Kws, Vad  # noqa: E402
from torch_models import recompute_batchnorm  # noqa: E402

# torchvision's model families by module; the sizes their inputs take.
FAMILIES = {
    "classification": (torchvision.models, (1, 3, 224, 224)),
    "segmentation": (torchvision.models.segmentation, (1, 3, 384, 512)),
    "detection": (torchvision.models.detection, (1, 3, 320, 416)),
    "video": (torchvision.models.video, (1, 3, 8, 112, 112)),
    "optical_flow": (torchvision.models.optical_flow, (1, 3, 128, 160)),
}


# Models whose own input size differs from their family's: Inception-v3 needs 299×299 (at 224
# its last 5×5 convolution is wider than its 3×3 map); MViT's positional embeddings are sized for
# 16 frames of 224×224, and S3D's temporal kernels need more than 8 frames of 112×112.
SIZES = {
    "inception_v3": (1, 3, 299, 299),
    "mvit_v1_b": (1, 3, 16, 224, 224),
    "mvit_v2_s": (1, 3, 16, 224, 224),
    "s3d": (1, 3, 16, 224, 224),
}


def torchvision_names():
    names = {}
    for family, (module, shape) in FAMILIES.items():
        for n in torchvision.models.list_models(module=module):
            names[n] = (family, SIZES.get(n, shape))
    return names


def streaming_specs():
    specs = {}
    for opset in (13, 17):
        specs[f"vad_op{opset}"] = ("vad", opset, False)
        specs[f"vad_dynamic_op{opset}"] = ("vad", opset, True)
        specs[f"kws_op{opset}"] = ("kws", opset, False)
        specs[f"kws_dynamic_op{opset}"] = ("kws", opset, True)
    return specs


# Raised when a change here changes what is exported (a model already exported at the same
# revision, by the same torch, from the same streaming_models.py, is reused).
EXPORT_REVISION = "3"
# The same for one family only (its models are exported again, the others reused).
FAMILY_REVISION = {"detection": "2"}


def stamp(family=None):
    h = hashlib.sha256(EXPORT_REVISION.encode())
    if family in FAMILY_REVISION:
        h.update(f"{family}:{FAMILY_REVISION[family]}".encode())
    with open(os.path.join(HERE, "streaming_models.py"), "rb") as fh:
        h.update(fh.read())
    h.update(torch.__version__.encode())
    return h.hexdigest()[:16]


def seeded(name):
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


def register_roi_align_opset16():
    """torchvision 0.14 registers its roi_align export for opset 11 only, which writes no
    coordinate_transformation_mode: exported at opset 16 or later, the node then means RoiAlign-16's
    default, half_pixel, while torch's aligned=False is output_half_pixel (every R-CNN box pooling
    sampled half a pixel off; Kiln and ONNX Runtime agreed with each other, not with torch). This
    is torchvision's later opset-16 export: the same node, with the mode written."""
    from torch.onnx import register_custom_op_symbolic, symbolic_helper
    from torch.onnx.symbolic_opset11 import select, squeeze

    @symbolic_helper.parse_args("v", "v", "f", "i", "i", "i", "i")
    def roi_align(g, x, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
        first = g.op("Constant", value_t=torch.tensor([0], dtype=torch.long))
        batch_indices = g.op("Cast", squeeze(g, select(g, rois, 1, first), 1),
                             to_i=torch.onnx.TensorProtoDataType.INT64)
        boxes = select(g, rois, 1, g.op("Constant", value_t=torch.tensor([1, 2, 3, 4])))
        return g.op("RoiAlign", x, boxes, batch_indices, spatial_scale_f=spatial_scale,
                    output_height_i=pooled_height, output_width_i=pooled_width,
                    sampling_ratio_i=max(sampling_ratio, 0),
                    coordinate_transformation_mode_s="half_pixel" if aligned else "output_half_pixel")

    register_custom_op_symbolic("torchvision::roi_align", roi_align, 16)


def build_torchvision(name, family, shape):
    gen = torch.Generator().manual_seed(seeded(name))
    torch.manual_seed(seeded(name))
    # No pretrained weights of any part: nothing is downloaded.
    kwargs = {"weights": None}
    if family in ("segmentation", "detection"):
        kwargs["weights_backbone"] = None
    model = torchvision.models.get_model(name, **kwargs)
    has_bn = any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules())
    if family == "classification" and has_bn:
        recompute_batchnorm(model, gen, size=min(shape[-2:]))
    elif family == "segmentation" and has_bn:
        # From images drawn as the inputs are (uniform): DeepLabV3's pooling branch normalizes a
        # 1×1 map, whose statistics follow the images' distribution, not the layer's; from normal
        # images it amplified the uniform input's pooled features into logits near 1,000, where
        # float rounding alone (Kiln's and ONNX Runtime's alike) exceeds atol 1e-4.
        recompute_batchnorm(model, gen, size=224, sample=torch.rand)
    elif family == "detection" and has_bn:
        # The backbone only (it takes a batch of images; the heads of most have no BN). With the
        # default statistics its features collapse: every proposal got the same class scores, no
        # box cleared the score threshold, and the outputs were empty, so the check compared no
        # value. The backbone sees normalized images: normal ones.
        recompute_batchnorm(model.backbone, gen, size=224)
    model.eval()
    if family == "optical_flow":
        inputs = (torch.rand(shape, generator=gen), torch.rand(shape, generator=gen))
        return model, inputs, ["image1", "image2"], None
    x = torch.rand(shape, generator=gen)
    if family == "detection":
        return model, ([x[0]],), ["image"], None
    return model, (x,), ["input"], None


def build_streaming(kind, dynamic, name):
    torch.manual_seed(seeded(name))
    gen = torch.Generator().manual_seed(seeded(name))
    if kind == "vad":
        model = Vad().eval()
        b = 2 if dynamic else 1
        inputs = (torch.randn(b, 512, generator=gen), torch.tensor(16000),
                  torch.randn(2, b, 64, generator=gen) * 0.1, torch.randn(2, b, 64, generator=gen) * 0.1)
        names = ["x", "sr", "h", "c"]
        axes = {"x": {0: "batch"}, "h": {1: "batch"}, "c": {1: "batch"}} if dynamic else None
        second = ((torch.randn(3, 512, generator=gen), torch.tensor(8000),
                   torch.randn(2, 3, 64, generator=gen) * 0.1, torch.randn(2, 3, 64, generator=gen) * 0.1)
                  if dynamic else None)
        return model.eval(), inputs, names, (axes, second)
    model = Kws().eval()
    b, t = (2, 30) if dynamic else (1, 49)
    inputs = (torch.randn(b, t, 40, generator=gen), torch.randn(1, b, 64, generator=gen) * 0.1)
    axes = {"x": {0: "batch", 1: "frames"}, "h": {1: "batch"}} if dynamic else None
    second = ((torch.randn(3, 17, 40, generator=gen), torch.randn(1, 3, 64, generator=gen) * 0.1)
              if dynamic else None)
    return model, inputs, ["x", "h"], (axes, second)


def flat_outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        return [v for v in out.values() if isinstance(v, torch.Tensor)]
    if isinstance(out, (list, tuple)):
        flat = []
        for o in out:
            flat += flat_outputs(o)
        return flat
    return []


def export(name, outdir, tv, streaming):
    d = os.path.join(outdir, name)
    done = os.path.join(d, ".export-" + stamp(tv[name][0] if name in tv else None))
    if os.path.exists(done):
        return "reused"
    opset, dynamic_axes, second = 17, None, None
    if name in tv:
        family, shape = tv[name]
        model, inputs, in_names, _ = build_torchvision(name, family, shape)
    else:
        kind, opset, dynamic = streaming[name]
        model, inputs, in_names, (dynamic_axes, second) = build_streaming(kind, dynamic, name)
    with torch.no_grad():
        refs = flat_outputs(model(*inputs))
        t0 = time.perf_counter()  # the second run: the first one warms up
        model(*inputs)
        torch_ms = (time.perf_counter() - t0) * 1e3
        refs2 = flat_outputs(model(*second)) if second is not None else None
    out_names = [f"output_{i}" for i in range(len(refs))]
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):  # float64 results of an earlier export (exact()) no longer apply
        if f.startswith("exact"):
            os.remove(os.path.join(d, f))
    path = os.path.join(d, "model.onnx")
    if opset >= 16:
        register_roi_align_opset16()
    torch.onnx.export(model, inputs, path, opset_version=opset, do_constant_folding=True,
                      input_names=in_names, output_names=out_names, dynamic_axes=dynamic_axes)
    onnx.checker.check_model(path)
    flat_inputs = inputs[0] if isinstance(inputs[0], list) else inputs
    for i, x in enumerate(flat_inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), x.numpy())
    for i, r in enumerate(refs):
        np.save(os.path.join(d, f"ref_{i}.npy"), r.numpy())
    if second is not None:
        for i, x in enumerate(second):
            np.save(os.path.join(d, f"input2_{i}.npy"), x.numpy())
        for i, r in enumerate(refs2):
            np.save(os.path.join(d, f"ref2_{i}.npy"), r.numpy())
    graph_inputs = [i.name for i in onnx.load(path, load_external_data=False).graph.input]
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"inputs": graph_inputs, "outputs": out_names, "gflop": 1.0,
                   "torch_ms": round(torch_ms, 3), "shapes": 2 if second is not None else 1},
                  f, indent=2)
        f.write("\n")
    open(done, "w").close()
    return "exported"


def exact(name, outdir, tv, streaming):
    """The model's outputs in float64 (exact_<i>.npy, exact2_<i>.npy), for check_sweep.py to tell
    a runtime's float rounding from an error where torch's own float32 result is not within the
    tolerance of exact arithmetic. The model is built again as export() built it (same seed, same
    weights, same BatchNorm statistics) and must reproduce the saved float32 results first."""
    d = os.path.join(outdir, name)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    if name in tv:
        family, shape = tv[name]
        model = build_torchvision(name, family, shape)[0]
        nested = family == "detection"
    else:
        kind, _, dynamic = streaming[name]
        model = build_streaming(kind, dynamic, name)[0]
        nested = False
    sets = [("input", "ref", "exact")]
    if meta.get("shapes", 1) == 2:
        sets.append(("input2", "ref2", "exact2"))
    n_in, n_out = len(meta["inputs"]), len(meta["outputs"])
    for inp, ref, out in sets:
        xs = [torch.from_numpy(np.load(os.path.join(d, f"{inp}_{i}.npy"))) for i in range(n_in)]
        refs = [np.load(os.path.join(d, f"{ref}_{i}.npy")) for i in range(n_out)]
        with torch.no_grad():
            model.float()
            got = flat_outputs(model(*([xs] if nested else xs)))
            if len(got) != n_out or any(g.shape != r.shape or not np.allclose(g.numpy(), r, rtol=1e-5, atol=1e-6)
                                        for g, r in zip(got, refs)):
                raise SystemExit(f"{name}: the model built again does not reproduce its export's results")
            model.double()
            xs64 = [x.double() if x.is_floating_point() else x for x in xs]
            got = flat_outputs(model(*([xs64] if nested else xs64)))
        if len(got) != n_out:
            raise SystemExit(f"{name}: {len(got)} outputs in float64, {n_out} in float32")
        for i, g in enumerate(got):
            np.save(os.path.join(d, f"{out}_{i}.npy"), g.numpy())
    return "float64 results written"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--only", action="append")
    p.add_argument("--list", action="store_true", help="print the names and exit")
    p.add_argument("--timeout", type=float, default=1200, help="seconds per model")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--exact", action="store_true",
                   help="write the --only models' float64 results (exported models only)")
    args = p.parse_args()
    tv, streaming = torchvision_names(), streaming_specs()
    names = args.only or sorted(streaming) + sorted(tv)
    if args.list:
        print("\n".join(names))
        return
    torch.set_num_threads(1)
    if args.exact:
        for name in args.only or []:
            print(f"{name}: {exact(name, args.outdir, tv, streaming)}", flush=True)
        return
    if args.child:  # one model, in the process the parent started for it
        print(export(names[0], args.outdir, tv, streaming), flush=True)
        return
    os.makedirs(args.outdir, exist_ok=True)
    failures_path = os.path.join(args.outdir, "export_failures.json")
    for name in names:
        if name not in tv and name not in streaming:
            raise SystemExit(f"unknown model '{name}' (see --list)")
        start = time.monotonic()
        failed = None  # the failure to record, or None: exported
        try:
            child = subprocess.run([sys.executable, os.path.abspath(__file__), args.outdir,
                                    "--only", name, "--child"], capture_output=True, text=True,
                                   timeout=args.timeout)
            if child.returncode == 0:
                what = child.stdout.strip().splitlines()[-1]
            else:  # recorded: a model that does not export is a row of the table
                err = [ln for ln in child.stderr.strip().splitlines() if ln.strip()]
                if child.returncode < 0:
                    sig = signal.Signals(-child.returncode).name
                    cause = f"killed by {sig}" + (" (the kernel's out-of-memory killer?)"
                                                  if sig == "SIGKILL" else "")
                else:
                    cause = err[-1][:300] if err else f"exit {child.returncode}"
                what = failed = f"does not export: {cause}"
        except subprocess.TimeoutExpired:
            what = failed = f"does not export: not done in {args.timeout:.0f} s"
        print(f"{name}: {what} ({time.monotonic() - start:.1f} s)", flush=True)
        # Read, change this model's entry, write, under a lock: exports of other models may run
        # at the same time into the same directory.
        with open(failures_path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            failures = {}
            if os.path.exists(failures_path):
                with open(failures_path) as f:
                    failures = json.load(f)
            if failed is None:
                failures.pop(name, None)
            else:
                failures[name] = failed
            with open(failures_path + ".tmp", "w") as f:
                json.dump(failures, f, indent=2, sort_keys=True)
                f.write("\n")
            os.replace(failures_path + ".tmp", failures_path)

if __name__ == "__main__":
    main()
