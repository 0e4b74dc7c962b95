"""onnxruntime's enums and the element-type names, shared by the modules of ``kiln.capi``."""

import enum

import numpy as np

from ._errors import InvalidArgument

# ---- Enums ---------------------------------------------------------------------------------------


class GraphOptimizationLevel(enum.IntEnum):
    """How much a session rewrites the graph (Kiln runs its levels 0-3; ORT_ENABLE_ALL is 3)."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """Sequential or parallel execution of independent branches."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class ExecutionOrder(enum.IntEnum):
    """The order nodes run in (Kiln always runs its planner's topological order)."""

    DEFAULT = 0
    PRIORITY_BASED = 1
    MEMORY_EFFICIENT = 2


class OrtMemType(enum.IntEnum):
    """Which memory of a device (KilnMemType)."""

    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


class OrtAllocatorType(enum.IntEnum):
    """How an allocator manages memory (KilnAllocatorType)."""

    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1


class OrtDeviceMemoryType(enum.IntEnum):
    """A device's memory kinds."""

    DEFAULT = 0
    HOST_ACCESSIBLE = 5


class OrtHardwareDeviceType(enum.IntEnum):
    """The kind of an OrtHardwareDevice (Kiln finds the CPU only)."""

    CPU = 0
    GPU = 1
    NPU = 2


class OrtExecutionProviderDevicePolicy(enum.IntEnum):
    """How SessionOptions.set_provider_selection_policy picks the devices a session runs on. With
    the CPU as the only device, every policy picks it (CPUExecutionProvider)."""

    DEFAULT = 0
    PREFER_CPU = 1
    PREFER_NPU = 2
    PREFER_GPU = 3
    MAX_PERFORMANCE = 4
    MAX_EFFICIENCY = 5
    MIN_OVERALL_POWER = 6


class OrtCompileApiFlags(enum.IntFlag):
    """ModelCompiler's flags, combined with |."""

    NONE = 0
    ERROR_IF_NO_NODES_COMPILED = 1
    ERROR_IF_OUTPUT_FILE_EXISTS = 2


class OrtSparseFormat(enum.IntEnum):
    """The formats of a SparseTensor."""

    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


# ---- Element types -------------------------------------------------------------------------------

# ONNX TensorProto element type -> the name in "tensor(...)".
_ONNX_TYPE_NAMES = {
    1: "float",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    8: "string",
    9: "bool",
    10: "float16",
    11: "double",
    12: "uint32",
    13: "uint64",
    14: "complex64",
    15: "complex128",
    16: "bfloat16",
    17: "float8e4m3fn",
    18: "float8e4m3fnuz",
    19: "float8e5m2",
    20: "float8e5m2fnuz",
    21: "uint4",
    22: "int4",
    23: "float4e2m1",
    24: "float8e8m0",
    25: "uint2",
    26: "int2",
}

_NUMPY_TO_ONNX = {
    np.dtype(np.float32): 1,
    np.dtype(np.uint8): 2,
    np.dtype(np.int8): 3,
    np.dtype(np.uint16): 4,
    np.dtype(np.int16): 5,
    np.dtype(np.int32): 6,
    np.dtype(np.int64): 7,
    np.dtype(np.object_): 8,
    np.dtype(np.bool_): 9,
    np.dtype(np.float16): 10,
    np.dtype(np.float64): 11,
    np.dtype(np.uint32): 12,
    np.dtype(np.uint64): 13,
    np.dtype(np.complex64): 14,
    np.dtype(np.complex128): 15,
}


def _onnx_type_of_numpy(dtype):
    """The ONNX element type of a numpy dtype or type (str_ and bytes_ are strings)."""
    dt = np.dtype(dtype)
    if dt.kind in "USO":
        return 8
    if dt in _NUMPY_TO_ONNX:
        return _NUMPY_TO_ONNX[dt]
    by_name = {
        "bfloat16": 16,
        "float8_e4m3fn": 17,
        "float8_e4m3fnuz": 18,
        "float8_e5m2": 19,
        "float8_e5m2fnuz": 20,
    }
    if dt.name in by_name:
        return by_name[dt.name]
    raise InvalidArgument(f"numpy dtype '{dt}' has no ONNX element type")


def _type_string(value_type, element_type):
    elem = _ONNX_TYPE_NAMES.get(element_type, "undefined")
    if value_type == 2:
        return f"seq(tensor({elem}))"
    if value_type == 4:
        return f"optional(tensor({elem}))"
    if value_type == 3:
        return "map"
    return f"tensor({elem})"


def _check_type(what, value, types, type_text):
    # bool is an int in Python; onnxruntime's native setters take it too.
    if not isinstance(value, types):
        raise TypeError(f"{what}: expected {type_text}, got {type(value).__name__} ({value!r})")
    return value
