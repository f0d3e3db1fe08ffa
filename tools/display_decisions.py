#!/usr/bin/python3
"""display_decisions.py: what auto decides on a compositor that slows down,
and whether the hitches the demo counts are the repeats the display made.

  tools/display_decisions.py weston [--rounds 3] [--frames 900] [--markdown FILE]
  tools/display_decisions.py mutter [--rounds 2] [--frames 1200] [--markdown FILE]

weston: one headless weston at 1280x720 (tools/wayland.sh) composing the
demo's 1280x720 window in software, the demo on SDL2 and on GLFW (GLFW's
Wayland build), auto beside timer, vsync and display_lock, rounds
interleaved. Per run: auto's decisions (Decision rows of the trace, the
first included) and whether two came in consecutive frames, frames shown a
second, the summary's hitches per 1,000 refreshes, and the repeats the span
of the shown intervals after the first second shows against the run's
median interval: (sum of the intervals / the median - their count) per
1,000 refreshes so spanned; and, over the summary's own stretch (the newest
intervals that span its refreshes counted, from the clock's lock), its
hitches beside the repeats that stretch spanned; the display's outages
(intervals past 4 frame steps) and the repeats outside them; the latency
p50, wake to shown.

mutter: one headless mutter with a 640x480 monitor at 60 Hz, the demo at
320x240 without its overlay (a light load), every strategy. The span is
taken against the monitor's exact 60 Hz.

Needs tools/test.sh's build (build/demo/pacer-demo) and tools/setup.sh's
packages.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRATEGIES = ["auto", "vsync", "display_lock", "timer"]
OUTAGE_STEPS = 4   # a shown interval past this many frame steps is the display's outage (pacer's kOutageSteps)


def wayland(*args):
    out = subprocess.run(["bash", os.path.join(ROOT, "tools/wayland.sh"), *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"display_decisions: tools/wayland.sh {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def start(compositor, name, size):
    env = dict(os.environ)
    for line in wayland("start", compositor, "--name", name, "--size", size).splitlines():
        if line.startswith("export "):
            key, value = line[len("export "):].split("=", 1)
            env[key] = value
    return env


def summary_value(doc, key):
    if isinstance(doc, dict):
        if key in doc:
            return doc[key]
        values = doc.values()
    elif isinstance(doc, list):
        values = doc
    else:
        return None
    for value in values:
        found = summary_value(value, key)
        if found is not None:
            return found
    return None


def judge(trace, summary, period_ms=None):
    rows = list(csv.DictReader(open(trace)))
    decisions = [int(r["Frame"]) for r in rows if r["Decision"]]
    consecutive = sum(1 for a, b in zip(decisions, decisions[1:]) if b - a <= 1)
    shown = sum(1 for r in rows if r["DisplayedFrame"] == "1")
    seconds = float(rows[-1]["TimeInSeconds"]) - float(rows[0]["TimeInSeconds"])
    # The span after the first second, as the summary's count starts once
    # the display's clock locks (within it) and the window's first frames
    # come as the compositor maps it.
    start_s = float(rows[0]["TimeInSeconds"]) + 1
    between = [float(r["MsBetweenDisplayChange"]) for r in rows
               if r["MsBetweenDisplayChange"] not in ("NA", "") and float(r["TimeInSeconds"]) >= start_s]
    unit = period_ms or statistics.median(between)
    spanned = sum(between) / unit
    doc = json.load(open(summary))
    hitches = summary_value(doc, "hitches_per_1000")
    # The same refreshes as the summary's count (from the lock to the end):
    # the newest intervals that span them, and the repeats they spanned.
    counted = int(float(summary_value(doc, "display_refreshes_counted") or 0))
    every = [float(r["MsBetweenDisplayChange"]) for r in rows if r["MsBetweenDisplayChange"] not in ("NA", "")]
    tail, tail_refreshes = 0, 0.0
    while tail < len(every) and tail_refreshes + every[-1 - tail] / unit <= counted + 0.5:
        tail_refreshes += every[-1 - tail] / unit
        tail += 1
    count = summary_value(doc, "display_hitches")
    count = None if count is None else int(float(count))
    # Outside the display's outages (an interval past 4 frame steps, the
    # compositor's stop, under every strategy alike): the repeats the
    # strategy's own pacing left. And the latency, wake to shown.
    calm = [ms for ms in between if ms <= OUTAGE_STEPS * unit]
    calm_spanned = sum(calm) / unit
    latency = sorted(float(r["MsDisplayLatency"]) for r in rows
                     if r["MsDisplayLatency"] not in ("NA", "") and float(r["TimeInSeconds"]) >= start_s)
    return {
        "calm_repeats": 1000 * (calm_spanned - len(calm)) / calm_spanned if calm_spanned else 0,
        "outages": len(between) - len(calm), "latency_p50": latency[len(latency) // 2] if latency else None,
        "decisions": len(decisions), "consecutive": consecutive, "shown_fps": shown / seconds if seconds else 0,
        "hitches": hitches, "repeats": 1000 * (spanned - len(between)) / spanned if spanned else 0,
        "count": count, "count_span": tail_refreshes - tail, "counted": counted,
        "unit_ms": unit, "last": rows[[int(r["Frame"]) for r in rows].index(decisions[-1])]["Decision"] if decisions else "",
    }


def run(env, out, backend, strategy, frames, size, overlay):
    trace, summary = f"{out}.csv", f"{out}.json"
    command = [os.path.join(ROOT, "build/demo/pacer-demo"), "--backend", backend, "--strategy", strategy,
               "--frames", str(frames), "--width", size[0], "--height", size[1], "--trace", trace,
               "--summary-json", summary]
    if not overlay:
        command.append("--no-overlay")
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit(f"display_decisions: {' '.join(command)}: exit {result.returncode}\n{result.stderr[-2000:]}")
    return trace, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("compositor", choices=["weston", "mutter"])
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--frames", type=int)
    parser.add_argument("--markdown", help="write the table here as well")
    parser.add_argument("--keep", help="keep the traces and summaries in this folder (default: a temporary one, removed)")
    args = parser.parse_args()
    weston = args.compositor == "weston"
    rounds = args.rounds or (3 if weston else 2)
    frames = args.frames or (900 if weston else 1200)
    if rounds < 1 or frames < 120:
        sys.exit("display_decisions: --rounds must be >= 1 and --frames >= 120")
    name = "decisions-" + args.compositor
    env = start(args.compositor, name, "1280x720" if weston else "640x480")
    backends = ["sdl2", "glfw"] if weston else ["sdl2"]
    env["SDL_VIDEODRIVER"] = "wayland"
    glfw_env = dict(env)
    if weston:
        glfw_env["LD_LIBRARY_PATH"] = wayland("glfw-wayland").strip()
    results = []
    work = args.keep or tempfile.mkdtemp(prefix="display-decisions-")
    os.makedirs(work, exist_ok=True)
    try:
        for round_ in range(1, rounds + 1):
            for backend in backends:
                for strategy in STRATEGIES:
                    out = os.path.join(work, f"r{round_}-{backend}-{strategy}")
                    size = ("1280", "720") if weston else ("320", "240")
                    trace, summary = run(glfw_env if backend == "glfw" else env, out, backend, strategy, frames,
                                         size, overlay=weston)
                    figures = judge(trace, summary, None if weston else 1000 / 60)
                    results.append((round_, backend, strategy, figures))
                    print(f"round {round_} {backend} {strategy}: {figures['decisions']} decisions, "
                          f"{figures['shown_fps']:.1f} shown a second, hitches {figures['hitches']}, "
                          f"span repeats {figures['repeats']:.2f}; over the count's {figures['counted']} "
                          f"refreshes: counted {figures['count']}, spanned {figures['count_span']:.1f}", flush=True)
    finally:
        wayland("stop", "--name", name)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    lines = ["| backend | strategy | round | decisions (consecutive) | frames shown a second | the summary's hitches "
             "per 1,000 refreshes | repeats per 1,000 by the span | the summary's hitches / the span's repeats, "
             "over its refreshes | outages: repeats per 1,000 outside them | latency p50 ms | auto's last decision |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for round_, backend, strategy, f in sorted(results, key=lambda r: (r[1], STRATEGIES.index(r[2]), r[0])):
        hitches = "-" if f["hitches"] is None else f"{f['hitches']:.2f}"
        same = "-" if f["count"] is None else f"{f['count']} / {f['count_span']:.1f} of {f['counted']}"
        last = f["last"].replace("|", "/") if strategy == "auto" else ""
        latency = "-" if f["latency_p50"] is None else f"{f['latency_p50']:.1f}"
        lines.append(f"| {backend} | {strategy} | {round_} | {f['decisions']} ({f['consecutive']}) | "
                     f"{f['shown_fps']:.1f} | {hitches} | {f['repeats']:.2f} | {same} | "
                     f"{f['outages']}: {f['calm_repeats']:.2f} | {latency} | {last} |")
    # auto against the best fixed strategy of the same round and backend.
    for backend in backends:
        for round_ in range(1, rounds + 1):
            mine = {s: f for r, b, s, f in results if r == round_ and b == backend}
            best = max(("vsync", "display_lock", "timer"), key=lambda s: mine[s]["shown_fps"])
            ratio = mine["auto"]["shown_fps"] / mine[best]["shown_fps"]
            lines.append(f"\n{backend} round {round_}: auto shows {100 * ratio:.1f} % of the best fixed "
                         f"strategy's frames a second ({best})")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(table + "\n")


if __name__ == "__main__":
    main()
