"""wayland_session.py: what a run of pacer-demo (or an example) under a
headless Wayland compositor needs: the compositor started by
tools/wayland.sh, the client's environment for its backend, a real-time
priority where allowed. tools/display_lock.py and the Wayland tests
(tests/wayland, tests/examples) share it. Python standard library only."""

import os
import shutil
import subprocess

SKIP = 77   # ctest's "skipped"


def run(cmd, env=None, timeout=60):
    return subprocess.run(cmd, env=env, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def stderr_once_ended(proc, timeout_s, fail_with, message):
    """proc's stderr once it has ended within timeout_s; else it is killed
    and fail_with(message) is called (it does not return)."""
    try:
        _, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        fail_with(message)
    return stderr


def parse_env(text):
    env = {}
    for line in text.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            env[key] = value
    return env


# The program each compositor tools/wayland.sh starts is.
PROGRAMS = {"sway": "sway", "weston": "weston", "mutter": "mutter", "kwin": "kwin_wayland"}


def skip_reason(compositor, xwayland=False):
    """Why the compositor cannot run here (ctest then skips), or ""."""
    program = PROGRAMS.get(compositor, compositor)
    if shutil.which(program) is None:
        return f"{program} is not installed (tools/setup.sh installs it)"
    if xwayland and shutil.which("Xwayland") is None:
        return "Xwayland is not installed (tools/setup.sh installs it)"
    if os.geteuid() != 0:
        return f"tools/wayland.sh starts {compositor} as nobody, which needs root"
    return ""


def start_command(args, name):
    start = [args.wayland_sh, "start", args.compositor, "--name", name, "--hz", f"{args.hz:g}", "--size", args.size]
    if args.seat_module:
        start += ["--seat-module", args.seat_module]
    if getattr(args, "xwayland", False):
        start += ["--xwayland"]
    return start


def client_env(args, fail_with):
    """The demo's environment under Wayland for args.backend: SDL2's Wayland
    driver, or GLFW's Wayland build on the library path (fail_with(message)
    when it is missing)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    if getattr(args, "xwayland", False):
        # An X11 client of the compositor's Xwayland (DISPLAY and XAUTHORITY
        # come from tools/wayland.sh env): each backend's X11 build, as a
        # game runs on a GNOME desktop.
        env["SDL_VIDEODRIVER"] = "x11"
        return env
    if args.backend == "sdl2":
        env["SDL_VIDEODRIVER"] = "wayland"
    else:
        glfw = run([args.wayland_sh, "glfw-wayland"])
        if glfw.returncode != 0:
            fail_with("the Wayland build of GLFW is not available:\n" + glfw.stdout)
        lib_dir = glfw.stdout.strip().splitlines()[-1]
        env["LD_LIBRARY_PATH"] = lib_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def priority_prefix():
    for prefix in (["chrt", "--fifo", "5"], ["nice", "-n", "-10"]):
        if subprocess.run(prefix + ["true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return prefix
    return []
