"""Kiln's graph API in Python: kiln.Model (load, bytes, text, save, print, verify) and the read-only
views kiln.Graph / Node / ValueInfo of a model and of a session's graphs."""

import gc
import pathlib
import threading
import weakref

import numpy as np
import onnx
import onnx.checker
import onnx.parser
import pytest
from conftest import make_model, save
from onnx import TensorProto, helper, numpy_helper

import kiln

W = np.arange(12, dtype=np.float32).reshape(3, 4) / 8
B = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
CONV_W = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
CONV_B = np.random.default_rng(2).standard_normal(4).astype(np.float32)


@pytest.fixture(scope="module")
def graph_models(tmp_path_factory):
    """Paths of this file's models, by name."""
    d = tmp_path_factory.mktemp("graph_models")
    m = {}
    # y = x @ w + b, x of shape [N, 3]: initializers, and a MatMul + Add the optimizer fuses.
    m["affine"] = save(
        make_model(
            [
                helper.make_node("MatMul", ["x", "w"], ["xw"], name="mm"),
                helper.make_node("Add", ["xw", "b"], ["y"], name="add"),
            ],
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
            initializers=[numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b")],
        ),
        d,
        "affine.onnx",
    )
    # Conv + Relu, which the optimizer fuses into one node.
    m["conv_relu"] = save(
        make_model(
            [
                helper.make_node("Conv", ["x", "W", "B"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                helper.make_node("Relu", ["c"], ["y"], name="relu"),
            ],
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
            initializers=[numpy_helper.from_array(CONV_W, "W"), numpy_helper.from_array(CONV_B, "B")],
        ),
        d,
        "conv_relu.onnx",
    )
    # No initializers; attributes of several types, an If whose branches read `a` from the main
    # graph, a scalar input and an unknown dimension.
    then_g = helper.make_graph(
        [helper.make_node("Add", ["a", "a"], ["t"], name="then_add")],
        "then_body",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, ["N"])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["a"], ["e"], name="else_neg")],
        "else_body",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["N"])],
    )
    m["control"] = save(
        make_model(
            [
                helper.make_node("If", ["cond"], ["r"], name="branch", then_branch=then_g, else_branch=else_g),
                helper.make_node("LeakyRelu", ["r"], ["lr"], name="leaky", alpha=0.25),
                helper.make_node("Transpose", ["m"], ["mt"], name="tr", perm=[1, 0]),
                helper.make_node("Identity", ["mt"], ["any"], name="id"),
            ],
            [
                helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N"]),
                helper.make_tensor_value_info("m", TensorProto.INT64, [2, None]),
            ],
            [
                helper.make_tensor_value_info("lr", TensorProto.FLOAT, ["N"]),
                helper.make_tensor_value_info("any", TensorProto.INT64, [None, 2]),
            ],
        ),
        d,
        "control.onnx",
    )
    # Constants: TENSOR, STRING, INTS, FLOATS, STRINGS attributes.
    m["constants"] = save(
        make_model(
            [
                helper.make_node(
                    "Constant", [], ["k_t"], name="k_t", value=numpy_helper.from_array(np.array([[1, 2], [3, 4]], np.int32))
                ),
                helper.make_node("Constant", [], ["k_s"], name="k_s", value_string="héllo"),
                helper.make_node("Constant", [], ["k_i"], name="k_i", value_ints=[3, -1, 7]),
                helper.make_node("Constant", [], ["k_f"], name="k_f", value_floats=[0.5, 1.5]),
                helper.make_node("Constant", [], ["k_ss"], name="k_ss", value_strings=["a", "b c"]),
            ],
            [],
            [
                helper.make_tensor_value_info("k_t", TensorProto.INT32, [2, 2]),
                helper.make_tensor_value_info("k_s", TensorProto.STRING, []),
                helper.make_tensor_value_info("k_i", TensorProto.INT64, [3]),
                helper.make_tensor_value_info("k_f", TensorProto.FLOAT, [2]),
                helper.make_tensor_value_info("k_ss", TensorProto.STRING, [2]),
            ],
        ),
        d,
        "constants.onnx",
    )
    # A node of an op Kiln does not know, in a domain the model imports.
    graph = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="frob", domain="org.example")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    unknown = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("org.example", 1)])
    unknown.ir_version = 8
    m["unknown_op"] = save(unknown, d, "unknown_op.onnx")
    # A sequence output.
    m["sequence"] = save(
        make_model(
            [helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
            [
                helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                helper.make_tensor_value_info("b", TensorProto.FLOAT, [2]),
            ],
            [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)],
        ),
        d,
        "sequence.onnx",
    )
    return m


