#!/usr/bin/env -S /usr/bin/python3
"""Export small reference models to ONNX with seeded random weights and inputs, plus torch's outputs.

    /usr/bin/python3 tests/models/export_models.py OUTDIR --opset {13,17} [--only NAME]

NAME is one of resnet18, mobilenet_v2, bert_tiny, gpt_tiny, vit_tiny. For each model this writes
OUTDIR/<name>_op<opset>/: model.onnx, input_<i>.npy (graph input order), output_<i>.npy (torch's
float32 eval-mode outputs, graph output order) and meta.json {"inputs": [...], "outputs": [...]}.
Batch 1. Weights and inputs depend only on the model's seed, not on the opset, so both opsets
get the same expected outputs. gpt_tiny builds its causal mask with torch.tril (exported as
Trilu, opset 14+); at opset 13 it builds the same mask by comparing positions instead.
Every model's outputs are checked to vary (std > 1e-3) before anything is written.
Compare a runtime's outputs with tests/models/compare.py.
"""
import argparse
import json
import math
import os
import time

import sys

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from torch_models import Bert, Config, Gpt, recompute_batchnorm  # noqa: E402

SEEDS = {"resnet18": 1, "mobilenet_v2": 2, "bert_tiny": 3, "gpt_tiny": 4, "vit_tiny": 5}
SEQ = 16
BERT = Config(vocab=1000, hidden=64, heads=4, layers=2, inter=128, max_pos=32)
GPT = Config(vocab=1000, hidden=64, heads=4, layers=2, inter=256, max_pos=32)


def build(name, opset):
    """Returns (model, inputs, input_names, output_names); everything seeded by SEEDS[name]."""
    torch.manual_seed(SEEDS[name])
    gen = torch.Generator().manual_seed(1000 + SEEDS[name])
    if name == "resnet18":
        model = torchvision.models.resnet18(weights=None)
        return model.eval(), (torch.randn(1, 3, 224, 224, generator=gen),), ["input"], ["logits"]
    if name == "mobilenet_v2":
        model = torchvision.models.mobilenet_v2(weights=None)
        recompute_batchnorm(model, gen)
        return model, (torch.randn(1, 3, 224, 224, generator=gen),), ["input"], ["logits"]
    if name == "vit_tiny":
        # torchvision's ViT (patch embedding Conv, class token, encoder blocks with
        # nn.MultiheadAttention, erf GELU, LayerNorm), at a size a test can run in milliseconds.
        model = torchvision.models.VisionTransformer(
            image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128,
            num_classes=10)
        nn.init.normal_(model.heads.head.weight, std=0.5)  # torchvision zero-initialises it
        return model.eval(), (torch.randn(1, 3, 32, 32, generator=gen),), ["input"], ["logits"]
    ids = torch.randint(0, BERT.vocab, (1, SEQ), generator=gen, dtype=torch.int64)
    if name == "bert_tiny":
        mask = torch.ones(1, SEQ, dtype=torch.int64)
        mask[:, SEQ - 4:] = 0  # the last four tokens are padding
        return (Bert(BERT).eval(), (ids, mask), ["input_ids", "attention_mask"],
                ["last_hidden_state", "pooler_output"])
    if name == "gpt_tiny":
        return Gpt(GPT, use_tril=opset >= 14).eval(), (ids,), ["input_ids"], ["logits"]
    raise ValueError(name)


def export(name, opset, outdir):
    model, inputs, in_names, out_names = build(name, opset)
    with torch.no_grad():
        outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for n, o in zip(out_names, outputs):
        std = float(o.float().std())
        if not (math.isfinite(std) and std > 1e-3):
            raise SystemExit(f"{name}: output {n} has std {std:g}; the comparison would say nothing")

    d = os.path.join(outdir, f"{name}_op{opset}")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, inputs, path, opset_version=opset, do_constant_folding=True,
                      input_names=in_names, output_names=out_names)
    graph = onnx.load(path)
    onnx.checker.check_model(graph)
    graph_in = [i.name for i in graph.graph.input]
    graph_out = [o.name for o in graph.graph.output]
    if graph_in != in_names or graph_out != out_names:
        raise SystemExit(f"{name}: graph has inputs {graph_in} outputs {graph_out}, "
                         f"expected {in_names} {out_names}")
    for i, x in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), x.numpy())
    for i, o in enumerate(outputs):
        np.save(os.path.join(d, f"output_{i}.npy"), o.numpy())
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"inputs": in_names, "outputs": out_names}, f, indent=2)
        f.write("\n")
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--opset", type=int, choices=(13, 17), required=True)
    p.add_argument("--only", choices=sorted(SEEDS))
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name in [args.only] if args.only else SEEDS:
        start = time.monotonic()
        path = export(name, args.opset, args.outdir)
        print(f"{path}  {os.path.getsize(path)} bytes  {time.monotonic() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
