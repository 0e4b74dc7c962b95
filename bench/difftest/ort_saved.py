#!/usr/bin/env python3
"""Models as ONNX Runtime saves them after optimizing (its transformer fusions: com.microsoft
FusedConv, FusedGemm, FusedMatMul, Gelu, SkipLayerNormalization, ...), run in Kiln at levels 0
and 3 and compared with the outputs the model's folder holds.

    ort_saved.py [--build DIR] MODEL_DIR...

Each MODEL_DIR holds model.onnx, input_<i>.npy and output_<i>.npy (the layout of
tests/models/export_models.py). ONNX Runtime (bench/ort's node_modules) saves the model at levels
basic, extended and all (all: with the NCHWc layout of its CPU kernels for float convolutions,
com.microsoft.nchwc, blocked for this machine); Kiln must load each saved model and match the
outputs within rtol 1e-3, atol 1e-4. Prints one line per model and level and ends with
"N passed, N failed".
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import kiln  # noqa: E402

    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="kiln-ort-saved-") as work:
        for folder in args.models:
            name = os.path.basename(os.path.normpath(folder))
            inputs = []
            while os.path.exists(os.path.join(folder, "input_%d.npy" % len(inputs))):
                inputs.append(np.load(os.path.join(folder, "input_%d.npy" % len(inputs))))
            wants = []
            while os.path.exists(os.path.join(folder, "output_%d.npy" % len(wants))):
                wants.append(np.load(os.path.join(folder, "output_%d.npy" % len(wants))))
            for ort_level in ("basic", "extended", "all"):
                saved = os.path.join(work, "%s_%s.onnx" % (name, ort_level))
                subprocess.run(["node", os.path.join(HERE, "ort_save.js"),
                                os.path.join(folder, "model.onnx"), saved, ort_level],
                               check=True, stderr=subprocess.DEVNULL)
                for level in (0, 3):
                    what = "%s saved at %s, Kiln level %d" % (name, ort_level, level)
                    try:
                        options = kiln.SessionOptions()
                        options.graph_optimization_level = [
                            kiln.GraphOptimizationLevel.ORT_DISABLE_ALL,
                            kiln.GraphOptimizationLevel.ORT_ENABLE_ALL][level == 3]
                        session = kiln.InferenceSession(saved, sess_options=options)
                        feeds = {i.name: v for i, v in zip(session.get_inputs(), inputs)}
                        outs = session.run(None, feeds)
                        worst = 0.0
                        for got, want in zip(outs, wants):
                            if got.shape != want.shape:
                                raise AssertionError("shape %s, want %s" % (got.shape, want.shape))
                            if not np.allclose(got, want, rtol=1e-3, atol=1e-4):
                                raise AssertionError("max diff %g" % np.abs(got - want).max())
                            worst = max(worst, float(np.abs(got - want).max()))
                        print("ok   %s (max diff %.2g)" % (what, worst))
                        passed += 1
                    except Exception as e:  # a failure is reported, not a reason to stop
                        print("FAIL %s: %s" % (what, str(e).splitlines()[0][:300]))
                        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
