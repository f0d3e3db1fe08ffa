#!/usr/bin/python3
"""qa.py: the visual QA suite. Runs scenarios on pacer-demo, headless, on both
backends, and writes a report folder with verdicts, plots, CSVs and traces.

  tools/qa.sh [--quick] [--out DIR] [--backends sdl2,glfw] [--build-dir DIR]
              [--demo PATH] [--bench-csv DIR] [--reruns N]
              [--display xvfb|weston|mutter|kwin [--seat-module PATH]] [SCENARIO ...]
  tools/qa.sh --replay RECORDING [--replay-args ARGS] [--out DIR] [SCENARIO ...]

SCENARIO is a file, or a name in assets/scenarios/ ("steady-60" or
"steady-60.txt"); default: every assets/scenarios/*.txt. --quick keeps the
scenarios that end within QUICK_MAX_S seconds (the CI run). Each scenario's
own "expect" lines are its pass/fail thresholds; the demo evaluates them
(run/summary.h) and this script reports what it said.

A run that fails a verdict is run again, up to --reruns times (default 2),
and the verdict is that of most of its runs: a shared machine that stalls
for a second fails one run of a scenario that passes the others, while a
pacing fault fails them all. The report shows every run's figures, so a
scenario that needed a rerun reads as the spread it is.

With --replay RECORDING the scenarios run on pacer-replay instead of the
demo: the recording's frames (a pacer-demo trace, a PresentMon or CapFrameX
capture) replayed on a fake clock, the scenario's steps setting the pacer
and its expectations judged by the same code as a live run's
(replay/scenario_run.h); no display, no screenshot, one run per scenario,
"replay" in the backend's column. --replay-args passes pacer-replay's
display flags (e.g. "--display recorded --display-says 60").

Each run is `tools/headless.sh pacer-demo --backend B --scenario S --trace ...
--summary-json ... --screenshot ... [--chrome-trace ...]`. With --display
weston, mutter or kwin the runs are Wayland clients of one headless
compositor (tools/wayland.sh; weston with the seat module SDL2 needs, mutter
at 60 Hz), at the priority the Wayland tests use (tools/wayland_session.py).
Xvfb (X11's Present), weston and mutter report when frames were shown; only
there do the scenarios that say "needs present_feedback" run (under kwin
they are skipped, and naming one is an error). The demo is
build-dir/demo/pacer-demo (default build/, as tools/test.sh leaves it); if it
is missing, the pacer-demo target is configured and built there first.

Report folder (default build-dir/qa-report). The tool lists every file and
folder it creates there in .qa-report; a later run into the same folder
deletes those and nothing else. A non-empty folder without that list is
refused, never emptied.
  .qa-report            what this tool wrote here (and may delete)
  index.md              verdict per scenario x backend, thresholds and values
  verdicts.csv          scenario,backend,status,expect,threshold,actual,passed,run
                        (status: the scenario's; run: 1, then 2.. for reruns)
  plots/                S-B-timeline.png, -histogram.png, -percentiles.png (tools/plots.py)
  traces/               S-B.csv (per-frame trace), S-B.trace.json (Chrome)
  runs/                 S-B.summary.json, S-B.log, S-B.png (a screenshot of the
                        measured run at the scenario's "screenshot frame")
                        (a rerun's files are S-B-rerunK.*)
  bench/                bench-*.png, with --bench-csv DIR (pacer-bench --csv-dir)

Exit status: 0 all passed; 1 a scenario failed or a run broke; 2 bad usage
(one line naming the problem).
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from one_line import OneLineParser  # noqa: E402
import plots  # noqa: E402  (tools/plots.py; imports matplotlib once for every run)
import wayland_session  # noqa: E402  (tools/wayland_session.py: the Wayland clients' environment)

SCENARIO_DIR = os.path.join(ROOT, "assets", "scenarios")
# --quick: scenarios that end within this many seconds, the part of the suite
# CI runs (ctest's qa_quick, alone on the machine, since their verdicts on
# fps, p95 and missed frames fail when other jobs load the cores). The longer
# ones run in the full suite (docs/qa.md).
QUICK_MAX_S = 10.0
MAX_RUN_S = 1e8        # the longest a run is waited for (3 years): threading refuses longer waits
WIDTH_PX, HEIGHT_PX = (320, 8192), (240, 8192)   # --size: what the demo's --width and --height take
SCREENSHOT_FRAME = 30       # early enough for every shipped scenario; shorter ones get an earlier frame
MANIFEST_NAME = ".qa-report"   # in the report folder: what this tool wrote there
WAYLAND_SH = os.path.join(ROOT, "tools", "wayland.sh")
DISPLAYS = ("xvfb", "weston", "mutter", "kwin")
# They report when frames were shown (Xvfb: X11's Present; replay: its model).
FEEDBACK_DISPLAYS = ("xvfb", "weston", "mutter", "replay")
BACKENDS = ("sdl2", "glfw")
MAX_RERUNS = 8              # --reruns: a scenario runs at most 9 times
# Headline figures for the report (metric keys of run/summary.h).
# What reached the screen first (the presents; where the display reported:
# the shown frames and display_lock's hitches), then the wakes' figures.
HEADLINE = [("present_off_pct", "presents off >0.5 ms %", "{:.1f}"),
            ("shown_off_pct", "shown off >0.5 ms %", "{:.1f}"),
            ("shown_late_pct", "shown a refresh late %", "{:.2f}"),
            ("hitches_per_1000", "hitches per 1000 refreshes", "{:.2f}"),
            ("fps", "avg FPS", "{:.2f}"), ("low_1pct_fps", "1 % low FPS", "{:.1f}"),
            ("low_0_1pct_fps", "0.1 % low FPS", "{:.1f}"), ("frame_time_p95_ms", "p95 frame ms", "{:.2f}"),
            ("frame_time_p99_ms", "p99 frame ms", "{:.2f}"), ("stutter_pct", "stutter %", "{:.2f}"),
            ("success_pct", "success %", "{:.1f}"), ("interval_error_p50_us", "error p50 µs", "{:.0f}"),
            ("error_p99_ms", "error p99 ms", "{:.2f}"), ("off_pct", "wakes off >0.5 ms %", "{:.1f}"),
            ("missed", "missed", "{:.0f}"), ("cpu_pct", "CPU %", "{:.2f}")]


class UsageError(Exception):
    pass


def shown(text):
    """A path or text as it can be printed: bytes that are not UTF-8 (kept by
    Python as surrogates) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def describe_scenario(demo, path):
    """The scenario as the demo reads it (pacer-demo --describe-scenario; demo
    is the command before it, pacer-replay and its recording with --replay):
    one grammar with one parser, and the demo's bounded read (16 MiB). A bad
    file is a UsageError with the demo's own FILE:LINE line."""
    demo = demo if isinstance(demo, list) else [demo]
    try:
        proc = subprocess.run(demo + ["--scenario", path, "--describe-scenario"], capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=60)
    except subprocess.TimeoutExpired:
        raise UsageError(f"{shown(path)}: the demo did not read it within 60 s")
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(lines[-1].removeprefix("pacer-demo: ").removeprefix("pacer-replay: ").removeprefix(
            "--scenario: ") if lines else f"{shown(path)}: the demo exited {proc.returncode} reading it")
    try:
        description = json.loads(proc.stdout)
        float(description["start_hz"])
        return description
    except (ValueError, KeyError, TypeError):
        raise UsageError(f"{shown(demo[0])} did not describe {shown(path)}: is it pacer-demo or pacer-replay?")


