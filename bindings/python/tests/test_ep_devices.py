"""onnxruntime 1.21-1.23's device and provider API, as onnxruntime has it in a CPU-only build:
get_ep_devices and the device classes, the provider-library registration, the SessionOptions
provider entries, the load cancellation flag, the sessions' memory infos and input devices,
copy_tensors, create_and_register_allocator_v2, has_collective_ops and preload_dlls."""

import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kiln as ort
from kiln.capi import _devices
from kiln.capi import _pybind_state as C
from kiln.capi import onnxruntime_pybind11_state as state

from conftest import make_model, save

NEW_NAMES = [
    "get_ep_devices",
    "OrtEpDevice",
    "OrtHardwareDevice",
    "OrtHardwareDeviceType",
    "OrtExecutionProviderDevicePolicy",
    "register_execution_provider_library",
    "unregister_execution_provider_library",
    "preload_dlls",
    "has_collective_ops",
    "create_and_register_allocator_v2",
    "copy_tensors",
    "OrtSyncStream",
    "OrtCompileApiFlags",
    "ModelCompiler",
]


def xy(batch=2):
    x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
    return x, np.full((batch, 3), 0.5, np.float32)


def cpu_device():
    (device,) = [d for d in ort.get_ep_devices() if d.ep_name == "CPUExecutionProvider"]
    return device


def test_the_module_has_the_names_of_onnxruntime_1_21_to_1_23():
    for name in NEW_NAMES:
        assert hasattr(ort, name), name
    for name in NEW_NAMES:
        if name != "preload_dlls":
            assert hasattr(C, name), name
    for name in ("get_input_memory_infos", "get_output_memory_infos", "get_input_epdevices"):
        assert hasattr(ort.InferenceSession, name), name
    for name in ("add_provider", "add_provider_for_devices", "set_provider_selection_policy", "set_load_cancellation_flag"):
        assert hasattr(ort.SessionOptions, name), name
    assert C.OrtEpDevice is ort.OrtEpDevice and state.get_ep_devices is ort.get_ep_devices


def test_enums_have_onnxruntime_values():
    assert [(m.name, int(m)) for m in ort.OrtHardwareDeviceType] == [("CPU", 0), ("GPU", 1), ("NPU", 2)]
    assert [(m.name, int(m)) for m in ort.OrtExecutionProviderDevicePolicy] == [
        ("DEFAULT", 0),
        ("PREFER_CPU", 1),
        ("PREFER_NPU", 2),
        ("PREFER_GPU", 3),
        ("MAX_PERFORMANCE", 4),
        ("MAX_EFFICIENCY", 5),
        ("MIN_OVERALL_POWER", 6),
    ]
    flags = ort.OrtCompileApiFlags
    assert (int(flags.NONE), int(flags.ERROR_IF_NO_NODES_COMPILED), int(flags.ERROR_IF_OUTPUT_FILE_EXISTS)) == (0, 1, 2)
    assert int(flags.ERROR_IF_NO_NODES_COMPILED | flags.ERROR_IF_OUTPUT_FILE_EXISTS) == 3


# ---- get_ep_devices and the device classes ---------------------------------------------------------


def test_get_ep_devices_lists_the_cpu_provider_on_the_cpu():
    devices = ort.get_ep_devices()
    assert isinstance(devices, list) and len(devices) == 1
    (d,) = devices
    assert isinstance(d, ort.OrtEpDevice)
    assert d.ep_name == "CPUExecutionProvider"
    assert d.ep_vendor == "Kiln"
    assert d.ep_metadata == {"version": ort.__version__}
    assert d.ep_options == {}
    hw = d.device
    assert isinstance(hw, ort.OrtHardwareDevice)
    assert hw.type == ort.OrtHardwareDeviceType.CPU
    assert (hw.vendor, hw.vendor_id) == _devices._cpu_vendor()
    assert isinstance(hw.vendor, str) and isinstance(hw.vendor_id, int)
    assert hw.device_id == 0 and hw.metadata == {}
    # Properties hand out copies; the same device comes back from every call.
    d.ep_metadata["x"] = "y"
    hw.metadata["x"] = "y"
    assert d.ep_metadata == {"version": ort.__version__} and hw.metadata == {}
    assert ort.get_ep_devices()[0] is d


