"""Kiln: run ONNX models, with onnxruntime's Python API.

A program written for onnxruntime runs unchanged with the import switched::

    import kiln as ort          # instead of: import onnxruntime as ort

    sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    x = sess.get_inputs()[0]
    outputs = sess.run(None, {x.name: data})

Kiln's own addition, the graph API (no onnxruntime equivalent): ``kiln.Model`` reads, prints
(ONNX's textual syntax), parses, saves and verifies models, and ``InferenceSession.get_graph()``
shows the graph a session runs, with each node's kernel and the nodes it was fused from::

    model = kiln.Model.load("model.onnx")
    print(model)
    sess = kiln.InferenceSession(model)
    for node in sess.get_graph().nodes:
        print(node.op_type, node.kernel, node.fused_from)

Everything goes through Kiln's C ABI (libkiln.so.1, shipped inside this package).
"""

from kiln.capi import _kiln as _native
from kiln.capi._errors import (  # noqa: F401
    EngineError,
    EPFail,
    Fail,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoadCanceled,
    ModelLoaded,
    NoModel,
    NoSuchFile,
    NotImplemented,
    OutOfMemory,
    RuntimeException,
    Terminated,
)
from kiln.capi._pybind_state import (  # noqa: F401
    AdapterFormat,
    ExecutionMode,
    ExecutionOrder,
    GraphOptimizationLevel,
    LoraAdapter,
    ModelMetadata,
    NodeArg,
    OrtAllocatorType,
    OrtArenaCfg,
    OrtDeviceMemoryType,
    OrtMemoryInfo,
    OrtMemType,
    OrtSparseFormat,
    RunOptions,
    SessionOptions,
    create_and_register_allocator,
    disable_telemetry_events,
    enable_telemetry_events,
    get_all_providers,
    get_available_providers,
    get_build_info,
    get_device,
    get_version_string,
    set_default_logger_severity,
    set_default_logger_verbosity,
    set_seed,
)
from kiln.capi._graph import (  # noqa: F401 - Kiln's graph API
    Graph,
    Model,
    Node,
    SparseTensorValue,
    TypeInfo,
    ValueInfo,
)
from kiln.capi.onnxruntime_inference_collection import (  # noqa: F401
    InferenceSession,
    IOBinding,
    OrtDevice,
    OrtValue,
    SparseTensor,
)

__version__ = _native.version()
__author__ = "The Kiln developers"

from kiln.capi import onnxruntime_inference_collection, onnxruntime_pybind11_state  # noqa: E402,F401
