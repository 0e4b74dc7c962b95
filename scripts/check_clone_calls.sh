#!/usr/bin/env bash
# Hot loops are cloned per instruction set (KILN_VECTOR_CLONES); what they call per element or per
# row must be inlined into each clone, or the clone calls a baseline, scalar copy of it (float
# Sigmoid ran 6x slower than ONNX Runtime that way). This lists every call from an AVX2 clone, in
# the objects under DIR, to a named Kiln function, and fails if there is one not allowed below.
#   scripts/check_clone_calls.sh BUILD_DIR/CMakeFiles/kiln_objects.dir/src/kernels/cpu
set -euo pipefail
dir=$1
# Calls that are meant: integer Pow's error path and the string casts' formatting.
allowed='IntegerPow|FormatHalf'
objects=$(find "$dir" -name '*.o' | sort)
[ -n "$objects" ] || { echo "check_clone_calls: no objects under $dir" >&2; exit 1; }
found=0
clones=0
for o in $objects; do
  out=$(objdump -d --no-show-raw-insn "$o" | awk '
    /^[0-9a-f]+ <.*>:$/ { fn = $2; inclone = (fn ~ /^<_ZN4kiln.*arch_x86_64_v3>:$/); if (inclone) n++ }
    inclone && /\tcall / && $NF ~ /^<_ZN4kiln/ && $NF !~ /\+0x/ && $NF !~ /cold/ { print "call " $NF " in " fn }
    END { print "clones " n + 0 }')
  clones=$((clones + $(echo "$out" | awk '/^clones/ {print $2}')))
  while read -r line; do
    [ -z "$line" ] && continue
    callee=$(echo "$line" | awk '{print $2}' | tr -d '<>' | c++filt)
    if ! echo "$callee" | grep -Eq "$allowed"; then
      echo "$(basename "$o"): a cloned loop calls $callee"
      found=$((found + 1))
    fi
  done < <(echo "$out" | grep '^call' || true)
done
echo "check_clone_calls: $clones AVX2 clones, $found calls not inlined"
[ "$clones" -gt 0 ] && [ "$found" -eq 0 ]
