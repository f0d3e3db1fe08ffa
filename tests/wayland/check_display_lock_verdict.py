#!/usr/bin/python3
"""check_display_lock_verdict.py: tools/display_lock.py's verdict rule on
scripted figures, so no compositor runs.

vsync in the same run is the machine's floor: where vsync itself was over 1 %
a refresh late, auto's discards and late frames are not judged (None); on a
quiet run they are. The pick and the latency are judged always.

Usage: check_display_lock_verdict.py
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import display_lock  # noqa: E402

ARGS = argparse.Namespace(latency_slack_ms=6.0, vsync_ratio=1.5, max_discarded=2, compositor="weston")
PICKED = "auto -> display_lock: display says 60 Hz but shows frames every 25.2 ms; 39.6 Hz / 1"
DISCARDS = "<= 2 discarded"
LATE = "<= 1 % a refresh late"


def figures(latency_p50, refresh_late_pct, discarded=0, decision=PICKED):
    return {"latency_p50": latency_p50, "work_p50": 7.0, "work_tail": 20.0, "refresh_late_pct": refresh_late_pct,
            "discarded": discarded, "decision": decision}


# (what, vsync's late %, auto's late %, auto's discards, expected checks of note)
CASES = [
    ("quiet, smooth", 0.0, 0.5, 0, {DISCARDS: True, LATE: True}),
    ("quiet, auto a refresh late", 0.0, 1.5, 0, {DISCARDS: True, LATE: False}),
    ("quiet, auto discards", 0.5, 0.5, 3, {DISCARDS: False, LATE: True}),
    ("quiet at the edge: vsync 1 %", 1.0, 1.2, 0, {DISCARDS: True, LATE: False}),
    ("crowded (CI): vsync late too", 2.36, 2.85, 54, {DISCARDS: None, LATE: None}),
    ("crowded here: auto 3x vsync's share", 2.36, 7.88, 47, {DISCARDS: None, LATE: None}),
]


def main():
    failures = 0
    vsync_latency, auto_latency = 65.6, 31.5
    for what, vsync_late, auto_late, discarded, expected in CASES:
        checks, floor_pct = display_lock.judge(figures(vsync_latency, vsync_late),
                                               figures(auto_latency, auto_late, discarded), 16.6, ARGS)
        got = {name: checks[name] for name in expected}
        ok = got == expected and floor_pct == vsync_late and checks["picked, saying why"] and checks["latency bound"]
        if not ok:
            failures += 1
            print(f"check_display_lock_verdict: {what}: got {got}, floor {floor_pct}; expected {expected}")
    # What is never excused by a busy machine: the pick and the latency.
    checks, _ = display_lock.judge(figures(vsync_latency, 3.0), figures(auto_latency, 3.0, decision="auto -> vsync"),
                                   16.6, ARGS)
    if checks["picked, saying why"] is not False:
        failures += 1
        print("check_display_lock_verdict: a run that did not pick display_lock was not failed")
    if display_lock.verdict_word(None, 2.36) != "not judged (vsync itself 2.36 % a refresh late in this run)":
        failures += 1
        print("check_display_lock_verdict: 'not judged' does not name the floor")
    if failures:
        return 1
    print(f"check_display_lock_verdict: ok ({len(CASES) + 2} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
