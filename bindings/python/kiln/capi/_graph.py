"""Kiln's graph API (the C ABI's ``KilnGraphApi``, ``include/kiln/kiln_graph_api.h``) in Python:
read a model, look at its graph, print it in ONNX's textual syntax and read that back, save it,
verify it, run it; and look at the graph a session runs after optimization, with each node's
kernel and the nodes it was fused from. onnxruntime has no such API; these are Kiln's names.

    >>> import kiln
    >>> model = kiln.Model.load("model.onnx")
    >>> print(model)                                 # ONNX's textual syntax
    >>> same = kiln.Model.from_text(model.to_text())
    >>> sess = kiln.InferenceSession(model)
    >>> for node in sess.get_graph().nodes:           # the optimized graph
    ...     print(node.op_type, node.kernel, node.fused_from)

Everything here is read-only. Each object keeps alive what it was reached from (its ``Model``, or
the ``InferenceSession`` of a session's view), so none of them, nor an array they gave, ever
points into freed memory, whatever is dropped or closed first.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Optional, Union

import numpy as np

from . import _kiln
from ._types import _ONNX_TYPE_NAMES
from .onnxruntime_pybind11_state import SessionOptions

_KINDS = {0: "undefined", 1: "tensor", 2: "sequence", 3: "map", 4: "optional", 5: "sparse_tensor"}

# KilnAttributeType (ONNX's AttributeProto.AttributeType) -> its name.
_ATTRIBUTE_TYPES = {
    0: "UNDEFINED",
    1: "FLOAT",
    2: "INT",
    3: "STRING",
    4: "TENSOR",
    5: "GRAPH",
    6: "FLOATS",
    7: "INTS",
    8: "STRINGS",
    9: "TENSORS",
    10: "GRAPHS",
    11: "SPARSE_TENSOR",
    12: "SPARSE_TENSORS",
    13: "TYPE_PROTO",
    14: "TYPE_PROTOS",
}

class SparseTensorValue(NamedTuple):
    """A SPARSE_TENSOR attribute's value: the non-zero ``values`` (1-D), their ``indices``
    (int64, [NNZ, rank] coordinates or [NNZ] offsets) and the dense shape ``dims``."""

    values: Any
    indices: Any
    dims: tuple


Shape = list[Union[int, str, None]]


def _owner(obj):
    """The object a wrapper's root is: a kiln.Model stands for itself."""
    return obj if obj._root is None else obj._root


class TypeInfo:
    """The type of a value: ``kind`` ('tensor', 'sequence', 'map', 'optional', 'sparse_tensor' or
    'undefined'), ``element_type`` ('float', 'int64', …; a map's key type; None when not known),
    ``shape`` (a (sparse) tensor's dimensions as onnxruntime's NodeArg gives them: ints, a
    symbolic dimension's name as a str, None where unknown; None when the rank is not known) and
    ``contained`` (the TypeInfo of a sequence's elements, an optional's value, a map's values).
    ``str()`` gives onnxruntime's type string: 'tensor(float)', 'seq(tensor(int64))',
    'map(int64,tensor(float))', 'optional(tensor(float))', 'sparse_tensor(float)'."""

    __slots__ = ("kind", "element_type", "shape", "contained")

    def __init__(
        self,
        kind: str,
        element_type: Optional[str] = None,
        shape: Optional[Shape] = None,
        contained: Optional[TypeInfo] = None,
    ):
        self.kind = kind
        self.element_type = element_type
        self.shape = shape
        self.contained = contained

    @classmethod
    def _from_tuple(cls, t) -> TypeInfo:
        kind, elem, shape, contained = t
        return cls(
            _KINDS.get(kind, "undefined"),
            _ONNX_TYPE_NAMES.get(elem) if elem else None,
            shape,
            None if contained is None else cls._from_tuple(contained),
        )

    def __str__(self) -> str:
        elem = self.element_type or "undefined"
        if self.kind == "tensor":
            return f"tensor({elem})"
        if self.kind == "sparse_tensor":
            return f"sparse_tensor({elem})"
        if self.kind in ("sequence", "optional"):
            inner = str(self.contained) if self.contained is not None else f"tensor({elem})"
            return f"{'seq' if self.kind == 'sequence' else 'optional'}({inner})"
        if self.kind == "map":
            inner = str(self.contained) if self.contained is not None else "undefined"
            return f"map({elem},{inner})"
        return "undefined"

    def __repr__(self) -> str:
        if self.kind in ("tensor", "sparse_tensor"):
            return f"TypeInfo('{self}', shape={self.shape!r})"
        return f"TypeInfo('{self}')"

    def _key(self):
        return (self.kind, self.element_type, self.shape, self.contained)

    def __eq__(self, other) -> bool:
        if not isinstance(other, TypeInfo):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        shape = None if self.shape is None else tuple(self.shape)
        return hash((self.kind, self.element_type, shape, self.contained))


