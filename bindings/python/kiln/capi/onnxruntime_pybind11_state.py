"""The names onnxruntime's native module (``onnxruntime.capi.onnxruntime_pybind11_state``) has.

Programs import these from ``onnxruntime.capi._pybind_state`` (``C``) or from
``onnxruntime.capi.onnxruntime_pybind11_state``; with Kiln the same imports work under
``kiln.capi``. Here they are written in Python over Kiln's native module (``_kiln``), which is a
thin layer over the C ABI:

    >>> from kiln.capi import _pybind_state as C
    >>> so = C.SessionOptions()
    >>> so.graph_optimization_level = C.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    >>> C.get_available_providers()
    ['CPUExecutionProvider']
"""

import enum
import os
import threading
import warnings

import numpy as np

from . import _kiln
from ._errors import *  # noqa: F401,F403 - the exception classes are part of this module
from ._errors import BY_CODE, InvalidArgument, NotImplemented

_kiln.set_error_classes(dict(BY_CODE))

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


# ---- NodeArg, ModelMetadata ----------------------------------------------------------------------


class NodeArg:
    """An input or output of a model: its name, type ('tensor(float)', 'seq(tensor(int64))', ...)
    and shape (ints; a symbolic dimension's name as a str; None where the dimension is unknown).
    """

    __slots__ = ("name", "type", "shape")

    def __init__(self, name, type, shape):  # noqa: A002 - onnxruntime's name
        self.name = name
        self.type = type
        self.shape = shape

    @classmethod
    def _from_info(cls, info):
        name, value_type, element_type, dims, symbolic = info
        shape = []
        if value_type in (0, 1):
            for d, s in zip(dims, symbolic):
                shape.append(s if s else (d if d >= 0 else None))
        return cls(name, _type_string(value_type, element_type), shape)

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"

    __str__ = __repr__


class ModelMetadata:
    """The model's metadata: producer_name, graph_name, graph_description, domain, description,
    version and custom_metadata_map (ModelProto's fields and metadata_props)."""

    def __init__(self, fields):
        self.producer_name = fields["producer_name"]
        self.producer_version = fields["producer_version"]
        self.graph_name = fields["graph_name"]
        self.graph_description = fields["graph_description"]
        self.domain = fields["domain"]
        self.description = fields["description"]
        self.version = fields["version"]
        self.custom_metadata_map = dict(fields["custom_metadata_map"])

    def __repr__(self):
        return (
            f"ModelMetadata(producer_name={self.producer_name!r}, graph_name={self.graph_name!r},"
            f" domain={self.domain!r}, version={self.version})"
        )


# ---- Options -------------------------------------------------------------------------------------

# onnxruntime config keys Kiln accepts and what it does with them (anything else that starts
# with "kiln." goes to the C ABI, which checks it; other keys are kept and read back only).
_ORT_SESSION_KEYS_MAPPED = {}


