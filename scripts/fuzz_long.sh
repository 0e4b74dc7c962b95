#!/usr/bin/env bash
# make fuzz-long: both fuzzers at once (a core each) for SECONDS each, on corpora kept between
# runs in build/fuzz/long/ (seeded like make test's: the repository's models, the ONNX suites'
# cases). Prints each fuzzer's executions, findings and slow inputs and the total; fails on any
# finding (a slow input is reported only).
#   scripts/fuzz_long.sh [SECONDS]      (default 3600)
set -uo pipefail
seconds=${1:-3600}
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build/fuzz
onnx_tests=${KILN_ONNX_TESTS_DIR:-$repo/../shared/onnx-tests}
long=$build/long
mkdir -p "$long"
export KILN_FUZZ_KEEP_CORPUS=1
"$repo/tests/fuzz/run_fuzz.sh" loader "$build/tests/fuzz/kiln_loader_fuzz" "$repo" \
  "$long/loader_corpus" "$seconds" >"$long/loader.log" 2>&1 &
loader_pid=$!
"$repo/tests/fuzz/run_fuzz.sh" run "$build/tests/fuzz/kiln_run_fuzz" "$repo" \
  "$long/run_corpus" "$seconds" "$onnx_tests/node" /usr/share/libonnx-testdata/data/node \
  >"$long/run.log" 2>&1 &
run_pid=$!
wait $loader_pid
loader_rc=$?
wait $run_pid
run_rc=$?

status=0
total=0
for kind in loader run; do
  log=$long/$kind.log
  rc_var=${kind}_rc
  rc=${!rc_var}
  executions=$(grep -E '^stat::number_of_executed_units:' "$log" | tail -1 | awk '{print $2}')
  executions=${executions:-0}
  # libFuzzer also writes inputs slower than 10 s (slow-unit-*): a report, not a failure (the
  # run-path fuzzer's legal models can ask for a few hundred megabytes of work under its memory
  # limit, done by the fuzz build's -O0 kernels). Crashes, leaks, timeouts and out-of-memory are.
  findings=$(find "$long/${kind}_corpus.findings" -type f ! -name 'slow-unit-*' 2>/dev/null | wc -l)
  slow=$(find "$long/${kind}_corpus.findings" -type f -name 'slow-unit-*' 2>/dev/null | wc -l)
  corpus=$(find "$long/${kind}_corpus" -type f | wc -l)
  echo "fuzz-long: $kind: $executions executions in $seconds s, corpus $corpus, $findings finding(s), $slow slow input(s), exit $rc (log: $log)"
  total=$((total + executions))
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    status=1
    grep -E 'ERROR: |runtime error|SUMMARY' "$log" | head -5
  fi
done
echo "fuzz-long: $total executions in total"
exit $status
