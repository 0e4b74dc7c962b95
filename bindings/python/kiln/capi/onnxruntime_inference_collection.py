"""The Python-level classes of onnxruntime (``onnxruntime.capi.onnxruntime_inference_collection``):
InferenceSession, IOBinding, OrtValue, OrtDevice, SparseTensor and the provider helpers.

    >>> import kiln as ort
    >>> sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    >>> outputs = sess.run(None, {sess.get_inputs()[0].name: x})
"""

import collections.abc
import os
import warnings

import numpy as np

from . import _kiln
from . import _pybind_state as C
from ._errors import InvalidArgument, NotImplemented
from ._graph import Graph, Model


def get_ort_device_type(device_type, device_index=0):
    """The OrtDevice type number of a device name ('cpu', 'cuda', 'dml', ...)."""
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a str, got {type(device_type).__name__}")
    name = device_type.lower()
    types = {"cpu": C.OrtDevice.cpu(), "cuda": C.OrtDevice.cuda(), "dml": C.OrtDevice.dml(), "npu": C.OrtDevice.npu()}
    if name not in types:
        raise Exception("Unsupported device type: " + device_type)
    return types[name]


def _check_cpu(device_type, what):
    if get_ort_device_type(device_type) != C.OrtDevice.cpu():
        raise InvalidArgument(f"{what}: Kiln runs on the CPU only, not on '{device_type}'")


def check_and_normalize_provider_args(providers, provider_options, available_provider_names):
    """Validates the providers and provider_options arguments and returns them as
    (list of names, list of option dicts), as onnxruntime does. A provider may be a name or a
    (name, options dict) tuple; a name not available here is warned about."""
    if providers is None:
        return [], []

    provider_name_to_options = collections.OrderedDict()

    def set_provider_options(name, options):
        if name not in available_provider_names:
            warnings.warn(
                "Specified provider '{}' is not in available provider names."
                "Available providers: '{}'".format(name, ", ".join(available_provider_names)),
                stacklevel=4,
            )
        if name in provider_name_to_options:
            warnings.warn(f"Duplicate provider '{name}' encountered, ignoring.", stacklevel=4)
            return
        normalized_options = {str(key): str(value) for key, value in options.items()}
        provider_name_to_options[name] = normalized_options

    if not isinstance(providers, collections.abc.Sequence) or isinstance(providers, str):
        raise ValueError("'providers' should be a sequence.")

    if provider_options is not None:
        if not isinstance(provider_options, collections.abc.Sequence):
            raise ValueError("'provider_options' should be a sequence.")
        if len(providers) != len(provider_options):
            raise ValueError("'providers' and 'provider_options' should be the same length if both are given.")
        if not all(isinstance(provider, str) for provider in providers):
            raise ValueError("Only string values for 'providers' are supported if 'provider_options' is given.")
        if not all(isinstance(options_for_provider, dict) for options_for_provider in provider_options):
            raise ValueError("'provider_options' values must be dicts.")
        for name, options in zip(providers, provider_options):
            set_provider_options(name, options)
    else:
        for provider in providers:
            if isinstance(provider, str):
                set_provider_options(provider, dict())
            elif (
                isinstance(provider, tuple)
                and len(provider) == 2
                and isinstance(provider[0], str)
                and isinstance(provider[1], dict)
            ):
                set_provider_options(provider[0], provider[1])
            else:
                raise ValueError("'providers' values must be either strings or (string, dict) tuples.")

    return list(provider_name_to_options.keys()), list(provider_name_to_options.values())


