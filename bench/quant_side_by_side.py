#!/usr/bin/env -S /usr/bin/python3
"""The quantized zoo: Kiln and ONNX Runtime side by side on int8 models and their fp32 originals.

    /usr/bin/python3 bench/quant_side_by_side.py [--kiln PATH] [--build DIR] [--models DIR]
                                                 [--only NAME]... [--threads 1,2] [--rounds 3]
                                                 [--count 8] [--results FILE]

Needs the zoo (bench/export_zoo.py), its quantized copies <name>_int8 (bench/quantize.py zoo) and
ONNX Runtime for Node.js in bench/ort/node_modules; `make bench-quant` does all three. For each
model and thread count it times the fp32 model and the int8 model as bench/side_by_side.py does
(`kiln bench --json` and bench/ort/ort_bench.js alternately, best median of --rounds rounds per
side), and prints ORT fp32, Kiln fp32, ORT int8 and Kiln int8 medians, Kiln int8 / ORT int8 (below
1: Kiln is faster) and Kiln fp32 / Kiln int8 (Kiln's speedup from quantizing). Then, over --count
seeded inputs (bench/quantize.py's structured images or token ids; not the timed input), the
accuracy: Kiln int8 against Kiln fp32 and ONNX Runtime int8 against Kiln fp32 (cosine similarity,
mean and worst over the inputs, the worse output's; top-1 agreement for classifiers), and Kiln
int8 against ONNX Runtime int8 (max abs diff, and for a static model, whose logits come out of a
DequantizeLinear, the same in units of that output's quantization step).

An nbits entry (gpt_decoder_q4: bench/quantize.py's 4-bit MatMulNBits copy of gpt_decoder) gets
its own table in tokens per second: the prefill (the stored 64-token input through the whole
network: 64 / median latency) and a one-token forward (gpt_decoder_1tok, the same network at
sequence length 1: 1 / median latency; the decoder has no KV cache, so this is not a cached
decoding step), each for fp32, dynamic int8 and 4-bit, Kiln and ONNX Runtime, timed as above; its
accuracy rows compare both 4-bit models with their fp32 originals.

With --results, the tables go into FILE as the section "## Quantized zoo (issue 28)", replacing
the section of that name or, the first time, inserted before the file's other "## " sections
(bench/side_by_side.py keeps them when it rewrites its table); rewritten after each model.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quantize  # noqa: E402
from side_by_side import bench, machine, run  # noqa: E402

HEADING = "## Quantized zoo (issue 28)"
FORMAT = {"static": "QDQ static", "dynamic": "dynamic"}
TOKENS_HEADER = ("| decoder run | threads | ORT fp32 tok/s | Kiln fp32 tok/s | ORT int8 tok/s | "
                 "Kiln int8 tok/s | ORT 4-bit ms | Kiln 4-bit ms | ORT 4-bit tok/s | "
                 "Kiln 4-bit tok/s | Kiln / ORT 4-bit tok/s | Kiln 4-bit / Kiln fp32 tok/s |")
SPEED_HEADER = ("| model | int8 format | threads | ORT fp32 ms | Kiln fp32 ms | ORT int8 ms | "
                "Kiln int8 ms | Kiln / ORT int8 | Kiln fp32 / Kiln int8 |")
ACC_HEADER = ("| model | Kiln int8 vs fp32: cosine, mean / worst | top-1 | "
              "ORT int8 vs fp32: cosine, mean / worst | top-1 | Kiln vs ORT int8: max abs diff | "
              "in output steps |")


def output_step(model_path):
    """The quantization step of the model's first output where it comes out of a
    DequantizeLinear with a scalar scale (through Flatten, Reshape or Identity), else None."""
    m = onnx.load(model_path, load_external_data=False)
    producer = {o: n for n in m.graph.node for o in n.output}
    inits = {i.name: i for i in m.graph.initializer}
    name = m.graph.output[0].name
    while name in producer:
        node = producer[name]
        if node.op_type == "DequantizeLinear":
            scale = numpy_helper.to_array(inits[node.input[1]]) if node.input[1] in inits else None
            return float(scale) if scale is not None and scale.size == 1 else None
        if node.op_type not in ("Flatten", "Reshape", "Identity"):
            return None
        name = node.input[0]
    return None


def ort_outputs(model_path, feeds, tmp):
    """ONNX Runtime's outputs (in graph output order) for one input set."""
    d = tempfile.mkdtemp(dir=tmp)
    for i, value in enumerate(feeds.values()):
        np.save(os.path.join(d, f"input_{i}.npy"), value)
    out = os.path.join(d, "out")
    run(["node", os.path.join(HERE, "ort", "ort_bench.js"), model_path, "--inputs", d,
         "--warmup", "0", "--iters", "1", "--output-dir", out])
    n = len(onnx.load(model_path, load_external_data=False).graph.output)
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(n)]


