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

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

SEEDS = {"resnet18": 1, "mobilenet_v2": 2, "bert_tiny": 3, "gpt_tiny": 4, "vit_tiny": 5}
VOCAB, HIDDEN, HEADS, LAYERS, INTER, MAX_POS, SEQ = 1000, 64, 4, 2, 128, 32, 16


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x, bias):
        """x: [B,T,H]; bias: additive mask broadcastable to [B,heads,T,T]."""
        b, t, _ = x.shape
        d = HIDDEN // HEADS
        q, k, v = self.qkv(x).view(b, t, 3, HEADS, d).permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, t, HIDDEN))


class BertLayer(nn.Module):
    """Post-LayerNorm encoder layer with erf GELU, as in BERT."""

    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.ln1 = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(HIDDEN, INTER), nn.GELU(), nn.Linear(INTER, HIDDEN))
        self.ln2 = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, x, bias):
        x = self.ln1(x + self.attn(x, bias))
        return self.ln2(x + self.ffn(x))


class BertTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(MAX_POS, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.pool = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(pos))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


class GptBlock(nn.Module):
    """Pre-LayerNorm decoder block with tanh-approximated GELU, as in GPT-2."""

    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.attn = SelfAttention()
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.mlp = nn.Sequential(nn.Linear(HIDDEN, 4 * HIDDEN), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * HIDDEN, HIDDEN))

    def forward(self, x, bias):
        x = x + self.attn(self.ln1(x), bias)
        return x + self.mlp(self.ln2(x))


class GptTiny(nn.Module):
    def __init__(self, use_tril):
        super().__init__()
        self.use_tril = use_tril  # torch.tril exports as Trilu, which needs opset 14
        self.tok = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(MAX_POS, HIDDEN)
        self.blocks = nn.ModuleList(GptBlock() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(HIDDEN)
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        pos = torch.arange(t, device=input_ids.device).unsqueeze(0)
        x = self.tok(input_ids) + self.pos(pos)
        if self.use_tril:
            causal = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device))
        else:  # the same mask without Trilu: key position <= query position
            causal = pos[0, None, :] <= pos[0, :, None]
        bias = torch.zeros(t, t, dtype=x.dtype, device=x.device).masked_fill(~causal, -1e9)
        for block in self.blocks:
            x = block(x, bias)
        return self.head(self.ln_f(x))


def recompute_batchnorm(model, gen):
    """Replace BatchNorm running stats by cumulative averages over random images (train mode)."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(8):
            model(torch.randn(8, 3, 224, 224, generator=gen))
    model.eval()


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
    ids = torch.randint(0, VOCAB, (1, SEQ), generator=gen, dtype=torch.int64)
    if name == "bert_tiny":
        mask = torch.ones(1, SEQ, dtype=torch.int64)
        mask[:, SEQ - 4:] = 0  # the last four tokens are padding
        return (BertTiny().eval(), (ids, mask), ["input_ids", "attention_mask"],
                ["last_hidden_state", "pooler_output"])
    if name == "gpt_tiny":
        return GptTiny(use_tril=opset >= 14).eval(), (ids,), ["input_ids"], ["logits"]
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
