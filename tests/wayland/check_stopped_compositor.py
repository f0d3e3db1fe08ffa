#!/usr/bin/python3
"""check_stopped_compositor.py: what a compositor can do to a running demo
that a signal alone cannot undo, and what the demo must do then.

  --case stopped     weston stopped (SIGSTOP) under the demo, then SIGTERM to
                     the demo: its frame loop is held in the swap, where the
                     signal cannot reach it; within a few seconds the demo
                     must still end (exit 1), its trace and summary written,
                     the summary's ended_by naming the signal and the
                     compositor that did not answer, no temporary file left.
  --case no-pointer  GLFW on GNOME's mutter (a seat without a pointer) with
                     the overlay asked for: GLFW 3.3 cannot make Dear ImGui's
                     cursors there. The demo must run without its overlay,
                     say so on one line, and exit 0, not crash.

Usage: check_stopped_compositor.py --case stopped|no-pointer --wayland-sh tools/wayland.sh
                                   [--seat-module SO] --demo PACER_DEMO --backend sdl2|glfw --out-dir DIR
Exit 77 (ctest's skip) where the compositor cannot run here.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import wayland_session  # noqa: E402

RUN_BEFORE_S = 3.0
ENDED_WITHIN_S = 6.0   # the demo's watch gives the loop 2 s after the signal


def fail(message):
    print("check_stopped_compositor: FAIL: " + message)
    sys.exit(1)


def pid_of(name):
    with open(f"/tmp/pacer-wayland-{name}/pid", encoding="utf-8") as f:   # tools/wayland.sh's state
        return int(f.read().strip())


def stopped(args, env, name):
    out = args.out_dir
    cmd = [args.demo, "--backend", args.backend, "--no-overlay", "--width", "320", "--height", "240",
           "--strategy", "vsync", "--trace", os.path.join(out, "t.csv"), "--summary-json", os.path.join(out, "s.json")]
    demo = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(RUN_BEFORE_S)
    if demo.poll() is not None:
        fail(f"the demo ended early (exit {demo.returncode}): {demo.stderr.read()}")
    compositor = pid_of(name)
    os.kill(compositor, signal.SIGSTOP)
    try:
        time.sleep(1.0)   # the loop now held in its swap
        demo.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        stderr = wayland_session.stderr_once_ended(
            demo, ENDED_WITHIN_S + 10, fail,
            f"the demo still ran {ENDED_WITHIN_S + 10:g} s after SIGTERM with its compositor stopped")
        took = time.monotonic() - sent
    finally:
        os.kill(compositor, signal.SIGCONT)
    problems = []
    if took > ENDED_WITHIN_S:
        problems.append(f"ended {took:.1f} s after SIGTERM (at most {ENDED_WITHIN_S:g})")
    if demo.returncode != 1:
        problems.append(f"exit status {demo.returncode}, not 1")
    if "does not answer" not in stderr:
        problems.append(f"stderr does not say the display server did not answer: {stderr.strip()!r}")
    try:
        with open(os.path.join(out, "t.csv"), encoding="utf-8") as f:
            rows = len(f.read().splitlines())
        with open(os.path.join(out, "s.json"), encoding="utf-8") as f:
            ended_by = json.load(f)["run"].get("ended_by", "")
    except (OSError, ValueError, KeyError) as e:
        fail(f"the trace or summary is missing or unreadable: {e}")
    if rows < 30:
        problems.append(f"the trace holds {rows} lines")
    if ended_by != "SIGTERM, the display server not answering":
        problems.append(f"the summary's ended_by is {ended_by!r}")
    leftovers = [n for n in os.listdir(out) if n.startswith(".pacer-")]
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    if problems:
        fail("; ".join(problems))
    print(f"check_stopped_compositor: ok: {args.backend} ended {took:.1f} s after SIGTERM on a stopped weston, "
          "exit 1, its trace and summary written")


def no_pointer(args, env):
    cmd = [args.demo, "--backend", "glfw", "--width", "320", "--height", "240", "--seconds", "2",
           "--summary-json", os.path.join(args.out_dir, "s.json")]
    run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    said = [line for line in run.stderr.splitlines() if "no overlay" in line]
    if run.returncode != 0:
        fail(f"exit status {run.returncode} (a crash is -11): {run.stderr.strip()[-400:]!r}")
    if len(said) != 1 or "no pointer" not in said[0]:
        fail(f"expected one line saying the overlay is off for want of a pointer: {run.stderr.strip()!r}")
    print("check_stopped_compositor: ok: glfw on mutter without a pointer runs without its overlay and says so")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", choices=("stopped", "no-pointer"), required=True)
    p.add_argument("--wayland-sh", required=True)
    p.add_argument("--seat-module", default="")
    p.add_argument("--demo", required=True)
    p.add_argument("--backend", choices=("sdl2", "glfw"), required=True)
    p.add_argument("--out-dir", required=True)
    args = p.parse_args()
    compositor = "weston" if args.case == "stopped" else "mutter"
    reason = wayland_session.skip_reason(compositor)
    if reason:
        print("SKIPPED: " + reason)
        return wayland_session.SKIP
    shutil.rmtree(args.out_dir, ignore_errors=True)
    os.makedirs(args.out_dir)
    name = f"{args.case}-{args.backend}-{os.getpid()}"
    start = [args.wayland_sh, "start", compositor, "--name", name, "--size", "320x240"]
    if compositor == "weston":
        start += ["--seat-module", args.seat_module]
    started = wayland_session.run(start)
    if started.returncode != 0:
        fail(f"{compositor} did not start:\n" + started.stdout)
    try:
        env = wayland_session.client_env(args, fail)
        env.update(wayland_session.parse_env(started.stdout))
        if args.case == "stopped":
            stopped(args, env, name)
        else:
            no_pointer(args, env)
    finally:
        wayland_session.run([args.wayland_sh, "stop", "--name", name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
