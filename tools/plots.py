#!/usr/bin/python3
"""plots.py: PNG figures from pacer-bench CSVs and pacer-demo traces.

Run with Debian's Python (python3-matplotlib), no display needed:

  /usr/bin/python3 tools/plots.py bench CSV_DIR [--out DIR]
      every experiment CSV present in CSV_DIR (pacer-bench --csv-dir):
        accuracy.csv -> bench-accuracy.png  wake lateness per strategy (bars)
        sleep.csv    -> bench-sleep.png     requested vs actual sleep, log-log
        cpu.csv      -> bench-cpu.png       CPU use vs requested interval
        heatmap.csv  -> bench-heatmap.png   relative error over simulated
                                            scheduler periods x intervals
        tradeoff.csv -> bench-tradeoff-CONDITION-HZhz.png, one per cell:
                        CPU % vs wake p99 (log-log), fixed margins as the
                        curve, the adaptive timer marked
  /usr/bin/python3 tools/plots.py accuracy|sleep|cpu|heatmap|tradeoff FILE [--out DIR]
      one of them, from a file of that experiment's columns
  /usr/bin/python3 tools/plots.py trace TRACE.csv [--out DIR] [--name NAME]
      a demo trace (pacer-demo --trace, columns in demo/run/trace.h):
        NAME-timeline.png   intervals over time, scenario phases shaded: presents
                            (swap to swap) first, frames on screen where the
                            display reports them, then wakes, each labelled
        NAME-histogram.png  distribution of the wake intervals, per phase
        NAME-percentiles.png  presents, shown frames and wakes at each
                            percentile, per phase
        NAME-display.png    where the display reported what it showed
                            (MsBetweenDisplayChange, wp_presentation): the
                            intervals between frames on screen against those
                            between wakes, over time and as distributions
  /usr/bin/python3 tools/plots.py replay RECORDING TRACE [--out DIR] [--name NAME]
      a recorded run against its replay (pacer-replay --trace):
        NAME-replay.png     presents and shown frames over the run, the
                            recording's above the replay's, and both at
                            each percentile. RECORDING: a pacer-demo trace,
                            a PresentMon CSV (its busiest swap chain) or a
                            CapFrameX JSON capture (its longest run)

Bad input (a missing file, a missing column, a value that is not a number)
gives one line on stderr naming the file (and line and column) and exit
status 2; no PNG is written for that input.
"""

import csv
import json
import math
import os
import stat
import sys

try:
    import matplotlib
except ImportError:   # a Python without it (a pyenv one): say which to run
    print(f"plots.py: this Python ({sys.executable}) has no matplotlib: run tools/plots.py with Debian's "
          "/usr/bin/python3 (package python3-matplotlib; tools/setup.sh demo installs it)", file=sys.stderr)
    sys.exit(2)
matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from one_line import OneLineParser  # noqa: E402

DPI = 110
# One colour per strategy in every bench figure, in pacer.h's order.
STRATEGY_COLOURS = {
    "sleep": "#d62728",
    "spin": "#7f7f7f",
    "precise_sleep": "#ff7f0e",
    "robust_sleep": "#2ca02c",
    "timer": "#1f77b4",
    "vsync": "#8c564b",
    "auto": "#9467bd",
}


MAX_ABS_VALUE = 1e12          # the largest magnitude a CSV value may have (µs: 11 days)
MAX_CSV_BYTES = 512 << 20     # a CSV is refused past this, before it is read (a 1 kHz trace: ~0.3 MB a s)
MAX_ACCURACY_CONDITIONS = 64  # accuracy.csv: one panel row each; past this the figure cannot be drawn
MAX_HEATMAP_CELLS = 40        # heatmap.csv: periods and intervals a grid may have, each
MAX_NAME_BYTES = 200          # trace --name: a file name prefix (the suffixes take the rest of 255)


class InputError(Exception):
    """A problem with an input file: the message is the whole line to print."""


# --- reading CSVs ------------------------------------------------------------


class Table:
    """A CSV file's rows as dicts, with checked access by column."""

    def __init__(self, path, required):
        self.path = path
        try:
            mode = os.stat(path).st_mode
        except OSError as e:
            raise InputError(f"{path}: {e.strerror.lower() if e.strerror else 'cannot read'}") from None
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: not a regular file (a folder, a device or a pipe)")
        if os.path.getsize(path) > MAX_CSV_BYTES:
            raise InputError(f"{path}: more than the {MAX_CSV_BYTES >> 20} MiB a CSV may have")
        try:
            with open(path, newline="", encoding="utf-8-sig") as f:   # a byte order mark is no column
                reader = csv.DictReader(f)
                self.columns = reader.fieldnames or []
                self.rows = list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise InputError(f"{path}: cannot read: {e}") from None
        if not self.columns:
            raise InputError(f"{path}: empty file (no header line)")
        for column in required:
            if column not in self.columns:
                raise InputError(f"{path}: missing column '{column}'")
        if not self.rows:
            raise InputError(f"{path}: no data rows")

    def number(self, row_index, column, allow_missing=False):
        """The value as a float; None for NA/empty when allow_missing."""
        text = (self.rows[row_index].get(column) or "").strip()
        if text in ("", "NA", "n/a") and allow_missing:
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        # +2: the header is line 1, rows start at line 2.
        where = f"{self.path}:{row_index + 2}: column '{column}'"
        if not math.isfinite(value):
            raise InputError(f"{where}: '{text[:40]}' is not a number")
        # No figure the bench or the demo writes comes near this; past it the
        # axes' arithmetic (scales, bins, ticks) would overflow to infinity.
        if abs(value) > MAX_ABS_VALUE:
            raise InputError(f"{where}: {text[:40]} is out of range (at most {MAX_ABS_VALUE:g} either way)")
        return value

    def numbers(self, column, allow_missing=False):
        return [self.number(i, column, allow_missing) for i in range(len(self.rows))]

    def texts(self, column):
        return [(row.get(column) or "") for row in self.rows]