class SessionOptions:
    """How a session is created. Every attribute reads back what was set; the options are copied
    into each session at creation, so later changes do not reach sessions already made."""

    def __init__(self):
        self._intra_op_num_threads = 0
        self._inter_op_num_threads = 0
        self._graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self._execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self._execution_order = ExecutionOrder.DEFAULT
        self._enable_profiling = False
        self._profile_file_prefix = "onnxruntime_profile_"
        self._log_severity_level = 2
        self._log_verbosity_level = 0
        self._logid = ""
        self._optimized_model_filepath = ""
        self._enable_cpu_mem_arena = True
        self._enable_mem_pattern = True
        self._enable_mem_reuse = True
        self._use_deterministic_compute = False
        self._use_per_session_threads = True
        self._config = {}
        self._free_dims_by_name = {}
        self._free_dims_by_denotation = {}
        self._initializers = {}

    def _int_attr(name, doc, minimum=None):  # noqa: N805 - a property factory used below
        def get(self):
            return getattr(self, "_" + name)

        def set_(self, value):
            _check_type(f"SessionOptions.{name}", value, int, "an int")
            if minimum is not None and value < minimum:
                raise InvalidArgument(f"SessionOptions.{name}: {value} is below {minimum}")
            setattr(self, "_" + name, int(value))

        return property(get, set_, doc=doc)

    def _bool_attr(name, doc):  # noqa: N805
        def get(self):
            return getattr(self, "_" + name)

        def set_(self, value):
            _check_type(f"SessionOptions.{name}", value, (bool, int), "a bool")
            setattr(self, "_" + name, bool(value))

        return property(get, set_, doc=doc)

    def _str_attr(name, doc):  # noqa: N805
        def get(self):
            return getattr(self, "_" + name)

        def set_(self, value):
            _check_type(f"SessionOptions.{name}", value, str, "a str")
            setattr(self, "_" + name, value)

        return property(get, set_, doc=doc)

    intra_op_num_threads = _int_attr(
        "intra_op_num_threads", "Threads inside each operator (0: one per core).", 0
    )
    inter_op_num_threads = _int_attr(
        "inter_op_num_threads",
        "Threads for running independent nodes at once in ORT_PARALLEL mode (0: default).",
        0,
    )
    log_severity_level = _int_attr(
        "log_severity_level", "Least severity logged: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal."
    )
    log_verbosity_level = _int_attr(
        "log_verbosity_level", "Verbose-log detail (read back; Kiln has one verbose level)."
    )
    enable_profiling = _bool_attr(
        "enable_profiling", "Record each node's time; end_profiling() writes a Chrome trace JSON."
    )
    enable_cpu_mem_arena = _bool_attr(
        "enable_cpu_mem_arena", "Keep freed buffers for later runs (kiln.arena.enable)."
    )
    enable_mem_pattern = _bool_attr(
        "enable_mem_pattern", "Plan memory from the first run's shapes (Kiln always does)."
    )
    enable_mem_reuse = _bool_attr(
        "enable_mem_reuse", "Reuse buffers within a run (Kiln's planner always does)."
    )
    use_deterministic_compute = _bool_attr(
        "use_deterministic_compute", "Deterministic kernels (Kiln's CPU kernels always are)."
    )
    use_per_session_threads = _bool_attr(
        "use_per_session_threads", "Each session has its own threads (Kiln's always do)."
    )
    profile_file_prefix = _str_attr("profile_file_prefix", "Prefix of the profile's file name.")
    logid = _str_attr("logid", "The id the session's log messages carry.")
    optimized_model_filepath = _str_attr(
        "optimized_model_filepath", "Where to write the optimized graph as an .onnx file."
    )
    del _int_attr, _bool_attr, _str_attr

    @property
    def graph_optimization_level(self):
        """A GraphOptimizationLevel (default ORT_ENABLE_ALL)."""
        return self._graph_optimization_level

    @graph_optimization_level.setter
    def graph_optimization_level(self, value):
        _check_type("SessionOptions.graph_optimization_level", value, int, "a GraphOptimizationLevel")
        try:
            self._graph_optimization_level = GraphOptimizationLevel(value)
        except ValueError:
            raise InvalidArgument(
                f"SessionOptions.graph_optimization_level: {value} is not a GraphOptimizationLevel"
            ) from None

    @property
    def execution_mode(self):
        """ExecutionMode.ORT_SEQUENTIAL (default: nodes one after another) or ORT_PARALLEL
        (independent nodes at once on inter_op_num_threads threads; values are then allocated as
        they are made rather than placed in Kiln's arena)."""
        return self._execution_mode

    @execution_mode.setter
    def execution_mode(self, value):
        _check_type("SessionOptions.execution_mode", value, int, "an ExecutionMode")
        try:
            self._execution_mode = ExecutionMode(value)
        except ValueError:
            raise InvalidArgument(f"SessionOptions.execution_mode: {value} is not an ExecutionMode") from None

    @property
    def execution_order(self):
        """An ExecutionOrder (read back; Kiln runs its planner's order)."""
        return self._execution_order

    @execution_order.setter
    def execution_order(self, value):
        _check_type("SessionOptions.execution_order", value, int, "an ExecutionOrder")
        try:
            self._execution_order = ExecutionOrder(value)
        except ValueError:
            raise InvalidArgument(f"SessionOptions.execution_order: {value} is not an ExecutionOrder") from None

    def add_session_config_entry(self, key, value):
        """Sets a config entry. Keys starting with 'kiln.' are Kiln's (listed at the C ABI's
        AddSessionConfigEntry and checked when a session is made); other keys (onnxruntime's) are
        kept and read back."""
        _check_type("add_session_config_entry: key", key, str, "a str")
        _check_type("add_session_config_entry: value", value, str, "a str")
        self._config[key] = value

    def get_session_config_entry(self, key):
        """The value set for a config key; RuntimeError when it was never set (as onnxruntime)."""
        _check_type("get_session_config_entry: key", key, str, "a str")
        if key not in self._config:
            raise RuntimeError(f"SessionOptions does not have configuration with key: {key}")
        return self._config[key]

    def add_free_dimension_override_by_name(self, dim_name, dim_value):
        """Fixes a free dimension (an ONNX dim_param such as 'batch') to a value."""
        _check_type("add_free_dimension_override_by_name: dim_name", dim_name, str, "a str")
        _check_type("add_free_dimension_override_by_name: dim_value", dim_value, int, "an int")
        self._free_dims_by_name[dim_name] = int(dim_value)

    def add_free_dimension_override_by_denotation(self, dim_denotation, dim_value):
        """Fixes every dimension with an ONNX denotation (such as 'DATA_BATCH') to a value."""
        _check_type("add_free_dimension_override_by_denotation: dim_denotation", dim_denotation, str, "a str")
        _check_type("add_free_dimension_override_by_denotation: dim_value", dim_value, int, "an int")
        self._free_dims_by_denotation[dim_denotation] = int(dim_value)

    def add_initializer(self, name, ort_value):
        """Uses a caller's OrtValue (its memory shared, not copied) for the model's initializer
        of that name. The OrtValue must stay alive as long as sessions use it."""
        _check_type("add_initializer: name", name, str, "a str")
        self._initializers[name] = _c_value_of(ort_value, "add_initializer: ort_value")

    def add_external_initializers(self, names, ort_values):
        """add_initializer for each (name, OrtValue) pair."""
        names = list(names)
        values = list(ort_values)
        if len(names) != len(values):
            raise InvalidArgument(
                f"add_external_initializers: {len(names)} names and {len(values)} values"
            )
        for n, v in zip(names, values):
            self.add_initializer(n, v)

    def register_custom_ops_library(self, library_path):
        """Custom-operator libraries are not in Kiln's C ABI yet: raises NotImplemented."""
        _check_type("register_custom_ops_library: library_path", library_path, (str, os.PathLike), "a path")
        raise NotImplemented(
            "register_custom_ops_library: custom operators are not part of Kiln's C ABI yet"
        )

    def _native(self):
        """The C ABI's options for these values (KilnSessionOptions)."""
        o = _kiln.SessionOptions()
        o.set_intra_op_num_threads(self._intra_op_num_threads)
        o.set_inter_op_num_threads(self._inter_op_num_threads)
        o.set_execution_mode(int(self._execution_mode))
        level = int(self._graph_optimization_level)
        o.set_graph_optimization_level(3 if level > 3 else level)
        o.set_log_severity_level(self._log_severity_level)
        if self._logid:
            o.set_log_id(self._logid)
        if self._enable_profiling:
            o.enable_profiling(self._profile_file_prefix or "onnxruntime_profile_")
        for name, value in self._free_dims_by_name.items():
            o.add_free_dimension_override_by_name(name, value)
        arena = self._enable_cpu_mem_arena and self._enable_mem_reuse
        if not arena and "kiln.arena.enable" not in self._config:
            o.add_config_entry("kiln.arena.enable", "0")
        for key, value in self._config.items():
            if key.startswith("kiln."):
                o.add_config_entry(key, value)
        for denotation, value in self._free_dims_by_denotation.items():
            o.add_free_dimension_override_by_denotation(denotation, value)
        for name, value in self._initializers.items():
            o.add_initializer(name, value)
        if self._optimized_model_filepath:
            o.set_optimized_model_filepath(self._optimized_model_filepath)
        return o


