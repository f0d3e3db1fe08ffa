#!/usr/bin/python3
"""check_run.py: runs pacer-demo once, headless, and checks what it wrote.

Run under tools/headless.sh (the ctest wrapper does). Python standard library only,
so it runs with Debian's /usr/bin/python3 and nothing else.

Checks:
  - the demo exits 0;
  - the trace has exactly the expected frames (Frame = 0 .. N-1) and, when
    asked, a marker on a given frame;
  - the Chrome trace JSON parses and has a span for every frame that ended;
  - the summary JSON parses and counts the same frames and, when asked, holds
    given "run" entries and a sleeper line that matches a pattern (what the
    timer waits got, e.g. "waits with slack 1 ns, slice 100 us");
  - the screenshot has the window's size and shows the scene where the time
    steps put it: each square's colour at the position predicted from the
    trace's time (position = speed * sum of dt, wrapped in the stage), the
    newest tick of the motion strip, the white sweeping bar; and, with the
    overlay, a panel that differs from the scene's background.
  - the predictions can fail: the same squares checked a quarter second off
    must NOT be found (else a uniform picture would pass).
"""

import argparse
import csv
import json
import math
import os
import re
import struct
import subprocess
import sys
import zlib

SCENE_BACKGROUND = (23, 23, 28)   # render/scene.cpp kBackground (0.09, 0.09, 0.11)
MAX_DT_MS = 100.0                  # pacer::Config::max_dt_ns default, which the demo keeps
COLOUR_TOLERANCE = 12             # per channel, for blending and rounding


def fail(message):
    print("check_run: FAIL: " + message)
    sys.exit(1)


