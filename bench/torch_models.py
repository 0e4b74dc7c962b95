"""Transformer models written in plain torch, shared by the model tests and the benchmark zoo.

BERT-style encoder (post-LayerNorm, erf GELU, additive padding mask) and GPT-style decoder
(pre-LayerNorm, tanh GELU, causal mask), sized by a Config. Modules are built in a fixed order, so
one seed gives the same weights for the same Config.
"""
import math
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class Config:
    vocab: int
    hidden: int
    heads: int
    layers: int
    inter: int
    max_pos: int


class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.hidden, self.heads = cfg.hidden, cfg.heads
        self.qkv = nn.Linear(cfg.hidden, 3 * cfg.hidden)
        self.out = nn.Linear(cfg.hidden, cfg.hidden)

    def forward(self, x, bias):
        """x: [B,T,H]; bias: additive mask broadcastable to [B,heads,T,T]."""
        b, t, _ = x.shape
        d = self.hidden // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d).permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, t, self.hidden))


class BertLayer(nn.Module):
    """Post-LayerNorm encoder layer with erf GELU, as in BERT."""

    def __init__(self, cfg):
        super().__init__()
        self.attn = SelfAttention(cfg)
        self.ln1 = nn.LayerNorm(cfg.hidden, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(cfg.hidden, cfg.inter), nn.GELU(),
                                 nn.Linear(cfg.inter, cfg.hidden))
        self.ln2 = nn.LayerNorm(cfg.hidden, eps=1e-12)

    def forward(self, x, bias):
        x = self.ln1(x + self.attn(x, bias))
        return self.ln2(x + self.ffn(x))


class Bert(nn.Module):
    """Inputs input_ids [B,T] and attention_mask [B,T] (int64); outputs the last hidden state
    [B,T,H] and the pooled first token [B,H]."""

    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab, cfg.hidden)
        self.pos = nn.Embedding(cfg.max_pos, cfg.hidden)
        self.ln = nn.LayerNorm(cfg.hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(cfg) for _ in range(cfg.layers))
        self.pool = nn.Linear(cfg.hidden, cfg.hidden)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(pos))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


class GptBlock(nn.Module):
    """Pre-LayerNorm decoder block with tanh-approximated GELU, as in GPT-2."""

    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.hidden)
        self.attn = SelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.hidden)
        self.mlp = nn.Sequential(nn.Linear(cfg.hidden, cfg.inter), nn.GELU(approximate="tanh"),
                                 nn.Linear(cfg.inter, cfg.hidden))

    def forward(self, x, bias):
        x = x + self.attn(self.ln1(x), bias)
        return x + self.mlp(self.ln2(x))


class Gpt(nn.Module):
    """Input input_ids [B,T] (int64); output logits [B,T,vocab]."""

    def __init__(self, cfg, use_tril):
        super().__init__()
        self.use_tril = use_tril  # torch.tril exports as Trilu, which needs opset 14
        self.tok = nn.Embedding(cfg.vocab, cfg.hidden)
        self.pos = nn.Embedding(cfg.max_pos, cfg.hidden)
        self.blocks = nn.ModuleList(GptBlock(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.hidden)
        self.head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)

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


def recompute_batchnorm(model, gen, size=224, batches=8, batch=8, sample=torch.randn):
    """Replace BatchNorm running stats by cumulative averages over seeded random images (train
    mode), so that randomly initialised CNNs give logits that vary instead of collapsing. `sample`
    draws the images (torch.randn or torch.rand: as the model's inputs will be drawn)."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(sample(batch, 3, size, size, generator=gen))
    model.eval()
