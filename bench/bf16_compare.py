#!/usr/bin/python3
"""bf16 products on request (session config kiln.compute.bf16) against float, on the zoo.

    /usr/bin/python3 bench/bf16_compare.py MODEL_DIR... [--threads 1 2] [--images 16] [--rounds 2]

MODEL_DIR holds model.onnx (bench/models/: an image model, or BERT's token inputs). Speed: `kiln
bench` with the key 0 and 1, alternated `--rounds` times, each side's best median (ms).
Accuracy, through the Python package (build/release/python), both settings in one process on
`--images` seeded inputs (see feeds()): the first output's largest difference over its largest
value, the worst cosine between the two outputs, and top-1 agreement along its last axis per row
(an image's class; each token's hidden state). Prints rows for bench/RESULTS.md's "bf16 products on
request" table. Measured by hand; not part of any test.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "release", "python"))
import kiln  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "bench"))
from quantize import EVAL_SEED, structured_image  # noqa: E402


def bench(kiln_bin, model, threads, bf16):
    out = subprocess.run([kiln_bin, "bench", model, "--threads", str(threads), "--iters", "10",
                          "--warmup", "2", "--json", "--config", f"kiln.compute.bf16={bf16}"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def feeds(inputs, count):
    """`count` seeded feeds: bench/quantize.py's structured images (from its comparison seeds, not
    its calibration's) for a float input, token ids under 30000 for an int64 input named like
    input_ids, ones for any other int64 input (an attention mask)."""
    out = []
    for i in range(count):
        rng = np.random.default_rng(EVAL_SEED + i)
        feed = {}
        for inp in inputs:
            if inp.type == "tensor(float)":
                feed[inp.name] = structured_image(EVAL_SEED + i, tuple(inp.shape))
            elif "ids" in inp.name:
                feed[inp.name] = rng.integers(0, 30000, size=inp.shape, dtype=np.int64)
            else:
                feed[inp.name] = np.ones(inp.shape, np.int64)
        out.append(feed)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--images", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "release", "tools", "kiln",
                                                    "kiln"))
    args = ap.parse_args()
    for d in args.models:
        model = os.path.join(d, "model.onnx")
        name = os.path.basename(os.path.normpath(d))
        sessions = {}
        for flag in ("0", "1"):
            so = kiln.SessionOptions()
            so.add_session_config_entry("kiln.compute.bf16", flag)
            so.intra_op_num_threads = 2
            sessions[flag] = kiln.InferenceSession(model, sess_options=so)
        worst_cos, worst_rel, agree, rows = 1.0, 0.0, 0, 0
        for feed in feeds(sessions["0"].get_inputs(), args.images):
            a = sessions["0"].run(None, feed)[0].astype(np.float64)
            b = sessions["1"].run(None, feed)[0].astype(np.float64)
            # Top-1 along the last axis, per row (an image's classes; a token's hidden state).
            agree += int((a.reshape(-1, a.shape[-1]).argmax(1) ==
                          b.reshape(-1, b.shape[-1]).argmax(1)).sum())
            rows += a.size // a.shape[-1]
            a, b = a.ravel(), b.ravel()
            worst_cos = min(worst_cos, float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
            worst_rel = max(worst_rel, float(np.abs(a - b).max() / np.abs(a).max()))
        for i, threads in enumerate(args.threads):
            best = {"0": float("inf"), "1": float("inf")}
            for _ in range(args.rounds):
                for flag in ("0", "1"):
                    best[flag] = min(best[flag], bench(args.kiln, model, threads, flag))
            accuracy = (f"{worst_rel:.4f} | {worst_cos:.6f} | {100 * agree / rows:.1f} % of "
                        f"{rows} rows ({args.images} inputs)") if i == 0 else " | | "
            print(f"| {name} | {threads} | {best['0']:.1f} | {best['1']:.1f} | "
                  f"{best['0'] / best['1']:.2f} | {accuracy} |", flush=True)


if __name__ == "__main__":
    main()
