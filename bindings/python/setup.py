"""Builds the kiln package: the native module (src/*.cc, pybind11 over Kiln's C ABI) linked
against libkiln.so.1, which is copied into the package and found through $ORIGIN, so an
installed package runs without the repository.

    python -m venv --system-site-packages venv
    venv/bin/pip install --no-index --no-build-isolation ./bindings/python
    venv/bin/pip wheel --no-index --no-build-isolation --no-deps -w dist ./bindings/python

libkiln.so.1 is taken from $KILN_BUILD_DIR (default: the repository's build/release), and built
there with CMake's release preset when it is missing.
"""

import os
import shutil
import subprocess
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build" / "release"))
LIBKILN = "libkiln.so.1"


def version():
    for line in (ROOT / "CMakeLists.txt").read_text().splitlines():
        if line.startswith("project(kiln VERSION"):
            return line.split()[2]
    raise RuntimeError("no version in CMakeLists.txt")


def libkiln():
    lib = BUILD / LIBKILN
    if not lib.exists():
        subprocess.check_call(["cmake", "--preset", "release"], cwd=ROOT)
        subprocess.check_call(["cmake", "--build", "--preset", "release", "--target", "kiln"], cwd=ROOT)
    if not lib.exists():
        raise RuntimeError(f"{lib} is missing after building Kiln")
    return lib


class BuildExt(build_ext):
    """Links the module against libkiln.so.1 and puts the library beside the package."""

    def run(self):
        lib = libkiln()
        for ext in self.extensions:
            ext.extra_link_args += [str(lib), "-Wl,-rpath,$ORIGIN/.."]
        super().run()
        dest = Path(self.build_lib) / "kiln" / LIBKILN
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib.resolve(), dest)
        if self.inplace:
            shutil.copyfile(lib.resolve(), HERE / "kiln" / LIBKILN)

    def get_outputs(self):
        return super().get_outputs() + [str(Path(self.build_lib) / "kiln" / LIBKILN)]


native = Pybind11Extension(
    "kiln.capi._kiln",
    sources=[str(p.relative_to(HERE)) for p in sorted((HERE / "src").glob("*.cc"))],
    include_dirs=[str(ROOT / "include")],
    cxx_std=17,
)

setup(
    name="kiln",
    version=version(),
    description="Kiln: an ONNX inference runtime with onnxruntime's Python API",
    packages=["kiln", "kiln.capi"],
    package_data={"kiln": ["py.typed", "*.pyi"], "kiln.capi": ["*.pyi"]},
    ext_modules=[native],
    cmdclass={"build_ext": BuildExt},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
