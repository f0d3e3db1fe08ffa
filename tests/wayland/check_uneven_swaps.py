#!/usr/bin/python3
"""check_uneven_swaps.py: check_auto.py's --or-uneven-timer evidence on
scripted traces, so no compositor runs.

Where auto leaves vsync because the swaps returned unevenly, its reason
states a count ("in 8 of 17"); the checker accepts the timer only where the
trace's own vsync intervals up to that decision count the same. Each case
below is a trace and a reason, and whether they must agree.

Usage: check_uneven_swaps.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_auto  # noqa: E402

PERIOD_MS = 16.667
# 17 probe intervals around 16.3 ms, 8 of them off by more than 0.5 ms.
PROBE = [16.3, 17.9, 16.0, 14.9, 16.1, 17.0, 16.2, 18.0, 15.1, 16.3, 17.9, 15.1, 16.6, 16.0, 16.8, 16.5, 17.1]
PROBE_REASON = "auto -> timer: vsync presents off their median (16.3 ms) by > 0.5 ms in 8 of 17; retry in 64 s"


def trace(vsync_intervals, reason, decided_on_vsync_row, timer_rows=5):
    """Rows as the demo writes them: a probing decision, the vsync frames
    (two that filled the queue first), then the timer's. The decision's row
    is vsync's last where the pacer decided at its present, else the
    timer's first."""
    rows = [{"Frame": "0", "Strategy": "vsync", "MsBetweenPresents": "NA",
             "Decision": "auto -> vsync (probing): 60 Hz / 1, measuring presents"}]
    for ms in [2.4, 13.3] + vsync_intervals:
        rows.append({"Frame": str(len(rows)), "Strategy": "vsync", "MsBetweenPresents": f"{ms:.4f}", "Decision": ""})
    for i in range(timer_rows):
        rows.append({"Frame": str(len(rows)), "Strategy": "timer", "MsBetweenPresents": "2.9" if i == 0 else "16.6667",
                     "Decision": ""})
    at = len(rows) - timer_rows - 1 if decided_on_vsync_row else len(rows) - timer_rows
    rows[at]["Decision"] = reason
    return rows


def stalled_start():
    """30 Hz on a 60 Hz output (the vsync period 33.3 ms): frame 1's present
    unknown, so frame 2's sample is its frame-start interval, 171.1 ms after
    a stall at start-up; one frame re-anchored after a stall (left out);
    the decision at vsync's last present."""
    def row(frame, strategy, present_ms, start_ms="16.6667", resynced="0", decision=""):
        return {"Frame": str(frame), "Strategy": strategy, "MsBetweenPresents": present_ms,
                "MsBetweenSimulationStart": start_ms, "Resynced": resynced, "Decision": decision}
    rows = [row(0, "vsync", "NA", "NA", "1", "auto -> vsync (probing): 60 Hz / 2, measuring presents"),
            row(1, "vsync", "NA"), row(2, "vsync", "NA", "171.1000")]
    for ms in PROBE[:7]:
        rows.append(row(len(rows), "vsync", f"{ms:.4f}"))
    rows.append(row(len(rows), "vsync", "250.0000", "250.0000", resynced="1"))
    for ms in PROBE[7:15]:
        rows.append(row(len(rows), "vsync", f"{ms:.4f}"))
    rows[-1]["Decision"] = STALLED_REASON
    rows.append(row(len(rows), "timer", "2.9000"))
    return rows


# 171.1 and 15 probe intervals (the one re-anchored frame not among them):
# median 16.3 ms, 8 off.
STALLED_REASON = "auto -> timer: vsync presents off their median (16.3 ms) by > 0.5 ms in 8 of 16; retry in 64 s"


def watch_reason(off, median_ms=16.4):
    return f"auto -> timer: vsync presents off their median ({median_ms:.1f} ms) by > 1.0 ms in {off} of the last 32"


# 32 watch intervals: 9 off by 1-4 ms (counted), 3 off by more than a quarter
# period (another rule's: not counted), the rest within 1 ms.
WATCH = [16.4] * 20 + [18.0, 14.8, 17.6, 15.2, 18.5, 14.0, 17.9, 15.0, 19.0] + [30.0, 33.0, 8.0]

# (what, rows, reason, expected: True agrees, False disagrees, None not an uneven reason)
CASES = [
    ("probe, decided at vsync's last present", trace(PROBE, PROBE_REASON, True), PROBE_REASON, True),
    ("probe, decided at the timer's first wait", trace(PROBE, PROBE_REASON, False), PROBE_REASON, True),
    ("probe, the reason counts one more", trace(PROBE, PROBE_REASON.replace("in 8", "in 9"), True),
     PROBE_REASON.replace("in 8", "in 9"), False),
    ("probe, the reason's median is another",
     trace(PROBE, PROBE_REASON.replace("(16.3", "(16.9"), True), PROBE_REASON.replace("(16.3", "(16.9"), False),
    ("probe, steady swaps", trace([16.3 + 0.01 * (i % 3) for i in range(17)], PROBE_REASON, True), PROBE_REASON, False),
    ("probe, fewer intervals than judged", trace(PROBE[:10], PROBE_REASON, True), PROBE_REASON, False),
    ("probe, a frame-start interval where the present before is unknown; a re-anchored frame left out",
     stalled_start(), STALLED_REASON, True),
    ("watch, a quarter period bounds the count", trace(WATCH, watch_reason(9), True), watch_reason(9), True),
    ("watch, counted without the bound", trace(WATCH, watch_reason(12), True), watch_reason(12), False),
    ("another reason", trace(PROBE, "auto -> timer: 60 Hz is not 144 Hz / n", True),
     "auto -> timer: 60 Hz is not 144 Hz / n", None),
]


def main():
    failed = 0
    for what, rows, reason, expected in CASES:
        got = check_auto.uneven_swaps(rows, reason, PERIOD_MS)
        agrees = None if got is None else got[0]
        ok = agrees == expected
        failed += not ok
        print(f"check_uneven_swaps: {'ok' if ok else 'FAIL'} {what}: {got[1] if got else 'not an uneven reason'}")
    if failed:
        print(f"check_uneven_swaps: FAIL: {failed} of {len(CASES)} cases")
        return 1
    print(f"check_uneven_swaps: ok, {len(CASES)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
