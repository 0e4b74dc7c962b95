#!/usr/bin/env python3
"""The outside check of Kiln's text printer (src/ir/text_printer.h): the texts it writes, pinned in
src/ir/testdata/text_printer/ by text_printer_test.cc, must parse with ONNX's own parser
(Debian's python3-onnx, onnx.parser) and pass onnx.checker, with the graph they describe; a text
that holds what ONNX's grammar cannot say (quoted names, elided values) must be refused by it.

    /usr/bin/python3 src/ir/testdata/check_text_with_onnx.py src/ir/testdata/text_printer
"""
import sys
from pathlib import Path

import numpy as np
import onnx
import onnx.checker
import onnx.numpy_helper
import onnx.parser


def check(directory):
    d = Path(directory)
    failures = []

    def parse(name):
        return onnx.parser.parse_model((d / f"{name}.txt").read_text())

    m = parse("matmul_add")
    onnx.checker.check_model(m)
    if [n.op_type for n in m.graph.node] != ["MatMul", "Cast", "Add"]:
        failures.append("matmul_add: nodes")
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    if not np.array_equal(inits.get("b"), np.array([1, -2, 3], np.int64)):
        failures.append("matmul_add: b")
    w = inits.get("w")
    if w is None or w.shape != (2, 3) or not np.allclose(w, [[1, -2.5, 0.125], [3, 1e-7, 100]]):
        failures.append(f"matmul_add: w {w}")
    dims = m.graph.input[0].type.tensor_type.shape.dim
    if dims[0].dim_param != "N" or dims[1].dim_value != 2:
        failures.append("matmul_add: the input's shape")

    m = parse("attributes")
    onnx.checker.check_model(m)
    node = m.graph.node[0]
    if node.domain != "ai.kiln.example" or node.op_type != "MulAddRelu":
        failures.append("attributes: the custom node")
    got = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    want = {"count": -4, "label": b"a label", "axes": [0, -1], "names": [b"p", b"q"]}
    for k, v in want.items():
        if got.get(k) != v:
            failures.append(f"attributes: {k} is {got.get(k)!r}, not {v!r}")
    if abs(got.get("alpha", 0) - 0.1) > 1e-7 or got.get("scales") != [1.0, 2.5]:
        failures.append(f"attributes: the float attributes {got}")
    clip = m.graph.node[3]
    if list(clip.input) != ["z0", "", "perm_f"]:
        failures.append(f"attributes: Clip's inputs {list(clip.input)}")

    m = parse("if")
    onnx.checker.check_model(m)
    branches = {a.name: a.g for a in m.graph.node[0].attribute}
    if [n.op_type for n in branches["else_branch"].node] != ["Neg"]:
        failures.append("if: the else branch")

    try:
        parse("elided")
        failures.append("elided: ONNX's parser read a text with quoted names and elided values")
    except Exception:  # noqa: BLE001 - the parser's error type varies by version
        pass

    for f in failures:
        print("FAIL", f)
    print(f"text printer vs onnx.parser: {'OK' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1]))