def read_png(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG: (width, height, rows of (r, g, b))."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        fail(f"{path}: unsupported PNG (depth {depth}, colour type {colour_type}, interlace {interlace})")
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def close(pixel, colour, tolerance=COLOUR_TOLERANCE):
    return all(abs(p - c) <= tolerance for p, c in zip(pixel, colour))


def fields(text):
    """'speed_px_s=480 size_px=48 rgb=0,204,255' -> dict of strings."""
    return dict(item.split("=", 1) for item in text.split())


def left_px(stage, speed, size, time_s):
    """render/scene.cpp Scene::left_px."""
    span = stage[2] - size
    return stage[0] if span <= 1 else stage[0] + math.fmod(speed * time_s, span)


def check_motion(rows):
    """Checks each row's MsDt against its DtMode's rule; returns the modes in order.

    raw:   MsDt is the measured interval (0 on frame 0), clamped at MAX_DT_MS
           as the pacer's dt is (demo/motion.h).
    paced: MsDt is the pacer's dt (MsPacerDt), which on a frame that kept the
           grid (not resynced) is the grid step: the period times 1 + Missed,
           clamped at MAX_DT_MS.
    fixed: FixedStep replayed: alpha_before * step + the pacer's dt equals
           (FixedSteps + FixedAlpha) * step, unless the cap (demo/motion.h,
           8 steps) dropped steps; the time shown advanced by
           (FixedSteps + FixedAlpha - alpha_before) * step.
    Tolerances cover the CSV's rounding (MsTargetPeriod has 0.1 us).
    """
    modes, alpha, checked = [], None, {"raw": 0, "paced": 0, "fixed": 0}
    for r in rows:
        k, mode = int(r["Frame"]), r["DtMode"]
        if mode not in checked:
            fail(f"trace frame {k}: DtMode {mode!r}")
        if not modes or modes[-1] != mode:
            modes.append(mode)
        dt, pacer_dt, period = float(r["MsDt"]), float(r["MsPacerDt"]), float(r["MsTargetPeriod"])
        if mode == "raw":
            interval = 0.0 if r["MsBetweenSimulationStart"] == "NA" else float(r["MsBetweenSimulationStart"])
            if abs(dt - min(interval, MAX_DT_MS)) > 1e-3:
                fail(f"trace frame {k}: raw MsDt {dt} is not the interval {interval} clamped at {MAX_DT_MS}")
        elif mode == "paced":
            if abs(dt - pacer_dt) > 1e-6:
                fail(f"trace frame {k}: paced MsDt {dt} is not the pacer's dt {pacer_dt}")
            # The pacer clamps dt at Config::max_dt_ns (default 100 ms), which
            # a long miss reaches: 12 grid steps at 120 Hz already do.
            step = min(period * (1 + int(r["Missed"])), MAX_DT_MS)
            if r["Resynced"] == "0" and r["Strategy"] != "sleep" and not r["Marker"] and abs(dt - step) > 1e-3:
                fail(f"trace frame {k}: paced MsDt {dt} is not the grid step {step}")
        else:
            steps, new_alpha = int(r["FixedSteps"]), float(r["FixedAlpha"])
            if not 0 <= new_alpha < 1 or not 0 <= steps <= 8:
                fail(f"trace frame {k}: fixed steps {steps}, alpha {new_alpha}")
            if alpha is None:   # the mode starts here: from an empty accumulator
                alpha = 0.0
            owed = alpha * period + pacer_dt
            if steps < 8 and abs(owed - (steps + new_alpha) * period) > 1e-3:
                fail(f"trace frame {k}: fixed: {owed:.6f} ms owed is not {steps} steps + alpha {new_alpha}")
            if abs(dt - (steps + new_alpha - alpha) * period) > 1e-3:
                fail(f"trace frame {k}: fixed MsDt {dt} is not (steps + alpha - previous alpha) * step")
            alpha = new_alpha
        if mode != "fixed":
            alpha = None
        checked[mode] += 1
    print(f"check_run: motion: MsDt follows its mode on every frame {checked}")
    return modes


def check_wait_point(rows, wait_point, work_ms):
    """Where the loop waited, from when the swap after each wake returned.

    The next row's MsCPUBusy is the time from this wake to the next wait's
    call; it holds this frame's work (at least work_ms of wall time, the
    synthetic load) and the swap. before_present: the swap comes right after
    the wake, before the work, so at least work_ms separates the swap's
    return from the next wait. frame_start: the swap comes after the work
    and render, and only the loop's bookkeeping follows it.
    """
    before = after = 0   # swaps before the work's end (gap >= the work), after it
    for r, following in zip(rows[1:], rows[2:]):
        if r["WaitPoint"] != wait_point:
            fail(f"trace frame {r['Frame']}: WaitPoint {r['WaitPoint']}, expected {wait_point}")
        if r["MsWakeToPresent"] == "NA":
            fail(f"trace frame {r['Frame']}: no swap followed the wake")
        gap = float(following["MsCPUBusy"]) - float(r["MsWakeToPresent"])
        if gap >= 0.9 * work_ms:
            before += 1
        else:
            after += 1
    # The swap-first order is certain (the load burns wall time after it);
    # the other can see a preempted bookkeeping gap now and then.
    ok = after == 0 if wait_point == "before_present" else before <= 0.1 * (before + after)
    if not ok:
        fail(f"wait point {wait_point}: {before} swaps came {0.9 * work_ms:.1f} ms or more before the next "
             f"wait (before the work), {after} after the work")
    print(f"check_run: wait point {wait_point}: {before} swaps before the frame's work, {after} after it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--frames", type=int, required=True, help="frames the run must have")
    parser.add_argument("--screenshot-frame", type=int, required=True)
    parser.add_argument("--expect-marker", action="append", default=[],
                        help="FRAME:TEXT, a marker the trace must hold on that frame")
    parser.add_argument("--expect-overlay", action="store_true")
    parser.add_argument("--expect-dt-modes", default="",
                        help="the dt modes the trace must use, in order, e.g. raw or paced,fixed")
    parser.add_argument("--expect-wait-point", default="", choices=["", "before_present", "frame_start"],
                        help="the wait point every frame after the first must show (needs the demo's "
                             "--work-ms W, W >= 2)")
    parser.add_argument("--expect-info", action="append", default=[],
                        help="KEY=VALUE, an entry the summary's \"run\" must hold exactly")
    parser.add_argument("--expect-sleeper", default="",
                        help="a regular expression the summary's sleeper line must match (re.search)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("args", nargs="*", help="more pacer-demo arguments (after --)")
    opts = parser.parse_args()

    os.makedirs(opts.out_dir, exist_ok=True)
    trace = os.path.join(opts.out_dir, "trace.csv")
    summary = os.path.join(opts.out_dir, "summary.json")
    chrome = os.path.join(opts.out_dir, "chrome-trace.json")
    shot = os.path.join(opts.out_dir, "screenshot.png")
    for path in (trace, summary, shot, chrome):
        if os.path.exists(path):
            os.remove(path)
    command = [opts.demo, "--trace", trace, "--chrome-trace", chrome, "--summary-json", summary,
               "--screenshot", shot,
               "--screenshot-frame", str(opts.screenshot_frame),
               "--width", str(opts.width), "--height", str(opts.height)] + opts.args
    print("check_run: " + " ".join(command))
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=90)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        fail(f"pacer-demo exited {run.returncode}: {run.stderr.strip()}")

    # --- the trace ---
    with open(trace, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != opts.frames:
        fail(f"trace has {len(rows)} frames, expected {opts.frames}")
    if [int(r["Frame"]) for r in rows] != list(range(opts.frames)):
        fail("trace frames are not 0 .. N-1 in order")
    for marker in opts.expect_marker:
        frame, text = marker.split(":", 1)
        if text not in rows[int(frame)]["Marker"]:
            fail(f"trace frame {frame}: marker {rows[int(frame)]['Marker']!r} lacks {text!r}")
    print(f"check_run: trace: {len(rows)} frames, markers {opts.expect_marker or 'none asked'}")

    # --- the Chrome trace: parses, one span per frame ended (frame K ends
    # when frame K+1's wait returns, so the last frame has none) ---
    with open(chrome) as f:
        events = json.load(f)["traceEvents"]
    spans = [e["name"] for e in events if e.get("ph") == "X" and e["name"].startswith("frame ")]
    if spans != [f"frame {k}" for k in range(opts.frames - 1)]:
        fail(f"chrome trace: {len(spans)} frame spans, expected frame 0 .. frame {opts.frames - 2}")
    print(f"check_run: chrome trace: {len(events)} events, {len(spans)} frame spans")

    # --- the summary ---
    with open(summary) as f:
        report = json.load(f)
    info, metrics = report["run"], report["metrics"]
    if int(metrics["frames"]) != opts.frames:
        fail(f"summary counts {metrics['frames']} frames, expected {opts.frames}")
    print(f"check_run: summary: backend {info['backend']}, swap interval {info['swap_interval']}, "
          f"refresh {info['refresh_hz']} Hz, {metrics['fps']:.1f} fps")
    for entry in opts.expect_info:
        key, value = entry.split("=", 1)
        if info.get(key) != value:
            fail(f"summary: run.{key} is {info.get(key)!r}, expected {value!r}")
    if opts.expect_sleeper and not re.search(opts.expect_sleeper, info["sleeper"]):
        fail(f"summary: sleeper {info['sleeper']!r} does not match {opts.expect_sleeper!r}")
    print(f"check_run: summary: sleeper {info['sleeper']!r}; entries {opts.expect_info or 'none asked'}")

    # --- the screenshot ---
    width, height, pixels = read_png(shot)
    if (width, height) != (opts.width, opts.height):
        fail(f"screenshot is {width}x{height}, expected {opts.width}x{opts.height}")
    if int(info["screenshot_frame"]) != opts.screenshot_frame:
        fail(f"screenshot of frame {info['screenshot_frame']}, expected {opts.screenshot_frame}")
    # The scene's time is the sum of the time steps (MsDt), each of which must
    # follow the rule of its frame's dt mode (DtMode); checked row by row.
    modes_seen = check_motion(rows)
    if opts.expect_dt_modes and modes_seen != opts.expect_dt_modes.split(","):
        fail(f"dt modes {modes_seen}, expected {opts.expect_dt_modes}")
    if info["dt"] != ", ".join(modes_seen):
        fail(f"summary dt {info['dt']!r}, the trace used {modes_seen}")
    time_s = sum(float(r["MsDt"]) for r in rows[:opts.screenshot_frame + 1]) * 1e-3
    if abs(time_s - float(info["screenshot_time_s"])) > 1e-5:
        fail(f"trace time {time_s} differs from the scene's {info['screenshot_time_s']}")
    if opts.expect_wait_point:
        if "--work-ms" not in opts.args:
            fail("--expect-wait-point needs the demo's --work-ms (the work the swap is placed against)")
        check_wait_point(rows, opts.expect_wait_point, float(opts.args[opts.args.index("--work-ms") + 1]))
    stage = [float(v) for v in info["stage_px"].split()]

    def pixel(x, y):
        return pixels[int(y)][int(x)]

    def squares_found(time_s):
        found = []
        for key in ("object_0", "object_1", "object_2"):
            o = fields(info[key])
            speed, size, top = float(o["speed_px_s"]), float(o["size_px"]), float(o["top_px"])
            rgb = tuple(int(v) for v in o["rgb"].split(","))
            cx = left_px(stage, speed, size, time_s) + size / 2
            found.append((key, cx, close(pixel(cx, top + size / 2), rgb), pixel(cx, top + size / 2), rgb))
        return found

    for key, cx, ok, got, want in squares_found(time_s):
        if not ok:
            fail(f"{key}: pixel at x={cx:.1f} is {got}, expected {want} (t={time_s:.6f} s)")
    wrong = [f[0] for f in squares_found(time_s + 0.25) if f[2]]
    if len(wrong) == 3:
        fail("the squares are also found a quarter second off: the check cannot tell positions apart")
    print(f"check_run: screenshot: 3 squares where t={time_s:.6f} s puts them; "
          f"a quarter second off, found only {wrong or 'none'}")

    # The motion strip's newest tick: under the followed square (object_1).
    o = fields(info["object_1"])
    size, top = float(o["size_px"]), float(o["top_px"])
    rgb = tuple(int(v) for v in o["rgb"].split(","))
    tick_x = left_px(stage, float(o["speed_px_s"]), size, time_s) + size / 2
    tick_y = top + size + 12 + 18 + 4 + 17   # render/scene.h: gap, reference ticks, gap, half a trail tick
    if not any(close(pixel(tick_x + dx, tick_y), rgb) for dx in (-1, 0, 1)):
        fail(f"motion strip: no newest tick at x={tick_x:.1f}, y={tick_y:.0f}: {pixel(tick_x, tick_y)}")

    # The sweeping bar, white over the full height, near the bottom where
    # nothing else is drawn.
    bar = fields(info["bar"])
    bar_x = left_px(stage, float(bar["speed_px_s"]), float(bar["width_px"]), time_s) + float(bar["width_px"]) / 2
    if not close(pixel(bar_x, stage[3] - 8), (255, 255, 255)):
        fail(f"bar: pixel at x={bar_x:.1f} is {pixel(bar_x, stage[3] - 8)}, expected white")
    print(f"check_run: screenshot: motion strip tick at x={tick_x:.1f}, bar at x={bar_x:.1f}")

    # The overlay: its panel is not the scene, and it has text and graphs.
    if opts.expect_overlay:
        if info["overlay_panel_px"] == "none":
            fail("the summary says there was no overlay")
        panel_w = int(float(info["overlay_panel_px"].split()[2]))
        if stage[0] < panel_w:
            fail(f"the stage starts at x={stage[0]}, inside the overlay's panel (width {panel_w})")
        region = [pixels[y][x] for y in range(0, height, 3) for x in range(0, panel_w, 3)]
        unlike = sum(1 for p in region if not close(p, SCENE_BACKGROUND, 4))
        colours = len(set(region))
        if unlike < 0.5 * len(region) or colours < 20:
            fail(f"overlay panel: {unlike}/{len(region)} pixels unlike the scene background, "
                 f"{colours} colours: no panel drawn")
        print(f"check_run: overlay: {unlike}/{len(region)} sampled pixels unlike the scene, {colours} colours")
    elif info["overlay_panel_px"] != "none" or stage[0] != 0:
        fail("--no-overlay: the stage should fill the window")
    print("check_run: PASS")


if __name__ == "__main__":
    main()