def _resolve_providers(providers, provider_options, sess_options=None):
    """The providers a session gets: the CPU provider. A known provider this build lacks warns
    (in check_and_normalize_provider_args) and falls back; an unknown name raises. Without
    providers, the ones `sess_options` was given (add_provider, add_provider_for_devices, a
    selection policy) are used; with both, the `providers` argument wins, with a warning, as in
    onnxruntime."""
    names, options = check_and_normalize_provider_args(providers, provider_options, C.get_available_providers())
    for name in names:
        if name not in C.get_all_providers():
            raise RuntimeError(f"Unknown Provider Type: {name}")
    if sess_options is not None and sess_options.has_providers():
        if names or options:
            warnings.warn(
                "Specified 'providers'/'provider_options' when creating InferenceSession but SessionOptions has "
                "already been configured with providers. InferenceSession will only use the providers "
                "passed to InferenceSession().",
                stacklevel=4,
            )
        else:
            return sess_options._session_providers()
    cpu_options = {}
    for name, opts in zip(names, options):
        if name == "CPUExecutionProvider":
            cpu_options = opts
    return ["CPUExecutionProvider"], [cpu_options]


class Session:
    """The methods every session has (onnxruntime's base class of InferenceSession)."""

    def __init__(self, enable_fallback=True):
        self._sess = None
        self._enable_fallback = enable_fallback

    def get_session_options(self):
        """The SessionOptions the session was created with."""
        return self._sess_options

    def get_inputs(self):
        """The model's inputs as NodeArgs (initializers excluded)."""
        return self._inputs_meta

    def get_outputs(self):
        """The model's outputs as NodeArgs."""
        return self._outputs_meta

    def get_overridable_initializers(self):
        """Initializers also listed as graph inputs, which a run may feed (as NodeArgs)."""
        return self._overridable_initializers

    def get_modelmeta(self):
        """The model's metadata (ModelMetadata)."""
        return self._model_meta

    def get_input_memory_infos(self):
        """Where each input is expected (onnxruntime 1.23): an OrtMemoryInfo per input, that of
        the session's CPU allocator ('Cpu'; the arena allocator unless the arena is off)."""
        return self._input_meminfos

    def get_output_memory_infos(self):
        """Where each output is made: an OrtMemoryInfo per output, as get_input_memory_infos."""
        return self._output_meminfos

    def get_input_epdevices(self):
        """The OrtEpDevice of the execution provider that consumes each input (onnxruntime 1.23):
        the CPU provider's device, or None for an input no node reads."""
        return self._input_epdevices

    def get_providers(self):
        """The providers the session runs on: ['CPUExecutionProvider']."""
        return self._providers

    def get_provider_options(self):
        """Each provider's options."""
        return self._provider_options

    def set_providers(self, providers=None, provider_options=None):
        """Re-checks the providers, as onnxruntime does; Kiln runs on the CPU provider."""
        if not providers:
            raise ValueError("Must specify a list of providers.")
        self._providers, opts = _resolve_providers(providers, provider_options)
        self._provider_options = {p: o for p, o in zip(self._providers, opts)}

    def disable_fallback(self):
        self._enable_fallback = False

    def enable_fallback(self):
        self._enable_fallback = True

    def _validate_input(self, feed_input_names):
        missing_input_names = []
        for input in self._inputs_meta:  # noqa: A001
            if input.name not in feed_input_names and not input.type.startswith("optional"):
                missing_input_names.append(input.name)
        if missing_input_names:
            raise ValueError(
                f"Required inputs ({missing_input_names}) are missing from input feed ({feed_input_names})."
            )

    def _check_open(self):
        if self._sess is None:
            raise InvalidArgument("the session is closed")
        return self._sess._native

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model.

        :param output_names: the outputs wanted, or None (or []) for all of them
        :param input_feed: {input name: numpy array, OrtValue, list (a sequence), None (an empty
            optional)}; C-contiguous arrays are read in place, others are copied
        :param run_options: a RunOptions or None
        :return: a list of numpy arrays over Kiln's memory (no copy), lists for sequences, None
            for empty optionals
        """
        # Kept short: this is the per-call path (the native run checks the feed is a dict).
        sess = self._sess
        if sess is None:
            raise InvalidArgument("the session is closed")
        if run_options is not None:
            run_options = C._native_run_options(run_options)
        return sess._native.run(output_names or None, input_feed, run_options, False)

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """Runs with OrtValues in and returns a list of OrtValues."""
        native = self._check_open()
        if not isinstance(input_dict_ort_values, dict):
            raise TypeError("input_dict_ort_values must be a dict of input name to OrtValue")
        feed = {k: C._c_value_of(v, f"run_with_ort_values: input '{k}'") for k, v in input_dict_ort_values.items()}
        if not output_names:
            output_names = None
        values = native.run(output_names, feed, C._native_run_options(run_options), True)
        return [OrtValue(C.OrtValue(v)) for v in values]

    def run_async(self, output_names, input_feed, callback, user_data, run_options=None):
        """Starts a run and returns at once (the C ABI's RunAsync); ``callback(outputs, user_data,
        err)`` is called from one of Kiln's threads, holding the GIL, when it ends: the outputs as
        run returns them and err "" on success, else None and the error's message. Arguments are
        checked at once (a missing input raises ValueError here); what the run finds wrong (an
        unknown name, a wrong dtype or shape) reaches the callback."""
        native = self._check_open()
        if not callable(callback):
            raise TypeError("run_async: callback must be callable")
        if not isinstance(input_feed, dict):
            raise TypeError("run_async: input_feed must be a dict")
        if not output_names:
            output_names = None
        native.run_async(output_names, input_feed, C._native_run_options(run_options), callback, user_data)

    def run_with_iobinding(self, iobinding, run_options=None):
        """Runs with the inputs and outputs bound in an IOBinding."""
        self._check_open()
        if not isinstance(iobinding, IOBinding):
            raise TypeError("run_with_iobinding: expected an IOBinding")
        iobinding._iobinding.run(run_options)

    def io_binding(self):
        """A new IOBinding for this session."""
        self._check_open()
        return IOBinding(self)

    def end_profiling(self):
        """Writes the profile recorded so far (enable_profiling must be set) and returns the
        file's name."""
        return self._check_open().end_profiling()

    def get_profiling_start_time_ns(self):
        """When profiling started, in nanoseconds since the epoch (0 when profiling is off)."""
        return self._profiling_start_time_ns

    def get_graph(self, optimized=True):
        """A read-only view of the session's graph (Kiln's addition; kiln.Graph).

        :param optimized: True: the graph the session runs, optimized, with each node's
            ``kernel`` and ``fused_from`` and the types inference found; False: the graph as
            loaded, which the session keeps only when made with the session config entry
            'kiln.graph.keep_loaded' = '1' (else InvalidArgument)
        :return: a kiln.Graph that keeps this session alive: it (and every node, value and array
            reached from it) stays valid after the session is dropped or closed
        """
        return Graph(self._check_open().graph(bool(optimized)), self)


