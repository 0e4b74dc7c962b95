#!/usr/bin/env -S /usr/bin/python3
"""Kiln and ONNX Runtime side by side on the benchmark zoo, same machine, same run, same inputs.

    /usr/bin/python3 bench/side_by_side.py [--kiln PATH] [--models DIR] [--only NAME]...
                                           [--threads 1,2] [--rounds 3] [--results FILE]

Needs the zoo (bench/export_zoo.py) and ONNX Runtime for Node.js in bench/ort/node_modules
(`npm ci --ignore-scripts` in bench/ort); `make bench` does both. For each model it first runs
both once on the model's stored inputs and checks that their outputs agree (dtype, shape, and
numpy.allclose with rtol 1e-3, atol 1e-4), then, for each thread count, alternates `kiln bench
--json` and bench/ort/ort_bench.js for the given number of rounds and keeps each side's best
median. It prints one Markdown table (and writes it with the machine's description to --results,
keeping the file's "## " analysis sections after it):
model, threads, Kiln median, ONNX Runtime median, ratio (Kiln / ONNX Runtime; below 1 is faster),
load times, peak RSS, and the largest output difference. ONNX Runtime's peak RSS is that of its
Node.js process less the process's resident set before ONNX Runtime was loaded.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-3, 1e-4


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr.strip()}")
    return p.stdout


def inputs_of(model_dir):
    with open(os.path.join(model_dir, "meta.json")) as f:
        meta = json.load(f)
    return meta, [f"{n}={os.path.join(model_dir, f'input_{i}.npy')}"
                  for i, n in enumerate(meta["inputs"])]


def compare_outputs(kiln, model_dir, tmp):
    """Runs both once; returns the largest |kiln - ort| over all outputs, or raises on mismatch."""
    meta, inputs = inputs_of(model_dir)
    model = os.path.join(model_dir, "model.onnx")
    kdir, odir = os.path.join(tmp, "kiln"), os.path.join(tmp, "ort")
    args = [kiln, "run", model, "--output-dir", kdir, "--threads", "1"]
    for i in inputs:
        args += ["--input", i]
    run(args)
    run(["node", os.path.join(HERE, "ort", "ort_bench.js"), model, "--inputs", model_dir,
         "--warmup", "0", "--iters", "1", "--output-dir", odir])
    worst = 0.0
    for i, name in enumerate(meta["outputs"]):
        t = onnx.TensorProto()
        with open(os.path.join(kdir, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        k = numpy_helper.to_array(t)
        o = np.load(os.path.join(odir, f"output_{i}.npy"))
        if k.dtype != o.dtype or k.shape != o.shape:
            raise RuntimeError(f"output {name}: Kiln {k.dtype}{k.shape}, ORT {o.dtype}{o.shape}")
        if not np.allclose(k, o, rtol=RTOL, atol=ATOL, equal_nan=True):
            bad = np.abs(k.astype(np.float64) - o) > ATOL + RTOL * np.abs(o)
            raise RuntimeError(f"output {name}: {int(bad.sum())} of {k.size} values differ beyond "
                               f"rtol {RTOL} atol {ATOL}; max diff {np.abs(k - o).max():.3g}")
        worst = max(worst, float(np.abs(k.astype(np.float64) - o).max()) if k.size else 0.0)
    return worst


def iterations(meta):
    """About a second of runs per measurement: from torch's forward time where the export
    recorded it (the sweep), else from the model's GFLOP (the zoo)."""
    if "torch_ms" in meta:
        return int(min(200, max(5, 1000 / max(meta["torch_ms"], 1e-3))))
    return int(min(200, max(10, 20 / meta["gflop"])))


def bench(kiln, model_dir, threads, rounds, meta):
    _, inputs = inputs_of(model_dir)
    model = os.path.join(model_dir, "model.onnx")
    iters = str(iterations(meta))
    kcmd = [kiln, "bench", model, "--threads", str(threads), "--iters", iters, "--json"]
    for i in inputs:
        kcmd += ["--input", i]
    ocmd = ["node", os.path.join(HERE, "ort", "ort_bench.js"), model, "--inputs", model_dir,
            "--threads", str(threads), "--iters", iters]
    best = {"kiln": None, "ort": None}
    for _ in range(rounds):
        for side, cmd in (("kiln", kcmd), ("ort", ocmd)):
            r = json.loads(run(cmd))
            if side == "ort":
                r["peak_rss_mb"] -= r["base_rss_mb"]
            b = best[side]
            if b is None or r["median_ms"] < b["median_ms"]:
                best[side] = r
    return best


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kiln", default=os.path.join(HERE, "..", "build", "release", "tools", "kiln",
                                                  "kiln"))
    p.add_argument("--models", default=os.path.join(HERE, "models"))
    p.add_argument("--only", action="append")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--results")
    args = p.parse_args()
    names = args.only or sorted(n for n in os.listdir(args.models)
                                if os.path.exists(os.path.join(args.models, n, "meta.json")))
    threads = [int(t) for t in args.threads.split(",")]

    header = ("| model | threads | Kiln median ms | ORT median ms | ratio | Kiln load ms | "
              "ORT load ms | Kiln peak RSS MB | ORT peak RSS MB | max output diff |")
    rows = [header, "|" + "---|" * 10]
    print(header, flush=True)
    failed = 0
    for name in names:
        model_dir = os.path.join(args.models, name)
        with open(os.path.join(model_dir, "meta.json")) as f:
            meta = json.load(f)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                diff = f"{compare_outputs(args.kiln, model_dir, tmp):.2g}"
        except RuntimeError as e:
            print(f"{name}: outputs differ or a run failed: {e}", file=sys.stderr)
            diff, failed = "MISMATCH", failed + 1
        for t in threads:
            try:
                b = bench(args.kiln, model_dir, t, args.rounds, meta)
            except RuntimeError as e:
                print(f"{name}: {e}", file=sys.stderr)
                rows.append(f"| {name} | {t} | failed | | | | | | | {diff} |")
                failed += 1
                continue
            k, o = b["kiln"], b["ort"]
            row = (f"| {name} | {t} | {k['median_ms']:.3f} | {o['median_ms']:.3f} | "
                   f"{k['median_ms'] / o['median_ms']:.2f} | {k['load_ms']:.0f} | "
                   f"{o['load_ms']:.0f} | {k['peak_rss_mb']:.0f} | {o['peak_rss_mb']:.0f} | {diff} |")
            rows.append(row)
            print(row, flush=True)
    if args.results:
        kiln_rev = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                                  capture_output=True, text=True).stdout.strip()
        # The written analyses below the table ("## " sections, each naming the run it is about)
        # are kept after the new table.
        kept = ""
        if os.path.exists(args.results):
            with open(args.results) as f:
                old = f.read()
            at = old.find("\n## ")
            if at >= 0:
                kept = old[at:]
        with open(args.results, "w") as f:
            f.write("# Kiln and ONNX Runtime side by side\n\n")
            f.write(f"Run {datetime.date.today().isoformat()} by `bench/side_by_side.py` on "
                    f"{machine()}; Kiln {kiln_rev}, ONNX Runtime 1.30.0 (onnxruntime-node, all "
                    f"graph optimizations). fp32, batch 1, best median of {args.rounds} "
                    "alternating rounds per side; ratio = Kiln / ONNX Runtime (below 1: Kiln is "
                    "faster). ONNX Runtime's peak RSS excludes Node.js's own resident set. The "
                    "machine is shared and noisy: ratios from one run.\n\n")
            f.write("\n".join(rows) + "\n")
            f.write(kept)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
