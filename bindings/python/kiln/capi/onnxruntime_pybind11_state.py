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

import os
import threading
import warnings

from . import _kiln
from ._errors import *  # noqa: F401,F403 - the exception classes are part of this module
from ._errors import BY_CODE, InvalidArgument, NotImplemented
from ._types import (  # noqa: F401 - onnxruntime's names, part of this module
    ExecutionMode,
    ExecutionOrder,
    GraphOptimizationLevel,
    OrtAllocatorType,
    OrtDeviceMemoryType,
    OrtMemType,
    OrtSparseFormat,
    _check_type,
    _onnx_type_of_numpy,
    _type_string,
)
from ._values import (  # noqa: F401 - onnxruntime's names, part of this module
    AdapterFormat,
    LoraAdapter,
    OrtArenaCfg,
    OrtDevice,
    OrtMemoryInfo,
    OrtValue,
    OrtValueVector,
    SparseTensor,
    _c_value_of,
    create_and_register_allocator,
)

_kiln.set_error_classes(dict(BY_CODE))

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
        # Custom-op libraries: registered at once into native options of their own (which keep
        # them loaded and report a bad library where it is given), and again into each
        # session's.
        self._custom_ops = None
        self._custom_op_libraries = []

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
        """Loads a custom-operator library (a shared library exporting KilnRegisterCustomOps,
        include/kiln/kiln_custom_op.h) and registers its ops for the sessions made with these
        options. It is opened now, so a missing library or a failing registration raises here
        (NoSuchFile, Fail, InvalidArgument); a path without a slash is searched for as dlopen
        searches. The library stays loaded while these options or a session made with them
        lives."""
        _check_type("register_custom_ops_library: library_path", library_path, (str, os.PathLike), "a path")
        path = os.fspath(library_path)
        if not isinstance(path, str):
            raise InvalidArgument("register_custom_ops_library: library_path must be a str path")
        if self._custom_ops is None:
            self._custom_ops = _kiln.SessionOptions()
        self._custom_ops.register_custom_ops_library(path)
        self._custom_op_libraries.append(path)

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
        for path in self._custom_op_libraries:
            o.register_custom_ops_library(path)
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
    """Kiln's version, e.g. '1.0.0'."""
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
    read_config_from_model)``, where Kiln also takes a native ``_kiln.Model`` for ``model``);
    programs use ``kiln.InferenceSession``, which wraps it."""

    def __init__(self, sess_options, model, is_path, read_config_from_model=False):
        if not isinstance(sess_options, SessionOptions):
            raise TypeError("InferenceSession: sess_options must be a SessionOptions")
        if is_path:
            _check_type("InferenceSession: path", model, str, "a str")
        elif not isinstance(model, (bytes, _kiln.Model)):
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
