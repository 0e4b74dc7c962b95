#!/usr/bin/env -S /usr/bin/python3
"""Kiln and ONNX Runtime side by side on the benchmark zoo, same machine, same run, same inputs.

    /usr/bin/python3 bench/side_by_side.py [--kiln PATH] [--models DIR] [--only NAME]...
                                           [--threads 1,2] [--rounds 3] [--results FILE]
                                           [--resume]

Needs the zoo (bench/export_zoo.py) and ONNX Runtime for Node.js in bench/ort/node_modules
(`npm ci --ignore-scripts` in bench/ort); `make bench` does both. For each model it first runs
both once on the model's stored inputs and checks that their outputs agree (dtype, shape, and
numpy.allclose with rtol 1e-3, atol 1e-4), then, for each thread count, alternates `kiln bench
--json` and bench/ort/ort_bench.js for the given number of rounds and keeps each side's best
median. It prints one Markdown table (and writes it with the machine's description to --results,
keeping the file's "## " analysis sections after it):
model, threads, Kiln median, ONNX Runtime median, ratio (Kiln / ONNX Runtime; below 1 is faster),
load times, peak RSS, the largest output difference, and the Kiln commit measured. ONNX
Runtime's peak RSS is that of its Node.js process less the process's resident set before ONNX
Runtime was loaded. Below the table: the worst and geometric-mean ratio per thread count, and the
models the export could not produce (the models directory's export_failures.json).
Quantized copies of zoo models (<name>_int8, bench/quantize.py) and export variants
(gpt_decoder_1tok, bench/export_zoo.py) are left out of the default list.

--resume (with --results) keeps the rows already in the file and measures only the (model, thread
count) pairs it lacks, rewriting the file after each model: a sweep too long for one
sitting is measured over several, each row naming the commit it measured.
"""
import argparse
import datetime
import json
import math
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


def quantized_copy(model_dir):
    """Whether the directory is bench/quantize.py's quantized copy of a zoo model (<name>_int8,
    gpt_decoder_q4) or an export variant (gpt_decoder_1tok), timed by
    bench/quant_side_by_side.py; left out of this table unless named with --only."""
    with open(os.path.join(model_dir, "meta.json")) as f:
        meta = json.load(f)
    return "quantization" in meta or "variant_of" in meta


def iterations(meta):
    """About a second of runs per measurement: from torch's forward time where the export
    recorded it (the sweep), else from the model's GFLOP (the zoo)."""
    if "torch_ms" in meta:
        return int(min(200, max(5, 1000 / max(meta["torch_ms"], 1e-3))))
    return int(min(200, max(10, 20 / meta["gflop"])))


