#!/usr/bin/python3
"""Kiln and ONNX Runtime per operator type on one model, from each runtime's own profiler.

    /usr/bin/python3 bench/op_profile.py MODEL_DIR [--threads N] [--runs K] [--top T]

MODEL_DIR holds model.onnx and input_<i>.npy (as bench/models/ and bench/sweep/models/ do). Kiln
runs through the Python package (build/release/python) with enable_profiling, ONNX Runtime
through bench/ort/ort_bench.js --profile; both skip their first run. Prints milliseconds per run
by operator type, with Kiln's channels-last and fused ops named as the ONNX op they run
(NhwcConv, FusedConv: Conv; NhwcMaxPool: MaxPool; ...) and ONNX Runtime's layout reorders
(ReorderInput/ReorderOutput) next to Kiln's Transpose, then each side's slowest nodes. Measured by
hand, to find where a model's time goes; not part of any test.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kiln_type(op):
    for prefix in ("Nhwc", "Fused"):
        if op.startswith(prefix) and len(op) > len(prefix):
            op = op[len(prefix):]
    return {"Gemm": "Gemm"}.get(op, op)


def ort_type(op):
    if op in ("ReorderInput", "ReorderOutput"):
        return "Transpose"
    if op.startswith("Fused") and len(op) > 5:
        return op[5:]
    return op


def run_kiln(model_dir, threads, runs):
    sys.path.insert(0, os.path.join(ROOT, "build", "release", "python"))
    import numpy as np
    import kiln
    so = kiln.SessionOptions()
    so.intra_op_num_threads = threads
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "kiln")
    s = kiln.InferenceSession(os.path.join(model_dir, "model.onnx"), so)
    feed = {i.name: np.load(os.path.join(model_dir, f"input_{k}.npy"))
            for k, i in enumerate(s.get_inputs())}
    for _ in range(runs + 1):
        s.run(None, feed)
    with open(s.end_profiling()) as f:
        events = [e for e in json.load(f) if e.get("cat") == "node"]
    # Every run records the same nodes in order: drop the first run's.
    per_run = len(events) // (runs + 1)
    events = events[per_run:]
    return [(kiln_type(e["args"].get("op_type", "?")), e["name"], e["dur"]) for e in events]


def run_ort(model_dir, threads, runs):
    prefix = os.path.join(tempfile.mkdtemp(), "ort")
    subprocess.run(["node", os.path.join(ROOT, "bench", "ort", "ort_bench.js"),
                    os.path.join(model_dir, "model.onnx"), "--inputs", model_dir,
                    "--threads", str(threads), "--warmup", "0", "--iters", str(runs),
                    "--profile", prefix], check=True, capture_output=True)
    with open(glob.glob(prefix + "*.json")[0]) as f:
        events = json.load(f)
    first = min((e for e in events if e.get("name") == "model_run"), key=lambda e: e["ts"])
    out = []
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        if first["ts"] <= e["ts"] <= first["ts"] + first["dur"]:
            continue
        out.append((ort_type(e["args"].get("op_name", "?")), e["name"][:-len("_kernel_time")],
                    e["dur"]))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model_dir")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--top", type=int, default=8)
    args = p.parse_args()
    sides = {"Kiln": run_kiln(args.model_dir, args.threads, args.runs),
             "ORT": run_ort(args.model_dir, args.threads, args.runs)}
    by_type = {k: collections.defaultdict(float) for k in sides}
    for side, events in sides.items():
        for op, _, dur in events:
            by_type[side][op] += dur / 1000.0 / args.runs
    ops = sorted(set(by_type["Kiln"]) | set(by_type["ORT"]),
                 key=lambda o: -max(by_type["Kiln"].get(o, 0), by_type["ORT"].get(o, 0)))
    print(f"{'op type':<28} {'Kiln ms':>9} {'ORT ms':>9}")
    for op in ops:
        print(f"{op:<28} {by_type['Kiln'].get(op, 0):9.3f} {by_type['ORT'].get(op, 0):9.3f}")
    print(f"{'(sum of nodes)':<28} {sum(by_type['Kiln'].values()):9.3f} "
          f"{sum(by_type['ORT'].values()):9.3f}")
    for side, events in sides.items():
        nodes = collections.defaultdict(float)
        for op, name, dur in events:
            nodes[(op, name)] += dur / 1000.0 / args.runs
        print(f"\n{side}'s slowest nodes:")
        for (op, name), ms in sorted(nodes.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"  {ms:8.3f} ms  {op:<14} {name}")


if __name__ == "__main__":
    main()
