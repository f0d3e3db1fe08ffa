#!/usr/bin/python3
"""check_stall.py: stops pacer-demo with SIGSTOP for 2 s, a few times, and
checks that each stall is reported on the first frame after it.

Run under tools/headless.sh (the ctest wrapper does). Python standard library only.

For each dt mode asked (paced, raw), the demo runs with a trace; while it runs
it is stopped STOPS times at different points of its frame (the main thread's
state just before the stop says where: S sleeping in the wait, R running its
work or the spin tail) and continued after STALL_S. The trace must show, for
each stop, one frame whose interval spans the stall, and that frame must be
the resynced one (Resynced=1) with its dt clamped (MsDt <= 100). Any other
resynced frame, the one after a stall included, must have an interval over the
resync threshold: a hitch of its own on the shared machine (Xvfb catching up
after the stop can take a few hundred ms), not the same stall reported again.
"""

import argparse
import csv
import os
import signal
import subprocess
import sys
import time

STALL_S = 2.0
STOPS = 3
MAX_DT_MS = 100.0          # pacer::Config::max_dt_ns, and the demo's raw clamp (motion.h)
RESYNC_AFTER_PERIODS = 8   # pacer::Config::resync_after_periods default


def fail(message):
    print("check_stall: FAIL: " + message)
    sys.exit(1)


def thread_state(pid):
    """The main thread's state letter (S, R, D, T ...), or '?'."""
    try:
        with open(f"/proc/{pid}/task/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def run(demo, out_dir, mode, hz, extra):
    trace = os.path.join(out_dir, f"stall-{mode}.csv")
    seconds = 2.0 + STOPS * (STALL_S + 1.5)
    command = [demo, "--backend", "sdl2", "--no-overlay", "--width", "320", "--height", "240",
               "--hz", str(hz), "--work-ms", "6", "--dt-mode", mode, "--seconds", str(seconds),
               "--trace", trace] + extra
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    states = []
    time.sleep(1.5)   # past start-up and the first frames
    for k in range(STOPS):
        # Different points of the frame: alternately while the main thread
        # sleeps (the pacer's wait) and while it runs (work, render, spin),
        # whichever comes first after 0.5 s if the other does not within 1 s.
        time.sleep(0.5)
        wanted = "S" if k % 2 == 0 else "R"
        give_up = time.monotonic() + 1.0
        state = thread_state(process.pid)
        while state != wanted and time.monotonic() < give_up:
            time.sleep(0.0005)
            state = thread_state(process.pid)
        process.send_signal(signal.SIGSTOP)
        states.append(state)
        time.sleep(STALL_S)
        process.send_signal(signal.SIGCONT)
        time.sleep(0.5)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        fail(f"{mode}: the demo did not end")
    if process.returncode != 0:
        fail(f"{mode}: the demo exited {process.returncode}: {stderr.strip()}")
    with open(trace, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, states


def check(rows, states, mode, hz):
    period_ms = 1000.0 / hz
    threshold_ms = RESYNC_AFTER_PERIODS * period_ms
    stalls = []
    for i, row in enumerate(rows):
        if int(row["Frame"]) == 0:
            continue
        interval = float(row["MsBetweenSimulationStart"])
        resynced = row["Resynced"] == "1"
        dt = float(row["MsDt"])
        if interval >= 1000 * STALL_S * 0.9:
            stalls.append(i)
            if not resynced:
                fail(f"{mode}: frame {row['Frame']}: a {interval:.0f} ms interval with Resynced=0")
            if dt > MAX_DT_MS:
                fail(f"{mode}: frame {row['Frame']}: MsDt {dt} after a {interval:.0f} ms stall, over {MAX_DT_MS}")
            # The frame after may resync only for a hitch of its own (the
            # rule below): the old late resync came on a short interval.
        elif resynced and interval < threshold_ms:
            fail(f"{mode}: frame {row['Frame']}: resynced after only {interval:.1f} ms "
                 f"(threshold {threshold_ms:.0f} ms)")
        if dt > MAX_DT_MS + 1e-6:
            fail(f"{mode}: frame {row['Frame']}: MsDt {dt} over {MAX_DT_MS}")
    if len(stalls) != STOPS:
        fail(f"{mode}: {len(stalls)} frames span a {STALL_S} s stall, expected {STOPS}")
    resynced = sum(1 for row in rows if row["Resynced"] == "1" and int(row["Frame"]) > 0)
    where = ", ".join({"S": "in the wait", "R": "running"}.get(s, s) for s in states)
    print(f"check_stall: {mode}: {STOPS} stops ({where}): {len(stalls)} stall frames, each resynced with "
          f"MsDt <= {MAX_DT_MS:g}; {resynced} resynced frames in {len(rows)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--modes", default="paced,raw")
    parser.add_argument("--hz", type=float, default=30)
    parser.add_argument("extra", nargs="*", help="more demo flags, after --")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for mode in args.modes.split(","):
        rows, states = run(args.demo, args.out_dir, mode, args.hz, args.extra)
        check(rows, states, mode, args.hz)
    print("check_stall: PASS")


if __name__ == "__main__":
    main()
