#!/usr/bin/python3
"""x11_clock.py: what an X11 screen showed, refresh by refresh, under pacer's
strategies: programs nobody here wrote under pacer-run, and the demo on SDL2
and GLFW, counted at the X server's own refresh ticks by an instrument below
any pacer. Rounds are interleaved: each round runs every program under every
strategy before the next round starts.

  tools/x11_clock.py [--build-dir build] [--server xvfb|mutter|weston]
                     [--rounds 3] [--seconds 12] [--programs NAME,...]
                     [--strategies timer,auto] [--markdown FILE]
                     [--check PER_1000] [--expect-reason REGEX]

The instrument (tests/run): present_probe.cpp, an LD_PRELOAD, dates each
image the program's GL or Vulkan driver puts on the window (XShmPutImage,
xcb_put_image, xcb_shm_put_image) and names the window; present_ticks.cpp, a
client of its own, hears that window's refresh ticks (PresentNotifyMSC: each
MSC with the UST the server gives it). A frame is shown at the first tick
after its image; at 60 Hz on a 60 Hz clock each refresh is due a new frame:
  - a repeat: a tick with no image since the tick before (the old frame
    shows again);
  - a lost frame: each image past the first between two ticks (replaced
    before any refresh showed it).
The first 2 s of each run (start-up, and auto's probe) are left out; the
count runs from the first tick after that to the last tick before the last
image. Where the server answered nobody for 4 refreshes or more (the tick
client heard them all at once, and no program drew), those refreshes are
counted apart ("stalled"), not as repeats: no pacer can show a frame there. Beside the counts: where the images land before the tick that shows
them (p5-p95), and the latency from each frame's wake to that tick (p50:
the trace's wake-to-present plus the image's wait for its tick, pairing
images and frames in order where their counts agree).

--server: xvfb (a virtual X server of its own per run, tools/headless.sh),
or Xwayland under a headless mutter or weston at 60 Hz (tools/wayland.sh,
one compositor for the whole run). Under Xwayland the programs run as the
compositor's user (nobody), as a desktop's programs run as its own: Xwayland
then attaches their shared memory, and Mesa puts each image as on a desktop
(as root's it cannot, and sends the whole image down the socket).

--check N: exit 1 where the runs under strategies other than the timer,
all together, have repeats plus lost frames over N per 1,000 of their ticks
(a frame on the wrong side of a tick is a repeat and a lost frame: one in a
12 s run is already 3 per 1,000), or where one of those runs saw too
little; --expect-reason: where one of their decisions does not match.
"""

import argparse
import bisect
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_S = 2.0
# The tick client keeps 4 MSCs asked ahead: a gap of 4 ticks or more heard
# at once is the server answering nobody for that long (headless mutter's
# Xwayland stops for 0.5-0.7 s every few seconds, unpaced programs too).
STALL_TICKS = 4

# name -> command; {pacer_run}, {strategy}, {demo}, {imgui}, {seconds}, {trace} filled in.
PROGRAMS = {
    "glxgears": ["{pacer_run}", "--strategy", "{strategy}", "--hz", "60", "--summary", "--trace", "{trace}", "--",
                 "glxgears"],
    "sdl2_testgl2": ["{pacer_run}", "--strategy", "{strategy}", "--hz", "60", "--summary", "--trace", "{trace}", "--",
                     "/usr/libexec/installed-tests/SDL2/testgl2"],
    "imgui_example_glfw_opengl3": ["{pacer_run}", "--strategy", "{strategy}", "--hz", "60", "--summary", "--trace",
                                   "{trace}", "--", "{imgui}"],
    "vkcube": ["{pacer_run}", "--strategy", "{strategy}", "--hz", "60", "--summary", "--trace", "{trace}", "--",
               "vkcube"],
    "demo_sdl2": ["{demo}", "--backend", "sdl2", "--strategy", "{strategy}", "--hz", "60", "--seconds", "{seconds}",
                  "--width", "640", "--height", "480", "--summary", "--trace", "{trace}"],
    "demo_glfw": ["{demo}", "--backend", "glfw", "--strategy", "{strategy}", "--hz", "60", "--seconds", "{seconds}",
                  "--width", "640", "--height", "480", "--summary", "--trace", "{trace}"],
}


def read_images(path, window_path):
    """The images put on the window the ticks are of (the probe names each
    put's drawable: SDL2 puts a pixmap or two first)."""
    try:
        with open(window_path) as f:
            window = int(f.read().split()[0], 16)
        with open(path) as f:
            return [int(words[0]) for words in (line.split() for line in f)
                    if len(words) == 2 and int(words[1], 16) == window]
    except (FileNotFoundError, IndexError, ValueError):
        return []


def read_ticks(path):
    ticks = []
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) == 2:
                    ticks.append((int(words[0]), int(words[1])))
    except FileNotFoundError:
        pass
    return ticks


