#!/usr/bin/env bash
# Freezes an ONNX backend test case into a static-shape model (freeze_case.py: every input but the
# first becomes a constant with the case's value) and requires that a steady-state run of it
# allocates nothing (kiln_alloc_probe --require-none).
#   probe_case.sh PROBE CASE_DIR OUTDIR
set -euo pipefail
probe=$1 case_dir=$2 outdir=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
model="$outdir/$(basename "$case_dir").onnx"
/usr/bin/python3 "$here/freeze_case.py" "$case_dir" "$model"
exec "$probe" "$model" --require-none
