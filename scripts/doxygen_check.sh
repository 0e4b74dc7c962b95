#!/usr/bin/env bash
# Doxygen over the public headers with warnings as errors (docs/Doxyfile), with the manual's pages
# (docs/manual) and the examples they quote, as `make docs` runs it.
#   doxygen_check.sh SOURCE_DIR WORK_DIR            the real headers must pass
#   doxygen_check.sh SOURCE_DIR WORK_DIR --mutant   a copy with one @param line removed must fail,
#                                                   proving an undocumented parameter is caught
set -euo pipefail
src=$1
work=$2
mode=${3:-}
rm -rf "$work"
mkdir -p "$work/include" "$work/docs"
cp -r "$src/include/kiln" "$work/include/"
cp -r "$src/docs/manual" "$work/docs/"
cp -r "$src/examples" "$work/"
sed 's|^OUTPUT_DIRECTORY .*|OUTPUT_DIRECTORY = out|' "$src/docs/Doxyfile" > "$work/Doxyfile"
cd "$work"
if [ "$mode" = "--mutant" ]; then
  # Drop the first documented parameter of AllocatorAlloc.
  line=$(grep -n '@param\[in\]  size ' include/kiln/c/core.h | head -1 | cut -d: -f1)
  [ -n "$line" ] || { echo "mutant: no line to remove"; exit 1; }
  sed -i "${line}d" include/kiln/c/core.h
  if doxygen Doxyfile 2>&1 | tee doxygen.log; then
    echo "FAIL: doxygen accepted an undocumented parameter"
    exit 1
  fi
  grep -q "parameter 'size'" doxygen.log || { echo "FAIL: the warning does not name 'size'"; exit 1; }
  echo "OK: the undocumented parameter was reported"
else
  doxygen Doxyfile
  echo "OK: public headers fully documented"
fi