def read_trace(trace):
    """Each frame's wake-to-present (ms, None unknown), and the last decision."""
    wake_to_present, decision = [], "?"
    try:
        with open(trace, newline="") as f:
            for row in csv.DictReader(f):
                value = row.get("MsWakeToPresent")
                wake_to_present.append(float(value) if value not in (None, "", "NA") else None)
                decision = row.get("Decision") or decision
    except FileNotFoundError:
        pass
    return wake_to_present, decision


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def count(images, ticks, wake_to_present):
    """The instrument's verdict on one run, or None where it saw too little."""
    if len(images) < 30 or len(ticks) < 30:
        return None
    start = images[0] + SKIP_S * 1e9
    window = [(m, u) for m, u in ticks if start <= u <= images[-1]]
    if len(window) < 30:
        return None
    repeats = lost = refreshes = stalled = 0
    for (m0, u0), (m1, u1) in zip(window, window[1:]):
        due = m1 - m0   # refreshes in the interval (a tick the instrument missed leaves a gap of 2)
        shown = bisect.bisect_left(images, u1) - bisect.bisect_left(images, u0)
        if due >= STALL_TICKS:   # the server answered nobody: no pacer's doing, counted apart
            stalled += due
            continue
        refreshes += due
        repeats += max(0, due - shown)
        lost += max(0, shown - due)
    if refreshes < 30:
        return None
    usts = [u for _, u in ticks]
    before_tick, latency = [], []
    # Frame k's image is the k-th: a trace cut short by a signal (its last
    # chunk unwritten) still pairs its frames.
    paired = 0 < len(wake_to_present) <= len(images) + 1
    for k, t in enumerate(images):
        if t < start or t > window[-1][1]:
            continue
        i = bisect.bisect_right(usts, t)
        if i >= len(usts):
            continue
        wait_ms = (usts[i] - t) / 1e6
        before_tick.append(wait_ms)
        if paired and k < len(wake_to_present) and wake_to_present[k] is not None:
            latency.append(wake_to_present[k] + wait_ms)
    per = 1000 / refreshes
    return {"repeats": repeats * per, "lost": lost * per, "sum": (repeats + lost) * per, "ticks": refreshes,
            "stalled": 1000 * stalled / (refreshes + stalled),
            "before_p5": pct(before_tick, 0.05), "before_p95": pct(before_tick, 0.95),
            "latency_p50": statistics.median(latency) if latency else float("nan")}


class Server:
    """Where the programs run: an Xvfb per run, or Xwayland under one compositor."""

    def __init__(self, kind, build_dir):
        self.kind = kind
        self.env = dict(os.environ)
        self.prefix = []
        self.user = []   # the programs' user, where not this script's
        if kind == "xvfb":
            self.prefix = ["bash", os.path.join(ROOT, "tools/headless.sh"), "--size", "1280x720"]
            return
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import wayland_session as wl
        skip = wl.skip_reason(kind, xwayland=True)
        if skip:
            sys.exit("x11_clock: " + skip)
        self.sh = os.path.join(ROOT, "tools/wayland.sh")
        started = wl.run([self.sh, "start", kind, "--xwayland", "--hz", "60", "--size", "1280x720", "--name",
                          "x11-clock"], timeout=120)
        if started.returncode != 0:
            sys.exit(f"x11_clock: {kind} did not start:\n" + started.stdout)
        got = wl.run([self.sh, "env", "--name", "x11-clock"])
        self.env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY",)}
        self.env.update(wl.parse_env(got.stdout))
        self.env.pop("WAYLAND_DISPLAY", None)   # X11 clients: SDL2 and GLFW must not pick Wayland
        self.user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

    def stop(self):
        if self.kind != "xvfb":
            subprocess.run([self.sh, "stop", "--name", "x11-clock"], stdout=subprocess.DEVNULL)


def run_once(server, words, strategy, seconds, paths):
    tmp = tempfile.mkdtemp(prefix="x11-clock-")
    os.chmod(tmp, 0o777)   # the programs' user writes its files
    images, window, ticks, trace = (os.path.join(tmp, n) for n in ("images", "window", "ticks", "trace.csv"))
    words = [w.format(trace=trace, seconds=f"{seconds:g}", strategy=strategy, **paths) for w in words]
    env = dict(server.env)
    env["LD_PRELOAD"] = paths["probe"] + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["PACER_PROBE_OUT"] = images
    env["PACER_PROBE_WINDOW"] = window
    env["PACER_PROBE_DRAWABLES"] = "1"
    env.pop("PACER_RUN", None)
    # The tick client beside the program on the same display; the program
    # ends by itself (the demo) or at `timeout` (SIGTERM, which pacer-run
    # passes on); then the tick client.
    inner = ('LD_PRELOAD= "$0" --window-file "$1" --out "$2" & tp=$!; shift 2; '
             f'timeout -s TERM {seconds + 1:g} "$@"; kill -TERM $tp; wait $tp')
    cmd = server.prefix + server.user + ["bash", "-c", inner, paths["ticks"], window, ticks] + words
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=seconds + 60)
    wake_to_present, decision = read_trace(trace)
    got = count(read_images(images, window), read_ticks(ticks), wake_to_present)
    shutil.rmtree(tmp, ignore_errors=True)
    return got, decision, done.stdout


