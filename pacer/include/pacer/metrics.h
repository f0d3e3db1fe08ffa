// pacer/metrics.h: what a pacer's frames add up to. Pacer::stats() keeps a window of
// frames; summarize() gives the figures an overlay shows, compute_metrics()
// the ones capture tools (CapFrameX, PresentMon) and the QA suite report.
//
//   pacer::Summary s = pacer.stats().summarize();
//   printf("p99 %.1f us, %.1f %% off\n", s.interval.p99_us, s.off_pct);
//   pacer::FrameTimeMetrics m = pacer::compute_window_metrics(pacer.stats());
//
// Every figure carries its unit in its name (_us, _ms, _pct, _fps).
#pragma once

#include <pacer/pacer.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pacer {

// Nearest rank on the sorted sample x[1..n]: pP = x[ceil(P * n / 100)], in
// integers (p95 of 20 values is exactly x[19]); max = x[n]; sd is the
// population standard deviation. An empty sample gives all zeros.
struct Percentiles {
    double mean_us, sd_us, p50_us, p95_us, p99_us, max_us;
};
Percentiles percentiles(std::vector<double> sample_us);

struct HistogramBin {
    double lower_us;   // the bin covers [lower_us, lower_us + bin width)
    int64_t count;
};

// What reached the screen, where Summary::interval judges the wakes. From
// successive frames (index one apart) in the window:
//   presents  between the times mark_present gave (Frame::present_ns, each
//             the frame before's swap), judged against that frame's period
//   shown     between the times the display reported frames one apart shown
//             (Frame::displayed_ns, displayed_index), against the period
// A wake on time and a present late is the GPU work still queued at the wait
// (Host::finish_gpu), or a compositor: only these figures show it.
struct Cadence {
    int64_t intervals;     // measured; 0 without mark_present or display reports
    double p50_us, p99_us;
    double off_pct;        // % off the period by more than off_tolerance_ns
};
// The interval each cadence takes from a frame and the one before it, with
// the period it is judged against (for a graph of them); false where the
// pair gives none (not one index apart, a time unknown, not later).
bool present_interval(const Frame& before, const Frame& frame, int64_t* interval_ns, int64_t* period_ns);
bool shown_interval(const Frame& before, const Frame& frame, int64_t* interval_ns, int64_t* period_ns);

// The frames in the statistics window. Frame 0 (index 0) has no interval and
// is left out of interval figures (after reset() the first frame kept has
// one). Wall time is the newest wake minus the oldest; spin_pct, cpu_pct and
// fps count the waits of every frame but the oldest. One frame: all 0.
struct Summary {
    int64_t frames;              // frames in the window
    double target_period_us;     // the period on the newest frame
    Percentiles interval;        // frame intervals
    Percentiles interval_error;  // |interval - period|
    Percentiles lateness;        // wake lateness, early counted as 0
    double off_pct;              // % of intervals off by more than off_tolerance_ns
    int64_t missed;              // grid points skipped in the window
    double spin_pct;             // spin time / wall time, % of one core
    double cpu_pct;              // the waits' thread CPU / wall time, % (-1 unknown)
    double fps;                  // (frames - 1) / wall time, frames per second
    Cadence presents;            // between swaps (mark_present)
    Cadence shown;               // between frames the display showed (Host::take_presented)
};

// A ring of the last `capacity` frames plus totals. add() is O(1); summaries
// are computed on demand.
class Stats {
public:
    static constexpr int32_t kMaxCapacity = 1'000'000;        // frames, about 130 MB
    static constexpr int32_t kMaxHistogramBins = 1'000'000;
    // Throws std::invalid_argument unless capacity is in [1, kMaxCapacity]
    // and off_tolerance_ns >= 0.
    explicit Stats(int32_t capacity = 1024, int64_t off_tolerance_ns = 500'000);
    void add(const Frame& frame);   // never throws; sums saturate at INT64_MAX
    void reset();
    // Keeps the newest frames that fit and the totals (Pacer::reconfigure).
    // Throws std::invalid_argument as the constructor, changing nothing.
    void resize(int32_t capacity, int64_t off_tolerance_ns);
    Summary summarize() const;
    // Interval histogram: bins of bin_us from lower_us; intervals outside are
    // not counted. Throws std::invalid_argument unless bins is in [1,
    // kMaxHistogramBins] and bin_us > 0 (both finite, as lower_us).
    std::vector<HistogramBin> interval_histogram(double lower_us, double bin_us, int bins) const;

    std::size_t size() const;                 // frames in the window
    const Frame& at(std::size_t i) const;     // 0 = oldest in the window
    int64_t total_frames() const { return total_frames_; }   // since reset
    int64_t total_missed() const { return total_missed_; }   // since reset
    int32_t capacity() const { return static_cast<int32_t>(ring_.size()); }
    int64_t off_tolerance_ns() const { return off_tolerance_ns_; }

private:
    std::vector<Frame> ring_;
    std::size_t head_ = 0, count_ = 0;
    int64_t off_tolerance_ns_;
    int64_t total_frames_ = 0, total_missed_ = 0;
};

// ---------------------------------------------------------------------------
// Frame-time metrics, computed in this one place for the bench, the demo's
// summaries and the QA suite. For n frame times t[0..n-1] in ms, in order:
//   avg_fps          n * 1000 / sum(t) (as CapFrameX), not the mean of per-frame FPS
//   low_1pct_fps     average FPS of the k = ceil(n / 100) longest frames (at
//                    least one), k * 1000 / their sum; low_0_1pct_fps: k = ceil(n / 1000)
//   frame_time_*_ms  mean, sd, p50, p95, p99, max of t, as percentiles()
//   stutter_pct      % of frames over stutter_factor times the moving average
//                    of the preceding frames within stutter_window_ms (at least
//                    one; frame 0 never stutters)
//   delta_histogram  |t[i] - t[i-1]| in [0, 2), [2, 4), [4, 8), [8, 12), [12, inf) ms
//   against a target: success_pct (|t - target| <= tolerance_ms); of
//   e = |t - target| the mean, p95, p99 and max; error_rms_ms = sqrt(mean((t - target)^2))
// ---------------------------------------------------------------------------

struct MetricsOptions {
    double target_period_ms = 0;       // 0: none for plain frame times; each Frame's own period
                                       // for frames. Else the target of every frame, ms.
    double tolerance_ms = 1;           // the +- of success_pct, ms, >= 0
    double stutter_factor = 2.5;       // >= 0
    double stutter_window_ms = 1000;   // preceding frames averaged, ms, >= 0
};

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
    bool has_target;             // the fields below are 0 without one
    double tolerance_ms;
    double success_pct;
    double error_mean_ms, error_rms_ms, error_p95_ms, error_p99_ms, max_error_ms;
};