def headless_command(render_args):
    """tools/headless.sh with a screen the size of the window: its own Xvfb,
    stopped by PID, the demo's exit status kept."""
    return ["bash", os.path.join(ROOT, "tools", "headless.sh"), "--size", window_size(render_args)]


def window_size(render_args):
    return f"{render_args[1]}x{render_args[3]}"   # --width W --height H


class Display:
    """Where the runs show their frames: an Xvfb of each run's own
    (tools/headless.sh), or one headless compositor for the whole suite."""

    def __init__(self, kind, seat_module, render_args):
        self.kind, self.seat_module, self.render_args = kind, seat_module, render_args
        self.name = f"qa-{os.getpid()}"
        self.env = None

    def __enter__(self):
        if self.kind in ("xvfb", "replay"):
            return self
        start = [WAYLAND_SH, "start", self.kind, "--name", self.name, "--size", window_size(self.render_args),
                 "--hz", "60"]
        if self.kind == "weston":
            start += ["--seat-module", self.seat_module]
        started = wayland_session.run(start)
        if started.returncode != 0:
            lines = [line for line in started.stdout.strip().splitlines() if line.strip()]
            for line in lines[-21:-1]:   # the compositor's log's end, which the last line points to
                print(line, file=sys.stderr)
            raise UsageError(f"--display {self.kind}: it did not start: " + (lines[-1] if lines else "no output"))
        self.env = wayland_session.parse_env(started.stdout)
        return self

    def __exit__(self, *exc):
        if self.kind not in ("xvfb", "replay"):
            wayland_session.run([WAYLAND_SH, "stop", "--name", self.name])

    def command(self, backend):
        """(the prefix of a run's command, its environment)."""
        if self.kind == "replay":
            return [], None
        if self.kind == "xvfb":
            return headless_command(self.render_args), None

        def missing(message):
            raise UsageError(f"--display {self.kind}: {message}")
        env = wayland_session.client_env(argparse.Namespace(backend=backend, wayland_sh=WAYLAND_SH), missing)
        env.update(self.env)
        return wayland_session.priority_prefix(), env


def screenshot_frame_for(description):
    """The scenario's "screenshot frame", else SCREENSHOT_FRAME, or an earlier
    frame the scenario surely reaches: the last one of a frame-counted end,
    half the expected frames of a time end (late frames make a timed run
    shorter)."""
    if description.get("screenshot_frame") is not None:
        return int(description["screenshot_frame"])
    frames = description["expected_frames"]
    if frames is None:
        return SCREENSHOT_FRAME
    reachable = frames - 1 if "frame" in description["end"] else frames / 2
    return int(max(0, min(SCREENSHOT_FRAME, reachable)))


def resolve_scenarios(names, quick, demo, display):
    """([(path, description)] in order, [stems skipped]); each scenario at
    most once (two of one name would write the same files). A scenario that
    needs present feedback is skipped under Xvfb, and an error when named."""
    if not names:
        paths = sorted(os.path.join(SCENARIO_DIR, n) for n in os.listdir(SCENARIO_DIR) if n.endswith(".txt"))
    else:
        paths = []
        for name in names:
            candidates = [name, os.path.join(SCENARIO_DIR, name), os.path.join(SCENARIO_DIR, name + ".txt")]
            found = next((c for c in candidates if os.path.isfile(c)), None)
            if found is None:
                there = next((c for c in candidates if os.path.exists(c)), None)
                if there is not None:
                    raise UsageError(f"scenario '{shown(name)[:40]}': not a regular file")
                raise UsageError(f"scenario '{shown(name)[:40]}': no such file (nor in {SCENARIO_DIR})")
            paths.append(os.path.abspath(found))
    stems = {}
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem in stems:
            raise UsageError(f"scenario '{shown(stem)[:40]}' given twice ({shown(stems[stem])} and {shown(path)}): "
                             "both would write the same report files")
        stems[stem] = path
    chosen, skipped = [], []
    for path in paths:
        description = describe_scenario(demo, path)
        if description["expected_s"] is None:
            raise UsageError(f"{shown(path)}: no 'end' line: a QA scenario must end on its own")
        if quick and description["expected_s"] > QUICK_MAX_S:
            continue
        if "present_feedback" in description.get("needs", []) and display not in FEEDBACK_DISPLAYS:
            if names:
                raise UsageError(f"{shown(path)}: needs present_feedback, which {display} does not give "
                                 "(--display xvfb, weston or mutter)")
            skipped.append(shown(os.path.splitext(os.path.basename(path))[0]))
            continue
        chosen.append((path, description))
    if not chosen:
        raise UsageError("no scenario to run" + (f" (--quick keeps those ending within {QUICK_MAX_S:g} s)"
                                                  if quick else ""))
    return chosen, skipped


