#!/usr/bin/python3
"""check_example.py: runs one of examples/ headless and checks that it paced.

  check_example.py --example PATH --backend glfw|sdl2 --display xvfb
  check_example.py --example PATH --backend glfw|sdl2 --display weston \\
                   --wayland-sh tools/wayland.sh --seat-module MODULE
                   [--vulkan-validation] [--resizes N] [-- EXAMPLE ARGS]

Paced: the median frame interval the example prints is within 3 % of its
target, or of a whole number of the display's real periods, the median gap
between the frames it showed (weston's headless output shows frames on a
clock of its own, slower than the 60 Hz it states). Under Xvfb it must report
the frames the X server's Present extension says were shown, under weston
those wp_presentation says, each with a fitted period.
With --vulkan-validation the example runs under Khronos' validation layer
(Debian's vulkan-validationlayers), and any message of it fails the check;
with --resizes N it must have remade its swapchain at least N times.
Exit 77 (ctest's skip) where weston cannot run (tests/wayland/check_wayland.py).
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wayland"))
import check_wayland as wl  # noqa: E402  (skip_reason, start_command, client_env, run, parse_env)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLERANCE = 0.03


def fail(message):
    print("check_example: FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", required=True)
    parser.add_argument("--backend", choices=["sdl2", "glfw"], required=True)
    parser.add_argument("--display", choices=["xvfb", "weston"], required=True)
    parser.add_argument("--wayland-sh")
    parser.add_argument("--seat-module", default="")
    parser.add_argument("--vulkan-validation", action="store_true")
    parser.add_argument("--resizes", type=int, default=0)
    parser.add_argument("example_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    example_args = args.example_args[1:] if args.example_args[:1] == ["--"] else args.example_args
    command = [args.example] + example_args

    extra_env = {}
    if args.vulkan_validation:
        if not any(os.path.exists(os.path.join(d, "VkLayer_khronos_validation.json"))
                   for d in ("/usr/share/vulkan/explicit_layer.d", "/etc/vulkan/explicit_layer.d")):
            fail("--vulkan-validation: no VK_LAYER_KHRONOS_validation manifest (Debian's vulkan-validationlayers; "
                 "tools/setup.sh demo installs it)")
        extra_env["VK_INSTANCE_LAYERS"] = "VK_LAYER_KHRONOS_validation"
    if args.display == "xvfb":
        result = wl.run(["bash", os.path.join(ROOT, "tools", "headless.sh")] + command,
                        env=dict(os.environ, **extra_env), timeout=90)
    else:
        skip = wl.skip_reason("weston")
        if skip:
            print("check_example: SKIP: " + skip)
            return wl.SKIP
        args.compositor, args.hz, args.size = "weston", 60, "320x240"
        name = f"ctest-example-{args.backend}-{os.getpid()}"
        env = wl.client_env(args, fail)
        started = wl.run(wl.start_command(args, name))
        try:
            if started.returncode != 0:
                fail("weston did not start:\n" + started.stdout)
            env.update(wl.parse_env(started.stdout))
            env.update(extra_env)
            result = wl.run(wl.priority_prefix() + command, env=env, timeout=90)
        finally:
            wl.run([args.wayland_sh, "stop", "--name", name])
    print(result.stdout, end="")
    if result.returncode != 0:
        fail(f"{os.path.basename(args.example)} exited {result.returncode}")

    out = result.stdout
    if args.vulkan_validation:
        messages = [line for line in out.splitlines() if "Validation Error" in line or "VUID-" in line]
        if messages:
            fail(f"{len(messages)} validation message(s), the first: {messages[0]}")
    if args.resizes:
        remade = re.search(r"^swapchain: ([0-9]+) remade", out, re.M)
        if not remade or int(remade.group(1)) < args.resizes:
            fail(f"the swapchain was remade {remade.group(1) if remade else 'no'} times, {args.resizes} wanted")
    m = re.search(r"median interval ([0-9.]+) ms, target ([0-9.]+) ms", out)
    if not m:
        fail("no 'median interval' line")
    median, target = float(m.group(1)), float(m.group(2))
    feedback = re.search(r"^present feedback: (.*)$", out, re.M)
    shown = re.search(r"^shown frames: (none|[0-9]+) reported(?:, every ([0-9.]+) ms \(median\); "
                      r"display clock (locked|not locked now), period ([0-9.]+) ms)?", out, re.M)
    if not feedback or not shown:
        fail("no 'present feedback' or 'shown frames' line")

    # The target the pacer ended on, or a whole number of the display's real
    # periods: the gaps between the frames it showed (a clock lost near the
    # end, on a busy machine, leaves the target at the stated refresh).
    paced_to = [("the target", target)]
    if shown.group(2):
        p = float(shown.group(2))
        k = max(1, round(median / p))
        paced_to.append((f"{k} display period{'s' if k > 1 else ''} as shown ({p:.3f} ms)", k * p))
    near = [(what, value) for what, value in paced_to if abs(median - value) <= TOLERANCE * value]
    if not near:
        fail(f"median interval {median:.3f} ms is not within 3 % of " +
             " or ".join(f"{what} ({value:.3f} ms)" for what, value in paced_to))

    if args.display == "xvfb":   # the X server's Present extension (docs/x11.md)
        if not feedback.group(1).startswith("X Present") or shown.group(1) == "none" or \
                float(shown.group(4)) <= 0:
            fail("under Xvfb the example must report shown frames from X Present and the fitted display period")
    else:
        if not feedback.group(1).startswith("wp_presentation") or shown.group(1) == "none" or \
                float(shown.group(4)) <= 0:
            fail("under weston the example must report shown frames and the fitted display period")
    print(f"check_example: OK: median interval {median:.3f} ms, within 3 % of {near[0][0]} ({near[0][1]:.3f} ms); "
          f"present feedback: {feedback.group(1)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
