#!/usr/bin/env bash
# Builds the Debian packages from the build tree (cpack, cmake/KilnPackaging.cmake) into a
# temporary directory and checks them:
#   - dpkg-deb -I: Package, Version, Maintainer, Section, Description; Depends: libkiln1,
#     kiln-tools and python3-kiln depend on the package of every library their ELF files need
#     (dpkg-shlibdeps; libkiln.so.1 excepted);
#     libkiln-dev on libkiln1 (= VERSION); kiln-tools and python3-kiln on libkiln1; libkiln1 has
#     its shlibs file and the ldconfig trigger;
#   - dpkg-deb -c: the expected files, everything under ./usr, no build or source path, no
#     /usr/local;
#   - the binaries are stripped and carry no RUNPATH;
#   - lintian: any E: fails (W: and the rest are printed for the log);
#   - the packages are installed into a scratch root with dpkg --root (as a user: --force-not-root;
#     the libraries they depend on are the host's: --force-depends) using --unpack, which puts
#     the files in place and records them in the scratch root's dpkg database. They are not
#     configured: that would run libkiln1's postinst (ldconfig) chrooted into the scratch root,
#     which needs root and a shell there. Then the unpacked /usr/bin/kiln runs with
#     LD_LIBRARY_PATH at the unpacked libkiln, the Python package imports from the scratch root,
#     and examples/cmake_consumer builds against the scratch root's /usr.
# The last line is "check_debs: OK". With --mutant=no-shlibdeps the packages are built with
# dpkg-shlibdeps off, and the Depends check must fail.
#
#   check_debs.sh SOURCE_DIR BUILD_DIR VERSION HAS_PYTHON [--mutant=no-shlibdeps]
set -euo pipefail

src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
version=$3
has_python=$4
mutant=${5:-}
mutant=${mutant#--mutant=}
digits="$src/examples/digits"

fail() {
  echo "check_debs: FAIL: $*" >&2
  exit 1
}
# dpkg and ldconfig live in /usr/sbin, which is not on a normal user's PATH on Debian.
export PATH="$PATH:/usr/sbin:/sbin"
for tool in cpack dpkg-deb dpkg dpkg-shlibdeps lintian file readelf ldconfig; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/bootstrap.sh installs it)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-deb-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
arch=$(dpkg --print-architecture)

# --- Build ----------------------------------------------------------------------------------------
config="$build/CPackConfig.cmake"
case "$mutant" in
  "") ;;
  no-shlibdeps)
    sed 's/^set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS "ON")/set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS "OFF")/' \
      "$config" >"$work/CPackConfig.cmake"
    grep -q 'SHLIBDEPS "OFF"' "$work/CPackConfig.cmake" || fail "the mutant did not apply"
    config="$work/CPackConfig.cmake"
    ;;
  *) fail "unknown mutant '$mutant'" ;;
esac
echo "== cpack (cmake/KilnPackaging.cmake)"
start=$(date +%s)
if ! cpack --config "$config" -B "$work/packages" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  fail "cpack failed"
fi
echo "cpack took $(($(date +%s) - start)) s"
rm -rf "$work/packages/_CPack_Packages"

packages=(libkiln1 libkiln-dev kiln-tools)
[ "$has_python" = 1 ] && packages+=(python3-kiln)
ls -l "$work/packages"
deb() { echo "$work/packages/${1}_${version}_${arch}.deb"; }
for p in "${packages[@]}"; do
  [ -f "$(deb "$p")" ] || fail "$(basename "$(deb "$p")") was not built"
