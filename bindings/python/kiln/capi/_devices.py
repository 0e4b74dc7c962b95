"""Devices and execution-provider libraries, as onnxruntime 1.22-1.23's native module has them:
OrtHardwareDevice, OrtEpDevice, OrtSyncStream, get_ep_devices,
register_execution_provider_library / unregister_execution_provider_library, copy_tensors,
has_collective_ops and create_and_register_allocator_v2. Re-exported by
``kiln.capi.onnxruntime_pybind11_state``.

Kiln's one device is the CPU and its one execution provider CPUExecutionProvider, so these do
what onnxruntime does in a CPU-only build:

    >>> [d.ep_name for d in get_ep_devices()]
    ['CPUExecutionProvider']
    >>> get_ep_devices()[0].device.type
    <OrtHardwareDeviceType.CPU: 0>
"""

import ctypes
import os
import threading

from . import _kiln
from ._errors import Fail
from ._types import OrtDeviceMemoryType, OrtHardwareDeviceType, _check_type
from ._values import OrtArenaCfg, OrtMemoryInfo, OrtValue, create_and_register_allocator

_MODULE = "kiln.capi.onnxruntime_pybind11_state"


def _no_constructor(cls):
    # What pybind11 says for a class bound without a constructor.
    raise TypeError(f"{_MODULE}.{cls.__name__}: No constructor defined!")


# ---- The CPU, as onnxruntime's device discovery reports it -------------------------------------

# cpuinfo's vendors onnxruntime names, with the PCI vendor ids it gives them
# (core/common/cpuid_info_vendor.cc); any other vendor is ("unknown", 0).
_X86_VENDORS = {"GenuineIntel": ("Intel", 0x8086), "AuthenticAMD": ("AMD", 0x1022)}
_ARM_IMPLEMENTERS = {
    0x41: ("ARM", 0x13B5),
    0x4E: ("Nvidia", 0x10DE),
    0x51: ("Qualcomm", ord("Q") | ord("C") << 8 | ord("O") << 16 | ord("M") << 24),
    0x61: ("Apple", 0x106B),
}