def cell(values, key, fmt):
    xs = sorted(v[key] for v in values if v is not None)
    if not xs:
        return "–"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return f"{fmt.format(statistics.median(xs))} [{fmt.format(xs[0])}–{fmt.format(xs[-1])}]"


def tables(args, programs, strategies, results, decisions):
    """The figures per program and strategy, and what each decided, as Markdown."""
    where = {"xvfb": "Xvfb (1280x720, its software clock at 60 Hz)",
             "mutter": "Xwayland under headless mutter (a 1280x720 virtual monitor at 60 Hz)",
             "weston": "Xwayland under headless weston (1280x720, 60 Hz)"}[args.server]
    lines = [f"{where}: {args.rounds} interleaved rounds of {args.seconds:g} s, the first {SKIP_S:g} s left out; "
             "median [min–max] over the rounds. Per 1,000 of the X server's own ticks:", "",
             "| program | strategy | repeats + lost | repeats | lost | image before its tick, ms (p5–p95) "
             "| wake to tick p50, ms | ticks | stalled, per 1,000 |", "|---|---|---|---|---|---|---|---|---|"]
    for program in programs:
        for strategy in strategies:
            values = results.get((program, strategy), [])
            ok = [v for v in values if v is not None]
            span = (f"{statistics.median(v['before_p5'] for v in ok):.1f}–"
                    f"{statistics.median(v['before_p95'] for v in ok):.1f}" if ok else "–")
            ticks = f"{min(v['ticks'] for v in ok)}–{max(v['ticks'] for v in ok)}" if ok else "–"
            lines.append(f"| {program} | {strategy} | {cell(values, 'sum', '{:.1f}')} | "
                         f"{cell(values, 'repeats', '{:.1f}')} | {cell(values, 'lost', '{:.1f}')} | {span} | "
                         f"{cell(values, 'latency_p50', '{:.1f}')} | {ticks} | {cell(values, 'stalled', '{:.0f}')} |")
    lines += ["", "What each run decided last (its trace's decision, the last round's):", ""]
    for program in programs:
        for strategy in strategies:
            lines.append(f"- {program}, {strategy}: {decisions.get((program, strategy), ['?'])[-1]}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--server", choices=["xvfb", "mutter", "weston"], default="xvfb")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--strategies", default="timer,auto")
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--check", type=float, help="fail where a non-timer run has more per 1,000 ticks")
    parser.add_argument("--expect-reason", help="fail where a non-timer run's decision does not match")
    args = parser.parse_args()
    programs = args.programs.split(",")
    for name in programs:
        if name not in PROGRAMS:
            parser.error(f"--programs: unknown program '{name}' (known: {', '.join(PROGRAMS)})")
    strategies = args.strategies.split(",")
    b = args.build_dir
    paths = {"pacer_run": os.path.join(b, "pacer-run/pacer-run"), "demo": os.path.join(b, "demo/pacer-demo"),
             "imgui": os.path.join(b, "tests/run/pacer_imgui_example_glfw_opengl3"),
             "probe": os.path.join(b, "tests/run/libpacer_present_probe.so"),
             "ticks": os.path.join(b, "tests/run/pacer_present_ticks")}
    for path in paths.values():
        if not os.path.exists(path):
            sys.exit(f"x11_clock: {path} is missing (tools/test.sh --quick builds it)")

    server = Server(args.server, b)
    results, decisions, failures = {}, {}, []
    try:
        for round_index in range(args.rounds):
            for program in programs:
                for strategy in strategies:
                    got, decision, output = run_once(server, PROGRAMS[program], strategy, args.seconds, paths)
                    results.setdefault((program, strategy), []).append(got)
                    decisions.setdefault((program, strategy), []).append(decision)
                    text = (f"{got['repeats']:.1f} repeats + {got['lost']:.1f} lost per 1,000 of {got['ticks']} ticks"
                            if got else "too little seen")
                    print(f"round {round_index + 1}: {program} {strategy}: {text}; {decision}", file=sys.stderr)
                    if strategy == "timer":
                        continue
                    if got is None:
                        failures.append(f"{program} {strategy}: the instrument saw too little:\n{output[-2000:]}")
                    if args.expect_reason and not re.search(args.expect_reason, decision):
                        failures.append(f"{program} {strategy}: decision '{decision}' does not match "
                                        f"'{args.expect_reason}'")
    finally:
        server.stop()

    text = tables(args, programs, strategies, results, decisions)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    judged = [v for (program, strategy), values in results.items() if strategy != "timer" for v in values if v]
    if args.check is not None and judged:
        ticks = sum(v["ticks"] for v in judged)
        events = sum((v["repeats"] + v["lost"]) * v["ticks"] / 1000 for v in judged)
        pooled = 1000 * events / ticks
        print(f"x11_clock: {round(events)} repeats and lost frames in {ticks} ticks of {len(judged)} runs: "
              f"{pooled:.2f} per 1,000 (at most {args.check:g})")
        if pooled > args.check:
            failures.append(f"{pooled:.2f} repeats and lost frames per 1,000 ticks, over {args.check:g}")
    for failure in failures:
        print("x11_clock: FAIL: " + failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
