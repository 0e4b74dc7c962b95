"""Devices, memory descriptions, OrtValue, sparse tensors and LoRA adapters: the value side of
onnxruntime's native module, re-exported by ``kiln.capi.onnxruntime_pybind11_state``."""

import numpy as np

from . import _kiln
from ._errors import InvalidArgument, NotImplemented
from ._types import (
    OrtAllocatorType,
    OrtDeviceMemoryType,
    OrtMemType,
    OrtSparseFormat,
    _ONNX_TYPE_NAMES,
    _check_type,
    _onnx_type_of_numpy,
    _type_string,
)

# ---- Devices and memory --------------------------------------------------------------------------


class OrtDevice:
    """A device: type (cpu() is 0), memory type and id. Kiln runs on the CPU."""

    def __init__(self, device_type, memory_type, device_id, vendor_id=0):
        for what, v in (("device_type", device_type), ("memory_type", memory_type), ("device_id", device_id)):
            _check_type(f"OrtDevice: {what}", v, int, "an int")
        self._type = int(device_type)
        self._mem = int(memory_type)
        self._id = int(device_id)
        self._vendor = int(vendor_id)

    @staticmethod
    def cpu():
        return 0

    @staticmethod
    def cuda():
        return 1

    @staticmethod
    def fpga():
        return 2

    @staticmethod
    def npu():
        return 3

    @staticmethod
    def dml():
        return 4

    @staticmethod
    def default_memory():
        return 0

    def device_id(self):
        return self._id

    def device_type(self):
        return self._type

    def mem_type(self):
        return self._mem

    def vendor_id(self):
        return self._vendor

    def __eq__(self, other):
        return isinstance(other, OrtDevice) and (self._type, self._mem, self._id) == (
            other._type,
            other._mem,
            other._id,
        )

    def __hash__(self):
        return hash((self._type, self._mem, self._id))


class OrtMemoryInfo:
    """Where memory lives (name 'Cpu', allocator type, device id, memory type)."""

    def __init__(self, name, alloc_type, id, mem_type):  # noqa: A002 - onnxruntime's name
        _check_type("OrtMemoryInfo: name", name, str, "a str")
        _check_type("OrtMemoryInfo: id", id, int, "an int")
        self.name = name
        self.alloc_type = OrtAllocatorType(alloc_type)
        self.id = int(id)
        self.mem_type = OrtMemType(mem_type)

    # onnxruntime 1.23's read-only properties.
    @property
    def allocator_type(self):
        """Allocator type (an OrtAllocatorType)."""
        return self.alloc_type

    @property
    def device_id(self):
        """Device Id."""
        return self.id

    @property
    def device_mem_type(self):
        """Device memory type: DEFAULT, or HOST_ACCESSIBLE for onnxruntime's 'CudaPinned'."""
        if self.name == "CudaPinned":
            return OrtDeviceMemoryType.HOST_ACCESSIBLE
        return OrtDeviceMemoryType.DEFAULT

    @property
    def device_vendor_id(self):
        """The device's PCI vendor id (0 for the CPU)."""
        return 0

    def __repr__(self):
        return (
            f"OrtMemoryInfo(name={self.name!r}, alloc_type={self.alloc_type.name}, id={self.id}, "
            f"mem_type={self.mem_type.name})"
        )

    def __eq__(self, other):
        return isinstance(other, OrtMemoryInfo) and (self.name, self.id, self.mem_type) == (
            other.name,
            other.id,
            other.mem_type,
        )

    def __hash__(self):
        return hash((self.name, self.id, int(self.mem_type)))


class OrtArenaCfg:
    """An arena's settings, as onnxruntime's. Kiln's sessions manage their own arenas; the
    settings are read back."""

    def __init__(self, *args):
        keys = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes", "max_dead_bytes_per_chunk")
        self.max_mem = 0
        self.arena_extend_strategy = -1
        self.initial_chunk_size_bytes = -1
        self.max_dead_bytes_per_chunk = -1
        self.initial_growth_chunk_size_bytes = -1
        self.max_power_of_two_extend_bytes = -1
        if len(args) == 1 and isinstance(args[0], dict):
            for k, v in args[0].items():
                if not hasattr(self, k):
                    raise InvalidArgument(f"OrtArenaCfg: unknown key '{k}'")
                _check_type(f"OrtArenaCfg: {k}", v, int, "an int")
                setattr(self, k, int(v))
        elif len(args) == 4:
            for k, v in zip(keys, args):
                _check_type(f"OrtArenaCfg: {k}", v, int, "an int")
                setattr(self, k, int(v))
        elif args:
            raise TypeError("OrtArenaCfg: takes a dict or four ints")


