#!/usr/bin/python3
"""check_replay_suite.py: the QA suite on a replay (tools/qa.py --replay).

  - a live QA run kept in tests/replay/data (display-lock-jitter on sdl2
    under weston, its trace and its summary JSON) replayed under the same
    scenario, on its own display, gets the same verdict on every
    expectation as it got live; the figures are printed side by side;
  - a scenario whose expectation the recording cannot meet fails there
    (steady-60 wants the GPU work the demo's trace does not record), as
    FAIL in verdicts.csv and exit 1;
  - bad use (a missing recording, a demo-only flag, --replay-args alone,
    display flags pacer-replay refuses) is one line and exit 2.

Usage: check_replay_suite.py --replay-bin PACER_REPLAY --tmp DIR
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QA = os.path.join(ROOT, "tools", "qa.py")
DATA = os.path.join(ROOT, "tests", "replay", "data")
LIVE = os.path.join(DATA, "qa-weston-display-lock-jitter-sdl2")
# As the live run's display: weston's own refreshes, its stated 60 Hz, its repaint restarted after an idle refresh.
DISPLAY = "--display recorded --display-says 60 --idle-repaint-ms 9.67"

failures = []


def fail(message):
    failures.append(message)
    print("check_replay_suite: FAIL: " + message)


def qa(build_dir, out, *args):
    return subprocess.run([sys.executable, QA, "--build-dir", build_dir, "--out", out] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)


def verdict_rows(out):
    with open(os.path.join(out, "verdicts.csv"), newline="") as f:
        return list(csv.DictReader(f))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--replay-bin", required=True)
    p.add_argument("--tmp", required=True)
    args = p.parse_args()
    shutil.rmtree(args.tmp, ignore_errors=True)
    # qa.py finds pacer-replay as BUILD_DIR/replay/pacer-replay.
    build_dir = os.path.dirname(os.path.dirname(os.path.abspath(args.replay_bin)))

    out = os.path.join(args.tmp, "same")
    proc = qa(build_dir, out, "--replay", LIVE + ".csv", "--replay-args", DISPLAY, "display-lock-jitter")
    if proc.returncode != 0:
        fail(f"display-lock-jitter replayed: exit {proc.returncode}: {proc.stdout}{proc.stderr}")
    else:
        with open(LIVE + ".summary.json") as f:
            live = {v["expect"]: v for v in json.load(f)["verdicts"]}
        with open(os.path.join(out, "runs", "display-lock-jitter-replay.summary.json")) as f:
            again = {v["expect"]: v for v in json.load(f)["verdicts"]}
        if set(live) != set(again):
            fail(f"the replay judged {sorted(again)}, the live run {sorted(live)}")
        for expect, verdict in live.items():
            if expect in again:
                print(f"check_replay_suite: {expect}: live {verdict['actual']:.4g} "
                      f"({'pass' if verdict['passed'] else 'FAIL'}), replayed {again[expect]['actual']:.4g} "
                      f"({'pass' if again[expect]['passed'] else 'FAIL'})")
                if verdict["passed"] != again[expect]["passed"]:
                    fail(f"{expect}: live {'passed' if verdict['passed'] else 'failed'}, the replay did not")
        rows = verdict_rows(out)
        if not rows or any(r["backend"] != "replay" or r["status"] != "PASS" for r in rows):
            fail(f"verdicts.csv: {rows}")

    out = os.path.join(args.tmp, "unmet")
    proc = qa(build_dir, out, "--replay", LIVE + ".csv", "--replay-args", DISPLAY, "steady-60")
    rows = verdict_rows(out) if os.path.isfile(os.path.join(out, "verdicts.csv")) else []
    gpu = [r for r in rows if r["expect"].startswith("gpu_finish_p50_us")]
    if proc.returncode != 1 or not gpu or gpu[0]["passed"] != "0" or rows[0]["status"] != "FAIL":
        fail(f"steady-60 on a trace without GPU times: expected FAIL on gpu_finish_p50_us and exit 1; got exit "
             f"{proc.returncode}, {gpu}")

    cases = [
        (["--replay", os.path.join(args.tmp, "missing.csv"), "steady-60"], "--replay: "),
        (["--replay", LIVE + ".csv", "--backends", "glfw", "steady-60"], "--replay: --backends is for runs of the demo"),
        (["--replay-args", "--display recorded", "steady-60"], "--replay-args: only with --replay"),
        (["--replay", LIVE + ".csv", "--replay-args", "--display vrr", "steady-60"], "--display"),
        (["--replay", LIVE + ".csv", "--replay-args", "'unclosed", "steady-60"], "--replay-args: "),
    ]
    for extra, expected in cases:
        proc = qa(build_dir, os.path.join(args.tmp, "bad"), *extra)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        if proc.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
            fail(f"qa.py {' '.join(extra)}: expected exit 2 and one line holding {expected!r}; got exit "
                 f"{proc.returncode}, stderr {proc.stderr.strip()!r}")
    if failures:
        return 1
    print("check_replay_suite: ok: a live QA run replayed under its scenario got its verdicts again, an unmet "
          "expectation fails, bad use is refused on one line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
