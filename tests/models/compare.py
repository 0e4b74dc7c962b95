#!/usr/bin/env -S /usr/bin/python3
"""Compare a runtime's outputs with the expected outputs written by export_models.py.

    /usr/bin/python3 tests/models/compare.py EXPECTED_DIR ACTUAL_DIR

EXPECTED_DIR holds output_<i>.npy (and optionally meta.json for the output names); ACTUAL_DIR
holds output_<i>.pb, serialized ONNX TensorProtos. For each expected output: dtype and shape must
match exactly, then floating-point values must satisfy numpy.allclose(actual, expected,
rtol=1e-4, atol=1e-5) with NaN equal to NaN, and other types must be equal. Prints shape, max abs
diff and max rel diff (|actual-expected|/|expected| over nonzero expected) per output. Exits 1 on
any mismatch, missing or unexpected file, 0 otherwise.
"""
import glob
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-4, 1e-5


def diffs(actual, expected):
    """Max abs and max rel difference, counting equal values (NaN, inf) as 0 and NaN vs number as inf."""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (a == e) | (np.isnan(a) & np.isnan(e))
        d = np.where(same, 0.0, np.abs(a - e))
    d = np.where(np.isnan(d), np.inf, d)
    nz = e != 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(d == 0, 0.0, np.where(np.isinf(d), np.inf, d / np.abs(e)))[nz]
    return (float(d.max()) if d.size else 0.0), (float(rel.max()) if rel.size else 0.0), d


def compare(i, name, expected, actual_path):
    """Prints one line for output i; returns True when it matches."""
    label = f"output {i} ({name})"
    if not os.path.isfile(actual_path):
        print(f"{label}: FAIL missing {actual_path}")
        return False
    try:
        actual = numpy_helper.to_array(onnx.load_tensor(actual_path))
    except Exception as err:  # a corrupt file is a failure, not a crash
        print(f"{label}: FAIL cannot read {actual_path}: {err}")
        return False
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        print(f"{label}: FAIL got {actual.dtype} {actual.shape}, "
              f"expected {expected.dtype} {expected.shape}")
        return False
    is_float = np.issubdtype(expected.dtype, np.floating)
    if is_float:
        ok = bool(np.allclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True))
    else:  # integers, bool, strings: exact
        ok = bool(np.array_equal(actual, expected))
    if expected.dtype == object:
        max_abs = max_rel = 0.0 if ok else float("inf")
    else:
        max_abs, max_rel, d = diffs(actual, expected)
    print(f"{label}: {expected.dtype} {expected.shape}  max abs diff {max_abs:.3g}  "
          f"max rel diff {max_rel:.3g}  {'OK' if ok else 'FAIL'}")
    if not ok and is_float:
        with np.errstate(invalid="ignore"):
            bad = ~np.isclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
        worst = np.unravel_index(int(np.argmax(np.where(bad, d, -1.0))), d.shape)
        print(f"    {int(bad.sum())} of {bad.size} elements out of tolerance; worst at {worst}: "
              f"actual {actual[worst]!r} expected {expected[worst]!r}")
    return ok


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    expected_dir, actual_dir = sys.argv[1:]
    count = 0
    while os.path.isfile(os.path.join(expected_dir, f"output_{count}.npy")):
        count += 1
    if count == 0:
        print(f"FAIL: no output_0.npy in {expected_dir}")
        return 1
    names = [str(i) for i in range(count)]
    meta = os.path.join(expected_dir, "meta.json")
    if os.path.isfile(meta):
        with open(meta) as f:
            names = json.load(f).get("outputs", names)

    ok = True
    for i in range(count):
        expected = np.load(os.path.join(expected_dir, f"output_{i}.npy"))
        name = names[i] if i < len(names) else str(i)
        ok &= compare(i, name, expected, os.path.join(actual_dir, f"output_{i}.pb"))
    for path in sorted(glob.glob(os.path.join(actual_dir, "output_*.pb"))):
        index = os.path.basename(path)[len("output_"):-len(".pb")]
        if not (index.isdigit() and int(index) < count):
            print(f"FAIL: unexpected {path} (expected {count} outputs)")
            ok = False
    print(f"{'PASS' if ok else 'FAIL'}: {count} output(s), rtol {RTOL:g} atol {ATOL:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
