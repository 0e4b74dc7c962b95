#!/usr/bin/env python3
"""Makes a static-shape model out of an ONNX backend test case, for the allocation probe.

    freeze_case.py CASE_DIR OUT.onnx

The case's first graph input stays an input; every other input becomes an initializer holding the
value from the case's test_data_set_0 (so scales, sizes, weights and sequence lengths are real
constants, and output shapes are known at load). Inputs the case leaves out (optional inputs given
as "") are left alone.
"""
import os
import sys

import onnx


def freeze(case, out):
    """Writes the frozen model of CASE to OUT; raises ValueError when an input has no value."""
    model = onnx.load(os.path.join(case, "model.onnx"))
    data = os.path.join(case, "test_data_set_0")
    graph = model.graph
    init_names = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in init_names]
    values = {}
    index = 0
    while os.path.exists(os.path.join(data, "input_%d.pb" % index)):
        t = onnx.TensorProto()
        with open(os.path.join(data, "input_%d.pb" % index), "rb") as f:
            t.ParseFromString(f.read())
        values[inputs[index].name] = t
        index += 1
    keep = inputs[:1]
    for i in inputs[1:]:
        if i.name not in values:
            raise ValueError("%s: no value for input '%s'" % (case, i.name))
        t = values[i.name]
        t.name = i.name
        graph.initializer.append(t)
    del graph.input[:]
    graph.input.extend(keep)
    onnx.save(model, out)


def main():
    try:
        freeze(sys.argv[1], sys.argv[2])
    except ValueError as e:
        sys.exit("freeze_case: %s" % e)


if __name__ == "__main__":
    main()
