#!/usr/bin/env bash
# Runs one exported model through `kiln run` and compares its outputs with torch's.
#   run_model.sh KILN MODEL_DIR
# MODEL_DIR comes from export_models.py: model.onnx, input_<i>.npy, output_<i>.npy, meta.json.
set -euo pipefail
kiln=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$dir/model.onnx" ] || { echo "run_model: $dir/model.onnx is missing (export failed?)" >&2; exit 1; }
args=()
i=0
for name in $(/usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["inputs"]))' "$dir/meta.json"); do
  args+=(--input "$name=$dir/input_$i.npy")
  i=$((i + 1))
done
out="$dir/kiln_out"
rm -rf "$out"
"$kiln" run "$dir/model.onnx" "${args[@]}" --output-dir "$out" --threads 2
/usr/bin/python3 "$here/compare.py" "$dir" "$out"