class _View:
    """A handle of the graph API and the object that keeps it valid (``_root``)."""

    __slots__ = ("_native", "_root")

    def __init__(self, native, root):
        self._native = native
        self._root = root

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._native.handle_id() == other._native.handle_id()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._native.handle_id()))

    def _wrap_values(self, values):
        return [None if v is None else ValueInfo(v, self._root) for v in values]


class ValueInfo(_View):
    """A value of a graph (an edge): its name, its type (as declared, or in a session's view as
    inferred), the node that produces it, the nodes that read it and, for an initializer, its
    data."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self._native.name()

    @property
    def type(self) -> TypeInfo:
        """The value's TypeInfo (kind 'undefined' when nothing is known)."""
        return TypeInfo._from_tuple(self._native.type())

    @property
    def shape(self) -> Optional[Shape]:
        """``type.shape``: ints, symbolic names (str) and None for unknown dimensions, as
        onnxruntime's NodeArg.shape; None when the rank is not known or the value is not a
        tensor."""
        return self.type.shape

    @property
    def producer(self) -> Optional[Node]:
        """The node whose output this is; None for a graph input, an initializer or a value read
        from an enclosing graph."""
        p = self._native.producer()
        return None if p is None else Node(p[0], self._root)

    @property
    def consumers(self) -> list[tuple[Node, Optional[int]]]:
        """(node, input index) for each read of the value (a node reading it twice is listed
        twice); the index is None for a read by one of the node's subgraphs."""
        return [(Node(n, self._root), i) for n, i in self._native.consumers()]

    @property
    def initializer(self) -> Optional[np.ndarray]:
        """The constant's data (an initializer, or an overridable initializer's default) as a
        read-only numpy array over Kiln's memory (no copy; string and 4-/2-bit tensors are
        copied); None for other values. The array keeps the model or session alive."""
        return self._native.initializer()

    @property
    def is_captured(self) -> bool:
        """Whether a subgraph reads the value from an enclosing graph."""
        return self._native.is_captured()

    def __repr__(self) -> str:
        t = self.type
        return f"ValueInfo(name={self.name!r}, type='{t}', shape={t.shape!r})"


