"""The Python examples run and succeed, and results equal the C path's (the `kiln` CLI)."""

import os
import subprocess
import sys

import numpy as np
import onnx.numpy_helper
import pytest

import kiln as ort
from conftest import BUILD_DIR, SOURCE_DIR


def run_example(name, *args):
    env = dict(os.environ)
    return subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "python" / name), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_digits_example():
    r = run_example("digits.py", str(SOURCE_DIR / "examples" / "digits"))
    assert r.returncode == 0, r.stderr
    assert "digits: OK" in r.stdout


def test_from_onnxruntime_example():
    r = run_example("from_onnxruntime.py")
    assert r.returncode == 0, r.stderr
    assert "from_onnxruntime: OK" in r.stdout
    assert "providers: ['CPUExecutionProvider']" in r.stdout


def test_quantized_example():
    r = run_example("quantized.py")
    assert r.returncode == 0, r.stderr
    assert "quantized: OK" in r.stdout
    assert "['DynamicQuantizeMatMul']" in r.stdout


def test_reduced_precision_example():
    r = run_example("reduced_precision.py")
    assert r.returncode == 0, r.stderr
    assert "reduced_precision: OK" in r.stdout
    assert "bf16: largest difference" in r.stdout and "4-bit: largest difference" in r.stdout


@pytest.mark.parametrize("model", ["digits", "add", "sequence"])
def test_results_equal_the_c_path(models, tmp_path, model):
    cli = BUILD_DIR / "tools" / "kiln" / "kiln"
    assert cli.exists(), f"{cli} is not built"
    sess = ort.InferenceSession(models[model])
    rng = np.random.default_rng(5)
    feed, args = {}, []
    for arg in sess.get_inputs():
        shape = [d if isinstance(d, int) else 2 for d in arg.shape]
        x = rng.standard_normal(shape).astype(np.float32)
        feed[arg.name] = x
        np.save(tmp_path / f"{arg.name}.npy", x)
        args += ["--input", f"{arg.name}={tmp_path / (arg.name + '.npy')}"]
    out_dir = tmp_path / "out"
    r = subprocess.run([str(cli), "run", models[model], *args, "--output-dir", str(out_dir)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    ours = sess.run(None, feed)
    for i, mine in enumerate(ours):
        data = (out_dir / f"output_{i}.pb").read_bytes()
        if isinstance(mine, list):
            seq = onnx.SequenceProto()
            seq.ParseFromString(data)
            theirs = [onnx.numpy_helper.to_array(t) for t in seq.tensor_values]
            assert len(theirs) == len(mine)
            for a, b in zip(mine, theirs):
                np.testing.assert_array_equal(a, b)
        else:
            t = onnx.TensorProto()
            t.ParseFromString(data)
            np.testing.assert_array_equal(mine, onnx.numpy_helper.to_array(t))
