#!/usr/bin/env bash
# The install a user does, checked: a fresh --system-site-packages venv, `pip install` and
# `pip wheel` offline, then the package used from outside the repository (its libkiln.so.1 is
# the one inside the package, found through $ORIGIN).
#   pip_install_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
work="$build/python_pip_check"
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export KILN_BUILD_DIR="$build"
# pip install and pip wheel each compile the module: through ccache the second is a cache hit.
if command -v ccache >/dev/null; then export CC="ccache gcc" CXX="ccache g++"; fi
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation "$src/bindings/python"
"$work/venv/bin/pip" wheel --quiet --no-index --no-build-isolation --no-deps -w "$work/dist" \
  "$src/bindings/python"
wheel=$(ls "$work"/dist/kiln-*.whl)
/usr/bin/python3 - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert "kiln/libkiln.so.1" in names, names
assert any(n.startswith("kiln/capi/_kiln") and n.endswith(".so") for n in names), names
print("wheel carries", [n for n in names if n.endswith((".so", ".so.1"))])
PY
cp "$src/examples/digits/digits.onnx" "$work/"
cd "$work"
out=$(env -u PYTHONPATH -u LD_LIBRARY_PATH "$work/venv/bin/python" -c \
  "import kiln as ort; print(ort.InferenceSession('digits.onnx').get_inputs()[0]); print(ort.__file__)")
echo "$out"
grep -q "NodeArg(name='image', type='tensor(float)', shape=\['batch', 1, 8, 8\])" <<<"$out"
grep -q "$work/venv/" <<<"$out"
env -u PYTHONPATH "$work/venv/bin/python" -c \
  "import kiln.capi._kiln as k, os; print(os.path.realpath(k.__file__))" | grep -q "$work/venv/"
ldd "$(ls "$work"/venv/lib/python3*/site-packages/kiln/capi/_kiln*.so)" | grep "libkiln.so.1" \
  | grep -q "site-packages/kiln/capi/../libkiln.so.1"
env -u PYTHONPATH "$work/venv/bin/python" "$src/examples/python/digits.py" "$src/examples/digits"
echo "pip_install_check: OK"
