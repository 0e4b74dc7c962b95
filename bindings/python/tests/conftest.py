"""Small models for the Python package's tests, made with onnx.helper into a temporary folder.

KILN_SOURCE_DIR (the repository) and KILN_BUILD_DIR (the CMake build whose `kiln` CLI the tests
compare against) are set by ctest; both default to this checkout's release build.
"""

import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

SOURCE_DIR = Path(os.environ.get("KILN_SOURCE_DIR", Path(__file__).resolve().parents[3]))
BUILD_DIR = Path(os.environ.get("KILN_BUILD_DIR", SOURCE_DIR / "build" / "release"))
DIGITS = SOURCE_DIR / "examples" / "digits" / "digits.onnx"


def save(model, folder, name):
    path = Path(folder) / name
    onnx.save(model, str(path))
    return str(path)


def make_model(nodes, inputs, outputs, initializers=(), opset=17, **kwargs):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kwargs)
    model.ir_version = 8
    return model


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    """Paths of the test models, by name."""
    d = tmp_path_factory.mktemp("models")
    m = {}
    # z = x + y, with a symbolic batch dimension.
    add = make_model(
        [helper.make_node("Add", ["x", "y"], ["z"], name="add")],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 3])],
        producer_name="kiln-tests",
        doc_string="adds two tensors",
        model_version=7,
    )
    add.graph.doc_string = "the add graph"
    add.domain = "org.kiln.tests"
    helper.set_model_props(add, {"author": "kiln", "purpose": "tests"})
    m["add"] = save(add, d, "add.onnx")
    # A pass-through output (the output is the input) and a second, computed one.
    m["identity"] = save(
        make_model(
            [helper.make_node("Identity", ["x"], ["y"])],
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        ),
        d,
        "identity.onnx",
    )
    # One Identity model per element type, with an unknown dimension.
    for name, t in [
        ("float32", TensorProto.FLOAT),
        ("float64", TensorProto.DOUBLE),
        ("float16", TensorProto.FLOAT16),
        ("int8", TensorProto.INT8),
        ("int16", TensorProto.INT16),
        ("int32", TensorProto.INT32),
        ("int64", TensorProto.INT64),
        ("uint8", TensorProto.UINT8),
        ("uint16", TensorProto.UINT16),
        ("uint32", TensorProto.UINT32),
        ("uint64", TensorProto.UINT64),
        ("bool", TensorProto.BOOL),
        ("string", TensorProto.STRING),
        ("bfloat16", TensorProto.BFLOAT16),
    ]:
        m["identity_" + name] = save(
            make_model(
                [helper.make_node("Identity", ["x"], ["y"])],
                [helper.make_tensor_value_info("x", t, None)],
                [helper.make_tensor_value_info("y", t, None)],
                opset=19,
            ),
            d,
            f"identity_{name}.onnx",
        )
    # A sequence output and a sequence input.
    m["sequence"] = save(
        make_model(
            [
                helper.make_node("SequenceConstruct", ["a", "b"], ["seq"]),
                helper.make_node("SequenceLength", ["seq"], ["n"]),
            ],
            [
                helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                helper.make_tensor_value_info("b", TensorProto.FLOAT, [2]),
            ],
            [
                helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None),
                helper.make_tensor_value_info("n", TensorProto.INT64, []),
            ],
        ),
        d,
        "sequence.onnx",
    )
    m["sequence_in"] = save(
        make_model(
            [helper.make_node("SequenceLength", ["s"], ["n"])],
            [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        ),
        d,
        "sequence_in.onnx",
    )
    # An optional input: OptionalHasElement.
    opt_type = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    m["optional"] = save(
        make_model(
            [helper.make_node("OptionalHasElement", ["o"], ["has"])],
            [helper.make_value_info("o", opt_type)],
            [helper.make_tensor_value_info("has", TensorProto.BOOL, [])],
            opset=18,
        ),
        d,
        "optional.onnx",
    )
    # A model whose run fails at a node: Reshape to a shape that does not fit.
    m["bad_reshape"] = save(
        make_model(
            [helper.make_node("Reshape", ["x", "shape"], ["y"], name="the_reshape")],
            [
                helper.make_tensor_value_info("x", TensorProto.FLOAT, [None]),
                helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
            ],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        ),
        d,
        "bad_reshape.onnx",
    )
    # A slow model: a long chain of MatMuls, for terminate and run_async.
    n = 256
    w = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32) / np.sqrt(n)
    nodes, prev = [], "x"
    for i in range(400):
        nodes.append(helper.make_node("MatMul", [prev, "w"], [f"h{i}"]))
        prev = f"h{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    m["slow"] = save(
        make_model(
            nodes,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
            initializers=[numpy_helper.from_array(w, "w")],
        ),
        d,
        "slow.onnx",
    )
    m["digits"] = str(DIGITS)
    return m