def create_and_register_allocator(mem_info, arena_cfg):
    """Accepted: Kiln's CPU allocator is already shared by every session of the process."""
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("create_and_register_allocator: mem_info must be an OrtMemoryInfo")
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError("create_and_register_allocator: arena_cfg must be an OrtArenaCfg or None")
    if mem_info.name != "Cpu":
        raise InvalidArgument(f"create_and_register_allocator: Kiln has no '{mem_info.name}' device")


# ---- Values --------------------------------------------------------------------------------------


def _c_value_of(v, what):
    """The native Value of a C-level or Python-level OrtValue."""
    if isinstance(v, OrtValue):
        return v._value
    inner = getattr(v, "_ortvalue", None)
    if isinstance(inner, OrtValue):
        return inner._value
    raise TypeError(f"{what}: expected an OrtValue, got {type(v).__name__}")


class OrtValue:
    """The C-level value (onnxruntime's ``C.OrtValue``): a tensor, a sequence or an optional."""

    __slots__ = ("_value", "__weakref__")

    def __init__(self, value):
        if not isinstance(value, _kiln.Value):
            raise TypeError("OrtValue: use ortvalue_from_numpy or ortvalue_from_shape_and_type")
        self._value = value

    @staticmethod
    def ortvalue_from_numpy(array, device=None):
        """Wraps a numpy array without a copy when it is C-contiguous (the value keeps the array
        alive); other arrays and array-likes are copied."""
        return OrtValue(_kiln.Value.from_object(array, 0))

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(array, onnx_element_type):
        """As ortvalue_from_numpy, with the ONNX type given (bfloat16 from uint16 bits, ...)."""
        return OrtValue(_kiln.Value.from_object(array, int(onnx_element_type)))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device=None):
        """A zero-filled tensor Kiln allocates; element_type is a numpy type or an ONNX int."""
        shape = [int(_check_type("ortvalue_from_shape_and_type: shape", d, int, "ints")) for d in shape]
        t = element_type if isinstance(element_type, int) and not isinstance(element_type, bool) else _onnx_type_of_numpy(element_type)
        return OrtValue(_kiln.Value.from_shape_and_type(shape, t))

    def numpy(self):
        """A numpy array over the tensor's memory (no copy); a list for a sequence; None or the
        content for an optional."""
        return self._value.numpy()

    def data_ptr(self):
        """The address of the tensor's data."""
        return self._value.data_ptr()

    def shape(self):
        """The tensor's dimensions."""
        return list(self._value.shape())

    def element_type(self):
        """The ONNX element type (an int, TensorProto.DataType)."""
        return self._value.element_type()

    def data_type(self):
        """The type as a string: 'tensor(float)', 'seq(tensor(int64))', 'optional(tensor(...))'."""
        return _type_string(self._value.value_type(), self._value.element_type())

    def device_name(self):
        """'cpu'."""
        return "cpu"

    def is_tensor(self):
        return self._value.value_type() == 1

    def is_tensor_sequence(self):
        return self._value.value_type() == 2

    def is_sparse_tensor(self):
        return False

    def has_value(self):
        """False only for an empty optional."""
        return self._value.has_value()


class OrtValueVector(list):
    """A list of OrtValues (onnxruntime's C.OrtValueVector)."""

    def push_back(self, value):
        if not isinstance(value, OrtValue):
            raise TypeError("OrtValueVector.push_back: expected an OrtValue")
        self.append(value)

    def bool_tensor_indices(self):
        return [i for i, v in enumerate(self) if v.is_tensor() and v.element_type() == 9]


# ---- Sparse tensors ------------------------------------------------------------------------------


