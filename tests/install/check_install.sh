#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, moves the prefix elsewhere (it must be
# relocatable), and uses it as a user would (cmake/KilnInstall.cmake):
#   - the expected files are there: every public header, libkiln.so.1 with its links, libkiln.a,
#     the CMake package, kiln.pc, bin/kiln, the Python package, the docs;
#   - no installed text file names the source or the build directory or the first prefix;
#   - bin/kiln runs from the moved prefix without LD_LIBRARY_PATH (its RUNPATH is $ORIGIN-relative);
#   - the Python package imports with PYTHONPATH=<prefix>/lib/python3/dist-packages only and
#     classifies the held-out digits;
#   - examples/cmake_consumer builds with find_package(Kiln 1) and runs: C and C++ against
#     Kiln::kiln (the configuration looks up none of the static archive's dependencies), C again
#     against Kiln::kiln_static (COMPONENTS static);
#   - examples/pkgconfig_consumer builds with pkg-config and runs;
#   - find_package(Kiln 2) fails with CMake's version message naming 1.0.0, find_package(Kiln 1.0)
#     succeeds;
#   - with the static archive's dependencies made unfindable, find_package(Kiln 1) still works,
#     COMPONENTS static fails naming them, OPTIONAL_COMPONENTS static leaves Kiln_static_FOUND off.
# The last line is "check_install: OK". With --mutant=NAME the install is damaged first, and the
# check must fail (tests/install/CMakeLists.txt registers each mutant with the failure it must
# report):
#   abs-path        the build directory's path written into kiln.pc
#   no-runpath      bin/kiln's RUNPATH removed
#   missing-header  include/kiln/cxx/session.h deleted
#   abs-gomp        libgomp by its absolute path in Kiln::kiln_static's link interface
#
#   check_install.sh SOURCE_DIR BUILD_DIR LIBDIR HAS_PYTHON [--mutant=NAME]
set -euo pipefail

src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
libdir=$3         # CMAKE_INSTALL_LIBDIR, relative to the prefix
has_python=$4     # 1 when the build has the Python package
mutant=${5:-}
mutant=${mutant#--mutant=}
digits="$src/examples/digits"
expected=$(awk '/^correct/ {print $2 " of " $3}' "$digits/expected.txt")

fail() {
  echo "check_install: FAIL: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
first="$work/first/prefix"
prefix="$work/moved/kiln-${mutant:-relocated}"

# --- Install, damage (mutants only), move ------------------------------------------------------
echo "== cmake --install $build --prefix $first"
# A mutant fails early: it installs stripped (a tenth of the bytes to copy).
strip=()
[ -z "$mutant" ] || strip=(--strip)
if ! cmake --install "$build" --prefix "$first" "${strip[@]}" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "cmake --install failed"
fi
case "$mutant" in
  "") ;;
  abs-path) echo "# built in $build" >>"$first/$libdir/pkgconfig/kiln.pc" ;;
  no-runpath)
    echo "file(RPATH_REMOVE FILE \"$first/bin/kiln\")" >"$work/mutate.cmake"
    cmake -P "$work/mutate.cmake"
    ;;
  missing-header) rm "$first/include/kiln/cxx/session.h" ;;
  abs-gomp)
    sed -i 's|;gomp;|;/usr/lib/libgomp.so.1;|' "$first/$libdir/cmake/Kiln/KilnStaticTargets.cmake"
    ;;
  *) fail "unknown mutant '$mutant'" ;;
esac
mkdir -p "$(dirname "$prefix")"
mv "$first" "$prefix"
rmdir "$(dirname "$first")"
echo "== moved to $prefix; the installed tree:"
(cd "$prefix" && find . | sort)

# --- The files -------------------------------------------------------------------------------
echo "== expected files"
for f in "$libdir/libkiln.so.1" "$libdir/libkiln.a" \
         "$libdir/cmake/Kiln/KilnConfig.cmake" "$libdir/cmake/Kiln/KilnConfigVersion.cmake" \
         "$libdir/cmake/Kiln/KilnTargets.cmake" "$libdir/cmake/Kiln/KilnStaticTargets.cmake" \
         "$libdir/pkgconfig/kiln.pc" bin/kiln share/doc/kiln/README.md \
         share/doc/kiln/ARCHITECTURE.md; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
