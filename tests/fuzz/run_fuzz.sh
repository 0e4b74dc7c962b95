#!/usr/bin/env bash
# Runs a fuzzer for a while on a fresh corpus: the loader fuzzer seeded with the repository's
# models, the run-path fuzzer with the ONNX suites' cases (make_run_seeds.py).
#   run_fuzz.sh loader FUZZER REPO_ROOT CORPUS_DIR SECONDS
#   run_fuzz.sh run    FUZZER REPO_ROOT CORPUS_DIR SECONDS CASE_ROOT...
# With KILN_FUZZ_KEEP_CORPUS=1 an existing corpus is kept and grown (make fuzz-long).
# KILN_FUZZ_FLAGS: more libFuzzer flags (the asan preset's brief runs pass -entropic=0).
set -euo pipefail
kind=$1 fuzzer=$2 repo=$3 corpus=$4 seconds=$5
shift 5
if [ "${KILN_FUZZ_KEEP_CORPUS:-0}" != 1 ] || [ ! -d "$corpus" ]; then
  rm -rf "$corpus"
  mkdir -p "$corpus"
  case "$kind" in
    loader)
      seeds=0
      while IFS= read -r -d '' model; do
        cp "$model" "$corpus/seed_$seeds.onnx"
        seeds=$((seeds + 1))
      done < <(find "$repo/examples" "$repo/tests" "$repo/build/release/tests/models" \
        -name '*.onnx' -size -2M -print0 2>/dev/null)
      [ "$seeds" -gt 0 ] || { echo "run_fuzz: no seed models found" >&2; exit 1; }
      echo "run_fuzz: $seeds seed models"
      ;;
    run)
      /usr/bin/python3 "$repo/tests/fuzz/make_run_seeds.py" "$corpus" "$@"
      ;;
    *)
      echo "run_fuzz: unknown fuzzer kind '$kind' (loader or run)" >&2
      exit 2
      ;;
  esac
fi
echo "run_fuzz: $kind, $(find "$corpus" -type f | wc -l) inputs in the corpus, $seconds s"
artifacts="$corpus.findings"
mkdir -p "$artifacts"
# Huge allocations must be refused by Kiln, not reached: a single malloc over 2 GiB is a failure.
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
"$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" ${KILN_FUZZ_FLAGS:-} "$corpus"