def test_the_cpu_device_has_no_memory_of_its_own_nor_a_stream():
    d = cpu_device()
    assert d.memory_info(ort.OrtDeviceMemoryType.DEFAULT) is None
    assert d.memory_info(ort.OrtDeviceMemoryType.HOST_ACCESSIBLE) is None
    with pytest.raises(TypeError):
        d.memory_info(0)
    with pytest.raises(RuntimeError, match="non-CPU device"):
        d.create_sync_stream()


def test_device_classes_have_no_constructor():
    for cls in (ort.OrtEpDevice, ort.OrtHardwareDevice, ort.OrtSyncStream):
        with pytest.raises(TypeError, match="No constructor defined"):
            cls()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("processor\t: 0\nvendor_id\t: GenuineIntel\n", ("Intel", 0x8086)),
        ("processor\t: 0\nvendor_id\t: AuthenticAMD\n", ("AMD", 0x1022)),
        ("processor\t: 0\nvendor_id\t: HygonGenuine\n", ("unknown", 0)),
        ("processor\t: 0\nCPU implementer\t: 0x41\n", ("ARM", 0x13B5)),
        ("processor\t: 0\nCPU implementer\t: 0x51\n", ("Qualcomm", 0x4D4F4351)),
        ("processor\t: 0\nCPU implementer\t: 0x61\n", ("Apple", 0x106B)),
        ("processor\t: 0\n", ("unknown", 0)),
    ],
)
def test_the_cpu_vendor_is_named_as_onnxruntime_names_it(tmp_path, text, expected):
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    assert _devices._cpu_vendor(str(path)) == expected
    assert _devices._cpu_vendor(str(tmp_path / "missing")) == ("unknown", 0)


# ---- Provider libraries ----------------------------------------------------------------------------


def test_registering_a_library_that_cannot_be_loaded_fails_as_in_onnxruntime(tmp_path):
    missing = str(tmp_path / "libmissing_ep.so")
    with pytest.raises(ort.Fail, match="Failed to load library .*libmissing_ep.so with error: .*No such file"):
        ort.register_execution_provider_library("missing", missing)
    # A relative path is taken from the package's kiln/capi folder, as onnxruntime's from its own.
    capi = os.path.dirname(os.path.abspath(state._kiln.__file__))
    with pytest.raises(ort.Fail, match="Failed to load library " + capi):
        ort.register_execution_provider_library("missing", "libnot_there.so")
    # A shared library without the plugin entry points.
    with pytest.raises(ort.Fail, match="Failed to get symbol CreateEpFactories with error"):
        ort.register_execution_provider_library("not_an_ep", state._kiln.__file__)
    with pytest.raises(TypeError):
        ort.register_execution_provider_library(1, missing)
    with pytest.raises(TypeError):
        ort.register_execution_provider_library("x", tmp_path / "libx.so")
    assert [d.ep_name for d in ort.get_ep_devices()] == ["CPUExecutionProvider"]