def keep_loaded():
    so = kiln.SessionOptions()
    so.add_session_config_entry("kiln.graph.keep_loaded", "1")
    return so


# ---- Models -------------------------------------------------------------------------------------


def test_names_are_exported():
    for name in ("Model", "Graph", "Node", "ValueInfo", "TypeInfo", "SparseTensorValue"):
        assert getattr(kiln, name).__module__ == "kiln.capi._graph"


def test_load_and_inspect(graph_models):
    model = kiln.Model.load(graph_models["affine"])
    assert model.ir_version == 8
    assert model.opset_imports == {"": 17}
    g = model.graph
    assert isinstance(g, kiln.Graph) and g.name == "g"
    assert g.model is model
    (x,) = g.inputs
    assert x.name == "x" and x.shape == ["N", 3]
    assert str(x.type) == "tensor(float)" and x.type.kind == "tensor" and x.type.element_type == "float"
    assert repr(x) == "ValueInfo(name='x', type='tensor(float)', shape=['N', 3])"
    assert [v.name for v in g.outputs] == ["y"]
    mm, add = g.nodes
    assert (mm.name, mm.op_type, mm.domain) == ("mm", "MatMul", "")
    assert (mm.since_version, add.since_version) == (13, 14)  # ONNX's, at opset 17
    assert mm.kernel == "" and mm.fused_from == []
    assert [v.name for v in mm.inputs] == ["x", "w"] and [v.name for v in mm.outputs] == ["xw"]
    assert mm.attributes == {} and mm.implicit_inputs == []
    # Edges: producer and consumers.
    xw = mm.outputs[0]
    assert xw.producer == mm and xw.consumers == [(add, 0)]
    assert x.producer is None and x.consumers == [(mm, 0)]
    assert not x.is_captured and x.initializer is None
    # Handles are stable: equal wrappers, usable in sets and dicts.
    assert g.nodes[0] == mm and hash(g.nodes[0]) == hash(mm) and len({*g.nodes, *g.nodes}) == 2


def test_initializer_arrays_equal_what_was_given_and_are_read_only(graph_models):
    g = kiln.Model.load(graph_models["affine"]).graph
    inits = {v.name: v for v in g.initializers}
    assert list(inits) == ["b", "w"]  # in name order
    w = inits["w"].initializer
    np.testing.assert_array_equal(w, W)
    np.testing.assert_array_equal(inits["b"].initializer, B)
    assert w.dtype == np.float32 and not w.flags.writeable
    with pytest.raises(ValueError):
        w[0, 0] = 1.0
    # An initializer is read by a node; it has no producer.
    assert inits["w"].producer is None and [n.name for n, _ in inits["w"].consumers] == ["mm"]
    assert str(inits["w"].type) == "tensor(float)" and inits["w"].shape == [3, 4]