class Node(_View):
    """One operator application of a graph."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self._native.name()

    @property
    def op_type(self) -> str:
        return self._native.op_type()

    @property
    def domain(self) -> str:
        """The operator's domain ('' for ONNX's)."""
        return self._native.domain()

    @property
    def since_version(self) -> int:
        """The first opset of the range Kiln's kernel for the node covers (the version the model
        imports when Kiln has no kernel for it)."""
        return self._native.since_version()

    @property
    def inputs(self) -> list[Optional[ValueInfo]]:
        """The inputs, None for an optional input left out."""
        return self._wrap_values(self._native.inputs())

    @property
    def outputs(self) -> list[Optional[ValueInfo]]:
        """The outputs, None for an optional output left out."""
        return self._wrap_values(self._native.outputs())

    @property
    def implicit_inputs(self) -> list[ValueInfo]:
        """The values of the node's graph that its subgraphs read."""
        return self._wrap_values(self._native.implicit_inputs())

    @property
    def attributes(self) -> dict[str, Any]:
        """{name: value}, in the order given. Values are as ``onnx.helper.get_attribute_value``
        gives them: int, float, bytes for a STRING (ONNX strings are bytes), read-only numpy
        arrays over Kiln's memory for a TENSOR, a kiln.Graph for a GRAPH, a SparseTensorValue
        (values, indices, dims) for a SPARSE_TENSOR, a kiln.TypeInfo for a TYPE_PROTO, lists of
        those for the list types.
        ``attribute_types`` tells an empty INTS from an empty FLOATS."""
        out = {}
        for name, _, value in self._native.attributes():
            out[name] = self._wrap_attribute(value)
        return out

    @property
    def attribute_types(self) -> dict[str, str]:
        """{name: ONNX attribute type name ('INT', 'FLOATS', 'GRAPH', …)}."""
        return {name: _ATTRIBUTE_TYPES.get(t, "UNDEFINED") for name, t, _ in self._native.attributes()}

    def _wrap_attribute(self, value):
        if isinstance(value, list):
            return [self._wrap_attribute(v) for v in value]
        if isinstance(value, _kiln.Graph):
            return Graph(value, self._root)
        if isinstance(value, tuple) and value and value[0] == "sparse":
            return SparseTensorValue(value[1], value[2], value[3])
        if isinstance(value, tuple) and value and value[0] == "type":
            return TypeInfo._from_tuple(value[1])
        return value

    @property
    def kernel(self) -> str:
        """The kernel that runs the node, for a node of a session's optimized graph, such as
        'CPU ai.onnx::Conv opsets 11+' (to the newest opset) or 'CPU ai.onnx::Pad opsets 2-10';
        '' elsewhere."""
        return self._native.kernel()

    @property
    def fused_from(self) -> list[str]:
        """The names of the loaded nodes the optimizer fused into this one ([] for a node as
        loaded)."""
        return self._native.fused_from()

    def __repr__(self) -> str:
        return f"Node(name={self.name!r}, op_type={self.op_type!r}, domain={self.domain!r})"


