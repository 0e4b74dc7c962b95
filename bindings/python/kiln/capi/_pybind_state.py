"""``onnxruntime.capi._pybind_state`` under Kiln: every name of the native layer
(kiln.capi.onnxruntime_pybind11_state), which programs import as ``C``."""

from .onnxruntime_pybind11_state import *  # noqa: F401,F403
from .onnxruntime_pybind11_state import (  # noqa: F401 - names `import *` leaves out
    _ALL_PROVIDERS,
    _c_value_of,
    _check_type,
    _native_run_options,
    _onnx_type_of_numpy,
)
