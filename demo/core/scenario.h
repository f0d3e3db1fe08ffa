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
//                                              frame/time (frame 600 = 600 frames run)
//   tolerance 1ms                              the ± of success_pct (default 1 ms)
//   expect interval_error_p99_us <= 2000       a threshold on the run's summary;
//                                              ops: <= >= < >; keys: metric_keys()
//
// Time is measured from the wake of frame 0. Steps "at 0s" or "at frame 0"
// apply before frame 0 runs, so they are the scenario's starting settings.
// Several steps due in the same frame apply in file order: a later line wins.
// A scenario without "end" runs until the command line's --frames/--seconds.
//
// SETTINGS (key=value, every key at most once per line)
//   strategy=NAME          pacer::parse_strategy names (sleep, spin, precise_sleep,
//                          robust_sleep, timer, vsync, auto)
//   hz=N                   target rate, (0, 10000]
//   vsync=off|on|adaptive  the swap interval asked of the window system
//   miss_policy=skip|catch_up
//   sched_period_ms=N      0 = the OS's own scheduler; 1..16 = the pacer's
//                          simulated scheduler with that period
//   preempt_prob=P         simulated preemption probability, [0, 1)
//   timer_slack_ns=N       Linux per-thread timer slack, [0, 100000000]; 0 = leave
//   precise_k=K            precise_sleep's mean + k*sigma, (0, 10]
//   robust_tolerance_us=N  robust_sleep's tolerance, [0, 100000]
//   timer_margin_us=N      timer's starting margin, [0, 100000]
//   sched_slice_us=N       Linux EEVDF slice of the pacing thread, 0 (leave) or
//                          [100, 100000]
//   fifo_priority=N        Linux SCHED_FIFO priority of the pacing thread, 0 (off)
//                          to 99
//   nice=N                 the pacing thread's nice value, [-20, 19]; 0 = leave
//   timer_period_ms=N      Windows timeBeginPeriod, whole ms, [0, 100]; 0 = leave
//   wait_slack_ns=N        Linux timer slack each high-resolution timer wait runs
//                          with (pacer::OsSleeper::Options), [1, 100000000], or -1
//                          to leave the thread's own (default: the library's, 1)
//   wait_slice_ns=N        the same for the EEVDF slice (Linux >= 6.12; the kernel
//                          clamps to [100 us, 100 ms]), [1, 100000000] or -1
//                          (default: the library's, 100000)
//   dt_mode=raw|paced|fixed  what moves the scene: the measured interval, the
//                          pacer's Frame::dt_ns, or fixed steps + interpolation
//   wait_point=before_present|frame_start  where the loop waits
//   work_ms=N  jitter_ms=N  spike_ms=N  spike_every=N  bg_threads=N  duty=D
//   duty_period_ms=N       the load (see load.h for ranges); bg_threads also takes
//                          "cores" or "2xcores" (hardware threads, or twice that)
//
// ERRORS
//   Parsing stops at the first bad line with "FILE:LINE: message", e.g.
//   "spikes.txt:7: hz: 0 is out of range (0, 10000]".
#pragma once

#include "core/load.h"
#include "pacer/pacer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacer_demo {

// The swap interval asked of the window system.
enum class VsyncMode : int { Off = 0, On, Adaptive };
const char* vsync_mode_name(VsyncMode mode);                  // "off", "on", "adaptive"
bool parse_vsync_mode(std::string_view name, VsyncMode* out);  // false for an unknown name
int swap_interval(VsyncMode mode);                             // 0, 1, -1 (pacer::Host's)

// What moves the scene each frame (the engine's clock, pacer.h's Frame::dt_ns).
enum class DtMode : int {
    Raw = 0,   // the measured interval between wakes: wake jitter reaches the motion
    Paced,     // pacer::Frame::dt_ns: the grid step, clamped after a stall
    Fixed,     // pacer::FixedStep at the target period, fed Frame::dt_ns, drawn
               // interpolated by alpha() between the last two steps
};
const char* dt_mode_name(DtMode mode);                  // "raw", "paced", "fixed"
bool parse_dt_mode(std::string_view name, DtMode* out);  // false for an unknown name

// A set of setting changes: only the fields that hold a value change.
struct Settings {
    std::optional<pacer::Strategy> strategy;
    std::optional<double> hz;
    std::optional<VsyncMode> vsync;
    std::optional<pacer::MissPolicy> miss_policy;
    std::optional<double> sched_period_ms;       // 0: the OS's scheduler
    std::optional<double> preempt_prob;
    std::optional<int64_t> timer_slack_ns;
    std::optional<double> precise_k;
    std::optional<double> robust_tolerance_us;
    std::optional<double> timer_margin_us;
    std::optional<double> sched_slice_us;        // 0: leave the OS's slice
    std::optional<int32_t> fifo_priority;        // 0: not SCHED_FIFO
    std::optional<int32_t> nice;                 // 0: leave
    std::optional<int32_t> timer_period_ms;      // 0: leave (Windows only)
    std::optional<int64_t> wait_slack_ns;        // -1: leave the thread's own
    std::optional<int64_t> wait_slice_ns;        // -1: leave the thread's own
    std::optional<DtMode> dt_mode;
    std::optional<pacer::WaitPoint> wait_point;
    std::optional<double> work_ms;
    std::optional<double> jitter_ms;
    std::optional<double> spike_ms;
    std::optional<int32_t> spike_every;
    std::optional<int32_t> bg_threads;
    std::optional<double> duty;
    std::optional<double> duty_period_ms;

    bool empty() const;
    // Fields set in `later` replace ours.
    void merge(const Settings& later);
};

// Parses one key=value setting into *out (the same rules as scenario files,
// usable for command-line flags). Returns "" or one line naming the key, e.g.
// "duty: 0 is out of range (0, 1]" or "unknown setting 'dutty'".
std::string parse_setting(std::string_view key, std::string_view value, Settings* out);
// "strategy=timer hz=60": the set fields in the order of the list above.
std::string describe(const Settings& settings);

// Copies the load fields of settings (work_ms .. duty_period_ms) into *load.
void apply_load_settings(const Settings& settings, LoadConfig* load);

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
    std::string title;                 // from "title", else empty
    std::vector<Step> steps;           // in file order
    std::optional<When> end;
    double success_tolerance_ms = 1;   // "tolerance"; the Windows-timers article's ± 1 ms
    std::vector<Expectation> expectations;
};

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