def test_from_bytes_and_session_from_model(graph_models):
    data = pathlib.Path(graph_models["affine"]).read_bytes()
    for model in (kiln.Model.from_bytes(data), kiln.Model.from_bytes(bytearray(data))):
        sess = kiln.InferenceSession(model, providers=["CPUExecutionProvider"])
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        (y,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(y, x @ W + B, rtol=1e-6)
        assert [i.name for i in sess.get_inputs()] == ["x"]
        assert sess.get_inputs()[0].shape == ["N", 3]
    # The session works on its own copy: the model may go first.
    model = kiln.Model.from_bytes(data)
    sess = kiln.InferenceSession(model)
    del model
    gc.collect()
    (y,) = sess.run(None, {"x": np.ones((1, 3), np.float32)})
    np.testing.assert_allclose(y, np.ones((1, 3), np.float32) @ W + B, rtol=1e-6)


def test_print_and_parse_back_to_the_same_text(graph_models, capsys):
    for name in ("affine", "conv_relu", "control", "constants"):
        model = kiln.Model.load(graph_models[name])
        text = model.to_text()
        assert str(model) == text
        assert text.startswith("<\n  ir_version: 8,\n  opset_import: [") and text.endswith("}\n")
        parsed = kiln.Model.from_text(text)
        assert parsed.to_text() == text, name
        assert str(parsed.graph) == str(model.graph)
    print(kiln.Model.load(graph_models["affine"]))
    out = capsys.readouterr().out
    assert "xw = MatMul (x, w)" in out and "y = Add (xw, b)" in out
    assert "float[3, 4] w = {0.0, 0.125," in out


def test_elided_text(graph_models):
    model = kiln.Model.load(graph_models["conv_relu"])
    text = model.to_text(elide=8)
    assert "# W: 108 elements elided" in text
    assert "float[4] B = {" in text  # 4 elements: printed
    with pytest.raises(kiln.InvalidArgument):
        model.to_text(elide=-2)
    with pytest.raises(TypeError):
        model.to_text(elide="all")


def test_onnx_parser_and_checker_accept_the_text(graph_models):
    model = kiln.Model.load(graph_models["control"])
    text = model.to_text()
    parsed = onnx.parser.parse_model(text)
    onnx.checker.check_model(parsed)
    original = onnx.load(graph_models["control"])
    # The same nodes, printed in topological order (which need not be the file's), without their
    # names (the textual syntax has none).
    assert sorted(n.op_type for n in parsed.graph.node) == sorted(n.op_type for n in original.graph.node)
    assert [n.op_type for n in parsed.graph.node] == [n.op_type for n in model.graph.nodes]
    assert [i.name for i in parsed.graph.input] == ["cond", "a", "m"]
    # The unknown dimension has no value, the scalar input an empty shape, as in the file.
    dims = parsed.graph.output[1].type.tensor_type.shape.dim
    assert not dims[0].HasField("dim_value") and not dims[0].HasField("dim_param") and dims[1].dim_value == 2
    assert parsed.graph.input[0].type.tensor_type.HasField("shape")
    assert len(parsed.graph.input[0].type.tensor_type.shape.dim) == 0
    # What onnx parsed, serialized, is the same model to Kiln.
    assert kiln.Model.from_bytes(parsed.SerializeToString()).to_text() == text


def test_save_and_load_round_trip(graph_models, tmp_path):
    model = kiln.Model.load(graph_models["affine"])
    path = tmp_path / "saved.onnx"
    model.save(path)  # os.PathLike
    again = kiln.Model.load(str(path))
    assert again.to_text() == model.to_text()
    onnx.checker.check_model(onnx.load(str(path)))
    # A model parsed from text saves too, and runs the same.
    parsed = kiln.Model.from_text(model.to_text())
    parsed.save(str(tmp_path / "parsed.onnx"))
    x = np.ones((2, 3), np.float32)
    a = kiln.InferenceSession(str(tmp_path / "parsed.onnx")).run(None, {"x": x})[0]
    b = kiln.InferenceSession(parsed).run(None, {"x": x})[0]
    np.testing.assert_array_equal(a, b)


def test_verify(graph_models):
    kiln.Model.load(graph_models["affine"]).verify()
    kiln.Model.load(graph_models["control"]).verify(kiln.SessionOptions())
    with pytest.raises(kiln.NotImplemented, match="frob"):
        kiln.Model.load(graph_models["unknown_op"]).verify()
    # These parse (the structure is fine) but do not verify.
    header = '<ir_version: 8, opset_import: ["" : 17]>\n'
    bad_attribute = kiln.Model.from_text(header + "g (float[2] x) => (float[2] y) { y = LeakyRelu <alpha: int = 1> (x) }")
    with pytest.raises(kiln.InvalidGraph, match="alpha"):
        bad_attribute.verify()
    bad_shapes = kiln.Model.from_text(header + "g (float[2] x, float[3] z) => (float[2] y) { y = Add (x, z) }")
    with pytest.raises(kiln.InvalidGraph, match="broadcast"):
        bad_shapes.verify()
    with pytest.raises(kiln.NotImplemented, match="Gelu"):
        kiln.Model.from_text(header + "g (float[2] x) => (float[2] y) { y = Gelu (x) }").verify()
    with pytest.raises(TypeError):
        kiln.Model.load(graph_models["affine"]).verify("options")


def test_attributes(graph_models):
    control = kiln.Model.load(graph_models["control"])
    nodes = {n.name: n for n in control.graph.nodes}
    branch, leaky, tr = nodes["branch"], nodes["leaky"], nodes["tr"]
    assert leaky.attributes == {"alpha": 0.25} and leaky.attribute_types == {"alpha": "FLOAT"}
    assert tr.attributes == {"perm": [1, 0]} and tr.attribute_types == {"perm": "INTS"}
    attrs = branch.attributes
    assert set(attrs) == {"then_branch", "else_branch"}
    then_body = attrs["then_branch"]
    assert isinstance(then_body, kiln.Graph) and then_body.name == "then_body"
    assert branch.attribute_types["then_branch"] == "GRAPH"
    assert then_body.model is control  # a subgraph's model is its outermost graph's
    (add,) = then_body.nodes
    a_inner = add.inputs[0]
    assert a_inner.name == "a" and a_inner.is_captured and a_inner.producer is None
    assert a_inner.consumers == [(add, 0), (add, 1)]
    # In the main graph, the If reads `a` through its branches: an implicit input, index None.
    assert [v.name for v in branch.implicit_inputs] == ["a"]
    a_outer = control.graph.inputs[1]
    assert a_outer.consumers == [(branch, None)] and not a_outer.is_captured
    assert "t = Add (a, a)" in str(then_body)

    constants = {n.name: n for n in kiln.Model.load(graph_models["constants"]).graph.nodes}
    t = constants["k_t"].attributes["value"]
    np.testing.assert_array_equal(t, np.array([[1, 2], [3, 4]], np.int32))
    assert t.dtype == np.int32 and not t.flags.writeable
    assert constants["k_s"].attributes == {"value_string": "héllo".encode()}  # bytes, as onnx.helper
    assert constants["k_i"].attributes == {"value_ints": [3, -1, 7]}
    assert constants["k_f"].attributes == {"value_floats": [0.5, 1.5]}
    assert constants["k_ss"].attributes == {"value_strings": [b"a", b"b c"]}
    assert constants["k_t"].attribute_types == {"value": "TENSOR"}
    assert constants["k_ss"].attribute_types == {"value_strings": "STRINGS"}
    # Same values as onnx's helper reads from the file.
    original = {n.name: n for n in onnx.load(graph_models["constants"]).graph.node}
    for name in ("k_s", "k_i", "k_ss"):
        attr = original[name].attribute[0]
        assert constants[name].attributes[attr.name] == helper.get_attribute_value(attr)


def test_left_out_inputs_are_none():
    graph = helper.make_graph(
        [helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        initializer=[numpy_helper.from_array(np.array(1.0, np.float32), "hi")],
    )
    model = kiln.Model.from_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    (clip,) = model.graph.nodes
    x, low, hi = clip.inputs
    assert low is None and x.name == "x" and hi.name == "hi" and hi.initializer == np.float32(1.0)
    assert hi.shape == [] and hi.consumers == [(clip, 2)]
    text = model.to_text()
    assert kiln.Model.from_text(text).to_text() == text
    (y,) = kiln.InferenceSession(model).run(None, {"x": np.array([0.5, 2.0, -3.0], np.float32)})
    np.testing.assert_array_equal(y, [0.5, 1.0, -3.0])


def test_string_attribute_bytes_survive_the_text():
    value = b'a\xff\x00b"\n\xc3\xa9'  # not UTF-8, a NUL, a quote, a newline, an e-acute
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], name="k", value_string=value)],
        "g",
        [],
        [helper.make_tensor_value_info("c", TensorProto.STRING, [])],
    )
    model = kiln.Model.from_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    assert model.graph.nodes[0].attributes == {"value_string": value}
    again = kiln.Model.from_text(model.to_text())
    assert again.graph.nodes[0].attributes == {"value_string": value}


