#!/usr/bin/python3
"""check_reruns.py: qa.py's rule for repeating a failing run, on scripted runs.

A run that fails is run again while more runs could change the majority;
the verdict is that of most runs. A broken run (ERROR) is not repeated.
run_one is replaced by a script of statuses, so no demo runs.

Usage: check_reruns.py
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qa  # noqa: E402


def judged(statuses, reruns):
    """(the verdict, the statuses of the runs made) for runs scripted to end
    in `statuses`, in order."""
    script = list(statuses)
    made = []

    def scripted_run(suite, scenario, description, backend, rerun):
        if rerun != len(made):
            raise AssertionError(f"rerun {rerun} asked for after {len(made)} runs")
        made.append(script.pop(0))
        return {"status": made[-1], "rerun": rerun}

    real, qa.run_one = qa.run_one, scripted_run
    try:
        suite = qa.Suite("demo", "out", False, [], None, None, reruns)
        r = qa.run_judged(suite, "s.txt", {}, "sdl2")
    finally:
        qa.run_one = real
    return r["status"], made


CASES = [
    # (scripted statuses, --reruns, expected verdict, runs made)
    (["PASS"], 2, "PASS", 1),
    (["ERROR"], 2, "ERROR", 1),
    (["FAIL"], 0, "FAIL", 1),
    (["FAIL", "PASS", "PASS"], 2, "PASS", 3),
    (["FAIL", "FAIL"], 2, "FAIL", 2),
    (["FAIL", "PASS", "FAIL"], 2, "FAIL", 3),
    (["FAIL", "PASS", "ERROR"], 2, "FAIL", 3),
    (["FAIL", "PASS"], 1, "FAIL", 2),          # one of two is not most
    (["FAIL", "PASS", "PASS", "PASS"], 4, "PASS", 4),
    (["FAIL", "FAIL", "PASS", "FAIL"], 4, "FAIL", 4),
]


def main():
    bad = []
    for statuses, reruns, verdict, count in CASES:
        got, made = judged(statuses, reruns)
        if got != verdict or len(made) != count:
            bad.append(f"{statuses} with --reruns {reruns}: expected {verdict} after {count} runs, "
                       f"got {got} after {len(made)} ({made})")
    for line in bad:
        print("check_reruns: FAIL: " + line)
    if bad:
        return 1
    print(f"check_reruns: ok: {len(CASES)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
