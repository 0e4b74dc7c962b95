"""Overridable initializers, initializers from caller memory, free dimensions by denotation, run
config entries and the profiling start time (the C ABI entries of slots 79-87)."""

import time

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kiln as ort
from conftest import make_model


def weighted_model(listed_as_input=True):
    """y = MatMul(x, w) with w an initializer, also listed as a graph input (overridable)."""
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])]
    if listed_as_input:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [3, 2]))
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])],
        initializers=[onnx.numpy_helper.from_array(w, "w")],
    )
    return model.SerializeToString(), w


@pytest.mark.parametrize("level", list(ort.GraphOptimizationLevel))
def test_overridable_initializers_are_listed_and_fed(level):
    model, w = weighted_model()
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    sess = ort.InferenceSession(model, so)
    assert [i.name for i in sess.get_inputs()] == ["x"]
    (init,) = sess.get_overridable_initializers()
    assert (init.name, init.type, init.shape) == ("w", "tensor(float)", [3, 2])
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], x @ w)
    w2 = np.full((3, 2), 2.0, np.float32)
    np.testing.assert_allclose(sess.run(None, {"x": x, "w": w2})[0], x @ w2)
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], x @ w)  # the default again
    with pytest.raises(ort.InvalidArgument, match="w"):
        sess.run(None, {"x": x, "w": np.ones((2, 2), np.float32)})


def test_an_initializer_not_listed_as_input_is_not_overridable():
    model, _ = weighted_model(listed_as_input=False)
    sess = ort.InferenceSession(model)
    assert sess.get_overridable_initializers() == []
    with pytest.raises(ort.InvalidArgument, match="w"):
        sess.run(None, {"x": np.ones((1, 3), np.float32), "w": np.ones((3, 2), np.float32)})


def test_add_initializer_shares_the_callers_memory():
    model, w = weighted_model(listed_as_input=False)
    mine = np.full((3, 2), 3.0, np.float32)
    so = ort.SessionOptions()
    so.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(mine))
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model, so)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], x @ mine)
    mine[...] = 5.0  # shared, not copied: the session reads the new values
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], x @ mine)
    bad = ort.SessionOptions()
    bad.add_initializer("no_such", ort.OrtValue.ortvalue_from_numpy(mine))
    with pytest.raises(ort.InvalidArgument, match="no_such"):
        ort.InferenceSession(model, bad)
    wrong = ort.SessionOptions()
    wrong.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(np.ones((2, 2), np.float32)))
    with pytest.raises(ort.InvalidArgument, match="w"):
        ort.InferenceSession(model, wrong)
    with pytest.raises(TypeError):
        ort.SessionOptions().add_initializer("w", mine)  # an array, not an OrtValue


def test_add_external_initializers():
    model, _ = weighted_model(listed_as_input=False)
    w = np.full((3, 2), 0.5, np.float32)
    so = ort.SessionOptions()
    so.add_external_initializers(["w"], [ort.OrtValue.ortvalue_from_numpy(w)])
    sess = ort.InferenceSession(model, so)
    np.testing.assert_allclose(sess.run(None, {"x": np.ones((1, 3), np.float32)})[0], np.full((1, 2), 1.5))
    with pytest.raises(ort.InvalidArgument):
        so.add_external_initializers(["w", "v"], [ort.OrtValue.ortvalue_from_numpy(w)])


def test_free_dimension_override_by_denotation():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
    x.type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
    ).SerializeToString()
    so = ort.SessionOptions()
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 4)
    sess = ort.InferenceSession(model, so)
    assert sess.get_inputs()[0].shape == [4, 3]
    sess.run(None, {"x": np.ones((4, 3), np.float32)})
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": np.ones((2, 3), np.float32)})


def test_run_config_entries_act(models):
    sess = ort.InferenceSession(models["add"])
    x = np.full((2, 3), np.inf, np.float32)
    sess.run(None, {"x": x, "y": x})  # the session does not check
    ro = ort.RunOptions()
    ro.add_run_config_entry("kiln.run.check_finite", "1")
    with pytest.raises(ort.RuntimeException, match="NaN or infinity"):
        sess.run(None, {"x": x, "y": x}, ro)
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    ok = np.ones((2, 3), np.float32)
    sess.run(None, {"x": ok, "y": ok}, ro)
    with pytest.raises(ort.InvalidArgument, match="kiln.no.such"):
        ro.add_run_config_entry("kiln.no.such", "1")
    with pytest.raises(ort.InvalidArgument):
        ro.add_run_config_entry("kiln.run.check_finite", "maybe")
    ro.add_run_config_entry("run.some_onnxruntime_key", "x")  # kept, read back
    assert ro.get_run_config_entry("run.some_onnxruntime_key") == "x"


def test_profiling_start_time(models, tmp_path):
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "p")
    before = time.time_ns()
    sess = ort.InferenceSession(models["add"], so)
    after = time.time_ns()
    assert before <= sess.get_profiling_start_time_ns() <= after
    assert ort.InferenceSession(models["add"]).get_profiling_start_time_ns() == 0


@pytest.mark.parametrize("level", list(ort.GraphOptimizationLevel))
def test_optimized_model_filepath_writes_a_loadable_model(models, tmp_path, level):
    path = tmp_path / "optimized.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.optimized_model_filepath = str(path)
    sess = ort.InferenceSession(models["digits"], so)
    assert path.exists() and path.stat().st_size > 0
    x = np.random.default_rng(2).standard_normal((3, 1, 8, 8)).astype(np.float32)
    name = sess.get_inputs()[0].name
    (want,) = sess.run(None, {name: x})
    same_level = ort.SessionOptions()
    same_level.graph_optimization_level = level
    written = ort.InferenceSession(str(path), same_level)
    assert written.get_inputs()[0].name == name
    (got,) = written.run(None, {name: x})
    np.testing.assert_array_equal(got, want)
    # Loaded with the defaults, it is optimized further (to level 3): the same within rounding.
    (again,) = ort.InferenceSession(str(path)).run(None, {name: x})
    np.testing.assert_allclose(again, want, rtol=1e-5, atol=1e-5)
    bad = ort.SessionOptions()
    bad.optimized_model_filepath = str(tmp_path / "no_such_dir" / "m.onnx")
    with pytest.raises((ort.NoSuchFile, ort.Fail), match="no_such_dir"):
        ort.InferenceSession(models["digits"], bad)


def test_an_overridable_initializer_survives_the_optimized_model_file(tmp_path):
    model, w = weighted_model()
    path = tmp_path / "written.onnx"
    so = ort.SessionOptions()
    so.optimized_model_filepath = str(path)
    ort.InferenceSession(model, so)
    written = ort.InferenceSession(str(path))
    assert [i.name for i in written.get_overridable_initializers()] == ["w"]
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(written.run(None, {"x": x})[0], x @ w)
    w2 = np.full((3, 2), -1.0, np.float32)
    np.testing.assert_allclose(written.run(None, {"x": x, "w": w2})[0], x @ w2)
