#!/usr/bin/env -S /usr/bin/python3
"""Export the benchmark zoo with Debian's torch: random weights, fixed seeds, batch 1, opset 17.

    /usr/bin/python3 bench/export_zoo.py OUTDIR [--only NAME]...

For each model this writes OUTDIR/<name>/: model.onnx, input_<i>.npy (graph input order) and
meta.json {"inputs", "outputs", "gflop"}. Variants, exported only when named with --only:
gpt_decoder_1tok, gpt_decoder (same seed, same weights) at sequence length 1 whose input is the
first of gpt_decoder's 64 tokens, for one-token timings (bench/quant_side_by_side.py; meta.json
adds "variant_of" and "sequence_length"). CNNs get their BatchNorm statistics recomputed on seeded
random images (torch_models.recompute_batchnorm), or MobileNetV2/EfficientNet logits collapse and
a comparison between runtimes says nothing. Each model's outputs are checked to vary before
anything is written. A model whose export is already there (same script, same torch) is skipped.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_models import Bert, Config, Gpt, recompute_batchnorm  # noqa: E402

OPSET = 17
BERT_BASE = Config(vocab=30522, hidden=768, heads=12, layers=12, inter=3072, max_pos=512)
GPT_SMALL = Config(vocab=50257, hidden=512, heads=8, layers=6, inter=2048, max_pos=1024)
# name: (seed, GFLOP as in the table, for the report)
ZOO = {
    "resnet50": (11, 8.2),
    "mobilenet_v2": (12, 0.60),
    "squeezenet1_1": (13, 0.70),
    "efficientnet_b0": (14, 0.77),
    "vit_b_16": (15, 35.1),
    "bert_base": (16, 22.3),
    "gpt_decoder": (17, 5.8),
    "mlp": (18, 0.004),
}
# Variants of zoo models: name -> (model, sequence length, GFLOP).
VARIANTS = {"gpt_decoder_1tok": ("gpt_decoder", 1, 0.09)}


def image():
    return torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(7))


def build(name, seq=None):
    """Returns (model, inputs, input_names, output_names); everything seeded. seq: a
    transformer's sequence length instead of its own (its inputs' first seq tokens)."""
    seed = ZOO[name][0]
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(1000 + seed)
    if name in ("resnet50", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0"):
        model = getattr(torchvision.models, name)(weights=None)
        recompute_batchnorm(model, gen)
        return model.eval(), (image(),), ["input"], ["logits"]
    if name == "vit_b_16":
        model = torchvision.models.vit_b_16(weights=None)
        nn.init.normal_(model.heads.head.weight, std=0.02)  # torchvision zero-initialises it
        return model.eval(), (image(),), ["input"], ["logits"]
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                              nn.Linear(1024, 10))
        return model.eval(), (torch.randn(1, 784, generator=gen),), ["input"], ["logits"]
    if name == "bert_base":
        seq = 128
        ids = torch.randint(0, BERT_BASE.vocab, (1, seq), generator=gen, dtype=torch.int64)
        mask = torch.ones(1, seq, dtype=torch.int64)
        mask[:, seq - 16:] = 0  # the last 16 tokens are padding
        return (Bert(BERT_BASE).eval(), (ids, mask), ["input_ids", "attention_mask"],
                ["last_hidden_state", "pooler_output"])
    if name == "gpt_decoder":
        ids = torch.randint(0, GPT_SMALL.vocab, (1, 64), generator=gen, dtype=torch.int64)
        ids = ids if seq is None else ids[:, :seq].contiguous()
        return Gpt(GPT_SMALL, use_tril=True).eval(), (ids,), ["input_ids"], ["logits"]
    raise ValueError(name)


def stamp():
    h = hashlib.sha256()
    for f in ("export_zoo.py", "torch_models.py"):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), f), "rb") as fh:
            h.update(fh.read())
    h.update(torch.__version__.encode())
    return h.hexdigest()[:16]


def export(name, outdir):
    d = os.path.join(outdir, name)
    done = os.path.join(d, ".export-" + stamp())
    if os.path.exists(done):
        return os.path.join(d, "model.onnx"), True
    base, seq, gflop = VARIANTS.get(name, (name, None, None))
    model, inputs, in_names, out_names = build(base, seq)
    with torch.no_grad():
        outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for n, o in zip(out_names, outputs):
        std = float(o.float().std())
        if not (math.isfinite(std) and std > 1e-3):
            raise SystemExit(f"{name}: output {n} has std {std:g}; a comparison would say nothing")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, inputs, path, opset_version=OPSET, do_constant_folding=True,
                      input_names=in_names, output_names=out_names)
    onnx.checker.check_model(path)
    for i, x in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), x.numpy())
    meta = {"inputs": in_names, "outputs": out_names, "gflop": gflop or ZOO[name][1]}
    if seq is not None:
        meta.update({"variant_of": base, "sequence_length": seq})
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    open(done, "w").close()
    return path, False


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--only", action="append", choices=sorted(ZOO) + sorted(VARIANTS))
    args = p.parse_args()
    torch.set_num_threads(1)
    for name in args.only or ZOO:
        start = time.monotonic()
        path, reused = export(name, args.outdir)
        what = "reused" if reused else f"{time.monotonic() - start:.1f} s"
        print(f"{path}  {os.path.getsize(path) / 1e6:.1f} MB  {what}", flush=True)


if __name__ == "__main__":
    main()
