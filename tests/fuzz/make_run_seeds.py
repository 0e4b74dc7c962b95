#!/usr/bin/python3
"""Writes the ONNX backend suites' cases as seeds for the run-path fuzzer (run_path_fuzz.cc).

    make_run_seeds.py OUT_DIR CASE_ROOT... [--max-model-bytes N]

Each CASE_ROOT holds case directories (model.onnx, test_data_set_0/input_*.pb), like
../shared/onnx-tests/node and /usr/share/libonnx-testdata/data/node. A case becomes one seed when
its model is small and every input of test_data_set_0 is a tensor of at most 65,536 elements,
rank 6 and dimensions of 255: the options byte (level 3, one thread, one run), the model, then
each input with its own element type and shape and its values. Cases with sequence or optional
inputs are skipped. Prints how many seeds it wrote and how many cases it skipped.
"""
import argparse
import os
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

# The fuzzer's kElementTypes, by ONNX TensorProto data type.
ELEMENT_TYPE_INDEX = {
    onnx.TensorProto.FLOAT: 0, onnx.TensorProto.UINT8: 1, onnx.TensorProto.INT8: 2,
    onnx.TensorProto.UINT16: 3, onnx.TensorProto.INT16: 4, onnx.TensorProto.INT32: 5,
    onnx.TensorProto.INT64: 6, onnx.TensorProto.STRING: 7, onnx.TensorProto.BOOL: 8,
    onnx.TensorProto.FLOAT16: 9, onnx.TensorProto.DOUBLE: 10, onnx.TensorProto.UINT32: 11,
    onnx.TensorProto.UINT64: 12, onnx.TensorProto.BFLOAT16: 13,
    onnx.TensorProto.COMPLEX64: 22, onnx.TensorProto.COMPLEX128: 23,
}


def tensor_bytes(tensor):
    """The values as the fuzzer reads them: raw little-endian elements, strings length-prefixed."""
    if tensor.data_type == onnx.TensorProto.STRING:
        out = bytearray()
        for s in tensor.string_data:
            s = s[:15]
            out += bytes([len(s)]) + s
        return bytes(out)
    if tensor.data_type == onnx.TensorProto.BFLOAT16:
        if tensor.raw_data:
            return tensor.raw_data
        return np.array(tensor.int32_data, dtype=np.uint16).tobytes()
    array = numpy_helper.to_array(tensor)
    if tensor.data_type == onnx.TensorProto.FLOAT16:
        array = array.astype(np.float16)
    return np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()


def seed_for(case_dir, max_model_bytes):
    model_path = os.path.join(case_dir, "model.onnx")
    data_dir = os.path.join(case_dir, "test_data_set_0")
    if not os.path.isfile(model_path) or not os.path.isdir(data_dir):
        return None
    model_bytes = open(model_path, "rb").read()
    if len(model_bytes) > max_model_bytes:
        return None
    model = onnx.load_from_string(model_bytes)
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    if any(not i.type.HasField("tensor_type") for i in inputs):
        return None  # a sequence, optional or map input
    out = bytearray([3])  # level 3 (all optimizations), one thread, one run
    out += struct.pack("<I", len(model_bytes)) + model_bytes
    for index, _ in enumerate(inputs):
        path = os.path.join(data_dir, "input_%d.pb" % index)
        if not os.path.isfile(path):
            return None
        tensor = onnx.TensorProto()
        tensor.ParseFromString(open(path, "rb").read())
        if tensor.data_type not in ELEMENT_TYPE_INDEX or not tensor.HasField("data_type"):
            return None
        dims = list(tensor.dims)
        if len(dims) > 6 or any(d < 0 or d > 255 for d in dims) or int(np.prod(dims)) > 65536:
            return None
        # how = 0: the type and the shape follow (the case's own, not the model's declaration).
        out += bytes([0, ELEMENT_TYPE_INDEX[tensor.data_type], len(dims)]) + bytes(dims)
        out += tensor_bytes(tensor)
    return bytes(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--max-model-bytes", type=int, default=64 * 1024)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    written = skipped = 0
    for root in args.roots:
        if not os.path.isdir(root):
            continue
        tag = os.path.basename(os.path.dirname(os.path.abspath(root))) or "root"
        for case in sorted(os.listdir(root)):
            try:
                seed = seed_for(os.path.join(root, case), args.max_model_bytes)
            except Exception:  # a case the onnx package cannot read
                seed = None
            if seed is None:
                skipped += 1
                continue
            with open(os.path.join(args.out_dir, "%s_%s" % (tag, case)), "wb") as f:
                f.write(seed)
            written += 1
    print("make_run_seeds: %d seeds, %d cases skipped" % (written, skipped))
    return 0 if written > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