def accuracy(runner, fp32_dir, int8_dir, count):
    """The accuracy row's figures (see the module's docstring)."""
    fp32_path, int8_path = (os.path.join(d, "model.onnx") for d in (fp32_dir, int8_dir))
    fp32 = onnx.load(fp32_path, load_external_data=False)
    feeds = quantize.eval_inputs(fp32, count, quantize.stored_inputs(fp32_dir))
    ref = runner.run(fp32_path, feeds)
    kq = runner.run(int8_path, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        oq = [ort_outputs(int8_path, f, tmp) for f in feeds]

    def worst(a):
        top1 = [x["top1"] for x in a if x["top1"] is not None]
        return (min(x["mean_cosine"] for x in a), min(x["cosine"] for x in a),
                min(top1) if top1 else None)

    diff = max(float(np.abs(k.astype(np.float64) - o).max())
               for ks, os_ in zip(kq, oq) for k, o in zip(ks, os_))
    step = output_step(int8_path)
    return {"kiln": worst(quantize.agreement(ref, kq)), "ort": worst(quantize.agreement(ref, oq)),
            "diff": diff, "steps": diff / step if step else None}


def acc_cells(label, a):
    return [label, f"{a['kiln'][0]:.4f} / {a['kiln'][1]:.4f}", pct(a["kiln"][2]),
            f"{a['ort'][0]:.4f} / {a['ort'][1]:.4f}", pct(a["ort"][2]), f"{a['diff']:.3g}",
            "" if a["steps"] is None else f"{a['steps']:.1f}"]


def pct(x):
    return "" if x is None else f"{100 * x:.0f} %"


def ort_version():
    try:
        path = os.path.join(HERE, "ort", "node_modules", "onnxruntime-node", "package.json")
        with open(path) as f:
            return json.load(f)["version"]
    except (OSError, KeyError, ValueError):
        return "(version unknown)"


def write_section(path, text):
    """Replaces the section HEADING in path, or inserts it before the first "## " section."""
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    at = old.find("\n" + HEADING + "\n")
    if at >= 0:
        end = old.find("\n## ", at + 1)
        new = old[:at + 1] + text + (old[end:] if end >= 0 else "")
    else:
        at = old.find("\n## ")
        new = (old[:at + 1] + text + old[at:]) if at >= 0 else (old.rstrip("\n") + "\n\n" + text)
    with open(path + ".tmp", "w") as f:
        f.write(new)
    os.replace(path + ".tmp", path)


def fill(text):
    return textwrap.fill(text, 100, break_long_words=False, break_on_hyphens=False)


def tokens_rows(kiln, models, name, threads, rounds):
    """The tokens-per-second rows of an nbits entry: {(name, run, threads): cells}."""
    src, step = quantize.NBITS_ZOO[name]
    q = f"_q{quantize.NBITS['bits']}"
    rows = {}
    for run_name, fp32 in (("prefill", src), ("one-token", step)):
        dirs = [os.path.join(models, n) for n in (fp32, fp32 + "_int8", fp32 + q)]
        with open(os.path.join(dirs[0], "meta.json")) as f:
            meta = json.load(f)
        tokens = int(np.load(os.path.join(dirs[0], "input_0.npy")).shape[-1])
        label = (f"prefill, {tokens} tokens" if run_name == "prefill"
                 else "one-token forward (no KV cache)")
        for t in threads:
            try:
                r = [bench(kiln, d, t, rounds, meta) for d in dirs]
            except RuntimeError as e:
                print(f"{name} {run_name}: {e}", file=sys.stderr)
                rows[(name, run_name, t)] = [label, str(t), "failed"] + [""] * 9
                continue
            ms = [(x["ort"]["median_ms"], x["kiln"]["median_ms"]) for x in r]
            tps = [(tokens * 1000 / o, tokens * 1000 / k) for o, k in ms]
            rows[(name, run_name, t)] = [
                label, str(t), f"{tps[0][0]:.0f}", f"{tps[0][1]:.0f}", f"{tps[1][0]:.0f}",
                f"{tps[1][1]:.0f}", f"{ms[2][0]:.2f}", f"{ms[2][1]:.2f}", f"{tps[2][0]:.0f}",
                f"{tps[2][1]:.0f}", f"{tps[2][1] / tps[2][0]:.2f}", f"{tps[2][1] / tps[0][1]:.2f}"]
            print("| " + " | ".join(rows[(name, run_name, t)]) + " |", flush=True)
    return rows


def section(speed, acc, names, rounds, count, rev, tokens=None):
    lines = [HEADING, "", fill(
             f"Run {datetime.date.today().isoformat()} by `bench/quant_side_by_side.py` "
             f"(`make bench-quant`) on {machine()}; Kiln {rev}, ONNX Runtime {ort_version()} "
             "(onnxruntime-node), all "
             "graph optimizations. Models quantized by `bench/quantize.py`: the CNNs static "
             "(ONNX Runtime's `quantize_static`, QDQ: uint8 activations by MinMax calibration over "
             f"{quantize.CALIB_IMAGES} seeded structured images, int8 weights per output "
             "channel, int32 biases), BERT and GPT dynamic (`quantize_dynamic`: "
             "DynamicQuantizeLinear → MatMulInteger → Cast → Mul, int8 weights per tensor). "
             f"Batch 1, median latency, best of {rounds} alternating rounds per side; the machine "
             "is shared and noisy: ratios from one run."), "", SPEED_HEADER,
             "|" + "---|" * 3 + "---:|" * 6]
    for name in names:
        for key in sorted(k for k in speed if k[0] == name):
            lines.append("| " + " | ".join(speed[key]) + " |")
    if tokens:
        bits, block = quantize.NBITS["bits"], quantize.NBITS["block_size"]
        lines += ["", fill(
            f"gpt_decoder_q4: gpt_decoder with {bits}-bit weights (`bench/quantize.py` nbits "
            "mode, as ONNX Runtime's `MatMul4BitsQuantizer`: every MatMul with a constant "
            f"weight, the LM head included, becomes com.microsoft MatMulNBits, blocks of {block} "
            "along K, asymmetric with zero points; embeddings and activations float), against the "
            "same decoder in fp32 and dynamic int8, in tokens per second. Prefill: the stored "
            "input's tokens through the whole network, tokens / median latency. One-token "
            "forward: the same network exported at sequence length 1 (gpt_decoder_1tok, same "
            "weights), 1 / median latency; this decoder has no KV cache, so it is one token's "
            "forward pass, not a cached decoding step of a longer sequence. Kiln / ORT above 1: "
            "Kiln is faster."), "", TOKENS_HEADER, "|---|---|" + "---:|" * 10]
        for key in sorted(tokens, key=lambda k: (k[0], k[1] != "prefill", k[2])):
            lines.append("| " + " | ".join(tokens[key]) + " |")
    lines += ["", fill(f"Accuracy over {count} seeded inputs from the calibration images' "
                       "generator, not the timed input (fp32 is Kiln's, which matches ONNX "
                       "Runtime's fp32 within 1e-4; the worse output's figures; top-1 for "
                       "classifiers):"), "", ACC_HEADER, "|---|" + "---:|" * 6]
    for cells in acc.values():
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kiln", default=os.path.join(quantize.DEFAULT_BUILD, "tools", "kiln", "kiln"))
    p.add_argument("--build", default=quantize.DEFAULT_BUILD,
                   help="the build whose Python package runs the accuracy inputs")
    p.add_argument("--models", default=os.path.join(HERE, "models"))
    p.add_argument("--only", action="append", choices=sorted(quantize.ZOO))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--count", type=int, default=8, help="accuracy inputs per model")
    p.add_argument("--results")
    args = p.parse_args()
    names = args.only or list(quantize.ZOO)
    threads = [int(t) for t in args.threads.split(",")]
    rev = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip()
    runner = quantize.Kiln(args.build)
    speed, acc, tokens = {}, {}, {}
    failed = 0
    print(SPEED_HEADER, flush=True)
    for name in names:
        if quantize.ZOO[name] == "nbits":
            rows = tokens_rows(args.kiln, args.models, name, threads, args.rounds)
            tokens.update(rows)
            failed += sum(r[2] == "failed" for r in rows.values())
            src, step = quantize.NBITS_ZOO[name]
            q = f"_q{quantize.NBITS['bits']}"
            for fp32, label in ((src, name), (step, step + q)):
                try:
                    a = accuracy(runner, os.path.join(args.models, fp32),
                                 os.path.join(args.models, label), args.count)
                    acc[label] = acc_cells(label + " (4-bit)", a)
                except Exception as e:  # a failed run, reported in the table
                    print(f"{label}: accuracy: {e}", file=sys.stderr)
                    acc[label] = [label + " (4-bit)", "failed", "", "", "", "", ""]
                    failed += 1
            if args.results:
                write_section(args.results, section(speed, acc, names, args.rounds, args.count,
                                                    rev, tokens))
            continue
        fp32_dir, int8_dir = (os.path.join(args.models, n) for n in (name, name + "_int8"))
        fmt = FORMAT[quantize.ZOO[name]]
        with open(os.path.join(fp32_dir, "meta.json")) as f:
            meta = json.load(f)
        for t in threads:
            try:
                f32 = bench(args.kiln, fp32_dir, t, args.rounds, meta)
                i8 = bench(args.kiln, int8_dir, t, args.rounds, meta)
            except RuntimeError as e:
                print(f"{name}: {e}", file=sys.stderr)
                speed[(name, t)] = [name, fmt, str(t), "failed", "", "", "", "", ""]
                failed += 1
                continue
            of, kf, oq, kq = (x["median_ms"]
                              for x in (f32["ort"], f32["kiln"], i8["ort"], i8["kiln"]))
            speed[(name, t)] = [name, fmt, str(t), f"{of:.2f}", f"{kf:.2f}", f"{oq:.2f}",
                                f"{kq:.2f}", f"{kq / oq:.2f}", f"{kf / kq:.2f}"]
            print("| " + " | ".join(speed[(name, t)]) + " |", flush=True)
        try:
            acc[name] = acc_cells(name, accuracy(runner, fp32_dir, int8_dir, args.count))
        except Exception as e:  # a failed run, reported in the table
            print(f"{name}: accuracy: {e}", file=sys.stderr)
            acc[name] = [name, "failed", "", "", "", "", ""]
            failed += 1
        if args.results:
            write_section(args.results, section(speed, acc, names, args.rounds, args.count, rev,
                                                tokens))
    print("\n" + ACC_HEADER)
    for cells in acc.values():
        print("| " + " | ".join(cells) + " |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
