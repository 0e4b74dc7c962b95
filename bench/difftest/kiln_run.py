#!/usr/bin/env python3
"""Runs many small models with Kiln's Python package and writes their outputs, for difftest.py.

    kiln_run.py LIST.json LEVEL [THREADS]

LIST.json is an array of case folders (see ort_run.js for their layout). For each case this writes
kiln_<LEVEL>.json into the folder, {"ok": true, "outputs": [...]} with kiln_<LEVEL>_<i>.npy beside
it, or {"ok": false, "error": MESSAGE}, on THREADS intra-op threads (1), at graph optimization
level LEVEL (0-3). A
result is written before the next case starts, so when this process dies the caller knows which
case killed it: the first without a result.
"""
import json
import os
import sys

import numpy as np

import kiln

LEVELS = [
    kiln.GraphOptimizationLevel.ORT_DISABLE_ALL,
    kiln.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    kiln.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    kiln.GraphOptimizationLevel.ORT_ENABLE_ALL,
]


def read_inputs(folder):
    with open(os.path.join(folder, "inputs.json")) as f:
        specs = json.load(f)
    feeds = {}
    for spec in specs:
        dtype = np.dtype("bool" if spec["dtype"] == "bool" else spec["dtype"])
        data = np.fromfile(os.path.join(folder, spec["file"]), dtype=dtype)
        feeds[spec["name"]] = data.reshape(spec["dims"])
    return feeds


def run_case(folder, level, threads):
    options = kiln.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = LEVELS[level]
    session = kiln.InferenceSession(os.path.join(folder, "model.onnx"), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    results = session.run(names, read_inputs(folder))
    outputs = []
    for i, (name, value) in enumerate(zip(names, results)):
        value = np.asarray(value)
        file = "kiln_%d_%d.npy" % (level, i)
        np.save(os.path.join(folder, file), value)
        outputs.append({"name": name, "file": file})
    return {"ok": True, "outputs": outputs}


def main():
    with open(sys.argv[1]) as f:
        folders = json.load(f)
    level = int(sys.argv[2])
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    crash_on = os.environ.get("KILN_DIFFTEST_CRASH_ON")  # a test hook: dies on that case
    for folder in folders:
        result_file = os.path.join(folder, "kiln_%d.json" % level)
        if os.path.exists(result_file):
            continue
        if crash_on and os.path.basename(folder) == crash_on:
            os.abort()
        try:
            result = run_case(folder, level, threads)
        except Exception as e:  # every failure is a result to compare, not a reason to stop
            result = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        with open(result_file, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
