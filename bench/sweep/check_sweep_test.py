#!/usr/bin/env -S /usr/bin/python3
"""check_sweep.py's reordering of detections (detection_order): rows whose scores tie within the
tolerance may be matched to the reference in another order, rows with different scores may not,
and a detection Kiln lacks is not hidden. Its count of values beyond the tolerance of a float64
result (beyond): NaN counts, a value within the tolerance does not. Exits 1 on a failure."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sweep import beyond, close, detection_order  # noqa: E402

BOXES = np.array([[0, 0, 10, 10], [5, 5, 20, 20], [1, 1, 2, 2]], np.float32)
TIED = np.array([0.9, 0.5, 0.5], np.float32)
failed = 0


def case(what, refs, got, want_match):
    global failed
    out, note = detection_order(got, refs)
    matched = all(close(a, r) for a, r in zip(out, refs))
    ok = matched == want_match
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'}: {what} (matched: {matched}{note})")


def swapped(refs):
    return [x[[0, 2, 1]] for x in refs]


refs = [BOXES, np.array([1, 2, 1]), TIED]
case("a tie of two labels, swapped", refs, swapped(refs), True)
refs = [BOXES, np.array([1, 1, 1]), TIED]
case("a tie of one label, swapped", refs, swapped(refs), True)
refs = [BOXES, np.array([1, 1, 1]), np.array([0.9, 0.6, 0.5], np.float32)]
case("different scores, swapped", refs, swapped(refs), False)
got = swapped(refs := [BOXES, np.array([1, 1, 1]), TIED])
got[0] = got[0].copy()
got[0][2] += 1.0
case("a tie whose box differs", refs, got, False)
masks = np.arange(3 * 4, dtype=np.float32).reshape(3, 1, 2, 2)
refs = [BOXES, np.array([1, 1, 1]), TIED, masks]
case("a tie with masks, swapped together", refs, swapped(refs), True)


def count(what, x, exact, want):
    global failed
    n = beyond(np.array(x, np.float32), np.array(exact, np.float64))
    failed += n != want
    print(f"{'ok' if n == want else 'FAIL'}: {what} ({n} beyond, want {want})")


count("within rtol and atol", [1.0009, 0.0, 1e-5], [1.0, 0.00009, 0.0], 0)
count("beyond rtol, beyond atol, NaN", [1.002, 3e-4, np.nan], [1.0, 0.0, 1.0], 3)
count("a negative exact value's magnitude", [-100.05], [-100.0], 0)
print(f"{8 - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