class SparseTensor:
    """A sparse tensor in COO or CSR form over numpy arrays (onnxruntime's C.SparseTensor).

    Kiln's kernels are dense: a SparseTensor can be built and read back, and a session refuses
    it as an input with NotImplemented (no ONNX operator Kiln runs takes sparse tensors).
    """

    def __init__(self, fmt, dense_shape, values, indices, outer=None):
        self._format = fmt
        self._dense_shape = [int(d) for d in dense_shape]
        self._values = values
        self._indices = indices
        self._outer = outer

    @staticmethod
    def sparse_coo_from_numpy(dense_shape, values, coo_indices, device=None):
        values = np.asarray(values)
        coo_indices = np.asarray(coo_indices, dtype=np.int64)
        if coo_indices.ndim not in (1, 2) or (coo_indices.ndim == 2 and coo_indices.shape[0] != values.size):
            raise InvalidArgument("sparse_coo_from_numpy: coo_indices must be [nnz] or [nnz, rank]")
        if coo_indices.ndim == 1 and coo_indices.size != values.size:
            raise InvalidArgument("sparse_coo_from_numpy: one linear index per value")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_COO, dense_shape, values, coo_indices)

    @staticmethod
    def sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices, device=None):
        values = np.asarray(values)
        inner = np.asarray(inner_indices, dtype=np.int64)
        outer = np.asarray(outer_indices, dtype=np.int64)
        if len(dense_shape) != 2:
            raise InvalidArgument("sparse_csr_from_numpy: CSR needs a 2-D dense shape")
        if inner.size != values.size or outer.size != int(dense_shape[0]) + 1:
            raise InvalidArgument("sparse_csr_from_numpy: inner indices per value, rows + 1 outer")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_CSRC, dense_shape, values, inner, outer)

    def values(self):
        return self._values

    def format(self):
        return self._format

    def dense_shape(self):
        return list(self._dense_shape)

    def data_type(self):
        return f"sparse_tensor({_ONNX_TYPE_NAMES[_onnx_type_of_numpy(self._values.dtype)]})"

    def device_name(self):
        return "cpu"

    def as_coo_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_COO:
            raise InvalidArgument("as_coo_view: the tensor is not in COO format")
        return _SparseView(indices=self._indices)

    def as_csrc_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_CSRC:
            raise InvalidArgument("as_csrc_view: the tensor is not in CSR format")
        return _SparseView(inner=self._indices, outer=self._outer)

    def as_blocksparse_view(self):
        raise InvalidArgument("as_blocksparse_view: the tensor is not block-sparse")

    def to_cuda(self, device):
        raise InvalidArgument("to_cuda: Kiln has no CUDA device in this build")

    def to_dense(self):
        """The dense numpy array (Kiln's addition)."""
        dense = np.zeros(self._dense_shape, dtype=self._values.dtype)
        if self._format == OrtSparseFormat.ORT_SPARSE_COO:
            if self._indices.ndim == 1:
                dense.reshape(-1)[self._indices] = self._values
            else:
                dense[tuple(self._indices.T)] = self._values
        else:
            for r in range(self._dense_shape[0]):
                a, b = self._outer[r], self._outer[r + 1]
                dense[r, self._indices[a:b]] = self._values[a:b]
        return dense


class _SparseView:
    def __init__(self, indices=None, inner=None, outer=None):
        self._indices, self._inner, self._outer = indices, inner, outer

    def indices(self):
        return self._indices

    def inner(self):
        return self._inner

    def outer(self):
        return self._outer


# ---- LoRA ----------------------------------------------------------------------------------------


class LoraAdapter:
    """LoRA adapters are not supported by Kiln yet: loading one raises NotImplemented."""

    def Load(self, path):  # noqa: N802 - onnxruntime's name
        raise NotImplemented("LoraAdapter: LoRA adapters are not supported by Kiln yet")

    @staticmethod
    def create_from_file(path):
        raise NotImplemented("LoraAdapter: LoRA adapters are not supported by Kiln yet")


class AdapterFormat:
    """onnxruntime's adapter file format; not supported by Kiln yet."""

    @staticmethod
    def read_adapter(path):
        raise NotImplemented("AdapterFormat: LoRA adapters are not supported by Kiln yet")

    def export_adapter(self, path):
        raise NotImplemented("AdapterFormat: LoRA adapters are not supported by Kiln yet")
