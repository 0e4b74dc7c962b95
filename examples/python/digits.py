#!/usr/bin/python3
"""The bundled demo in Python: classify the held-out 8x8 digits with examples/digits/digits.onnx
and check the accuracy against the one recorded at training time.

    /usr/bin/python3 examples/python/digits.py [examples/digits]

Prints "digits: OK" and exits 0 when Kiln gets exactly the recorded count right. The manual
(docs/manual) shows the part between the two "session" marker comments.
"""

import struct
import sys
import time
from pathlib import Path

import numpy as np

import kiln


def read_heldout(path):
    data = Path(path).read_bytes()
    if data[:4] != b"KDIG":
        raise ValueError(f"{path}: not a KDIG file")
    (n,) = struct.unpack_from("<I", data, 4)
    pixels = np.frombuffer(data, "<f4", n * 64, 8).reshape(n, 1, 8, 8)
    labels = np.frombuffer(data, np.uint8, n, 8 + n * 64 * 4)
    return pixels, labels


def main():
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "digits")
    pixels, labels = read_heldout(folder / "heldout.bin")
    want_correct, want_count = (int(v) for v in (folder / "expected.txt").read_text().split()[1:3])

    # [session]
    session = kiln.InferenceSession(folder / "digits.onnx", providers=["CPUExecutionProvider"])
    image = session.get_inputs()[0].name
    start = time.perf_counter()
    correct = 0
    for i in range(len(labels)):
        (logits,) = session.run(None, {image: pixels[i : i + 1]})
        correct += int(np.argmax(logits[0]) == labels[i])
    mean_ms = (time.perf_counter() - start) * 1000 / len(labels)

    # The whole set in one batch gives the same predictions.
    (batch_logits,) = session.run(None, {image: pixels})
    batch_correct = int((batch_logits.argmax(axis=1) == labels).sum())
    # [session]

    print(f"digits: {correct} of {len(labels)} held-out digits correct, accuracy "
          f"{correct / len(labels):.6f} (recorded at training: {want_correct} of {want_count}); "
          f"{mean_ms:.3f} ms per image")
    if correct != want_correct or len(labels) != want_count or batch_correct != correct:
        print("digits: FAIL: the accuracy differs from the recorded one", file=sys.stderr)
        return 1
    print("digits: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