done
[ "$(find "$work/packages" -name '*.deb' | wc -l)" -eq ${#packages[@]} ] ||
  fail "cpack built other packages than ${packages[*]}"

# Each package unpacked, for the ELF checks.
for p in "${packages[@]}"; do
  mkdir -p "$work/x/$p"
  dpkg-deb -x "$(deb "$p")" "$work/x/$p"
done

# The Debian packages providing the libraries that the ELF files under DIR need, libkiln.so.1
# (from this build) excepted: what dpkg-shlibdeps must have put into Depends.
needed_packages() {  # DIR
  local f lib path pkg
  find "$1" -type f | while read -r f; do
    file -b "$f" | grep -q '^ELF' || continue
    readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
  done | sort -u | while read -r lib; do
    [ "$lib" = libkiln.so.1 ] && continue
    path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && /x86-64|64bit|AArch64/ {print $NF; exit}')
    [ -n "$path" ] || path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib {print $NF; exit}')
    [ -n "$path" ] || { echo "?$lib"; continue; }
    # Merged /usr: dpkg may know the file under /lib or /usr/lib.
    pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null ||
          dpkg -S "${path#/usr}" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || echo "?$lib:")
    echo "${pkg%%:*}"
  done | sort -u
}
depends_entries() {  # PACKAGE: the entries of its Depends, one a line
  dpkg-deb -f "$(deb "$1")" Depends | tr ',' '\n' | sed 's/^ *//; s/ *$//'
}
depends_on() {  # PACKAGE ENTRY: Depends has ENTRY exactly (e.g. "libkiln1 (= 1.0.0)")
  depends_entries "$1" | grep -qxF "$2"
}
depends_on_package() {  # PACKAGE NAME: Depends names NAME, at any version
  depends_entries "$1" | awk -v name="$2" '$1 == name {found = 1} END {exit !found}'
}

# --- Control fields -------------------------------------------------------------------------------
echo "== dpkg-deb -I"
for p in "${packages[@]}"; do
  echo "--- $p"
  dpkg-deb -I "$(deb "$p")"
  [ "$(dpkg-deb -f "$(deb "$p")" Package)" = "$p" ] || fail "$p: wrong Package field"
  [ "$(dpkg-deb -f "$(deb "$p")" Version)" = "$version" ] || fail "$p: Version is not $version"
  [ "$(dpkg-deb -f "$(deb "$p")" Architecture)" = "$arch" ] || fail "$p: Architecture is not $arch"
  for field in Maintainer Section Description; do
    [ -n "$(dpkg-deb -f "$(deb "$p")" "$field")" ] || fail "$p: no $field"
  done
done
for p in libkiln1 kiln-tools python3-kiln; do
  [ -d "$work/x/$p" ] || continue
  needed=$(needed_packages "$work/x/$p")
  echo "$p: its ELF files need libraries from: $(echo "$needed" | tr '\n' ' ')"
  while read -r dep; do
    [[ "$dep" != \?* ]] || fail "$p: no installed package provides ${dep#\?}"
    depends_on_package "$p" "$dep" || fail "$p: Depends lacks $dep (dpkg-shlibdeps)"
  done <<<"$needed"
done
# libkiln.so.1 carries ONNX's messages itself, for protobuf's lite runtime (issue 32): neither
# the full libprotobuf nor ONNX's proto library may be among its runtime dependencies.
if depends_entries libkiln1 | grep -E '^(libprotobuf[0-9]|libonnx)'; then
  fail "libkiln1 depends on the full protobuf or on ONNX's libraries"
fi
depends_on libkiln-dev "libkiln1 (= $version)" ||
  fail "libkiln-dev does not depend on libkiln1 (= $version)"
for dev in libprotobuf-dev libdnnl-dev libjpeg-dev libpng-dev libtiff-dev libwebp-dev \
           libopenjp2-7-dev pkgconf; do
  depends_on_package libkiln-dev "$dev" ||
    fail "libkiln-dev does not depend on $dev (libkiln.a or kiln.pc needs it)"
done
depends_on kiln-tools "libkiln1 (>= $version)" || fail "kiln-tools does not depend on libkiln1"
if [ "$has_python" = 1 ]; then
  for dep in python3 python3-numpy; do
    depends_on_package python3-kiln "$dep" || fail "python3-kiln's Depends lacks $dep"
  done
  depends_on python3-kiln "libkiln1 (>= $version)" ||
    fail "python3-kiln does not depend on libkiln1"
fi
dpkg-deb -I "$(deb libkiln1)" shlibs | tee "$work/shlibs"
grep -qxF "libkiln 1 libkiln1 (>= $version)" "$work/shlibs" || fail "libkiln1's shlibs is wrong"
dpkg-deb -I "$(deb libkiln1)" triggers | grep -qx 'activate-noawait ldconfig' ||
  fail "libkiln1 does not activate the ldconfig trigger"

# --- Contents -------------------------------------------------------------------------------------
echo "== dpkg-deb -c"
expect_files() {  # PACKAGE PATH...
  local p=$1 f
  shift
  dpkg-deb -c "$(deb "$p")" | awk '{print $6}' | sed 's|^\./|/|' >"$work/$p.files"
  for f in "$@"; do
    grep -qxE "$f" "$work/$p.files" || fail "$p lacks $f"
  done
}
expect_files libkiln1 '/usr/lib/(.*/)?libkiln\.so\.1' "/usr/lib/(.*/)?libkiln\.so\.$version" \
  /usr/share/doc/libkiln1/copyright /usr/share/doc/libkiln1/changelog.gz
expect_files libkiln-dev /usr/include/kiln/kiln_c_api.h /usr/include/kiln/c/core.h \
  /usr/include/kiln/kiln_cxx_api.h /usr/include/kiln/cxx/session.h \
  '/usr/lib/(.*/)?libkiln\.so' '/usr/lib/(.*/)?libkiln\.a' \
  '/usr/lib/(.*/)?cmake/Kiln/KilnConfig\.cmake' \
  '/usr/lib/(.*/)?cmake/Kiln/KilnConfigVersion\.cmake' \
  '/usr/lib/(.*/)?cmake/Kiln/KilnTargets\.cmake' '/usr/lib/(.*/)?pkgconfig/kiln\.pc' \
  /usr/share/doc/kiln/README.md /usr/share/doc/libkiln-dev/copyright
expect_files kiln-tools /usr/bin/kiln /usr/share/doc/kiln-tools/copyright
if [ "$has_python" = 1 ]; then
  expect_files python3-kiln /usr/lib/python3/dist-packages/kiln/__init__.py \
    '/usr/lib/python3/dist-packages/kiln/capi/_kiln\..*\.so' /usr/share/doc/python3-kiln/copyright
fi
[ "$(grep -c 'include/kiln/.*\.h$' "$work/libkiln-dev.files")" -eq \
  "$(cd "$src/include" && find kiln -name '*.h' | wc -l)" ] || fail "libkiln-dev lacks headers"
for p in "${packages[@]}"; do
  echo "--- $p: $(grep -cv '/$' "$work/$p.files") files and links" \
    "(the headers and the html manual not listed here)"
  grep -vE '/$|^/usr/include/kiln/.|/html/.' "$work/$p.files"
  if grep -vE '^/(usr(/.*)?)?$' "$work/$p.files"; then fail "$p has files outside /usr"; fi
  if grep -E '^/usr/local' "$work/$p.files"; then fail "$p has files in /usr/local"; fi
  if grep -F -e "$src" -e "$build" "$work/$p.files"; then fail "$p names a build path"; fi
  if grep -E '(^|/)__pycache__(/|$)' "$work/$p.files"; then fail "$p carries __pycache__"; fi
done

echo "== ELF files: stripped, no RUNPATH"
for p in "${packages[@]}"; do
  find "$work/x/$p" -type f | while read -r f; do
    info=$(file -b "$f")
    case "$info" in
      ELF*)
        [[ "$info" != *"not stripped"* ]] || fail "${f#"$work"/x/} is not stripped"
        if readelf -d "$f" | grep -E 'R(UN)?PATH'; then fail "${f#"$work"/x/} has a run path"; fi
        echo "${f#"$work"/x/}: stripped, no run path"
        ;;
    esac
  done
