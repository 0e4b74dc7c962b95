#!/usr/bin/env bash
# Kiln's C ABI against the recorded v1 ABI (abi/kiln-v1.abi), with libabigail's abidw and abidiff.
#
#   abi_check.sh SOURCE_DIR BUILD_DIR             today's BUILD_DIR/libkiln.so.1 must be compatible
#                                                 with abi/kiln-v1.abi
#   abi_check.sh SOURCE_DIR BUILD_DIR --update    re-records abi/kiln-v1.abi from BUILD_DIR's library
#                                                 (only when the ABI is deliberately changed)
#   abi_check.sh SOURCE_DIR WORK_DIR --headers=DIR    a stub library built from the headers in DIR
#                                                 (DIR/kiln/...) checked against abi/kiln-v1.abi
#   abi_check.sh SOURCE_DIR WORK_DIR --mutant=NAME    proof that the check bites: a stub library built
#                                                 from a copy of include/kiln is the baseline, one
#                                                 built from a mutated copy is checked against it
#
# The ABI is what KilnGetApiBase reaches: KilnApiBase, the KilnApi table (every slot's function
# type), the KilnGraphApi sub-table, the structs and enums of the public headers; handles stay
# opaque (abidw --headers-dir include/kiln --drop-private-types --exported-interfaces-only).
#
# Compatible: no change at all, harmless changes (abidiff's default filter: a slot renamed, an
# enumerator added), and slots appended at the end of KilnApi or KilnGraphApi. Those two tables
# only grow at their end, so before comparing, the fresh ABI's two tables are cut back to the
# recorded size; the slots cut off are the appended ones and are reported. abidiff's exit status is
# a bit mask: 1 an error, 2 a usage error, 4 an ABI change, 8 an incompatible change (a removed
# symbol). On the cut-back comparison any bit fails the check: a slot removed, moved or re-typed,
# a struct field added, removed or re-typed, an enumerator's value changed. The full report of the
# untouched comparison is always printed.
set -euo pipefail

src=$(cd "$1" && pwd)
work=$2
mode=${3:-}
baseline=$src/abi/kiln-v1.abi

# abidw over one library; the path of the translation unit is made relative to the source tree
# so that no machine path is recorded.
record() { # LIBRARY HEADERS_DIR OUT ROOT
  abidw --no-corpus-path --no-comp-dir-path --no-show-locs --exported-interfaces-only \
    --headers-dir "$2" --drop-private-types --out-file "$3.tmp" "$1"
  sed "s|path='$4/|path='|" "$3.tmp" > "$3"
  rm -f "$3.tmp"
}

