#!/usr/bin/python3
"""Reads every input_*.pb and output_*.pb of ONNX's backend test data with the `kiln` tool's
reader (kiln_value_dump, over tools/kiln/tensor_file.cc) and checks each value against ONNX's
own decoding: element type, dims, and every byte of the data (every string for string tensors).

usage: check_value_files.py KILN_VALUE_DUMP DATA_DIR...

Each DATA_DIR holds suites (node/, simple/, ...) of cases, each a model.onnx and
test_data_set_*/ folders. What a file holds (tensor, sequence, optional) is what the case's model
declares for that input or output. The reference decoding is onnx.numpy_helper.to_array for the
element types this onnx knows (Debian's onnx 1.12: up to bfloat16), and for the newer ones (the
8-bit floats, float8e8m0, the 4- and 2-bit types) ONNX's specification of TensorProto, written
out here: raw_data as it is, int32_data one element per entry for the 8-bit types and one packed
byte (two or four elements, the first in the low bits) per entry for the sub-byte types. For the
4- and 2-bit types, and for float16/bfloat16 given in int32_data, the element values are also
unpacked on both sides and compared. Prints the counts and "value files: OK", or every mismatch;
exits 1 on any.
"""
import glob
import io
import os
import subprocess
import sys
from collections import Counter

import numpy as np
from onnx import ModelProto, OptionalProto, SequenceProto, TensorProto, numpy_helper

# ONNX element types newer than onnx 1.12, by their TensorProto.DataType numbers.
FLOAT8 = {17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
          24: "float8e8m0"}
PACKED = {21: ("uint4", 4, False), 22: ("int4", 4, True), 23: ("float4e2m1", 4, None),
          25: ("uint2", 2, False), 26: ("int2", 2, True)}
FLOAT4E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


class Tensor:
    """A tensor as the dumper writes it: element type, dims, and data bytes or strings."""

    def __init__(self, elem_type, dims, data, values=None):
        self.elem_type, self.dims, self.data = elem_type, list(dims), data
        self.values = values  # the reference's element values, for the types unpacked

    def __eq__(self, other):
        return (self.elem_type, self.dims, self.data) == (other.elem_type, other.dims, other.data)

    def __repr__(self):
        size = len(self.data)
        return f"type {self.elem_type} dims {self.dims} ({size} {'strings' if self.elem_type == 8 else 'bytes'})"


