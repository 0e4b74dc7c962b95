#!/usr/bin/env bash
# Installs the Debian packages Kiln's build and tests need, and nothing when they are all there.
# Idempotent: run it as often as you like (make run / make test do, every time).
#   scripts/bootstrap.sh run      what the library, the CLI and the demo need (make run): the
#                                 compiler, CMake, protobuf, ONNX's proto package, oneDNN and the
#                                 image codecs; no torch, no test data
#   scripts/bootstrap.sh          that, and what the tests need (make test)
#   scripts/bootstrap.sh bench    also Node.js and npm for the side-by-side benchmark (make bench),
#                                 unless a node is already on the PATH
set -euo pipefail
case "${1:-}" in
  "" | run | bench) ;;
  *) echo "bootstrap: unknown set '$1' (run, bench, or none for everything)" >&2; exit 2 ;;
esac

packages=(
  cmake g++ ninja-build ccache  # build
  libprotobuf-dev protobuf-compiler libonnx-dev  # the ONNX loader (src/onnx)
  libdnnl-dev                   # oneDNN: sgemm behind cpu::Gemm<float>
  ocl-icd-opencl-dev            # Debian's dnnl-config.cmake looks for OpenCL (only recommended by libdnnl-dev)
  pkgconf                       # finds the image codec libraries (CMake's pkg_check_modules)
  libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev  # ImageDecoder's codecs
)
if [ "${1:-}" != run ]; then
packages+=(
  libgtest-dev libgmock-dev     # tests
  libonnx-testdata              # the ONNX 1.12 backend cases (conformance, allocation sweep)
  python3-torch python3-torchvision python3-sklearn python3-onnx python3-numpy  # model tests: export only
  python3-dev pybind11-dev python3-pybind11 python3-pytest  # the Python package (bindings/python) and its tests
  python3-venv python3-pip python3-setuptools python3-wheel  # pip install ./bindings/python, offline
  doxygen                       # make docs (part of make test)
  binutils                      # nm, readelf for the link checks
  abigail-tools                 # abidw, abidiff: the ABI check against abi/kiln-v1.abi (tests/abi)
  dpkg-dev file lintian         # make deb (CPack's dpkg-shlibdeps, file) and tests/install/check_debs.sh
  clang-format clang-tidy       # style checks
  clang libclang-rt-14-dev      # the asan preset: Clang sanitizers and libFuzzer
)
fi
if [ "${1:-}" = bench ] && ! command -v node >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