def test_types(graph_models):
    g = kiln.Model.load(graph_models["control"]).graph
    cond, a, m = g.inputs
    assert cond.type == kiln.TypeInfo("tensor", "bool", []) and cond.shape == []
    assert m.shape == [2, None] and str(m.type) == "tensor(int64)"
    lr, any_ = g.outputs
    assert any_.shape == [None, 2] and repr(any_.type) == "TypeInfo('tensor(int64)', shape=[None, 2])"
    # An unknown rank: no shape ("float[]" in Kiln's text, as onnx's parser reads it).
    unknown = kiln.Model.from_text('<ir_version: 8, opset_import: ["" : 17]>\ng (float[] u) => (float[] v) { v = Relu (u) }')
    assert unknown.graph.inputs[0].shape is None and unknown.graph.inputs[0].type == kiln.TypeInfo("tensor", "float")
    seq = kiln.TypeInfo("sequence", "float", None, kiln.TypeInfo("tensor", "float", [2]))
    assert str(seq) == "seq(tensor(float))"
    assert str(kiln.TypeInfo("map", "int64", None, kiln.TypeInfo("tensor", "float"))) == "map(int64,tensor(float))"
    assert str(kiln.TypeInfo("optional", "float")) == "optional(tensor(float))"
    assert str(kiln.TypeInfo("undefined")) == "undefined"
    sequence = kiln.Model.load(graph_models["sequence"])
    (out,) = sequence.graph.outputs
    assert out.type.kind == "sequence" and str(out.type) == "seq(tensor(float))"
    assert out.type.contained.kind == "tensor" and out.shape is None


