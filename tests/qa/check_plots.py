#!/usr/bin/python3
"""check_plots.py: tools/plots.py on small inputs, good and bad.

Good inputs (a synthetic trace with two phases and a missed frame, whose
per-phase figures are checked exactly; a real PresentMon capture against
that trace as its replay; tiny bench
CSVs of every experiment, the trade-off with two cells) must give non-empty
PNGs, one per trade-off cell. Bad inputs (a missing
file, a missing column, a value that is not a number, and the hostile ones:
a byte order mark, a folder or a device as a file, a --name or --out that
cannot be one, zeros on a log axis, sizes no figure can draw) must give exit
status 2 and one stderr line naming what is wrong, and write no PNG.

Usage: check_plots.py WORK_DIR
"""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(ROOT, "tools", "plots.py")
TRACE_HEADER = ("Frame,TimeInSeconds,MsBetweenSimulationStart,MsBetweenPresents,MsCPUBusy,MsCPUWait,MsSleeping,"
                "MsSpinning,MsWaitCpu,MsWakeLateness,DeadlineSeconds,MsTargetPeriod,Missed,Resynced,Strategy,"
                "Decision,Marker")


def fail(message):
    print("check_plots: FAIL: " + message)
    sys.exit(1)


def run(*args):
    return subprocess.run([sys.executable, PLOTS, *args], capture_output=True, text=True, timeout=120)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def trace_text(rows=120, drop_column=None, bad_cell=None):
    header = TRACE_HEADER.split(",")
    lines = []
    t = 0.0
    for i in range(rows):
        interval = "NA" if i == 0 else ("50.0000" if i == 70 else "16.6667")
        t += 0 if i == 0 else float(interval) / 1000
        marker = {0: "s.txt:3: set strategy=timer", 60: "s.txt:4: mark \"loaded, heavy\""}.get(i, "")
        row = [str(i), f"{t:.6f}", interval, "NA", "2.0", "14.6", "14.0", "0.3", "NA", "0.02", f"{t:.6f}",
               "16.6667", "2" if i == 70 else "0", "0", "timer", "",
               '"' + marker.replace('"', '""') + '"' if "," in marker else marker]
        lines.append(row)
    if bad_cell is not None:
        lines[bad_cell[0]][header.index(bad_cell[1])] = "fast"
    if drop_column is not None:
        k = header.index(drop_column)
        header = header[:k] + header[k + 1:]
        lines = [r[:k] + r[k + 1:] for r in lines]
    return ",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in lines)


TRADEOFF_HEADER = ("condition,hz,variant,kind,margin_us,round,frames,cpu_pct,wake_p50_us,wake_p99_us,wake_max_us,"
                   "off_pct,missed,final_margin_us,contended_pct,other_cpu_pct,steal_pct,load1")


def tradeoff_text(drop_column=None, pooled=True, bad_cpu=False):
    """Two cells of a pacer-bench tradeoff.csv: two rounds and the rounds
    pooled, for every kind of variant."""
    variants = [("timer", "adaptive", ""), ("fixed_0", "fixed", "0"), ("fixed_100", "fixed", "100"),
                ("fixed_400", "fixed", "400"), ("spin", "floor", ""), ("plain_abs", "seed", ""),
                ("seed_5ms", "seed", ""), ("sdl3", "peer", "")]
    rows = []
    for condition, hz in (("idle", "60"), ("contention", "144")):
        for k, (name, kind, margin) in enumerate(variants):
            cpu = {"spin": 99.0, "sdl3": 2.5}.get(name, 0.3 + 0.4 * k)
            p99 = {"spin": 0.5, "timer": 8.0}.get(name, 200.0 / (k + 1))
            for rnd in ("1", "2") + (("pooled",) if pooled else ()):
                rows.append([condition, hz, name, kind, margin, rnd, "120", f"{cpu:.3f}", "3.0", f"{p99:.3f}",
                             "900", "0.5", "0", "80" if kind == "adaptive" else "", "0", "12.0", "0.0", "1.5"])
    header = TRADEOFF_HEADER.split(",")
    if bad_cpu:
        rows[0][header.index("cpu_pct")] = "lots"
    if drop_column is not None:
        k = header.index(drop_column)
        header = header[:k] + header[k + 1:]
        rows = [r[:k] + r[k + 1:] for r in rows]
    return ",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in rows)


