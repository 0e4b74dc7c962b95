#!/usr/bin/env bash
# Exports the model zoo for one opset into OUTDIR unless OUTDIR already holds an export made by
# the same export_models.py and bench/torch_models.py (a stamp with their SHA-256), so repeated
# `make test` runs reuse it.
#   export_cached.sh OUTDIR OPSET
set -euo pipefail
outdir=$1 opset=$2
here=$(cd "$(dirname "$0")" && pwd)
stamp="$outdir/.export-$(cat "$here/export_models.py" "$here/../../bench/torch_models.py" | sha256sum | cut -c1-16)"
if [ -f "$stamp" ]; then
  echo "export_cached: reusing $outdir"
  exit 0
fi
rm -rf "$outdir"
mkdir -p "$outdir"
/usr/bin/python3 "$here/export_models.py" "$outdir" --opset "$opset"
touch "$stamp"
