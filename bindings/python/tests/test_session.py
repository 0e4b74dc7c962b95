"""InferenceSession, SessionOptions, RunOptions and the module's functions, as onnxruntime has them."""

import os
import pathlib
import threading
import warnings

import numpy as np
import pytest

import kiln as ort
from kiln.capi import _pybind_state as C
from kiln.capi import onnxruntime_inference_collection as collection
from kiln.capi import onnxruntime_pybind11_state as state


def xy(batch=2):
    x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
    y = np.full((batch, 3), 0.5, np.float32)
    return x, y


def test_create_from_str_pathlike_and_bytes(models):
    x, y = xy()
    for source in (models["add"], pathlib.Path(models["add"]), open(models["add"], "rb").read()):
        sess = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
        (z,) = sess.run(None, {"x": x, "y": y})
        np.testing.assert_array_equal(z, x + y)


def test_inputs_outputs_are_nodeargs(models):
    sess = ort.InferenceSession(models["add"])
    ins, outs = sess.get_inputs(), sess.get_outputs()
    assert [i.name for i in ins] == ["x", "y"]
    assert ins[0].type == "tensor(float)"
    assert ins[0].shape == ["batch", 3]
    assert outs[0].name == "z" and outs[0].shape == ["batch", 3]
    assert repr(ins[0]) == "NodeArg(name='x', type='tensor(float)', shape=['batch', 3])"
    assert sess.get_overridable_initializers() == []


def test_unknown_dims_are_none_and_types_are_named(models):
    sess = ort.InferenceSession(models["bad_reshape"])
    assert sess.get_inputs()[0].shape == [None]
    assert sess.get_inputs()[1].type == "tensor(int64)"
    seq = ort.InferenceSession(models["sequence"])
    assert seq.get_outputs()[0].type == "seq(tensor(float))"
    assert seq.get_outputs()[1].shape == []
    opt = ort.InferenceSession(models["optional"])
    assert opt.get_inputs()[0].type == "optional(tensor(float))"


def test_modelmeta(models):
    meta = ort.InferenceSession(models["add"]).get_modelmeta()
    assert meta.producer_name == "kiln-tests"
    assert meta.graph_name == "g"
    assert meta.graph_description == "the add graph"
    assert meta.domain == "org.kiln.tests"
    assert meta.description == "adds two tensors"
    assert meta.version == 7
    assert meta.custom_metadata_map == {"author": "kiln", "purpose": "tests"}


def test_output_names_none_empty_and_subset(models):
    sess = ort.InferenceSession(models["sequence"])
    a, b = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    for names in (None, []):
        seq, n = sess.run(names, {"a": a, "b": b})
        assert isinstance(seq, list) and len(seq) == 2
        np.testing.assert_array_equal(seq[1], b)
        assert n == 2 and n.dtype == np.int64 and n.shape == ()
    (only_n,) = sess.run(["n"], {"a": a, "b": b})
    assert only_n == 2


def test_sequence_and_optional_inputs(models):
    sess = ort.InferenceSession(models["sequence_in"])
    (n,) = sess.run(None, {"s": [np.zeros(2, np.float32), np.ones(3, np.float32), np.ones(1, np.float32)]})
    assert n == 3
    opt = ort.InferenceSession(models["optional"])
    assert opt.run(None, {"o": np.ones(2, np.float32)})[0] == True  # noqa: E712
    assert opt.run(None, {"o": None})[0] == False  # noqa: E712


def test_run_with_ort_values(models):
    sess = ort.InferenceSession(models["add"])
    x, y = xy()
    out = sess.run_with_ort_values(["z"], {"x": ort.OrtValue.ortvalue_from_numpy(x), "y": ort.OrtValue.ortvalue_from_numpy(y)})
    assert isinstance(out[0], ort.OrtValue)
    np.testing.assert_array_equal(out[0].numpy(), x + y)
    assert out[0].data_type() == "tensor(float)"


def test_run_async_calls_back_with_results_and_errors(models):
    sess = ort.InferenceSession(models["add"])
    x, y = xy()
    done = threading.Event()
    got = {}

    def callback(outputs, user_data, err):
        got["outputs"], got["user_data"], got["err"] = outputs, user_data, err
        done.set()

    sess.run_async(None, {"x": x, "y": y}, callback, "token")
    assert done.wait(30)
    assert got["err"] == "" and got["user_data"] == "token"
    np.testing.assert_array_equal(got["outputs"][0], x + y)
    done.clear()
    sess.run_async(None, {"x": x, "y": y.astype(np.float64)}, callback, 1)
    assert done.wait(30)
    assert got["outputs"] is None and "y" in got["err"]


