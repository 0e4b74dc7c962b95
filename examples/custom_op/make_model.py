#!/usr/bin/python3
"""Writes the custom-op example's models and the inputs its CLI test feeds.

    /usr/bin/python3 examples/custom_op/make_model.py

writes, next to this script:

  model.onnx      the C library's ops (libkiln_example_ops.so, domain "ai.kiln.example"):
                  a, b, c: float [2, 3] -> MulAddRelu(alpha=0.1) -> Y: float [2, 3]
                  words: string [2, 3]  -> StringJoin(separator="-") -> joined: string [2]
  model_cxx.onnx  the C++ library's op (libkiln_example_ops_cxx.so, domain "ai.kiln.example_cxx"):
                  x: float [N, 4] -> Bucketize(boundaries=[-1, 0, 0.5, 1]) -> bucket: int64 [N, 4]
  inputs/*.pb     one ONNX TensorProto per input of both models (see INPUTS), for
                  `kiln run --input NAME=FILE`

The output is deterministic (the files are committed): run it again after changing it, and
update the summary lines the CLI tests expect (examples/custom_op/CMakeLists.txt), which it
prints.
"""

import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent

DOMAIN = "ai.kiln.example"
DOMAIN_CXX = "ai.kiln.example_cxx"
ALPHA = 0.1
SEPARATOR = "-"
BOUNDARIES = [-1.0, 0.0, 0.5, 1.0]

# Values whose products and sums are exact in float32, so that the CLI's summary is too.
INPUTS = {
    "a": np.array([[1.0, -2.0, 0.5], [3.0, -1.0, 2.0]], dtype=np.float32),
    "b": np.array([[2.0, 1.0, 4.0], [0.5, 3.0, 1.0]], dtype=np.float32),
    "c": np.array([[-1.0, 0.5, -3.0], [0.5, 1.0, -4.0]], dtype=np.float32),
    "words": np.array([["kiln", "custom", "ops"], ["héllo", "", "wörld"]], dtype=object),
    "x": np.array([[-2.0, -1.0, -0.25, 0.0], [0.5, 0.75, 1.0, 7.0]], dtype=np.float32),
}


def mul_add_relu(a, b, c, alpha):
    """The reference of MulAddRelu: v = a * b + c; v where v > 0, else alpha * v."""
    v = a * b + c
    return np.where(v > 0, v, np.asarray(alpha, dtype=v.dtype) * v).astype(v.dtype)


def string_join(words, separator):
    """The reference of StringJoin: the last axis joined."""
    rows = int(np.prod(words.shape[:-1], dtype=np.int64))
    flat = words.reshape(rows, words.shape[-1])
    joined = [separator.join(str(w) for w in row) for row in flat]
    return np.array(joined, dtype=object).reshape(words.shape[:-1])


def bucketize(x, boundaries):
    """The reference of Bucketize: how many boundaries are <= each element."""
    return np.searchsorted(np.asarray(boundaries, dtype=np.float32).astype(x.dtype), x,
                           side="right").astype(np.int64)


def model_c():
    graph = helper.make_graph(
        [
            helper.make_node("MulAddRelu", ["a", "b", "c"], ["Y"], name="fused",
                             domain=DOMAIN, alpha=ALPHA),
            helper.make_node("StringJoin", ["words"], ["joined"], name="join",
                             domain=DOMAIN, separator=SEPARATOR),
        ],
        "custom_op_example",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("words", TensorProto.STRING, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("joined", TensorProto.STRING, [2]),
        ],
    )
    return finish(graph, DOMAIN)


def model_cxx():
    graph = helper.make_graph(
        [helper.make_node("Bucketize", ["x"], ["bucket"], name="bucketize", domain=DOMAIN_CXX,
                          boundaries=BOUNDARIES)],
        "custom_op_example_cxx",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("bucket", TensorProto.INT64, ["N", 4])],
    )
    return finish(graph, DOMAIN_CXX)


def finish(graph, domain):
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(domain, 1)],
        producer_name="kiln examples/custom_op/make_model.py",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)  # custom domains have no schema here: structure only
    return model


def summary(name, values, type_name):
    """The line `kiln run` prints for a numeric output (tools/kiln/run.cc's TensorSummary)."""
    v = values.astype(np.float64).ravel()
    shape = ", ".join(str(d) for d in values.shape)
    return (f"output {name}: {type_name} [{shape}]  min {v.min():.6g} max {v.max():.6g} "
            f"mean {sum(v.tolist()) / v.size:.6g}")


def main():
    for name, model in (("model.onnx", model_c()), ("model_cxx.onnx", model_cxx())):
        (HERE / name).write_bytes(model.SerializeToString())
        print(f"wrote {HERE / name}")
    (HERE / "inputs").mkdir(exist_ok=True)
    for name, value in INPUTS.items():
        tensor = numpy_helper.from_array(value, name)
        (HERE / "inputs" / f"{name}.pb").write_bytes(tensor.SerializeToString())
    print(f"wrote {HERE / 'inputs'}/{{{','.join(INPUTS)}}}.pb")
    i = INPUTS
    y = mul_add_relu(i["a"], i["b"], i["c"], np.float32(ALPHA))
    joined = string_join(i["words"], SEPARATOR)
    bucket = bucketize(i["x"], BOUNDARIES)
    print("kiln run model.onnx prints:     ", summary("Y", y, "float"))
    print("kiln run model_cxx.onnx prints: ", summary("bucket", bucket, "int64"))
    print("Y =", y.tolist())
    print("joined =", joined.tolist())
    print("bucket =", bucket.tolist())


if __name__ == "__main__":
    main()
