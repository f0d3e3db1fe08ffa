// metrics.h: frame-time metrics as capture tools and the seed articles report
// them, computed in this one place so that the bench, the demo's summaries and
// the QA suite never compute them twice (or two ways).
//
// USAGE
//   pacer::MetricsOptions options{};          // every zero field means "the default"
//   options.target_period_ms = 1000.0 / 60;
//   pacer::FrameTimeMetrics m = pacer::compute_metrics(frame_times_ms, options);
//   // or straight from a pacer's frames, each against its own period:
//   pacer::FrameTimeMetrics m = pacer::compute_window_metrics(pacer.stats());
//
// DEFINITIONS (n frame times t[0..n-1] in ms, in the order they happened)
//   avg_fps          n * 1000 / sum(t): frames over the time they took (as
//                    CapFrameX's average), not the mean of per-frame FPS.
//   low_1pct_fps     the average FPS of the slowest 1 % of frames: the k =
//                    ceil(n / 100) longest frame times (at least one), as
//                    k * 1000 / their sum. low_0_1pct_fps: the same with
//                    k = ceil(n / 1000). This is the "1 % low average" reading
//                    (CapFrameX's older default), not the 1st percentile of FPS.
//   frame_time_*     mean, sd, p50, p95, p99, max of t, by pacer::percentiles():
//                    nearest rank, population sd. frame_time_sd_ms is the
//                    interval sigma.
//   stutter_pct      % of frames longer than stutter_factor (2.5) times the
//                    moving average of the frames before them. The moving
//                    average is over the most recent preceding frames whose
//                    total time is at most stutter_window_ms (1 s), and at
//                    least the one frame just before. Frame 0 has none and is
//                    never a stutter. CapFrameX's offline analysis compares
//                    with the average of the whole capture; a moving average
//                    judges each frame against its own phase, so a long
//                    overload phase is not one long stutter and a light phase
//                    does not hide spikes.
//   delta_histogram  counts of |t[i] - t[i-1]| (n - 1 values) in the bins
//                    [0, 2), [2, 4), [4, 8), [8, 12), [12, inf) ms.
//   Against a target (when there is one: see MetricsOptions::target_period_ms):
//   success_pct      % of frames with |t - target| <= tolerance_ms: the
//                    Windows-timers article's "cycle lasts 100 ms +- 1 ms".
//   error_*          of e = |t - target|: max_error_ms, error_p95_ms and
//                    error_p99_ms (nearest rank: the 5 ms article's "95 %" and
//                    "99 %" error), error_mean_ms, and error_rms_ms =
//                    sqrt(mean((t - target)^2)), which that article prints as
//                    its "standard deviation" (spread around the target, not
//                    around the mean).
#pragma once

#include <pacer/pacer.h>

#include <array>
#include <cstdint>
#include <vector>

namespace pacer {

// Zero-initialise and set what you need: a zero field means its default.
struct MetricsOptions {
    double target_period_ms;    // default: none for plain frame times (the target
                                // figures stay 0 and has_target false); for Frames
                                // and Stats, each frame's own period_ns. When set,
                                // it is the target of every frame.
    double tolerance_ms;        // default: 1 ms (the Windows-timers article's +-1 ms)
    double stutter_factor;      // default: 2.5 (CapFrameX)
    double stutter_window_ms;   // default: 1000 ms of preceding frames
};

// Upper edges of the |delta| histogram's bins; the last bin is [12 ms, inf).
inline constexpr std::array<double, 4> kDeltaBinUpperMs = {2, 4, 8, 12};

struct FrameTimeMetrics {
    int64_t frames;              // frame times measured
    double duration_ms;          // their sum
    double avg_fps;
    double low_1pct_fps;
    double low_0_1pct_fps;
    double frame_time_mean_ms, frame_time_sd_ms, frame_time_p50_ms;
    double frame_time_p95_ms, frame_time_p99_ms, frame_time_max_ms;
    int64_t stutter_frames;
    double stutter_pct;
    std::array<int64_t, kDeltaBinUpperMs.size() + 1> delta_histogram;   // <2 <4 <8 <12 >=12 ms
    // Against the target; all 0 when has_target is false.
    bool has_target;
    double tolerance_ms;         // the +- of success_pct
    double success_pct;
    double error_mean_ms, error_rms_ms, error_p95_ms, error_p99_ms, max_error_ms;
};

// Metrics of frame times in ms (any finite value >= 0), in the order they
// happened. An empty sequence gives all zeros. Throws std::invalid_argument,
// naming the value and where, for a frame time or an option that is negative
// or not finite.
FrameTimeMetrics compute_metrics(const std::vector<double>& frame_times_ms,
                                 const MetricsOptions& options = {});
// The same from a pacer's frames, in order: their intervals, with frame 0
// (index 0, which has no interval) left out, as in Stats::summarize().
FrameTimeMetrics compute_metrics(const std::vector<Frame>& frames, const MetricsOptions& options = {});
// The same over a Stats window (its last history_frames frames). Named apart
// so that compute_metrics({16, 10}) cannot mean Stats(16, 10).
FrameTimeMetrics compute_window_metrics(const Stats& stats, const MetricsOptions& options = {});

}  // namespace pacer
