#!/usr/bin/python3
"""Reduced precision in Kiln: bf16 products on request, and weights of 4 bits.

Builds two small models with the onnx helper (no onnxruntime needed):
- a linear layer y = x · W + b run twice, plainly and with the session config entry
  kiln.compute.bf16 = 1, which runs the products against constant weights on bf16 operands with
  float sums (on machines with AVX-512 BF16; elsewhere the products stay float and the two runs
  agree exactly);
- a 3×3 convolution run the same two ways (the flag covers convolutions too, at the default
  optimization level);
- the same layer with W quantized to 4 bits in blocks of 32 (com.microsoft MatMulNBits, the form
  onnxruntime's LLM tooling writes), checked against the float product of the dequantized weight.

    /usr/bin/python3 examples/python/reduced_precision.py
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kiln as ort  # the same code runs with `import onnxruntime as ort` (but for the config key)

rng = np.random.default_rng(0)
K, N, BLOCK = 256, 64, 32
x = rng.standard_normal((16, K)).astype(np.float32)
w = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
b = rng.standard_normal(N).astype(np.float32)


def model(nodes, inits):
    graph = helper.make_graph(nodes, "layer",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, K])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, N])],
                              [numpy_helper.from_array(v, n) for n, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def run(m, config=None, feed=None):
    so = ort.SessionOptions()
    for key, value in (config or {}).items():
        so.add_session_config_entry(key, value)
    sess = ort.InferenceSession(m.SerializeToString(), sess_options=so,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, feed if feed is not None else {"x": x})[0]


ok = True

# bf16 on request.
linear = model([helper.make_node("MatMul", ["x", "W"], ["xw"]),
                helper.make_node("Add", ["xw", "b"], ["y"])], {"W": w, "b": b})
plain = run(linear)
half = run(linear, {"kiln.compute.bf16": "1"})
exact = x.astype(np.float64) @ w + b
rel = float(np.abs(half - exact).max() / np.abs(exact).max())
print(f"bf16: largest difference from the exact product {rel:.2e} of the output's range "
      f"(float: {float(np.abs(plain - exact).max() / np.abs(exact).max()):.2e})")
ok = ok and rel < 1e-2

# bf16 convolutions: [1, 32, 20, 20] through a 3×3 convolution to 48 channels, padded.
image = rng.standard_normal((1, 32, 20, 20)).astype(np.float32)
kernel = (rng.standard_normal((48, 32, 3, 3)) * 0.1).astype(np.float32)
conv = helper.make_model(
    helper.make_graph([helper.make_node("Conv", ["image", "kernel"], ["out"], pads=[1, 1, 1, 1])],
                      "conv",
                      [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 32, 20, 20])],
                      [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 48, 20, 20])],
                      [numpy_helper.from_array(kernel, "kernel")]),
    opset_imports=[helper.make_opsetid("", 17)])
plain_conv = run(conv, feed={"image": image})
half_conv = run(conv, {"kiln.compute.bf16": "1"}, feed={"image": image})
rel_conv = float(np.abs(half_conv - plain_conv).max() / np.abs(plain_conv).max())
print(f"bf16 convolution: largest difference from the float one {rel_conv:.2e} of its range")
ok = ok and rel_conv < 1e-2

# 4-bit weights: per column and block of 32 depths, scale = (max - min) / 15 and a zero point.
blocks = K // BLOCK
wb = w.T.reshape(N, blocks, BLOCK)
lo, hi = np.minimum(wb.min(axis=2), 0), np.maximum(wb.max(axis=2), 0)
scale = ((hi - lo) / 15).astype(np.float32)
zero = np.clip(np.round(-lo / scale), 0, 15).astype(np.uint8)
q = np.clip(np.round(wb / scale[:, :, None]) + zero[:, :, None], 0, 15).astype(np.uint8)
packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)  # low nibble first
zeros = (zero[:, 0::2] | (zero[:, 1::2] << 4)).astype(np.uint8).reshape(-1)
nbits = model([helper.make_node("MatMulNBits", ["x", "B", "scales", "zero_points", "", "b"], ["y"],
                                domain="com.microsoft", K=K, N=N, bits=4, block_size=BLOCK)],
              {"B": packed, "scales": scale.reshape(-1), "zero_points": zeros, "b": b})
dequantized = ((q.astype(np.float32) - zero[:, :, None]) * scale[:, :, None]).reshape(N, K).T
want = x.astype(np.float64) @ dequantized + b
got = run(nbits)
diff = float(np.abs(got - want).max())
print(f"4-bit: largest difference from the dequantized weight's product {diff:.2e}; "
      f"from the float layer {float(np.abs(got - exact).max()):.3f}")
ok = ok and diff < 1e-4
print("reduced_precision: OK" if ok else "reduced_precision: FAILED")
