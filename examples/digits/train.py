#!/usr/bin/env -S /usr/bin/python3
"""Train a small CNN on scikit-learn's bundled 8x8 digits and export it to ONNX.

Run from anywhere (needs torch, scikit-learn, onnx, numpy; no network):

    /usr/bin/python3 examples/digits/train.py

Writes, next to this script:
  digits.onnx   opset 17; input "image" float32 [batch,1,8,8], output "logits" float32 [batch,10]
  heldout.bin   little-endian: "KDIG", uint32 N, N*64 float32 pixels (row-major 8x8, scaled
                to [0,1]), then N uint8 labels
  expected.txt  "correct C N" and "accuracy A" (6 decimals): the exported model's float32
                torch forward pass on heldout.bin, argmax of logits (first max on ties)

Everything is seeded and single-threaded so that reruns reproduce the same files.
"""
import os
import random
import struct

import numpy as np
import onnx
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn

SEED = 20240601
EPOCHS = 20
BATCH = 32
HERE = os.path.dirname(os.path.abspath(__file__))


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 32), nn.ReLU(),
        nn.Linear(32, 10),
    )


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, test_size=0.2, stratify=y, random_state=SEED)

    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
    gen = torch.Generator().manual_seed(SEED)
    model.train()
    for epoch in range(EPOCHS):
        perm = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for i in range(0, len(xt), BATCH):
            idx = perm[i:i + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1:2d}  train loss {total / len(xt):.4f}")

    model.eval()
    onnx_path = os.path.join(HERE, "digits.onnx")
    torch.onnx.export(
        model, torch.zeros(1, 1, 8, 8), onnx_path, opset_version=17,
        input_names=["image"], output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
        do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))
    size = os.path.getsize(onnx_path)
    assert size < 200 * 1024, f"digits.onnx is {size} bytes"

    n = len(y_te)
    with open(os.path.join(HERE, "heldout.bin"), "wb") as f:
        f.write(b"KDIG")
        f.write(struct.pack("<I", n))
        f.write(np.ascontiguousarray(x_te.reshape(n, 64), dtype="<f4").tobytes())
        f.write(y_te.astype(np.uint8).tobytes())

    with torch.no_grad():
        logits = model(torch.from_numpy(x_te)).numpy()
    pred = np.argmax(logits, axis=1)  # first max on ties
    correct = int((pred == y_te).sum())
    acc = correct / n
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write(f"correct {correct} {n}\naccuracy {acc:.6f}\n")
    print(f"{onnx_path}: {size} bytes; held-out {correct}/{n} = {acc:.6f}")
    assert acc >= 0.95, "held-out accuracy below 0.95"


if __name__ == "__main__":
    main()