done
archive=$(find "$work/x/libkiln-dev" -name libkiln.a)
if readelf -S "$archive" | grep -q '\.debug_info'; then
  fail "libkiln.a still has debug information"
fi
echo "${archive#"$work"/x/}: no debug information"

# --- lintian --------------------------------------------------------------------------------------
echo "== lintian"
debs=()
for p in "${packages[@]}"; do debs+=("$(deb "$p")"); done
start=$(date +%s)
lintian_rc=0
lintian --tag-display-limit 0 "${debs[@]}" >"$work/lintian.log" 2>&1 || lintian_rc=$?
grep -v '^running with root privileges' "$work/lintian.log" || true
echo "lintian took $(($(date +%s) - start)) s: $(grep -c '^E:' "$work/lintian.log") errors," \
  "$(grep -c '^W:' "$work/lintian.log") warnings"
if grep -q '^E:' "$work/lintian.log"; then fail "lintian reports errors"; fi
# 1 is lintian's status for tags of error severity (none, as checked); else it did not run.
[ "$lintian_rc" -eq 0 ] || fail "lintian exited with status $lintian_rc"

# --- Install into a scratch root and run ----------------------------------------------------------
echo "== dpkg --root (unpack into a scratch root)"
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --force-not-root --force-depends --log=/dev/null --unpack "${debs[@]}" \
  >"$work/dpkg.log" 2>&1 || {
  cat "$work/dpkg.log"
  fail "dpkg --unpack into the scratch root failed"
}
dpkg --root="$root" -l | grep -E '^[a-z][A-Z] ' | tee "$work/dpkg-l"
for p in "${packages[@]}"; do
  grep -qE "^iU +$p +$version " "$work/dpkg-l" || fail "$p is not unpacked in the scratch root"