def render_args(args):
    """The measured runs' window. Mesa's llvmpipe renders on the same CPU cores
    as the pacer, where a GPU would not: on this 2-core VM the ImGui overlay
    costs tens of ms a frame when the machine is busy, which is the software
    renderer's cost, not the pacer's. So the measured runs draw the scene only
    (no overlay) in a smaller window unless --overlay."""
    width, height = args.size
    return ["--width", str(width), "--height", str(height)] + ([] if args.overlay else ["--no-overlay"])


def parse_size(text):
    m = re.fullmatch(r"([0-9]{1,5})x([0-9]{1,5})", text)
    if not m:
        raise argparse.ArgumentTypeError(f"'{shown(text)[:40]}' is not WIDTHxHEIGHT, e.g. 960x540")
    width, height = int(m.group(1)), int(m.group(2))
    if not (WIDTH_PX[0] <= width <= WIDTH_PX[1] and HEIGHT_PX[0] <= height <= HEIGHT_PX[1]):
        raise argparse.ArgumentTypeError(f"{text}: width must be {WIDTH_PX[0]} to {WIDTH_PX[1]} px, height "
                                         f"{HEIGHT_PX[0]} to {HEIGHT_PX[1]} px")
    return width, height


def parse_reruns(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{shown(text)[:40]}' is not a whole number") from None
    if not 0 <= value <= MAX_RERUNS:
        raise argparse.ArgumentTypeError(f"{value}: must be 0 to {MAX_RERUNS}")
    return value


def find_or_build_demo(build_dir):
    demo = os.path.join(build_dir, "demo", "pacer-demo")
    if os.path.isfile(demo) and os.access(demo, os.X_OK):
        return demo
    print(f"qa: {demo} is missing: building the pacer-demo target in {build_dir}", flush=True)
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
        subprocess.run(["cmake", "-G", "Ninja", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                       check=True)
    subprocess.run(["cmake", "--build", build_dir, "--target", "pacer-demo", "-j2"], check=True)
    return demo


def demo_supports(demo, flag):
    out = subprocess.run([demo, "--help"], capture_output=True, text=True, timeout=30)
    return flag in out.stdout


class Suite:
    """What every run of one invocation shares: the demo, the report folder
    and its manifest, the window, the display, the rerun count."""

    def __init__(self, demo, out, chrome, render_args, manifest, display, reruns, replay=None):
        self.demo, self.out, self.chrome, self.render_args = demo, out, chrome, render_args
        self.manifest, self.display, self.reruns = manifest, display, reruns
        self.replay = replay   # --replay: [pacer-replay, RECORDING, its args...], else None


def run_judged(suite, scenario, description, backend):
    """Runs one scenario on one backend, again while its runs fail and more
    reruns could still change the majority. Returns the first run's result
    with "reruns" (the later runs) and "status", the majority's verdict."""
    first = run_one(suite, scenario, description, backend, 0)
    first["reruns"] = []
    if first["status"] != "FAIL":
        return first   # ERROR is a broken run, not noise: it is not repeated
    runs, majority = [first], (1 + suite.reruns) // 2 + 1
    while (len(runs) <= suite.reruns and sum(r["status"] == "PASS" for r in runs) < majority and
           sum(r["status"] != "PASS" for r in runs) < majority):
        runs.append(run_one(suite, scenario, description, backend, len(runs)))
    first["first_status"] = first["status"]
    first["reruns"] = runs[1:]
    first["status"] = "PASS" if sum(r["status"] == "PASS" for r in runs) >= majority else "FAIL"
    return first


def run_command(suite, scenario, description, backend, files):
    """The command line of one run, its environment and its screenshot frame."""
    base = [suite.demo, "--backend", backend, "--scenario", scenario]
    # The screenshot is of the measured run itself, at the scenario's
    # "screenshot frame" (the moment that matters: just after a spike) or
    # screenshot_frame_for's; the demo reads the frame back (a few ms) and
    # encodes the PNG after the run.
    shot_frame = screenshot_frame_for(description)
    prefix, env = suite.display.command(backend)
    if suite.replay:   # the recording's frames on pacer-replay: no window, no picture
        command = suite.replay + ["--scenario", scenario, "--trace", files["trace"], "--summary-json",
                                  files["summary"]]
    else:
        command = (prefix + base + suite.render_args +
                   ["--trace", files["trace"], "--summary-json", files["summary"],
                    "--screenshot", files["screenshot"], "--screenshot-frame", str(shot_frame)])
    if suite.chrome:
        command += ["--chrome-trace", files["chrome"]]
    return command, env, shot_frame


def read_summary(result, files, shot_frame, code, chrome):
    """The run's summary JSON into result (its metrics and verdicts), and
    what is missing as problems; the summary, or None."""
    summary = None
    if os.path.isfile(files["summary"]):
        try:
            with open(files["summary"], encoding="utf-8") as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            result["problems"].append(f"{files['summary']}: not JSON: {e}")
    else:
        result["problems"].append("no summary JSON written")
    if summary is not None:
        result["metrics"] = summary.get("metrics", {})
        result["verdicts"] = summary.get("verdicts", [])
        result["run_info"] = summary.get("run", {})
    if files["screenshot"] and not os.path.isfile(files["screenshot"]):
        result["problems"].append(f"no screenshot of frame {shot_frame} (exit {code}; see the log)")
    if chrome and not os.path.isfile(files["chrome"]):
        result["problems"].append("no Chrome trace written")
    return summary


def plot_run(result, suite, files, key, title):
    """The run's plots and phase table into result, from its trace."""
    out, manifest = suite.out, suite.manifest
    if not os.path.isfile(files["trace"]):
        result["problems"].append("no trace CSV written")
        return
    try:
        for name in (key + "-timeline.png", key + "-histogram.png", key + "-percentiles.png", key + "-display.png"):
            manifest.own(os.path.join(out, "plots", name))
            manifest.own(os.path.join(out, "plots", name + ".tmp.png"))
        trace = plots.Trace(files["trace"])   # read once, for the plots and the phase table
        result["plots"] = plots.plot_trace(files["trace"], os.path.join(out, "plots"), name=key, title=title,
                                           trace=trace)
        result["phases"] = plots.phase_figures(trace)
        for path in result["plots"]:
            manifest.own(path)
    except plots.InputError as e:
        result["problems"].append(f"plot: {e}")


def judge_status(result, summary, code, output):
    """PASS, FAIL or ERROR. The demo exits 1 when a verdict fails and for
    errors; the summary tells them apart: a run that wrote every file with
    verdicts is a FAIL, else an ERROR."""
    failed_verdicts = [v for v in result["verdicts"] if not v.get("passed")]
    if code is None or result["problems"] or summary is None:
        result["status"] = "ERROR"
    elif failed_verdicts or code != 0 or not summary.get("passed", False):
        result["status"] = "FAIL" if failed_verdicts or not summary.get("passed", False) else "ERROR"
    elif not result["verdicts"]:
        result["status"] = "ERROR"
        result["problems"].append("the scenario has no 'expect' lines: nothing to judge")
    else:
        result["status"] = "PASS"
    if result["status"] == "ERROR" and code not in (0, None):
        tail = [line for line in output.strip().splitlines() if line.strip()][-3:]
        result["problems"] += [f"demo (exit {code}): {line}" for line in tail]


def run_one(suite, scenario, description, backend, rerun):
    """Runs one scenario on one backend once (rerun 0, or the Kth rerun).
    Returns a result dict."""
    out, chrome = suite.out, suite.chrome
    stem = shown(os.path.splitext(os.path.basename(scenario))[0])
    key = f"{stem}-{backend}" + (f"-rerun{rerun}" if rerun else "")
    files = {
        "trace": os.path.join(out, "traces", key + ".csv"),
        "chrome": os.path.join(out, "traces", key + ".trace.json") if chrome else None,
        "summary": os.path.join(out, "runs", key + ".summary.json"),
        "screenshot": os.path.join(out, "runs", key + ".png") if not suite.replay else None,
        "log": os.path.join(out, "runs", key + ".log"),
    }
    for path in files.values():
        if path:
            suite.manifest.own(path)
    command, env, shot_frame = run_command(suite, scenario, description, backend, files)
    # Bounded: a wait longer than threading's TIMEOUT_MAX raises OverflowError.
    timeout_s = min(3 * description["expected_s"] + 60, MAX_RUN_S)
    started = time.monotonic()
    code, output = run_logged(command, timeout_s, env)
    wall_s = time.monotonic() - started
    with open(files["log"], "w", encoding="utf-8", errors="replace") as f:
        f.write("$ " + shown(" ".join(command)) + "\n" + output + f"\nexit status: {code}\n")

    result = {"scenario": stem, "backend": backend, "rerun": rerun, "files": files, "code": code, "wall_s": wall_s,
              "verdicts": [], "metrics": {}, "problems": [], "plots": [], "phases": []}
    summary = read_summary(result, files, shot_frame, code, chrome)
    plot_run(result, suite, files, key, f"{stem} on {backend}")
    judge_status(result, summary, code, output)
    return result


def run_line(r):
    """One run's figures for the console: time, fps, what failed."""
    failed = [v["expect"] + f" (actual {fmt(v.get('actual'), '{:.4g}')})" for v in r["verdicts"]
              if not v.get("passed")]
    detail = ("; failed: " + ", ".join(failed)) if failed else ""
    detail += ("; " + "; ".join(r["problems"])) if r["problems"] else ""
    return f"{r['wall_s']:.1f} s, {fmt(r['metrics'].get('fps'), '{:.2f}')} fps{detail}"


def run_logged(command, timeout_s, env=None):
    """(exit status or None when killed, stdout + stderr)."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=timeout_s, env=env)
        return proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        def text(b):
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return None, text(e.stdout) + text(e.stderr) + f"\nqa: killed after {timeout_s:.0f} s\n"


def fmt(value, pattern="{:.3g}"):
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if pattern == "{:.4g}" and isinstance(value, (int, float)) and abs(value) >= 1000:
        return f"{value:.0f}"   # 14580, not 1.458e+04
    try:
        return pattern.format(value)
    except (ValueError, TypeError):
        return str(value)


def rel(path, out):
    return os.path.relpath(path, out).replace(os.sep, "/")


def busy_machine_note():
    """A warning when other programs keep the CPUs busy: the scenarios'
    thresholds are timing figures for a machine the suite has to itself."""
    if not hasattr(os, "getloadavg"):
        return ""
    load1 = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load1 <= 1.5 * cpus:
        return ""
    return (f"load average {load1:.1f} on {cpus} CPUs: other programs compete with the runs; "
            "timing verdicts may fail for that reason (the trace timelines show when)")


def machine_line():
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} logical CPUs"
            f"{', ' + cpu if cpu else ''}; load average {load}")


def git_commit():
    try:
        out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run_section(r, out):
    """One run's part of a scenario's section: its files, the display's
    figures, its phases, problems and plots."""
    lines = []
    f = r["files"]
    links = [f"[trace CSV]({rel(f['trace'], out)})"]
    if f["chrome"]:
        links.append(f"[Chrome trace]({rel(f['chrome'], out)})")
    links.append(f"[summary]({rel(f['summary'], out)})")
    if f["screenshot"]:
        links.append(f"[screenshot]({rel(f['screenshot'], out)})")
    links.append(f"[log]({rel(f['log'], out)})")
    info = r.get("run_info", {})
    label = f"{r['backend']}, rerun {r['rerun']}" if r["rerun"] else r["backend"]
    status = r.get("first_status", r["status"]) if not r["rerun"] else r["status"]
    lines.append(f"**{label}**: {status}, {r['wall_s']:.1f} s; swap interval: "
                 f"{info.get('swap_interval', 'n/a')}; " + " · ".join(links))
    lines.append("")
    # The display's side (demo/run/trace.h, docs/wayland.md): what the
    # compositor reported showing, where it reports (none under Xvfb).
    feedback = info.get("present_feedback", "n/a")
    if info.get("presented_frames", "0") not in ("0", ""):
        lines.append(f"- display ({feedback}): {info.get('presented_frames')} shown, "
                     f"{info.get('discarded_frames', 'n/a')} discarded; between display changes p5/p50/p95 "
                     f"{info.get('display_change_p5_p50_p95_ms', 'n/a')} ms; wake to on screen "
                     f"{info.get('display_latency_p5_p50_p95_ms', 'n/a')} ms; |animation error| p50/p95 "
                     f"{info.get('animation_error_abs_p50_p95_ms', 'n/a')} ms; display clock "
                     f"{info.get('display_clock_period_ms', 'n/a')} ms "
                     f"({'locked' if info.get('display_clock_locked') == 'yes' else 'not locked'})")
    else:
        lines.append(f"- display: no feedback ({feedback}); the display columns are NA")
    lines.append("")
    # Per phase (the scenario's "mark" steps), from the trace: the
    # whole-run figures above average a sweep's strategies together.
    if r["phases"]:
        over = " | ".join(f">{limit:g} ms" for limit in plots.OVER_MS)
        lines += [f"| phase | frames | avg fps | p50 ms | p95 ms | p99 ms | max ms | off >0.5 ms % | "
                  f"≥1.5× target | {over} |", "|---|" + "---|" * (8 + len(plots.OVER_MS))]
        for ph in r["phases"]:
            counts = " | ".join(str(ph["over"][limit]) for limit in plots.OVER_MS)
            lines.append(f"| {shown(plots.shorten(ph['phase'], 40))} | {ph['frames']} | "
                         f"{fmt(ph['avg_fps'], '{:.2f}')} | {ph['p50_ms']:.2f} | {ph['p95_ms']:.2f} | "
                         f"{ph['p99_ms']:.2f} | {ph['max_ms']:.1f} | {ph['off_pct']:.1f} | {ph['hitches']} | "
                         f"{counts} |")
        lines.append("")
    for p in r["problems"]:
        lines.append(f"- problem: {p}")
    if r["problems"]:
        lines.append("")
    for p in r["plots"]:
        lines.append(f"![{os.path.basename(p)}]({rel(p, out)})")
    lines.append("")
    return lines


def report_header(results, args, started_utc, elapsed_s, chrome, notes):
    """The report's title, overall verdict and how it was made."""
    failed = [r for r in results if r["status"] != "PASS"]
    lines = ["# Visual QA report", ""]
    lines.append(f"**{'PASS' if not failed else 'FAIL'}**: {len(results) - len(failed)} of {len(results)} runs "
                 f"passed{'' if not failed else ' (' + ', '.join(r['scenario'] + ' on ' + r['backend'] + ': ' + r['status'] for r in failed) + ')'}.")
    lines += ["", f"- started {started_utc} UTC, took {elapsed_s:.0f} s; mode: {'quick' if args.quick else 'full'}",
              f"- machine: {machine_line()}", f"- commit: {git_commit()}"]
    if args.display == "replay":
        lines += [f"- replayed: `{shown(args.replay)}` on `{args.demo}` (`{shown(args.replay_args)}`): the "
                  "recording's frames on a fake clock and a modelled display, the scenario's steps on the pacer, "
                  "its load settings unused (each run's summary lists them as `replay_ignores`)"]
    else:
        lines += [f"- demo: `{args.demo}`",
                  f"- Chrome traces: {'yes' if chrome else 'no (this pacer-demo has no --chrome-trace)'}",
                  "- display: " + ("an Xvfb per run (X Present: its software clock)" if args.display == "xvfb" else
                                   "one headless weston for the suite (reports when frames were shown)"),
                  f"- measured runs: `{' '.join(render_args(args))}` (the overlay costs the software renderer "
                  f"CPU that the pacer shares); each screenshot is of its measured run, at the scenario's "
                  f"`screenshot frame`"]
    lines += [f"- **warning**, {n}" for n in notes] + [""]
    return lines


def verdict_table(results, scenarios, args):
    """Each scenario's verdict per backend, with each run's fps."""
    lines = ["## Verdicts", "", "| scenario | " + " | ".join(args.backends) + " |",
              "|---|" + "---|" * len(args.backends)]
    for path, _ in scenarios:
        stem = shown(os.path.splitext(os.path.basename(path))[0])
        cells = []
        for backend in args.backends:
            r = next(x for x in results if x["scenario"] == stem and x["backend"] == backend)
            every = [r] + r["reruns"]
            spread = (f"; {sum(x['status'] == 'PASS' for x in every)} of {len(every)} runs passed"
                      if r["reruns"] else "")
            cells.append(f"**{r['status']}** ({'/'.join(fmt(x['metrics'].get('fps'), '{:.1f}') for x in every)} "
                         f"fps{spread})")
        lines.append(f"| [{stem}](#{stem}) | " + " | ".join(cells) + " |")
    lines.append("")

    return lines


def scenario_section(path, description, results, args, out):
    """One scenario: its expectations per run, its figures, each run's plots."""
    stem = shown(os.path.splitext(os.path.basename(path))[0])
    runs = [next(x for x in results if x["scenario"] == stem and x["backend"] == b) for b in args.backends]
    title = description["title"]
    lines = [f"## {stem}", "", f"{title + '. ' if title else ''}`{shown(rel(path, ROOT) if path.startswith(ROOT) else path)}`, "
              f"{description['expected_s']:g} s.", ""]
    # Thresholds: one row per expectation, the measured value per backend
    # (per run, where a failing run was repeated).
    expects = []
    for r in runs:
        for v in r["verdicts"]:
            if v["expect"] not in expects:
                expects.append(v["expect"])
    if expects:
        lines += ["| expect | " + " | ".join(args.backends) + " |", "|---|" + "---|" * len(runs)]
        for e in expects:
            cells = []
            for r in runs:
                found = [next((x for x in run["verdicts"] if x["expect"] == e), None)
                         for run in [r] + r["reruns"]]
                cells.append(" · ".join("n/a" if v is None else
                                        f"{'PASS' if v.get('passed') else '**FAIL**'} "
                                        f"{fmt(v.get('actual'), '{:.4g}')}" for v in found))
            lines.append(f"| `{e}` | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["| figure | " + " | ".join(args.backends) + " |", "|---|" + "---|" * len(runs)]
    for key, label, pattern in HEADLINE:
        lines.append(f"| {label} | " + " | ".join(fmt(r["metrics"].get(key), pattern) for r in runs) + " |")
    bins = ["delta_lt2_ms", "delta_lt4_ms", "delta_lt8_ms", "delta_lt12_ms", "delta_ge12_ms"]
    lines.append("| \\|Δ\\| <2/<4/<8/<12/≥12 ms | " + " | ".join(
        "/".join(fmt(r["metrics"].get(b), "{:.0f}") for b in bins) for r in runs) + " |")
    lines.append("")
    for r in runs:
        for run in [r] + r["reruns"]:
            lines += run_section(run, out)
    return lines


def write_verdicts_csv(out, results):
    """verdicts.csv: one row per expectation per run."""
    tmp = os.path.join(out, "verdicts.csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8", errors="replace") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "backend", "status", "expect", "threshold", "actual", "passed", "run"])
        for r in results:
            for run in [r] + r["reruns"]:
                if not run["verdicts"]:
                    w.writerow([r["scenario"], r["backend"], r["status"], "", "", "", "", run["rerun"] + 1])
                for v in run["verdicts"]:
                    w.writerow([r["scenario"], r["backend"], r["status"], v.get("expect"), v.get("threshold"),
                                v.get("actual"), "1" if v.get("passed") else "0", run["rerun"] + 1])
    os.replace(tmp, os.path.join(out, "verdicts.csv"))




def write_report(out, results, scenarios, args, started_utc, elapsed_s, chrome, bench_plots, notes, manifest):
    lines = report_header(results, args, started_utc, elapsed_s, chrome, notes)
    lines += verdict_table(results, scenarios, args)
    for path, description in scenarios:
        lines += scenario_section(path, description, results, args, out)
    if bench_plots:
        lines += ["## Bench", "", f"From `{args.bench_csv}`.", ""] + [f"![{os.path.basename(p)}]({rel(p, out)})"
                                                                     for p in bench_plots] + [""]
    lines += ["## How to read this", "",
              "- Metric definitions: pacer/include/pacer/metrics.h and demo/run/summary.h; trace columns: "
              "demo/run/trace.h.",
              "- Timeline: presents (swap to swap, blue) first, frames on screen where the display reports "
              "them (green), then wakes (thin grey), against the target period (dashed), scenario phases "
              "shaded; the lower panel is the wake lateness (µs, linear within ±100 µs, log beyond). The "
              "percentile figure draws the same three, presents solid, shown dashed, wakes dotted.",
              "- Chrome traces open in https://ui.perfetto.dev (Open trace file) or chrome://tracing.", ""]
    for name in ("index.md", "index.md.tmp", "verdicts.csv", "verdicts.csv.tmp"):
        manifest.own(os.path.join(out, name))
    tmp = os.path.join(out, "index.md.tmp")
    with open(tmp, "w", encoding="utf-8", errors="replace") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(out, "index.md"))

    write_verdicts_csv(out, results)


