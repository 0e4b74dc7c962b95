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

import ctypes
import os
import tempfile
import threading
import warnings

from . import _kiln
from ._errors import *  # noqa: F401,F403 - the exception classes are part of this module
from ._devices import (  # noqa: F401 - onnxruntime's names, part of this module
    OrtEpDevice,
    OrtHardwareDevice,
    OrtSyncStream,
    _check_options,
    copy_tensors,
    create_and_register_allocator_v2,
    get_ep_devices,
    has_collective_ops,
    register_execution_provider_library,
    unregister_execution_provider_library,
)
from ._errors import BY_CODE, Fail, InvalidArgument, ModelLoadCanceled, NoSuchFile, NotImplemented
from ._types import (  # noqa: F401 - onnxruntime's names, part of this module
    ExecutionMode,
    ExecutionOrder,
    GraphOptimizationLevel,
    OrtAllocatorType,
    OrtCompileApiFlags,
    OrtDeviceMemoryType,
    OrtExecutionProviderDevicePolicy,
    OrtHardwareDeviceType,
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
        # Execution providers set on the options (add_provider, add_provider_for_devices): their
        # names and options, in order; and the provider selection policy (None: not set).
        self._ep_factories = []
        self._ep_selection_policy = None
        # set_load_cancellation_flag's flag (a one-element list, shared with the sessions being
        # made from these options, so setting it from another thread reaches them).
        self._load_cancellation = [False]

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

    def add_provider(self, provider_name, provider_options):
        """Adds an explicit execution provider (the C API's SessionOptionsAppendExecutionProvider):
        sessions made with these options and no `providers` argument run on it.
        'CPUExecutionProvider' is added; another provider onnxruntime knows is not in Kiln, as
        in a CPU-only onnxruntime build: InvalidArgument; an unknown name: RuntimeError, unless
        its options give a 'shared_lib_path', which is opened as onnxruntime opens it (a library
        that cannot be loaded: RuntimeError; one without the entry point: Fail; an onnxruntime
        provider library, which Kiln cannot run: Fail)."""
        _check_type("add_provider: provider_name", provider_name, str, "a str")
        options = _check_options("add_provider: provider_options", provider_options)
        if provider_name == "CPUExecutionProvider":
            self._ep_factories.append((provider_name, options))
            return
        if provider_name in _ALL_PROVIDERS:
            raise InvalidArgument(
                f"Failed to add provider of type '{provider_name}' to SessionOptions. "
                "Provider configuration is not supported."
            )
        if "shared_lib_path" not in options:
            raise RuntimeError(f"Unknown Provider Type: {provider_name}")
        path = options["shared_lib_path"]
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        except OSError as e:
            raise RuntimeError(f"Failed to load library {path} with error: {e}") from None
        entry = options.get("provider_factory_entry_point", "GetProvider")
        try:
            getattr(lib, entry)
        except AttributeError as e:
            raise Fail(f"Failed to get symbol {entry} with error: {e}") from None
        raise Fail(
            f"{path} is an onnxruntime execution provider library ({entry}), which Kiln cannot "
            "run (it is built against onnxruntime); Kiln's only execution provider is "
            "CPUExecutionProvider"
        )

    def add_provider_for_devices(self, ep_devices, provider_options):
        """Adds the execution provider that is responsible for the selected OrtEpDevice instances
        (from get_ep_devices()); all of them must refer to the same execution provider. The
        options are also set as session config entries 'ep.<provider name, lowercase>.<key>', as
        onnxruntime does (after the devices' own ep_options)."""
        try:
            devices = list(ep_devices)
        except TypeError:
            raise TypeError("add_provider_for_devices: ep_devices must be a sequence of OrtEpDevice") from None
        for d in devices:
            if not isinstance(d, OrtEpDevice):
                raise TypeError(f"add_provider_for_devices: expected OrtEpDevice values, got {type(d).__name__}")
        options = _check_options("add_provider_for_devices: provider_options", provider_options)
        if not devices:
            raise InvalidArgument("Must provide one or more OrtEpDevice instances.")
        first = devices[0]
        if any(d.ep_name != first.ep_name or d._factory != first._factory for d in devices[1:]):
            raise InvalidArgument("All OrtEpDevice values in ep_devices must have the same execution provider.")
        prefix = "ep." + first.ep_name.lower() + "."
        for d in devices:
            for key, value in d.ep_options.items():
                self._config[prefix + key] = value
        for key, value in options.items():
            self._config[prefix + key] = value
        self._ep_factories.append((first._factory, {}))

    def set_provider_selection_policy(self, policy):
        """Sets the execution provider selection policy (an OrtExecutionProviderDevicePolicy) for
        sessions made with these options and no explicit providers. With the CPU as the only
        device, every policy selects CPUExecutionProvider."""
        if not isinstance(policy, OrtExecutionProviderDevicePolicy):
            raise TypeError(
                "set_provider_selection_policy: expected an OrtExecutionProviderDevicePolicy, "
                f"got {type(policy).__name__}"
            )
        self._ep_selection_policy = policy

    def has_providers(self):
        """True when these options have providers (add_provider, add_provider_for_devices) or a
        selection policy that sessions will run on."""
        return bool(self._ep_factories) or self._ep_selection_policy is not None

    def set_load_cancellation_flag(self, value):
        """Request inference session load cancellation: while set, making a session (or
        compiling a model) with these options raises ModelLoadCanceled, also one already being
        made on another thread (Kiln notices when its C ABI call returns, and drops the
        session). Set it back to False to make sessions again."""
        _check_type("set_load_cancellation_flag: value", value, bool, "a bool")
        self._load_cancellation[0] = value

    def _arena(self):
        """Whether sessions made with these options keep Kiln's arena."""
        if "kiln.arena.enable" in self._config:
            return self._config["kiln.arena.enable"] == "1"
        return self._enable_cpu_mem_arena and self._enable_mem_reuse

    def _check_not_canceled(self):
        if self._load_cancellation[0]:
            raise ModelLoadCanceled("Session initialization canceled due to user request.")

    def _session_providers(self):
        """The providers and their options a session made with these options runs on, when
        has_providers(): each provider once (onnxruntime refuses to register one twice), or the
        selection policy's choice, CPUExecutionProvider."""
        if not self._ep_factories:
            return ["CPUExecutionProvider"], [{}]
        names, options = [], []
        for name, opts in self._ep_factories:
            if name in names:
                raise Fail(f"Provider {name} has already been registered.")
            names.append(name)
            options.append(dict(opts))
        return names, options

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
        if not self._enable_cpu_mem_arena or not self._enable_mem_reuse:
            if "kiln.arena.enable" not in self._config:
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
        sess_options._check_not_canceled()
        native = _kiln.Session(model, sess_options._native())
        if sess_options._load_cancellation[0]:  # set while the session was being made
            native.close()
            sess_options._check_not_canceled()
        self._native = native
        self.inputs_meta = [NodeArg._from_info(i) for i in self._native.inputs()]
        self.outputs_meta = [NodeArg._from_info(o) for o in self._native.outputs()]
        self.overridable_initializers = [NodeArg._from_info(i) for i in self._native.overridable_initializers()]
        self.model_meta = ModelMetadata(self._native.metadata())
        self.session_options = sess_options
        # Where inputs and outputs live (onnxruntime 1.23): the memory of the session's CPU
        # allocator, Kiln's arena unless it is turned off.
        info = OrtMemoryInfo(
            "Cpu",
            OrtAllocatorType.ORT_ARENA_ALLOCATOR if sess_options._arena() else OrtAllocatorType.ORT_DEVICE_ALLOCATOR,
            0,
            OrtMemType.DEFAULT,
        )
        self.input_meminfos = [info] * len(self.inputs_meta)
        self.output_meminfos = [info] * len(self.outputs_meta)
        self.input_epdevices = self._input_epdevices()

    def _input_epdevices(self):
        """The OrtEpDevice of the provider each input is consumed on: the CPU provider's device,
        or None for an input no node reads (as onnxruntime)."""
        devices = [d for d in get_ep_devices() if d.ep_name == "CPUExecutionProvider"]
        cpu = devices[0] if devices else None
        graph = self._native.graph(True)
        consumed = {v.name() for v in graph.inputs() if v.consumers()}
        return [cpu if i.name in consumed else None for i in self.inputs_meta]

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


# ---- The compile API (onnxruntime 1.22+) ---------------------------------------------------------

_NO_NODES_COMPILED = (
    "Unable to compile any nodes. Check that the session EPs support compilation and can execute at "
    "least one subgraph in the model."
)


class ModelCompiler:
    """onnxruntime's C-level model compiler (``C.ModelCompiler(sess_options, path_or_bytes,
    is_path, embed_compiled_data_into_model, external_initializers_file_path,
    external_initializers_size_threshold, flags, graph_optimization_level,
    get_initializer_location_func)``); programs use ``kiln.ModelCompiler``, which wraps it.

    Compiling makes an EPContext model: each subgraph an execution provider compiled becomes an
    EPContext node. Kiln's one provider, CPUExecutionProvider, compiles nothing, so, as
    onnxruntime with only the CPU provider, the output is the input model as loaded and
    optimized at `graph_optimization_level` (default ORT_DISABLE_ALL: the graph unchanged), and
    the flag ERROR_IF_NO_NODES_COMPILED makes compiling fail (Fail).
    """

    def __init__(
        self,
        sess_options,
        path_or_bytes,
        is_path,
        embed_compiled_data_into_model=False,
        external_initializers_file_path="",
        external_initializers_size_threshold=1024,
        flags=OrtCompileApiFlags.NONE,
        graph_optimization_level=GraphOptimizationLevel.ORT_DISABLE_ALL,
        get_initializer_location_func=None,
    ):
        if not isinstance(sess_options, SessionOptions):
            raise TypeError("ModelCompiler: sess_options must be a SessionOptions")
        _check_type("ModelCompiler: is_path", is_path, bool, "a bool")
        if is_path:
            _check_type("ModelCompiler: path", path_or_bytes, str, "a str")
        else:
            _check_type("ModelCompiler: model bytes", path_or_bytes, bytes, "bytes")
        _check_type("ModelCompiler: embed_compiled_data_into_model", embed_compiled_data_into_model, bool, "a bool")
        _check_type("ModelCompiler: external_initializers_file_path", external_initializers_file_path, str, "a str")
        _check_type(
            "ModelCompiler: external_initializers_size_threshold", external_initializers_size_threshold, int, "an int"
        )
        if external_initializers_size_threshold < 0:
            raise TypeError("ModelCompiler: external_initializers_size_threshold must not be negative")
        _check_type("ModelCompiler: flags", flags, int, "an int")
        if not isinstance(graph_optimization_level, GraphOptimizationLevel):
            raise TypeError("ModelCompiler: graph_optimization_level must be a GraphOptimizationLevel")
        if get_initializer_location_func is not None:
            if not callable(get_initializer_location_func):
                raise TypeError("ModelCompiler: get_initializer_location_func must be callable or None")
            raise NotImplemented(
                "ModelCompiler: get_initializer_location_func is not supported by Kiln yet; use "
                "external_initializers_file_path"
            )
        self._options = sess_options
        self._path = path_or_bytes if is_path else None
        self._bytes = None if is_path else path_or_bytes
        self._embed = embed_compiled_data_into_model
        self._external_file = external_initializers_file_path
        self._external_threshold = int(external_initializers_size_threshold)
        self._flags = int(flags)
        self._level = graph_optimization_level

    def _check(self):
        if self._path is not None and not os.path.exists(self._path):
            raise InvalidArgument(f"Input model path does not exist: {self._path}")
        if self._bytes is not None and len(self._bytes) == 0:
            raise InvalidArgument("Buffer for input model data has size 0")

    def _compile(self, output_path):
        """The compiled model's bytes; `output_path` ('' for none) is where it will be written,
        which external initializers are placed beside."""
        self._check()
        options = self._options
        options._check_not_canceled()
        if options.has_providers():
            options._session_providers()  # each provider once, as a session checks
        # The session onnxruntime makes to compile: the options' providers (all of them
        # CPUExecutionProvider), at the compile level, writing the graph as partitioned.
        compile_options = _copy_session_options(options)
        compile_options.graph_optimization_level = self._level
        with tempfile.TemporaryDirectory(prefix="kiln_compile_") as tmp:
            written = os.path.join(tmp, "model.onnx")
            compile_options.optimized_model_filepath = written
            if self._path is not None:
                InferenceSession(compile_options, self._path, True)
            else:
                InferenceSession(compile_options, self._bytes, False)
            if self._flags & OrtCompileApiFlags.ERROR_IF_NO_NODES_COMPILED:
                raise Fail(_NO_NODES_COMPILED)
            with open(written, "rb") as f:
                data = f.read()
        if self._external_file:
            folder = os.path.dirname(output_path) if output_path else ""
            data = _externalize_initializers(
                data, os.path.join(folder, self._external_file), self._external_file, self._external_threshold
            )
        return data

    def _output_path(self, output_model_path):
        if output_model_path:
            return output_model_path
        if self._path is None:
            raise InvalidArgument(
                "Unable to generate an output model path: require an input model path if the location of the "
                "output model (e.g., file, buffer, or stream) is not specified."
            )
        stem, _ = os.path.splitext(self._path)
        return stem + "_ctx.onnx"

    def compile_to_file(self, output_model_path=""):
        """Compile an ONNX model into a file ('' or None: the input path with '_ctx.onnx' for
        '.onnx')."""
        if output_model_path is None:
            output_model_path = ""
        _check_type("compile_to_file: output_model_path", output_model_path, str, "a str")
        self._check()
        path = self._output_path(output_model_path)
        data = self._compile(path)
        if self._flags & OrtCompileApiFlags.ERROR_IF_OUTPUT_FILE_EXISTS and os.path.exists(path):
            raise InvalidArgument(
                f"Failed to generate EPContext model since the file '{path}' exist already. Please remove the EP "
                "context model if you want to re-generate it."
            )
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:
            raise NoSuchFile(f"Failed to write the compiled model to '{path}': {e.strerror}") from None

    def compile_to_bytes(self):
        """Compile an ONNX model into a buffer (bytes)."""
        return self._compile("")

    def compile_to_stream(self, write_function):
        """Compile an ONNX model into an output stream using the provided write functor, which is
        called with the model's bytes (an exception it raises becomes Fail)."""
        if not callable(write_function):
            raise TypeError("compile_to_stream: write_function must be callable")
        data = self._compile("")
        try:
            write_function(data)
        except Exception as e:  # noqa: BLE001 - onnxruntime reports any as a failed status
            raise Fail(f"{type(e).__name__}: {e}") from None


def _copy_session_options(options):
    """A new SessionOptions with the same values (the sessions' providers aside)."""
    copy = SessionOptions.__new__(SessionOptions)
    copy.__dict__.update(options.__dict__)
    copy._config = dict(options._config)
    copy._free_dims_by_name = dict(options._free_dims_by_name)
    copy._free_dims_by_denotation = dict(options._free_dims_by_denotation)
    copy._initializers = dict(options._initializers)
    copy._custom_op_libraries = list(options._custom_op_libraries)
    copy._ep_factories = list(options._ep_factories)
    return copy


# ---- Moving initializers to an external data file (ONNX's protobuf wire format) -------------------


def _varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _fields(data):
    """(field number, wire type, raw bytes of the whole field, payload) of a message."""
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
            payload = None
        elif wire == 1:
            pos += 8
            payload = None
        elif wire == 2:
            length, pos = _varint(data, pos)
            payload = data[pos : pos + length]
            pos += length
        elif wire == 5:
            pos += 4
            payload = None
        else:
            raise InvalidArgument(f"the compiled model is not a valid protobuf (wire type {wire})")
        yield number, wire, data[start:pos], payload


def _bytes_field(number, payload):
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _externalize_initializers(model, file_path, location, threshold):
    """The model with the raw data of every main-graph initializer of at least `threshold` bytes
    moved to `file_path` (recorded as `location`, relative to the model), as onnxruntime's
    compiled models keep initializers for nodes left uncompiled."""
    out_model = bytearray()
    blob = bytearray()
    for number, wire, raw, payload in _fields(model):
        if number != 7 or wire != 2:  # ModelProto.graph
            out_model += raw
            continue
        graph = bytearray()
        for g_number, g_wire, g_raw, g_payload in _fields(payload):
            if g_number != 5 or g_wire != 2:  # GraphProto.initializer
                graph += g_raw
                continue
            tensor = bytearray()
            raw_data = None
            for t_number, t_wire, t_raw, t_payload in _fields(g_payload):
                if t_number == 9 and t_wire == 2:  # TensorProto.raw_data
                    raw_data = t_payload
                else:
                    tensor += t_raw
            if raw_data is None or len(raw_data) < threshold:
                graph += g_raw
                continue
            offset = len(blob)
            blob += raw_data
            for key, value in (("location", location), ("offset", str(offset)), ("length", str(len(raw_data)))):
                entry = _bytes_field(1, key.encode()) + _bytes_field(2, value.encode())
                tensor += _bytes_field(13, entry)  # TensorProto.external_data
            tensor += _encode_varint(14 << 3 | 0) + _encode_varint(1)  # data_location = EXTERNAL
            graph += _bytes_field(5, bytes(tensor))
        out_model += _bytes_field(7, bytes(graph))
    try:
        with open(file_path, "wb") as f:
            f.write(blob)
    except OSError as e:
        raise NoSuchFile(f"Failed to write the external initializers file '{file_path}': {e.strerror}") from None
    return bytes(out_model)