def strategies_in_order(names):
    known = [s for s in STRATEGY_COLOURS if s in names]
    return known + sorted(set(names) - set(known))


def colour(strategy):
    return STRATEGY_COLOURS.get(strategy, "#17becf")


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    tmp = path + ".tmp.png"
    try:
        fig.savefig(tmp, dpi=DPI)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise InputError(f"{path}: cannot write: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return path


def check_out_dir(out_dir):
    """--out: a folder that exists or can be made, and can be written."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(f"--out {out_dir}: not a folder")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise InputError(f"--out {out_dir}: cannot make it: {e.strerror or e}") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise InputError(f"--out {out_dir}: cannot write into it")


# --- bench figures -----------------------------------------------------------

ACCURACY_COLUMNS = ["condition", "strategy", "hz", "wake_mean_us", "wake_p99_us", "wake_max_us", "off_pct"]


def plot_accuracy(path, out_dir):
    """Wake lateness per strategy: bar = mean, whisker = up to max, dot = p99.

    No lower whisker: the least lateness is about 0 for every strategy with a
    spin tail (all but sleep), so the bench writes wake_on_time_pct instead of
    a minimum (see pacer-bench --help)."""
    t = Table(path, ACCURACY_COLUMNS)
    conditions = list(dict.fromkeys(t.texts("condition")))
    strategies = strategies_in_order(t.texts("strategy"))
    hz_all = t.numbers("hz")
    rates = sorted(set(hz_all))
    mean = t.numbers("wake_mean_us")
    p99 = t.numbers("wake_p99_us")
    top = t.numbers("wake_max_us")
    cond = t.texts("condition")
    strat = t.texts("strategy")
    if len(conditions) > MAX_ACCURACY_CONDITIONS:
        raise InputError(f"{path}: {len(conditions)} conditions; a figure draws at most {MAX_ACCURACY_CONDITIONS}")

    fig, axes = plt.subplots(len(conditions), 1, figsize=(13.5, 3.4 * len(conditions) + 1.2), squeeze=False,
                             layout="constrained")
    width = 0.8 / max(len(strategies), 1)
    # A log axis cannot show 0: values below the floor sit on it. The floor is
    # the decade under the smallest bar, at least 0.05 µs.
    lows = [v for v in mean if v > 0]
    floor_us = max(0.05, 10 ** math.floor(math.log10(min(lows)))) if lows else 0.05
    for ax, condition in zip(axes[:, 0], conditions):
        for si, strategy in enumerate(strategies):
            xs, bars, hi_err, dots = [], [], [], []
            for i in range(len(t.rows)):
                if cond[i] != condition or strat[i] != strategy:
                    continue
                x = rates.index(hz_all[i]) - 0.4 + width * (si + 0.5)
                bar = max(mean[i], floor_us)
                xs.append(x)
                bars.append(bar)
                hi_err.append(max(top[i], floor_us) - bar)
                dots.append(max(p99[i], floor_us))
            if not xs:
                continue
            ax.bar(xs, bars, width * 0.9, color=colour(strategy), label=strategy)
            ax.errorbar(xs, bars, yerr=[[0.0] * len(xs), hi_err], fmt="none", ecolor="black", elinewidth=0.8,
                        capsize=2)
            ax.plot(xs, dots, "o", color="black", markersize=3, markerfacecolor="white")
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor_us)
        ax.set_xticks(range(len(rates)))
        ax.set_xticklabels([f"{r:g} Hz" for r in rates])
        ax.set_xlabel("target rate (Hz)")
        ax.set_ylabel("wake lateness (µs, log)")
        ax.set_title(f"condition: {condition}")
        ax.grid(axis="y", which="major", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    whisker = "whisker: up to max"
    handles += [plt.Line2D([], [], color="black", linewidth=0.8),
                plt.Line2D([], [], marker="o", linestyle="none", color="black", markerfacecolor="white")]
    labels += [whisker, "p99"]
    axes[0, 0].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, borderaxespad=0)
    fig.suptitle("Wake lateness after the deadline per strategy (bar: mean)", fontsize=12)
    return save(fig, out_dir, "bench-accuracy.png")


SLEEP_COLUMNS = ["strategy", "requested_us", "actual_mean_us", "actual_p99_us"]


def plot_sleep(path, out_dir):
    t = Table(path, SLEEP_COLUMNS)
    strat = t.texts("strategy")
    req = t.numbers("requested_us")
    mean = t.numbers("actual_mean_us")
    p99 = t.numbers("actual_p99_us")
    # Log axes: every duration must be above zero (and a float's smallest
    # normal number is no duration either).
    for column, values in (("requested_us", req), ("actual_mean_us", mean), ("actual_p99_us", p99)):
        for i, v in enumerate(values):
            if not v >= 1e-6:
                raise InputError(f"{path}:{i + 2}: column '{column}': {v:g} is not a duration above 0 "
                                 "(the sleep figure's axes are logarithmic)")
    fig, (ax, ax_over) = plt.subplots(1, 2, figsize=(12, 5))
    for strategy in strategies_in_order(strat):
        rows = sorted((req[i], mean[i], p99[i]) for i in range(len(t.rows)) if strat[i] == strategy)
        xs = [r[0] for r in rows]
        ax.plot(xs, [r[1] for r in rows], "o-", color=colour(strategy), label=f"{strategy} (mean)", markersize=4)
        ax.plot(xs, [r[2] for r in rows], ":", color=colour(strategy), linewidth=1)
        over = [(r[0], r[1] - r[0]) for r in rows if r[1] - r[0] > 0]
        ax_over.plot([o[0] for o in over], [o[1] for o in over], "o-", color=colour(strategy), label=strategy,
                     markersize=4)
    lo, hi = min(req), max(req)
    ax.plot([lo, hi], [lo, hi], "--", color="black", linewidth=1, label="ideal: actual = requested")
    ax.plot([], [], ":", color="grey", label="p99 (dotted, same colour)")
    for a in (ax, ax_over):
        a.set_xscale("log")
        a.set_yscale("log")
        a.grid(which="major", alpha=0.3)
        a.set_xlabel("requested sleep (µs, log)")
    ax.set_ylabel("actual sleep (µs, log)")
    ax.set_title("Requested vs actual sleep")
    ax.legend(fontsize=8)
    ax_over.set_ylabel("mean oversleep: actual - requested (µs, log)")
    ax_over.set_title("How late each sleep ends (mean)")
    ax_over.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, "bench-sleep.png")


CPU_COLUMNS = ["strategy", "interval_ms", "cpu_pct"]


def plot_cpu(path, out_dir):
    t = Table(path, CPU_COLUMNS)
    strat = t.texts("strategy")
    interval = t.numbers("interval_ms")
    cpu = t.numbers("cpu_pct", allow_missing=True)
    if all(c is None for c in cpu):
        raise InputError(f"{path}: column 'cpu_pct' has no values (no thread CPU time on that OS)")
    fig, ax = plt.subplots(figsize=(9, 5))
    floor = 0.01
    for strategy in strategies_in_order(strat):
        rows = sorted((interval[i], cpu[i]) for i in range(len(t.rows)) if strat[i] == strategy and cpu[i] is not None)
        ax.plot([r[0] for r in rows], [max(r[1], floor) for r in rows], "o-", color=colour(strategy),
                label=strategy, markersize=4)
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor)
    ax.set_xlabel("requested frame interval (ms)")
    ax.set_ylabel("CPU time of the waiting thread (% of one core, log)")
    ax.set_title("CPU cost of waiting vs requested interval (no bench load added)")
    ax.grid(which="major", alpha=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    return save(fig, out_dir, "bench-cpu.png")


HEATMAP_COLUMNS = ["strategy", "period_ms", "interval_ms", "rel_err_mean_pct"]


def plot_heatmap(path, out_dir):
    t = Table(path, HEATMAP_COLUMNS)
    strat = t.texts("strategy")
    period = t.numbers("period_ms")
    interval = t.numbers("interval_ms")
    err = t.numbers("rel_err_mean_pct")
    strategies = strategies_in_order(strat)
    periods = sorted(set(period))
    intervals = sorted(set(interval))
    if len(periods) > MAX_HEATMAP_CELLS or len(intervals) > MAX_HEATMAP_CELLS:
        raise InputError(f"{path}: a grid of {len(periods)} periods x {len(intervals)} intervals; a heatmap "
                         f"draws at most {MAX_HEATMAP_CELLS} of each")
    cols = min(3, len(strategies))
    rows_n = math.ceil(len(strategies) / cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.6 * cols + 1.4, 3.9 * rows_n + 0.7), squeeze=False,
                             layout="constrained")
    positive = [abs(e) for e in err if abs(e) > 0]
    vmax = max(positive) if positive else 1.0
    norm = mcolors.LogNorm(vmin=max(min(positive) if positive else 0.01, 0.01), vmax=max(vmax, 0.02))
    image = None
    for index, ax in enumerate(axes.flat):
        if index >= len(strategies):
            ax.axis("off")
            continue
        strategy = strategies[index]
        grid = [[math.nan] * len(intervals) for _ in periods]
        for i in range(len(t.rows)):
            if strat[i] == strategy:
                grid[periods.index(period[i])][intervals.index(interval[i])] = max(abs(err[i]), norm.vmin)
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="magma_r", norm=norm)
        for r in range(len(periods)):
            for c in range(len(intervals)):
                v = grid[r][c]
                if not math.isnan(v):
                    ax.text(c, r, f"{v:.0f}" if v >= 10 else f"{v:.1f}", ha="center", va="center", fontsize=6.5,
                            color="white" if v > math.sqrt(norm.vmin * norm.vmax) * 3 else "black")
        ax.set_xticks(range(len(intervals)))
        ax.set_xticklabels([f"{v:g}" for v in intervals], fontsize=8)
        ax.set_yticks(range(len(periods)))
        ax.set_yticklabels([f"{v:g}" for v in periods], fontsize=8)
        ax.set_xlabel("requested interval (ms)")
        if index % cols == 0:
            ax.set_ylabel("simulated scheduler period (ms)")
        ax.set_title(strategy)
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.9)
    bar.set_label("mean |actual - requested| / requested (%, log colour)")
    fig.suptitle("Robustness: relative error of each strategy under a simulated scheduler "
                 "(numbers in cells: %)", fontsize=12)
    return save(fig, out_dir, "bench-heatmap.png")


TRADEOFF_COLUMNS = ["condition", "hz", "variant", "kind", "margin_us", "round", "cpu_pct", "wake_p99_us"]
# How each kind of variant is drawn in a trade-off figure.
TRADEOFF_STYLE = {
    "fixed": dict(marker="o", color="#1f77b4"),
    "floor": dict(marker="s", color="#7f7f7f"),
    "seed": dict(marker="^", color="#2ca02c"),
    "peer": dict(marker="D", color="#d62728"),
    "candidate": dict(marker="x", color="#9467bd"),
}
# The seeds share a kind; each gets its own marker.
TRADEOFF_VARIANT_STYLE = {"seed_5ms": dict(marker="v", color="#bcbd22"),
                          "precise_2020": dict(marker="P", color="#8c564b"),
                          "robust_2021": dict(marker="X", color="#e377c2")}
TRADEOFF_LABELS = {"spin": "spin (floor)", "plain_abs": "plain clock_nanosleep(ABSTIME)",
                   "seed_5ms": "sleep_until(d - 100 us) + yield", "sdl3": "SDL3 SDL_DelayPrecise",
                   "precise_2020": "preciseSleep (2020 article)", "robust_2021": "robustSleep (2021 article)"}


def tradeoff_budget_pct(hz):
    """The CPU budget of precise sleep: 1 % of a core at 60 Hz, 2 % at 144 Hz."""
    return 1.0 if hz <= 60 else 2.0


def plot_tradeoff(path, out_dir):
    """One figure per cell: CPU % against wake p99 (log-log), the rounds pooled
    for every variant (CPU the median of the rounds, p99 over all their
    wakes); fixed margins joined as the curve, the adaptive timer marked, its
    single rounds as small stars."""
    t = Table(path, TRADEOFF_COLUMNS)
    condition, variant, kind, rnd = t.texts("condition"), t.texts("variant"), t.texts("kind"), t.texts("round")
    hz = t.numbers("hz")
    cpu = t.numbers("cpu_pct", allow_missing=True)
    p99 = t.numbers("wake_p99_us")
    margin = t.numbers("margin_us", allow_missing=True)
    cells = []
    for i in range(len(t.rows)):
        if (condition[i], hz[i]) not in cells:
            cells.append((condition[i], hz[i]))
    if not any(r == "pooled" for r in rnd):
        raise InputError(f"{path}: no 'pooled' rows in column 'round' (pacer-bench --experiments tradeoff)")
    floor_cpu, floor_us = 0.01, 0.05
    written = []
    for cell in cells:
        rows = [i for i in range(len(t.rows)) if (condition[i], hz[i]) == cell and cpu[i] is not None]
        med = [i for i in rows if rnd[i] == "pooled"]
        if not med:
            continue
        fig, ax = plt.subplots(figsize=(9, 6))
        xy = lambda i: (max(cpu[i], floor_cpu), max(p99[i], floor_us))  # noqa: E731
        fixed = sorted((i for i in med if kind[i] == "fixed"), key=lambda i: margin[i] or 0)
        if fixed:
            ax.plot([xy(i)[0] for i in fixed], [xy(i)[1] for i in fixed], "-", color="#1f77b4", alpha=0.5)
            ax.scatter([xy(i)[0] for i in fixed], [xy(i)[1] for i in fixed], label="timer, fixed margin (µs)",
                       **TRADEOFF_STYLE["fixed"])
            for i in fixed:
                ax.annotate(f"{margin[i]:g}", xy(i), textcoords="offset points", xytext=(5, 4), fontsize=8)
        for i in med:
            if kind[i] in ("floor", "seed", "peer", "candidate"):
                style = TRADEOFF_VARIANT_STYLE.get(variant[i], TRADEOFF_STYLE[kind[i]])
                ax.scatter(*xy(i), s=50, label=TRADEOFF_LABELS.get(variant[i], variant[i]), **style)
        rounds = [i for i in rows if kind[i] == "adaptive" and rnd[i] != "pooled"]
        if rounds:
            ax.scatter([xy(i)[0] for i in rounds], [xy(i)[1] for i in rounds], marker="*", s=40, color="#ff7f0e",
                       alpha=0.45, label="timer, adaptive: single rounds")
        for i in med:
            if kind[i] == "adaptive":
                ax.scatter(*xy(i), marker="*", s=320, color="#ff7f0e", edgecolors="black", zorder=5,
                           label="timer, adaptive (library): pooled")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(10, color="black", lw=0.8, ls=":", label="wake p99 10 µs")
        if cell[0] == "idle":
            ax.axvline(tradeoff_budget_pct(cell[1]), color="black", lw=0.8, ls="--",
                       label=f"CPU budget {tradeoff_budget_pct(cell[1]):g} %")
        ax.set_xlabel("CPU time of the waiting thread (% of one core, log)")
        ax.set_ylabel("wake lateness p99 (µs, log)")
        ax.set_title(f"Precise sleep trade-off: {cell[0]}, {cell[1]:g} Hz (rounds pooled)")
        ax.grid(which="major", alpha=0.3)
        ax.legend(fontsize=8, loc="best")
        fig.tight_layout()
        written.append(save(fig, out_dir, f"bench-tradeoff-{cell[0]}-{cell[1]:g}hz.png"))
    return written


BENCH_FILES = [("accuracy.csv", plot_accuracy), ("sleep.csv", plot_sleep), ("cpu.csv", plot_cpu),
               ("heatmap.csv", plot_heatmap), ("tradeoff.csv", plot_tradeoff)]


def flatten(paths):
    """The paths a plot function wrote: one, or a list (one per cell)."""
    out = []
    for p in paths:
        out.extend(p if isinstance(p, list) else [p])
    return out


def plot_bench_dir(csv_dir, out_dir):
    if not os.path.isdir(csv_dir):
        raise InputError(f"{csv_dir}: no such directory")
    present = [(name, fn) for name, fn in BENCH_FILES if os.path.isfile(os.path.join(csv_dir, name))]
    if not present:
        raise InputError(f"{csv_dir}: none of {', '.join(n for n, _ in BENCH_FILES)} (pacer-bench --csv-dir)")
    return flatten(fn(os.path.join(csv_dir, name), out_dir) for name, fn in present)


# --- demo trace figures ------------------------------------------------------

TRACE_COLUMNS = ["Frame", "TimeInSeconds", "MsBetweenSimulationStart", "MsWakeLateness", "MsTargetPeriod",
                 "Missed", "Strategy", "Marker"]


class Trace:
    def __init__(self, path):
        t = Table(path, TRACE_COLUMNS)
        # The display figure needs both display columns: checked before any
        # figure is drawn, so that a bad trace writes none.
        if "MsBetweenDisplayChange" in t.columns and "MsDisplayLatency" not in t.columns:
            raise InputError(f"{path}: missing column 'MsDisplayLatency' (it has MsBetweenDisplayChange)")
        self.path = path
        self.time_s = t.numbers("TimeInSeconds")
        self.interval_ms = t.numbers("MsBetweenSimulationStart", allow_missing=True)
        # What reaches the screen comes first in the figures: the presents
        # (swap returns) and, where the display reports them, shown frames.
        self.present_ms = (t.numbers("MsBetweenPresents", allow_missing=True) if "MsBetweenPresents" in t.columns
                           else [None] * len(self.time_s))
        self.shown_ms = (t.numbers("MsBetweenDisplayChange", allow_missing=True)
                         if "MsBetweenDisplayChange" in t.columns else [None] * len(self.time_s))
        # The display figure's own column, read here too so that a bad value
        # refuses the trace before the first figure is written.
        if "MsDisplayLatency" in t.columns:
            t.numbers("MsDisplayLatency", allow_missing=True)
        self.lateness_ms = t.numbers("MsWakeLateness")
        self.target_ms = t.numbers("MsTargetPeriod")
        self.missed = t.numbers("Missed")
        self.strategy = t.texts("Strategy")
        self.markers = t.texts("Marker")
        self.phases = self._phases()

    def _phases(self):
        """[(name, start_s, end_s, row_first, row_last)]: the run split at its
        "mark" steps, or at every marker when the scenario has no "mark"."""
        marks = [(i, m) for i, m in enumerate(self.markers) if " mark " in f" {m}"]
        use_marks = bool(marks)
        cuts = []
        for i, text in enumerate(self.markers):
            if not text:
                continue
            if use_marks:
                names = [part.split("mark ", 1)[1].strip().strip('"') for part in text.split("; ")
                         if "mark " in part]
                if names:
                    cuts.append((i, " / ".join(names)))
            elif i > 0:
                cuts.append((i, text.split(": ", 1)[-1] if ": " in text else text))
        if not cuts:
            cuts = [(0, "whole run")]
        elif cuts[0][0] != 0:
            cuts.insert(0, (0, "start"))
        end_s = self.time_s[-1]
        phases = []
        for k, (row, name) in enumerate(cuts):
            last = cuts[k + 1][0] - 1 if k + 1 < len(cuts) else len(self.time_s) - 1
            phases.append((name, self.time_s[row], self.time_s[last + 1] if last + 1 < len(self.time_s) else end_s,
                           row, last))
        return phases


PHASE_COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
                 "#ccb974", "#64b5cd"]


# Frame-time limits counted per phase (CapFrameX's "frames above"): a hitch
# of a third of a 60 Hz frame or more shows, whatever the stutter rule says.
OVER_MS = (25.0, 33.3, 50.0)
OFF_MS = 0.5   # the overlay's and the summary's "off" tolerance


def nearest_rank(sorted_values, q):
    """The q-quantile (0 < q <= 1) by nearest rank, as the library's stats."""
    k = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[k - 1]


def phase_figures(tr):
    """Per phase of a trace (Trace.phases), the figures a frame-time reader
    looks for: [{phase, frames, seconds, avg_fps, p50_ms, p95_ms, p99_ms,
    max_ms, off_pct, hitches (over 1.5 periods), over: {limit_ms: count}}]."""
    rows = []
    for name, start, end, first, last in tr.phases:
        pairs = [(tr.interval_ms[i], tr.target_ms[i]) for i in range(first, last + 1) if tr.interval_ms[i] is not None]
        if not pairs:
            continue
        values = sorted(v for v, _ in pairs)
        total_ms = sum(values)
        rows.append({
            "phase": name, "frames": len(values), "seconds": end - start,
            "avg_fps": 1000.0 * len(values) / total_ms if total_ms > 0 else float("nan"),
            "p50_ms": nearest_rank(values, 0.50), "p95_ms": nearest_rank(values, 0.95),
            "p99_ms": nearest_rank(values, 0.99), "max_ms": values[-1],
            "off_pct": 100.0 * sum(1 for v, t in pairs if abs(v - t) > OFF_MS) / len(pairs),
            "hitches": sum(1 for v, t in pairs if v >= 1.5 * t),
            "over": {limit: sum(1 for v in values if v > limit) for limit in OVER_MS},
        })
    return rows


def shorten(text, n=28):
    return text if len(text) <= n else text[: n - 1] + "…"


def plot_trace(path, out_dir, name=None, title=None, trace=None):
    """The trace's figures; trace: the Trace of path, when the caller has read it."""
    tr = trace or Trace(path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    title = title or name
    points = [(tr.time_s[i], tr.interval_ms[i]) for i in range(len(tr.time_s)) if tr.interval_ms[i] is not None]
    if not points:
        raise InputError(f"{path}: column 'MsBetweenSimulationStart' has no values (fewer than 2 frames)")

    # Timeline: intervals (top) and wake lateness (bottom), phases shaded.
    fig, (ax, ax_late) = plt.subplots(2, 1, figsize=(13.5, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
    phase_handles = []
    for k, (phase, start, end, _, _) in enumerate(tr.phases if len(tr.phases) > 1 else []):
        c = PHASE_COLOURS[k % len(PHASE_COLOURS)]
        for a in (ax, ax_late):
            a.axvspan(start, end, color=c, alpha=0.13, linewidth=0)
        phase_handles.append(Patch(color=c, alpha=0.35, label=f"phase: {shorten(phase)}"))
    # Presents first, then frames on screen where reported, wakes last and thin.
    for series, colour_, width, label in ((tr.present_ms, "#2a6fdb", 1.0, "presents: swap to swap (MsBetweenPresents)"),
                                          (tr.shown_ms, "#2ca02c", 1.0,
                                           "shown: on screen to on screen (MsBetweenDisplayChange)")):
        xy = [(tr.time_s[i], v) for i, v in enumerate(series) if v is not None]
        if xy:
            ax.plot([p[0] for p in xy], [p[1] for p in xy], "-", color=colour_, linewidth=width, label=label)
    ax.plot([p[0] for p in points], [p[1] for p in points], "-", color="#555555", linewidth=0.5,
            label="wakes: frame start to frame start (MsBetweenSimulationStart)")
    ax.step(tr.time_s, tr.target_ms, where="post", color="#1f77b4", linewidth=1.2, linestyle="--",
            label="target period (MsTargetPeriod)")
    missed = [(tr.time_s[i], tr.interval_ms[i]) for i in range(len(tr.time_s))
              if tr.missed[i] > 0 and tr.interval_ms[i] is not None]
    if missed:
        ax.plot([m[0] for m in missed], [m[1] for m in missed], "x", color="#d62728", markersize=6,
                label=f"missed grid point ({len(missed)} frames)")
    values = sorted(p[1] for p in points)
    everything = sorted(values + [v for v in tr.present_ms + tr.shown_ms if v is not None])
    hi = everything[min(len(everything) - 1, int(0.999 * len(everything)))]
    top = max(hi, max(tr.target_ms)) * 1.25
    clipped = sum(1 for v in everything if v > top)
    ax.set_ylim(0, top)
    if clipped:
        ax.text(0.995, 0.97, f"{clipped} interval(s) above {top:.1f} ms not shown (max {everything[-1]:.1f} ms)",
                transform=ax.transAxes, ha="right", va="top", fontsize=8, color="#d62728")
    ax.set_ylabel("interval (ms)")
    ax.set_title(f"Frame-time timeline (presents, shown, wakes): {title}")
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    # Outside the axes, right: the data can be anywhere in the plot.
    ax.legend(handles=handles + phase_handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0)

    ax_late.plot(tr.time_s, [v * 1000 for v in tr.lateness_ms], "-", color="#ff7f0e", linewidth=0.7,
                 label="wake lateness (MsWakeLateness)")
    ax_late.axhline(0, color="black", linewidth=0.6)
    ax_late.set_yscale("symlog", linthresh=100)
    ax_late.set_ylabel("wake lateness (µs)")
    ax_late.set_xlabel("time since the first frame (s)")
    ax_late.grid(alpha=0.3)
    ax_late.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    timeline = save(fig, out_dir, f"{name}-timeline.png")

    histogram = plot_histogram(tr, values, out_dir, name, title)
    percentiles = plot_percentiles(tr, out_dir, name, title)
    display = plot_display(path, out_dir, name, title)
    return [timeline, histogram, percentiles] + ([display] if display else [])


def trace_phases(tr):
    """The phases the histogram and percentiles split by (at most 10), or the whole run."""
    return tr.phases if 1 < len(tr.phases) <= len(PHASE_COLOURS) else [("whole run", 0, 0, 0, len(tr.time_s) - 1)]


def plot_histogram(tr, values, out_dir, name, title):
    """NAME-histogram.png: the intervals, one step outline per phase."""
    fig, ax = plt.subplots(figsize=(9, 5))
    lo = min(values)
    hi = max(values[min(len(values) - 1, int(0.995 * len(values)))], max(tr.target_ms) * 1.05)
    bins = 60
    edges = [lo + (hi - lo) * k / bins for k in range(bins + 1)] if hi > lo else [lo - 0.5, lo + 0.5]
    for k, (phase, _, _, first, last) in enumerate(trace_phases(tr)):
        data = [tr.interval_ms[i] for i in range(first, last + 1) if tr.interval_ms[i] is not None]
        data = [min(v, hi) for v in data]   # the last bin counts everything above
        if data:
            ax.hist(data, bins=edges, histtype="step", linewidth=1.4, color=PHASE_COLOURS[k % len(PHASE_COLOURS)],
                    label=f"{shorten(phase)} ({len(data)} frames)")
    for target in sorted(set(tr.target_ms)):
        ax.axvline(target, color="black", linestyle="--", linewidth=1)
    ax.plot([], [], "--", color="black", label="target period")
    ax.set_yscale("log")
    ax.set_xlabel(f"frame interval (ms); the last bin holds everything ≥ {hi:.1f} ms")
    ax.set_ylabel("frames (log)")
    ax.set_title(f"Frame-interval histogram: {title}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, f"{name}-histogram.png")


def plot_percentiles(tr, out_dir, name, title):
    """NAME-percentiles.png: CapFrameX's frame-time percentiles, a phase's
    frame time at each percentile, so its tail reads off at 99 and 99.9. Per
    phase: presents (solid), shown frames where reported (dashed), then wakes
    (thin, dotted), each labelled with its p99 and max."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for k, (phase, _, _, first, last) in enumerate(trace_phases(tr)):
        for series, what, style, width in ((tr.present_ms, "presents", "-", 1.6), (tr.shown_ms, "shown", "--", 1.4),
                                           (tr.interval_ms, "wakes", ":", 1.0)):
            data = sorted(series[i] for i in range(first, last + 1) if series[i] is not None)
            if data:
                xs = [100.0 * (i + 1) / len(data) for i in range(len(data))]
                ax.step(xs, data, where="post", linewidth=width, linestyle=style,
                        color=PHASE_COLOURS[k % len(PHASE_COLOURS)],
                        label=f"{what}, {shorten(phase)} (p99 {nearest_rank(data, 0.99):.2f} ms, max {data[-1]:.1f} ms)")
    for target in sorted(set(tr.target_ms)):
        ax.axhline(target, color="black", linestyle="--", linewidth=1)
    ax.plot([], [], "--", color="black", label="target period")
    ax.set_yscale("log")
    ax.set_xlim(0, 100)
    ax.set_xlabel("percentile of frames (%)")
    ax.set_ylabel("interval (ms, log)")
    ax.set_title(f"Frame-time percentiles (presents, shown, wakes): {title}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return save(fig, out_dir, f"{name}-percentiles.png")


def plot_display(path, out_dir, name, title):
    """NAME-display.png: displayed intervals against wake intervals; None
    when the trace has no display column or no displayed frame."""
    t = Table(path, TRACE_COLUMNS)
    if "MsBetweenDisplayChange" not in t.columns:
        return None
    time_s = t.numbers("TimeInSeconds")
    wake = t.numbers("MsBetweenSimulationStart", allow_missing=True)
    shown = t.numbers("MsBetweenDisplayChange", allow_missing=True)
    latency = t.numbers("MsDisplayLatency", allow_missing=True)   # present: Trace checked it
    shown_points = [(time_s[i], shown[i]) for i in range(len(time_s)) if shown[i] is not None]
    if len(shown_points) < 2:
        return None
    wake_points = [(time_s[i], wake[i]) for i in range(len(time_s)) if wake[i] is not None]
    if not wake_points:
        return None

    def median(values):
        values = sorted(values)
        return values[len(values) // 2]

    fig, (ax, ax_hist) = plt.subplots(1, 2, figsize=(13.5, 4.8), gridspec_kw={"width_ratios": [2.2, 1]})
    wake_ms = [p[1] for p in wake_points]
    shown_ms = [p[1] for p in shown_points]
    ax.plot([p[0] for p in wake_points], wake_ms, "-", color="#1f77b4", linewidth=0.8,
            label=f"between wakes (MsBetweenSimulationStart), median {median(wake_ms):.2f} ms")
    ax.plot([p[0] for p in shown_points], shown_ms, "-", color="#c020c0", linewidth=1.1,
            label=f"between frames on screen (MsBetweenDisplayChange), median {median(shown_ms):.2f} ms")
    lat = [v for v in latency if v is not None]
    ax.plot([], [], " ", label="wake to on screen (MsDisplayLatency), " +
            (f"median {median(lat):.1f} ms" if lat else "none reported"))
    values = sorted(wake_ms + shown_ms)
    top = values[min(len(values) - 1, int(0.995 * len(values)))] * 1.3
    ax.set_ylim(0, top)
    ax.set_xlabel("time since the first frame (s)")
    ax.set_ylabel("interval (ms)")
    ax.set_title(f"Displayed vs wake intervals: {title}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    edges_hi = top
    edges = [edges_hi * k / 60 for k in range(61)]
    ax_hist.hist([min(v, edges_hi) for v in wake_ms], bins=edges, histtype="step", color="#1f77b4", linewidth=1.4,
                 label=f"wakes ({len(wake_ms)})")
    ax_hist.hist([min(v, edges_hi) for v in shown_ms], bins=edges, histtype="step", color="#c020c0", linewidth=1.4,
                 label=f"on screen ({len(shown_ms)})")
    ax_hist.set_yscale("log")
    ax_hist.set_xlabel("interval (ms)")
    ax_hist.set_ylabel("frames (log)")
    ax_hist.grid(alpha=0.3)
    ax_hist.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, f"{name}-display.png")


# --- a recording against its replay -----------------------------------------


def recorded_intervals(path):
    """(presents ms, shown ms, what it is) of a recording as pacer-replay
    reads it: a demo trace, a PresentMon CSV's busiest swap chain in time
    order, or a CapFrameX capture's longest run. None where a frame was not
    shown or a cell is NA (CapFrameX writes 0)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror.lower() if e.strerror else 'cannot read'}") from None
    if head.startswith(b"{"):
        if os.path.getsize(path) > MAX_CSV_BYTES:
            raise InputError(f"{path}: more than the {MAX_CSV_BYTES >> 20} MiB a capture may have")
        try:
            with open(path, encoding="utf-8-sig") as f:
                runs = json.load(f)["Runs"]
            run = max(runs, key=lambda r: len(r["CaptureData"]["MsBetweenPresents"]))["CaptureData"]
            presents = [float(v) or None for v in run["MsBetweenPresents"]]
            dropped = run.get("Dropped") or [False] * len(presents)
            shown = [None if d or not v else float(v) for v, d in
                     zip(run.get("MsBetweenDisplayChange") or [0] * len(presents), dropped)]
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            raise InputError(f"{path}: not a CapFrameX capture pacer-replay reads: {type(e).__name__}") from None
        return presents, shown, "CapFrameX"
    t = Table(path, [])
    lower = {c.lower(): c for c in t.columns}
    present = next((lower[c] for c in ("msbetweenpresents", "frametime") if c in lower), None)
    if present is None:
        raise InputError(f"{path}: no MsBetweenPresents or FrameTime column: not a recording pacer-replay reads")
    shown_column = next((lower[c] for c in ("msbetweendisplaychange", "displayedtime") if c in lower), None)
    time_column = next((lower[c] for c in ("timeinqpc", "cpustartqpc", "timeinseconds") if c in lower), None)
    rows = range(len(t.rows))
    chain = [lower.get(c) for c in ("application", "processid", "swapchainaddress")]
    if all(chain):
        counts = {}
        for i in rows:
            key = tuple(t.rows[i][c] for c in chain)
            counts[key] = counts.get(key, 0) + 1
        busiest = max(counts, key=counts.get)
        rows = [i for i in rows if tuple(t.rows[i][c] for c in chain) == busiest]
    if time_column:   # a QPC count passes any bound on a drawn value: it only orders the rows

        def when(i):
            try:
                return float(t.rows[i][time_column])
            except ValueError:
                return 0.0
        rows = sorted(rows, key=when)
    presents = [t.number(i, present, allow_missing=True) for i in rows]
    shown = ([t.number(i, shown_column, allow_missing=True) for i in rows] if shown_column
             else [None] * len(presents))
    return presents, shown, "PresentMon" if all(chain) or "frametime" in lower else "trace"


def plot_replay(recording, trace, out_dir, name=None):
    """NAME-replay.png: the recording's presents and shown frames above the
    replay's (frame by frame), and both at each percentile."""
    rec_presents, rec_shown, kind = recorded_intervals(recording)
    tr = Trace(trace)
    name = name or os.path.splitext(os.path.basename(recording))[0]
    series = [("the recording", rec_presents, rec_shown), ("the replay", tr.present_ms, tr.shown_ms)]
    fig = plt.figure(figsize=(14, 6.5))
    grid = fig.add_gridspec(2, 2, width_ratios=[2.2, 1])
    ax_pct = fig.add_subplot(grid[:, 1])
    top = 0.0
    axes = []
    for row, (label, presents, shown) in enumerate(series):
        ax = fig.add_subplot(grid[row, 0], sharey=axes[0] if axes else None)
        axes.append(ax)
        for values, colour_, what in ((presents, "#1f77b4", "presents: swap to swap"),
                                      (shown, "#2ca02c", "shown: on screen to on screen")):
            points = [(i, v) for i, v in enumerate(values) if v is not None]
            if not points:
                continue
            ax.plot([p[0] for p in points], [p[1] for p in points], "-", color=colour_, linewidth=0.9, label=what)
            ordered = sorted(p[1] for p in points)
            top = max(top, ordered[min(len(ordered) - 1, int(0.995 * len(ordered)))])
            qs = [k / 1000 for k in range(1, 1000)]
            ax_pct.plot([100 * q for q in qs], [nearest_rank(ordered, q) for q in qs], color=colour_,
                        linestyle="--" if row == 0 else "-", linewidth=1.2, label=f"{label}: {what.split(':')[0]}")
        ax.set_title(f"{label} ({shown_kind(kind) if row == 0 else 'pacer-replay --trace'})", fontsize=10)
        ax.set_ylabel("interval (ms)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    if top <= 0:
        plt.close(fig)
        raise InputError(f"{recording}: no present or shown interval to draw")
    axes[0].set_ylim(0, top * 1.3)
    axes[1].set_xlabel("frame")
    ax_pct.set_ylim(0, top * 1.3)
    ax_pct.set_xlabel("percentile")
    ax_pct.set_ylabel("interval (ms)")
    ax_pct.set_title("at each percentile", fontsize=10)
    ax_pct.grid(alpha=0.3)
    ax_pct.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"{name}: the recording against its replay")
    fig.tight_layout()
    return [save(fig, out_dir, f"{name}-replay.png")]


def shown_kind(kind):
    return {"trace": "pacer-demo trace", "PresentMon": "PresentMon capture", "CapFrameX": "CapFrameX capture"}[kind]


# --- command line ------------------------------------------------------------


def main(argv=None):
    parser = OneLineParser(prog="plots.py", description="PNG figures from pacer-bench CSVs and "
                                     "pacer-demo traces.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("bench", help="every experiment CSV in a pacer-bench --csv-dir directory")
    p.add_argument("csv_dir")
    p.add_argument("--out", default=".", help="output directory (default: .)")
    for name, _ in BENCH_FILES:
        p = sub.add_parser(name[:-4], help=f"one {name}-style file")
        p.add_argument("file")
        p.add_argument("--out", default=".", help="output directory (default: .)")
    p = sub.add_parser("trace", help="a pacer-demo --trace CSV")
    p.add_argument("file")
    p.add_argument("--out", default=".", help="output directory (default: .)")
    p.add_argument("--name", help="file name prefix (default: the trace's name)")
    p.add_argument("--title", help="title suffix (default: the name)")
    p = sub.add_parser("replay", help="a recording against its replay (pacer-replay --trace)")
    p.add_argument("recording")
    p.add_argument("trace")
    p.add_argument("--out", default=".", help="output directory (default: .)")
    p.add_argument("--name", help="file name prefix (default: the recording's name)")
    args = parser.parse_args(argv)
    try:
        check_out_dir(args.out)
        if args.command in ("trace", "replay") and args.name is not None:
            if not args.name or "/" in args.name or "\0" in args.name or args.name in (".", ".."):
                raise InputError(f"--name '{args.name[:40]}': a file name prefix, without '/'")
            if len(os.fsencode(args.name)) > MAX_NAME_BYTES:
                raise InputError(f"--name: {len(os.fsencode(args.name))} bytes; at most {MAX_NAME_BYTES}")
        if args.command == "bench":
            written = plot_bench_dir(args.csv_dir, args.out)
        elif args.command == "trace":
            written = plot_trace(args.file, args.out, args.name, args.title)
        elif args.command == "replay":
            written = plot_replay(args.recording, args.trace, args.out, args.name)
        else:
            written = flatten([dict((n[:-4], fn) for n, fn in BENCH_FILES)[args.command](args.file, args.out)])
    except InputError as e:
        print(f"plots.py: {e}", file=sys.stderr)
        return 2
    except (ValueError, OverflowError, MemoryError) as e:   # what the drawing itself refused
        print(f"plots.py: cannot draw this input: {type(e).__name__}: {str(e).splitlines()[0][:200]}",
              file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
