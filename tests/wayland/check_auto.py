#!/usr/bin/python3
"""check_auto.py: runs pacer-demo under a headless Wayland compositor and
checks what the pacer decided and what the display did.

Starts its own compositor instance with tools/wayland.sh (a name of its own,
stopped at the end whatever happens), runs the demo with a trace and a
summary, and checks, as asked:

  --expect-strategy S[,S...] [--expect-interval N] [--expect-reason RE]
      the decision in force at the end of the run: what paced (vsync, timer;
      any of a list), the swap interval the pacer kept, and a regular
      expression its reason must match (the Decision column's last entry);
  --wake-median-ms P [--wake-tolerance-pct T]
      the median interval between frame starts over the last half of the run
      is within T % of P: the cadence the user asked for;
  --swap-median-ms P [--swap-tolerance-pct T]
      the median interval between swap returns is within T % of P: the
      output's real rate, where the swap blocks;
  --set-hz-at S:HZ --redecide-within-s W --redecide-reason RE
      S seconds after the first frame, the output's rate is changed (sway,
      tools/wayland.sh set-hz); a new decision whose reason matches RE must
      appear in the trace within W seconds of the change;
  --display-model-pct P
      with present feedback (weston): the pacer's display clock stayed locked
      for at least 90 % of the frames since it first locked, and its period
      is within P % of the median present-to-present interval;
  --prediction-within-ms M [--prediction-pct Q] [--prediction-bound-slack S]
      the predicted present (the trace's MsPresentPredictionError) is within
      M ms of the real one for at least Q % (95) of the displayed frames, or,
      where the display's own clock made that impossible, within S points (10)
      of the bound: what a predictor that knew each frame's number of
      refreshes exactly, and the fitted period, could get from the newest
      report shown before each wake (weston's repaint timer is dated from its
      last tick, so a late tick moves every frame already in flight);
  --present-median-ms P [--present-tolerance-pct T]
      the median present-to-present interval (feedback) is within T % of P;
  --display-period-ms P [--display-period-pct T] [--display-period-stated]
      the pacer's display clock is locked at the end, its period within T %
      (0.1) of the display's own (the mean of its one-refresh intervals over
      the run's last two thirds: mutter's frame clock slips on a busy
      machine) and within 2 % of P, the rate it was started at; with
      --display-period-stated, within T % of P itself (a display whose
      reports state their refresh: the fit takes it, and slips move the
      phase, not the period);
  --max-decisions N
      the trace holds at most N decisions (a change of the Decision column);
  --or-uneven-timer P
      auto may end on the timer (interval 0), having left vsync because the
      swaps returned unevenly ("vsync presents off their median (M ms) by
      > B ms in N of J"), where the trace's own last J swap-to-swap
      intervals up to that decision count N off their median too
      (check uneven_swaps): the compositor's swaps on this machine decided,
      by the rule as written. The decision check then passes on that, and
      vsync's checks (--swap-median-ms; --set-hz-at's re-decision, where auto
      left vsync before the change) give way to the timer's: the median
      frame-start interval over the run's last half within 2 % of P, the
      target's period.

Every check runs and prints one line; the run fails when any fails. With
--expect-fail NAME the run passes only when the check NAME failed: a negative
test, showing the checker catches what it should (a broken setup still fails:
the demo must run and the check must have been made).
Exit 77 (ctest's skip) when the compositor is not installed or we are not root.
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

import check_wayland

def die(message):
    print("check_auto: FAIL: " + message)
    sys.exit(1)


def median(values):
    values = sorted(values)
    if not values:
        return 0.0
    return values[len(values) // 2]


def pct_off(value, target):
    """How far value is from target, in % of target (100 with no target)."""
    return abs(value - target) / target * 100 if target > 0 else 100.0


def read_trace(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def prediction_bound(rows, period_ms, within_ms):
    """The % of displayed frames a predictor could place within within_ms
    knowing, at each frame's wake, the newest frame shown before it and the
    exact number of refreshes to its own: the newest time plus that many
    fitted periods. Frames with nothing shown before their wake count as
    missed (nothing to go on). An upper bound for any predictor that, like
    the pacer's, counts from reports, since it is given the count."""
    shown = []   # (wake ms, shown ms) of displayed frames, in frame order
    for r in rows:
        wake, latency = number_or_none(r.get("TimeInSeconds")), number_or_none(r.get("MsDisplayLatency"))
        if wake is not None and latency is not None:
            shown.append((wake * 1e3, wake * 1e3 + latency))
    if not shown or period_ms <= 0:
        return 0.0
    times = sorted(t for _, t in shown)
    close = 0
    for wake, at in shown:
        known = [t for t in times if t <= wake]
        if not known:
            continue
        gap = at - known[-1]
        close += abs(gap - round(gap / period_ms) * period_ms) <= within_ms
    return 100.0 * close / len(shown)