@pytest.fixture(scope="module")
def fake_plugin(tmp_path_factory):
    """A shared library exporting onnxruntime's plugin entry points (never called)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("plugin")
    src = d / "plugin.c"
    src.write_text(
        "void* CreateEpFactories(void) { return 0; }\nvoid* ReleaseEpFactory(void) { return 0; }\n"
    )
    lib = d / "libfake_ep.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return str(lib)


def test_an_onnxruntime_plugin_library_cannot_run_in_kiln(fake_plugin):
    with pytest.raises(ort.Fail, match="Failed to register EP library under 'fake' with error: .*cannot run"):
        ort.register_execution_provider_library("fake", fake_plugin)
    # The CPU provider's registration name is taken.
    with pytest.raises(ort.Fail, match="library is already registered under CPUExecutionProvider"):
        ort.register_execution_provider_library("CPUExecutionProvider", fake_plugin)
    with pytest.raises(ort.Fail, match="Execution provider library: fake was not registered."):
        ort.unregister_execution_provider_library("fake")
    assert [d.ep_name for d in ort.get_ep_devices()] == ["CPUExecutionProvider"]


def test_unregistering_the_cpu_provider_library_removes_its_device(models):
    # In a child process: the registry is process-wide.
    code = (
        "import kiln as ort, numpy as np\n"
        "ort.unregister_execution_provider_library('CPUExecutionProvider')\n"
        "assert ort.get_ep_devices() == []\n"
        f"s = ort.InferenceSession({models['add']!r})\n"
        "assert s.get_input_epdevices() == [None, None]\n"
        "x = np.ones((1, 3), np.float32)\n"
        "assert (s.run(None, {'x': x, 'y': x})[0] == 2).all()\n"
        "try:\n"
        "    ort.unregister_execution_provider_library('CPUExecutionProvider')\n"
        "except ort.Fail as e:\n"
        "    print('Fail:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
    assert "Fail: Execution provider library: CPUExecutionProvider was not registered." in out.stdout


def test_has_collective_ops_is_false():
    assert ort.has_collective_ops() is False


def test_create_and_register_allocator_v2():
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    assert ort.create_and_register_allocator_v2("CPUExecutionProvider", info, {}, None) is None
    assert ort.create_and_register_allocator_v2("CPUExecutionProvider", info, {"k": "v"}, ort.OrtArenaCfg(0, -1, -1, -1)) is None
    with pytest.raises(RuntimeError, match="CUDAExecutionProvider is not implemented in CreateAndRegisterAllocatorV2"):
        ort.create_and_register_allocator_v2("CUDAExecutionProvider", info, {}, None)
    cuda = ort.OrtMemoryInfo("Cuda", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    with pytest.raises(RuntimeError, match="Only CPU devices are supported"):
        ort.create_and_register_allocator_v2("CPUExecutionProvider", cuda, {}, None)
    with pytest.raises(TypeError):
        ort.create_and_register_allocator_v2("CPUExecutionProvider", "Cpu", {}, None)
    with pytest.raises(TypeError):
        ort.create_and_register_allocator_v2("CPUExecutionProvider", info, {"k": 1}, None)


def test_memory_info_has_onnxruntime_1_23_properties():
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    assert info.name == "Cpu"
    assert info.allocator_type == ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR
    assert info.device_id == 0 and info.device_vendor_id == 0
    assert info.mem_type == ort.OrtMemType.DEFAULT
    assert info.device_mem_type == ort.OrtDeviceMemoryType.DEFAULT
    pinned = ort.OrtMemoryInfo("CudaPinned", ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0, ort.OrtMemType.CPU)
    assert pinned.device_mem_type == ort.OrtDeviceMemoryType.HOST_ACCESSIBLE


# ---- copy_tensors ------------------------------------------------------------------------------------


def test_copy_tensors_copies_each_source_into_its_destination():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[1, 2], [3, 4]], np.int64)
    src = [ort.OrtValue.ortvalue_from_numpy(a), ort.OrtValue.ortvalue_from_numpy(b)]
    dst = [ort.OrtValue.ortvalue_from_shape_and_type([2, 3], np.float32), ort.OrtValue.ortvalue_from_shape_and_type([2, 2], np.int64)]
    assert ort.copy_tensors(src, dst) is None
    np.testing.assert_array_equal(dst[0].numpy(), a)
    np.testing.assert_array_equal(dst[1].numpy(), b)
    assert dst[0].data_ptr() != src[0].data_ptr()
    # Into a caller's array, in place; the same tensor as both is a no-op.
    out = np.zeros((2, 3), np.float32)
    target = ort.OrtValue.ortvalue_from_numpy(out)
    ort.copy_tensors([src[0], target], [target, target], None)
    np.testing.assert_array_equal(out, a)


def test_copy_tensors_copies_strings_and_takes_the_c_level_values():
    s = np.array(["a", "bb", "ccc"], dtype=object)
    src = C.OrtValue.ortvalue_from_numpy(s)
    dst = C.OrtValue.ortvalue_from_numpy(np.array(["", "", ""], dtype=object))
    C.copy_tensors([src], [dst], None)
    assert dst.numpy().tolist() == ["a", "bb", "ccc"]


def test_copy_tensors_errors_are_runtime_errors():
    f = ort.OrtValue.ortvalue_from_numpy(np.zeros((2, 3), np.float32))
    small = ort.OrtValue.ortvalue_from_numpy(np.zeros((2,), np.float32))
    with pytest.raises(RuntimeError, match="24 bytes, the destination 8"):
        ort.copy_tensors([f], [small])
    with pytest.raises(RuntimeError, match="1 source tensors and 2 destination"):
        ort.copy_tensors([f], [f, f])
    with pytest.raises(RuntimeError, match="OrtSyncStream"):
        ort.copy_tensors([f], [f], 1234)
    text = ort.OrtValue.ortvalue_from_numpy(np.array(["a"] * 6, dtype=object).reshape(2, 3))
    with pytest.raises(RuntimeError, match="string tensor and a non-string"):
        ort.copy_tensors([text], [f])
    readonly = np.zeros((2, 3), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        ort.copy_tensors([f], [ort.OrtValue.ortvalue_from_numpy(readonly)])
    with pytest.raises(TypeError):
        C.copy_tensors([np.zeros(3)], [f._get_c_value()], None)
    # A refused pair leaves every destination as it was, the pairs before it included.
    src = ort.OrtValue.ortvalue_from_numpy(np.ones((2, 3), np.float32))
    dst = ort.OrtValue.ortvalue_from_numpy(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError, match="24 bytes, the destination 8"):
        ort.copy_tensors([src, f], [dst, small])
    assert (dst.numpy() == 0).all()


# ---- Sessions: memory infos and input devices ------------------------------------------------------


@pytest.fixture(scope="module")
def unused_input_model(tmp_path_factory):
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("unused", TensorProto.FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return save(model, tmp_path_factory.mktemp("unused"), "unused.onnx")


def test_sessions_report_where_inputs_and_outputs_live(models):
    sess = ort.InferenceSession(models["add"])
    ins, outs = sess.get_input_memory_infos(), sess.get_output_memory_infos()
    assert len(ins) == 2 and len(outs) == 1
    for info in ins + outs:
        assert isinstance(info, ort.OrtMemoryInfo)
        assert info.name == "Cpu"
        assert info.allocator_type == ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR
        assert info.device_id == 0 and info.mem_type == ort.OrtMemType.DEFAULT
        assert info.device_mem_type == ort.OrtDeviceMemoryType.DEFAULT
    so = ort.SessionOptions()
    so.enable_cpu_mem_arena = False
    no_arena = ort.InferenceSession(models["add"], so)
    assert no_arena.get_input_memory_infos()[0].allocator_type == ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR
    # Kept after close(), as onnxruntime keeps them in the Python object.
    sess.close()
    assert sess.get_output_memory_infos() == outs


def test_input_epdevices_are_the_cpu_device_or_none_for_an_unread_input(models, unused_input_model):
    sess = ort.InferenceSession(models["add"])
    assert sess.get_input_epdevices() == [cpu_device(), cpu_device()]
    sess = ort.InferenceSession(unused_input_model)
    assert [i.name for i in sess.get_inputs()] == ["x", "unused"]
    assert sess.get_input_epdevices() == [cpu_device(), None]
    c_sess = sess._sess
    assert c_sess.input_epdevices == [cpu_device(), None]
    assert len(c_sess.input_meminfos) == 2 and len(c_sess.output_meminfos) == 1


# ---- SessionOptions: providers -----------------------------------------------------------------------


def test_add_provider_puts_sessions_on_it(models):
    so = ort.SessionOptions()
    assert so.has_providers() is False
    assert so.add_provider("CPUExecutionProvider", {"opt": "1"}) is None
    assert so.has_providers() is True
    sess = ort.InferenceSession(models["add"], so)
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert sess.get_provider_options() == {"CPUExecutionProvider": {"opt": "1"}}
    x, y = xy()
    np.testing.assert_array_equal(sess.run(None, {"x": x, "y": y})[0], x + y)


def test_add_provider_refuses_what_a_cpu_only_onnxruntime_refuses(tmp_path):
    so = ort.SessionOptions()
    with pytest.raises(ort.InvalidArgument, match="Failed to add provider of type 'CUDAExecutionProvider'"):
        so.add_provider("CUDAExecutionProvider", {})
    with pytest.raises(RuntimeError, match="Unknown Provider Type: NoSuchProvider"):
        so.add_provider("NoSuchProvider", {})
    missing = str(tmp_path / "libprovider.so")
    with pytest.raises(RuntimeError, match="Failed to load library .*libprovider.so"):
        so.add_provider("MyProvider", {"shared_lib_path": missing})
    with pytest.raises(ort.Fail, match="Failed to get symbol GetProvider"):
        so.add_provider("MyProvider", {"shared_lib_path": state._kiln.__file__})
    with pytest.raises(TypeError):
        so.add_provider("CPUExecutionProvider")
    with pytest.raises(TypeError):
        so.add_provider("CPUExecutionProvider", {"a": 1})
    assert so.has_providers() is False


def test_a_provider_added_twice_fails_session_creation(models):
    so = ort.SessionOptions()
    so.add_provider("CPUExecutionProvider", {})
    so.add_provider_for_devices([cpu_device()], {})
    with pytest.raises(ort.Fail, match="Provider CPUExecutionProvider has already been registered."):
        ort.InferenceSession(models["add"], so)


def test_providers_given_to_the_session_win_with_a_warning(models):
    so = ort.SessionOptions()
    so.add_provider("CPUExecutionProvider", {"from": "options"})
    with pytest.warns(UserWarning, match="SessionOptions has already been configured with providers"):
        sess = ort.InferenceSession(models["add"], so, providers=[("CPUExecutionProvider", {"from": "session"})])
    assert sess.get_provider_options() == {"CPUExecutionProvider": {"from": "session"}}


def test_add_provider_for_devices(models):
    so = ort.SessionOptions()
    assert so.add_provider_for_devices(ort.get_ep_devices(), {"key": "value"}) is None
    assert so.has_providers()
    # The options become config entries under the provider's lowercase name, as in onnxruntime.
    assert so.get_session_config_entry("ep.cpuexecutionprovider.key") == "value"
    sess = ort.InferenceSession(models["add"], so)
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert sess.get_provider_options() == {"CPUExecutionProvider": {}}
    x, y = xy()
    np.testing.assert_array_equal(sess.run(None, {"x": x, "y": y})[0], x + y)
    with pytest.raises(ort.InvalidArgument, match="Must provide one or more OrtEpDevice instances."):
        ort.SessionOptions().add_provider_for_devices([], {})
    with pytest.raises(TypeError):
        ort.SessionOptions().add_provider_for_devices(["CPUExecutionProvider"], {})
    with pytest.raises(TypeError):
        ort.SessionOptions().add_provider_for_devices(ort.get_ep_devices(), {"k": 2})


@pytest.mark.parametrize("policy", list(ort.OrtExecutionProviderDevicePolicy))
def test_every_selection_policy_selects_the_cpu(models, policy):
    so = ort.SessionOptions()
    assert so.set_provider_selection_policy(policy) is None
    assert so.has_providers()
    sess = ort.InferenceSession(models["add"], so)
    assert sess.get_providers() == ["CPUExecutionProvider"]
    x, y = xy()
    np.testing.assert_array_equal(sess.run(None, {"x": x, "y": y})[0], x + y)


def test_selection_policy_takes_the_enum_only():
    with pytest.raises(TypeError):
        ort.SessionOptions().set_provider_selection_policy(1)


# ---- SessionOptions: load cancellation ---------------------------------------------------------------


def test_load_cancellation_flag(models):
    so = ort.SessionOptions()
    assert so.set_load_cancellation_flag(True) is None
    with pytest.raises(ort.ModelLoadCanceled, match="canceled due to user request"):
        ort.InferenceSession(models["add"], so)
    so.set_load_cancellation_flag(False)
    ort.InferenceSession(models["add"], so)
    with pytest.raises(TypeError):
        so.set_load_cancellation_flag(1)


def test_load_cancellation_set_while_the_session_is_made(models, monkeypatch):
    so = ort.SessionOptions()
    made = []
    real = state._kiln.Session

    def slow_session(model, options):
        native = real(model, options)
        made.append(native)
        # Another thread cancels while the session is being made.
        t = threading.Thread(target=so.set_load_cancellation_flag, args=(True,))
        t.start()
        t.join()
        return native

    monkeypatch.setattr(state._kiln, "Session", slow_session)
    with pytest.raises(ort.ModelLoadCanceled):
        ort.InferenceSession(models["add"], so)
    with pytest.raises(ort.InvalidArgument):  # the session made meanwhile was dropped
        made[0].run(None, {"x": np.ones((1, 3), np.float32), "y": np.ones((1, 3), np.float32)}, None, False)


# ---- ModelCompiler -------------------------------------------------------------------------------


def nodes_of(model_bytes):
    m = onnx.load_from_string(model_bytes)
    return [(n.op_type, list(n.input), list(n.output)) for n in m.graph.node]


def test_compiling_for_the_cpu_gives_the_model_unchanged(models):
    source = open(models["digits"], "rb").read()
    so = ort.SessionOptions()
    compiled = ort.ModelCompiler(so, models["digits"]).compile_to_bytes()
    assert isinstance(compiled, bytes)
    assert nodes_of(compiled) == nodes_of(source)
    m = onnx.load_from_string(compiled)
    assert sorted(i.name for i in m.graph.initializer) == sorted(i.name for i in onnx.load_from_string(source).graph.initializer)
    x = np.random.default_rng(0).random((1, 1, 8, 8), dtype=np.float32)
    name = ort.InferenceSession(source).get_inputs()[0].name
    expected = ort.InferenceSession(source).run(None, {name: x})
    got = ort.InferenceSession(compiled).run(None, {name: x})
    np.testing.assert_array_equal(got[0], expected[0])
    # From bytes, with a policy or providers: the same.
    so.set_provider_selection_policy(ort.OrtExecutionProviderDevicePolicy.PREFER_NPU)
    assert nodes_of(ort.ModelCompiler(so, source).compile_to_bytes()) == nodes_of(source)


def test_compile_to_file_and_its_default_path(tmp_path, models):
    src = tmp_path / "model.onnx"
    shutil.copy(models["add"], src)
    compiler = ort.ModelCompiler(ort.SessionOptions(), src)
    out = tmp_path / "out.onnx"
    assert compiler.compile_to_file(out) is None
    assert nodes_of(out.read_bytes()) == nodes_of(src.read_bytes())
    compiler.compile_to_file()
    assert (tmp_path / "model_ctx.onnx").exists()
    # Overwritten unless ERROR_IF_OUTPUT_FILE_EXISTS.
    compiler.compile_to_file(str(out))
    strict = ort.ModelCompiler(
        ort.SessionOptions(), str(src), flags=ort.OrtCompileApiFlags.ERROR_IF_OUTPUT_FILE_EXISTS
    )
    with pytest.raises(ort.InvalidArgument, match="exist already"):
        strict.compile_to_file(str(out))
    strict.compile_to_file(str(tmp_path / "new.onnx"))
    # A model given as bytes needs an output path.
    with pytest.raises(ort.InvalidArgument, match="Unable to generate an output model path"):
        ort.ModelCompiler(ort.SessionOptions(), src.read_bytes()).compile_to_file()
    with pytest.raises(TypeError):
        compiler.compile_to_file(3)


def test_compile_to_stream(models):
    chunks = []
    ort.ModelCompiler(ort.SessionOptions(), models["add"]).compile_to_stream(chunks.append)
    assert nodes_of(b"".join(chunks)) == nodes_of(open(models["add"], "rb").read())

    def broken(data):
        raise OSError("disk full")

    with pytest.raises(ort.Fail, match="disk full"):
        ort.ModelCompiler(ort.SessionOptions(), models["add"]).compile_to_stream(broken)


def test_compiling_nothing_fails_with_error_if_no_nodes_compiled(models):
    flags = ort.OrtCompileApiFlags.ERROR_IF_NO_NODES_COMPILED
    with pytest.raises(ort.Fail, match="Unable to compile any nodes"):
        ort.ModelCompiler(ort.SessionOptions(), models["add"], flags=flags).compile_to_bytes()


def test_compile_with_external_initializers(tmp_path, models):
    src = tmp_path / "digits.onnx"
    shutil.copy(models["digits"], src)
    out = tmp_path / "out" / "digits_ctx.onnx"
    out.parent.mkdir()
    compiler = ort.ModelCompiler(
        ort.SessionOptions(), src, external_initializers_file_path="weights.bin", external_initializers_size_threshold=256
    )
    compiler.compile_to_file(out)
    weights = out.parent / "weights.bin"
    assert weights.exists() and weights.stat().st_size > 0
    m = onnx.load(str(out), load_external_data=False)
    external = [t for t in m.graph.initializer if t.data_location == TensorProto.EXTERNAL]
    inline = [t for t in m.graph.initializer if t.data_location != TensorProto.EXTERNAL]
    assert external and all(len(t.raw_data) < 256 for t in inline)
    for t in external:
        entries = {e.key: e.value for e in t.external_data}
        assert entries["location"] == "weights.bin" and int(entries["length"]) >= 256
    name = ort.InferenceSession(str(src)).get_inputs()[0].name
    x = np.ones((1, 1, 8, 8), np.float32)
    np.testing.assert_array_equal(
        ort.InferenceSession(str(out)).run(None, {name: x})[0], ort.InferenceSession(str(src)).run(None, {name: x})[0]
    )


def test_compile_optimized(models):
    compiled = ort.ModelCompiler(
        ort.SessionOptions(), models["digits"], graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    ).compile_to_bytes()
    sess = ort.InferenceSession(compiled)
    x = np.ones((1, 1, 8, 8), np.float32)
    name = sess.get_inputs()[0].name
    np.testing.assert_allclose(
        sess.run(None, {name: x})[0], ort.InferenceSession(models["digits"]).run(None, {name: x})[0], rtol=1e-5, atol=1e-5
    )


def test_model_compiler_argument_errors(tmp_path, models):
    so = ort.SessionOptions()
    with pytest.raises(ValueError, match="Input model path is empty"):
        ort.ModelCompiler(so, "")
    with pytest.raises(ValueError, match="Input model bytes array is empty"):
        ort.ModelCompiler(so, b"")
    with pytest.raises(TypeError, match="Unable to load from type"):
        ort.ModelCompiler(so, 3)
    with pytest.raises(TypeError, match="external initializer filepath"):
        ort.ModelCompiler(so, models["add"], external_initializers_file_path=3)
    with pytest.raises(ort.InvalidArgument, match="Input model path does not exist"):
        ort.ModelCompiler(so, str(tmp_path / "missing.onnx")).compile_to_bytes()
    with pytest.raises(ort.InvalidProtobuf):
        ort.ModelCompiler(so, b"not a model").compile_to_bytes()
    with pytest.raises(ort.NotImplemented, match="get_initializer_location_func"):
        ort.ModelCompiler(so, models["add"], get_initializer_location_func=lambda *a: None)
    so.set_load_cancellation_flag(True)
    with pytest.raises(ort.ModelLoadCanceled):
        ort.ModelCompiler(so, models["add"]).compile_to_bytes()


# ---- preload_dlls ------------------------------------------------------------------------------------


def test_preload_dlls_without_cuda(capsys):
    assert ort.preload_dlls() is None
    assert "is not built with CUDA 12.x support" in capsys.readouterr().out
    assert ort.preload_dlls(cuda=False, cudnn=False) is None
    assert capsys.readouterr().out == ""
    assert ort.preload_dlls(cuda=False, cudnn=False, msvc=True, directory="nowhere") is None
