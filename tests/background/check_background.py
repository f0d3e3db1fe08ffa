#!/usr/bin/python3
"""check_background.py: a window in the background, under Xvfb with a window
manager (openbox: minimizing needs one), driven by xdotool. The program runs
at 60 Hz through four phases of 1.5 seconds each (the first from the
window's appearance):

  front      the program's window has the focus
  unfocused  a decoy window (xmessage) takes it:  background_hz, 30 Hz
  hidden     the program's window is minimized:   hidden_hz, 10 Hz
  front      it is activated again:               60 Hz

and each change must show at the first wait after it. An example's line for
that decision gives the frame's interval, which must already be the new
rate's period (at least it, less 1 ms; at most it plus a generous 20 ms for a
2-core VM). The demo's trace gives more: that frame's deadline must be one
new period after the wake before it (or the wait's call, where the frame's
work ran past that: a loaded machine), its wake within 20 ms of it, and back
in front no more frames may come in half a second than 60 Hz allows (no
catch-up burst).

  check_background.py --program PATH --kind example|demo|run [--backend glfw|sdl2] [--out DIR]

An example prints a line per decision with the frame's interval ("frame 312
(33.4 ms after the one before): ..."); the demo writes its trace (--trace),
whose Window and PaceHz columns say the state of every frame. With --kind
run, PATH is pacer-run, and the program it paces is glxgears (a program
nobody here wrote, which reads no window state of its own): pacer-run's
trace is the demo's, and it is ended with SIGTERM after the last phase.
Run it under tools/headless.sh (DISPLAY set); it starts openbox and the
decoy itself and stops them, by PID, at the end. Exits 0 when every check
holds, 1 when one fails (each printed), 77 where openbox, xdotool, xmessage,
xprop or (--kind run) glxgears is missing.
"""

import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time

PHASE_S = 1.5
RATES = {"front": 60.0, "unfocused": 30.0, "hidden": 10.0}
SLACK_MS = 20.0   # the upper bound's allowance on a loaded VM


def xdotool(*args, timeout=10):
    """xdotool's output; '' where it failed or timed out (--sync never gives up)."""
    try:
        out = subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def wait_for_window(args, what):
    for _ in range(100):
        found = xdotool("search", "--onlyvisible", *args, timeout=2).split()
        if found:
            return found[0]
        time.sleep(0.1)
    raise RuntimeError(f"no window for {what} after 10 s")


def wait_for_wm():
    """openbox is up once the root window names its check window."""
    for _ in range(100):
        out = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], capture_output=True, text=True)
        if "window id" in out.stdout:
            return
        time.sleep(0.1)
    raise RuntimeError("openbox did not start in 10 s")


def interval_ok(label, interval_ms, rate_hz, problems):
    period = 1000.0 / rate_hz
    # Back in front, a pacer on the display's clock (X11's Present under
    # Xvfb: auto's display_lock) takes the first refresh its lead allows,
    # sooner than a period; never later.
    soonest = 0.0 if label == "front" else period - 1.0
    ok = soonest <= interval_ms <= period + SLACK_MS
    print(f"  {label}: the first frame {interval_ms:.1f} ms after the one before "
          f"({rate_hz:g} Hz: {period:.1f} ms) {'ok' if ok else 'FAIL'}")
    if not ok:
        problems.append(f"{label}: {interval_ms:.1f} ms, not {period:.1f} ms")


def check_example(output, problems):
    """The decisions an example printed: one per phase, in order."""
    lines = re.findall(r"^frame (\d+) \(([\d.]+) ms after the one before\): (.*)$", output, re.M)
    expect = [("unfocused", r"window unfocused, paced at 30 Hz \(background_hz\)"),
              ("hidden", r"window hidden, paced at 10 Hz \(hidden_hz\)"),
              ("front", r"^window \w+ -> foreground")]
    at = 0
    for phase, pattern in expect:
        found = next((i for i in range(at, len(lines)) if re.search(pattern, lines[i][2])), None)
        if found is None:
            problems.append(f"no decision for {phase} ({pattern}) after frame "
                            f"{lines[at - 1][0] if at else 'start'}")
            return
        frame, interval, reason = lines[found]
        print(f"  frame {frame}: {reason}")
        interval_ok(phase, float(interval), RATES[phase], problems)
        at = found + 1


