"""The module layout onnxruntime programs import from (``onnxruntime.capi``).

- ``kiln.capi._kiln``: the native module, a thin layer over Kiln's C ABI.
- ``kiln.capi.onnxruntime_pybind11_state`` (also ``kiln.capi._pybind_state``): the names
  onnxruntime's native module has — ``SessionOptions``, ``RunOptions``, ``OrtValue``, ``NodeArg``,
  the enums and the exception classes.
- ``kiln.capi.onnxruntime_inference_collection``: the Python-level classes
  (``InferenceSession``, ``IOBinding``, ``OrtValue``, ``SparseTensor``, ``OrtDevice``) and helpers
  such as ``check_and_normalize_provider_args``.
- ``kiln.capi._graph``: Kiln's graph API, which onnxruntime has no equivalent of (``Model``,
  ``Graph``, ``Node``, ``ValueInfo``, ``TypeInfo``, exported from ``kiln``).
"""
