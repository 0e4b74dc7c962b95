#!/usr/bin/env bash
# Runs the loader fuzzer for a while on a fresh corpus seeded with the repository's models.
#   run_fuzz.sh FUZZER REPO_ROOT CORPUS_DIR SECONDS
set -euo pipefail
fuzzer=$1 repo=$2 corpus=$3 seconds=$4
rm -rf "$corpus"
mkdir -p "$corpus"
seeds=0
while IFS= read -r -d '' model; do
  cp "$model" "$corpus/seed_$seeds.onnx"
  seeds=$((seeds + 1))
done < <(find "$repo/examples" "$repo/tests" "$repo/build/release/tests/models" -name '*.onnx' \
  -size -2M -print0 2>/dev/null)
[ "$seeds" -gt 0 ] || { echo "run_fuzz: no seed models found" >&2; exit 1; }
echo "run_fuzz: $seeds seed models, $seconds s"
# Huge allocations must be refused by Kiln, not reached: a single malloc over 2 GiB is a failure.
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
  -print_final_stats=1 "$corpus"
