#!/usr/bin/python3
"""check_live.py: runs pacer-demo headless with live changes of strategy,
rate and sleeper (live-change.txt) and checks that nothing restarts at them.

Run under tools/headless.sh. Checks, from the trace and the summary:
  - the Frame column is 0, 1, 2 ... N-1: no renumbering at a change;
  - the grid continues: every frame's deadline is the previous one plus
    (1 + Missed) periods of the frame's rate, to the trace's microsecond, so
    no change re-anchored it (a rebuilt pacer would: its first wait returns
    at once, a burst, and its grid starts from that wake); and no frame at a
    change or the two after it resynced. The wakes' timing is left to the
    grid: on this shared VM any frame may be late, change or not;
  - the pacer's statistics window kept every frame (pacer_stats_frames = N + 1:
    the run ends after the wait of frame N, which the pacer counted): the
    one Stats went on through every change.
"""

import argparse
import csv
import json
import os
import subprocess
import sys


def fail(message):
    print("check_live: FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--frames", type=int, required=True)
    opts, extra = parser.parse_known_args()
    os.makedirs(opts.out_dir, exist_ok=True)
    trace = os.path.join(opts.out_dir, "trace.csv")
    summary = os.path.join(opts.out_dir, "summary.json")
    for path in (trace, summary):
        if os.path.exists(path):
            os.remove(path)
    command = [opts.demo, "--scenario", opts.scenario, "--trace", trace, "--summary-json", summary,
               "--no-overlay", "--width", "320", "--height", "240"] + extra
    run = subprocess.run(command, capture_output=True, text=True, timeout=100)
    if run.returncode != 0:
        fail(f"exit {run.returncode}: {run.stderr.strip()}")

    with open(trace, newline="") as f:
        rows = list(csv.DictReader(f))
    indices = [int(row["Frame"]) for row in rows]
    if indices != list(range(opts.frames)):
        fail(f"Frame column is not 0..{opts.frames - 1}: {indices[:5]} ... {indices[-5:]}")

    changes = [i for i, row in enumerate(rows) if i > 0 and ": set " in row["Marker"]]
    if len(changes) < 6:
        fail(f"expected the scenario's 6 live changes in the Marker column, found {len(changes)}")
    for k in changes:
        for i in range(k, min(k + 3, len(rows))):
            if rows[i]["Resynced"] != "0":
                fail(f"frame {i} (change at {k}: {rows[k]['Marker']}): resynced")
    for i in range(1, len(rows)):
        row, previous = rows[i], rows[i - 1]
        if row["Resynced"] != "0":
            continue   # a real stall re-anchors; none may sit at a change (above)
        step_ms = (float(row["DeadlineSeconds"]) - float(previous["DeadlineSeconds"])) * 1e3
        expected_ms = (1 + int(row["Missed"])) * float(row["MsTargetPeriod"])
        if abs(step_ms - expected_ms) > 0.002:
            fail(f"frame {i}: deadline moved {step_ms:.4f} ms, not (1 + {row['Missed']}) x "
                 f"{row['MsTargetPeriod']} ms: the grid was not continued")
    print(f"check_live: trace: frames 0..{opts.frames - 1}, {len(changes)} changes, one continuous grid")

    with open(summary) as f:
        report = json.load(f)
    kept = int(report["run"]["pacer_stats_frames"])
    if kept != opts.frames + 1:
        fail(f"the pacer's statistics hold {kept} frames, not the run's {opts.frames} + 1: they restarted")
    print(f"check_live: the pacer's stats window holds all {kept} frames")
    print("check_live: PASS")


if __name__ == "__main__":
    main()
