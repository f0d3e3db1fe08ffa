// scenario.h: timed steps that change the demo's settings, read from a small
// text format (assets/scenarios/*.txt), and pass/fail expectations on the run.
//
// FORMAT (one statement a line; '#' starts a comment; blank lines are fine)
//   title "Steady 60 Hz"                       optional name for reports
//   at 0s set strategy=timer hz=60 vsync=off   change settings when 0 s have passed
//   at 2.5s set work_ms=4 jitter_ms=1          times: seconds "2.5s" or "250ms"
//   at frame 200 set bg_threads=2xcores duty=1 or a frame index
//   at frame 200 mark "overload"               a named marker (a phase) in the trace
//   end 10s                                    or "end frame 600": stop before that
//                                              frame/time (frame 600 = 600 frames run;
//                                              a time is at most 1e9 s)
//   tolerance 1ms                              the ± of success_pct (default 1 ms)
//   screenshot frame 63                        the moment to picture (--screenshot,
//                                              tools/qa.py), e.g. just after a spike
//   expect interval_error_p99_us <= 2000       a threshold on the run's summary;
//                                              ops: <= >= < >; keys: metric_keys()
//
// Time is measured from the wake of frame 0. Steps "at 0s" or "at frame 0"
// apply before frame 0 runs, so they are the scenario's starting settings.
// Several steps due in the same frame apply in file order: a later line wins.
// A scenario without "end" runs until the command line's --frames/--seconds.
//
// SETTINGS (key=value, every key at most once per line)
//   The keys, with their units, ranges and defaults, are the table in
//   run/settings.cpp (pacer-demo --help lists them as flags: hz is --hz).
//   A value that maps to a pacer::Config field is checked by pacer::validate;
//   bg_threads also takes "cores" or "2xcores" (hardware threads, or twice that).
//
// ERRORS
//   Parsing stops at the first bad line with "FILE:LINE: message", e.g.
//   "spikes.txt:7: hz: '6O' is not a number". check_steps() then checks
//   each step's values before the run, so a range error is FILE:LINE too.
#pragma once

#include "run/settings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer_demo {

// When a step or the end is due.
struct When {
    enum class Unit : int { Seconds = 0, Frame };
    Unit unit;
    double seconds;   // Unit::Seconds
    int64_t frame;    // Unit::Frame
};

struct Step {
    When at;
    Settings settings;   // a "set" step: what changes
    std::string mark;    // a "mark" step: the marker's name (settings empty)
    int line;            // 1-based line in the file
    // For trace markers and logs: "set strategy=timer hz=60" or "mark overload".
    std::string text() const;
};

enum class Comparison : int { Less = 0, LessEqual, Greater, GreaterEqual };
const char* comparison_symbol(Comparison comparison);   // "<", "<=", ">", ">="

struct Expectation {
    std::string key;   // one of metric_keys() (summary.h)
    Comparison comparison;
    double value;
    int line;
    std::string text() const;   // "interval_error_p99_us <= 2000"
};

struct Scenario {
    std::string name;                  // the file's name, or what the caller passed
    std::string file_name() const;     // the name's last path part: "steady-60.txt"
    std::string title;                 // from "title", else empty
    std::vector<Step> steps;           // in file order
    std::optional<When> end;
    double success_tolerance_ms = 1;   // "tolerance"; the Windows-timers article's ± 1 ms
    std::optional<int64_t> screenshot_frame;   // "screenshot frame N"
    int screenshot_line = 0;                   // ... on this line
    // "needs present_feedback": the expectations judge what the display
    // reported showing (a compositor with wp_presentation, such as weston);
    // tools/qa.py runs it only under one.
    bool needs_present_feedback = false;
    std::vector<Expectation> expectations;
};

// Checks a scenario before it runs: each "set" step, on top of start (the
// settings in force before frame 0, every field set) and the steps before it
// in file order, must pass check() (settings.h). "" or "FILE:LINE: message".
std::string check_steps(const Scenario& scenario, const Settings& start);

// The scenario as a run reads it, one JSON line for tools that plan runs
// (tools/qa.py), so the grammar has one parser: {"title", "start_hz" (the
// rate in force at frame 0: start, then the steps due at 0), "end": null,
// {"frame": N} or {"seconds": S}, "expected_s" and "expected_frames" (at
// start_hz; null without an end), "needs": [] or ["present_feedback"]}.
std::string describe_scenario_json(const Scenario& scenario, const Settings& start);

// Reads and parses a scenario file. Returns "" and fills *out, or one line
// "FILE:LINE: message" (or "FILE: cannot open: reason") and leaves *out alone.
std::string parse_scenario_file(const std::string& path, Scenario* out);
// The same for text in memory; name stands for FILE in messages.
std::string parse_scenario_text(std::string_view text, const std::string& name, Scenario* out);

// Walks a scenario as a run proceeds. Keeps a reference: the scenario must
// outlive the cursor.
class ScenarioCursor {
public:
    explicit ScenarioCursor(const Scenario& scenario);
    // Steps that became due at this frame and were not returned before, in
    // file order. Call once per frame, before the frame's work, with the
    // frame's index and its wake time in seconds since frame 0's wake.
    std::vector<const Step*> due(int64_t frame_index, double elapsed_s);
    // True when the end is reached: do not run this frame. Never true without "end".
    bool finished(int64_t frame_index, double elapsed_s) const;
    // Steps not yet returned.
    std::size_t remaining() const;
    void reset();

private:
    const Scenario* scenario_;
    std::vector<bool> fired_;
    std::size_t remaining_ = 0;
};

}  // namespace pacer_demo
