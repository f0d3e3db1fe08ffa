#!/usr/bin/python3
"""check_cli.py: pacer-demo's bad input gives one clear line and a non-zero exit.

Runs WITHOUT a display on purpose: every case here must be caught before a
window opens (a run that got as far as the window system would fail with an
SDL/GLFW message instead, and the expected text would be missing). Also checks
that nothing is left half-written when one output path is bad.
"""

import os
import shutil
import subprocess
import sys
import tempfile


def main():
    demo = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="pacer-demo-cli-")
    bad_scenario = os.path.join(tmp, "bad.txt")
    with open(bad_scenario, "w") as f:
        f.write("# a scenario with a bad third line\nat 0s set hz=60\nat 1s set hz=0\n")
    bad_new_key = os.path.join(tmp, "bad-new-key.txt")
    with open(bad_new_key, "w") as f:
        f.write("at 0s set dt_mode=paced wait_point=before_present\nat 1s set dt_mode=smooth\n")
    bad_wait = os.path.join(tmp, "bad-wait.txt")
    with open(bad_wait, "w") as f:
        f.write("at 0s set wait_slack_ns=-1 wait_slice_ns=200000\nat 1s set wait_slice_ns=0\n")
    missing_dir = os.path.join(tmp, "no-such-dir")
    good_trace = os.path.join(tmp, "trace.csv")

    # (arguments, text the one line must contain)
    cases = [
        (["--bogus"], "--bogus"),
        (["--backend", "sdl3"], "--backend"),
        (["--strategy", "warp"], "--strategy"),
        (["--hz", "0"], "--hz"),
        (["--hz", "abc"], "--hz"),
        (["--frames", "0"], "--frames"),
        (["--duty", "1.5"], "--duty"),
        (["--vsync", "sometimes"], "--vsync"),
        (["--preempt-prob", "1"], "--preempt-prob"),
        (["--dt-mode", "smooth"], "--dt-mode: 'smooth' is not one of raw, paced, fixed"),
        (["--wait-point", "middle"], "--wait-point: 'middle' is not one of before_present, frame_start"),
        (["--sched-slice-us", "50"], "--sched-slice-us: 50 is out of range"),
        (["--fifo-priority", "100"], "--fifo-priority: 100 is out of range [0, 99]"),
        (["--nice", "20"], "--nice: 20 is out of range [-20, 19]"),
        (["--nice=-21"], "--nice: -21 is out of range [-20, 19]"),
        (["--timer-period-ms", "2.5"], "--timer-period-ms: '2.5' is not an integer"),
        (["--wait-slack-ns", "0"], "--wait-slack-ns: 0 is out of range -1 or [1, 100000000]"),
        (["--timer-margin-us", "5000"], "--timer-margin-us: 5000 -> tuning.timer.margin_ns: 5000000 is out of range"),
        (["--seconds", "nan"], "--seconds: 'nan' is not a number of seconds"),
        (["--seconds", "inf"], "--seconds: 'inf' is not a number of seconds"),
        (["--seconds", "-1"], "--seconds: '-1' is not a number of seconds"),
        (["--wait-slack-ns", "-2"], "--wait-slack-ns: -2 is out of range"),
        (["--wait-slice-ns=-5"], "--wait-slice-ns: -5 is out of range"),
        (["--wait-slice-ns", "0"], "--wait-slice-ns: 0 is out of range"),
        (["--wait-slice-ns", "100us"], "--wait-slice-ns: '100us' is not an integer"),
        (["--wait-slack-ns", "-1", "--wait-slice-ns", "200000000"], "--wait-slice-ns: 200000000 is out of range"),
        (["--scenario", bad_wait], "bad-wait.txt:2: wait_slice_ns: 0 is out of range"),
        (["--scenario", bad_new_key], "bad-new-key.txt:2: dt_mode: 'smooth' is not one of raw, paced, fixed"),
        (["--scenario", os.path.join(tmp, "missing.txt")], "missing.txt"),
        (["--scenario", bad_scenario], "bad.txt:3"),
        (["--screenshot-frame", "5"], "--screenshot"),
        (["--frames", "10", "--screenshot", os.path.join(tmp, "s.png"), "--screenshot-frame", "10"],
         "--screenshot-frame"),
        (["--trace", os.path.join(missing_dir, "t.csv")], "no-such-dir"),
        (["--summary-json", os.path.join(missing_dir, "s.json")], "no-such-dir"),
        (["--chrome-trace", os.path.join(missing_dir, "c.json")], "no-such-dir"),
        (["--trace", good_trace, "--screenshot", os.path.join(missing_dir, "s.png")], "no-such-dir"),
    ]
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    failures = 0
    for args, expected in cases:
        run = subprocess.run([demo] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, timeout=30)
        lines = run.stderr.splitlines()
        problems = []
        if run.returncode == 0:
            problems.append("exit 0")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr")
        if expected not in run.stderr:
            problems.append(f"no {expected!r} in the message")
        # Readable: one short line, unless it quotes a long temporary path.
        if lines and tmp not in lines[0] and len(lines[0]) > 120:
            problems.append(f"{len(lines[0])} characters, over 120")
        if run.stdout:
            problems.append("output on stdout")
        status = "ok  " if not problems else "FAIL"
        print(f"{status} {' '.join(args)} -> exit {run.returncode}: {run.stderr.strip()}"
              + (f"  [{'; '.join(problems)}]" if problems else ""))
        failures += bool(problems)

    # The case with a good trace path and a bad screenshot path left nothing.
    leftovers = [name for name in os.listdir(tmp) if name.startswith("trace")]
    if leftovers:
        print(f"FAIL files left behind by a run that never started: {leftovers}")
        failures += 1
    else:
        print("ok   nothing half-written when one output path is bad")
    shutil.rmtree(tmp)
    print(f"check_cli: {'PASS' if failures == 0 else f'FAIL ({failures})'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