# ---- A session's graphs -------------------------------------------------------------------------


def test_session_graph_shows_fused_nodes_with_kernels(graph_models):
    sess = kiln.InferenceSession(graph_models["conv_relu"], keep_loaded())
    g = sess.get_graph()
    assert isinstance(g, kiln.Graph)
    nodes = g.nodes
    assert all(n.kernel.startswith("CPU ") for n in nodes), [n.kernel for n in nodes]
    fused = [n for n in nodes if n.fused_from]
    assert len(fused) == 1 and fused[0].fused_from == ["conv", "relu"]
    assert fused[0].op_type in fused[0].kernel
    text = g.to_text(debug=True)
    assert "# kernel: CPU " in text and "# fused from: conv, relu" in text
    assert "# kernel" not in g.to_text()
    # The model view prints the same nodes.
    assert "# fused from: conv, relu" in g.model.to_text(debug=True)
    # Inferred types: the output's shape.
    assert g.outputs[0].shape == [1, 4, 8, 8]
    # The graph as loaded: the file's two nodes, no kernels, its initializers not copied.
    loaded = sess.get_graph(optimized=False)
    assert [(n.name, n.op_type, n.kernel, n.fused_from) for n in loaded.nodes] == [
        ("conv", "Conv", "", []),
        ("relu", "Relu", "", []),
    ]
    inits = {v.name: v.initializer for v in loaded.initializers}
    np.testing.assert_array_equal(inits["W"], CONV_W)
    np.testing.assert_array_equal(inits["B"], CONV_B)
    # The optimized graph still computes Conv + Relu.
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
    (y,) = sess.run(None, {"x": x})
    assert y.shape == (1, 4, 8, 8) and (y >= 0).all()


def test_affine_session_graph(graph_models):
    sess = kiln.InferenceSession(kiln.Model.load(graph_models["affine"]))
    g = sess.get_graph()
    fused = [n for n in g.nodes if n.fused_from]
    assert fused and fused[0].fused_from == ["mm", "add"]
    assert g.inputs[0].shape == ["N", 3]
    assert g.model is not None and g.model.ir_version == 8
    # The same view each time, and equal wrappers for its nodes.
    assert sess.get_graph() == g and sess.get_graph().nodes == g.nodes
    # The optimized model prints as text Kiln reads back (its ai.kiln nodes' domain imported),
    # and that model runs the same.
    text = g.model.to_text()
    again = kiln.Model.from_text(text)
    assert again.to_text() == text
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(kiln.InferenceSession(again).run(None, {"x": x})[0], sess.run(None, {"x": x})[0])


def test_loaded_graph_needs_keep_loaded(graph_models):
    sess = kiln.InferenceSession(graph_models["affine"])
    with pytest.raises(kiln.InvalidArgument, match="kiln.graph.keep_loaded"):
        sess.get_graph(optimized=False)
    assert sess.get_graph(optimized=True).nodes


def test_view_outlives_the_session(graph_models):
    sess = kiln.InferenceSession(graph_models["conv_relu"], keep_loaded())
    g = sess.get_graph()
    loaded = sess.get_graph(optimized=False)
    w = loaded.initializers[0].initializer
    node = g.nodes[1]
    ref = weakref.ref(sess)
    del sess
    gc.collect()
    assert ref() is not None  # the views hold the session
    assert node.fused_from == ["conv", "relu"] and "# kernel" in g.to_text(debug=True)
    np.testing.assert_array_equal(loaded.initializers[0].initializer, CONV_B)
    del g, loaded, node
    gc.collect()
    assert ref() is None
    np.testing.assert_array_equal(w, CONV_B)  # the array keeps what it points into


