#!/usr/bin/python3
"""Checks the custom-op example libraries through Kiln's Python package.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/custom_op/check_example.py \\
        build/release [--ops c|cxx|all]

BUILD_DIR is Kiln's build folder: the libraries are BUILD_DIR/examples/custom_op/*.so, and the
package BUILD_DIR/python when PYTHONPATH does not give one. For each library chosen (--ops, default
all) it checks that

- `readelf -d` lists no libkiln among its NEEDED entries (a custom-op library reaches Kiln through
  the table it is given, never by linking it);
- its model (model.onnx, model_cxx.onnx) gives, for the committed inputs (inputs/*.pb) and for
  seeded random ones, what a numpy reference gives: floats within 1e-6 (relative and absolute),
  integers and strings exactly;
- models built here reach what the committed ones do not: double, unknown and large shapes (the
  ParallelFor shares), attribute defaults, other ranks, runs from several threads at once;
- errors are reported, not crashed on, and name the problem: shapes that do not match (at session
  creation when known, at run time otherwise), a scalar for StringJoin, boundaries out of order;
- once its sessions and options are gone the library is unloaded: Kiln has closed it, and nothing
  (an STB_GNU_UNIQUE symbol it was the first to define, a kernel or op state not released) keeps
  it mapped. (The example_custom_op_readelf test checks for STB_GNU_UNIQUE symbols themselves:
  this process may well have defined the same ones before, which hides them here.)

It prints one line per check and "custom_op example: OK" when all pass; otherwise it lists the
failures and exits with status 1.
"""

import argparse
import gc
import os
import pathlib
import subprocess
import sys
import threading
import traceback

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_model import (  # noqa: E402
    ALPHA,
    BOUNDARIES,
    DOMAIN,
    DOMAIN_CXX,
    SEPARATOR,
    bucketize,
    mul_add_relu,
    string_join,
)

LIBS = {"c": "libkiln_example_ops.so", "cxx": "libkiln_example_ops_cxx.so"}

failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(f"{name}: {detail}")
    return ok


def check_close(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return check(name, False, f"got {got.dtype} {got.shape}, want {want.dtype} {want.shape}")
    if np.issubdtype(want.dtype, np.floating):
        ok = np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)
        worst = np.nanmax(np.abs(got.astype(np.float64) - want)) if want.size else 0.0
        return check(name, ok, f"largest difference {worst}")
    ok = np.array_equal(got, want)
    return check(name, ok, f"got {got.ravel().tolist()[:8]}, want {want.ravel().tolist()[:8]}")


def check_strings(name, got, want):
    got = np.asarray(got, dtype=object)
    ok = got.shape == want.shape and got.ravel().tolist() == want.ravel().tolist()
    return check(name, ok, f"got {got.shape} {got.ravel().tolist()[:4]}, "
                           f"want {want.shape} {want.ravel().tolist()[:4]}")