def _cpu_vendor(cpuinfo_path="/proc/cpuinfo"):
    """(vendor name, vendor id) of the first CPU core, from /proc/cpuinfo."""
    try:
        with open(cpuinfo_path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ("unknown", 0)
    for line in lines:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "vendor_id" and value in _X86_VENDORS:
            return _X86_VENDORS[value]
        if key == "CPU implementer":
            try:
                return _ARM_IMPLEMENTERS.get(int(value, 0), ("unknown", 0))
            except ValueError:
                return ("unknown", 0)
    return ("unknown", 0)


class OrtHardwareDevice:
    """ONNX Runtime hardware device information. Kiln finds one: the CPU."""

    def __init__(self, *args, **kwargs):
        _no_constructor(type(self))

    @classmethod
    def _make(cls, device_type, vendor, vendor_id, device_id, metadata):
        self = cls.__new__(cls)
        self._type = OrtHardwareDeviceType(device_type)
        self._vendor = vendor
        self._vendor_id = int(vendor_id)
        self._device_id = int(device_id)
        self._metadata = dict(metadata)
        return self

    @property
    def type(self):  # noqa: A003 - onnxruntime's name
        """Hardware device's type (an OrtHardwareDeviceType)."""
        return self._type

    @property
    def vendor_id(self):
        """Hardware device's vendor identifier (PCI vendor id: 0x8086 Intel, 0x1022 AMD, ...)."""
        return self._vendor_id

    @property
    def vendor(self):
        """Hardware device's vendor name ('Intel', 'AMD', 'ARM', ...; 'unknown' otherwise)."""
        return self._vendor

    @property
    def device_id(self):
        """Hardware device's unique identifier (0 for the CPU)."""
        return self._device_id

    @property
    def metadata(self):
        """Hardware device's metadata as string key/value pairs (a new dict)."""
        return dict(self._metadata)


class OrtSyncStream:
    """Represents a synchronization stream for model inference. Only an OrtEpDevice of a device
    with its own memory makes one (create_sync_stream); the CPU has none, so Kiln never does."""

    def __init__(self, *args, **kwargs):
        _no_constructor(type(self))

    def get_handle(self):
        """SyncStream handle that can be converted to a string and added to SessionOptions."""
        return self._handle


class OrtEpDevice:
    """Represents a hardware device that an execution provider supports for model inference.
    Kiln has one: CPUExecutionProvider on the CPU."""

    def __init__(self, *args, **kwargs):
        _no_constructor(type(self))

    @classmethod
    def _make(cls, ep_name, ep_vendor, ep_metadata, ep_options, device, factory):
        self = cls.__new__(cls)
        self._ep_name = ep_name
        self._ep_vendor = ep_vendor
        self._ep_metadata = dict(ep_metadata)
        self._ep_options = dict(ep_options)
        self._device = device
        self._factory = factory  # which provider makes sessions for it
        return self

    @property
    def ep_name(self):
        """The execution provider's name."""
        return self._ep_name

    @property
    def ep_vendor(self):
        """The execution provider's vendor name."""
        return self._ep_vendor

    @property
    def ep_metadata(self):
        """The execution provider's additional metadata for the OrtHardwareDevice ('version')."""
        return dict(self._ep_metadata)

    @property
    def ep_options(self):
        """The execution provider's options used to configure the provider to use the
        OrtHardwareDevice (none for the CPU)."""
        return dict(self._ep_options)

    @property
    def device(self):
        """The OrtHardwareDevice instance for the OrtEpDevice."""
        return self._device

    def memory_info(self, memory_type):
        """The OrtMemoryInfo for the device's memory of that OrtDeviceMemoryType, or None when
        the device has no memory of its own (the CPU: None for both types, as onnxruntime)."""
        if not isinstance(memory_type, OrtDeviceMemoryType):
            raise TypeError(
                "memory_info(): incompatible function arguments: expected an OrtDeviceMemoryType, "
                f"got {type(memory_type).__name__}"
            )
        return None

    def create_sync_stream(self):
        """A synchronization stream for the device; the CPU EP device has none (RuntimeError,
        as onnxruntime's CreateSyncStreamForEpDevice for it)."""
        raise RuntimeError("ep_device does not use DEFAULT memory of a non-CPU device.")


_CPU_PROVIDER = "CPUExecutionProvider"


def _make_cpu_ep_device():
    vendor, vendor_id = _cpu_vendor()
    hw = OrtHardwareDevice._make(OrtHardwareDeviceType.CPU, vendor, vendor_id, 0, {})
    return OrtEpDevice._make(_CPU_PROVIDER, "Kiln", {"version": _kiln.version()}, {}, hw, _CPU_PROVIDER)


# Registered execution-provider libraries, by registration name: the OrtEpDevices each brought.
# As in onnxruntime, the CPU provider is registered from the start under its name.
_registry_lock = threading.Lock()
_libraries = {_CPU_PROVIDER: [_make_cpu_ep_device()]}


def get_ep_devices():
    """Get the list of available OrtEpDevice instances: the CPU provider's device (while its
    library registration, 'CPUExecutionProvider', is not unregistered)."""
    with _registry_lock:
        return [d for devices in _libraries.values() for d in devices]


def _library_dir():
    # onnxruntime resolves a relative library path against the folder of its own shared
    # library; Kiln's native module and libkiln live in kiln/capi.
    return os.path.dirname(os.path.abspath(_kiln.__file__))


def _open_library(path):
    """dlopen(path) as onnxruntime's Env::LoadDynamicLibrary does; its error on failure."""
    try:
        return ctypes.CDLL(path, mode=os.RTLD_LOCAL)
    except OSError as e:
        raise Fail(f"Failed to load library {path} with error: {e}") from None


def _symbol(lib, name):
    try:
        return getattr(lib, name)
    except AttributeError as e:
        raise Fail(f"Failed to get symbol {name} with error: {e}") from None


def register_execution_provider_library(registration_name, library_path):
    """Register an execution provider library with ONNX Runtime.

    The library is opened as onnxruntime opens it (a relative path is taken from the package's
    kiln/capi folder, as onnxruntime takes it from its own), so a file that cannot be loaded, or
    that lacks the plugin entry points CreateEpFactories / ReleaseEpFactory, raises Fail with
    onnxruntime's message; a name already registered raises Fail. A real onnxruntime plugin
    library cannot run in Kiln (it is built against onnxruntime's OrtApi, which Kiln does not
    provide): registering one raises Fail too, and nothing is registered.
    """
    _check_type("register_execution_provider_library: registration_name", registration_name, str, "a str")
    _check_type("register_execution_provider_library: library_path", library_path, str, "a str")
    path = library_path if os.path.isabs(library_path) else os.path.join(_library_dir(), library_path)
    lib = _open_library(path)
    for name in ("CreateEpFactories", "ReleaseEpFactory"):
        _symbol(lib, name)
    with _registry_lock:
        if registration_name in _libraries:
            raise Fail(f"library is already registered under {registration_name}")
    raise Fail(
        f"Failed to register EP library under '{registration_name}' with error: {path} is an "
        "onnxruntime plugin execution provider library, which Kiln cannot run (it is built "
        "against onnxruntime's OrtApi); Kiln's only execution provider is CPUExecutionProvider"
    )


def unregister_execution_provider_library(registration_name):
    """Unregister an execution provider library from ONNX Runtime: its OrtEpDevices leave
    get_ep_devices(). A name that is not registered raises Fail. (Unregistering the CPU
    provider's own registration, 'CPUExecutionProvider', removes its device from the list, as in
    onnxruntime; sessions still run on the CPU.)"""
    _check_type("unregister_execution_provider_library: registration_name", registration_name, str, "a str")
    with _registry_lock:
        if registration_name not in _libraries:
            raise Fail(f"Execution provider library: {registration_name} was not registered.")
        del _libraries[registration_name]


def has_collective_ops():
    """Whether this build has the collective (NCCL/MPI) operators: False, as in every build of
    onnxruntime without them."""
    return False


def create_and_register_allocator_v2(provider_type, mem_info, options, arena_cfg):
    """Creates and registers a shared allocator for a provider's memory. For
    'CPUExecutionProvider' it is create_and_register_allocator for a CPU OrtMemoryInfo (Kiln's
    CPU allocator is already shared by every session); another provider, or a memory info that
    is not the CPU's, raises RuntimeError with onnxruntime's message."""
    _check_type("create_and_register_allocator_v2: provider_type", provider_type, str, "a str")
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("create_and_register_allocator_v2: mem_info must be an OrtMemoryInfo")
    _check_options("create_and_register_allocator_v2: options", options)
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError("create_and_register_allocator_v2: arena_cfg must be an OrtArenaCfg or None")
    prefix = "Error when creating and registering allocator in create_and_register_allocator_v2: "
    if provider_type != _CPU_PROVIDER:
        raise RuntimeError(prefix + f"{provider_type} is not implemented in CreateAndRegisterAllocatorV2()")
    if mem_info.name != "Cpu":
        raise RuntimeError(
            prefix + "Only CPU devices are supported. Please call CreateAndRegisterAllocatorV2() for other device."
        )
    create_and_register_allocator(mem_info, arena_cfg)


def _check_options(what, options):
    """A dict of str to str (onnxruntime's ProviderOptions)."""
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise TypeError(f"{what}: expected a dict of str to str, got {type(options).__name__}")
    return dict(options)


def copy_tensors(src, dst, stream):
    """Copy tensors from sources to destinations (C-level OrtValues) using the specified stream
    handle (or None): each source's data into the destination at the same place, which must
    hold as many bytes (as many strings). Errors are RuntimeError, as onnxruntime's."""
    srcs, dsts = list(src), list(dst)
    for what, values in (("src", srcs), ("dst", dsts)):
        for v in values:
            if not isinstance(v, OrtValue):
                raise TypeError(f"copy_tensors(): incompatible function arguments: {what} holds a {type(v).__name__}")
    if stream is not None and not isinstance(stream, OrtSyncStream):
        raise RuntimeError(f"Unable to cast Python instance of type {type(stream)} to C++ type 'OrtSyncStream'")
    if len(srcs) != len(dsts):
        raise RuntimeError(f"copy_tensors: {len(srcs)} source tensors and {len(dsts)} destination tensors")
    try:  # every pair checked before any is copied, so a refusal leaves no destination written
        for check_only in (True, False):
            for s, d in zip(srcs, dsts):
                d._value.copy_from(s._value, check_only)
    except Exception as e:  # Kiln's classes -> RuntimeError, as onnxruntime's Ort::Exception
        raise RuntimeError(str(e)) from None
