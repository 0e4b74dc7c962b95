#!/usr/bin/env -S /usr/bin/python3
"""Allocations per steady-state run of every ONNX backend node case, against a manifest.

    /usr/bin/python3 tests/models/alloc_sweep.py PROBE MANIFEST WORK_DIR NODE_DIR...

Each case under each NODE_DIR (the newest suite in ../shared/onnx-tests/node, ONNX 1.12's in
Debian's libonnx-testdata) is frozen into a static-shape model (freeze_case.py: every input but the
first becomes a constant holding the case's value) and run through PROBE (kiln_alloc_probe) in a
steady state. A case must allocate nothing unless MANIFEST lists it, one "case  reason" per line
(the reason says why: a control-flow or subgraph body, which runs in child frames, or a library
that allocates while it works, as std::regex does). A listed case that allocates nothing fails
too, so the list only shrinks. Cases Kiln cannot load or run (an op not supported yet, an input
the zero-filled probe makes invalid) are counted, not judged: the conformance suite covers them.
Ends with "N passed, N failed".

PROBE takes the frozen models CHUNK at a time (a process per case spent most of the sweep starting
processes) and prints a line per model as it ends: when a probe crashes or hangs, the model without
a line fails (Kiln must neither crash nor hang on it) and the models after it go to a new probe.
"""
import glob
import os
import re
import select
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import freeze_case  # noqa: E402


CHUNK = 64
TIMEOUT_PER_MODEL = 60  # seconds without a line from the probe


def probe_lines(probe, chunk):
    """The probe's lines for the models of CHUNK, as far as it got, and how it ended: "done",
    "crashed" (it died before a line for every model) or "stalled" (killed after
    TIMEOUT_PER_MODEL seconds without a line). Read unbuffered: a line kept in a reader's buffer
    would not wake select()."""
    p = subprocess.Popen([probe, "--each"] + chunk, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=0)
    fd = p.stdout.fileno()
    lines, pending, how = [], b"", "crashed"
    while len(lines) < len(chunk):
        ready, _, _ = select.select([fd], [], [], TIMEOUT_PER_MODEL)
        if not ready:
            how = "stalled"
            break
        data = os.read(fd, 65536)
        if not data:
            break
        pending += data
        *complete, pending = pending.split(b"\n")
        lines += [line.decode(errors="replace") for line in complete]
    else:
        how = "done"
    p.kill()
    p.wait()
    p.stdout.close()
    return lines[:len(chunk)], how


def probe_all(probe, models):
    """Allocations per run of each model PROBE measured ({model: count}), CHUNK models a process,
    and the models a probe crashed or stalled on ({model: why})."""
    counts, failures = {}, {}
    pending = list(models)
    while pending:
        chunk, pending = pending[:CHUNK], pending[CHUNK:]
        lines, how = probe_lines(probe, chunk)
        done = 0
        for line in lines:
            if not line.startswith(chunk[done] + ": "):
                break
            m = re.match(r"allocations per run: (\d+)", line[len(chunk[done]) + 2:])
            if m:
                counts[chunk[done]] = int(m.group(1))
            done += 1
        if done < len(chunk):
            # The probe stopped at chunk[done]; the models after it go to a new probe.
            failures[chunk[done]] = f"the probe {how if how != 'done' else 'lost its place'} on it"
            pending = chunk[done + 1:] + pending
    return counts, failures


def main():
    probe, manifest_path, work = sys.argv[1:4]
    node_dirs = sys.argv[4:]
    expected = {}
    with open(manifest_path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                expected[name] = reason.strip()
    passed, failed, unmeasured = 0, [], 0
    seen = set()
    cases = []
    for i, node_dir in enumerate(node_dirs):
        os.makedirs(os.path.join(work, str(i)), exist_ok=True)
        cases += [(i, c) for c in sorted(glob.glob(os.path.join(node_dir, "test_*")))]
    frozen = []  # (case, model)
    for i, case in cases:
        seen.add(os.path.basename(case))
        model = os.path.join(work, str(i), os.path.basename(case) + ".onnx")
        try:
            freeze_case.freeze(case, model)
        except Exception:  # noqa: BLE001 - a case the freezer cannot handle is not measured
            unmeasured += 1
            continue
        frozen.append((case, model))
    counts, probe_failures = probe_all(probe, [model for _, model in frozen])
    for case, model in frozen:
        name = os.path.basename(case)
        count = counts.get(model)
        if model in probe_failures:
            failed.append(f"{case}: {probe_failures[model]}")
            continue
        if count is None:
            unmeasured += 1
            continue
        if count == 0 and name not in expected:
            passed += 1
        elif count > 0 and name in expected:
            passed += 1
        elif count > 0:
            failed.append(f"{case}: {count} allocations per run")
        else:
            failed.append(f"{case}: allocates nothing now; remove it from the manifest")
    for name in sorted(set(expected) - seen):
        failed.append(f"{name}: in the manifest but in no suite")
    for line in failed:
        print("FAIL " + line)
    print(f"{unmeasured} cases not measured (not loadable or not runnable on zero inputs)")
    print(f"{passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
