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
    OrtCompileApiFlags,
    OrtDeviceMemoryType,
    OrtEpDevice,
    OrtExecutionProviderDevicePolicy,
    OrtHardwareDevice,
    OrtHardwareDeviceType,
    OrtMemoryInfo,
    OrtMemType,
    OrtSparseFormat,
    OrtSyncStream,
    RunOptions,
    SessionOptions,
    create_and_register_allocator,
    create_and_register_allocator_v2,
    disable_telemetry_events,
    enable_telemetry_events,
    get_all_providers,
    get_available_providers,
    get_build_info,
    get_device,
    get_ep_devices,
    get_version_string,
    has_collective_ops,
    register_execution_provider_library,
    set_default_logger_severity,
    set_default_logger_verbosity,
    set_seed,
    unregister_execution_provider_library,
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
    ModelCompiler,
    OrtDevice,
    OrtValue,
    SparseTensor,
    copy_tensors,
)

__version__ = _native.version()
__author__ = "The Kiln developers"

from kiln.capi import onnxruntime_inference_collection, onnxruntime_pybind11_state  # noqa: E402,F401


def preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):
    """onnxruntime's preloading of the CUDA 12.x and cuDNN 9.x libraries (and, on Windows, the
    MSVC runtime) for its CUDA provider. Kiln is built without CUDA, so, as onnxruntime's CPU
    package, asking for CUDA or cuDNN prints a warning and loads nothing; with cuda=False and
    cudnn=False it does nothing on Linux. Returns None."""
    import platform

    if platform.system() not in ["Windows", "Linux"]:
        return
    if cuda or cudnn:
        print(
            "\033[33mWARNING: kiln is not built with CUDA 12.x support. "
            "Please install a version that supports CUDA 12.x, or call preload_dlls with cuda=False and "
            "cudnn=False.\033[0m"
        )
        return