_default_options = SessionOptions()


def get_default_session_options():
    """The defaults a session gets when given no options."""
    return _default_options


# onnxruntime run config keys Kiln's C ABI acts on (RunOptionsAddConfigEntry).
_RUN_KEYS_KILN_ACTS_ON = {"memory.enable_memory_arena_shrinkage"}


class RunOptions:
    """Options for one or more runs: log severity and id, a terminate flag (set it from another
    thread while run is in flight and that run raises Terminated), and run config entries."""

    def __init__(self):
        self._native = _kiln.RunOptions()
        self._log_severity_level = 2
        self._log_verbosity_level = 0
        self._logid = ""
        self._terminate = False
        self._only_execute_path_to_fetches = False
        self._config = {}

    @property
    def log_severity_level(self):
        """Least severity the run logs (0 verbose ... 4 fatal; default 2)."""
        return self._log_severity_level

    @log_severity_level.setter
    def log_severity_level(self, value):
        _check_type("RunOptions.log_severity_level", value, int, "an int")
        self._native.set_log_severity_level(value)
        self._log_severity_level = int(value)

    @property
    def log_verbosity_level(self):
        """Verbose-log detail (read back)."""
        return self._log_verbosity_level

    @log_verbosity_level.setter
    def log_verbosity_level(self, value):
        _check_type("RunOptions.log_verbosity_level", value, int, "an int")
        self._log_verbosity_level = int(value)

    @property
    def logid(self):
        """The tag the run's log messages carry."""
        return self._logid

    @logid.setter
    def logid(self, value):
        _check_type("RunOptions.logid", value, str, "a str")
        self._native.set_tag(value)
        self._logid = value

    @property
    def terminate(self):
        """Set to True to stop every run using these options (they raise Terminated)."""
        return self._terminate

    @terminate.setter
    def terminate(self, value):
        _check_type("RunOptions.terminate", value, (bool, int), "a bool")
        if value:
            self._native.set_terminate()
        else:
            self._native.unset_terminate()
        self._terminate = bool(value)

    @property
    def only_execute_path_to_fetches(self):
        """Read back; Kiln runs the whole graph (outputs are the same)."""
        return self._only_execute_path_to_fetches

    @only_execute_path_to_fetches.setter
    def only_execute_path_to_fetches(self, value):
        _check_type("RunOptions.only_execute_path_to_fetches", value, (bool, int), "a bool")
        self._only_execute_path_to_fetches = bool(value)

    def add_run_config_entry(self, key, value):
        """Sets a run config entry (read back with get_run_config_entry). Kiln acts on
        'kiln.run.check_finite' ('0'/'1': check every node's outputs for NaN and infinity) and
        'memory.enable_memory_arena_shrinkage' ('cpu:0': the session's arena gives its kept
        blocks back after the run); other 'kiln.' keys are refused by the C ABI; other
        onnxruntime keys are kept and read back."""
        _check_type("add_run_config_entry: key", key, str, "a str")
        _check_type("add_run_config_entry: value", value, str, "a str")
        if key.startswith("kiln.") or key in _RUN_KEYS_KILN_ACTS_ON:
            self._native.add_config_entry(key, value)
        self._config[key] = value

    def get_run_config_entry(self, key):
        """The value set for a run config key; RuntimeError when it was never set."""
        _check_type("get_run_config_entry: key", key, str, "a str")
        if key not in self._config:
            raise RuntimeError(f"RunOptions does not have configuration with key: {key}")
        return self._config[key]

    def add_active_adapter(self, adapter):
        """LoRA adapters are not supported by Kiln yet: raises NotImplemented."""
        raise NotImplemented("RunOptions.add_active_adapter: LoRA adapters are not supported yet")