def check_raises(name, fn, *fragments):
    """fn() must raise, with every fragment in its message."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001: any of kiln's errors
        message = f"{type(e).__name__}: {e}"
        missing = [f for f in fragments if f not in message]
        return check(name, not missing, f"{missing} not in {message!r}")
    return check(name, False, "no error was raised")


# ---- Helpers -------------------------------------------------------------------------------------


def needed_libraries(path):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    return [line.split("[", 1)[1].rstrip("]") for line in out.stdout.splitlines()
            if "(NEEDED)" in line]


def mapped(path):
    """Whether the library is mapped into this process."""
    real = os.path.realpath(path)
    with open("/proc/self/maps") as maps:
        return any(line.rstrip().endswith(real) for line in maps)


def session(kiln, lib, model):
    """A session over model (a path, or a ModelProto) with the library registered."""
    so = kiln.SessionOptions()
    so.register_custom_ops_library(str(lib))
    if isinstance(model, onnx.ModelProto):
        model = model.SerializeToString()
    return kiln.InferenceSession(model, so)


def load_input(name):
    value = numpy_helper.to_array(onnx.load_tensor(str(HERE / "inputs" / f"{name}.pb")))
    if value.dtype == object or value.dtype.kind in "SU":
        value = np.array([v.decode() if isinstance(v, bytes) else str(v) for v in value.ravel()],
                         dtype=object).reshape(value.shape)
    return value


def model(nodes, inputs, outputs, domain):
    graph = helper.make_graph(nodes, "check", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid(domain, 1)])
    m.ir_version = 8
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


WORDS = ["kiln", "", "ops", "héllo", "wörld", "日本語", "a b", "-", "x" * 100]


def random_words(rng, shape):
    return np.array([WORDS[i] for i in rng.integers(0, len(WORDS), size=int(np.prod(shape)))],
                    dtype=object).reshape(shape)


# ---- The C library: MulAddRelu and StringJoin ----------------------------------------------------


def mar_model(elem, shapes, alpha=None, out_shape=None):
    attrs = {} if alpha is None else {"alpha": alpha}
    return model([helper.make_node("MulAddRelu", ["a", "b", "c"], ["y"], domain=DOMAIN, **attrs)],
                 [vi(n, elem, s) for n, s in zip("abc", shapes)], [vi("y", elem, out_shape)],
                 DOMAIN)


def join_model(shape, separator=None):
    attrs = {} if separator is None else {"separator": separator}
    return model([helper.make_node("StringJoin", ["x"], ["y"], domain=DOMAIN, **attrs)],
                 [vi("x", TensorProto.STRING, shape)], [vi("y", TensorProto.STRING, None)],
                 DOMAIN)


def check_c_committed(kiln, lib):
    s = session(kiln, lib, HERE / "model.onnx")
    feed = {n: load_input(n) for n in ("a", "b", "c", "words")}
    y, joined = s.run(None, feed)
    check_close("model.onnx: Y (committed inputs)", y,
                mul_add_relu(feed["a"], feed["b"], feed["c"], np.float32(ALPHA)))
    check_strings("model.onnx: joined (committed inputs)", joined,
                  string_join(feed["words"], SEPARATOR))
    check_strings("model.onnx: joined is what make_model.py promises", joined,
                  np.array(["kiln-custom-ops", "héllo--wörld"], dtype=object))
    rng = np.random.default_rng(2024)
    for seed in range(3):
        feed = {n: rng.standard_normal((2, 3)).astype(np.float32) for n in "abc"}
        feed["words"] = random_words(rng, (2, 3))
        y, joined = s.run(["Y", "joined"], feed)
        check_close(f"model.onnx: Y (random inputs {seed})", y,
                    mul_add_relu(feed["a"], feed["b"], feed["c"], np.float32(ALPHA)))
        check_strings(f"model.onnx: joined (random inputs {seed})", joined,
                      string_join(feed["words"], SEPARATOR))


def check_c_shapes_and_types(kiln, lib):
    rng = np.random.default_rng(7)
    # double, alpha 0.25, shapes known only at run time, and large enough for several shares.
    s = session(kiln, lib, mar_model(TensorProto.DOUBLE, [["N", "M"]] * 3, alpha=0.25))
    for shape in [(3, 1_000_003), (1, 1), (0, 5)]:
        feed = {n: rng.standard_normal(shape) for n in "abc"}
        (y,) = s.run(None, feed)
        check_close(f"MulAddRelu double {shape}", y,
                    mul_add_relu(feed["a"], feed["b"], feed["c"], 0.25))
    # float, alpha left out (0: a ReLU), rank 3, inputs of unknown rank.
    s = session(kiln, lib, mar_model(TensorProto.FLOAT, [None] * 3))
    feed = {n: rng.standard_normal((4, 5, 6)).astype(np.float32) for n in "abc"}
    (y,) = s.run(None, feed)
    want = np.maximum(feed["a"] * feed["b"] + feed["c"], np.float32(0))
    check_close("MulAddRelu float, default alpha (ReLU), unknown rank", y, want)
    feed = {n: np.float32(v).reshape(()) for n, v in zip("abc", (2, -3, 1))}
    (y,) = s.run(None, feed)
    check_close("MulAddRelu float scalars", y, np.array(0, dtype=np.float32))

    # StringJoin: default separator, rank 3 / rank 1 (a scalar out) / an empty last axis.
    s = session(kiln, lib, join_model(None))
    for shape in [(2, 3, 4), (5,), (3, 0), (0, 2)]:
        words = random_words(rng, shape)
        (y,) = s.run(None, {"x": words})
        check_strings(f"StringJoin default separator {shape}", y, string_join(words, " "))
    s = session(kiln, lib, join_model(["R", "K"], separator=", "))
    words = random_words(rng, (1000, 7))
    (y,) = s.run(None, {"x": words})
    check_strings("StringJoin separator ', ' (1000, 7)", y, string_join(words, ", "))


def check_c_errors(kiln, lib):
    # Known shapes that differ: InferShapes refuses the model.
    check_raises("MulAddRelu: mismatched static shapes fail session creation",
                 lambda: session(kiln, lib, mar_model(TensorProto.FLOAT, [[2, 3], [3, 2], [2, 3]])),
                 "MulAddRelu: input 1 'B' has shape [3, 2]", "[2, 3]")
    check_raises("MulAddRelu: mismatched ranks fail session creation",
                 lambda: session(kiln, lib, mar_model(TensorProto.FLOAT, [[2, 3], [2, 3], [6]])),
                 "MulAddRelu: input 2 'C' has shape [6]")
    # Shapes known only at run time: Compute refuses the run, and the session still works.
    # (Dimensions of their own: a symbol the inputs shared would let Kiln refuse the run first.)
    s = session(kiln, lib, mar_model(TensorProto.FLOAT, [["N1", "M1"], ["N2", "M2"], ["N3", "M3"]]))
    feed = {"a": np.ones((2, 3), np.float32), "b": np.ones((2, 4), np.float32),
            "c": np.ones((2, 3), np.float32)}
    check_raises("MulAddRelu: mismatched run-time shapes fail the run", lambda: s.run(None, feed),
                 "MulAddRelu: input 1 'B' has shape [2, 4]", "input 0 'A' has shape [2, 3]")
    feed["b"] = np.full((2, 3), 2, np.float32)
    (y,) = s.run(None, feed)
    check_close("MulAddRelu: the session runs after a failed run", y,
                np.full((2, 3), 3, np.float32))
    # A scalar has no last axis to join.
    s = session(kiln, lib, join_model(None))
    check_raises("StringJoin: a scalar fails the run",
                 lambda: s.run(None, {"x": np.array("one", dtype=object)}), "StringJoin", "scalar")
    # The description's types are Kiln's to check: int32 is not a T of MulAddRelu.
    check_raises("MulAddRelu: int32 inputs fail session creation",
                 lambda: session(kiln, lib, mar_model(TensorProto.INT32, [[2]] * 3)), "int32")


def check_threads(name, s, make_feed, reference, compare):
    """Runs s from four threads at once, each with its own inputs."""
    results = {}

    def work(t):
        rng = np.random.default_rng(100 + t)
        try:
            for _ in range(5):
                feed = make_feed(rng)
                out = s.run(None, feed)[0]
                if not compare(out, reference(feed)):
                    results[t] = "a result differs from the reference"
                    return
            results[t] = None
        except Exception as e:  # noqa: BLE001
            results[t] = f"{type(e).__name__}: {e}"

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    errors = {t: r for t, r in results.items() if r is not None}
    check(name, len(results) == 4 and not errors, str(errors))


def check_c_threads(kiln, lib):
    s = session(kiln, lib, mar_model(TensorProto.FLOAT, [["N"]] * 3, alpha=0.5))
    check_threads(
        "MulAddRelu from 4 threads at once",
        s,
        lambda rng: {n: rng.standard_normal(300_001).astype(np.float32) for n in "abc"},
        lambda f: mul_add_relu(f["a"], f["b"], f["c"], np.float32(0.5)),
        lambda got, want: np.allclose(got, want, rtol=1e-6, atol=1e-6))


def check_c(kiln, lib):
    check_c_committed(kiln, lib)
    check_c_shapes_and_types(kiln, lib)
    check_c_errors(kiln, lib)
    check_c_threads(kiln, lib)


# ---- The C++ library: Bucketize ------------------------------------------------------------------


def bucketize_model(elem, shape, boundaries):
    attrs = {} if boundaries is None else {"boundaries": boundaries}
    node = helper.make_node("Bucketize", ["x"], ["y"], domain=DOMAIN_CXX, **attrs)
    if boundaries is not None and len(boundaries) == 0:
        # onnx.helper types an empty list INTS: an empty FLOATS is written by hand.
        del node.attribute[:]
        node.attribute.add(name="boundaries", type=onnx.AttributeProto.FLOATS)
    return model([node], [vi("x", elem, shape)], [vi("y", TensorProto.INT64, None)], DOMAIN_CXX)


def check_cxx(kiln, lib):
    s = session(kiln, lib, HERE / "model_cxx.onnx")
    x = load_input("x")
    (bucket,) = s.run(None, {"x": x})
    check_close("model_cxx.onnx: bucket (committed inputs)", bucket, bucketize(x, BOUNDARIES))
    check_close("model_cxx.onnx: bucket is what make_model.py promises", bucket,
                np.array([[0, 1, 1, 2], [3, 3, 4, 4]], dtype=np.int64))
    rng = np.random.default_rng(11)
    special = np.array([np.nan, np.inf, -np.inf, -1, 0, 0.5, 1, -0.0], dtype=np.float32)
    for n in (1, 7, 1000):
        x = rng.uniform(-2, 2, 4 * n).astype(np.float32)
        k = min(len(special), x.size)
        x[:k] = special[:k]
        x = x.reshape(n, 4)
        (bucket,) = s.run(None, {"x": x})
        check_close(f"model_cxx.onnx: bucket (random inputs, N={n})", bucket,
                    bucketize(x, BOUNDARIES))

    # double, unknown rank, large enough for several shares; an empty list of boundaries.
    bounds = sorted(rng.uniform(-3, 3, 50).astype(np.float32).tolist())
    s = session(kiln, lib, bucketize_model(TensorProto.DOUBLE, None, bounds))
    for shape in [(2, 3, 100_003), (0,), ()]:
        x = np.asarray(rng.standard_normal(shape) * 2, dtype=np.float64)
        (y,) = s.run(None, {"x": x})
        check_close(f"Bucketize double {shape}", y, bucketize(x, bounds))
    s = session(kiln, lib, bucketize_model(TensorProto.FLOAT, ["N"], []))
    x = rng.standard_normal(10).astype(np.float32)
    (y,) = s.run(None, {"x": x})
    check_close("Bucketize with no boundaries", y, np.zeros(10, np.int64))

    check_raises("Bucketize: boundaries out of order fail session creation",
                 lambda: session(kiln, lib,
                                 bucketize_model(TensorProto.FLOAT, [3], [0.0, 2.0, 1.0])),
                 "Bucketize: boundaries must be ascending", "boundaries[2]")
    check_raises("Bucketize: a NaN boundary fails session creation",
                 lambda: session(kiln, lib,
                                 bucketize_model(TensorProto.FLOAT, [3], [0.0, float("nan")])),
                 "Bucketize: boundaries[1] is NaN")
    check_raises("Bucketize: no boundaries attribute fails session creation",
                 lambda: session(kiln, lib, bucketize_model(TensorProto.FLOAT, [3], None)),
                 "boundaries")

    s = session(kiln, lib, bucketize_model(TensorProto.FLOAT, ["N"], BOUNDARIES))
    check_threads(
        "Bucketize from 4 threads at once",
        s,
        lambda rng: {"x": rng.uniform(-2, 2, 200_003).astype(np.float32)},
        lambda f: bucketize(f["x"], BOUNDARIES),
        np.array_equal)


# ---- Main ----------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir", type=pathlib.Path, help="Kiln's build folder")
    parser.add_argument("--ops", choices=["c", "cxx", "all"], default="all",
                        help="which library to check (default: all)")
    args = parser.parse_args()
    chosen = ["c", "cxx"] if args.ops == "all" else [args.ops]

    try:
        import kiln
    except ImportError:
        sys.path.insert(0, str(args.build_dir / "python"))
        import kiln

    for which in chosen:
        lib = args.build_dir / "examples" / "custom_op" / LIBS[which]
        if not check(f"{lib.name} is built", lib.is_file(), f"{lib} does not exist"):
            continue
        needed = needed_libraries(lib)
        check(f"{lib.name}: readelf -d lists no libkiln (NEEDED: {', '.join(needed)})",
              not any("libkiln" in n for n in needed), f"NEEDED {needed}")
        try:
            (check_c if which == "c" else check_cxx)(kiln, lib)
        except Exception as e:  # noqa: BLE001: a failure outside check_raises is a failure too
            where = traceback.extract_tb(e.__traceback__)[-1]
            check(f"{lib.name}: the checks ran through", False,
                  f"{type(e).__name__}: {e} (line {where.lineno}: {where.line})")
            del e
        # Every session and options made above is gone: Kiln has closed the library.
        gc.collect()
        check(f"{lib.name}: unloaded once no session or options uses it", not mapped(lib),
              "still in /proc/self/maps")

    if failures:
        print(f"\ncustom_op example: {len(failures)} check(s) failed:")
        for f in failures:
            print(f"  {f}")
        sys.exit(1)
    print("custom_op example: OK")


if __name__ == "__main__":
    main()
