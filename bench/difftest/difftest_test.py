#!/usr/bin/env python3
"""Tests of the differential test's own machinery (bench/difftest): the comparison, the numpy
references, and that a case which kills Kiln's process fails alone while the others still run.

    difftest_test.py BUILD_DIR
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftest  # noqa: E402
import gen  # noqa: E402
import reference  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def test_compare():
    a = np.array([1.0, 2.0, np.nan, np.inf], np.float32)
    check(difftest.compare(a, a.copy(), 1e-3, 1e-4) is None, "equal floats (NaN, inf) compare equal")
    b = a.copy()
    b[1] = 2.01
    check("1 of 4 values differ" in (difftest.compare(a, b, 1e-3, 1e-4) or ""), "a value off is found")
    b = a.copy()
    b[3] = -np.inf
    check(difftest.compare(a, b, 1e-3, 1e-4) is not None, "inf against -inf differs")
    check("dtype" in (difftest.compare(a, a.astype(np.float64), 1e-3, 1e-4) or ""), "dtype differs")
    check("shape" in (difftest.compare(a, a[:3], 1e-3, 1e-4) or ""), "shape differs")
    q = np.array([10, 200], np.uint8)
    r = np.array([11, 200], np.uint8)
    check(difftest.compare(q, r, 0, 0) is not None, "integers compare exactly")
    check(difftest.compare(q, r, 0, 0, int_tol=1) is None, "one quantization step is allowed")
    check(difftest.compare(q, np.array([12, 200], np.uint8), 0, 0, int_tol=1) is not None,
          "two steps are not")
    check(difftest.compare(np.array([True]), np.array([False]), 0, 0, int_tol=1) is not None,
          "booleans compare exactly")


def test_references():
    # ONNX Runtime's own test: tf_crop_and_resize with scales 0.8 on 4 pixels.
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    roi = np.array([0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], np.float32)
    y = reference.resize({"mode": b"linear", "coordinate_transformation_mode": b"tf_crop_and_resize",
                          "extrapolation_value": 10.0}, [x, roi, np.array([1, 1, 0.8, 0.8], np.float32)])
    check(np.allclose(y[0].ravel(), [7.6, 10, 10, 12.4, 10, 10, 10, 10, 10], atol=1e-5),
          "reference Resize tf_crop_and_resize: %s" % y[0].ravel())
    wrapped = reference.pad({"mode": b"wrap"}, [np.array([1.0, 2.0], np.float32), np.array([3, 2])])
    check(wrapped[0].tolist() == [2, 1, 2, 1, 2, 1, 2], "reference Pad wraps periodically")
    l1 = reference.reduction("ReduceL1")({"noop_with_empty_axes": 1}, [np.array([-2.0, 3.0]), None])
    check(l1[0].tolist() == [2.0, 3.0], "reference ReduceL1 over no axis is |x|")
    mvn = reference.mean_variance_normalization({"axes": [2]}, [np.ones([1, 1, 1], np.float32)])
    check(mvn[0].tolist() == [[[0.0]]], "reference MVN over one element gives 0")


def test_a_crash_fails_its_case_alone(build):
    work = tempfile.mkdtemp(prefix="kiln-difftest-test-")
    try:
        folders = []
        for seed in range(3):
            folder = os.path.join(work, "Unary_%d" % seed)
            model, inputs, int_tol = gen.make("Unary", seed)
            difftest.write_case(folder, model, inputs, int_tol)
            folders.append(folder)
        os.environ["KILN_DIFFTEST_CRASH_ON"] = "Unary_1"
        try:
            difftest.run_kiln(folders, 0, work, build)
        finally:
            del os.environ["KILN_DIFFTEST_CRASH_ON"]
        results = []
        for folder in folders:
            with open(os.path.join(folder, "kiln_0.json")) as f:
                results.append(json.load(f))
        check(results[0]["ok"], "the case before the crash ran: %s" % results[0])
        check(results[1].get("crash") and "process died" in results[1]["error"],
              "the crashing case is named: %s" % results[1])
        check(results[2]["ok"], "the case after the crash ran: %s" % results[2])
    finally:
        shutil.rmtree(work)


def main():
    test_compare()
    test_references()
    test_a_crash_fails_its_case_alone(sys.argv[1])
    print("%d failed" % len(failures) if failures else "difftest machinery: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
