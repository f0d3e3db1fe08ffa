// settings.h: what pacer-run, its GL preload and its Vulkan layer are told,
// in one place: the PACER_RUN environment variable, a comma-separated list
// of key=value, e.g. PACER_RUN="hz=60,strategy=timer,trace=run.csv".
// pacer-run's flags write the same text (pacer-run --help).
//
// KEYS (docs/pacer-run.md's flag table is this list)
//   hz        the target rate in Hz, [0.001, 10000]; 0 or absent: the
//             display's refresh where the window system states it, else 60
//   strategy  a pacer::Strategy name (pacer/strategy.h): timer (the
//             default), sleep, spin, precise_sleep, robust_sleep, vsync,
//             auto, display_lock; or off: every present passed through, nothing
//             paced or recorded (the preload left in, and out of the way)
//   wait      before_present (the default: the frame's GPU work finished,
//             the wait, then the present) or frame_start (the present, then
//             the wait: the program's next frame starts on the grid)
//   background_hz, hidden_hz
//             the rate for the program's window when another window has the
//             focus, and when it is minimized or hidden: 0 (off) or [0.001,
//             10000]; absent: pacer::Config's (30 and 10). Read from the X
//             server for a GLX window; an EGL or Vulkan window counts as in
//             front
//   trace     a file for the per-frame trace (the demo's PresentMon columns,
//             demo/run/trace.h); absent: none
//   summary   1: the demo's summary on stderr when the program exits; 0 (default)
// A bad key or value is one line naming it; the preload and the layer then
// leave the program unpaced, and pacer-run starts it without them.
#pragma once

#include <pacer/pacer.h>
#include <pacer/strategy.h>

#include <string>
#include <string_view>

namespace pacer_run {

// The environment variable the preload and the layer read.
inline constexpr const char* kSettingsVariable = "PACER_RUN";
// Set to 1 by pacer-run: it renames the trace once the program has ended,
// so a process leaves its part (session.h) instead of renaming it at exit.
inline constexpr const char* kHandoverVariable = "PACER_RUN_HANDOVER";
// Set by pacer-run with --summary: a folder of its own where each process
// keeps its summary as of its latest frames (summary_part_path), which
// pacer-run prints where the process ended without printing it (a signal,
// _exit, a crash).
inline constexpr const char* kSummaryDirVariable = "PACER_RUN_SUMMARY_DIR";
// Frames between the copies of a process's summary: the trace's chunk
// (demo/run/trace.h), so that a trace and a summary left by a process that
// could not finish them say the same frames.
inline constexpr long kSummaryEveryFrames = 64;

struct RunSettings {
    double hz = 0;                       // 0: the display's refresh, else kFallbackHz
    bool paced = true;                   // false: strategy=off
    pacer::Strategy strategy = pacer::Strategy::Timer;
    pacer::WaitPoint wait_point = pacer::WaitPoint::BeforePresent;
    double background_hz = pacer::Config{}.background_hz;   // 0: off
    double hidden_hz = pacer::Config{}.hidden_hz;           // 0: off
    std::string trace;                   // "" none
    bool summary = false;
};
inline constexpr double kFallbackHz = 60;   // hz=0 where the display states no refresh

// Parses text over *out (keys not named keep their value). "" or one line,
// e.g. "PACER_RUN: hz=abc: not a number", or with as_flags (pacer-run's
// command line) "--hz=abc: not a number"; on error *out is unchanged.
std::string parse_settings(std::string_view text, RunSettings* out, bool as_flags = false);
// "FILE.PID.part": where the process PID writes the trace FILE in chunks
// (session.h) before pacer-run, or the process itself at its exit, renames it.
std::string trace_part_path(const std::string& trace, long pid);
// "DIR/PID.summary": process PID's latest summary in pacer-run's folder DIR.
std::string summary_part_path(const std::string& dir, long pid);
// The text that parses back to settings (every key, in the list's order).
std::string format_settings(const RunSettings& settings);

}  // namespace pacer_run