// Frame times in ms (finite, >= 0). Throws std::invalid_argument naming the
// value for a bad frame time or option.
FrameTimeMetrics compute_metrics(const std::vector<double>& frame_times_ms,
                                 const MetricsOptions& options = {});
// From a pacer's frames in order, frame 0 (no interval) left out.
FrameTimeMetrics compute_metrics(const std::vector<Frame>& frames, const MetricsOptions& options = {});
// Over a Stats window (named apart so compute_metrics({16, 10}) cannot mean Stats(16, 10)).
FrameTimeMetrics compute_window_metrics(const Stats& stats, const MetricsOptions& options = {});

// ---------------------------------------------------------------------------
// Figures of a run of any length in bounded memory (about 1 MiB, fixed at
// construction; add() never allocates or throws). RunMetrics takes a run's
// frames one at a time and gives what Stats::summarize() over all of them and
// compute_metrics(all frames) would:
//   exact     counts, sums, mean and sd (Welford), max, avg_fps, success_pct,
//             error mean, rms and max, off_pct, missed, spin/cpu %, fps, the
//             delta histogram, and stutter while the stutter window holds at
//             most kStutterWindowFrames frames (older ones are then dropped)
//   binned    p50, p95, p99 (presents' and shown's too) and the 1 % / 0.1 % lows, from a LogHistogram:
//             within 1/512 (0.2 %) of the exact figure (0.5 ns below 256 ns)
// Frames with a negative interval, or no period when there is no fixed
// target, are left out of the FrameTimeMetrics and counted (skipped_frames)
// where compute_metrics would throw.
// ---------------------------------------------------------------------------

// Counts of non-negative int64 values (ns) in log-spaced bins: values below
// 256 each have their own bin; above, each power of two is split into 256
// bins of equal width, 1/256 of the octave's lower edge (e.g. 65.5 us wide at
// 16.8 ms). A value is reported as its bin's middle, clamped to the smallest
// and largest values added (ranks 1 and count are those exactly): at most 1/512
// of it away. Negative values count as 0.
class LogHistogram {
public:
    static constexpr int kSubBins = 256;
    static constexpr int kBins = 56 * kSubBins;   // up to INT64_MAX; 112 KiB
    LogHistogram();
    void add(int64_t value);
    void clear();
    int64_t count() const { return count_; }
    int64_t min() const { return min_; }           // 0 when empty
    int64_t max() const { return max_; }           // 0 when empty
    // The value of 1-based rank r of the sorted values (clamped to [1, count]); 0 when empty.
    int64_t at_rank(int64_t rank) const;
    // Nearest rank ceil(count * num / den), as percentiles(); num / den is
    // clamped to [0, 1] (den <= 0: 1, the largest).
    int64_t nearest_rank(int64_t num, int64_t den) const;
    // The sum of the k largest values (k clamped to [0, count]).
    double sum_of_largest(int64_t k) const;

private:
    std::vector<int64_t> counts_;
    int64_t count_ = 0, min_ = 0, max_ = 0;
};

class RunMetrics {
public:
    static constexpr int32_t kStutterWindowFrames = 32'768;   // 1000 ms at 32 kHz
    // Throws std::invalid_argument for a bad option, as compute_metrics, or
    // off_tolerance_ns < 0 (Summary::off_pct, as Stats).
    explicit RunMetrics(const MetricsOptions& options = {}, int64_t off_tolerance_ns = 500'000);
    ~RunMetrics();
    RunMetrics(RunMetrics&&) noexcept;
    RunMetrics& operator=(RunMetrics&&) noexcept;
    void add(const Frame& frame);              // in order; O(1)
    Summary summary() const;                   // as Stats::summarize() over every frame added
    FrameTimeMetrics metrics() const;          // as compute_metrics() of every frame added
    int64_t frames() const;
    int64_t skipped_frames() const;            // left out of metrics()

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace pacer
