"""The exception classes, named as onnxruntime names them, one per Kiln error code.

They derive from ``Exception`` as onnxruntime's do, so ``except`` clauses written for
onnxruntime keep working. Kiln's two codes onnxruntime has no class for get their own:
``Terminated`` (a run stopped through ``RunOptions.terminate``; a ``Fail``, as onnxruntime reports
it) and ``OutOfMemory`` (a ``RuntimeException`` and a ``MemoryError``). Every instance carries
``code``, the ``KilnErrorCode``; the message names Kiln's entry, argument and node.
"""


class Fail(Exception):
    """A failure with no more precise class (KILN_FAIL)."""


class InvalidArgument(Exception):
    """An argument is wrong: an unknown name, a wrong dtype, rank or shape (KILN_INVALID_ARGUMENT)."""


class NoSuchFile(Exception):
    """A file could not be found or opened (KILN_NO_SUCHFILE)."""


class NoModel(Exception):
    """An operation needs a model and there is none (KILN_NO_MODEL)."""


class EngineError(Exception):
    """The engine failed while running (KILN_ENGINE_ERROR)."""


class RuntimeException(Exception):
    """An unexpected failure inside a kernel or the runtime (KILN_RUNTIME_EXCEPTION)."""


class InvalidProtobuf(Exception):
    """The bytes are not a valid ONNX model (KILN_INVALID_PROTOBUF)."""


class ModelLoaded(Exception):
    """A model is already loaded (KILN_MODEL_LOADED)."""


class NotImplemented(Exception):  # noqa: A001 - onnxruntime's name
    """Valid, but Kiln does not support it yet (KILN_NOT_IMPLEMENTED)."""


class InvalidGraph(Exception):
    """The model's graph breaks an ONNX rule (KILN_INVALID_GRAPH)."""


class EPFail(Exception):
    """An execution provider failed (onnxruntime's class; Kiln's CPU provider never raises it)."""


class ModelLoadCanceled(Exception):
    """Loading was canceled: SessionOptions.set_load_cancellation_flag(True) (onnxruntime's class)."""


class Terminated(Fail):
    """A run was stopped on request through RunOptions.terminate (KILN_TERMINATED)."""


class OutOfMemory(RuntimeException, MemoryError):
    """An allocation failed (KILN_OUT_OF_MEMORY)."""


# KilnErrorCode -> class (kiln_c_types.h).
BY_CODE = {
    1: Fail,
    2: InvalidArgument,
    3: NoSuchFile,
    4: NoModel,
    5: EngineError,
    6: RuntimeException,
    7: InvalidProtobuf,
    8: ModelLoaded,
    9: NotImplemented,
    10: InvalidGraph,
    11: OutOfMemory,
    12: Terminated,
}

__all__ = [c.__name__ for c in BY_CODE.values()] + ["EPFail", "ModelLoadCanceled"]