class InferenceSession(Session):
    """A loaded model, ready to run from any number of threads at once.

    :param path_or_bytes: a path (str or os.PathLike) to an .onnx file, the model's bytes, or a
        kiln.Model (Kiln's addition: the session works on its own copy of it)
    :param sess_options: a SessionOptions, or None for the defaults
    :param providers: provider names or (name, options) tuples; Kiln runs on
        'CPUExecutionProvider', a known provider this build lacks is warned about and skipped,
        an unknown name raises
    :param provider_options: one options dict per provider name
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        super().__init__()
        self._model = None
        if isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            self._model_bytes = None
            if isinstance(self._model_path, bytes):
                self._model_path = os.fsdecode(self._model_path)
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._model_bytes = bytes(path_or_bytes)
        elif isinstance(path_or_bytes, Model):
            self._model_path = None
            self._model_bytes = None
            self._model = path_or_bytes
        else:
            raise TypeError(f"Unable to load from type '{type(path_or_bytes)}'")
        if sess_options is None:
            sess_options = C.get_default_session_options()
        elif not isinstance(sess_options, C.SessionOptions):
            raise TypeError(f"sess_options must be a SessionOptions or None, got {type(sess_options).__name__}")
        self._sess_options = sess_options
        self._sess_options_initial = sess_options
        self._read_config_from_model = os.environ.get("ORT_LOAD_CONFIG_FROM_MODEL") == "1"
        self._create_inference_session(providers, provider_options)

    def _create_inference_session(self, providers, provider_options, disabled_optimizers=None):
        self._providers, opts = _resolve_providers(providers, provider_options, self._sess_options)
        self._provider_options = {p: o for p, o in zip(self._providers, opts)}
        if self._model_path is not None:
            sess = C.InferenceSession(self._sess_options, self._model_path, True, self._read_config_from_model)
        elif self._model is not None:
            sess = C.InferenceSession(self._sess_options, self._model._native, False, self._read_config_from_model)
        else:
            sess = C.InferenceSession(self._sess_options, self._model_bytes, False, self._read_config_from_model)
        self._sess = sess
        self._inputs_meta = sess.inputs_meta
        self._outputs_meta = sess.outputs_meta
        self._overridable_initializers = sess.overridable_initializers
        self._model_meta = sess.model_meta
        self._input_meminfos = sess.input_meminfos
        self._output_meminfos = sess.output_meminfos
        self._input_epdevices = sess.input_epdevices
        self._profiling_start_time_ns = sess._native.profiling_start_time_ns()

    def _reset_session(self, providers, provider_options):
        self._sess = None
        self._create_inference_session(providers, provider_options)

    def close(self):
        """Releases the model now (onnxruntime has no such method; Kiln's addition). Later calls
        raise InvalidArgument; outputs already returned stay valid, and so do graph views from
        get_graph (the session is then released when the last of them goes)."""
        if self._sess is not None:
            self._sess._native.close()
            self._sess = None


class ModelCompiler:
    """Compiles an ONNX model (onnxruntime 1.22+). A compiled ONNX model has EPContext nodes that
    each encapsulate a subgraph compiled for a specific execution provider::

        sess_options = kiln.SessionOptions()
        sess_options.add_provider("CPUExecutionProvider", {})
        compiler = kiln.ModelCompiler(sess_options, "model.onnx")
        compiler.compile_to_file("model_ctx.onnx")

    Kiln's one execution provider, CPUExecutionProvider, compiles no subgraph, so (as onnxruntime
    with only the CPU provider) the compiled model is the input model, loaded and checked, at
    `graph_optimization_level` (by default ORT_DISABLE_ALL: the graph unchanged), with the
    initializers of at least `external_initializers_size_threshold` bytes in
    `external_initializers_file_path` when given; with the flag ERROR_IF_NO_NODES_COMPILED,
    compiling raises Fail.

    :param sess_options: a SessionOptions with the providers to compile for (add_provider,
        add_provider_for_devices, set_provider_selection_policy); none: CPUExecutionProvider
    :param input_model_path_or_bytes: a path (str or os.PathLike) or the model's bytes
    :param embed_compiled_data_into_model: embed compiled data in EPContext nodes (no effect:
        Kiln makes none)
    :param external_initializers_file_path: a file, relative to the output model's folder, for
        the initializers (None or '': all stay in the model)
    :param external_initializers_size_threshold: initializers of at least this many bytes go to
        that file (default 1024)
    :param flags: OrtCompileApiFlags, combined with |
    :param graph_optimization_level: the optimizations applied (default ORT_DISABLE_ALL)
    :param get_initializer_location_func: not supported by Kiln yet (NotImplemented when given)
    """

    def __init__(
        self,
        sess_options,
        input_model_path_or_bytes,
        embed_compiled_data_into_model=False,
        external_initializers_file_path=None,
        external_initializers_size_threshold=1024,
        flags=C.OrtCompileApiFlags.NONE,
        graph_optimization_level=C.GraphOptimizationLevel.ORT_DISABLE_ALL,
        get_initializer_location_func=None,
    ):
        input_model_path = None
        input_model_bytes = None
        if isinstance(input_model_path_or_bytes, (str, os.PathLike)):
            if not input_model_path_or_bytes:
                raise ValueError("Input model path is empty")
            input_model_path = os.fspath(input_model_path_or_bytes)
        elif isinstance(input_model_path_or_bytes, bytes):
            if len(input_model_path_or_bytes) == 0:
                raise ValueError("Input model bytes array is empty")
            input_model_bytes = input_model_path_or_bytes
        else:
            raise TypeError(f"Unable to load from type '{type(input_model_path_or_bytes)}'")

        if external_initializers_file_path:
            if not isinstance(external_initializers_file_path, (str, os.PathLike)):
                arg_type = type(external_initializers_file_path)
                raise TypeError(f"Output external initializer filepath is of unexpected type '{arg_type}'")
            external_initializers_file_path = os.fspath(external_initializers_file_path)
        else:
            external_initializers_file_path = ""

        if input_model_path:
            self._model_compiler = C.ModelCompiler(
                sess_options,
                input_model_path,
                True,
                embed_compiled_data_into_model,
                external_initializers_file_path,
                external_initializers_size_threshold,
                flags,
                graph_optimization_level,
                get_initializer_location_func,
            )
        else:
            self._model_compiler = C.ModelCompiler(
                sess_options,
                input_model_bytes,
                False,
                embed_compiled_data_into_model,
                external_initializers_file_path,
                external_initializers_size_threshold,
                flags,
                graph_optimization_level,
                get_initializer_location_func,
            )

    def compile_to_file(self, output_model_path=None):
        """Compiles to an output file. Without a path, the path is the input model's with '.onnx'
        replaced by '_ctx.onnx' (InvalidArgument for a model given as bytes). Raises
        InvalidArgument when the compilation options are invalid.

        :param output_model_path: the path for the compiled model (str or os.PathLike), or None
        """
        if output_model_path is not None:
            if not isinstance(output_model_path, (str, os.PathLike)):
                raise TypeError(f"Output model's filepath is of unexpected type '{type(output_model_path)}'")
            output_model_path = os.fspath(output_model_path)
        self._model_compiler.compile_to_file(output_model_path)

    def compile_to_bytes(self):
        """Compiles to bytes representing the serialized compiled ONNX model."""
        return self._model_compiler.compile_to_bytes()

    def compile_to_stream(self, write_function):
        """Compiles the input model and writes the serialized ONNX bytes to a stream with the
        given function, which takes a bytes buffer."""
        self._model_compiler.compile_to_stream(write_function)


def copy_tensors(src, dst, stream=None):
    """Copies the data of each source OrtValue into the destination OrtValue at the same place
    (onnxruntime 1.23), on `stream` (an OrtSyncStream, or None): tensors of as many bytes, or as
    many strings; RuntimeError otherwise."""
    c_sources = [s._get_c_value() for s in src]
    c_dsts = [d._get_c_value() for d in dst]
    C.copy_tensors(c_sources, c_dsts, stream)


class IOBinding:
    """Inputs and outputs bound once to a session and run many times with run_with_iobinding."""

    def __init__(self, session):
        self._iobinding = C.SessionIOBinding(session._sess)
        self._numpy_obj_references = {}

    def bind_cpu_input(self, name, arr_on_cpu):
        """Binds a numpy array (read in place when C-contiguous)."""
        self._numpy_obj_references[name] = arr_on_cpu
        self._iobinding.bind_input(name, C.OrtValue.ortvalue_from_numpy(arr_on_cpu))

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds memory the caller owns: a buffer of element_type (a numpy type) and shape at
        address buffer_ptr, which must stay valid while bound."""
        _check_cpu(device_type, "bind_input")
        C._check_type("bind_input: buffer_ptr", buffer_ptr, int, "an int address")
        dtype = np.dtype(element_type)
        shape = [int(d) for d in shape]
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        value = _kiln.Value.from_pointer(buffer_ptr, nbytes, shape, C._onnx_type_of_numpy(dtype))
        self._iobinding.bind_input(name, C.OrtValue(value))

    def bind_ortvalue_input(self, name, ortvalue):
        """Binds an OrtValue."""
        self._iobinding.bind_input(name, ortvalue)

    def synchronize_inputs(self):
        self._iobinding.synchronize_inputs()

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None, buffer_ptr=None):
        """Binds an output: to memory the caller owns (element_type, shape and buffer_ptr all
        given: each run writes it in place), or to the device, left to Kiln."""
        _check_cpu(device_type, "bind_output")
        if buffer_ptr is None:
            self._iobinding.bind_output(name)
            return
        if element_type is None or shape is None:
            raise ValueError("bind_output: `element_type` and `shape` are required with `buffer_ptr`")
        dtype = np.dtype(element_type)
        shape = [int(d) for d in shape]
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        value = _kiln.Value.from_pointer(buffer_ptr, nbytes, shape, C._onnx_type_of_numpy(dtype))
        self._iobinding.bind_output(name, C.OrtValue(value))

    def bind_ortvalue_output(self, name, ortvalue):
        """Binds an output to an OrtValue, written in place by each run."""
        self._iobinding.bind_output(name, ortvalue)

    def synchronize_outputs(self):
        self._iobinding.synchronize_outputs()

    def get_outputs(self):
        """The last run's outputs as OrtValues (the bound OrtValues, or the ones Kiln made)."""
        return [OrtValue(v) for v in self._iobinding.get_outputs()]

    def get_outputs_as_ortvaluevector(self):
        return self._iobinding.get_outputs()

    def copy_outputs_to_cpu(self):
        """The last run's outputs as numpy arrays (copies)."""
        return [np.array(v.numpy(), copy=True) for v in self._iobinding.get_outputs()]

    def clear_binding_inputs(self):
        self._iobinding.clear_binding_inputs()

    def clear_binding_outputs(self):
        self._iobinding.clear_binding_outputs()