def bench(kiln, model_dir, threads, rounds, meta):
    _, inputs = inputs_of(model_dir)
    model = os.path.join(model_dir, "model.onnx")
    n = iterations(meta)
    # Untimed runs after the first: 5, fewer for a model timed only 5-25 times (seconds a run).
    iters, warmup = str(n), str(max(1, min(5, n // 5)))
    kcmd = [kiln, "bench", model, "--threads", str(threads), "--iters", iters, "--warmup", warmup,
            "--json"]
    for i in inputs:
        kcmd += ["--input", i]
    ocmd = ["node", os.path.join(HERE, "ort", "ort_bench.js"), model, "--inputs", model_dir,
            "--threads", str(threads), "--iters", iters, "--warmup", warmup]
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


HEADER = ("| model | threads | Kiln median ms | ORT median ms | ratio | Kiln load ms | "
          "ORT load ms | Kiln peak RSS MB | ORT peak RSS MB | max output diff | Kiln |")


def read_rows(path):
    """The table rows of an earlier --results file: {(model, threads): cells}. Rows of a table
    without the commit column get the commit its heading names."""
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        text = f.read()
    rev = ""
    at = text.find("; Kiln ")
    if at >= 0:
        rev = text[at + 7:].split(",")[0].split()[0]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) in (10, 11) and cells[1].isdigit():
            if len(cells) == 10:
                cells.append(rev)
            rows[(cells[0], int(cells[1]))] = cells
    return rows


def summary(rows, threads, names):
    """Worst and geometric-mean ratio per thread count, over the rows measured."""
    lines = []
    for t in threads:
        ratios = [(float(c[4]), m) for (m, tt), c in rows.items()
                  if tt == t and m in names and c[4] not in ("", "failed")]
        if not ratios:
            continue
        geo = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
        worst = max(ratios)
        lines.append(f"- {t} thread{'s' if t > 1 else ''}: {len(ratios)} of {len(names)} models "
                     f"measured; geometric mean {geo:.2f}, worst {worst[0]:.2f} ({worst[1]}); "
                     f"{sum(r <= 1.0 for r, _ in ratios)} at or below 1.0")
    return lines


def write_results(path, rows, names, threads, rounds, kiln_rev, models_dir):
    # Every row kept (a --resume run with --only measures some models and keeps the others).
    names = sorted(set(names) | {m for m, _ in rows})
    # The written analyses below the table ("## " sections, each naming the run it is about)
    # are kept after the new table.
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        at = old.find("\n## ")
        if at >= 0:
            kept = old[at:]
    revs = sorted({c[10] for c in rows.values() if c[10]})
    with open(path + ".tmp", "w") as f:
        f.write("# Kiln and ONNX Runtime side by side\n\n")
        f.write(f"Run {datetime.date.today().isoformat()} by `bench/side_by_side.py` on "
                f"{machine()}; Kiln {kiln_rev}, ONNX Runtime 1.30.0 (onnxruntime-node, all "
                f"graph optimizations). fp32, batch 1, best median of {rounds} "
                "alternating rounds per side; ratio = Kiln / ONNX Runtime (below 1: Kiln is "
                "faster). ONNX Runtime's peak RSS excludes Node.js's own resident set. The "
                "machine is shared and noisy: ratios from one run.")
        if len(revs) > 1:
            f.write(f" Rows measured over several runs (--resume), at Kiln {', '.join(revs)}: "
                    "the last column names each row's.")
        f.write("\n\n" + HEADER + "\n|" + "---|" * 11 + "\n")
        for key in sorted(rows):
            if key[0] in names:
                f.write("| " + " | ".join(rows[key]) + " |\n")
        missing = [n for n in names if any((n, t) not in rows for t in threads)]
        f.write("\n" + "\n".join(summary(rows, threads, names)) + "\n")
        if missing:
            f.write(f"\nNot measured yet: {', '.join(missing)}.\n")
        failures = os.path.join(models_dir, "export_failures.json")
        if os.path.exists(failures):
            with open(failures) as g:
                failed = json.load(g)
            if failed:
                f.write("\nModels the export could not produce (export_failures.json):\n\n")
                f.writelines(f"- {m}: {why}\n" for m, why in sorted(failed.items()))
        f.write(kept)
    os.replace(path + ".tmp", path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kiln", default=os.path.join(HERE, "..", "build", "release", "tools", "kiln",
                                                  "kiln"))
    p.add_argument("--models", default=os.path.join(HERE, "models"))
    p.add_argument("--only", action="append")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--results")
    p.add_argument("--resume", action="store_true",
                   help="keep --results' rows; measure only the rows it lacks")
    args = p.parse_args()
    if args.resume and not args.results:
        p.error("--resume needs --results")
    names = args.only or sorted(n for n in os.listdir(args.models)
                                if os.path.exists(os.path.join(args.models, n, "meta.json"))
                                and not quantized_copy(os.path.join(args.models, n)))
    threads = [int(t) for t in args.threads.split(",")]
    kiln_rev = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                              capture_output=True, text=True).stdout.strip()
    table = read_rows(args.results) if args.resume else {}

    print(HEADER, flush=True)
    failed = 0
    for name in names:
        todo = [t for t in threads
                if not args.resume or (name, t) not in table or table[(name, t)][2] == "failed"]
        if not todo:
            continue
        model_dir = os.path.join(args.models, name)
        with open(os.path.join(model_dir, "meta.json")) as f:
            meta = json.load(f)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                diff = f"{compare_outputs(args.kiln, model_dir, tmp):.2g}"
        except RuntimeError as e:
            print(f"{name}: outputs differ or a run failed: {e}", file=sys.stderr)
            diff, failed = "MISMATCH", failed + 1
        for t in todo:
            try:
                b = bench(args.kiln, model_dir, t, args.rounds, meta)
            except RuntimeError as e:
                print(f"{name}: {e}", file=sys.stderr)
                table[(name, t)] = [name, str(t), "failed", "", "", "", "", "", "", diff, kiln_rev]
                failed += 1
                continue
            k, o = b["kiln"], b["ort"]
            table[(name, t)] = [
                name, str(t), f"{k['median_ms']:.3f}", f"{o['median_ms']:.3f}",
                f"{k['median_ms'] / o['median_ms']:.2f}", f"{k['load_ms']:.0f}",
                f"{o['load_ms']:.0f}", f"{k['peak_rss_mb']:.0f}", f"{o['peak_rss_mb']:.0f}", diff,
                kiln_rev]
            print("| " + " | ".join(table[(name, t)]) + " |", flush=True)
        if args.results:
            write_results(args.results, table, names, threads, args.rounds, kiln_rev, args.models)
    for line in summary(table, threads, names):
        print(line)
    if args.results:
        write_results(args.results, table, names, threads, args.rounds, kiln_rev, args.models)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
