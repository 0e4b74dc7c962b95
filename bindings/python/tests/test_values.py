"""Data between numpy and Kiln: every dtype, 0-d and empty arrays, non-contiguous arrays, lists and
scalars, strings, zero-copy inputs and outputs, OrtValue, DLPack and sparse tensors."""

import numpy as np
import pytest

import kiln as ort

DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]


def sample(dtype, shape=(2, 3)):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 2 == 0).reshape(shape)
    return (np.arange(n) * 3 % 7).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_numeric_dtype_round_trips(models, dtype):
    sess = ort.InferenceSession(models["identity_" + dtype])
    expected = "tensor(%s)" % {"float32": "float", "float64": "double"}.get(dtype, dtype)
    assert sess.get_inputs()[0].type == expected
    for shape in [(2, 3), (), (0,), (4, 0, 2)]:
        x = sample(dtype, shape)
        (y,) = sess.run(None, {"x": x})
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_array_equal(y, x)


def test_strings_round_trip(models):
    sess = ort.InferenceSession(models["identity_string"])
    assert sess.get_inputs()[0].type == "tensor(string)"
    for x in [np.array(["a", "héllo", ""]), np.array([["x", "y"], ["z", "w"]], dtype=object), np.array([b"raw", b"bytes"]), np.array("scalar")]:
        (y,) = sess.run(None, {"x": x})
        assert y.dtype == object and y.shape == x.shape
        expect = [s.decode() if isinstance(s, bytes) else s for s in np.asarray(x, dtype=object).reshape(-1)]
        assert list(y.reshape(-1)) == expect
    (y,) = sess.run(None, {"x": ["list", "of", "str"]})
    assert list(y) == ["list", "of", "str"]
    with pytest.raises(ort.InvalidArgument, match="NUL"):
        sess.run(None, {"x": np.array(["a\0b"], dtype=object)})


def test_bfloat16_as_uint16_bits(models):
    sess = ort.InferenceSession(models["identity_bfloat16"])
    assert sess.get_inputs()[0].type == "tensor(bfloat16)"
    bits = np.array([0x3F80, 0x4000, 0xC040], np.uint16)  # 1.0, 2.0, -3.0
    (y,) = sess.run(None, {"x": bits})
    try:
        import ml_dtypes  # noqa: F401

        assert y.dtype.name == "bfloat16"
        np.testing.assert_array_equal(y.view(np.uint16), bits)
    except ImportError:
        assert y.dtype == np.uint16
        np.testing.assert_array_equal(y, bits)


SUB_BYTE = {  # ONNX element type: (name, the values one per byte, numpy dtype without ml_dtypes)
    21: ("uint4", [0, 1, 7, 8, 15, 3, 0], "uint8"),
    22: ("int4", [-8, -1, 0, 7, 3, -5, 1], "int8"),
    25: ("uint2", [0, 1, 2, 3, 3, 0, 1], "uint8"),
    26: ("int2", [-2, -1, 0, 1, 1, -2, 0], "int8"),
}