class OrtValue:
    """A value Kiln reads or produced: a tensor, a sequence or an optional.

    ``OrtValue.ortvalue_from_numpy(a)`` wraps a C-contiguous array without a copy (and keeps it
    alive); ``numpy()`` gives an array over the tensor's memory.
    """

    def __init__(self, ortvalue, numpy_obj=None):
        if isinstance(ortvalue, C.OrtValue):
            self._ortvalue = ortvalue
            self._numpy_obj = numpy_obj
        else:
            raise ValueError("`Provided ortvalue` needs to be of type `onnxruntime.capi.onnxruntime_pybind11_state.OrtValue`")

    def _get_c_value(self):
        return self._ortvalue

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0, vendor_id=-1):
        """An OrtValue over a numpy array (no copy when C-contiguous)."""
        _check_cpu(device_type, "ortvalue_from_numpy")
        return OrtValue(C.OrtValue.ortvalue_from_numpy(numpy_obj), numpy_obj)

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data, onnx_element_type):
        """An OrtValue over a numpy array read as the given ONNX element type (an int)."""
        return OrtValue(C.OrtValue.ortvalue_from_numpy_with_onnx_type(data, onnx_element_type), data)

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0, vendor_id=-1):
        """A zero-filled tensor Kiln allocates (element_type: a numpy type or an ONNX int)."""
        _check_cpu(device_type, "ortvalue_from_shape_and_type")
        return OrtValue(C.OrtValue.ortvalue_from_shape_and_type(shape, element_type))

    @staticmethod
    def ort_value_from_sparse_tensor(sparse_tensor):
        raise NotImplemented("ort_value_from_sparse_tensor: Kiln runs no sparse tensors")

    def as_sparse_tensor(self):
        raise InvalidArgument("as_sparse_tensor: the value is not a sparse tensor")

    def data_ptr(self):
        """The address of the tensor's data."""
        return self._ortvalue.data_ptr()

    def device_name(self):
        """'cpu'."""
        return self._ortvalue.device_name()

    def shape(self):
        """The tensor's dimensions."""
        return self._ortvalue.shape()

    def data_type(self):
        """'tensor(float)', 'seq(tensor(int64))', ..."""
        return self._ortvalue.data_type()

    def element_type(self):
        """The ONNX element type (int)."""
        return self._ortvalue.element_type()

    def has_value(self):
        """False only for an empty optional."""
        return self._ortvalue.has_value()

    def is_tensor(self):
        return self._ortvalue.is_tensor()

    def is_sparse_tensor(self):
        return False

    def is_tensor_sequence(self):
        return self._ortvalue.is_tensor_sequence()

    def numpy(self):
        """The value as numpy: an array over the tensor's memory, a list for a sequence."""
        return self._ortvalue.numpy()

    def update_inplace(self, np_arr):
        """Copies a numpy array of the same size and dtype into the tensor."""
        dest = self.numpy()
        src = np.asarray(np_arr)
        if src.dtype != dest.dtype or src.size != dest.size:
            raise InvalidArgument("update_inplace: the array's dtype and size must match the value's")
        dest.reshape(-1)[...] = src.reshape(-1)

    def to_dlpack(self):
        """A DLPack capsule over the tensor's memory (no copy); it keeps the value alive."""
        return self.numpy().__dlpack__()

    @staticmethod
    def from_dlpack(data, is_bool_tensor=False):
        """An OrtValue over a DLPack tensor (an object with __dlpack__, or a capsule) without a
        copy."""
        if not hasattr(data, "__dlpack__"):
            data = _Capsule(data)
        arr = np.from_dlpack(data)
        if is_bool_tensor and arr.dtype == np.uint8:
            arr = arr.view(np.bool_)
        return OrtValue.ortvalue_from_numpy(arr)