[ "$(readlink "$prefix/$libdir/libkiln.so")" = libkiln.so.1 ] ||
  fail "libkiln.so is not a link to libkiln.so.1"
[ "$(readlink "$prefix/$libdir/libkiln.so.1")" = "libkiln.so.1.0.0" ] ||
  fail "libkiln.so.1 is not a link to libkiln.so.1.0.0"
readelf -d "$prefix/$libdir/libkiln.so.1" | grep -q 'SONAME.*\[libkiln.so.1\]' ||
  fail "libkiln.so.1 has the wrong soname"
# Every public header, and nothing else, under include/kiln.
diff <(cd "$src/include" && find kiln -name '*.h' | sort) \
     <(cd "$prefix/include" && find kiln -type f | sort) ||
  fail "the installed headers differ from include/kiln (< source, > installed)"
# The Debian packages' copyright and changelog stay out of a plain install.
if find "$prefix" -name copyright -o -name 'changelog*' | grep -q .; then
  fail "a Debian package file (copyright, changelog) is in the plain install"
fi

echo "== no installed text file names the source, the build directory or the first prefix"
# (Binary files are left out: the unstripped libraries carry build paths in their debug info.)
for dir in "$src" "$build" "$(dirname "$first")"; do
  if hits=$(grep -rIl -F "$dir" "$prefix"); then
    fail "these installed files name $dir: $hits"
  fi
done

echo "== no absolute path in the exported link interfaces and in kiln.pc (libgomp by name)"
if grep -h 'INTERFACE_LINK_LIBRARIES' "$prefix/$libdir"/cmake/Kiln/Kiln*Targets.cmake |
  grep -F '/'; then
  fail "an exported link interface names an absolute path"
fi
if grep -v '^#' "$prefix/$libdir/pkgconfig/kiln.pc" | grep -E '(^|[ =])/'; then
  fail "kiln.pc names an absolute path"
fi

# --- bin/kiln and the Python package, without LD_LIBRARY_PATH ----------------------------------
echo "== bin/kiln from the moved prefix (no LD_LIBRARY_PATH)"
# shellcheck disable=SC2016  # $ORIGIN is the loader's, not the shell's
readelf -d "$prefix/bin/kiln" | grep -F "RUNPATH" | grep -F '[$ORIGIN/../'"$libdir]" ||
  fail "bin/kiln's RUNPATH is not \$ORIGIN/../$libdir"
out=$(env -u LD_LIBRARY_PATH "$prefix/bin/kiln" info "$digits/digits.onnx" 2>&1) ||
  fail "bin/kiln info failed: $out"
echo "$out" | head -12
grep -q 'image  float \[batch, 1, 8, 8\]' <<<"$out" || fail "kiln info printed the wrong input"
env -u LD_LIBRARY_PATH ldd "$prefix/bin/kiln" |
  grep -F "libkiln.so.1 => $prefix/bin/../$libdir/libkiln.so.1" ||
  fail "bin/kiln does not load the moved prefix's libkiln.so.1"

if [ "$has_python" = 1 ]; then
  echo "== the Python package (PYTHONPATH=<prefix>/lib/python3/dist-packages)"
  out=$(cd "$work" && env -u LD_LIBRARY_PATH PYTHONDONTWRITEBYTECODE=1 \
    PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 - "$digits" <<'PY' 2>&1
import os, sys
import numpy as np
import kiln as ort
import kiln.capi._kiln as native
digits = sys.argv[1]
with open(os.path.join(digits, "heldout.bin"), "rb") as f:
    assert f.read(4) == b"KDIG"
    n = int(np.frombuffer(f.read(4), "<u4")[0])
    pixels = np.frombuffer(f.read(n * 64 * 4), "<f4").reshape(n, 1, 8, 8)
    labels = np.frombuffer(f.read(n), "u1")
sess = ort.InferenceSession(os.path.join(digits, "digits.onnx"), providers=["CPUExecutionProvider"])
(logits,) = sess.run(None, {sess.get_inputs()[0].name: pixels})
print("python: kiln", ort.__version__, "from", os.path.dirname(ort.__file__))
print("python: native module", native.__file__)
print("python: %d of %d held-out digits correct" % ((logits.argmax(1) == labels).sum(), n))
PY
  ) || fail "the installed Python package failed: $out"
  echo "$out"
  grep -qF "from $prefix/lib/python3/dist-packages/kiln" <<<"$out" ||
    fail "python imported kiln from elsewhere"
  grep -qF "python: $expected held-out digits correct" <<<"$out" || fail "python classified wrongly"
  module=$(ls "$prefix"/lib/python3/dist-packages/kiln/capi/_kiln*.so)
  env -u LD_LIBRARY_PATH ldd "$module" | grep -F "libkiln.so.1 => $prefix/" ||
    fail "the Python module does not load the moved prefix's libkiln.so.1"
