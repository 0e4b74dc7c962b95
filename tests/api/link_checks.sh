#!/usr/bin/env bash
# Link checks on the built libkiln.so (DESIGN.md §3 rule 1).
#   link_checks.sh exports|defs|no-static-init|soname LIBRARY
set -euo pipefail
check=$1
lib=$2
case "$check" in
  exports)
    # The only dynamic symbol the library defines is KilnGetApiBase (plus the version node).
    defined=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
    echo "defined dynamic symbols: $defined"
    [ "$defined" = "KilnGetApiBase" ] || { echo "FAIL: unexpected exports"; exit 1; }
    ;;
  defs)
    # Every undefined symbol resolves against the library's own DT_NEEDED list (what -z defs
    # enforces at link time); ldd -r performs the relocations and reports any that do not.
    out=$(ldd -r "$lib" 2>&1)
    echo "$out"
    if echo "$out" | grep -q 'undefined symbol'; then echo "FAIL: undefined symbols"; exit 1; fi
    ;;
  no-static-init)
    # Nothing runs at load time (DESIGN.md §3 rule 10): no dynamic initialisers of globals.
    init=$(nm "$lib" | grep -E '_GLOBAL__sub_I_|_GLOBAL__I_' || true)
    [ -z "$init" ] || { echo "FAIL: static initialisers: $init"; exit 1; }
    ;;
  soname)
    soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    echo "soname: $soname"
    [[ "$soname" =~ ^libkiln\.so\.[0-9]+$ ]] || { echo "FAIL: soname"; exit 1; }
    ;;
  *)
    echo "unknown check $check" >&2
    exit 2
    ;;
esac
echo "OK"