# ---- Devices and memory --------------------------------------------------------------------------


class OrtDevice:
    """A device: type (cpu() is 0), memory type and id. Kiln runs on the CPU."""

    def __init__(self, device_type, memory_type, device_id, vendor_id=0):
        for what, v in (("device_type", device_type), ("memory_type", memory_type), ("device_id", device_id)):
            _check_type(f"OrtDevice: {what}", v, int, "an int")
        self._type = int(device_type)
        self._mem = int(memory_type)
        self._id = int(device_id)
        self._vendor = int(vendor_id)

    @staticmethod
    def cpu():
        return 0

    @staticmethod
    def cuda():
        return 1

    @staticmethod
    def fpga():
        return 2

    @staticmethod
    def npu():
        return 3

    @staticmethod
    def dml():
        return 4

    @staticmethod
    def default_memory():
        return 0

    def device_id(self):
        return self._id

    def device_type(self):
        return self._type

    def mem_type(self):
        return self._mem

    def vendor_id(self):
        return self._vendor

    def __eq__(self, other):
        return isinstance(other, OrtDevice) and (self._type, self._mem, self._id) == (
            other._type,
            other._mem,
            other._id,
        )

    def __hash__(self):
        return hash((self._type, self._mem, self._id))


class OrtMemoryInfo:
    """Where memory lives (name 'Cpu', allocator type, device id, memory type)."""

    def __init__(self, name, alloc_type, id, mem_type):  # noqa: A002 - onnxruntime's name
        _check_type("OrtMemoryInfo: name", name, str, "a str")
        _check_type("OrtMemoryInfo: id", id, int, "an int")
        self.name = name
        self.alloc_type = OrtAllocatorType(alloc_type)
        self.id = int(id)
        self.mem_type = OrtMemType(mem_type)

    def __eq__(self, other):
        return isinstance(other, OrtMemoryInfo) and (self.name, self.id, self.mem_type) == (
            other.name,
            other.id,
            other.mem_type,
        )

    def __hash__(self):
        return hash((self.name, self.id, int(self.mem_type)))