fi

# --- The CMake consumer --------------------------------------------------------------------------
# Only this prefix: no package registry, and Kiln_DIR is checked.
cmake_consumer() {  # BUILD_DIR [cmake arguments...]
  local dir=$1
  shift
  if ! { cmake -S "$src/examples/cmake_consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release "$@" &&
          cmake --build "$dir"; } >"$dir.log" 2>&1; then
    cat "$dir.log"
    fail "examples/cmake_consumer did not build ($*)"
  fi
  grep -qxF "Kiln_DIR:PATH=$prefix/$libdir/cmake/Kiln" "$dir/CMakeCache.txt" ||
    fail "find_package(Kiln) found another Kiln: $(grep Kiln_DIR "$dir/CMakeCache.txt")"
}
check_digits() {  # PROGRAM LINK
  local out
  out=$("$1" "$digits/digits.onnx" "$digits/heldout.bin" 2>&1) || fail "$1 failed: $out"
  echo "$out"
  grep -qF "($2, Kiln 1.0.0): $expected held-out digits correct" <<<"$out" ||
    fail "$(basename "$1") printed the wrong result"
}

echo "== examples/cmake_consumer: find_package(Kiln 1 CONFIG REQUIRED), Kiln::kiln"
cmake_consumer "$work/consumer"
# A shared-only consumer does not look up what libkiln.a links.
if grep -E '^(dnnl_DIR|ONNX_DIR|OpenCL_LIBRARY|Protobuf_LIBRARY)' "$work/consumer/CMakeCache.txt"; then
  fail "a shared-only consumer looked up the static archive's dependencies"
fi
check_digits "$work/consumer/kiln_consumer_c" "Kiln::kiln"
check_digits "$work/consumer/kiln_consumer_cxx" "Kiln::kiln"

echo "== examples/cmake_consumer: COMPONENTS static, Kiln::kiln_static"
cmake_consumer "$work/consumer_static" -DKILN_CONSUMER_STATIC=ON
if readelf -d "$work/consumer_static/kiln_consumer_c_static" | grep -F 'libkiln.so'; then
  fail "kiln_consumer_c_static links libkiln.so"
fi
check_digits "$work/consumer_static/kiln_consumer_c_static" "Kiln::kiln_static"

# --- The pkg-config consumer ---------------------------------------------------------------------
echo "== examples/pkgconfig_consumer: pkg-config --cflags --libs kiln"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --modversion kiln)" = 1.0.0 ] || fail "pkg-config kiln is not version 1.0.0"
pkg-config --cflags --libs kiln
mkdir "$work/pc"
make -C "$src/examples/pkgconfig_consumer" BUILD="$work/pc" >"$work/pc.log" 2>&1 || {
  cat "$work/pc.log"
  fail "examples/pkgconfig_consumer did not build"
}
out=$(LD_LIBRARY_PATH="$(pkg-config --variable=libdir kiln)" "$work/pc/kiln_info" \
  "$digits/digits.onnx" 2>&1) || fail "kiln_info failed: $out"
echo "$out"
grep -qF "with Kiln 1.0.0: output logits has 10 elements" <<<"$out" ||
  fail "kiln_info printed the wrong result"
unset PKG_CONFIG_PATH