def test_view_outlives_close(graph_models):
    sess = kiln.InferenceSession(graph_models["affine"])
    g = sess.get_graph()
    inits = [v.initializer for v in g.initializers]
    sess.close()
    with pytest.raises(kiln.InvalidArgument, match="closed"):
        sess.get_graph()
    assert [n.fused_from for n in g.nodes if n.fused_from] == [["mm", "add"]]
    assert "y = " in str(g) and g.outputs[0].shape == ["N", 4]
    del sess, g
    gc.collect()
    np.testing.assert_array_equal(inits[0], B)


def test_graph_and_arrays_keep_the_model_alive(graph_models):
    model = kiln.Model.load(graph_models["affine"])
    ref = weakref.ref(model)
    g = model.graph
    node = g.nodes[0]
    del model
    gc.collect()
    assert ref() is not None and g.model is ref()
    w = node.inputs[1].initializer
    del g, node
    gc.collect()
    assert ref() is None
    np.testing.assert_array_equal(w, W)


def test_views_read_from_many_threads(graph_models):
    sess = kiln.InferenceSession(graph_models["conv_relu"])
    g = sess.get_graph()
    expected = g.to_text(debug=True)
    errors = []

    def read():
        try:
            for _ in range(20):
                assert g.to_text(debug=True) == expected
                for n in g.nodes:
                    n.kernel, n.attributes, [v.shape for v in n.outputs if v is not None]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---- Errors -------------------------------------------------------------------------------------


def test_errors_raise_the_right_classes(tmp_path):
    with pytest.raises(kiln.NoSuchFile):
        kiln.Model.load(tmp_path / "missing.onnx")
    with pytest.raises(kiln.InvalidProtobuf):
        kiln.Model.from_bytes(b"this is not a model")
    with pytest.raises(kiln.InvalidArgument):
        kiln.Model.from_bytes(b"")
    with pytest.raises(kiln.InvalidArgument, match=r"line 2, column \d+") as e:
        kiln.Model.from_text('<ir_version: 8, opset_import: ["" : 17]>\ng (float x) => (y) { y = Relu(x) }')
    assert e.value.code == 2 and "CreateModelFromText" in str(e.value)
    with pytest.raises(kiln.InvalidArgument, match="line"):
        kiln.Model.from_text("")
    with pytest.raises(kiln.InvalidArgument, match="NUL"):
        kiln.Model.load("bad\0path")
    with pytest.raises(TypeError):
        kiln.Model.from_bytes("not bytes")
    with pytest.raises(TypeError):
        kiln.Model.from_text(12)
    with pytest.raises(TypeError):
        kiln.Model(object())
    with pytest.raises(TypeError):
        kiln.InferenceSession(object())


def test_save_errors(graph_models, tmp_path):
    model = kiln.Model.load(graph_models["affine"])
    with pytest.raises(kiln.NoSuchFile):
        model.save(tmp_path / "no" / "such" / "dir" / "m.onnx")


def test_sparse_tensor_and_type_attributes(tmp_path):
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.5, -2.0], dtype=np.float32), "values"),
        numpy_helper.from_array(np.array([0, 5], dtype=np.int64), "indices"), [2, 3])
    nodes = [helper.make_node("Constant", [], ["c"], name="const", sparse_value=sparse),
             helper.make_node("Optional", [], ["o"], name="none",
                              type=helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))]
    o = helper.make_value_info("o", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))
    graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3]), o])
    model = kiln.Model.from_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    const, none = model.graph.nodes
    value = const.attributes["sparse_value"]
    assert isinstance(value, kiln.SparseTensorValue)
    assert value.values.tolist() == [1.5, -2.0] and value.indices.tolist() == [0, 5]
    assert value.dims == (2, 3) and not value.values.flags.writeable
    assert const.attribute_types["sparse_value"] == "SPARSE_TENSOR"
    t = none.attributes["type"]
    assert isinstance(t, kiln.TypeInfo) and str(t) == "tensor(float)" and t.shape == [2]
    # Saved and read back, the same.
    path = str(tmp_path / "sparse.onnx")
    model.save(path)
    again = kiln.Model.load(path).graph.nodes[0].attributes["sparse_value"]
    assert again.indices.tolist() == [0, 5] and again.dims == (2, 3)