class OrtArenaCfg:
    """An arena's settings, as onnxruntime's. Kiln's sessions manage their own arenas; the
    settings are read back."""

    def __init__(self, *args):
        keys = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes", "max_dead_bytes_per_chunk")
        self.max_mem = 0
        self.arena_extend_strategy = -1
        self.initial_chunk_size_bytes = -1
        self.max_dead_bytes_per_chunk = -1
        self.initial_growth_chunk_size_bytes = -1
        self.max_power_of_two_extend_bytes = -1
        if len(args) == 1 and isinstance(args[0], dict):
            for k, v in args[0].items():
                if not hasattr(self, k):
                    raise InvalidArgument(f"OrtArenaCfg: unknown key '{k}'")
                _check_type(f"OrtArenaCfg: {k}", v, int, "an int")
                setattr(self, k, int(v))
        elif len(args) == 4:
            for k, v in zip(keys, args):
                _check_type(f"OrtArenaCfg: {k}", v, int, "an int")
                setattr(self, k, int(v))
        elif args:
            raise TypeError("OrtArenaCfg: takes a dict or four ints")


def create_and_register_allocator(mem_info, arena_cfg):
    """Accepted: Kiln's CPU allocator is already shared by every session of the process."""
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("create_and_register_allocator: mem_info must be an OrtMemoryInfo")
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError("create_and_register_allocator: arena_cfg must be an OrtArenaCfg or None")
    if mem_info.name != "Cpu":
        raise InvalidArgument(f"create_and_register_allocator: Kiln has no '{mem_info.name}' device")


# ---- Values --------------------------------------------------------------------------------------


def _c_value_of(v, what):
    """The native Value of a C-level or Python-level OrtValue."""
    if isinstance(v, OrtValue):
        return v._value
    inner = getattr(v, "_ortvalue", None)
    if isinstance(inner, OrtValue):
        return inner._value
    raise TypeError(f"{what}: expected an OrtValue, got {type(v).__name__}")