class Manifest:
    """The list of what this tool created in a report folder (MANIFEST_NAME):
    each path is listed before it is written, so a run cut short still
    lists it. clean() deletes what an earlier run listed, and nothing else."""

    def __init__(self, out):
        self.out = out
        self.path = os.path.join(out, MANIFEST_NAME)
        self.listed = set()

    @staticmethod
    def clean(out):
        """Deletes the files and (empty) folders that out's list names, then the list."""
        path = os.path.join(out, MANIFEST_NAME)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            entries = [line.rstrip("\n").split(" ", 1) for line in f if line[:2] in ("f ", "d ")]
        root = os.path.realpath(out)
        for kind, name in sorted(entries, key=lambda e: e[0] == "d"):   # files, then folders
            target = os.path.join(out, name)
            # Only inside the folder, never through a link to elsewhere.
            if os.path.commonpath([root, os.path.realpath(os.path.dirname(target))]) != root:
                continue
            try:
                if kind == "f" and (os.path.islink(target) or os.path.isfile(target)):
                    os.remove(target)
                elif kind == "d" and os.path.isdir(target) and not os.path.islink(target):
                    os.rmdir(target)   # only when empty: anything else in it stays
            except OSError:
                pass
        os.remove(path)

    def start(self):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write("# written by tools/qa.py: the files and folders it made here, which its next run "
                    "into this folder deletes (and nothing else)\n")

    def _add(self, kind, path):
        name = os.path.relpath(path, self.out)
        if name in self.listed:
            return
        self.listed.add(name)
        with open(self.path, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(f"{kind} {name}\n")

    def own(self, path):
        self._add("f", path)

    def make_dir(self, path):
        if not os.path.isdir(path):
            os.makedirs(path)
            self._add("d", path)


def prepare_out(out):
    """Makes out ready for a report: a new folder, an empty one, or one an
    earlier run of this tool wrote (only what that run listed is deleted)."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise UsageError(f"--out: {shown(out)}: exists and is not a directory")
    if os.path.isdir(out):
        if os.path.isfile(os.path.join(out, MANIFEST_NAME)):
            Manifest.clean(out)
        elif os.listdir(out):
            raise UsageError(f"--out: {shown(out)}: a non-empty folder without {MANIFEST_NAME} (not made by "
                             "this tool); not writing into it: choose a new or empty folder")
    os.makedirs(out, exist_ok=True)
    manifest = Manifest(out)
    manifest.start()
    for sub in ("plots", "traces", "runs"):
        manifest.make_dir(os.path.join(out, sub))
    return manifest


def run_suite(suite, scenarios, backends):
    """Every scenario on every backend, each judged over its reruns."""
    results = []
    for path, description in scenarios:
        for backend in backends:
            r = run_judged(suite, path, description, backend)
            results.append(r)
            print(f"qa: {r['status']:5} {r['scenario']} on {backend} ({run_line(r)})", flush=True)
            for rerun in r["reruns"]:
                print(f"qa:       rerun {rerun['rerun']}: {rerun['status']} ({run_line(rerun)})", flush=True)
    return results


def make_parser():
    parser = OneLineParser(prog="qa", description="Visual QA: scenarios on pacer-demo, headless, "
                                     "both backends; a report folder with verdicts, plots, CSVs and traces.")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                        help="scenario files or names in assets/scenarios/ (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help=f"only the scenarios that end within {QUICK_MAX_S:g} s (CI)")
    parser.add_argument("--backends", default="sdl2,glfw", help="comma-separated: sdl2, glfw (default: both)")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="where pacer-demo is built (default: build/)")
    parser.add_argument("--demo", help="the pacer-demo binary (default: BUILD_DIR/demo/pacer-demo)")
    parser.add_argument("--out", help="report folder (default: BUILD_DIR/qa-report); what an earlier run of "
                        "this tool wrote there is replaced, nothing else")
    parser.add_argument("--size", type=parse_size, default=(960, 540), metavar="WxH",
                        help="window of the measured runs (default 960x540)")
    parser.add_argument("--overlay", action="store_true",
                        help="draw the ImGui overlay in the measured runs (and so in their screenshots)")
    parser.add_argument("--bench-csv", metavar="DIR", help="also plot a pacer-bench --csv-dir folder")
    parser.add_argument("--display", choices=DISPLAYS, default="xvfb",
                        help="xvfb: an Xvfb per run (default); weston, mutter (GNOME) or kwin (KDE): one "
                        "headless compositor for the suite; weston and mutter report when frames were shown")
    parser.add_argument("--seat-module", metavar="PATH", help="weston's seat module (default: "
                        "BUILD_DIR/tests/wayland/pacer-weston-seat.so)")
    parser.add_argument("--replay", metavar="RECORDING", help="run the scenarios on pacer-replay with this "
                        "recording's frames (a pacer-demo trace, a PresentMon or CapFrameX capture) instead of on "
                        "the demo: no display, one run per scenario")
    parser.add_argument("--replay-args", default="", metavar="ARGS", help="--replay: pacer-replay's display flags, "
                        "as one string (e.g. \"--display recorded --display-says 60\")")
    parser.add_argument("--reruns", type=parse_reruns, default=2, metavar="N",
                        help=f"run a failing scenario up to N more times; most runs decide (0 to {MAX_RERUNS}, "
                        "default 2)")
    return parser


def replay_plan(args):
    """tools/qa.py --replay: (pacer-replay's command up to --scenario, the
    plan as demo_plan's). Bad flags raise UsageError."""
    defaults = make_parser()
    given = [flag for flag in ("--backends", "--display", "--demo", "--seat-module", "--bench-csv", "--overlay",
                               "--size")
             if getattr(args, flag[2:].replace("-", "_")) != defaults.get_default(flag[2:].replace("-", "_"))]
    if given:
        raise UsageError(f"--replay: {given[0]} is for runs of the demo")
    if not os.path.isfile(args.replay):
        raise UsageError(f"--replay: {shown(args.replay)}: no such file")
    binary = os.path.join(os.path.abspath(args.build_dir), "replay", "pacer-replay")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise UsageError(f"--replay: {shown(binary)} is missing (build the pacer-replay target)")
    try:
        extra = shlex.split(args.replay_args)
    except ValueError as e:
        raise UsageError(f"--replay-args: {e}")
    replay = [binary, os.path.abspath(args.replay)] + extra
    # A replay gives the same bytes every time: a rerun could not change its verdict.
    args.demo, args.backends, args.display, args.reruns = binary, ["replay"], "replay", 0
    return replay, resolve_scenarios(args.scenarios, args.quick, replay, "replay")


def replay_suite(args, replay, scenarios, out, manifest):
    """The scenarios on pacer-replay, and the report. The exit status as main's."""
    started_utc = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    t0 = time.monotonic()
    with Display("replay", None, []) as display:
        results = run_suite(Suite(args.demo, out, False, [], manifest, display, args.reruns, replay), scenarios,
                            args.backends)
    elapsed = time.monotonic() - t0
    write_report(out, results, scenarios, args, started_utc, elapsed, False, [], [], manifest)
    bad = [r for r in results if r["status"] != "PASS"]
    print(f"qa: {len(results) - len(bad)} passed, {len(bad)} failed, {elapsed:.0f} s; report: "
          f"{os.path.join(out, 'index.md')}")
    return 1 if bad else 0


def demo_plan(args):
    """The demo runs main's flags ask for: ([(path, description)], [stems skipped]).
    Bad flags raise UsageError."""
    if args.replay_args:
        raise UsageError("--replay-args: only with --replay")
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    for i, b in enumerate(args.backends):
        if b not in BACKENDS:
            raise UsageError(f"--backends: unknown backend '{shown(b)[:40]}' (known: {', '.join(BACKENDS)})")
        if b in args.backends[:i]:
            raise UsageError(f"--backends: {b} given twice (both runs would write the same files)")
    if not args.backends:
        raise UsageError("--backends: empty")
    if args.display == "xvfb" and shutil.which("Xvfb") is None:
        raise UsageError("Xvfb not found (Debian package xvfb; tools/setup.sh demo installs it)")
    if args.display != "xvfb":
        reason = wayland_session.skip_reason(args.display)
        if reason:
            raise UsageError(f"--display {args.display}: {reason}")
    if args.display == "weston":
        args.seat_module = args.seat_module or os.path.join(args.build_dir, "tests", "wayland",
                                                            "pacer-weston-seat.so")
        if os.path.exists(args.seat_module) and not os.path.isfile(args.seat_module):
            raise UsageError(f"--seat-module: {shown(args.seat_module)}: not a regular file")
        if not os.path.isfile(args.seat_module):
            raise UsageError(f"--seat-module: {shown(args.seat_module)}: no such file (build the target "
                             "pacer-weston-seat)")
    elif args.seat_module:
        raise UsageError("--seat-module: only with --display weston")
    if args.bench_csv and not os.path.isdir(args.bench_csv):
        raise UsageError(f"--bench-csv: {shown(args.bench_csv)}: no such directory")
    if args.demo:
        if not (os.path.isfile(args.demo) and os.access(args.demo, os.X_OK)):
            raise UsageError(f"--demo: {shown(args.demo)}: not an executable file")
    else:
        args.demo = find_or_build_demo(os.path.abspath(args.build_dir))
    args.demo = os.path.abspath(args.demo)
    return resolve_scenarios(args.scenarios, args.quick, args.demo, args.display)


def main(argv=None):
    args = make_parser().parse_args(argv)

    try:
        if args.replay is not None:
            replay, (scenarios, skipped) = replay_plan(args)
        else:
            replay, (scenarios, skipped) = None, demo_plan(args)
        if args.out == "":
            raise UsageError("--out: empty path")
        out = os.path.abspath(args.out or os.path.join(args.build_dir, "qa-report"))
        manifest = prepare_out(out)
    except UsageError as e:
        print(f"qa: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"qa: {shown(e.filename or '')}: {e.strerror}" if e.filename else f"qa: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(f"qa: {e}", file=sys.stderr)
        return 2

    if replay is not None:
        return replay_suite(args, replay, scenarios, out, manifest)
    chrome = demo_supports(args.demo, "--chrome-trace")
    load_note = busy_machine_note()
    if load_note:
        print(f"qa: warning: {load_note}", file=sys.stderr, flush=True)
    started_utc = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    t0 = time.monotonic()
    for stem in skipped:
        print(f"qa: skip  {stem}: needs present_feedback (--display xvfb, weston or mutter)", flush=True)
    try:
        with Display(args.display, args.seat_module, render_args(args)) as display:
            suite = Suite(args.demo, out, chrome, render_args(args), manifest, display, args.reruns)
            results = run_suite(suite, scenarios, args.backends)
    except UsageError as e:
        print(f"qa: {e}", file=sys.stderr)
        return 2
    bench_plots = []
    if args.bench_csv:
        try:
            manifest.make_dir(os.path.join(out, "bench"))
            for name in ("accuracy", "sleep", "cpu", "heatmap"):
                manifest.own(os.path.join(out, "bench", f"bench-{name}.png"))
                manifest.own(os.path.join(out, "bench", f"bench-{name}.png.tmp.png"))
            bench_plots = plots.plot_bench_dir(args.bench_csv, os.path.join(out, "bench"))
        except plots.InputError as e:
            print(f"qa: bench plots: {e}", file=sys.stderr)
            return 2
    elapsed = time.monotonic() - t0
    # Only the start's load: by the end the suite's own runs (and scenarios'
    # background threads) are in the load average too.
    notes = ["at the start: " + load_note] if load_note else []
    if skipped:
        notes.append("not run under " + args.display + ", which reports no presents: " + ", ".join(skipped) +
                     " (needs present_feedback: --display xvfb, weston or mutter)")
    write_report(out, results, scenarios, args, started_utc, elapsed, chrome, bench_plots, notes, manifest)
    bad = [r for r in results if r["status"] != "PASS"]
    print(f"qa: {len(results) - len(bad)} passed, {len(bad)} failed, {elapsed:.0f} s; report: "
          f"{os.path.join(out, 'index.md')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
