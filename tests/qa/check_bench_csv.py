#!/usr/bin/python3
"""check_bench_csv.py: the trade-off CSV pacer-bench writes, read as QA reads it.

One short idle cell of the trade-off (every variant, two rounds) with
--csv-dir. Its tradeoff.csv must have every documented column; the library
timer's rows must carry its margin, spin stall share and sleep CPU as
numbers, and no other variant's rows any of the three; every variant must
have a "pooled" row; and tools/plots.py must draw the cell from it.

Usage: check_bench_csv.py PACER_BENCH WORK_DIR
"""

import csv
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(ROOT, "tools", "plots.py")
COLUMNS = ("condition,hz,variant,kind,margin_us,round,frames,cpu_pct,wake_p50_us,wake_p99_us,wake_max_us,off_pct,"
           "missed,final_margin_us,contended_pct,other_cpu_pct,steal_pct,load1,spin_stall_pct,sleep_cpu_us").split(",")
TIMER_ONLY = ("final_margin_us", "spin_stall_pct", "sleep_cpu_us")


def fail(message):
    print("check_bench_csv: FAIL: " + message)
    sys.exit(1)


def main():
    bench, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    csv_dir = os.path.join(work, "csv")
    done = subprocess.run([bench, "--experiments", "tradeoff", "--quick", "--conditions", "idle", "--hz", "60",
                           "--run-s", "0.1", "--rounds", "2", "--csv-dir", csv_dir],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        fail(f"pacer-bench exited {done.returncode}: {done.stderr.strip()[-400:]}")
    path = os.path.join(csv_dir, "tradeoff.csv")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            fail(f"{path}: columns {reader.fieldnames}, expected {COLUMNS}")
        rows = list(reader)
    variants = {r["variant"] for r in rows}
    if "timer" not in variants or len(variants) < 5:
        fail(f"{path}: variants {sorted(variants)}")
    for variant in variants:
        rounds = sorted(r["round"] for r in rows if r["variant"] == variant)
        if rounds != ["1", "2", "pooled"]:
            fail(f"{path}: {variant} has rounds {rounds}, expected 1, 2 and pooled")
    for r in rows:
        for column in TIMER_ONLY:
            if r["variant"] == "timer":
                try:
                    if float(r[column]) < 0:
                        raise ValueError
                except ValueError:
                    fail(f"{path}: timer round {r['round']}: {column} = {r[column]!r}, expected a number >= 0")
            elif r[column] != "":
                fail(f"{path}: {r['variant']} round {r['round']}: {column} = {r[column]!r}, expected empty")
    plots = os.path.join(work, "plots")
    drawn = subprocess.run([sys.executable, PLOTS, "tradeoff", path, "--out", plots],
                           capture_output=True, text=True, timeout=120)
    png = os.path.join(plots, "bench-tradeoff-idle-60hz.png")
    if drawn.returncode != 0 or not os.path.isfile(png) or os.path.getsize(png) == 0:
        fail(f"plots.py tradeoff exited {drawn.returncode}, {png} missing or empty: {drawn.stderr.strip()[-400:]}")
    print(f"check_bench_csv: ok ({len(rows)} rows, {len(variants)} variants, {png})")


if __name__ == "__main__":
    main()
