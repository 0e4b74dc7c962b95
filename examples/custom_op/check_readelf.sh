#!/bin/sh
# Usage: check_readelf.sh READELF LIBRARY...
#
# Checks what a custom-op library must be to load into any Kiln: that `readelf -d` lists no
# libkiln among its NEEDED entries (it reaches Kiln through the table KilnRegisterCustomOps is
# given; linking libkiln could load a second copy), that it exports KilnRegisterCustomOps, and
# that it defines no STB_GNU_UNIQUE symbol (glibc never unloads a library that is the first in
# the process to define one, so dlclose could leave it mapped; see kiln_example_ops_cxx.cc).
# Checks every library; exits 1 when any fails any of them.
set -u
readelf=$1
shift
status=0
for lib in "$@"; do
  needed=$("$readelf" -d "$lib" | grep '(NEEDED)') || needed=""
  if printf '%s\n' "$needed" | grep -q 'libkiln'; then
    echo "FAIL: $lib has libkiln among its NEEDED entries:"
    printf '%s\n' "$needed"
    status=1
  fi
  syms=$("$readelf" --dyn-syms -W "$lib") || { echo "FAIL: readelf cannot read $lib"; exit 1; }
  if ! printf '%s\n' "$syms" | awk '$7 != "UND" && $5 == "GLOBAL" && $6 == "DEFAULT" &&
                                    $NF == "KilnRegisterCustomOps" { found = 1 }
                                    END { exit !found }'; then
    echo "FAIL: $lib does not export KilnRegisterCustomOps"
    status=1
  fi
  unique=$(printf '%s\n' "$syms" | awk '$5 == "UNIQUE"')
  if [ -n "$unique" ]; then
    echo "FAIL: $lib defines STB_GNU_UNIQUE symbols (dlclose could leave it loaded):"
    printf '%s\n' "$unique"
    status=1
  fi
  if [ $status -eq 0 ]; then
    names=$(printf '%s\n' "$needed" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')
    echo "ok $lib: NEEDED $names"
  fi
done
[ $status -eq 0 ] && echo "custom_op libraries: OK"
exit $status
