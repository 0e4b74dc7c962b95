#!/usr/bin/env bash
# Runs ctest in each given preset and ends with one line: "N passed, N failed" over all of them.
#   scripts/run_tests.sh release asan
set -uo pipefail
total_passed=0
total_failed=0
status=0
for preset in "$@"; do
  echo "=== ctest --preset $preset"
  log=$(mktemp)
  ctest --preset "$preset" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1)
  rm -f "$log"
  if [ -z "$summary" ]; then
    echo "run_tests: preset $preset printed no ctest summary" >&2
    status=1
    continue
  fi
  failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+)/\1/')
  total=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+)/\2/')
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
  [ "$rc" -eq 0 ] || status=1
done
[ "$total_passed" -gt 0 ] || status=1
echo "${total_passed} passed, ${total_failed} failed"
exit $status