def expect_error(what, args, must_name, out_dir):
    before = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
    proc = run(*args)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 2 or len(lines) != 1 or any(n not in lines[0] for n in must_name):
        fail(f"{what}: expected exit 2 and one line naming {must_name}; got {proc.returncode}: {proc.stderr!r}")
    after = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
    if after - before:
        fail(f"{what}: wrote {sorted(after - before)} despite the error")


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "png")

    good = os.path.join(work, "good.csv")
    write(good, trace_text())
    proc = run("trace", good, "--out", out, "--name", "good")
    if proc.returncode != 0:
        fail(f"good trace: exit {proc.returncode}: {proc.stderr}")
    for name in ("good-timeline.png", "good-histogram.png", "good-percentiles.png"):
        path = os.path.join(out, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 10000:
            fail(f"good trace: {name} missing or nearly empty")
    # Per-phase figures: the 50 ms frame (row 70) is in the second phase only.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import plots  # noqa: E402
    phases = plots.phase_figures(plots.Trace(good))
    got = [(p["phase"], p["frames"], p["hitches"], p["over"][25.0], p["over"][33.3], p["over"][50.0],
            round(p["off_pct"], 3), round(p["max_ms"], 1), round(p["p50_ms"], 4)) for p in phases]
    want = [("start", 59, 0, 0, 0, 0, 0.0, 16.7, 16.6667),
            ("loaded, heavy", 60, 1, 1, 1, 0, 1.667, 50.0, 16.6667)]
    if got != want:
        fail(f"phase_figures: {got}, expected {want}")

    # A real PresentMon capture against a replay's trace (here the synthetic one).
    capture = os.path.join(ROOT, "tests", "replay", "data", "test_case_5.csv")
    proc = run("replay", capture, good, "--out", out, "--name", "capture")
    path = os.path.join(out, "capture-replay.png")
    if proc.returncode != 0 or not os.path.isfile(path) or os.path.getsize(path) < 10000:
        fail(f"replay plot: exit {proc.returncode}: {proc.stderr}; capture-replay.png missing or nearly empty")
    write(os.path.join(work, "no-presents.csv"), "a,b\n1,2\n")
    expect_error("replay of what is no recording", ["replay", os.path.join(work, "no-presents.csv"), good, "--out",
                 out], ["no-presents.csv", "MsBetweenPresents"], out)

    expect_error("missing file", ["trace", os.path.join(work, "nope.csv"), "--out", out], ["nope.csv"], out)
    no_col = os.path.join(work, "no-lateness.csv")
    write(no_col, trace_text(drop_column="MsWakeLateness"))
    expect_error("missing column", ["trace", no_col, "--out", out], ["no-lateness.csv", "MsWakeLateness"], out)
    bad_num = os.path.join(work, "bad-number.csv")
    write(bad_num, trace_text(bad_cell=(5, "MsTargetPeriod")))
    # Row 5 is line 7 (the header is line 1).
    expect_error("not a number", ["trace", bad_num, "--out", out], ["bad-number.csv:7", "MsTargetPeriod", "fast"], out)

    bench = os.path.join(work, "bench")
    os.makedirs(bench)
    write(os.path.join(bench, "accuracy.csv"),
          "condition,strategy,hz,frames,wake_mean_us,wake_sd_us,wake_p50_us,wake_p95_us,wake_p99_us,wake_max_us,"
          "interval_sd_us,interval_p99_us,off_pct,cpu_pct,spin_pct\n"
          "idle,sleep,60,600,80,10,75,100,120,300,20,130,1,0.3,0\n"
          "idle,spin,60,600,0.2,0.1,0.2,0.3,0.5,2,1,1,0,100,99\n"
          "idle,timer,60,600,5,2,4,8,10,40,3,12,0,0.8,0.5\n")
    write(os.path.join(bench, "sleep.csv"),
          "strategy,requested_us,reps,actual_mean_us,actual_sd_us,actual_p50_us,actual_p99_us,actual_max_us,"
          "over_mean_us,cpu_pct,spin_pct\n"
          "sleep,1,100,60,5,58,80,90,59,20,0\nsleep,1000,100,1070,5,1068,1100,1200,70,1,0\n"
          "spin,1,100,1.1,0,1.1,1.2,2,0.1,100,100\nspin,1000,100,1000.2,0,1000.2,1000.5,1001,0.2,100,100\n")
    write(os.path.join(bench, "cpu.csv"),
          "strategy,interval_ms,frames,cpu_pct,spin_pct,wake_p50_us,wake_p99_us,off_pct\n"
          "sleep,1,500,2,0,90,200,1\nsleep,10,50,0.3,0,90,200,1\nspin,1,500,100,99,0.2,1,0\nspin,10,50,100,99,0.2,1,0\n")
    write(os.path.join(bench, "heatmap.csv"),
          "strategy,period_ms,interval_ms,reps,rel_err_mean_pct,rel_err_p50_pct,rel_err_p99_pct,rel_err_max_pct,"
          "cpu_pct,spin_pct,preemptions,preempt_probability\n"
          "sleep,1,1,10,65,60,100,100,1,0,0,0.05\nsleep,1,16.7,10,5,5,6,6,1,0,0,0.05\n"
          "sleep,15.625,1,10,900,890,1000,1000,1,0,0,0.05\nsleep,15.625,16.7,10,50,50,60,60,1,0,0,0.05\n"
          "timer,1,1,10,0.5,0.4,1,1,1,0,0,0.05\ntimer,1,16.7,10,0.1,0.1,0.2,0.2,1,0,0,0.05\n"
          "timer,15.625,1,10,2,2,3,3,1,0,0,0.05\ntimer,15.625,16.7,10,0.3,0.3,0.5,0.5,1,0,0,0.05\n")
    write(os.path.join(bench, "tradeoff.csv"), tradeoff_text())
    bench_out = os.path.join(work, "bench-png")
    proc = run("bench", bench, "--out", bench_out)
    if proc.returncode != 0:
        fail(f"bench: exit {proc.returncode}: {proc.stderr}")
    for name in ("bench-accuracy.png", "bench-sleep.png", "bench-cpu.png", "bench-heatmap.png",
                 "bench-tradeoff-idle-60hz.png", "bench-tradeoff-contention-144hz.png"):
        path = os.path.join(bench_out, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 10000:
            fail(f"bench: {name} missing or nearly empty")
    write(os.path.join(work, "short-heatmap.csv"), "strategy,period_ms,interval_ms\nsleep,1,1\n")
    expect_error("bench missing column", ["heatmap", os.path.join(work, "short-heatmap.csv"), "--out", bench_out],
                 ["short-heatmap.csv", "rel_err_mean_pct"], bench_out)
    no_p99 = os.path.join(work, "no-p99-tradeoff.csv")
    write(no_p99, tradeoff_text(drop_column="wake_p99_us"))
    expect_error("tradeoff missing column", ["tradeoff", no_p99, "--out", bench_out],
                 ["no-p99-tradeoff.csv", "wake_p99_us"], bench_out)
    no_pooled = os.path.join(work, "no-pooled-tradeoff.csv")
    write(no_pooled, tradeoff_text(pooled=False))
    expect_error("tradeoff without pooled rows", ["tradeoff", no_pooled, "--out", bench_out],
                 ["no-pooled-tradeoff.csv", "pooled"], bench_out)
    bad_cpu = os.path.join(work, "bad-cpu-tradeoff.csv")
    write(bad_cpu, tradeoff_text(bad_cpu=True))
    # The first data row is line 2.
    expect_error("tradeoff not a number", ["tradeoff", bad_cpu, "--out", bench_out],
                 ["bad-cpu-tradeoff.csv:2", "cpu_pct", "lots"], bench_out)
    expect_error("empty bench dir", ["bench", out, "--out", bench_out], [out, "accuracy.csv"], bench_out)
    hostile_inputs(work, bench_out)
    print("check_plots: ok")


def without_matplotlib(trace, out_dir):
    """A Python without matplotlib (a pyenv one): one line naming the Python
    to use, exit 2, no traceback. The import is made to fail in this very
    Python, so the case does not depend on which others the machine has."""
    blocked = ("import runpy, sys; sys.modules['matplotlib'] = None; sys.argv = sys.argv[1:]; "
               "runpy.run_path(sys.argv[0], run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", blocked, PLOTS, "trace", trace, "--out", out_dir],
                          capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 2 or len(lines) != 1 or "has no matplotlib" not in lines[0] or "/usr/bin/python3" not in lines[0]:
        fail(f"without matplotlib: expected exit 2 and one line naming /usr/bin/python3, got {proc.returncode}: "
             f"{proc.stderr!r}")
    if os.path.isdir(out_dir) and os.listdir(out_dir):
        fail(f"without matplotlib: files written: {os.listdir(out_dir)}")


def hostile_inputs(work, bench_out):
    """Inputs that once gave tracebacks: one line, exit 2, no PNG."""
    trace = os.path.join(work, "hostile-trace.csv")
    write(trace, trace_text())
    without_matplotlib(trace, os.path.join(work, "no-matplotlib-out"))
    bom = os.path.join(work, "bom-trace.csv")
    write(bom, "\ufeff" + trace_text())
    # A byte order mark before the header (a spreadsheet's save) is read past.
    proc = run("trace", bom, "--out", os.path.join(work, "bom-out"))
    if proc.returncode != 0:
        fail(f"a trace with a byte order mark: exit {proc.returncode}: {proc.stderr!r}")
    expect_error("a folder as a trace", ["trace", work, "--out", bench_out], [work, "not a regular file"], bench_out)
    expect_error("a device as a trace", ["trace", "/dev/zero", "--out", bench_out], ["/dev/zero", "not a regular"],
                 bench_out)
    expect_error("--name with a folder", ["trace", trace, "--out", bench_out, "--name", "sub/dir/x"], ["--name"],
                 bench_out)
    expect_error("--name of 300 bytes", ["trace", trace, "--out", bench_out, "--name", "a" * 300], ["--name", "200"],
                 bench_out)
    expect_error("--out a file", ["trace", trace, "--out", trace], ["--out", "not a folder"], bench_out)
    expect_error("--out /dev/full", ["trace", trace, "--out", "/dev/full"], ["--out", "not a folder"], bench_out)
    display = os.path.join(work, "display-no-latency.csv")
    lines = trace_text().splitlines()
    write(display, "\n".join([lines[0] + ",MsBetweenDisplayChange"] + [l + ",16.7" for l in lines[1:]]) + "\n")
    expect_error("MsBetweenDisplayChange without MsDisplayLatency", ["trace", display, "--out", bench_out],
                 ["MsDisplayLatency"], bench_out)
    # A bad value in the display figure's own column refuses the trace
    # before the first figure: no PNG at all, not three of four.
    nan_display = os.path.join(work, "display-nan-latency.csv")
    write(nan_display, "\n".join([lines[0] + ",MsBetweenDisplayChange,MsDisplayLatency"] +
                                 [l + ",16.7," + ("nan" if i == 3 else "20.1") for i, l in enumerate(lines[1:])]) + "\n")
    expect_error("a NaN latency in the display columns", ["trace", nan_display, "--out", bench_out],
                 ["MsDisplayLatency", "not a number"], bench_out)
    for value in ("0", "-3", "1e-300"):
        sleep = os.path.join(work, "hostile-sleep.csv")
        write(sleep, f"strategy,requested_us,actual_mean_us,actual_p99_us\ntimer,1000,{value},1100\n")
        expect_error(f"sleep with {value}", ["sleep", sleep, "--out", bench_out], ["hostile-sleep.csv:2", "above 0"],
                     bench_out)
    accuracy = os.path.join(work, "hostile-accuracy.csv")
    write(accuracy, "condition,strategy,hz,wake_mean_us,wake_p99_us,wake_max_us,off_pct\n" +
          "".join(f"c{i},timer,60,1,2,3,0\n" for i in range(2000)))
    expect_error("accuracy of 2,000 conditions", ["accuracy", accuracy, "--out", bench_out], ["2000 conditions"],
                 bench_out)
    heatmap = os.path.join(work, "hostile-heatmap.csv")
    write(heatmap, "strategy,period_ms,interval_ms,rel_err_mean_pct\n" +
          "".join(f"sleep,{p},{i},1\n" for p in range(1, 501) for i in range(1, 3)))
    expect_error("heatmap of 500 periods", ["heatmap", heatmap, "--out", bench_out], ["500 periods", "at most"],
                 bench_out)


if __name__ == "__main__":
    main()