def reference_tensor(t, base_dir, counts):
    """ONNX's decoding of a TensorProto, as a Tensor of Kiln's storage layout."""
    dims = list(t.dims)
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if t.data_type == TensorProto.STRING:
        return Tensor(8, dims, list(t.string_data))
    field = "raw_data" if t.HasField("raw_data") else "typed fields"
    if t.data_type in FLOAT8 or t.data_type in PACKED:
        bits = PACKED[t.data_type][1] if t.data_type in PACKED else 8
        nbytes = (count * bits + 7) // 8
        if t.data_location == TensorProto.EXTERNAL:
            raise ValueError("external data of a type newer than this onnx")
        if t.HasField("raw_data"):
            data = t.raw_data
        else:
            entries = list(t.int32_data)
            if len(entries) != nbytes:
                raise ValueError(f"{len(entries)} int32_data entries for {nbytes} bytes")
            data = bytes(e & 0xFF for e in entries)
        if len(data) != nbytes:
            raise ValueError(f"raw_data of {len(data)} bytes for {nbytes}")
        name = PACKED[t.data_type][0] if t.data_type in PACKED else FLOAT8[t.data_type]
        counts[f"{name} ({field})"] += 1
        values = None
        if t.data_type in PACKED:  # element by element, as the specification words it
            _, bits, signed = PACKED[t.data_type]
            values = []
            for i in range(count):
                code = (data[i * bits // 8] >> (i * bits % 8)) & ((1 << bits) - 1)
                if signed is None:
                    values.append(-FLOAT4E2M1[code & 7] if code & 8 else FLOAT4E2M1[code & 7])
                else:
                    values.append(code - (1 << bits) if signed and code >> (bits - 1) else code)
        return Tensor(t.data_type, dims, data, values)
    array = numpy_helper.to_array(t, base_dir)
    if t.data_type == TensorProto.BFLOAT16:  # numpy_helper widens bfloat16 to float32
        data = (np.ascontiguousarray(array).view(np.uint32) >> 16).astype("<u2").tobytes()
    else:
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    values = None
    if t.data_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
        counts[f"{'float16' if t.data_type == TensorProto.FLOAT16 else 'bfloat16'} ({field})"] += 1
        values = array.astype(np.float64).reshape(-1).tolist()
    return Tensor(t.data_type, dims, data, values)


def reference_value(kind, path, counts):
    """ONNX's decoding of one file: a header as the dumper writes it and the tensors."""
    with open(path, "rb") as f:
        raw = f.read()
    base_dir = os.path.dirname(path)
    if kind == "tensor":
        t = TensorProto()
        t.ParseFromString(raw)
        return "tensor", [reference_tensor(t, base_dir, counts)]
    if kind == "sequence":
        s = SequenceProto()
        s.ParseFromString(raw)
        return f"sequence {len(s.tensor_values)}", [reference_tensor(t, base_dir, counts)
                                                    for t in s.tensor_values]
    o = OptionalProto()
    o.ParseFromString(raw)
    if o.elem_type == OptionalProto.TENSOR and o.HasField("tensor_value"):
        return "optional tensor", [reference_tensor(o.tensor_value, base_dir, counts)]
    if o.elem_type == OptionalProto.SEQUENCE and o.HasField("sequence_value"):
        tensors = o.sequence_value.tensor_values
        return f"optional sequence {len(tensors)}", [reference_tensor(t, base_dir, counts)
                                                     for t in tensors]
    return "optional empty", []


def element_values(tensor):
    """The element values of a packed or 16-bit float tensor, unpacked from its data bytes
    (vectorised, unlike the reference's element-by-element unpacking)."""
    data = np.frombuffer(tensor.data, dtype=np.uint8)
    count = int(np.prod(tensor.dims, dtype=np.int64)) if tensor.dims else 1
    if tensor.elem_type in PACKED:
        _, bits, signed = PACKED[tensor.elem_type]
        per_byte = 8 // bits
        mask = (1 << bits) - 1
        codes = np.stack([(data >> (bits * k)) & mask for k in range(per_byte)], axis=1)
        codes = codes.reshape(-1)[:count].astype(np.int64)
        if signed is None:  # float4e2m1: sign bit, then the magnitude's code
            return [(-1 if c & 8 else 1) * FLOAT4E2M1[c & 7] for c in codes]
        if signed:
            codes = np.where(codes >= (1 << (bits - 1)), codes - (1 << bits), codes)
        return codes.tolist()
    halves = np.frombuffer(tensor.data, dtype="<u2")
    if tensor.elem_type == TensorProto.FLOAT16:
        return halves.view(np.float16).astype(np.float64).tolist()
    return (halves.astype(np.uint32) << 16).view(np.float32).astype(np.float64).tolist()


def first_difference(got, want):
    """Where the data of two equally shaped lists of tensors first differ, as text."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g.data != w.data and len(g.data) == len(w.data):
            k = next(k for k in range(len(g.data)) if g.data[k] != w.data[k])
            return f"; tensor {i} differs first at element {k} of its data: {g.data[k]!r} vs {w.data[k]!r}"
    return ""


def read_dump(stream):
    """Reads one file's record from the dumper: (header, [Tensor]) or ("error ...", [])."""
    header = stream.readline().decode("utf-8", "replace").rstrip("\n")
    if header.startswith("error ") or not header:
        return header, []
    words = header.split()
    n = 1 if header in ("tensor", "optional tensor") else 0
    if words[0] == "sequence" or header.startswith("optional sequence"):
        n = int(words[-1])
    tensors = []
    for _ in range(n):
        fields = stream.readline().decode().split()
        if fields[0] == "s":
            rank = int(fields[1])
            dims = [int(d) for d in fields[2:2 + rank]]
            strings = []
            for _ in range(int(fields[2 + rank])):
                length = int(stream.readline())
                strings.append(stream.read(length))
            tensors.append(Tensor(8, dims, strings))
        else:
            rank = int(fields[2])
            dims = [int(d) for d in fields[3:3 + rank]]
            tensors.append(Tensor(int(fields[1]), dims, stream.read(int(fields[3 + rank]))))
    return header, tensors


def declared(value_info):
    """What a graph input or output declares: the dumper's KIND and the element type."""
    t = value_info.type
    which = t.WhichOneof("value")
    if which == "tensor_type":
        return "tensor", t.tensor_type.elem_type
    if which == "sequence_type":
        return "sequence", t.sequence_type.elem_type.tensor_type.elem_type
    if which == "optional_type":
        inner = t.optional_type.elem_type
        if inner.WhichOneof("value") == "sequence_type":
            return "optional_sequence", inner.sequence_type.elem_type.tensor_type.elem_type
        return "optional_tensor", inner.tensor_type.elem_type
    return which or "unknown", 0


def collect(data_dirs):
    """Every value file of every case: (path, kind, declared element type)."""
    files = []
    for data_dir in data_dirs:
        if not os.path.isdir(data_dir):
            sys.exit(f"check_value_files: no test data at {data_dir}")
        for model_path in sorted(glob.glob(os.path.join(data_dir, "*", "*", "model.onnx"))):
            model = ModelProto()
            with open(model_path, "rb") as f:
                model.ParseFromString(f.read())
            initializers = {i.name for i in model.graph.initializer}
            inputs = [declared(v) for v in model.graph.input if v.name not in initializers]
            outputs = [declared(v) for v in model.graph.output]
            case = os.path.dirname(model_path)
            for path in sorted(glob.glob(os.path.join(case, "test_data_set_*", "*put_*.pb"))):
                direction, index = os.path.basename(path)[:-3].split("_")
                values = inputs if direction == "input" else outputs
                files.append((path, *values[int(index)]))
    return files


def main():
    dumper, data_dirs = sys.argv[1], sys.argv[2:]
    files = collect(data_dirs)
    lines = "".join(f"{kind} {elem} {path}\n" for path, kind, elem in files)
    dump = subprocess.run([dumper], input=lines.encode(), stdout=subprocess.PIPE, check=True)
    stream = io.BytesIO(dump.stdout)
    kinds, encodings, failures = Counter(), Counter(), []
    values_checked = 0
    for path, kind, _ in files:
        header, got = read_dump(stream)
        kinds[kind] += 1
        if header.startswith("error") or not header:
            failures.append(f"{path}: the tool's reader failed: {header[6:]}")
            continue
        try:
            want_header, want = reference_value(kind, path, encodings)
        except Exception as e:  # noqa: BLE001 -- a file ONNX's decoding refuses is reported
            failures.append(f"{path}: the reference decoding failed: {e}")
            continue
        if header != want_header or got != want:
            failures.append(f"{path}: the tool read {header} {got}, ONNX reads {want_header} {want}"
                            + first_difference(got, want))
            continue
        for g, w in zip(got, want):
            if w.values is None:
                continue
            values_checked += 1
            a = element_values(g)
            same = len(a) == len(w.values) and all(
                x == y or (x != x and y != y) for x, y in zip(a, w.values))  # NaN matches NaN
            if not same:
                failures.append(f"{path}: element values {a[:8]}... differ from ONNX's "
                                f"{w.values[:8]}...")
    print(f"value files: {len(files)} read from {', '.join(data_dirs)}")
    print("  by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print("  float16, bfloat16 and newer types by encoding: " +
          ", ".join(f"{k} {n}" for k, n in sorted(encodings.items())))
    print(f"  tensors whose element values were also unpacked and compared: {values_checked}")
    for failure in failures:
        print("MISMATCH " + failure)
    if failures:
        print(f"value files: {len(failures)} of {len(files)} FAILED")
        return 1
    print("value files: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