# Writes CUT: NEW with KilnApi and KilnGraphApi cut back to their size in OLD; prints the slots
# cut off, one line each ("KilnApi slot 129: Name").
cut_tables() { # OLD NEW CUT
  /usr/bin/python3 - "$1" "$2" "$3" <<'EOF'
import sys
import xml.etree.ElementTree as ET

old, new, cut = sys.argv[1:4]
TABLES = ("KilnApi", "KilnGraphApi")

def definitions(root, name):
    return [c for c in root.iter("class-decl")
            if c.get("name") == name and c.get("is-declaration-only") != "yes"]

old_root = ET.parse(old).getroot()
tree = ET.parse(new)
for name in TABLES:
    sizes = {int(c.get("size-in-bits")) for c in definitions(old_root, name)}
    if len(sizes) != 1:
        sys.exit("abi check: %s not found once in %s" % (name, old))
    size = sizes.pop()
    for table in definitions(tree.getroot(), name):
        if int(table.get("size-in-bits")) <= size:
            continue
        for member in list(table.findall("data-member")):
            offset = int(member.get("layout-offset-in-bits"))
            if offset >= size:
                print("%s slot %d: %s" % (name, offset // 64, member.find("var-decl").get("name")))
                table.remove(member)
        table.set("size-in-bits", str(size))
tree.write(cut, encoding="unicode")
EOF
}

# Compares NEW against OLD; 0 when compatible. Prints what changed.
compare() { # OLD NEW
  local full=0 rc=0 appended
  echo "abidiff (all changes, harmless ones included):"
  abidiff --harmless "$1" "$2" || full=$?
  appended=$(cut_tables "$1" "$2" "$2.cut")
  abidiff "$1" "$2.cut" > "$2.cut.report" || rc=$?
  echo "abidiff --harmless exit status: $full; abidiff with appended slots cut off: $rc"
  # The report of the cut-back comparison is the one that decides; it only differs from the one
  # above when slots were appended.
  [ "$rc" -eq 0 ] || [ -z "$appended" ] || cat "$2.cut.report"
  if [ $((rc & 3)) -ne 0 ]; then
    echo "FAIL: abidiff failed (exit status $rc)"
    return 1
  fi
  if [ $((rc & 12)) -ne 0 ]; then
    if [ $((rc & 8)) -ne 0 ]; then
      echo "FAIL: incompatible ABI change (abidiff bit 8; the report is above)"
    else
      echo "FAIL: ABI change other than slots appended at the end of a table (the report is above)"
    fi
    return 1
  fi
  if [ -n "$appended" ]; then
    echo "appended (compatible):"
    echo "$appended" | sed 's/^/  /'
  fi
  return 0
}

# A shared library exporting KilnGetApiBase (with libkiln's soname and symbol version) whose debug
# information holds the public types exactly as the headers in INCLUDE declare them (built as C++,
# as libkiln's api_table.cc is).
stub_library() { # INCLUDE OUT
  cat > "$2.c" <<'EOF'
#include <kiln/kiln_c_api.h>
static const KilnApi* stub_get_api(uint32_t version) {
  static KilnApi api;
  (void)version;
  return &api;
}
static const char* stub_version(void) { return "0"; }
static const KilnApiBase stub_base = {stub_get_api, stub_version};
const KilnApiBase* KilnGetApiBase(void) { return &stub_base; }
EOF
  "${CXX:-c++}" -x c++ -std=c++17 -g -O0 -shared -fPIC -fvisibility=hidden -I "$1" -o "$2" "$2.c" \
    -Wl,-soname,libkiln.so.1 -Wl,--version-script="$src/cmake/kiln.map"
}

case "$mode" in
  "" | --update)
    build=$(cd "$work" && pwd)
    lib=$build/libkiln.so.1
    [ -e "$lib" ] || { echo "abi check: no $lib (build first)"; exit 1; }
    mkdir -p "$build/abi_check"
    if [ "$mode" = --update ]; then
      record "$lib" "$src/include/kiln" "$baseline" "$src"
      if grep -qF -e "$src" -e "$build" "$baseline"; then
        echo "abi check: a machine path is left in $baseline"
        exit 1
      fi
      echo "abi check: recorded abi/kiln-v1.abi from $(basename "$(readlink -f "$lib")")"
      exit 0
    fi
    record "$lib" "$src/include/kiln" "$build/abi_check/libkiln.abi" "$src"
    if compare "$baseline" "$build/abi_check/libkiln.abi"; then
      echo "abi check: OK: libkiln is compatible with abi/kiln-v1.abi"
    else
      exit 1
    fi
    ;;
  --headers=*)
    headers=$(cd "${mode#--headers=}" && pwd)
    rm -rf "$work"
    mkdir -p "$work"
    trap 'rm -rf "$work"' EXIT
    stub_library "$headers" "$work/libstub.so"
    record "$work/libstub.so" "$headers/kiln" "$work/stub.abi" "$work"
    if compare "$baseline" "$work/stub.abi"; then
      echo "abi check: OK: the headers in $(basename "$headers") match abi/kiln-v1.abi"
    else
      exit 1
    fi
    ;;
  --mutant=*)
    name=${mode#--mutant=}
    rm -rf "$work"
    mkdir -p "$work/base" "$work/mutant"
    trap 'rm -rf "$work"' EXIT
    cp -r "$src/include/kiln" "$work/base/"
    cp -r "$src/include/kiln" "$work/mutant/"
    h=$work/mutant/kiln
    expect=fail
    case "$name" in
      slot_removed) # KilnApi slot 2 gone: every later slot moves
        sed -i '/^  KilnGetErrorMessageFn GetErrorMessage;$/d' "$h/kiln_c_api.h" ;;
      slots_swapped) # KilnApi slots 27 and 28 trade places
        sed -i -e 's/^  KilnGetDimensionsCountFn GetDimensionsCount;$/  @SWAP@/' \
          -e 's/^  KilnGetDimensionsFn GetDimensions;$/  KilnGetDimensionsCountFn GetDimensionsCount;/' \
          -e 's/^  @SWAP@$/  KilnGetDimensionsFn GetDimensions;/' "$h/kiln_c_api.h" ;;
      slot_retyped) # SetIntraOpNumThreads takes int64_t threads instead of int
        sed -i 's/(KilnSessionOptions \* options, int threads));$/(KilnSessionOptions * options, int64_t threads));/' \
          "$h/c/session.h" ;;
      graph_slot_removed) # KilnGraphApi slot 5 gone
        sed -i '/^  KilnModelGetIrVersionFn ModelGetIrVersion;$/d' "$h/kiln_graph_api.h" ;;
      field_retyped) # KilnAllocator::version becomes 64-bit
        sed -i 's/^  uint32_t version;$/  uint64_t version;/' "$h/kiln_c_types.h" ;;
      field_appended) # a field appended to KilnAllocator (a struct the caller fills)
        sed -i 's/^  const KilnMemoryInfo\*(KILN_API_CALL\* Info)(const struct KilnAllocator\* self);$/&\n  int extra;/' \
          "$h/kiln_c_types.h" ;;
      enum_value_changed) # KILN_ELEMENT_TYPE_FLOAT renumbered
        sed -i 's/^  KILN_ELEMENT_TYPE_FLOAT = 1, /  KILN_ELEMENT_TYPE_FLOAT = 100, /' "$h/kiln_c_types.h" ;;
      removed_and_appended) # KilnApi slot 2 gone and one appended: the size is unchanged
        sed -i -e '/^  KilnGetErrorMessageFn GetErrorMessage;$/d' \
          -e 's/^  KilnGetTensorDataFn GetTensorData;$/&\n  KilnGetGraphApiFn AppendedSlot;/' \
          "$h/kiln_c_api.h" ;;
      slot_appended) # a slot appended at the end of KilnApi, one at the end of KilnGraphApi
        expect=pass
        sed -i 's/^  KilnGetTensorDataFn GetTensorData;$/&\n  KilnGetGraphApiFn AppendedSlot;/' \
          "$h/kiln_c_api.h"
        sed -i 's/^  KilnAttributeGetTypeProtoAtFn AttributeGetTypeProtoAt;$/&\n  KilnReleaseModelFn AppendedGraphSlot;/' \
          "$h/kiln_graph_api.h" ;;
      *)
        echo "abi check: unknown mutant $name"
        exit 2 ;;
    esac
    if diff -r "$work/base/kiln" "$h" > /dev/null; then
      echo "mutant $name: FAIL: the mutation did not apply (the headers changed?)"
      exit 1
    fi
    diff -r "$work/base/kiln" "$h" || true
    mkdir -p "$work/base/include" "$work/mutant/include"
    mv "$work/base/kiln" "$work/base/include/"
    mv "$h" "$work/mutant/include/"
    for side in base mutant; do
      stub_library "$work/$side/include" "$work/$side/libstub.so"
      record "$work/$side/libstub.so" "$work/$side/include/kiln" "$work/$side.abi" "$work"
    done
    status=0
    compare "$work/base.abi" "$work/mutant.abi" > "$work/report" 2>&1 || status=$?
    cat "$work/report"
    if [ "$expect" = fail ]; then
      [ "$status" -ne 0 ] || { echo "mutant $name: FAIL: the check accepted it"; exit 1; }
      echo "mutant $name: OK: the check rejected it"
    else
      [ "$status" -eq 0 ] || { echo "mutant $name: FAIL: the check rejected it"; exit 1; }
      if ! grep -q "KilnApi slot 129: AppendedSlot" "$work/report" ||
        ! grep -q "KilnGraphApi slot 104: AppendedGraphSlot" "$work/report"; then
        echo "mutant $name: FAIL: the appended slots were not reported"
        exit 1
      fi
      echo "mutant $name: OK: the check passed it and reported the appended slots"
    fi
    ;;
  *)
    echo "usage: abi_check.sh SOURCE_DIR BUILD_DIR [--update | --headers=DIR | --mutant=NAME]"
    exit 2 ;;
esac
