#!/usr/bin/env -S /usr/bin/python3
"""Check the sweep's models (export_sweep.py) in Kiln: each loads at optimization levels 0-3 and
its outputs match torch's (rtol 1e-3, atol 1e-4) at every level, for every exported input shape.

    /usr/bin/python3 bench/sweep/check_sweep.py MODELS [--build build/release] [--only NAME]...
                                                [--threads 1] [--report FILE]

Runs through the Python package of --build (kiln, over the C ABI). Prints one line per model and
level; exits 1 when any model fails to load or differs, naming it and the largest difference.

Where an output misses torch's float32 one, the model's float64 result decides (exact_<i>.npy,
written once by export_sweep.py --exact): a deep network can amplify float32 rounding beyond the
tolerance, and then torch's own float32 output misses the exact result too. The output passes if
no more of Kiln's values than of torch's float32 ones lie beyond the tolerance of the float64
result; the line gives both counts.
Models export_sweep.py could not export are listed, not counted. --report writes the lines as a
Markdown list as well.
"""
import argparse
import json
import os
import sys

import subprocess

import numpy as np

RTOL, ATOL = 1e-3, 1e-4
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_set(d, prefix, count):
    return [np.load(os.path.join(d, f"{prefix}_{i}.npy")) for i in range(count)]


def close(a, b):
    return np.allclose(a, b, rtol=RTOL, atol=ATOL)


def beyond(x, exact):
    """How many values of x lie beyond the tolerance of the exact result (NaN counts)."""
    x = x.astype(np.float64)
    return int(np.count_nonzero(~(np.abs(x - exact) <= ATOL + RTOL * np.abs(exact))))


class Exact:
    """A model's float64 results, written by export_sweep.py --exact the first time one is asked
    for (minutes for a large model, once), then kept beside its export."""

    def __init__(self, models, name):
        self.models, self.name, self.failed = models, name, None

    def get(self, prefix, i):
        if self.failed:
            return None
        path = os.path.join(self.models, self.name, f"{prefix}_{i}.npy")
        if not os.path.exists(path):
            child = subprocess.run([sys.executable, os.path.join(HERE, "export_sweep.py"), self.models,
                                    "--only", self.name, "--exact"], capture_output=True, text=True)
            if child.returncode != 0 or not os.path.exists(path):
                err = (child.stderr or child.stdout).strip().splitlines()
                self.failed = err[-1] if err else f"exit {child.returncode}"
                return None
        return np.load(path)


def detection_order(got, refs):
    """Detections (torchvision's outputs: boxes [N, 4], labels [N], scores [N], then per-detection
    masks or keypoints) are sorted by score, and two whose scores differ by float rounding may come
    in either order. Where the outputs are such and do not match in order, this reorders Kiln's rows
    to the reference's, moving a row only to a place where Kiln's own score equals its score within
    the tolerance (a reordering among ties, never across different scores), and only to match the
    reference's row there: the same label, every output within the tolerance. Everything is then
    compared as usual. Returns the outputs and a note of how many rows moved."""
    if len(got) < 3 or len(got) != len(refs):
        return got, ""
    boxes, labels, scores = got[:3]
    n = boxes.shape[0] if boxes.ndim == 2 else -1
    if (boxes.shape != (n, 4) or labels.shape != (n,) or scores.shape != (n,)
            or refs[0].shape != (n, 4) or labels.dtype.kind != "i" or scores.dtype.kind != "f"
            or any(g.shape[:1] != (n,) or g.shape != r.shape for g, r in zip(got, refs))):
        return got, ""
    if all(close(g, r) for g, r in zip(got, refs)):
        return got, ""
    order, used = [], set()
    for i in range(n):
        for j in range(n):
            if j not in used and close(scores[j], scores[i]) and labels[j] == refs[1][i] and all(
                    close(g[j], r[i]) for g, r in zip(got, refs)):
                order.append(j)
                used.add(j)
                break
        else:
            return got, ""  # no row of Kiln's is this detection: compared in order, fails there
    moved = sum(1 for i, j in enumerate(order) if i != j)
    return [g[order] for g in got], f"; {moved} of {n} detections in another order among equal scores"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models")
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    p.add_argument("--only", action="append")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--report")
    args = p.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import kiln as ort

    names = args.only or sorted(n for n in os.listdir(args.models)
                                if os.path.exists(os.path.join(args.models, n, "meta.json")))
    bad = 0
    lines = []

    def say(line):
        lines.append(line)
        print(line, flush=True)

    for name in names:
        d = os.path.join(args.models, name)
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        n_in, n_out = len(meta["inputs"]), len(meta["outputs"])
        sets = [(load_set(d, "input", n_in), load_set(d, "ref", n_out), "exact")]
        if meta.get("shapes", 1) == 2:
            sets.append((load_set(d, "input2", n_in), load_set(d, "ref2", n_out), "exact2"))
        exact = Exact(args.models, name)
        for level in range(4):
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel(
                [0, 1, 2, 99][level])
            so.intra_op_num_threads = args.threads
            try:
                sess = ort.InferenceSession(os.path.join(d, "model.onnx"), so)
                worst = 0.0
                notes = ""
                for inputs, refs, exact_prefix in sets:
                    got = sess.run(None, dict(zip(meta["inputs"], inputs)))
                    got, note = detection_order(got, refs)
                    notes += note
                    for i, (g, r) in enumerate(zip(got, refs)):
                        if g.shape != r.shape:
                            raise AssertionError(f"shape {g.shape}, torch {r.shape}")
                        diff = np.abs(g.astype(np.float64) - r.astype(np.float64))
                        worst = max(worst, float(diff.max()) if diff.size else 0.0)
                        if np.allclose(g, r, rtol=RTOL, atol=ATOL):
                            continue
                        miss = f"outputs differ from torch's by up to {diff.max():.3g}"
                        e = exact.get(exact_prefix, i)
                        if e is None or e.shape != g.shape:
                            why = exact.failed or f"float64 shape {None if e is None else e.shape}"
                            raise AssertionError(f"{miss} (no float64 result to compare: {why})")
                        kiln_n, torch_n = beyond(g, e), beyond(r, e)
                        counts = (f"{kiln_n:,} of {g.size:,} values of {exact_prefix.replace('exact', 'output')}_{i} "
                                  f"beyond the tolerance of the float64 result, torch float32's {torch_n:,}")
                        if kiln_n > torch_n:
                            raise AssertionError(f"{miss}; {counts}")
                        notes += f"; {counts}"
                say(f"{name} level {level}: ok (max diff {worst:.2g}{notes})")
            except Exception as e:  # reported per model and level
                bad += 1
                say(f"{name} level {level}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    failures = os.path.join(args.models, "export_failures.json")
    if os.path.exists(failures):
        with open(failures) as f:
            for name, why in sorted(json.load(f).items()):
                say(f"{name}: {why}")
    say(f"{len(names) * 4 - bad} passed, {bad} failed")
    if args.report:
        with open(args.report, "w") as f:
            f.write("# The model sweep in Kiln: load and match torch at levels 0-3\n\n")
            f.writelines(f"- {line}\n" for line in lines)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
