#!/usr/bin/env python3
"""Differential test: random small models (bench/difftest/gen.py) run by Kiln, at optimization
levels 0 and 3, and by ONNX Runtime (onnxruntime-node), outputs compared.

    difftest.py [--cases N] [--seed S] [--only GEN,...] [--levels 0,3] [--work DIR]
                [--against ort|kiln] [--ort-level disabled|basic|extended|all] [--threads N]

Every generator makes N cases (seeds S .. S+N-1). A case both runtimes refuse is dropped (the
generator drew something the spec forbids). Reported as failures: Kiln refusing a model ONNX
Runtime runs, Kiln's process dying, and outputs that differ (dtype, shape, or values beyond
|a - b| <= atol + rtol |b|; integers and booleans exactly). Where ONNX Runtime is known to depart
from the ONNX formulas (reference.py: Resize), a case where Kiln differs from ONNX Runtime but
matches the numpy reference is listed apart as ONNX Runtime's, not failed. Cases ONNX Runtime
alone refuses are listed apart too: each is either a gap in ONNX Runtime or a model Kiln should
have refused.
Exit status 1 when anything failed. Needs `make build` and bench/ort's node_modules
(`cd bench/ort && npm ci`, as `make bench` does; `make difftest` runs both).

With --against kiln, no ONNX Runtime is needed: Kiln's outputs at the other levels are compared
with its own at the first level (0: the graph as written), which checks the optimizer's rewrites
on every generated pattern (the ctest difftest_levels_agree).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"


def write_case(folder, model, inputs, int_tol):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump({"int_tol": int_tol}, f)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    specs = []
    for i, (name, arr) in enumerate(inputs):
        arr = np.array(arr, order="C", copy=True)  # (ascontiguousarray makes 0-d arrays 1-d)
        file = "input_%d.bin" % i
        arr.tofile(os.path.join(folder, file))
        specs.append({"name": name, "file": file, "dtype": str(arr.dtype), "dims": list(arr.shape)})
    with open(os.path.join(folder, "inputs.json"), "w") as f:
        json.dump(specs, f)


def run_ort(folders, work, level):
    listing = os.path.join(work, "ort_list.json")
    with open(listing, "w") as f:
        json.dump(folders, f)
    subprocess.run(["node", os.path.join(HERE, "ort_run.js"), listing, level], check=True,
                   stderr=subprocess.DEVNULL)


def save_with_ort(folders, work, level):
    """Replaces each case's model.onnx by ONNX Runtime's optimized save of it (the original kept
    as model_written.onnx); a model ONNX Runtime refuses stays as written."""
    listing = os.path.join(work, "ort_save_list.json")
    with open(listing, "w") as f:
        json.dump(folders, f)
    subprocess.run(["node", os.path.join(HERE, "ort_save.js"), "--list", listing, level],
                   check=True, stderr=subprocess.DEVNULL)
    for d in folders:
        saved = os.path.join(d, "model_saved.onnx")
        if os.path.exists(saved):
            os.replace(os.path.join(d, "model.onnx"), os.path.join(d, "model_written.onnx"))
            os.replace(saved, os.path.join(d, "model.onnx"))


def run_kiln(folders, level, work, build, threads=1):
    """Runs kiln_run.py until every case has a result; a case that kills it gets one here."""
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"), PYTHONDONTWRITEBYTECODE="1")
    listing = os.path.join(work, "kiln_list_%d.json" % level)
    with open(listing, "w") as f:
        json.dump(folders, f)
    while True:
        proc = subprocess.run([PYTHON, os.path.join(HERE, "kiln_run.py"), listing, str(level),
                               str(threads)],
                              env=env, stderr=subprocess.PIPE, text=True, timeout=3600)
        missing = [d for d in folders if not os.path.exists(os.path.join(d, "kiln_%d.json" % level))]
        if not missing:
            return
        culprit = missing[0]
        with open(os.path.join(culprit, "kiln_%d.json" % level), "w") as f:
            json.dump({"ok": False, "crash": True,
                       "error": "process died (exit %d): %s" % (proc.returncode, proc.stderr[-2000:])}, f)


def load_ort_output(folder, spec):
    dtype = np.dtype("bool" if spec["dtype"] == "bool" else spec["dtype"])
    return np.fromfile(os.path.join(folder, spec["file"]), dtype=dtype).reshape(spec["dims"])


def compare(kiln_value, ort_value, rtol, atol, int_tol=0, other="ONNX Runtime"):
    """None when equal enough, else what differs. Integers may differ by INT_TOL (the quantized
    cases: one step where the spec leaves the rounding of a requantization open)."""
    if kiln_value.dtype != ort_value.dtype:
        return "dtype %s, %s %s" % (kiln_value.dtype, other, ort_value.dtype)
    if kiln_value.shape != ort_value.shape:
        return "shape %s, %s %s" % (list(kiln_value.shape), other, list(ort_value.shape))
    if kiln_value.dtype.kind == "b" or (kiln_value.dtype.kind in "iu" and not int_tol):
        bad = kiln_value != ort_value
    elif kiln_value.dtype.kind in "iu":
        bad = np.abs(kiln_value.astype(np.int64) - ort_value.astype(np.int64)) > int_tol
    else:
        a = kiln_value.astype(np.float64)
        b = ort_value.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
        finite = np.isfinite(a) & np.isfinite(b)
        with np.errstate(invalid="ignore"):
            close = finite & (np.abs(a - b) <= atol + rtol * np.abs(b))
        bad = ~(both_nan | same_inf | close)
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return "%d of %d values differ; first at %s: %r, %s %r" % (
        int(bad.sum()), bad.size, list(where), kiln_value[where].item(), other, ort_value[where].item())


def reference_outputs(folder):
    """The numpy reference's outputs of a one-node case, or None where there is none."""
    model = onnx.load(os.path.join(folder, "model.onnx"))
    if len(model.graph.node) != 1 or model.graph.node[0].op_type not in reference.REFERENCES:
        return None
    node = model.graph.node[0]
    with open(os.path.join(folder, "inputs.json")) as f:
        specs = json.load(f)
    values = {s["name"]: load_ort_output(folder, s) for s in specs}
    values.update({t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer})
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    args = [values[i] if i else None for i in node.input]
    return reference.REFERENCES[node.op_type](attrs, args)