def number_or_none(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def column_numbers(rows, name):
    """The column's numbers, in row order; blanks and NA left out."""
    return [v for v in (number_or_none(r.get(name)) for r in rows) if v is not None]


# auto's reasons for leaving vsync whose swaps return unevenly: the probe's
# ("... in 8 of 17", off by more than 0.5 ms) and the watch's while vsync
# paces ("... in 9 of the last 32", off by more than 1 ms but within a quarter
# period; pacer/src/rules/common.h).
UNEVEN_REASON = re.compile(r"vsync presents off their median \(([0-9.]+) ms\) by > ([0-9.]+) ms "
                           r"in ([0-9]+) of (the last )?([0-9]+)")


def decision_row(rows, reason):
    """The index of the last row whose Decision is reason (where the decision
    in force was made), or None."""
    return max((i for i, r in enumerate(rows) if r["Decision"] == reason), default=None)


def uneven_swaps(rows, reason, period_ms):
    """Where reason is auto leaving vsync for uneven swaps: (agrees, text),
    agrees where the trace's swap-to-swap intervals up to that decision
    count what the reason says (the pacer's median is the upper middle, as
    median() here). None for any other reason."""
    m = UNEVEN_REASON.search(reason)
    if not m:
        return None
    said_median, bar_ms, said_off = float(m.group(1)), float(m.group(2)), int(m.group(3))
    watch, judged = m.group(4) is not None, int(m.group(5))
    at = decision_row(rows, reason)
    if at is None:
        return False, f"no row of the trace carries the decision \"{reason}\""
    # What the pacer watched (Pacer::Impl's call of Arbiter::watch): each
    # vsync frame's present-to-present interval, or its frame-start interval
    # where the present before it is unknown, frame 0 and re-anchored
    # frames left out; up to the decision's row, which is vsync's last frame
    # where the pacer decided at its present, the timer's first where it
    # decided at the wait after.
    intervals = []
    for r in rows[:at + 1]:
        if r["Strategy"] != "vsync" or r["Frame"] == "0" or r.get("Resynced") == "1":
            continue
        value = number_or_none(r.get("MsBetweenPresents"))
        value = value if value is not None else number_or_none(r.get("MsBetweenSimulationStart"))
        if value is not None:
            intervals.append(value)
    intervals = intervals[-judged:]
    if len(intervals) < judged:
        return False, f"the trace holds {len(intervals)} vsync swap intervals up to the decision, not the {judged} it judged"
    around = median(intervals)
    off = sum(1 for v in intervals
              if abs(v - around) > bar_ms and (not watch or abs(v - around) <= 0.25 * period_ms))
    agrees = off == said_off and abs(around - said_median) <= 0.051
    return agrees, (f"the trace's last {judged} vsync swap intervals up to it (frame {rows[at]['Frame']}) hold {off} off "
                    f"their median {around:.3f} ms by > {bar_ms:g} ms" + (" (within a quarter period)" if watch else "") +
                    f": {'as' if agrees else 'not as'} the reason says")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    check_wayland.add_run_arguments(parser, size="320x240")
    parser.add_argument("--env", action="append", default=[], help="K=V for the demo's environment")
    parser.add_argument("--expect-strategy", default="")
    parser.add_argument("--expect-interval", type=int, default=-1)
    parser.add_argument("--expect-reason", default="")
    parser.add_argument("--wake-median-ms", type=float, default=0)
    parser.add_argument("--wake-tolerance-pct", type=float, default=2)
    parser.add_argument("--swap-median-ms", type=float, default=0)
    parser.add_argument("--swap-tolerance-pct", type=float, default=2)
    parser.add_argument("--present-median-ms", type=float, default=0)
    parser.add_argument("--display-period-ms", type=float, default=0)
    parser.add_argument("--display-period-pct", type=float, default=0.1)
    parser.add_argument("--display-period-stated", action="store_true")
    parser.add_argument("--max-decisions", type=int, default=0)
    parser.add_argument("--present-tolerance-pct", type=float, default=2)
    parser.add_argument("--set-hz-at", default="", help="S:HZ")
    parser.add_argument("--redecide-within-s", type=float, default=0)
    parser.add_argument("--redecide-reason", default="")
    parser.add_argument("--display-model-pct", type=float, default=0)
    parser.add_argument("--prediction-within-ms", type=float, default=0)
    parser.add_argument("--prediction-pct", type=float, default=95)
    parser.add_argument("--prediction-bound-slack", type=float, default=10)
    parser.add_argument("--or-uneven-timer", type=float, default=0, metavar="P")
    parser.add_argument("--expect-fail", default="", help="the name of the check that must fail")
    args = parser.parse_args()
    demo_args = check_wayland.demo_args_of(args)

    skip = check_wayland.skip_reason(args.compositor, args.xwayland)
    if skip:
        print("check_auto: SKIP: " + skip)
        return check_wayland.SKIP

    os.makedirs(args.out_dir, exist_ok=True)
    summary_path = os.path.join(args.out_dir, "summary.json")
    trace_path = os.path.join(args.out_dir, "trace.csv")
    for path in (summary_path, trace_path, os.path.join(args.out_dir, "verdicts.txt")):
        if os.path.exists(path):
            os.remove(path)
    name = f"ctest-auto-{args.compositor}-{args.backend}-{os.getpid()}"
    env = check_wayland.client_env(args, die)
    for pair in args.env:
        if "=" not in pair:
            die(f"--env {pair}: expected K=V")
        key, value = pair.split("=", 1)
        env[key] = value

    set_hz_at_s, set_hz = 0.0, 0.0
    if args.set_hz_at:
        try:
            at, hz = args.set_hz_at.split(":")
            set_hz_at_s, set_hz = float(at), float(hz)
        except ValueError:
            die(f"--set-hz-at {args.set_hz_at}: expected SECONDS:HZ")

    set_hz_monotonic = None
    started = check_wayland.run(check_wayland.start_command(args, name))
    print(started.stdout, end="")
    try:
        if started.returncode != 0:
            die(f"{args.compositor} did not start")
        env.update(check_wayland.parse_env(started.stdout))
        if args.xwayland:
            env.pop("WAYLAND_DISPLAY", None)   # an X11 client: DISPLAY alone
        cmd = check_wayland.priority_prefix() + [args.demo, "--backend", args.backend, "--summary",
                                                 "--summary-json", summary_path, "--trace", trace_path] + demo_args
        print("check_auto: " + " ".join(cmd))
        launched = time.monotonic()
        demo = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if args.set_hz_at:
            # The first frame comes after the window opens (well under a
            # second here); the time of the change is taken from the clock the
            # pacer uses (CLOCK_MONOTONIC, Python's time.monotonic), so the
            # window's start-up does not blur the measure.
            time.sleep(set_hz_at_s + 0.3)
            # Timed from the call: the output changes while swaymsg runs, and
            # a client may see it before the call returns.
            set_hz_monotonic = time.monotonic()
            changed = check_wayland.run([args.wayland_sh, "set-hz", f"{set_hz:g}", "--name", name])
            print(changed.stdout, end="")
            if changed.returncode != 0:
                demo.kill()
                die(f"set-hz {set_hz:g} failed")
        try:
            output, _ = demo.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            demo.kill()
            die("pacer-demo did not end within 90 s")
        print(output, end="")
        print(f"check_auto: the demo ran {time.monotonic() - launched:.1f} s")
        if demo.returncode != 0:
            die(f"pacer-demo exited {demo.returncode}")
    finally:
        print(check_wayland.run([args.wayland_sh, "stop", "--name", name]).stdout, end="")

    with open(summary_path) as f:
        info = json.load(f)["run"]
    rows = read_trace(trace_path)
    if len(rows) < 20:
        die(f"the trace holds {len(rows)} rows, too few to judge")

    results = {}   # check name -> (passed, line)

    verdicts_path = os.path.join(args.out_dir, "verdicts.txt")   # the figures, also for passing runs
    with open(verdicts_path, "w"):
        pass

    def check(check_name, passed, line):
        results[check_name] = (passed, line)
        text = f"check_auto: {'ok' if passed else 'FAIL'} {check_name}: {line}"
        print(text)
        with open(verdicts_path, "a") as f:
            f.write(text + "\n")

    def field(key):
        if key not in info:
            die(f"the summary has no '{key}'")
        return info[key]

    # --or-uneven-timer: auto ended on the timer for uneven swaps, and the
    # trace agrees; where it did so only after --set-hz-at's change, the
    # change was seen first and is judged as usual.
    uneven = False
    if args.or_uneven_timer > 0 and field("decision_in_force") == "timer" and \
            int(field("decision_swap_interval")) == 0:
        reason = field("decision_reason")
        evidence = uneven_swaps(rows, reason, args.or_uneven_timer)
        if evidence is not None:
            row = decision_row(rows, reason)
            at = float(rows[row]["TimeInSeconds"]) if row is not None else 0.0
            before_change = not args.set_hz_at or \
                at < set_hz_monotonic - int(field("first_wake_ns")) * 1e-9
            if before_change:
                uneven = True
                check("uneven_swaps", evidence[0], f"auto left vsync at {at:.3f} s for uneven swaps; " + evidence[1])
    if args.expect_strategy:
        in_force = field("decision_in_force")
        interval = int(field("decision_swap_interval"))
        reason = field("decision_reason")
        line = f"ended on {in_force}, swap interval {interval}: \"{reason}\""
        passed = in_force in args.expect_strategy.split(",")
        if args.expect_interval >= 0:
            passed = passed and interval == args.expect_interval
        if args.expect_reason:
            passed = passed and re.search(args.expect_reason, reason) is not None
        want = f"expected {args.expect_strategy}" + (f", interval {args.expect_interval}" if args.expect_interval >= 0 else "") + \
            (f", reason matching /{args.expect_reason}/" if args.expect_reason else "")
        if uneven:
            passed, want = True, want + ", or the timer for uneven swaps (uneven_swaps)"
        check("decision", passed, line + "; " + want)
    if uneven:
        # vsync did not pace: the timer's cadence is what the user sees.
        args.swap_median_ms = 0
        if args.wake_median_ms <= 0:
            args.wake_median_ms, args.wake_tolerance_pct = args.or_uneven_timer, 2

    if args.wake_median_ms > 0:
        half = rows[len(rows) // 2:]
        wakes = column_numbers(half, "MsBetweenSimulationStart")
        m = median(wakes)
        off = pct_off(m, args.wake_median_ms)
        check("wake_cadence", off <= args.wake_tolerance_pct,
              f"median frame-start interval over the last {len(wakes)} frames {m:.3f} ms, {off:.2f} % off "
              f"{args.wake_median_ms:.3f} ms (allowed {args.wake_tolerance_pct:g} %)")

    if args.swap_median_ms > 0:
        m = float(field("swap_return_interval_median_ms"))
        off = pct_off(m, args.swap_median_ms)
        check("swap_rate", off <= args.swap_tolerance_pct,
              f"median swap-return interval {m:.3f} ms, {off:.2f} % off {args.swap_median_ms:.3f} ms "
              f"(allowed {args.swap_tolerance_pct:g} %)")

    if args.present_median_ms > 0:
        m = float(field("present_interval_median_ms"))
        presented = int(field("presented_frames"))
        off = pct_off(m, args.present_median_ms)
        check("present_rate", presented >= 20 and off <= args.present_tolerance_pct,
              f"{presented} frames presented, median present-to-present {m:.3f} ms, {off:.2f} % off "
              f"{args.present_median_ms:.3f} ms (allowed {args.present_tolerance_pct:g} %)")

    if args.display_period_ms > 0:
        model_ms = float(field("display_clock_period_ms"))
        locked = field("display_clock_locked") == "yes"
        # The display's own period, as its reports keep it: the mean of its
        # one-refresh intervals over the run's last two thirds. mutter's
        # software frame clock slips when its machine is busy, and its grid
        # then runs slower than the rate it was started at (16.76-16.83 ms at
        # 60 Hz on the 2-core VM); the fit must follow the display, and stay
        # near the started rate (within 2 %).
        one = [v for v in (number_or_none(r.get("MsBetweenDisplayChange")) for r in rows[len(rows) // 3:])
               if v is not None and 0.75 * args.display_period_ms < v < 1.25 * args.display_period_ms]
        own_ms = statistics.mean(one) if len(one) >= 20 else args.display_period_ms
        if args.display_period_stated:
            own_ms = args.display_period_ms
        off = pct_off(model_ms, own_ms)
        nominal_off = pct_off(model_ms, args.display_period_ms)
        check("display_period", locked and off <= args.display_period_pct and nominal_off <= 2,
              f"display clock {'locked' if locked else 'not locked'} at the end, period {model_ms:.4f} ms, "
              f"{off:.3f} % off the display's " +
              ("stated" if args.display_period_stated else "own") + f" {own_ms:.4f} ms ({len(one)} one-refresh intervals; allowed "
              f"{args.display_period_pct:g} %), {nominal_off:.2f} % off the started {args.display_period_ms:.4f} ms "
              "(allowed 2 %)")

    if args.max_decisions > 0:
        decisions = []
        for r in rows:
            if r["Decision"] and (not decisions or decisions[-1] != r["Decision"]):
                decisions.append(r["Decision"])
        check("decisions", len(decisions) <= args.max_decisions,
              f"{len(decisions)} decisions in {len(rows)} frames (allowed {args.max_decisions}): " +
              " | ".join(d[:60] for d in decisions))

    if args.set_hz_at and uneven:
        print(f"check_auto: the re-decision after the change to {set_hz:g} Hz is not judged: auto left vsync "
              "before it, for uneven swaps")
    elif args.set_hz_at:
        first_wake_s = int(field("first_wake_ns")) * 1e-9
        changed_at = set_hz_monotonic - first_wake_s
        pattern = re.compile(args.redecide_reason or ".")
        found = None
        for r in rows:
            t = float(r["TimeInSeconds"])
            if t >= changed_at and r["Decision"] and pattern.search(r["Decision"]):
                found = (t, r["Decision"])
                break
        if found is None:
            check("redecide", False, f"the output went to {set_hz:g} Hz at {changed_at:.3f} s; no decision matching "
                  f"/{args.redecide_reason}/ after it in the trace")
        else:
            delay = found[0] - changed_at
            check("redecide", delay <= args.redecide_within_s,
                  f"the output went to {set_hz:g} Hz at {changed_at:.3f} s; at {found[0]:.3f} s (+{delay:.3f} s, "
                  f"allowed {args.redecide_within_s:g} s): \"{found[1]}\"")

    if args.display_model_pct > 0:
        # Against the intervals the model was fitted from: a weston that slows
        # near the end of a busy run (0.58 % over the last 64 reports in a
        # CI run) moves the model, rightly, but hardly the whole run's median.
        changes = column_numbers(rows, "MsBetweenDisplayChange")
        samples = int(field("display_clock_samples"))
        recent = changes[-samples:] if samples > 0 else changes
        present_ms = median(recent)
        model_ms = float(field("display_clock_period_ms"))
        locked = field("display_clock_locked")
        locked_pct = float(field("display_clock_locked_pct"))
        off = pct_off(model_ms, present_ms)
        check("display_model_period", locked_pct >= 90 and off <= args.display_model_pct,
              f"display clock locked for {locked_pct:.1f} % of the frames since it first locked (needed 90 %; "
              f"{'locked' if locked == 'yes' else 'relocking'} at the end), period {model_ms:.4f} ms against "
              f"the median of the last {len(recent)} shown-to-shown intervals (the fit's samples) {present_ms:.4f} ms "
              f"(the whole run's present-to-present {float(field('present_interval_median_ms')):.4f} ms): {off:.3f} % "
              f"off (allowed {args.display_model_pct:g} %)")
    if args.prediction_within_ms > 0:
        errors = column_numbers(rows, "MsPresentPredictionError")
        within = sum(1 for e in errors if abs(e) <= args.prediction_within_ms)
        pct = 100.0 * within / len(errors) if errors else 0.0
        bound = prediction_bound(rows, float(field("display_clock_period_ms")), args.prediction_within_ms)
        needed = min(args.prediction_pct, bound - args.prediction_bound_slack)
        check("display_model_prediction", len(errors) >= 20 and pct >= needed,
              f"predicted present within {args.prediction_within_ms:g} ms of the real one for {within} of "
              f"{len(errors)} displayed frames ({pct:.1f} %, needed {needed:.1f} %: {args.prediction_pct:g} %, or "
              f"the bound {bound:.1f} % less {args.prediction_bound_slack:g}); "
              f"median |error| {median([abs(e) for e in errors]):.3f} ms")

    if not results:
        die("no check was asked for")
    failed = [n for n, (passed, _) in results.items() if not passed]
    if args.expect_fail:
        if args.expect_fail not in results:
            die(f"--expect-fail {args.expect_fail}: that check was not made")
        if args.expect_fail in failed:
            print(f"check_auto: OK: the check '{args.expect_fail}' failed, as this negative test expects")
            return 0
        die(f"the check '{args.expect_fail}' passed; this negative test expects the checker to catch it")
    if failed:
        die(", ".join(failed))
    print("check_auto: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