def check_trace(path, problems):
    """The demo's trace: at each change of the Window column the frame's
    deadline is one new period after the wake before it (or the wait's call,
    where the frame's work ran past that), its wake is near it, and back in
    front no more frames come in half a second than the rate allows."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    changes = [i for i in range(1, len(rows)) if rows[i]["Window"] != rows[i - 1]["Window"]]
    states = [rows[i]["Window"] for i in changes]
    print(f"  {len(rows)} frames; the window: {rows[0]['Window']} -> {' -> '.join(states)}")
    want = ["unfocused", "hidden", "foreground"]
    if states[:3] != want:
        problems.append(f"window states {states}, not {want}")
        return
    for i, state in zip(changes, want):
        phase = "front" if state == "foreground" else state
        pace = float(rows[i]["PaceHz"])
        if abs(pace - RATES[phase]) > 1e-6:
            problems.append(f"{state}: PaceHz {pace}, not {RATES[phase]}")
        period = 1000.0 / RATES[phase]
        wake_before = float(rows[i - 1]["TimeInSeconds"]) * 1000
        called = wake_before + float(rows[i]["MsCPUBusy"])
        expected = max(wake_before + period, called)
        deadline = float(rows[i]["DeadlineSeconds"]) * 1000
        late = float(rows[i]["MsWakeLateness"])
        ok = abs(deadline - expected) <= 0.5 and late <= SLACK_MS
        if state == "foreground" and rows[i]["Strategy"] == "display_lock":
            # The display's clock again: the first refresh its lead allows
            # from the wait's call, a period after it at most.
            ok = wake_before < deadline <= called + period + 0.5 and late <= SLACK_MS
        print(f"  {state} (frame {rows[i]['Frame']}): deadline {deadline - wake_before:.1f} ms after the wake "
              f"before (work {called - wake_before:.1f} ms; {RATES[phase]:g} Hz: {period:.1f} ms), woke "
              f"{late:.1f} ms late {'ok' if ok else 'FAIL'}")
        if not ok:
            problems.append(f"{state}: deadline {deadline - wake_before:.1f} ms after the wake before, "
                            f"not {expected - wake_before:.1f}; woke {late:.1f} ms late")
    back = changes[2]
    start = float(rows[back]["TimeInSeconds"])
    burst = sum(1 for r in rows[back:] if float(r["TimeInSeconds"]) < start + 0.5)
    ok = burst <= 0.5 * RATES["front"] + 1
    print(f"  back in front: {burst} frames in the first half second {'ok' if ok else 'FAIL (a burst)'}")
    if not ok:
        problems.append(f"a burst back in front: {burst} frames in half a second at 60 Hz")
    hidden = [float(r["TimeInSeconds"]) for r in rows[changes[1]:changes[2]]]
    if len(hidden) >= 2:
        rate = (len(hidden) - 1) / (hidden[-1] - hidden[0])
        ok = rate <= 10.5
        print(f"  hidden: {len(hidden)} frames, {rate:.2f} a second {'ok' if ok else 'FAIL'}")
        if not ok:
            problems.append(f"hidden: {rate:.2f} frames a second, over 10")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--kind", choices=["example", "demo", "run"], required=True)
    parser.add_argument("--backend", choices=["glfw", "sdl2"], default="sdl2")
    parser.add_argument("--out", default="background-out")
    args = parser.parse_args()
    for tool in ("openbox", "xdotool", "xmessage", "xprop") + (("glxgears",) if args.kind == "run" else ()):
        if shutil.which(tool) is None:
            print(f"check_background: {tool} not found (tools/setup.sh tests installs it): skipped")
            return 77
    os.makedirs(args.out, exist_ok=True)
    trace = os.path.join(args.out, f"background-{args.backend}.csv")
    # Enough frames for the four phases with a second to spare; the run ends on its own.
    frames = int(RATES["front"] * (PHASE_S + 1) + RATES["unfocused"] * PHASE_S + RATES["hidden"] * PHASE_S +
                 RATES["front"] * (PHASE_S + 1))
    command = [args.program, "--hz", "60", "--frames", str(frames)]
    title = "^pacer"
    if args.kind == "demo":
        command += ["--backend", args.backend, "--strategy", "auto", "--width", "480", "--height", "270",
                    "--trace", trace]
    elif args.kind == "run":
        trace = os.path.join(args.out, "background-run.csv")
        command = [args.program, "--hz", "60", "--trace", trace, "--", "glxgears"]
        title = "^glxgears$"
    started = []
    try:
        wm = subprocess.Popen(["openbox", "--sm-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(wm)
        wait_for_wm()
        decoy = subprocess.Popen(["xmessage", "-geometry", "+900+500", "-name", "focus_decoy",
                                  "a window to take the focus"], stderr=subprocess.DEVNULL)
        started.append(decoy)
        decoy_id = wait_for_window(["--classname", "focus_decoy"], "the decoy")
        program = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started.append(program)
        window = wait_for_window(["--name", title], args.program)
        xdotool("windowactivate", "--sync", window)
        time.sleep(PHASE_S)
        print(f"{time.monotonic():.2f} the decoy takes the focus")
        xdotool("windowactivate", "--sync", decoy_id)
        time.sleep(PHASE_S)
        print(f"{time.monotonic():.2f} the window is minimized")
        xdotool("windowminimize", "--sync", window)
        time.sleep(PHASE_S)
        print(f"{time.monotonic():.2f} the window is activated")
        xdotool("windowactivate", "--sync", window)
        if args.kind == "run":   # glxgears runs until it is told to stop
            time.sleep(PHASE_S + 1)
            program.send_signal(signal.SIGTERM)
        output, _ = program.communicate(timeout=60)
        started.remove(program)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print(f"check_background: {error}")
        return 1
    finally:
        for process in reversed(started):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    if program.returncode not in ((-signal.SIGTERM, 128 + signal.SIGTERM) if args.kind == "run" else (0,)):
        print(output)
        print(f"check_background: {args.program} exited {program.returncode}")
        return 1
    problems = []
    what = "run, glxgears" if args.kind == "run" else f"{args.kind}, {args.backend}"
    print(f"{os.path.basename(args.program)} ({what}):")
    if args.kind == "example":
        check_example(output, problems)
    else:
        check_trace(trace, problems)
    if problems:
        print(output[-3000:])
        print("FAILED: " + "; ".join(problems))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