class BaseLine:
    """What Kiln's outputs are compared with: ONNX Runtime's (--against ort), or Kiln's own at
    the first of --levels (--against kiln: the optimizer's rewrites against the graph as written,
    with no ONNX Runtime needed)."""

    def __init__(self, against, first_level):
        self.against = against
        self.level = first_level
        self.name = "ONNX Runtime" if against == "ort" else "Kiln level %d" % first_level

    def load(self, folder):
        """(ok, error, [output arrays])."""
        if self.against == "ort":
            with open(os.path.join(folder, "ort.json")) as f:
                res = json.load(f)
            if not res["ok"]:
                return False, res["error"], None
            return True, None, [load_ort_output(folder, o) for o in res["outputs"]]
        with open(os.path.join(folder, "kiln_%d.json" % self.level)) as f:
            res = json.load(f)
        if not res["ok"]:
            return False, res["error"], None
        return True, None, [np.load(os.path.join(folder, o["file"])) for o in res["outputs"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--levels", default="0,3")
    ap.add_argument("--work", default="")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=1, help="Kiln's intra-op threads")
    ap.add_argument("--against", default="ort", choices=["ort", "kiln"],
                    help="compare with ONNX Runtime, or with Kiln at the first of --levels")
    ap.add_argument("--ort-level", default="disabled",
                    choices=["disabled", "basic", "extended", "all"],
                    help="ONNX Runtime's graph optimizations (disabled: its kernels one node at a time)")
    ap.add_argument("--ort-save", default="", choices=["", "basic", "extended", "all"],
                    help="first have ONNX Runtime save each model optimized at this level (as its "
                         "optimized_model_filepath does); both then run the saved model (at level "
                         "all, with the NCHWc layout of its CPU kernels, com.microsoft.nchwc, "
                         "blocked for this machine)")
    args = ap.parse_args()

    names = [n for n in args.only.split(",") if n] or sorted(gen.GENERATORS)
    for n in names:
        if n not in gen.GENERATORS:
            sys.exit("no generator %s (there are: %s)" % (n, ", ".join(sorted(gen.GENERATORS))))
    levels = [int(x) for x in args.levels.split(",")]
    work = args.work or tempfile.mkdtemp(prefix="kiln-difftest-")
    folders = []
    for n in names:
        for seed in range(args.seed, args.seed + args.cases):
            folder = os.path.join(work, "%s_%d" % (n, seed))
            model, inputs, int_tol = gen.make(n, seed)
            write_case(folder, model, inputs, int_tol)
            folders.append(folder)
    if args.ort_save:
        save_with_ort(folders, work, args.ort_save)
    if args.against == "ort":
        run_ort(folders, work, args.ort_level)
    for level in levels:
        run_kiln(folders, level, work, args.build, args.threads)
    base = BaseLine(args.against, levels[0])
    checked = levels if args.against == "ort" else levels[1:]

    failures, base_only, dropped, passed = [], [], 0, 0
    ort_wrong = set()  # (folder, what): Kiln matches the numpy reference, ONNX Runtime does not
    per_gen = {n: [0, 0] for n in names}
    for folder in folders:
        gname = os.path.basename(folder).rsplit("_", 1)[0]
        ref_ok, ref_error, ref_values = base.load(folder)
        problems = []
        kiln_ok_somewhere = False
        with open(os.path.join(folder, "meta.json")) as f:
            int_tol = json.load(f)["int_tol"]
        for level in levels:
            with open(os.path.join(folder, "kiln_%d.json" % level)) as f:
                res = json.load(f)
            if res.get("crash"):
                problems.append("level %d: %s" % (level, res["error"]))
                continue
            if level not in checked:
                continue
            if not ref_ok:
                if res["ok"]:
                    kiln_ok_somewhere = True
                continue
            if not res["ok"]:
                problems.append("level %d: Kiln refuses what %s runs: %s" % (level, base.name, res["error"]))
                continue
            if len(res["outputs"]) != len(ref_values):
                problems.append("level %d: %d outputs, %s %d" % (
                    level, len(res["outputs"]), base.name, len(ref_values)))
                continue
            for i, (ko, theirs) in enumerate(zip(res["outputs"], ref_values)):
                mine = np.load(os.path.join(folder, ko["file"]))
                diff = compare(mine, theirs, args.rtol, args.atol, int_tol, base.name)
                if diff:
                    ref = reference_outputs(folder) if args.against == "ort" else None
                    if ref is not None and compare(mine, ref[i], args.rtol, args.atol) is None:
                        ort_wrong.add((folder, "output %s: %s" % (ko["name"], diff)))
                        continue
                    problems.append("level %d, output %s: %s" % (level, ko["name"], diff))
        if not ref_ok and not problems:
            if kiln_ok_somewhere:
                base_only.append((folder, ref_error))
            else:
                dropped += 1
            continue
        per_gen[gname][0 if not problems else 1] += 1
        if problems:
            failures.append((folder, problems))
        else:
            passed += 1

    for folder, problems in failures:
        print("FAIL %s" % os.path.basename(folder))
        for p in problems:
            print("  " + p.replace("\n", "\n  ")[:1500])
    for folder, what in sorted(ort_wrong):
        print("ONNX Runtime differs from the reference in %s (Kiln matches it): %s" % (
            os.path.basename(folder), what[:300]))
    for folder, err in base_only:
        print("%s alone refuses %s: %s" % (base.name, os.path.basename(folder), err.splitlines()[0][:300]))
    print()
    for n in names:
        print("%-16s %4d passed, %3d failed" % (n, per_gen[n][0], per_gen[n][1]))
    print("%d dropped (both refuse), %d refused by %s alone, %d where ONNX Runtime departs from "
          "the reference" % (dropped, len(base_only), base.name, len({f for f, _ in ort_wrong})))
    print("case folders: %s" % work)
    if not args.work:
        keep = {f for f, _ in failures} | {f for f, _ in base_only} | {f for f, _ in ort_wrong}
        for folder in folders:
            if folder not in keep:
                shutil.rmtree(folder)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