class Graph(_View):
    """A graph: named inputs, outputs, initializers and nodes. Read-only; ``str()`` prints it in
    ONNX's textual syntax (onnx.parser's parse_graph grammar)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self._native.name()

    @property
    def inputs(self) -> list[ValueInfo]:
        """The inputs (for a session's main graph, the overridable initializers included)."""
        return self._wrap_values(self._native.inputs())

    @property
    def outputs(self) -> list[ValueInfo]:
        return self._wrap_values(self._native.outputs())

    @property
    def initializers(self) -> list[ValueInfo]:
        """The constants, in name order (``ValueInfo.initializer`` gives each one's data)."""
        return self._wrap_values(self._native.initializers())

    @property
    def nodes(self) -> list[Node]:
        """The nodes in topological order."""
        return [Node(n, self._root) for n in self._native.nodes()]

    @property
    def model(self) -> Optional[Model]:
        """The model the graph belongs to (for a subgraph, its outermost graph's; for a session's
        view, the session's model view); None for none."""
        m = self._native.model()
        if m is None:
            return None
        root = self._root
        if isinstance(root, Model) and root._native.handle_id() == m.handle_id():
            return root
        return Model(m, root)

    def to_text(self, elide: int = -1, debug: bool = False) -> str:
        """The graph in ONNX's textual syntax.

        :param elide: initializers and tensor attributes of more elements than this are declared
            without their values (the text then no longer parses); -1 prints every value
        :param debug: for a session's optimized graph, a ``#`` comment after each node naming its
            kernel and the nodes it was fused from
        """
        return self._native.print(_check_elide(elide), bool(debug))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"<kiln.Graph {self.name!r}: {len(self._native.nodes())} nodes>"


def _check_elide(elide):
    if not isinstance(elide, int) or isinstance(elide, bool):
        raise TypeError(f"elide: expected an int, got {type(elide).__name__}")
    return elide


class Model:
    """An ONNX model as Kiln reads it (not optimized): IR version, opset imports and main graph.

    Make one with ``Model.load(path)``, ``Model.from_bytes(data)`` or ``Model.from_text(text)``;
    ``kiln.InferenceSession(model)`` runs it (the session works on its own copy). ``str(model)``
    is the model in ONNX's textual syntax, which ``Model.from_text`` reads back.
    """

    __slots__ = ("_native", "_root", "__weakref__")

    def __init__(self, native, root=None):
        if not isinstance(native, _kiln.Model):
            raise TypeError("kiln.Model: use Model.load, Model.from_bytes or Model.from_text")
        self._native = native
        self._root = root  # None: the model owns itself; else the session of a view

    @staticmethod
    def load(path: Union[str, os.PathLike]) -> Model:
        """Reads an .onnx file (external data beside it). Raises NoSuchFile, InvalidProtobuf,
        InvalidGraph, NotImplemented or InvalidArgument."""
        p = os.fspath(path)
        if not isinstance(p, str):
            p = os.fsdecode(p)
        return Model(_kiln.Model.load(p))

    @staticmethod
    def from_bytes(data: Union[bytes, bytearray, memoryview]) -> Model:
        """Reads a serialized model (no external data)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Model.from_bytes: expected bytes, got {type(data).__name__}")
        return Model(_kiln.Model.from_bytes(bytes(data)))

    @staticmethod
    def from_text(text: str) -> Model:
        """Reads ONNX's textual syntax (onnx.parser's grammar, as ``to_text`` writes it). A text
        that does not parse raises InvalidArgument naming the line and column."""
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", "surrogateescape")
        if not isinstance(text, str):
            raise TypeError(f"Model.from_text: expected a str, got {type(text).__name__}")
        return Model(_kiln.Model.from_text(text))

    @property
    def ir_version(self) -> int:
        return self._native.ir_version()

    @property
    def opset_imports(self) -> dict[str, int]:
        """{domain: version} ('' is ONNX's domain)."""
        return dict(self._native.opset_imports())

    @property
    def graph(self) -> Optional[Graph]:
        """The main graph (None for a model without one)."""
        g = self._native.graph()
        return None if g is None else Graph(g, _owner(self))

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the model to an .onnx file (tensors past 2 GiB in all go to '<file>.data'
        beside it)."""
        p = os.fspath(path)
        if not isinstance(p, str):
            p = os.fsdecode(p)
        self._native.save(p)

    def to_text(self, elide: int = -1, debug: bool = False) -> str:
        """The model in ONNX's textual syntax (see Graph.to_text for ``elide`` and ``debug``)."""
        return self._native.print(_check_elide(elide), bool(debug))

    def verify(self, sess_options=None) -> None:
        """Checks that a session could be made from the model, without making one: structure,
        every node's kernel and attributes, type and shape inference. Raises (InvalidGraph,
        NotImplemented, InvalidArgument) naming the node at fault.

        :param sess_options: a SessionOptions whose custom-op libraries count as known, or None
        """
        if sess_options is None:
            native = None
        elif isinstance(sess_options, SessionOptions):
            native = sess_options._native()
        else:
            raise TypeError(
                f"Model.verify: sess_options must be a SessionOptions or None, got {type(sess_options).__name__}"
            )
        self._native.verify(native)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        g = self._native.graph()
        name = "no graph" if g is None else f"graph {g.name()!r}"
        return f"<kiln.Model ir_version={self.ir_version}, opset_imports={self.opset_imports}, {name}>"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Model):
            return NotImplemented
        return self._native.handle_id() == other._native.handle_id()

    def __hash__(self) -> int:
        return hash(("Model", self._native.handle_id()))
