#!/usr/bin/python3
"""check_bad_config.py: the QA suite must fail a deliberately bad configuration.

Runs tools/qa.py on tests/qa/bad-sleep-15ms.txt (naive sleep under a 15.625 ms
simulated scheduler tick, with steady-60.txt's thresholds) and checks that:
  - qa.py exits 1 (a scenario failed), not 0 and not 2 (usage error);
  - verdicts.csv marks the run FAIL, and fails it on fps and success_pct with
    values that show why: every sleep ends on a tick, so frames last about
    31.25 ms (about 32 fps) and hardly any is within +-1 ms of 16.7 ms;
  - a failing run is run again (qa.py's default --reruns 2), and a second
    failure decides: two runs, both in verdicts.csv, FAIL in the end;
  - index.md says FAIL for the scenario and prints the measured values;
  - the report still has its plots and trace (a failing run is documented,
    not dropped).
And that qa.py's bad usage is one line and exit status 2.

Usage: check_bad_config.py --demo PACER_DEMO --out DIR [--backend glfw]
"""

import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QA = os.path.join(ROOT, "tools", "qa.py")
SCENARIO = os.path.join(HERE, "bad-sleep-15ms.txt")


def fail(message):
    print("check_bad_config: FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--backend", default="glfw")
    args = parser.parse_args()

    # Bad usage: one line naming the problem, exit 2, before anything runs.
    proc = subprocess.run([sys.executable, QA, "--demo", args.demo, "--out", args.out, "no-such-scenario"],
                          capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 2 or len(lines) != 1 or "no-such-scenario" not in lines[0]:
        fail(f"unknown scenario: expected exit 2 and one line naming it, got {proc.returncode}: {proc.stderr!r}")
    proc = subprocess.run([sys.executable, QA, "--demo", args.demo, "--backends", "sdl3", SCENARIO],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 2 or "sdl3" not in proc.stderr:
        fail(f"unknown backend: expected exit 2 naming it, got {proc.returncode}: {proc.stderr!r}")

    proc = subprocess.run([sys.executable, QA, "--demo", args.demo, "--reruns", "9", SCENARIO],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 2 or len(proc.stderr.strip().splitlines()) != 1 or "--reruns" not in proc.stderr:
        fail(f"--reruns 9: expected exit 2 and one line naming --reruns, got {proc.returncode}: {proc.stderr!r}")

    # The bad configuration.
    proc = subprocess.run([sys.executable, QA, "--demo", args.demo, "--out", args.out, "--backends", args.backend,
                           SCENARIO], capture_output=True, text=True, timeout=240)
    print(proc.stdout + proc.stderr)
    if proc.returncode != 1:
        fail(f"qa.py exited {proc.returncode} for the bad configuration; expected 1 (a scenario failed)")

    with open(os.path.join(args.out, "verdicts.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or any(r["status"] != "FAIL" for r in rows):
        fail(f"verdicts.csv: expected status FAIL on every row (not ERROR), got {[r['status'] for r in rows]}")
    if sorted({r["run"] for r in rows}) != ["1", "2"]:
        fail(f"verdicts.csv: expected the first run and one rerun (runs 1 and 2), got "
             f"{sorted({r['run'] for r in rows})}")
    by_expect = {r["expect"]: r for r in rows if r["run"] == "1"}
    fps = by_expect.get("fps >= 58")
    success = by_expect.get("success_pct >= 50")
    if fps is None or success is None:
        fail(f"verdicts.csv: no 'fps >= 58' / 'success_pct >= 50' rows: {list(by_expect)}")
    if fps["passed"] != "0" or not 20.0 <= float(fps["actual"]) <= 40.0:
        fail(f"fps: expected a failed verdict near 32 fps (31.25 ms ticks), got passed={fps['passed']} "
             f"actual={fps['actual']}")
    if success["passed"] != "0" or float(success["actual"]) >= 20.0:
        fail(f"success_pct: expected a failed verdict well under 50 %, got {success}")

    with open(os.path.join(args.out, "index.md"), encoding="utf-8") as f:
        index = f.read()
    if "**FAIL**" not in index.split("## Verdicts", 1)[0]:
        fail("index.md: the headline does not say FAIL")
    verdict_row = next((line for line in index.splitlines() if line.startswith("| [bad-sleep-15ms]")), "")
    if not verdict_row.startswith("| [bad-sleep-15ms](#bad-sleep-15ms) | **FAIL**") or \
            "0 of 2 runs passed" not in verdict_row:
        fail(f"index.md: the verdict table does not mark bad-sleep-15ms FAIL after 2 runs: {verdict_row!r}")
    shown = f"| `fps >= 58` | **FAIL** {float(fps['actual']):.4g} · **FAIL** "
    if shown not in index:
        fail(f"index.md: expected the measured fps in the thresholds table: {shown!r}")
    stem = f"bad-sleep-15ms-{args.backend}"
    for path in (f"plots/{stem}-timeline.png", f"plots/{stem}-histogram.png", f"plots/{stem}-percentiles.png",
                 f"traces/{stem}.csv", f"runs/{stem}.summary.json", f"runs/{stem}.png",
                 f"traces/{stem}-rerun1.csv", f"runs/{stem}-rerun1.log"):
        if not os.path.isfile(os.path.join(args.out, path)):
            fail(f"the report lacks {path}")
    # The per-phase table counts the 31 ms frames over 25 ms: nearly all.
    row = next((line for line in index.splitlines() if line.startswith("| whole run |")), None)
    if row is None:
        fail("index.md: no per-phase row for the whole run")
    cells = [c.strip() for c in row.strip("|").split("|")]
    frames, over_25 = int(cells[1]), int(cells[9])
    if not (frames > 0 and over_25 >= 0.8 * frames):
        fail(f"index.md: the phase row should count nearly every frame over 25 ms: {row}")
    print(f"check_bad_config: ok: qa.py failed the bad configuration (fps {float(fps['actual']):.1f}, "
          f"success {float(success['actual']):.1f} %)")


if __name__ == "__main__":
    main()
