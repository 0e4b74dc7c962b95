#!/usr/bin/env -S /usr/bin/python3
"""Per-node cost of the executor: a chain of 1,000 tiny ops, Kiln against ONNX Runtime.

    /usr/bin/python3 bench/node_overhead.py [--build build/release] [--rounds 5] [--nodes 1000]

Chains of --nodes nodes over a float [1, 16] tensor, opset 17: Relu only, Add of a constant
only, both in turn, If nodes (each runs a one-node branch: subgraph entry), and one Loop of
--nodes iterations over a one-node body (per-iteration cost). Optimization level 0 on both sides, so no pass folds or fuses
the chain away; one thread. Each side (`kiln bench` and bench/ort/ort_bench.js, ONNX Runtime for
Node.js, installed by `make bench`) runs in its own process, the two alternating --rounds times,
each keeping its best median; the table gives the median per run divided by the node count, in
nanoseconds. Needs bench/ort/node_modules (cd bench/ort && npm ci --ignore-scripts).
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def branch(name, op, x, out):
    return helper.make_graph([helper.make_node(op, [x], [out])], name, [],
                             [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 16])])


def chain(kind, nodes, folder):
    one = numpy_helper.from_array(np.full((1, 16), 0.5, np.float32), "c")
    cond = numpy_helper.from_array(np.array(True), "cond")
    trips = numpy_helper.from_array(np.array(nodes, np.int64), "trips")
    ops = []
    prev = "x"
    if kind == "loop":  # one Loop, --nodes iterations of a one-node body
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
             helper.make_node("Add", ["v_in", "c"], ["v_out"])], "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1, 16])],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1, 16])])
        ops.append(helper.make_node("Loop", ["trips", "cond", "x"], ["y"], body=body, name="loop"))
        nodes = 0
    for i in range(nodes):
        out = "y" if i == nodes - 1 else f"v{i}"
        if kind == "if":  # If nodes, each choosing between two one-node branches
            ops.append(helper.make_node("If", ["cond"], [out], name=f"n{i}",
                                        then_branch=branch(f"then{i}", "Relu", prev, f"t{i}"),
                                        else_branch=branch(f"else{i}", "Neg", prev, f"e{i}")))
            prev = out
            continue
        op = {"relu": "Relu", "add": "Add", "mixed": "Relu" if i % 2 else "Add"}[kind]
        ops.append(helper.make_node(op, [prev, "c"] if op == "Add" else [prev], [out], name=f"n{i}"))
        prev = out
    graph = helper.make_graph(ops, f"chain_{kind}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
                              initializer=[one, cond, trips])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    d = os.path.join(folder, kind)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    np.save(os.path.join(d, "input_0.npy"), np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16))
    return d


def kiln_median(cli, d, iters):
    out = subprocess.run([cli, "bench", os.path.join(d, "model.onnx"), "--threads", "1",
                          "--optimization", "0", "--iters", str(iters), "--warmup", "200",
                          "--input", "x=" + os.path.join(d, "input_0.npy"), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["median_ms"]


def ort_median(d, iters):
    out = subprocess.run(["node", os.path.join(HERE, "ort", "ort_bench.js"),
                          os.path.join(d, "model.onnx"), "--inputs", d, "--threads", "1",
                          "--warmup", "200", "--iters", str(iters), "--optimization", "0"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=2000)
    args = ap.parse_args()
    cli = os.path.join(args.build, "tools", "kiln", "kiln")
    print(f"| chain of {args.nodes} | Kiln ns/node | ONNX Runtime ns/node | ratio |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("relu", "add", "mixed", "if", "loop"):
            d = chain(kind, args.nodes, folder)
            k = o = float("inf")
            for _ in range(args.rounds):
                k = min(k, kiln_median(cli, d, args.iters))
                o = min(o, ort_median(d, args.iters))
            kn, on = k * 1e6 / args.nodes, o * 1e6 / args.nodes
            print(f"| {kind} | {kn:.0f} | {on:.0f} | {kn / on:.2f} |")


if __name__ == "__main__":
    main()
