#!/usr/bin/env -S /usr/bin/python3
"""What the Python package adds over the C ABI: `session.run` against `kiln bench` (the C ABI's
Run through the C++ wrapper), on the same model, inputs of the same shapes, one thread.

    /usr/bin/python3 bench/python_overhead.py [--build build/release] [--models bench/models]
                                              [--rounds 3] [--iters 20000]

1. A one-node model (Add of two [1, 16] floats): per-call median of `session.run` minus
   `kiln bench`'s median: the overhead in microseconds (target: at most 5 us).
2. Each zoo model found in --models (bench/export_zoo.py makes them): the ratio of the Python
   median to `kiln bench`'s (target: within 3 %).

The two sides alternate, each in its own process, --rounds times; each side keeps its best
median (the machine is shared and noisy). Prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Runs in its own process: times session.run one call at a time, prints the median in ms.
PY_TIMER = r"""
import json, sys, time
import numpy as np
import kiln as ort
path, iters, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
so = ort.SessionOptions()
so.intra_op_num_threads = 1
sess = ort.InferenceSession(path, so)
rng = np.random.default_rng(0)
types = {"tensor(float)": np.float32, "tensor(int64)": np.int64, "tensor(int32)": np.int32,
         "tensor(bool)": np.bool_, "tensor(double)": np.float64}
feed = {}
for i in sess.get_inputs():
    shape = [d if isinstance(d, int) else 1 for d in i.shape]
    t = types[i.type]
    feed[i.name] = (rng.random(shape) < 0.5 if t is np.bool_ else
                    (rng.integers(0, 10, shape) if np.issubdtype(t, np.integer) else rng.uniform(-1, 1, shape))).astype(t)
run = sess.run
for _ in range(warmup):
    run(None, feed)
times = []
clock = time.perf_counter_ns
for _ in range(iters):
    t0 = clock()
    run(None, feed)
    times.append(clock() - t0)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] / 1e6}))
"""


def kiln_median(cli, model, iters, warmup):
    out = subprocess.run([cli, "bench", model, "--threads", "1", "--iters", str(iters),
                          "--warmup", str(warmup), "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["median_ms"]


def python_median(build, model, iters, warmup):
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    out = subprocess.run([sys.executable, "-c", PY_TIMER, model, str(iters), str(warmup)],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ms"]


def best_of(rounds, build, cli, model, iters, warmup):
    c_best = py_best = float("inf")
    for _ in range(rounds):
        c_best = min(c_best, kiln_median(cli, model, iters, warmup))
        py_best = min(py_best, python_median(build, model, iters, warmup))
    return c_best, py_best


def one_node_model(folder):
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"])], "one_node",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 16])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(folder, "one_node.onnx")
    onnx.save(model, path)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--models", default=os.path.join(HERE, "models"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20000)
    args = ap.parse_args()
    cli = os.path.join(args.build, "tools", "kiln", "kiln")
    print("| model | kiln bench median ms | session.run median ms | Python − C (µs) | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        c, py = best_of(args.rounds, args.build, cli, one_node_model(d), args.iters, 1000)
        print(f"| one-node Add [1,16] | {c:.4f} | {py:.4f} | {(py - c) * 1000:.2f} | {py / c:.2f} |")
    if os.path.isdir(args.models):
        for name in sorted(os.listdir(args.models)):
            model = os.path.join(args.models, name, "model.onnx")
            if not os.path.exists(model):
                continue
            c, py = best_of(args.rounds, args.build, cli, model, 20, 5)
            print(f"| {name} | {c:.3f} | {py:.3f} | {(py - c) * 1000:.1f} | {py / c:.3f} |")


if __name__ == "__main__":
    main()
