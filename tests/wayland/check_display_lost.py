#!/usr/bin/python3
"""check_display_lost.py: the compositor dies under a running pacer-demo.

Starts a headless weston of its own (tools/wayland.sh), runs the demo on it
with a trace and a JSON summary, and stops weston a few seconds in. SDL2 and
GLFW report a broken Wayland connection only as a quit or close request; the
demo must tell it from a close (pacer::backends::WindowHost::
display_connection_lost) and end as it does when an X server dies:
  - exit status 1, and one line on stderr saying the display server's
    connection was lost;
  - the trace and the summary written whole, the summary's ended_by saying
    why, and no temporary file left beside them.

With --example EXAMPLE instead of the demo (examples/*_opengl3): the same
loss, and the example must say on one line that the display server went
away and exit 1, not print its figures and exit 0.

Usage: check_display_lost.py --wayland-sh tools/wayland.sh --seat-module SO
                             (--demo PACER_DEMO | --example EXAMPLE) --backend sdl2|glfw --out-dir DIR
Exit 77 (ctest's skip) where weston cannot run here.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import wayland_session  # noqa: E402

LOST = "the display server's connection was lost"
RUN_BEFORE_LOSS_S = 3.0
EXIT_WITHIN_S = 15.0


def fail(message):
    print("check_display_lost: FAIL: " + message)
    sys.exit(1)


def check_outputs(out_dir):
    trace, summary = os.path.join(out_dir, "t.csv"), os.path.join(out_dir, "s.json")
    with open(trace, encoding="utf-8") as f:
        rows = f.read().splitlines()
    if len(rows) < 30:
        return f"the trace holds {len(rows)} lines; a few seconds of frames expected"
    with open(summary, encoding="utf-8") as f:
        ended_by = json.load(f)["run"].get("ended_by")
    if ended_by != LOST:
        return f"the summary's ended_by is {ended_by!r}, not {LOST!r}"
    leftovers = [n for n in os.listdir(out_dir) if n.startswith(".pacer-")]
    return f"temporary files left: {leftovers}" if leftovers else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--wayland-sh", required=True)
    p.add_argument("--seat-module", required=True)
    p.add_argument("--demo")
    p.add_argument("--example")
    p.add_argument("--backend", choices=("sdl2", "glfw"), required=True)
    p.add_argument("--out-dir", required=True)
    args = p.parse_args()
    if bool(args.demo) == bool(args.example):
        p.error("one of --demo and --example")
    reason = wayland_session.skip_reason("weston")
    if reason:
        print("SKIPPED: " + reason)
        return wayland_session.SKIP
    shutil.rmtree(args.out_dir, ignore_errors=True)
    os.makedirs(args.out_dir)
    name = f"lost-{args.backend}-{os.getpid()}"
    started = wayland_session.run([args.wayland_sh, "start", "weston", "--name", name, "--size", "320x240",
                                   "--seat-module", args.seat_module])
    if started.returncode != 0:
        fail("weston did not start:\n" + started.stdout)
    stopped = False
    try:
        env = wayland_session.client_env(args, fail)
        env.update(wayland_session.parse_env(started.stdout))
        if args.example:
            cmd = [args.example, "--hz", "60", "--frames", "1000000"]
        else:
            cmd = [args.demo, "--backend", args.backend, "--no-overlay", "--width", "320", "--height", "240",
                   "--trace", os.path.join(args.out_dir, "t.csv"), "--summary-json",
                   os.path.join(args.out_dir, "s.json")]
        demo = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(RUN_BEFORE_LOSS_S)
        if demo.poll() is not None:
            fail(f"the demo ended before the compositor did (exit {demo.returncode}): {demo.stderr.read()}")
        wayland_session.run([args.wayland_sh, "stop", "--name", name])
        stopped = True
        lost_at = time.monotonic()
        stderr = wayland_session.stderr_once_ended(
            demo, EXIT_WITHIN_S, fail, f"the demo still ran {EXIT_WITHIN_S:g} s after its compositor stopped")
        took_s = time.monotonic() - lost_at
    finally:
        if not stopped:
            wayland_session.run([args.wayland_sh, "stop", "--name", name])
    problems = []
    if demo.returncode != 1:
        problems.append(f"exit status {demo.returncode}, not 1")
    said = "the display server went away" if args.example else LOST
    if sum(said in line for line in stderr.splitlines()) != 1:
        problems.append(f"stderr does not say once that {said}: {stderr.strip()!r}")
    outputs = None if args.example else check_outputs(args.out_dir)
    if outputs:
        problems.append(outputs)
    if problems:
        fail("; ".join(problems))
    what = "its trace and summary written" if args.demo else "saying so"
    print(f"check_display_lost: ok: {args.example or args.backend} ended {took_s:.1f} s after weston stopped, "
          f"exit 1, {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
