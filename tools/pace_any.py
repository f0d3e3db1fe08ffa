#!/usr/bin/python3
"""pace_any.py: programs nobody rebuilt, paced from outside, side by side:
unpaced, under MangoHud's fps_limit, under pacer-run's timer and auto, and
(for the project's own GLFW examples, OpenGL and Vulkan) with pacer built in.
The wine_* programs are tests/run/win's Windows programs (WGL, Direct3D 9
and 11, Vulkan) under Wine, in a prefix of their own (build/pace-any-wine, or
$WINEPREFIX). Every run is under its own Xvfb (tools/headless.sh); each
present is dated below every limiter, where Mesa hands the image to the X
server (the probe, tests/run/present_probe.cpp). Rounds are interleaved: each round runs every
program at every rate under every limiter before the next round starts.

  tools/pace_any.py [--build-dir build] [--rounds 3] [--seconds 6] [--hz 60,144]
                    [--programs NAME,...] [--markdown FILE]
  tools/pace_any.py --cost [--rounds 3]
  tools/pace_any.py --wayland [--rounds 3] [--seconds 12]

--wayland: under one headless weston (tools/wayland.sh), glmark2-es2-wayland
under `pacer-run --strategy auto` beside the project's GLFW examples, OpenGL
and Vulkan, pacing themselves on auto (GLFW's Wayland build), interleaved:
what auto chose, display_lock's hitches per 1,000 refreshes as each summary
states them, and the examples' latency p50 (wake to shown).

--cost: what the preload adds to a present it passes through
(strategy=off): tests/run/swap_cost.cpp calls a no-op glXSwapBuffers with
and without pacer-run's library in front of it, interleaved.

Per cell: the share of presents off the target period by more than 0.5 ms,
and the p99 interval, as the median over rounds with [min-max]. The first
second of each run (start-up) is left out. Needs tools/test.sh's build (the
probe, ImGui's example, pacer-run) and tools/setup.sh's packages.
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (command, how MangoHud loads into it); {imgui} and {example} are built here.
PROGRAMS = {
    "glxgears": (["glxgears"], "gl"),
    "imgui_example_glfw_opengl3": (["{imgui}"], "gl"),
    "sdl2_testgl2": (["/usr/libexec/installed-tests/SDL2/testgl2"], "gl"),
    "glmark2_build": (["glmark2", "-b", "build", "--run-forever", "--size", "640x480"], "gl"),
    "vkcube": (["vkcube"], "vulkan"),
    "examples_glfw_opengl3": (["{example}", "--no-pacer"], "gl"),
    "examples_glfw_vulkan": (["{vk_example}", "--no-pacer"], "vulkan"),
    # Windows programs under Wine (tests/run/win, built with MinGW by the tests' build)
    "wine_wgl": (["wine", "{win}/wgl_bar.exe", "1000000"], "gl"),
    "wine_d3d9": (["wine", "{win}/d3d9_bar.exe", "1000000"], "gl"),
    "wine_d3d11": (["wine", "{win}/d3d11_bar.exe", "1000000"], "gl"),
    "wine_vulkan": (["wine", "{win}/vulkan_bar.exe", "1000000"], "vulkan"),
}
# Where the Wine programs run: a prefix of their own, made by the first run.
WINE_PREFIX = "pace-any-wine"
# The project's own examples, which can also pace themselves ("pacer built in").
BUILT_IN = {"examples_glfw_opengl3": "example", "examples_glfw_vulkan": "vk_example"}
LIMITERS = ["unpaced", "mangohud", "pacer-run timer", "pacer-run auto", "pacer built in"]


def command_for(limiter, program, hz, paths):
    words, api = PROGRAMS[program]
    words = [w.format(**paths) for w in words]
    if limiter == "unpaced":
        return words, {}
    if limiter == "mangohud":
        # MangoHud 0.6.8's own launcher; --dlsym for GL programs that look the
        # swap up with dlsym (SDL2, GLFW), harmless for the others.
        return ["mangohud"] + (["--dlsym"] if api == "gl" else []) + words, {
            "MANGOHUD_CONFIG": f"fps_limit={hz:g},no_display"}
    if limiter.startswith("pacer-run"):
        return [paths["pacer_run"], "--hz", f"{hz:g}", "--strategy", limiter.split()[1], "--"] + words, {}
    if limiter == "pacer built in":   # the example pacing itself (auto), as it ships
        return [paths[BUILT_IN[program]], "--hz", f"{hz:g}"], {}
    raise ValueError(limiter)


def figures(path, hz, skip_s=1.0):
    try:
        with open(path) as f:
            times = [int(line) for line in f if line.strip()]
    except FileNotFoundError:
        return None
    if len(times) < 3:
        return None
    start = times[0] + skip_s * 1e9
    times = [t for t in times if t >= start]
    gaps = sorted((b - a) / 1e6 for a, b in zip(times, times[1:]))
    if len(gaps) < 30:
        return None
    period = 1000 / hz
    return {"off_pct": 100 * sum(abs(g - period) > 0.5 for g in gaps) / len(gaps),
            "p99_ms": gaps[min(len(gaps) - 1, int(0.99 * len(gaps)))],
            "rate_hz": 1000 / statistics.mean(gaps), "n": len(gaps)}


def run_once(command, env_extra, probe, seconds, paths):
    out = tempfile.NamedTemporaryFile(prefix="pace-any-", suffix=".probe", delete=False)
    out.close()
    os.remove(out.name)
    env = dict(os.environ)
    env.update(env_extra)
    env["LD_PRELOAD"] = probe + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["PACER_PROBE_OUT"] = out.name
    proc = subprocess.Popen(["bash", paths["headless"]] + command, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out.name


def cell_text(values, key, fmt):
    if not values:
        return "–"
    xs = sorted(v[key] for v in values)
    return f"{fmt.format(statistics.median(xs))} [{fmt.format(xs[0])}–{fmt.format(xs[-1])}]"


def cost(build_dir, rounds):
    program = os.path.join(build_dir, "tests/run/pacer_swap_cost")
    noop = os.path.join(build_dir, "tests/run/libpacer_noop_swap.so")
    library = os.path.join(build_dir, "pacer-run/libpacer-run.so")
    for path in (program, noop, library):
        if not os.path.exists(path):
            sys.exit(f"pace_any: {path} is missing (tools/test.sh --quick builds it)")
    ways = {"without the preload": {"LD_PRELOAD": noop},
            "through the preload, strategy=off": {"LD_PRELOAD": library + ":" + noop, "PACER_RUN": "strategy=off"}}
    got = {way: [] for way in ways}
    for _ in range(rounds):
        for way, env in ways.items():
            out = subprocess.run([program], env=dict(os.environ, **env), capture_output=True, text=True, check=True)
            words = out.stdout.split()
            got[way].append({"p50": int(words[4]), "p99": int(words[6]), "max": int(words[8])})
    lines = [f"A no-op present called 200,000 times, ns per call ({rounds} interleaved rounds, "
             "median [min–max]):", "", "| | p50 | p99 | max |", "|---|---|---|---|"]
    for way in ways:
        lines.append(f"| {way} | " + " | ".join(cell_text(got[way], key, "{:.0f}") for key in ("p50", "p99", "max"))
                     + " |")
    print("\n".join(lines))


def wayland(build_dir, rounds, seconds):
    import re
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import wayland_session as wl
    skip = wl.skip_reason("weston")
    if skip:
        sys.exit("pace_any: " + skip)
    sh = os.path.join(ROOT, "tools/wayland.sh")
    started = wl.run([sh, "start", "weston", "--name", "pace-any", "--size", "1280x720"])
    if started.returncode != 0:
        sys.exit("pace_any: weston did not start:\n" + started.stdout)
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env.update(wl.parse_env(started.stdout))
    glfw = wl.run([sh, "glfw-wayland"]).stdout.strip().splitlines()[-1]
    runs = {
        "glmark2-es2-wayland under pacer-run auto": (
            [os.path.join(build_dir, "pacer-run/pacer-run"), "--strategy", "auto", "--summary", "--",
             "glmark2-es2-wayland", "-b", "build", "--run-forever", "--size", "640x360"], {}),
        "examples/glfw_opengl3, pacer built in (auto)": (
            [os.path.join(build_dir, "examples/glfw_opengl3"), "--frames", f"{int(seconds * 40)}"],
            {"LD_LIBRARY_PATH": glfw}),
        "examples/glfw_vulkan, pacer built in (auto)": (
            [os.path.join(build_dir, "examples/glfw_vulkan"), "--frames", f"{int(seconds * 40)}"],
            {"LD_LIBRARY_PATH": glfw}),
    }
    got = {name: [] for name in runs}
    try:
        for round_index in range(rounds):
            for name, (command, extra) in runs.items():
                proc = subprocess.Popen(command, env=dict(env, **extra), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                try:   # the example ends by itself after its frames
                    out, _ = proc.communicate(timeout=seconds + (20 if "--frames" in command else 0))
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGTERM)
                    out, _ = proc.communicate(timeout=30)
                hitches = [a or b for a, b in re.findall(r"hitches ([0-9.]+) per 1000|([0-9.]+) hitches per 1000", out)]
                chose = re.findall(r"auto -> (display_lock|timer|vsync)", out)
                latency = re.findall(r"^latency: ([0-9.]+) ms", out, re.M)
                got[name].append((float(hitches[-1]) if hitches else None, chose[-1] if chose else "?",
                                  float(latency[-1]) if latency else None))
                print(f"round {round_index + 1}: {name}: {got[name][-1]}", file=sys.stderr)
    finally:
        wl.run([sh, "stop", "--name", "pace-any"])
    print(f"weston (headless, 1280x720), {rounds} interleaved rounds of about {seconds:g} s: auto's choice at the end, "
          "display_lock's hitches per 1,000 refreshes (the library's count), and the latency p50, wake to shown:\n")
    print("| program | auto ended on | hitches per 1,000, each round | latency p50 ms, each round |\n|---|---|---|---|")
    for name, values in got.items():
        chose = ", ".join(sorted({c for _, c, _ in values}))
        print(f"| {name} | {chose} | " + " / ".join("–" if h is None else f"{h:.2f}" for h, _, _ in values) +
              " | " + " / ".join("–" if v is None else f"{v:.2f}" for _, _, v in values) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wayland", action="store_true", help="auto on weston, pacer-run against built in")
    parser.add_argument("--cost", action="store_true", help="the preload's own cost on a pass-through present")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--hz", default="60,144")
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    if args.cost:
        return cost(args.build_dir, args.rounds)
    if args.wayland:
        return wayland(args.build_dir, args.rounds, args.seconds if args.seconds != 6 else 12)
    rates = [float(x) for x in args.hz.split(",")]
    programs = args.programs.split(",")
    for name in programs:
        if name not in PROGRAMS:
            parser.error(f"--programs: unknown program '{name}' (known: {', '.join(PROGRAMS)})")
    b = args.build_dir
    paths = {"pacer_run": os.path.join(b, "pacer-run/pacer-run"),
             "imgui": os.path.join(b, "tests/run/pacer_imgui_example_glfw_opengl3"),
             "example": os.path.join(b, "examples/glfw_opengl3"),
             "vk_example": os.path.join(b, "examples/glfw_vulkan"),
             "win": os.path.join(b, "tests/run/win"),
             "headless": os.path.join(ROOT, "tools/headless.sh")}
    probe = os.path.join(b, "tests/run/libpacer_present_probe.so")
    if any(name.startswith("wine_") for name in programs):
        os.environ.setdefault("WINEPREFIX", os.path.join(b, WINE_PREFIX))
        os.environ.setdefault("WINEDEBUG", "-all")
    for path in list(paths.values()) + [probe]:
        if not os.path.exists(path):
            sys.exit(f"pace_any: {path} is missing (tools/test.sh --quick builds it)")
    if shutil.which("mangohud") is None:
        sys.exit("pace_any: mangohud is missing (tools/setup.sh installs it)")

    results = {}   # (program, hz, limiter) -> [figures]
    for round_index in range(args.rounds):
        for program in programs:
            for hz in rates:
                for limiter in LIMITERS:
                    if limiter == "pacer built in" and program not in BUILT_IN:
                        continue
                    command, env = command_for(limiter, program, hz, paths)
                    path = run_once(command, env, probe, args.seconds, paths)
                    got = figures(path, hz)
                    if os.path.exists(path):
                        os.remove(path)
                    results.setdefault((program, hz, limiter), [])
                    if got:
                        results[(program, hz, limiter)].append(got)
                    off = f"{got['off_pct']:.1f} % off, {got['rate_hz']:.1f} Hz" if got else "no presents"
                    print(f"round {round_index + 1}: {program} {hz:g} Hz {limiter}: {off}", file=sys.stderr)

    lines = [f"Presents off the period by > 0.5 ms, % (median [min–max] of {args.rounds} interleaved rounds, "
             f"{args.seconds:g} s each, the first second left out); under each, the p99 interval in ms.", "",
             "| program | Hz | " + " | ".join(LIMITERS) + " |", "|---|---|" + "---|" * len(LIMITERS)]
    for program in programs:
        for hz in rates:
            cells = [cell_text(results.get((program, hz, limiter), []), "off_pct", "{:.1f}") for limiter in LIMITERS]
            p99 = [cell_text(results.get((program, hz, limiter), []), "p99_ms", "{:.2f}") for limiter in LIMITERS]
            lines.append(f"| {program} | {hz:g} | " + " | ".join(cells) + " |")
            lines.append("| p99 ms | | " + " | ".join(p99) + " |")
    lines += ["", "The rate each run reached (Hz, median of the rounds), to tell a program that cannot reach the "
              "target from a limiter that misses it:", "",
              "| program | Hz | " + " | ".join(LIMITERS) + " |", "|---|---|" + "---|" * len(LIMITERS)]
    for program in programs:
        for hz in rates:
            cells = [cell_text(results.get((program, hz, limiter), []), "rate_hz", "{:.1f}").split(" [")[0]
                     for limiter in LIMITERS]
            lines.append(f"| {program} | {hz:g} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