class _Capsule:
    """Lets numpy.from_dlpack take a bare DLPack capsule."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


class OrtDevice:
    """A device (onnxruntime's Python-level class): Kiln has the CPU."""

    def __init__(self, c_ort_device):
        if isinstance(c_ort_device, C.OrtDevice):
            self._ort_device = c_ort_device
        else:
            raise ValueError("`Provided object` needs to be of type `onnxruntime.capi.onnxruntime_pybind11_state.OrtDevice`")

    def _get_c_device(self):
        return self._ort_device

    @staticmethod
    def make(ort_device_name, device_id, vendor_id=-1):
        return OrtDevice(C.OrtDevice(get_ort_device_type(ort_device_name, device_id), C.OrtDevice.default_memory(), device_id))

    def device_id(self):
        return self._ort_device.device_id()

    def device_type(self):
        return self._ort_device.device_type()

    def device_vendor_id(self):
        return self._ort_device.vendor_id()


class SparseTensor:
    """A sparse tensor (COO or CSR) over numpy arrays (onnxruntime's Python-level class)."""

    def __init__(self, sparse_tensor):
        if isinstance(sparse_tensor, C.SparseTensor):
            self._tensor = sparse_tensor
        else:
            raise TypeError("`Provided object` needs to be of type `onnxruntime.capi.onnxruntime_pybind11_state.SparseTensor`")

    def _get_c_tensor(self):
        return self._tensor

    @staticmethod
    def sparse_coo_from_numpy(dense_shape, values, coo_indices, ort_device=None):
        return SparseTensor(C.SparseTensor.sparse_coo_from_numpy(dense_shape, values, coo_indices))

    @staticmethod
    def sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices, ort_device=None):
        return SparseTensor(C.SparseTensor.sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices))

    def values(self):
        return self._tensor.values()

    def as_coo_view(self):
        return self._tensor.as_coo_view()

    def as_csrc_view(self):
        return self._tensor.as_csrc_view()

    def as_blocksparse_view(self):
        return self._tensor.as_blocksparse_view()

    def to_cuda(self, ort_device):
        return self._tensor.to_cuda(ort_device)

    def format(self):
        return self._tensor.format()

    def dense_shape(self):
        return self._tensor.dense_shape()

    def data_type(self):
        return self._tensor.data_type()

    def device_name(self):
        return self._tensor.device_name()

    def to_dense(self):
        """The dense numpy array (Kiln's addition)."""
        return self._tensor.to_dense()