done
libkiln=$(find "$root/usr/lib" -name libkiln.so.1 -print -quit)
[ -n "$libkiln" ] || fail "no libkiln.so.1 in the scratch root"
export LD_LIBRARY_PATH="${libkiln%/*}"
out=$("$root/usr/bin/kiln" info "$digits/digits.onnx" 2>&1) ||
  fail "the unpacked kiln failed: $out"
echo "$out" | head -10
grep -q 'image  float \[batch, 1, 8, 8\]' <<<"$out" ||
  fail "the unpacked kiln printed the wrong input"
ldd "$root/usr/bin/kiln" | grep -F "libkiln.so.1 => $libkiln" ||
  fail "the unpacked kiln did not load the unpacked libkiln.so.1"
if [ "$has_python" = 1 ]; then
  out=$(cd "$work" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/usr/lib/python3/dist-packages" \
    /usr/bin/python3 -c "import kiln as ort; s = ort.InferenceSession('$digits/digits.onnx');
print(s.get_inputs()[0], ort.__file__)" 2>&1) ||
    fail "the unpacked Python package failed: $out"
  echo "$out"
  grep -qF "$root/usr/lib/python3/dist-packages/kiln/__init__.py" <<<"$out" ||
    fail "python imported kiln from elsewhere"
fi
# The -dev package's CMake package, used from the scratch root.
if ! { cmake -S "$src/examples/cmake_consumer" -B "$work/consumer" \
          -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF &&
        cmake --build "$work/consumer"; } >"$work/consumer.log" 2>&1; then
  cat "$work/consumer.log"
  fail "examples/cmake_consumer did not build against the scratch root"
fi
grep -qxF "Kiln_DIR:PATH=$root/usr/lib/cmake/Kiln" "$work/consumer/CMakeCache.txt" ||
  fail "examples/cmake_consumer found another Kiln: $(grep Kiln_DIR "$work/consumer/CMakeCache.txt")"
out=$("$work/consumer/kiln_consumer_c" "$digits/digits.onnx" "$digits/heldout.bin" 2>&1) ||
  fail "kiln_consumer_c failed: $out"
echo "$out"
expected=$(awk '/^correct/ {print $2 " of " $3}' "$digits/expected.txt")
grep -qF "Kiln $version): $expected held-out digits correct" <<<"$out" ||
  fail "kiln_consumer_c printed the wrong result"

echo "== packages"
for p in "${packages[@]}"; do
  printf '%-14s %8s KiB  Depends: %s\n' "$p" "$(($(stat -c %s "$(deb "$p")") / 1024))" \
    "$(dpkg-deb -f "$(deb "$p")" Depends)"
done
echo "check_debs: OK"