def test_session_collected_while_async_run_in_flight(models):
    sess = ort.InferenceSession(models["slow"])
    done = threading.Event()
    got = {}

    def callback(outputs, user_data, err):
        got["err"], got["outputs"] = err, outputs
        done.set()

    sess.run_async(None, {"x": np.ones((256, 256), np.float32)}, callback, None)
    del sess
    import gc

    gc.collect()
    assert done.wait(60)
    assert got["err"] == "" and got["outputs"][0].shape == (256, 256)


def test_io_binding_preallocated_and_left_to_kiln(models):
    sess = ort.InferenceSession(models["add"])
    x, y = xy()
    binding = sess.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_ortvalue_input("y", ort.OrtValue.ortvalue_from_numpy(y))
    z = np.empty((2, 3), np.float32)
    binding.bind_output("z", "cpu", 0, np.float32, [2, 3], z.ctypes.data)
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(z, x + y)
    assert binding.get_outputs()[0].data_ptr() == z.ctypes.data
    np.testing.assert_array_equal(binding.copy_outputs_to_cpu()[0], x + y)
    x[...] = 10  # bound in place: the next run reads the new values
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(z, x + y)
    binding.clear_binding_outputs()
    binding.bind_output("z")
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(binding.get_outputs()[0].numpy(), x + y)
    binding.synchronize_inputs()
    binding.synchronize_outputs()
    assert binding._iobinding.get_output_names() == ["z"]
    binding.clear_binding_inputs()
    with pytest.raises(ort.InvalidArgument, match="x"):
        sess.run_with_iobinding(binding)


def test_io_binding_bind_input_pointer_and_ortvalue_output(models):
    sess = ort.InferenceSession(models["add"])
    x, y = xy()
    binding = sess.io_binding()
    binding.bind_input("x", "cpu", 0, np.float32, list(x.shape), x.ctypes.data)
    binding.bind_cpu_input("y", y)
    out = ort.OrtValue.ortvalue_from_shape_and_type([2, 3], np.float32)
    binding.bind_ortvalue_output("z", out)
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(out.numpy(), x + y)
    with pytest.raises(ort.InvalidArgument, match="nope"):
        binding.bind_cpu_input("nope", x)
    with pytest.raises(ort.InvalidArgument, match="nope"):
        binding.bind_output("nope")
    with pytest.raises(ort.InvalidArgument, match="CPU"):
        binding.bind_output("z", "cuda")


