// summary.h: the figures of a whole demo run, the scenario's verdicts, and the
// summary written at exit (human-readable text and JSON).
//
// Every figure comes from the library (pacer::RunMetrics, fed every frame of
// the run, in bounded memory); this file only names, compares and prints them.
// Percentiles and 1 % lows are binned, within 0.2 % of the exact figures (stats.h).
//
// METRIC KEYS (what "expect" lines in scenarios and the JSON's "metrics" use)
//   What reached the screen (pacer::Summary::presents and ::shown, stats.h),
//   measured only where the run had them (else "not measured"):
//   present_off_pct present_p50_us present_p99_us present_intervals
//   shown_off_pct shown_p50_us shown_p99_us shown_intervals
//   shown_late_pct    % of the newest 2,048 shown frames that came a quarter
//                     refresh or more after the one the pacer predicted
//                     (display_lock: aimed at)
//   hitches_per_1000  display_lock's hitches: refreshes that showed a frame
//                     again because the lead was too short (WaitStatus)
//   wake_to_present_p50_us  median of wake to the return of the swap that
//                     followed it (the trace's MsWakeToPresent): waiting
//                     before present, the swap's own cost, which holds the
//                     frame's GPU work where it was not finished at the wait
//   gpu_finish_p50_us median time the waits spent finishing the frame's GPU
//                     work (pacer::Frame::gpu_finish_ns, Host::finish_gpu),
//                     frames after the first: about 0 where nothing finished
//                     it, and a crowded machine only lengthens it, so a lower
//                     bound on it holds anywhere (software GL renders there)
//   From pacer::Summary (pacer.h), over the whole run, judging the wakes:
//   frames fps target_period_us off_pct missed spin_pct cpu_pct
//   interval_{mean,sd,p50,p95,p99,max}_us          frame intervals
//   interval_error_{mean,sd,p50,p95,p99,max}_us    |interval - period|
//   lateness_{mean,sd,p50,p95,p99,max}_us          wake lateness, early = 0
//   From pacer::FrameTimeMetrics (stats.h, definitions there), frame time =
//   interval, target = each frame's own period:
//   avg_fps low_1pct_fps low_0_1pct_fps
//   frame_time_{mean,sd,p50,p95,p99,max}_ms
//   stutter_pct stutter_frames
//   delta_lt2_ms delta_lt4_ms delta_lt8_ms delta_lt12_ms delta_ge12_ms
//                                                  |delta| histogram counts
//   success_pct error_mean_ms error_rms_ms error_p95_ms error_p99_ms max_error_ms
// off_pct counts wake intervals off by more than 0.5 ms, present_off_pct and
// shown_off_pct the presents' and shown frames' (the overlay's figures);
// success_pct counts intervals within ± the scenario's tolerance (default 1 ms).
//
// JSON LAYOUT
//   { "run": {"backend": "sdl2", ...},          RunReport::info, as strings
//     "metrics": {"fps": 59.98, ...},           every metric key
//     "success_tolerance_ms": 1,
//     "verdicts": [{"expect": "off_pct <= 5", "key": "off_pct", "op": "<=",
//                   "threshold": 5, "actual": 0.4, "passed": true}, ...],
//     "passed": true }                          false when any verdict failed
#pragma once

#include "run/scenario.h"
#include "pacer/metrics.h"
#include "pacer/pacer.h"

#include <pacer/status.h>

#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pacer_demo {

// Figures of a whole run, from every frame (RunMetrics, streaming).
struct RunStats {
    pacer::Summary summary;            // off_pct against 0.5 ms
    pacer::FrameTimeMetrics metrics;   // tolerance_ms = success_tolerance_ms
    double success_tolerance_ms;       // the ± of success_pct
    double success_pct;                // metrics.success_pct; NaN with no interval
    // The display's side, NaN where the run had none: shown frames
    // (present feedback), display_lock's judged frames.
    double shown_late_pct = std::numeric_limits<double>::quiet_NaN();
    double hitches_per_1000 = std::numeric_limits<double>::quiet_NaN();
    double wake_to_present_p50_us = std::numeric_limits<double>::quiet_NaN();   // no swap: NaN
    double gpu_finish_p50_us = std::numeric_limits<double>::quiet_NaN();        // one frame: NaN
};

// The accumulator a run feeds, frame by frame, and its figures.
pacer::RunMetrics make_run_metrics(double success_tolerance_ms);
RunStats run_stats(const pacer::RunMetrics& run, double success_tolerance_ms);
// The same from every frame of a run, in order (tests).
RunStats compute_run_stats(const std::vector<pacer::Frame>& frames, double success_tolerance_ms);

using MetricValues = std::map<std::string, double>;
// Every key an expectation may name (the list above).
const std::vector<std::string>& metric_keys();
bool is_metric_key(std::string_view key);
MetricValues metric_values(const RunStats& stats);

struct Verdict {
    Expectation expectation;
    bool available;   // the run produced the metric
    double actual;    // NaN when not available
    bool passed;      // available and the comparison holds
    // "PASS off_pct <= 5 (actual 0.4)" / "FAIL ..." / "FAIL ... (not measured)"
    std::string text() const;
};
std::vector<Verdict> evaluate(const std::vector<Expectation>& expectations,
                              const MetricValues& metrics);
bool all_passed(const std::vector<Verdict>& verdicts);   // true for none

// The renderer, not the pacer, limits the rate when frames' own work (from
// one wake to the next wait: rendering, the synthetic load, the swap) takes
// longer than a period: no wait can put those on time. One line saying so
// when at least 5 % of the frames did (a few slow first frames or spikes are
// not a limit on the rate), else "".
std::string renderer_limit_note(int64_t frames, int64_t work_over_period, double work_p50_ms, double period_ms);

struct RunReport {
    // What ran and what the system gave, for the JSON: e.g.
    // {"backend", "sdl2"}, {"vsync", "on requested, refused"}, {"scenario", "spikes.txt"}.
    std::vector<std::pair<std::string, std::string>> info;
    // The text summary's first lines: what ran and the display where it
    // reported; then the figures (presents first); then the notes: the
    // frames' own cost, how the run ended (a few lines; the JSON has the rest).
    std::vector<std::string> brief;
    std::vector<std::string> notes;
    RunStats stats;
    std::vector<Verdict> verdicts;   // empty without expectations
};

// At most 20 lines (brief, the figures with the presents first, the notes,
// the verdicts' count; each failed verdict besides), ends with '\n'.
std::string summary_text(const RunReport& report);
std::string summary_json(const RunReport& report);   // the layout above, 2-space indent

}  // namespace pacer_demo