@pytest.mark.parametrize("elem", sorted(SUB_BYTE))
def test_four_and_two_bit_tensors_one_element_per_byte(tmp_path, elem):
    from onnx import helper

    from conftest import make_model, save

    name, values, fallback = SUB_BYTE[elem]
    # y = Identity(x) keeps the type; z = Cast(x, int32) shows Kiln read the packed values.
    model = make_model(
        [helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Cast", ["x"], ["z"], to=6)],
        [helper.make_tensor_value_info("x", elem, [None])],
        [helper.make_tensor_value_info("y", elem, [None]), helper.make_tensor_value_info("z", 6, [None])],
        opset=25,
    )
    sess = ort.InferenceSession(save(model, tmp_path, name + ".onnx"))
    assert sess.get_inputs()[0].type == "tensor(%s)" % name
    for n in (7, 6, 1, 0):  # odd counts leave half a byte
        x = np.array(values[:n], dtype=fallback)
        y, z = sess.run(None, {"x": x})
        try:
            import ml_dtypes

            if hasattr(ml_dtypes, name):
                assert y.dtype == np.dtype(getattr(ml_dtypes, name))
                y = y.astype(fallback)
        except ImportError:
            pass
        assert y.dtype == np.dtype(fallback) and y.shape == (n,)
        np.testing.assert_array_equal(y, x)
        np.testing.assert_array_equal(z, x.astype(np.int32))
    low, high = min(values), max(values)
    for bad in (low - 1, high + 1):
        if np.iinfo(fallback).min <= bad <= np.iinfo(fallback).max:
            with pytest.raises(ort.InvalidArgument, match="out of %s's range" % name):
                sess.run(None, {"x": np.array([0, bad], dtype=fallback)})
    with pytest.raises(ort.InvalidArgument):
        sess.run(None, {"x": np.zeros(3, np.int16)})


def test_lists_and_scalars_as_onnxruntime_takes_them(models):
    sess = ort.InferenceSession(models["identity_int64"])
    (y,) = sess.run(None, {"x": [[1, 2], [3, 4]]})
    np.testing.assert_array_equal(y, np.array([[1, 2], [3, 4]]))
    (y,) = sess.run(None, {"x": 5})
    assert y.shape == () and y == 5
    f = ort.InferenceSession(models["identity_float32"])
    with pytest.raises(ort.InvalidArgument, match="x"):  # a float list is float64, as in onnxruntime
        f.run(None, {"x": [1.0, 2.0]})
    (y,) = f.run(None, {"x": np.float32(2.5)})
    assert y == np.float32(2.5)


def test_non_contiguous_inputs_are_copied(models):
    sess = ort.InferenceSession(models["identity_float32"])
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for x in (base[:, ::2], base.T, base[::-1], np.asfortranarray(base)):
        (y,) = sess.run(None, {"x": x})
        np.testing.assert_array_equal(y, x)
    v = ort.OrtValue.ortvalue_from_numpy(base.T)
    assert v.data_ptr() != base.ctypes.data
    np.testing.assert_array_equal(v.numpy(), base.T)


def test_contiguous_input_is_not_copied_and_outputs_own_their_buffer(models):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = ort.OrtValue.ortvalue_from_numpy(x)
    assert v.data_ptr() == x.ctypes.data
    x[0, 0] = 42  # the value reads the array's memory
    assert v.numpy()[0, 0] == 42
    assert np.shares_memory(v.numpy(), x)
    sess = ort.InferenceSession(models["add"])
    (z,) = sess.run(None, {"x": x, "y": x})
    assert z.base is not None and not z.flags.owndata
    assert z.flags.writeable and z.flags.c_contiguous
    z[...] = 0  # the caller owns the output


def test_pass_through_output_never_aliases_the_input(models):
    sess = ort.InferenceSession(models["identity"])
    x = np.ones((2, 3), np.float32)
    (y,) = sess.run(None, {"x": x})
    assert not np.shares_memory(x, y)
    y[...] = 7
    assert (x == 1).all()
    v = sess.run_with_ort_values(None, {"x": ort.OrtValue.ortvalue_from_numpy(x)})[0]
    assert v.data_ptr() != x.ctypes.data


def test_output_outlives_its_session(models):
    sess = ort.InferenceSession(models["add"])
    x = np.ones((2, 3), np.float32)
    (z,) = sess.run(None, {"x": x, "y": x})
    values = sess.run_with_ort_values(None, {"x": ort.OrtValue.ortvalue_from_numpy(x), "y": ort.OrtValue.ortvalue_from_numpy(x)})
    del sess
    import gc

    gc.collect()
    np.testing.assert_array_equal(z, 2 * x)
    np.testing.assert_array_equal(values[0].numpy(), 2 * x)


def test_ortvalue_members():
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    v = ort.OrtValue.ortvalue_from_numpy(x)
    assert v.shape() == [3, 2]
    assert v.data_type() == "tensor(int32)"
    assert v.element_type() == 6
    assert v.device_name() == "cpu"
    assert v.is_tensor() and not v.is_tensor_sequence() and v.has_value() and not v.is_sparse_tensor()
    z = ort.OrtValue.ortvalue_from_shape_and_type([2, 2], np.float64)
    assert z.data_type() == "tensor(double)" and (z.numpy() == 0).all()
    z.update_inplace(np.ones((2, 2)))
    assert (z.numpy() == 1).all()
    z2 = ort.OrtValue.ortvalue_from_shape_and_type([3], 7)
    assert z2.data_type() == "tensor(int64)"
    with pytest.raises(ValueError):
        ort.OrtValue("not a value")
    with pytest.raises(ort.InvalidArgument, match="CPU"):
        ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    b = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(np.array([0x3F80], np.uint16), 16)
    assert b.data_type() == "tensor(bfloat16)"


def test_sequence_values(models):
    sess = ort.InferenceSession(models["sequence"])
    a, b = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    seq, n = sess.run_with_ort_values(None, {"a": ort.OrtValue.ortvalue_from_numpy(a), "b": ort.OrtValue.ortvalue_from_numpy(b)})
    assert seq.is_tensor_sequence() and not seq.is_tensor()
    assert seq.data_type() == "seq(tensor(float))"
    items = seq.numpy()
    assert isinstance(items, list) and len(items) == 2
    np.testing.assert_array_equal(items[0], a)


def test_dlpack_is_zero_copy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = ort.OrtValue.ortvalue_from_numpy(x)
    capsule = v.to_dlpack()
    back = ort.OrtValue.from_dlpack(capsule)
    assert back.data_ptr() == x.ctypes.data
    np.testing.assert_array_equal(back.numpy(), x)
    via_array = ort.OrtValue.from_dlpack(x)
    assert via_array.data_ptr() == x.ctypes.data


def test_sparse_tensors():
    values = np.array([1.0, 2.0, 3.0], np.float32)
    coo = ort.SparseTensor.sparse_coo_from_numpy([3, 4], values, np.array([[0, 1], [1, 2], [2, 3]]))
    assert coo.format() == ort.OrtSparseFormat.ORT_SPARSE_COO
    assert coo.dense_shape() == [3, 4]
    assert coo.data_type() == "sparse_tensor(float)"
    np.testing.assert_array_equal(coo.as_coo_view().indices(), [[0, 1], [1, 2], [2, 3]])
    dense = coo.to_dense()
    assert dense[1, 2] == 2.0 and dense.sum() == 6.0
    csr = ort.SparseTensor.sparse_csr_from_numpy([3, 4], values, np.array([1, 2, 3]), np.array([0, 1, 2, 3]))
    assert csr.format() == ort.OrtSparseFormat.ORT_SPARSE_CSRC
    np.testing.assert_array_equal(csr.to_dense(), dense)
    np.testing.assert_array_equal(csr.as_csrc_view().outer(), [0, 1, 2, 3])
    with pytest.raises(ort.InvalidArgument):
        csr.as_coo_view()
    with pytest.raises(ort.InvalidArgument):
        ort.SparseTensor.sparse_csr_from_numpy([3, 4], values, np.array([1, 2]), np.array([0, 1, 2, 3]))
