#!/usr/bin/env bash
# The sweep's fast correctness subset, run by `make test`: the streaming models (a voice-activity
# detector with LSTM state and an If, a keyword spotter with a GRU; static and dynamic-shape, at
# opsets 13 and 17) exported with torch, then checked in Kiln at optimization levels 0-3 against
# torch's outputs.
#   check_streaming.sh BUILD_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
work=$2
names=$(/usr/bin/python3 "$here/export_sweep.py" "$work" --list | grep -E '^(vad|kws)_')
only=()
for n in $names; do only+=(--only "$n"); done
/usr/bin/python3 "$here/export_sweep.py" "$work" "${only[@]}" 2>&1 | grep -v -i warn || true
if [ -s "$work/export_failures.json" ] && [ "$(cat "$work/export_failures.json")" != "{}" ]; then
  cat "$work/export_failures.json"
  echo "check_streaming: a streaming model did not export" >&2
  exit 1
fi
/usr/bin/python3 "$here/check_sweep.py" "$work" --build "$build" "${only[@]}"
