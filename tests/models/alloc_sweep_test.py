#!/usr/bin/env -S /usr/bin/python3
"""alloc_sweep.py's probing in chunks (probe_all), against a stand-in probe: every model gets its
count; a probe that crashes or stalls on a model fails that model alone, and the models after it
are probed by a new process; a model the probe refuses is neither counted nor failed. The stand-in
writes its lines in one go before it crashes or stalls, so lines that arrive together must all be
read. Exits 1 on a failure."""
import os
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alloc_sweep  # noqa: E402

# Counts the letters of a model's name; crashes on "crash*", refuses "refused*", and on "hang*"
# stops for 10 s before it answers (the sweep must have given up on it by then). Its lines go out
# through coreutils' printf, in one write (bash's own printf writes a line at a time).
FAKE_PROBE = r"""#!/usr/bin/env bash
[ "$1" = --each ] || exit 2
shift
out=""
for m in "$@"; do
  n=$(basename "$m")
  case "$n" in
    crash*) env printf "%s" "$out"; kill -SEGV $$ ;;
    hang*)
      env printf "%s" "$out"
      out=""
      sleep 10
      out+="$m: allocations per run: 4 (stand-in)"$'\n' ;;
    refused*) out+="$m: not measured: refused"$'\n' ;;
    *) out+="$m: allocations per run: ${#n} (stand-in)"$'\n' ;;
  esac
done
env printf "%s" "$out"
"""


def main():
    alloc_sweep.CHUNK = 4
    alloc_sweep.TIMEOUT_PER_MODEL = 2
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        probe = os.path.join(d, "probe")
        with open(probe, "w") as f:
            f.write(FAKE_PROBE)
        os.chmod(probe, stat.S_IRWXU)
        # Chunks: [a crash bb ccc], then [bb ccc dddd hang] (three lines at once, then a stall),
        # then [refused eeeee crash2].
        names = ["a", "crash", "bb", "ccc", "dddd", "hang", "refused", "eeeee", "crash2"]
        models = [os.path.join(d, n) for n in names]
        counts, failures = alloc_sweep.probe_all(probe, models)
        want_counts = {n: len(n) for n in ["a", "bb", "ccc", "dddd", "eeeee"]}
        want_failures = {"crash": "the probe crashed on it", "hang": "the probe stalled on it",
                         "crash2": "the probe crashed on it"}
        for name, model in zip(names, models):
            got = (counts.get(model), failures.get(model))
            want = (want_counts.get(name), want_failures.get(name))
            ok = got == want
            failed += not ok
            print(f"{'ok' if ok else 'FAIL'}: {name}: {got} (want {want})")
    print(f"{len(names) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
