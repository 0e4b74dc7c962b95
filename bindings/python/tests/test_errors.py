"""Bad input raises what onnxruntime raises, with Kiln's message (entry, argument, node)."""

import numpy as np
import pytest

import kiln as ort
from kiln.capi import onnxruntime_pybind11_state as state


def feed():
    x = np.ones((2, 3), np.float32)
    return {"x": x, "y": x}


def test_error_classes_are_importable_from_both_places():
    names = ["Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError", "RuntimeException",
             "InvalidProtobuf", "ModelLoaded", "NotImplemented", "InvalidGraph", "EPFail"]
    for n in names:
        assert getattr(ort, n) is getattr(state, n)
        assert issubclass(getattr(ort, n), Exception)
    assert issubclass(ort.Terminated, ort.Fail)
    assert issubclass(ort.OutOfMemory, ort.RuntimeException) and issubclass(ort.OutOfMemory, MemoryError)


def test_missing_input_is_a_value_error(models):
    sess = ort.InferenceSession(models["add"])
    with pytest.raises(ValueError, match=r"Required inputs \(\['y'\]\) are missing from input feed \(\['x'\]\)"):
        sess.run(None, {"x": np.ones((2, 3), np.float32)})


def test_unknown_names(models):
    sess = ort.InferenceSession(models["add"])
    f = feed()
    f["nope"] = np.ones(1, np.float32)
    with pytest.raises(ort.InvalidArgument, match="nope"):
        sess.run(None, f)
    with pytest.raises(ort.InvalidArgument, match="no_such_output") as e:
        sess.run(["no_such_output"], feed())
    assert "Run" in str(e.value) and e.value.code == 2


def test_wrong_dtype_rank_and_shape(models):
    sess = ort.InferenceSession(models["add"])
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ort.InvalidArgument, match="'y'|y"):
        sess.run(None, {"x": x, "y": x.astype(np.float64)})
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": x, "y": np.ones((2, 3, 1), np.float32)})
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": x, "y": np.ones((2, 4), np.float32)})
    with pytest.raises(ort.InvalidArgument):  # batch is one size for both inputs
        sess.run(None, {"x": x, "y": np.ones((3, 3), np.float32)})


def test_a_failing_node_is_named(models):
    sess = ort.InferenceSession(models["bad_reshape"])
    with pytest.raises((ort.RuntimeException, ort.InvalidArgument, ort.EngineError, ort.Fail), match="the_reshape"):
        sess.run(None, {"x": np.ones(5, np.float32), "shape": np.array([2, 2], np.int64)})


def test_bad_models(tmp_path):
    with pytest.raises(ort.NoSuchFile, match="no_such.onnx"):
        ort.InferenceSession(str(tmp_path / "no_such.onnx"))
    with pytest.raises(ort.InvalidProtobuf):
        ort.InferenceSession(b"this is not an onnx model")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x08\x07\x12\x03abc\xff\xff\xff")
    with pytest.raises((ort.InvalidProtobuf, ort.InvalidGraph)):
        ort.InferenceSession(str(junk))


@pytest.mark.parametrize("bad", [None, 42, 3.5, ["model.onnx"], {"path": "m"}])
def test_wrong_type_for_the_model(bad):
    with pytest.raises(TypeError, match="Unable to load from type"):
        ort.InferenceSession(bad)


def test_wrong_python_types_for_run_arguments(models):
    sess = ort.InferenceSession(models["add"])
    with pytest.raises(TypeError):
        sess.run(None, [np.ones((2, 3), np.float32)])  # a list for the feed dict
    with pytest.raises(TypeError):
        sess.run("z", feed())  # a str for the list of names
    with pytest.raises(TypeError):
        sess.run([1], feed())
    with pytest.raises(TypeError):
        sess.run(None, {1: np.ones((2, 3), np.float32)})
    with pytest.raises(TypeError):
        ort.InferenceSession(models["add"], sess_options="fast")
    with pytest.raises(TypeError):
        sess.run_with_ort_values(None, {"x": np.ones((2, 3), np.float32)})
    with pytest.raises(TypeError):
        sess.run_async(None, feed(), "not callable", None)
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": np.array([object()]), "y": np.ones((2, 3), np.float32)})


def test_closed_session_raises(models):
    sess = ort.InferenceSession(models["add"])
    (z,) = sess.run(None, feed())
    sess.close()
    with pytest.raises(ort.InvalidArgument, match="closed"):
        sess.run(None, feed())
    with pytest.raises(ort.InvalidArgument, match="closed"):
        sess.io_binding()
    assert z.sum() == 12  # outputs outlive the session


def test_failure_leaves_preallocated_output_untouched(models):
    sess = ort.InferenceSession(models["add"])
    binding = sess.io_binding()
    z = np.full((2, 3), -1, np.float32)
    binding.bind_cpu_input("x", np.ones((2, 3), np.float32))
    binding.bind_cpu_input("y", np.ones((2, 3), np.float64))  # wrong dtype: the run fails
    binding.bind_output("z", "cpu", 0, np.float32, [2, 3], z.ctypes.data)
    with pytest.raises(ort.InvalidArgument):
        sess.run_with_iobinding(binding)
    assert (z == -1).all()
    with pytest.raises(ort.InvalidArgument):
        binding.get_outputs()