class OrtValue:
    """The C-level value (onnxruntime's ``C.OrtValue``): a tensor, a sequence or an optional."""

    __slots__ = ("_value", "__weakref__")

    def __init__(self, value):
        if not isinstance(value, _kiln.Value):
            raise TypeError("OrtValue: use ortvalue_from_numpy or ortvalue_from_shape_and_type")
        self._value = value

    @staticmethod
    def ortvalue_from_numpy(array, device=None):
        """Wraps a numpy array without a copy when it is C-contiguous (the value keeps the array
        alive); other arrays and array-likes are copied."""
        return OrtValue(_kiln.Value.from_object(array, 0))

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(array, onnx_element_type):
        """As ortvalue_from_numpy, with the ONNX type given (bfloat16 from uint16 bits, ...)."""
        return OrtValue(_kiln.Value.from_object(array, int(onnx_element_type)))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device=None):
        """A zero-filled tensor Kiln allocates; element_type is a numpy type or an ONNX int."""
        shape = [int(_check_type("ortvalue_from_shape_and_type: shape", d, int, "ints")) for d in shape]
        t = element_type if isinstance(element_type, int) and not isinstance(element_type, bool) else _onnx_type_of_numpy(element_type)
        return OrtValue(_kiln.Value.from_shape_and_type(shape, t))

    def numpy(self):
        """A numpy array over the tensor's memory (no copy); a list for a sequence; None or the
        content for an optional."""
        return self._value.numpy()

    def data_ptr(self):
        """The address of the tensor's data."""
        return self._value.data_ptr()

    def shape(self):
        """The tensor's dimensions."""
        return list(self._value.shape())

    def element_type(self):
        """The ONNX element type (an int, TensorProto.DataType)."""
        return self._value.element_type()

    def data_type(self):
        """The type as a string: 'tensor(float)', 'seq(tensor(int64))', 'optional(tensor(...))'."""
        return _type_string(self._value.value_type(), self._value.element_type())

    def device_name(self):
        """'cpu'."""
        return "cpu"

    def is_tensor(self):
        return self._value.value_type() == 1

    def is_tensor_sequence(self):
        return self._value.value_type() == 2

    def is_sparse_tensor(self):
        return False

    def has_value(self):
        """False only for an empty optional."""
        return self._value.has_value()


class OrtValueVector(list):
    """A list of OrtValues (onnxruntime's C.OrtValueVector)."""

    def push_back(self, value):
        if not isinstance(value, OrtValue):
            raise TypeError("OrtValueVector.push_back: expected an OrtValue")
        self.append(value)

    def bool_tensor_indices(self):
        return [i for i, v in enumerate(self) if v.is_tensor() and v.element_type() == 9]


# ---- Sparse tensors ------------------------------------------------------------------------------


class SparseTensor:
    """A sparse tensor in COO or CSR form over numpy arrays (onnxruntime's C.SparseTensor).

    Kiln's kernels are dense: a SparseTensor can be built and read back, and a session refuses
    it as an input with NotImplemented (no ONNX operator Kiln runs takes sparse tensors).
    """

    def __init__(self, fmt, dense_shape, values, indices, outer=None):
        self._format = fmt
        self._dense_shape = [int(d) for d in dense_shape]
        self._values = values
        self._indices = indices
        self._outer = outer

    @staticmethod
    def sparse_coo_from_numpy(dense_shape, values, coo_indices, device=None):
        values = np.asarray(values)
        coo_indices = np.asarray(coo_indices, dtype=np.int64)
        if coo_indices.ndim not in (1, 2) or (coo_indices.ndim == 2 and coo_indices.shape[0] != values.size):
            raise InvalidArgument("sparse_coo_from_numpy: coo_indices must be [nnz] or [nnz, rank]")
        if coo_indices.ndim == 1 and coo_indices.size != values.size:
            raise InvalidArgument("sparse_coo_from_numpy: one linear index per value")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_COO, dense_shape, values, coo_indices)

    @staticmethod
    def sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices, device=None):
        values = np.asarray(values)
        inner = np.asarray(inner_indices, dtype=np.int64)
        outer = np.asarray(outer_indices, dtype=np.int64)
        if len(dense_shape) != 2:
            raise InvalidArgument("sparse_csr_from_numpy: CSR needs a 2-D dense shape")
        if inner.size != values.size or outer.size != int(dense_shape[0]) + 1:
            raise InvalidArgument("sparse_csr_from_numpy: inner indices per value, rows + 1 outer")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_CSRC, dense_shape, values, inner, outer)

    def values(self):
        return self._values

    def format(self):
        return self._format

    def dense_shape(self):
        return list(self._dense_shape)

    def data_type(self):
        return f"sparse_tensor({_ONNX_TYPE_NAMES[_onnx_type_of_numpy(self._values.dtype)]})"

    def device_name(self):
        return "cpu"

    def as_coo_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_COO:
            raise InvalidArgument("as_coo_view: the tensor is not in COO format")
        return _SparseView(indices=self._indices)

    def as_csrc_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_CSRC:
            raise InvalidArgument("as_csrc_view: the tensor is not in CSR format")
        return _SparseView(inner=self._indices, outer=self._outer)

    def as_blocksparse_view(self):
        raise InvalidArgument("as_blocksparse_view: the tensor is not block-sparse")

    def to_cuda(self, device):
        raise InvalidArgument("to_cuda: Kiln has no CUDA device in this build")

    def to_dense(self):
        """The dense numpy array (Kiln's addition)."""
        dense = np.zeros(self._dense_shape, dtype=self._values.dtype)
        if self._format == OrtSparseFormat.ORT_SPARSE_COO:
            if self._indices.ndim == 1:
                dense.reshape(-1)[self._indices] = self._values
            else:
                dense[tuple(self._indices.T)] = self._values
        else:
            for r in range(self._dense_shape[0]):
                a, b = self._outer[r], self._outer[r + 1]
                dense[r, self._indices[a:b]] = self._values[a:b]
        return dense


