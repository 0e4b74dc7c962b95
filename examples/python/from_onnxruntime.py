#!/usr/bin/python3
"""An onnxruntime program with only its import changed.

Everything below the import is written against onnxruntime's Python API, as its documentation
shows it: session options, providers, input and output metadata, run, OrtValue, IO binding and
run options. Switching `import onnxruntime as ort` to `import kiln as ort` is the only edit.

    /usr/bin/python3 examples/python/from_onnxruntime.py [examples/digits/digits.onnx]
"""

import sys
from pathlib import Path

import numpy as np

import kiln as ort  # was: import onnxruntime as ort

model = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1] / "digits" / "digits.onnx")

so = ort.SessionOptions()
so.intra_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.log_severity_level = 3

sess = ort.InferenceSession(model, sess_options=so, providers=["CPUExecutionProvider"])
print("providers:", sess.get_providers())
for arg in sess.get_inputs():
    print("input:", arg.name, arg.type, arg.shape)
for arg in sess.get_outputs():
    print("output:", arg.name, arg.type, arg.shape)
meta = sess.get_modelmeta()
print("producer:", meta.producer_name, "graph:", meta.graph_name)

input_name = sess.get_inputs()[0].name
output_name = sess.get_outputs()[0].name
x = np.random.default_rng(0).random((4, 1, 8, 8), dtype=np.float32)

# The plain run.
(logits,) = sess.run([output_name], {input_name: x})
print("logits:", logits.shape, logits.dtype)

# OrtValues in and out.
x_ortvalue = ort.OrtValue.ortvalue_from_numpy(x, "cpu", 0)
results = sess.run_with_ort_values([output_name], {input_name: x_ortvalue})
assert np.array_equal(results[0].numpy(), logits)

# IO binding: the output written into an array allocated once.
io_binding = sess.io_binding()
io_binding.bind_cpu_input(input_name, x)
y = np.empty(logits.shape, dtype=np.float32)
io_binding.bind_output(output_name, "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
sess.run_with_iobinding(io_binding)
assert np.array_equal(y, logits)

# Run options, and the exceptions onnxruntime programs catch.
ro = ort.RunOptions()
ro.log_severity_level = 3
sess.run(None, {input_name: x}, ro)
try:
    sess.run(None, {input_name: x.astype(np.float64)})
except ort.capi.onnxruntime_pybind11_state.InvalidArgument as e:
    print("caught InvalidArgument:", str(e).splitlines()[0][:100])
else:
    raise SystemExit("a float64 input should have been refused")

print("predictions:", logits.argmax(axis=1).tolist())
print("from_onnxruntime: OK")
