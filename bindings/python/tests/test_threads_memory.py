"""Threads (the GIL is released during run), memory (RSS flat over many runs and sessions) and
reference counts."""

import gc
import sys
import threading

import numpy as np

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