class _SparseView:
    def __init__(self, indices=None, inner=None, outer=None):
        self._indices, self._inner, self._outer = indices, inner, outer

    def indices(self):
        return self._indices

    def inner(self):
        return self._inner

    def outer(self):
        return self._outer


# ---- LoRA ----------------------------------------------------------------------------------------


class LoraAdapter:
    """LoRA adapters are not supported by Kiln yet: loading one raises NotImplemented."""

    def Load(self, path):  # noqa: N802 - onnxruntime's name
        raise NotImplemented("LoraAdapter: LoRA adapters are not supported by Kiln yet")

    @staticmethod
    def create_from_file(path):
        raise NotImplemented("LoraAdapter: LoRA adapters are not supported by Kiln yet")


class AdapterFormat:
    """onnxruntime's adapter file format; not supported by Kiln yet."""

    @staticmethod
    def read_adapter(path):
        raise NotImplemented("AdapterFormat: LoRA adapters are not supported by Kiln yet")

    def export_adapter(self, path):
        raise NotImplemented("AdapterFormat: LoRA adapters are not supported by Kiln yet")


# ---- Providers and the module's functions --------------------------------------------------------

_ALL_PROVIDERS = [
    "TensorrtExecutionProvider",
    "CUDAExecutionProvider",
    "MIGraphXExecutionProvider",
    "ROCMExecutionProvider",
    "OpenVINOExecutionProvider",
    "DnnlExecutionProvider",
    "TvmExecutionProvider",
    "VitisAIExecutionProvider",
    "QNNExecutionProvider",
    "NnapiExecutionProvider",
    "VSINPUExecutionProvider",
    "JsExecutionProvider",
    "CoreMLExecutionProvider",
    "ArmNNExecutionProvider",
    "ACLExecutionProvider",
    "DmlExecutionProvider",
    "RknpuExecutionProvider",
    "WebNNExecutionProvider",
    "WebGpuExecutionProvider",
    "XnnpackExecutionProvider",
    "CANNExecutionProvider",
    "AzureExecutionProvider",
    "CPUExecutionProvider",
]


def get_all_providers():
    """Every provider name onnxruntime knows (a program may ask for any of them)."""
    return list(_ALL_PROVIDERS)


def get_available_providers():
    """The providers this build runs: ['CPUExecutionProvider']."""
    return ["CPUExecutionProvider"]


def get_device():
    """'CPU'."""
    return "CPU"


def get_version_string():
    """Kiln's version, e.g. '0.1.0'."""
    return _kiln.version()


def get_build_info():
    """A line describing this build."""
    return f"Kiln {_kiln.version()}, C ABI version {_kiln.api_version()}, providers: CPUExecutionProvider"


def set_default_logger_severity(severity):
    """Least severity logged by sessions created from now on (0 verbose ... 4 fatal)."""
    _check_type("set_default_logger_severity: severity", severity, int, "an int")
    _kiln.set_default_logger_severity(int(severity))


_verbosity = [0]


def set_default_logger_verbosity(verbosity):
    """Verbose-log detail (kept; Kiln has one verbose level)."""
    _check_type("set_default_logger_verbosity: verbosity", verbosity, int, "an int")
    _verbosity[0] = int(verbosity)


def enable_telemetry_events():
    """Accepted; Kiln sends no telemetry."""


def disable_telemetry_events():
    """Accepted; Kiln sends no telemetry."""


def set_seed(seed):
    """Accepted: Kiln's random operators take their seed from the model."""
    _check_type("set_seed: seed", seed, int, "an int")


