#!/usr/bin/env -S /usr/bin/python3
"""alloc_sweep.py's probing in chunks (probe_all), against a stand-in probe: every model gets its
count; a probe that crashes or hangs on a model leaves that model alone unmeasured, and the models
after it are probed by a new process; a model the probe refuses is unmeasured. Exits 1 on a
failure."""
import os
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alloc_sweep  # noqa: E402

# Counts the letters of a model's name; crashes on "crash*", refuses "refused*", and on "hang*"
# stops for 10 s before it answers (the sweep must have given up on it by then).
FAKE_PROBE = r"""#!/usr/bin/env bash
[ "$1" = --each ] || exit 2
shift
for m in "$@"; do
  case "$(basename "$m")" in
    crash*) kill -SEGV $$ ;;
    hang*) sleep 10; echo "$m: allocations per run: 4 (stand-in)" ;;
    refused*) echo "$m: not measured: refused" ;;
    *) n=$(basename "$m"); echo "$m: allocations per run: ${#n} (stand-in)" ;;
  esac
done
"""


def main():
    alloc_sweep.CHUNK = 3
    alloc_sweep.TIMEOUT_PER_MODEL = 2
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        probe = os.path.join(d, "probe")
        with open(probe, "w") as f:
            f.write(FAKE_PROBE)
        os.chmod(probe, stat.S_IRWXU)
        names = ["a", "crash", "bb", "ccc", "refused", "hang", "dddd", "eeeee", "crash2"]
        models = [os.path.join(d, n) for n in names]
        got = alloc_sweep.probe_all(probe, models)
        want = {os.path.join(d, n): len(n) for n in ["a", "bb", "ccc", "dddd", "eeeee"]}
        for model in models:
            ok = got.get(model) == want.get(model)
            failed += not ok
            print(f"{'ok' if ok else 'FAIL'}: {os.path.basename(model)}: "
                  f"{got.get(model)} (want {want.get(model)})")
    print(f"{len(names) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
