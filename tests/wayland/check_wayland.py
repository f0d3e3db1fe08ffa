#!/usr/bin/python3
"""check_wayland.py: runs pacer-demo under a headless Wayland compositor and
checks the swaps and the present feedback.

Starts its own compositor instance with tools/wayland.sh (a name of its own,
stopped at the end whatever happens), runs the demo there with the given
arguments, reads its summary JSON. Python standard library only.

Checks, as asked:
  --swap-period-ms P --swap-tolerance-pct T
      the median interval between swap returns is within T % of P: the swaps
      block at the output's rate (sway);
  --expect-feedback
      wp_presentation feedback arrived for most frames, the median interval
      between displayed frames agrees with the median between swap returns
      within --feedback-tolerance-pct (with a blocking swap, one frame is
      shown per swap), frames were shown after their own swaps returned
      (median), and the compositor's stated refresh is not what it does
      (weston headless states 60 Hz and repaints slower);
  --expect-no-feedback
      none arrived (sway 1.7: wlroots 0.15 never sends presented).
Exit 77 (ctest's skip) when the compositor is not installed or we are not root.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
# The compositor and client helpers (tools/wayland_session.py), here for
# check_auto.py and tests/examples too.
from wayland_session import (SKIP, client_env, parse_env, priority_prefix, run,  # noqa: E402,F401
                             skip_reason, start_command)

def fail(message):
    print("check_wayland: FAIL: " + message)
    sys.exit(1)


def add_run_arguments(parser, size):
    """The arguments every Wayland check takes: the compositor, the output,
    the demo and its backend, where the outputs go."""
    parser.add_argument("--wayland-sh", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--compositor", choices=["sway", "weston", "mutter", "kwin"], required=True)
    parser.add_argument("--xwayland", action="store_true",
                        help="mutter only: the demo runs as an X11 client of mutter's Xwayland")
    parser.add_argument("--hz", type=float, default=60)
    parser.add_argument("--size", default=size, help="the output's size, WxH")
    parser.add_argument("--seat-module", default="")
    parser.add_argument("--backend", choices=["sdl2", "glfw"], required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("demo_args", nargs=argparse.REMAINDER)


def demo_args_of(args):
    return args.demo_args[1:] if args.demo_args[:1] == ["--"] else args.demo_args


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser, size="1280x720")
    parser.add_argument("--swap-period-ms", type=float, default=0)
    parser.add_argument("--swap-tolerance-pct", type=float, default=2)
    parser.add_argument("--expect-feedback", action="store_true")
    parser.add_argument("--feedback-tolerance-pct", type=float, default=5)
    parser.add_argument("--expect-no-feedback", action="store_true")
    args = parser.parse_args()
    demo_args = demo_args_of(args)

    skip = skip_reason(args.compositor, args.xwayland)
    if skip:
        print("check_wayland: SKIP: " + skip)
        return SKIP

    os.makedirs(args.out_dir, exist_ok=True)
    summary_path = os.path.join(args.out_dir, "summary.json")
    if os.path.exists(summary_path):
        os.remove(summary_path)
    name = f"ctest-{args.compositor}-{args.backend}-{os.getpid()}"
    env = client_env(args, fail)

    started = run(start_command(args, name))
    print(started.stdout, end="")
    try:
        if started.returncode != 0:
            fail(f"{args.compositor} did not start")
        env.update(parse_env(started.stdout))
        # SCHED_FIFO, as the compositor (tools/wayland.sh): on a busy machine a
        # starved client misses refreshes, and its swaps then measure the
        # machine's load instead of the output's clock. nice -10 where FIFO
        # is not allowed.
        cmd = priority_prefix() + [args.demo, "--backend", args.backend, "--summary", "--summary-json", summary_path] + demo_args
        print("check_wayland: " + " ".join(cmd))
        demo = run(cmd, env=env, timeout=90)
        print(demo.stdout, end="")
        if demo.returncode != 0:
            fail(f"pacer-demo exited {demo.returncode}")
    finally:
        print(run([args.wayland_sh, "stop", "--name", name]).stdout, end="")

    with open(summary_path) as f:
        info = json.load(f)["run"]

    def number(key):
        if key not in info:
            fail(f"the summary has no '{key}'")
        return float(info[key])

    swap_ms = number("swap_return_interval_median_ms")
    print(f"check_wayland: median swap-return interval {swap_ms:.3f} ms")
    if args.swap_period_ms > 0:
        off_pct = abs(swap_ms - args.swap_period_ms) / args.swap_period_ms * 100
        if off_pct > args.swap_tolerance_pct:
            fail(f"median swap-return interval {swap_ms:.3f} ms is {off_pct:.1f} % off the output's "
                 f"{args.swap_period_ms:.3f} ms (allowed {args.swap_tolerance_pct:g} %)")

    source = info.get("present_feedback", "")
    presented = int(number("presented_frames"))
    if args.expect_no_feedback and presented != 0:
        fail(f"{presented} frames reported presented, expected none ({source})")
    if args.expect_feedback:
        if not source.startswith("wp_presentation"):
            fail(f"no present feedback: '{source}'")
        present_ms = number("present_interval_median_ms")
        after_ms = number("present_after_swap_median_ms")
        stated_ms = number("stated_refresh_ms")
        discarded = int(number("discarded_frames"))
        print(f"check_wayland: {source}; {presented} presented, {discarded} discarded; median "
              f"present-to-present {present_ms:.3f} ms, shown {after_ms:.3f} ms after its swap "
              f"returned; stated refresh {stated_ms:.3f} ms")
        wanted = int(0.8 * demo_frames(demo_args))
        if presented < wanted:
            fail(f"only {presented} frames reported presented, expected at least {wanted}")
        off_pct = abs(present_ms - swap_ms) / swap_ms * 100
        if off_pct > args.feedback_tolerance_pct:
            fail(f"median present-to-present {present_ms:.3f} ms is {off_pct:.1f} % off the median swap-return "
                 f"interval {swap_ms:.3f} ms (allowed {args.feedback_tolerance_pct:g} %)")
        if after_ms <= 0:
            fail(f"frames shown {after_ms:.3f} ms after their swap returned: before it, so the "
                 "frame tags or the clock mapping are wrong")
        if stated_ms <= 0 or present_ms < 1.2 * stated_ms:
            fail(f"the stated refresh {stated_ms:.3f} ms is not caught as wrong: frames were shown every "
                 f"{present_ms:.3f} ms")
    print("check_wayland: OK")
    return 0


def demo_frames(demo_args):
    for i, arg in enumerate(demo_args):
        if arg == "--frames" and i + 1 < len(demo_args):
            return int(demo_args[i + 1])
        if arg.startswith("--frames="):
            return int(arg.split("=", 1)[1])
    fail("pass --frames to the demo, the checker counts presented frames against it")


if __name__ == "__main__":
    sys.exit(main())