_lock = threading.Lock()


def _warn(message):
    warnings.warn(message, stacklevel=3)


# ---- The C-level session and binding -------------------------------------------------------------


class InferenceSession:
    """onnxruntime's C-level session (``C.InferenceSession(sess_options, model, is_path,
    read_config_from_model)``); programs use ``kiln.InferenceSession``, which wraps it."""

    def __init__(self, sess_options, model, is_path, read_config_from_model=False):
        if not isinstance(sess_options, SessionOptions):
            raise TypeError("InferenceSession: sess_options must be a SessionOptions")
        if is_path:
            _check_type("InferenceSession: path", model, str, "a str")
        elif not isinstance(model, bytes):
            raise TypeError(f"InferenceSession: model bytes expected, got {type(model).__name__}")
        self._options = sess_options
        self._native = _kiln.Session(model, sess_options._native())
        self.inputs_meta = [NodeArg._from_info(i) for i in self._native.inputs()]
        self.outputs_meta = [NodeArg._from_info(o) for o in self._native.outputs()]
        self.overridable_initializers = [NodeArg._from_info(i) for i in self._native.overridable_initializers()]
        self.model_meta = ModelMetadata(self._native.metadata())
        self.session_options = sess_options

    def run(self, output_names, input_feed, run_options=None):
        """Runs; returns a list of numpy arrays (lists for sequences, None for empty optionals)."""
        return self._native.run(output_names, input_feed, _native_run_options(run_options), False)

    def run_with_ort_values(self, input_feed, output_names, run_options=None):
        """Runs with OrtValues in, OrtValues out."""
        feed = {k: _c_value_of(v, f"run_with_ort_values: input '{k}'") for k, v in input_feed.items()}
        values = self._native.run(output_names, feed, _native_run_options(run_options), True)
        return OrtValueVector(OrtValue(v) for v in values)

    def end_profiling(self):
        """Writes the profile and returns its file name."""
        return self._native.end_profiling()

    def get_providers(self):
        return ["CPUExecutionProvider"]

    def get_provider_options(self):
        return {"CPUExecutionProvider": {}}


def _native_run_options(run_options):
    if run_options is None:
        return None
    if not isinstance(run_options, RunOptions):
        raise TypeError(f"run_options must be a RunOptions or None, got {type(run_options).__name__}")
    return run_options._native


class SessionIOBinding:
    """onnxruntime's C-level IO binding, over the C ABI's KilnIoBinding: inputs and outputs bound
    once by name (checked when bound) and run many times.

    Bound inputs are OrtValues; an output is bound to a caller's OrtValue (written in place by
    each run, so with every output bound a run of a static-shape model allocates nothing) or left
    to Kiln (each run makes it).
    """

    def __init__(self, session):
        if not isinstance(session, InferenceSession):
            raise TypeError("SessionIOBinding: expected a C-level InferenceSession")
        self._session = session
        self._native = _kiln.IoBinding(session._native)

    def bind_input(self, name, value):
        _check_type("bind_input: name", name, str, "a str")
        self._native.bind_input(name, _c_value_of(value, "bind_input: value"))

    def bind_output(self, name, value=None):
        _check_type("bind_output: name", name, str, "a str")
        self._native.bind_output(name, None if value is None else _c_value_of(value, "bind_output: value"))

    def clear_binding_inputs(self):
        self._native.clear_inputs()

    def clear_binding_outputs(self):
        self._native.clear_outputs()

    def synchronize_inputs(self):
        """Nothing to wait for on the CPU (the C ABI's SynchronizeBoundInputs)."""
        self._native.synchronize_inputs()

    def synchronize_outputs(self):
        """Nothing to wait for on the CPU (the C ABI's SynchronizeBoundOutputs)."""
        self._native.synchronize_outputs()

    def run(self, run_options=None):
        if not self._native.output_names():
            raise InvalidArgument("run_with_iobinding: no output is bound")
        self._native.run(self._session._native, _native_run_options(run_options))

    def get_outputs(self):
        """The last run's outputs as OrtValues (InvalidArgument before a run succeeded)."""
        return OrtValueVector(OrtValue(v) for v in self._native.outputs())

    def get_output_names(self):
        return self._native.output_names()