# --- Versions (SameMajorVersion) and components -----------------------------------------------
# probe NAME LANGUAGES FIND_PACKAGE_ARGUMENTS [cmake arguments...]: configures a project that only
# calls find_package(Kiln ARGUMENTS); its output is in $work/probe_NAME.log.
probe() {
  local name=$1 languages=$2 find_args=$3
  shift 3
  mkdir -p "$work/probe_$name"
  cat >"$work/probe_$name/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(kiln_probe LANGUAGES $languages)
find_package(Kiln $find_args)
message(STATUS "probe found Kiln \${Kiln_VERSION}, static: \${Kiln_static_FOUND}")
if(PROBE_PROGRAM)
  file(WRITE \${CMAKE_BINARY_DIR}/probe.c
       "#include <kiln/kiln_c_api.h>\nint main(void) { return KilnGetApiBase() == 0; }\n")
  add_executable(probe \${CMAKE_BINARY_DIR}/probe.c)
  target_link_libraries(probe PRIVATE Kiln::kiln)
endif()
EOF
  cmake -S "$work/probe_$name" -B "$work/probe_$name/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@" >"$work/probe_$name.log" 2>&1
}
echo "== find_package(Kiln 2) must fail, find_package(Kiln 1.0) must work"
if probe v2 NONE "2 CONFIG REQUIRED"; then
  cat "$work/probe_v2.log"
  fail "find_package(Kiln 2) accepted Kiln 1.0.0"
fi
# CMake's own message: the request, and the version it saw and turned down.
refused='Could not find a configuration file for package "Kiln" that is compatible with requested'
refused+=' version "2".*version: 1\.0\.0'
tr -s ' \n' ' ' <"$work/probe_v2.log" | grep -o "$refused" ||
  { cat "$work/probe_v2.log"; fail "find_package(Kiln 2) failed without CMake's version message"; }
probe v1.0 NONE "1.0 CONFIG REQUIRED" ||
  { cat "$work/probe_v1.0.log"; fail "find_package(Kiln 1.0) failed"; }
grep -F "probe found Kiln 1.0.0" "$work/probe_v1.0.log"

echo "== without libkiln.a's dependencies: Kiln::kiln works, COMPONENTS static fails cleanly"
# As on a machine without them: CMake is told that none of them can be found.
no_deps=()
for dep in Threads Protobuf OpenCL dnnl PkgConfig; do
  no_deps+=("-DCMAKE_DISABLE_FIND_PACKAGE_$dep=TRUE")
done
# (A program linked to Kiln::kiln there too, and run.)
if ! { probe shared_only C "1 CONFIG REQUIRED" "${no_deps[@]}" -DPROBE_PROGRAM=ON &&
       cmake --build "$work/probe_shared_only/build" >>"$work/probe_shared_only.log" 2>&1 &&
       "$work/probe_shared_only/build/probe"; }; then
  cat "$work/probe_shared_only.log"
  fail "a Kiln::kiln consumer needs the static archive's dependencies"
fi
grep -F "probe found Kiln 1.0.0, static: FALSE" "$work/probe_shared_only.log"
if probe static_no_deps C "1 CONFIG REQUIRED COMPONENTS static" "${no_deps[@]}"; then
  cat "$work/probe_static_no_deps.log"
  fail "COMPONENTS static was found without its dependencies"
fi
missing="Kiln's static component needs what libkiln.a links, and these were not found: Threads;"
missing+=" Protobuf (libprotobuf-dev); OpenCL[^;]*; pkg-config (pkgconf)"
tr -s ' \n' ' ' <"$work/probe_static_no_deps.log" | grep -o "$missing" || {
  cat "$work/probe_static_no_deps.log"
  fail "COMPONENTS static failed without naming what is missing"
}
probe static_optional C "1 CONFIG REQUIRED OPTIONAL_COMPONENTS static" "${no_deps[@]}" ||
  { cat "$work/probe_static_optional.log"; fail "OPTIONAL_COMPONENTS static failed the configure"; }
grep -F "probe found Kiln 1.0.0, static: FALSE" "$work/probe_static_optional.log"

echo "check_install: OK"
