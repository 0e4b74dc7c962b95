"""Threads (the GIL is released during run), memory (RSS flat over many runs and sessions) and
reference counts."""

import gc
import sys
import threading

import numpy as np
import pytest

import kiln as ort


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def test_eight_threads_on_one_session_match_serial(models):
    sess = ort.InferenceSession(models["digits"])
    name = sess.get_inputs()[0].name
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal((1, 1, 8, 8)).astype(np.float32) for _ in range(32)]
    serial = [sess.run(None, {name: x})[0] for x in inputs]
    results = [[None] * len(inputs) for _ in range(8)]
    errors = []

    def work(t):
        try:
            for _ in range(5):
                for i, x in enumerate(inputs):
                    results[t][i] = sess.run(None, {name: x})[0]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for t in range(8):
        for i in range(len(inputs)):
            np.testing.assert_array_equal(results[t][i], serial[i])


def test_threads_run_at_once_with_the_gil_released(models):
    # Two threads each running a slow model: while one is inside Kiln, the other thread's Python
    # code runs (a counter keeps moving), which it could not if run held the GIL.
    sess = ort.InferenceSession(models["slow"])
    x = np.ones((256, 256), np.float32)
    stop = threading.Event()
    ticks = [0]

    def count():
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    before = ticks[0]
    sess.run(None, {"x": x})
    during = ticks[0] - before
    stop.set()
    counter.join()
    assert during > 1000


def test_ten_thousand_runs_keep_rss_and_refcounts_flat(models):
    sess = ort.InferenceSession(models["add"])
    x = np.ones((4, 3), np.float32)
    y = np.ones((4, 3), np.float32)
    f = {"x": x, "y": y}
    for _ in range(500):  # warm up: arenas, layouts, allocator caches
        sess.run(None, f)
    gc.collect()
    refs = (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(f))
    start = rss_kib()
    for _ in range(10_000):
        (z,) = sess.run(None, f)
    del z
    gc.collect()
    grown = rss_kib() - start
    assert (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(f)) == refs
    assert grown < 2048, f"RSS grew by {grown} KiB over 10,000 runs"


def test_a_thousand_sessions_keep_rss_flat(models):
    with open(models["add"], "rb") as f:
        model = f.read()
    x = np.ones((2, 3), np.float32)
    for _ in range(50):
        ort.InferenceSession(model).run(None, {"x": x, "y": x})
    gc.collect()
    start = rss_kib()
    for _ in range(1000):
        sess = ort.InferenceSession(model)
        sess.run(None, {"x": x, "y": x})
        del sess
    gc.collect()
    grown = rss_kib() - start
    assert grown < 4096, f"RSS grew by {grown} KiB over 1,000 sessions"


def _branches_model(tmp_path):
    """y = Sum over 6 branches of Relu(MatMul(x, w_i) + b_i): independent nodes to run at once."""
    from onnx import TensorProto, helper, numpy_helper

    from conftest import make_model, save

    rng = np.random.default_rng(11)
    nodes, inits, outs = [], [], []
    for i in range(6):
        w = numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), f"w{i}")
        b = numpy_helper.from_array(rng.standard_normal((16,)).astype(np.float32), f"b{i}")
        inits += [w, b]
        nodes += [
            helper.make_node("MatMul", ["x", f"w{i}"], [f"m{i}"], name=f"matmul{i}"),
            helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"], name=f"add{i}"),
            helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"relu{i}"),
        ]
        outs.append(f"r{i}")
    nodes.append(helper.make_node("Sum", outs, ["y"], name="sum"))
    model = make_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 16])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 16]),
            helper.make_tensor_value_info("r2", TensorProto.FLOAT, ["n", 16]),
        ],
        inits,
    )
    return save(model, tmp_path, "branches.onnx")


def test_parallel_execution_mode_gives_the_sequential_results(tmp_path):
    path = _branches_model(tmp_path)
    serial = ort.InferenceSession(path)
    so = ort.SessionOptions()
    so.execution_mode = ort.ExecutionMode.ORT_PARALLEL
    so.inter_op_num_threads = 3
    so.intra_op_num_threads = 1
    parallel = ort.InferenceSession(path, so)
    assert parallel.get_session_options().execution_mode == ort.ExecutionMode.ORT_PARALLEL
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal((n, 16)).astype(np.float32) for n in (1, 3, 7, 3)]
    for x in inputs:
        want = serial.run(None, {"x": x})
        got = parallel.run(None, {"x": x})
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
    # Python threads on the parallel session at once.
    errors = []

    def work():
        try:
            for x in inputs * 5:
                want = serial.run(["y"], {"x": x})[0]
                np.testing.assert_array_equal(parallel.run(["y"], {"x": x})[0], want)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_parallel_execution_mode_errors_like_the_sequential_one(tmp_path):
    path = _branches_model(tmp_path)
    so = ort.SessionOptions()
    so.execution_mode = ort.ExecutionMode.ORT_PARALLEL
    so.inter_op_num_threads = 2
    sess = ort.InferenceSession(path, so)
    with pytest.raises(ort.InvalidArgument, match="dimension 1 must be 16"):
        sess.run(None, {"x": np.zeros((2, 5), np.float32)})
    so.inter_op_num_threads = 5000
    with pytest.raises(ort.InvalidArgument, match="SetInterOpNumThreads.*threads"):
        ort.InferenceSession(path, so)