def test_providers(models):
    sess = ort.InferenceSession(models["add"], providers=["CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert sess.get_provider_options() == {"CPUExecutionProvider": {}}
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        sess = ort.InferenceSession(models["add"], providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    with pytest.warns(UserWarning):
        sess = ort.InferenceSession(models["add"], providers=[("CUDAExecutionProvider", {"device_id": 0})])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Unknown Provider Type: NoSuchExecutionProvider"):
            ort.InferenceSession(models["add"], providers=["NoSuchExecutionProvider"])
    with pytest.raises(ValueError):
        ort.InferenceSession(models["add"], providers="CPUExecutionProvider")
    with pytest.raises(ValueError):
        ort.InferenceSession(models["add"], providers=["CPUExecutionProvider"], provider_options=[{}, {}])
    sess.set_providers(["CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]


def test_module_functions():
    assert ort.get_available_providers() == ["CPUExecutionProvider"]
    assert "CUDAExecutionProvider" in ort.get_all_providers()
    assert ort.get_all_providers()[-1] == "CPUExecutionProvider"
    assert ort.get_device() == "CPU"
    assert ort.get_version_string() == ort.__version__
    assert ort.__version__.count(".") == 2
    assert ort.__version__ in ort.get_build_info()
    ort.enable_telemetry_events()
    ort.disable_telemetry_events()
    ort.set_default_logger_severity(3)
    ort.set_default_logger_severity(2)
    with pytest.raises(ort.InvalidArgument):
        ort.set_default_logger_severity(7)
    with pytest.raises(TypeError):
        ort.set_default_logger_severity("warning")


def test_session_options_read_back():
    so = ort.SessionOptions()
    assert so.intra_op_num_threads == 0 and so.inter_op_num_threads == 0
    assert so.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert so.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert so.enable_profiling is False and so.log_severity_level == 2
    assert so.enable_cpu_mem_arena and so.enable_mem_pattern and so.enable_mem_reuse
    values = dict(
        intra_op_num_threads=1,
        inter_op_num_threads=2,
        graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        execution_mode=ort.ExecutionMode.ORT_PARALLEL,
        enable_profiling=True,
        profile_file_prefix="prof",
        log_severity_level=3,
        log_verbosity_level=1,
        logid="my-session",
        optimized_model_filepath="opt.onnx",
        enable_cpu_mem_arena=False,
        enable_mem_pattern=False,
        enable_mem_reuse=False,
        use_deterministic_compute=True,
    )
    for k, v in values.items():
        setattr(so, k, v)
    for k, v in values.items():
        assert getattr(so, k) == v, k
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    assert so.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(RuntimeError, match="does not have configuration with key"):
        so.get_session_config_entry("nope")


@pytest.mark.parametrize(
    "attr,bad",
    [
        ("intra_op_num_threads", 1.5),
        ("intra_op_num_threads", "2"),
        ("graph_optimization_level", 2.0),
        ("logid", None),
        ("enable_profiling", "yes"),
        ("profile_file_prefix", 3),
    ],
)
def test_session_options_reject_wrong_types(attr, bad):
    with pytest.raises(TypeError, match=attr):
        setattr(ort.SessionOptions(), attr, bad)


def test_session_options_apply(models, tmp_path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "trace")
    so.add_free_dimension_override_by_name("batch", 2)
    so.add_session_config_entry("kiln.run.check_finite", "1")
    sess = ort.InferenceSession(models["add"], so)
    assert sess.get_session_options() is so
    assert sess.get_inputs()[0].shape == [2, 3]
    x, y = xy()
    sess.run(None, {"x": x, "y": y})
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": np.zeros((3, 3), np.float32), "y": np.zeros((3, 3), np.float32)})
    with pytest.raises(ort.RuntimeException, match="NaN or infinity"):
        sess.run(None, {"x": np.full((2, 3), np.inf, np.float32), "y": y})
    assert sess.get_profiling_start_time_ns() > 0
    path = sess.end_profiling()
    assert path.startswith(str(tmp_path / "trace")) and os.path.exists(path)
    bad = ort.SessionOptions()
    bad.intra_op_num_threads = 5000
    with pytest.raises(ort.InvalidArgument, match="threads"):
        ort.InferenceSession(models["add"], bad)
    unknown = ort.SessionOptions()
    unknown.add_session_config_entry("kiln.no.such.key", "1")
    with pytest.raises(ort.InvalidArgument, match="kiln.no.such.key"):
        ort.InferenceSession(models["add"], unknown)


def test_every_optimization_level_gives_the_same_results(models):
    x = np.random.default_rng(1).standard_normal((1, 1, 8, 8)).astype(np.float32)
    results = []
    for level in ort.GraphOptimizationLevel:
        so = ort.SessionOptions()
        so.graph_optimization_level = level
        sess = ort.InferenceSession(models["digits"], so)
        results.append(sess.run(None, {sess.get_inputs()[0].name: x})[0])
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-5, atol=1e-5)


def test_run_options(models):
    ro = ort.RunOptions()
    assert ro.log_severity_level == 2 and ro.terminate is False and ro.logid == ""
    ro.log_severity_level = 1
    ro.log_verbosity_level = 2
    ro.logid = "run-7"
    ro.only_execute_path_to_fetches = True
    assert (ro.log_severity_level, ro.log_verbosity_level, ro.logid) == (1, 2, "run-7")
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    with pytest.raises(RuntimeError):
        ro.get_run_config_entry("nope")
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "")
    sess = ort.InferenceSession(models["add"])
    x, y = xy()
    np.testing.assert_array_equal(sess.run(None, {"x": x, "y": y}, ro)[0], x + y)
    ro.terminate = True
    with pytest.raises(ort.Terminated):
        sess.run(None, {"x": x, "y": y}, ro)
    with pytest.raises(ort.Fail):  # onnxruntime reports a terminated run as Fail
        sess.run(None, {"x": x, "y": y}, ro)
    ro.terminate = False
    sess.run(None, {"x": x, "y": y}, ro)
    with pytest.raises(TypeError):
        sess.run(None, {"x": x, "y": y}, run_options="fast")
    with pytest.raises(ort.NotImplemented):
        ro.add_active_adapter(None)


def test_terminate_from_another_thread_stops_a_run_in_flight(models):
    sess = ort.InferenceSession(models["slow"])
    ro = ort.RunOptions()
    timer = threading.Timer(0.05, lambda: setattr(ro, "terminate", True))
    timer.start()
    with pytest.raises(ort.Terminated, match="terminat"):
        for _ in range(1000):  # the first run that sees the flag raises
            sess.run(None, {"x": np.ones((256, 256), np.float32)}, ro)
    timer.join()


def test_a_missing_custom_op_library_is_reported_where_it_is_given(tmp_path, models):
    so = ort.SessionOptions()
    missing = str(tmp_path / "libops.so")
    with pytest.raises(ort.NoSuchFile, match="libops.so"):
        so.register_custom_ops_library(missing)
    with pytest.raises(TypeError):
        so.register_custom_ops_library(3)
    # Nothing was registered: a session made with the options is an ordinary one.
    sess = ort.InferenceSession(models["add"], so)
    x, y = xy()
    np.testing.assert_array_equal(sess.run(None, {"x": x, "y": y})[0], x + y)


def test_lora_raises_not_implemented():
    with pytest.raises(ort.NotImplemented):
        ort.LoraAdapter().Load("a.onnx_adapter")


def test_module_layout():
    for name in ("InferenceSession", "SessionOptions", "RunOptions", "OrtValue", "OrtValueVector", "OrtDevice",
                 "get_default_session_options", "NodeArg", "ModelMetadata", "SessionIOBinding", "SparseTensor",
                 "OrtMemoryInfo", "OrtArenaCfg", "create_and_register_allocator", "Fail", "InvalidArgument"):
        assert hasattr(C, name), name
        assert hasattr(state, name), name
    assert C.get_default_session_options().graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert collection.check_and_normalize_provider_args(
        [("CPUExecutionProvider", {"a": 1})], None, ["CPUExecutionProvider"]
    ) == (["CPUExecutionProvider"], [{"a": "1"}])
    assert collection.check_and_normalize_provider_args(None, None, []) == ([], [])
    assert state.InvalidArgument is ort.InvalidArgument


def test_devices_memory_info_and_allocators():
    d = ort.OrtDevice.make("cpu", 0)
    assert d.device_type() == C.OrtDevice.cpu() and d.device_id() == 0
    info = C.OrtMemoryInfo("Cpu", C.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, C.OrtMemType.DEFAULT)
    assert info == C.OrtMemoryInfo("Cpu", C.OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0, C.OrtMemType.DEFAULT)
    cfg = C.OrtArenaCfg({"max_mem": 1 << 20, "arena_extend_strategy": 1})
    assert cfg.max_mem == 1 << 20
    assert C.OrtArenaCfg(0, -1, -1, -1).arena_extend_strategy == -1
    ort.create_and_register_allocator(info, cfg)
    with pytest.raises(ort.InvalidArgument):
        ort.create_and_register_allocator(C.OrtMemoryInfo("Cuda", 0, 0, 0), None)
    with pytest.raises(Exception, match="Unsupported device type"):
        ort.OrtDevice.make("tpu", 0)
    assert ort.OrtDeviceMemoryType.HOST_ACCESSIBLE == 5


def test_many_async_runs_at_once_and_a_missing_input_raises_at_once(models):
    sess = ort.InferenceSession(models["add"])
    results = {}
    done = threading.Semaphore(0)

    def callback(outputs, i, err):
        results[i] = (outputs, err)
        done.release()

    feeds = [xy() for _ in range(20)]
    for i, (x, y) in enumerate(feeds):
        x += i
        sess.run_async(None, {"x": x, "y": y}, callback, i)
    for _ in feeds:
        assert done.acquire(timeout=60)
    for i, (x, y) in enumerate(feeds):
        outputs, err = results[i]
        assert err == ""
        np.testing.assert_array_equal(outputs[0], x + y)
    with pytest.raises(ValueError, match="missing"):
        sess.run_async(None, {"x": feeds[0][0]}, callback, None)
    ro = ort.RunOptions()
    ro.terminate = True
    sess.run_async(None, {"x": feeds[0][0], "y": feeds[0][1]}, callback, "stopped")
    assert done.acquire(timeout=60)
    sess.run_async(None, {"x": feeds[0][0], "y": feeds[0][1]}, callback, "terminated", ro)
    assert done.acquire(timeout=60)
    assert results["stopped"][1] == ""
    assert results["terminated"][0] is None and "terminat" in results["terminated"][1].lower()
