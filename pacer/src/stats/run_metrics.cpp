// run_metrics.cpp: LogHistogram and RunMetrics (metrics.h), the run summary in
// bounded memory. Each figure follows the definition of its exact
// counterpart in stats.cpp and metrics.cpp step for step, so that where a
// figure is exact it matches to the last bit or nearly (the sums are taken in
// the same order; mean and sd by Welford differ only by rounding).
#include "base/saturate.h"
#include "stats/stats_internal.h"

#include <pacer/units.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pacer {

namespace {

// Values below kSubBins have a bin each; value v above lies in octave e
// (v >> e in [kSubBins, 2 * kSubBins)), split into kSubBins bins of 2^e.
int bin_of(int64_t value) {
    constexpr int64_t sub = LogHistogram::kSubBins;
    if (value < sub) return static_cast<int>(std::max<int64_t>(value, 0));
    int e = 0;
    while ((value >> e) >= 2 * sub) ++e;
    return static_cast<int>(sub + e * sub + ((value >> e) - sub));
}

// The middle of a bin (its only value below kSubBins).
int64_t middle_of(int bin) {
    constexpr int sub = LogHistogram::kSubBins;
    if (bin < sub) return bin;
    const int e = (bin - sub) / sub;
    const int64_t lower = static_cast<int64_t>((bin - sub) % sub + sub) << e;
    return lower + ((int64_t{1} << e) >> 1);
}

}  // namespace

LogHistogram::LogHistogram() : counts_(static_cast<std::size_t>(kBins)) {}

void LogHistogram::add(int64_t value) {
    value = std::max<int64_t>(value, 0);
    ++counts_[static_cast<std::size_t>(bin_of(value))];
    if (count_ == 0 || value < min_) min_ = value;
    if (count_ == 0 || value > max_) max_ = value;
    ++count_;
}

void LogHistogram::clear() {
    std::fill(counts_.begin(), counts_.end(), 0);
    count_ = min_ = max_ = 0;
}

int64_t LogHistogram::at_rank(int64_t rank) const {
    if (count_ == 0) return 0;
    rank = std::clamp<int64_t>(rank, 1, count_);
    if (rank == 1) return min_;        // the extremes are known exactly
    if (rank == count_) return max_;
    int64_t seen = 0;
    for (int b = 0; b < kBins; ++b) {
        seen += counts_[static_cast<std::size_t>(b)];
        if (seen >= rank) return std::clamp(middle_of(b), min_, max_);
    }
    return max_;
}

int64_t LogHistogram::nearest_rank(int64_t num, int64_t den) const {
    // ceil(count * num / den), the fraction clamped to [0, 1] first: no
    // division by zero, and no double past int64's range cast back to it.
    const double fraction = den > 0 ? std::clamp(static_cast<double>(num) / static_cast<double>(den), 0.0, 1.0) : 1.0;
    return at_rank(static_cast<int64_t>(std::ceil(static_cast<double>(count_) * fraction)));
}

double LogHistogram::sum_of_largest(int64_t k) const {
    k = std::clamp<int64_t>(k, 0, count_);
    double sum = 0;
    for (int b = kBins - 1; b >= 0 && k > 0; --b) {
        const int64_t take = std::min(k, counts_[static_cast<std::size_t>(b)]);
        if (take == 0) continue;
        sum += static_cast<double>(take) * static_cast<double>(std::clamp(middle_of(b), min_, max_));
        k -= take;
    }
    return sum;
}

// Summary::presents or ::shown of a run, streamed.
struct CadenceCounter {
    int64_t off = 0;
    LogHistogram intervals_ns;
    void add(int64_t interval_ns, int64_t period_ns, int64_t off_tolerance_ns);
    Cadence cadence() const;
};

struct RunMetrics::State {
    State(const MetricsOptions& options, int64_t off_tolerance_ns);
    void add(const Frame& frame);
    void add_time(const Frame& frame);   // the FrameTimeMetrics half of add(), for a frame with an interval
    Summary summary() const;
    FrameTimeMetrics metrics() const;

    struct Moments {   // Welford's running mean and sum of squared deviations
        int64_t n = 0;
        double mean = 0, m2 = 0, max = 0;
        void add(double x);
        double sd() const;
    };
    MetricsOptions options_;
    int64_t off_tolerance_ns_;
    // Summary
    int64_t frames_ = 0, missed_ = 0, spun_ns_ = 0, cpu_ns_ = 0, off_ = 0;
    bool cpu_known_ = true;
    int64_t first_wake_ns_ = 0, last_wake_ns_ = 0, last_period_ns_ = 0;
    Moments interval_us_, interval_error_us_, lateness_us_;
    LogHistogram interval_ns_, interval_error_ns_, lateness_ns_;
    CadenceCounter presents_, shown_;
    Frame previous_{};   // the frame added before, for the cadences
    // FrameTimeMetrics
    int64_t skipped_ = 0, times_ = 0, successes_ = 0, stutters_ = 0;
    double duration_ms_ = 0, squares_ms2_ = 0, previous_ms_ = 0;
    Moments time_ms_, error_ms_;
    LogHistogram time_ns_, error_ns_;
    std::array<int64_t, kDeltaBinUpperMs.size() + 1> deltas_{};
    std::vector<double> window_ms_;      // ring of the stutter window's frame times
    std::size_t window_first_ = 0, window_size_ = 0;
    double window_sum_ms_ = 0;
};

void RunMetrics::State::Moments::add(double x) {
    ++n;
    const double delta = x - mean;
    mean += delta / static_cast<double>(n);
    m2 += delta * (x - mean);
    if (n == 1 || x > max) max = x;
}

double RunMetrics::State::Moments::sd() const {
    return n > 0 ? std::sqrt(std::max(m2, 0.0) / static_cast<double>(n)) : 0.0;
}

RunMetrics::State::State(const MetricsOptions& options, int64_t off_tolerance_ns)
    : options_(options), off_tolerance_ns_(off_tolerance_ns),
      window_ms_(static_cast<std::size_t>(kStutterWindowFrames)) {
    // compute_metrics' own check, run once on no frames.
    (void)compute_metrics(std::vector<double>{}, options);
    if (off_tolerance_ns < 0)
        throw std::invalid_argument("RunMetrics: off_tolerance_ns " + std::to_string(off_tolerance_ns) +
                                    " must not be negative");
}

void CadenceCounter::add(int64_t interval_ns, int64_t period_ns, int64_t off_tolerance_ns) {
    intervals_ns.add(interval_ns);
    if (detail::sat_abs_diff(interval_ns, period_ns) > off_tolerance_ns) ++off;
}

Cadence CadenceCounter::cadence() const {
    Cadence c{};
    c.intervals = intervals_ns.count();
    if (c.intervals == 0) return c;
    c.p50_us = us_of(intervals_ns.nearest_rank(50, 100));
    c.p99_us = us_of(intervals_ns.nearest_rank(99, 100));
    c.off_pct = 100.0 * static_cast<double>(off) / static_cast<double>(c.intervals);
    return c;
}

void RunMetrics::State::add(const Frame& f) {
    using detail::sat_add;
    if (frames_ > 0) {   // what reached the screen, from this frame and the one before
        int64_t interval_ns = 0, period_ns = 0;
        if (present_interval(previous_, f, &interval_ns, &period_ns))
            presents_.add(interval_ns, period_ns, off_tolerance_ns_);
        if (shown_interval(previous_, f, &interval_ns, &period_ns))
            shown_.add(interval_ns, period_ns, off_tolerance_ns_);
    }
    previous_ = f;
    // Summary, as Stats::summarize over a window holding every frame.
    if (frames_ == 0) {
        first_wake_ns_ = f.wake_ns;
    } else {
        spun_ns_ = sat_add(spun_ns_, f.spun_ns);
        if (f.wait_cpu_ns < 0) cpu_known_ = false;
        else cpu_ns_ = sat_add(cpu_ns_, f.wait_cpu_ns);
    }
    ++frames_;
    last_wake_ns_ = f.wake_ns;
    last_period_ns_ = f.period_ns;
    missed_ = sat_add(missed_, std::max<int32_t>(f.missed, 0));
    const int64_t late_ns = std::max<int64_t>(f.lateness_ns, 0);
    lateness_us_.add(us_of(late_ns));
    lateness_ns_.add(late_ns);
    if (!detail::has_interval(f)) return;
    const int64_t error_ns = detail::sat_abs_diff(f.interval_ns, f.period_ns);
    interval_us_.add(us_of(f.interval_ns));
    interval_ns_.add(f.interval_ns);
    interval_error_us_.add(us_of(error_ns));
    interval_error_ns_.add(error_ns);
    if (error_ns > off_tolerance_ns_) ++off_;

    add_time(f);
}

// FrameTimeMetrics, as compute_metrics over the frames with an interval.
void RunMetrics::State::add_time(const Frame& f) {
    if (f.interval_ns < 0 || (options_.target_period_ms == 0 && f.period_ns <= 0)) {
        ++skipped_;
        return;
    }
    const double t = ms_of(f.interval_ns);
    if (times_ > 0) {
        // The moving average of the frames before this one (count_stutters).
        if (window_size_ == window_ms_.size()) {
            window_sum_ms_ -= window_ms_[window_first_];
            window_first_ = (window_first_ + 1) % window_ms_.size();
            --window_size_;
        }
        window_ms_[(window_first_ + window_size_) % window_ms_.size()] = previous_ms_;
        ++window_size_;
        window_sum_ms_ += previous_ms_;
        while (window_size_ > 1 && window_sum_ms_ > options_.stutter_window_ms) {
            window_sum_ms_ -= window_ms_[window_first_];
            window_first_ = (window_first_ + 1) % window_ms_.size();
            --window_size_;
        }
        const double average = window_sum_ms_ / static_cast<double>(window_size_);
        if (t > options_.stutter_factor * average) ++stutters_;

        const double delta = std::fabs(t - previous_ms_);
        std::size_t bin = 0;
        while (bin < kDeltaBinUpperMs.size() && delta >= kDeltaBinUpperMs[bin]) ++bin;
        ++deltas_[bin];
    }
    ++times_;
    previous_ms_ = t;
    duration_ms_ += t;
    time_ms_.add(t);
    time_ns_.add(f.interval_ns);

    const double target = options_.target_period_ms > 0 ? options_.target_period_ms
                                                         : ms_of(f.period_ns);
    const double signed_error = t - target;
    const double error = std::fabs(signed_error);
    squares_ms2_ += signed_error * signed_error;
    if (error <= options_.tolerance_ms) ++successes_;
    error_ms_.add(error);
    error_ns_.add(detail::sat_from_double(std::round(error * static_cast<double>(kNsPerMs))));
}

Summary RunMetrics::State::summary() const {
    Summary s{};
    s.frames = frames_;
    if (frames_ == 0) return s;
    s.target_period_us = us_of(last_period_ns_);
    auto percentiles_us = [](const Moments& m, const LogHistogram& h) {
        Percentiles p{};
        if (m.n == 0) return p;
        p.mean_us = m.mean;
        p.sd_us = m.sd();
        p.p50_us = us_of(h.nearest_rank(50, 100));
        p.p95_us = us_of(h.nearest_rank(95, 100));
        p.p99_us = us_of(h.nearest_rank(99, 100));
        p.max_us = m.max;
        return p;
    };
    s.interval = percentiles_us(interval_us_, interval_ns_);
    s.interval_error = percentiles_us(interval_error_us_, interval_error_ns_);
    s.lateness = percentiles_us(lateness_us_, lateness_ns_);
    s.off_pct = interval_us_.n == 0 ? 0.0 : 100.0 * static_cast<double>(off_) / static_cast<double>(interval_us_.n);
    s.missed = missed_;
    detail::set_rates(s, detail::sat_sub(last_wake_ns_, first_wake_ns_), static_cast<int64_t>(frames_), spun_ns_,
                      cpu_ns_, cpu_known_);
    s.presents = presents_.cadence();
    s.shown = shown_.cadence();
    return s;
}

FrameTimeMetrics RunMetrics::State::metrics() const {
    FrameTimeMetrics m{};
    m.frames = times_;
    m.has_target = true;   // each frame's own period, or the fixed target
    m.tolerance_ms = options_.tolerance_ms;
    if (times_ == 0) return m;
    const double n = static_cast<double>(times_);
    m.duration_ms = duration_ms_;
    m.avg_fps = duration_ms_ > 0 ? n * kMsPerSecond / duration_ms_ : 0.0;
    auto low_fps = [&](int64_t per) {
        const int64_t k = std::max<int64_t>(1, (times_ + per - 1) / per);
        const double sum_ms = time_ns_.sum_of_largest(k) / static_cast<double>(kNsPerMs);
        return sum_ms > 0 ? static_cast<double>(k) * kMsPerSecond / sum_ms : 0.0;
    };
    m.low_1pct_fps = low_fps(100);
    m.low_0_1pct_fps = low_fps(1000);
    m.frame_time_mean_ms = time_ms_.mean;
    m.frame_time_sd_ms = time_ms_.sd();
    m.frame_time_p50_ms = ms_of(time_ns_.nearest_rank(50, 100));
    m.frame_time_p95_ms = ms_of(time_ns_.nearest_rank(95, 100));
    m.frame_time_p99_ms = ms_of(time_ns_.nearest_rank(99, 100));
    m.frame_time_max_ms = time_ms_.max;
    m.stutter_frames = stutters_;
    m.stutter_pct = 100.0 * static_cast<double>(stutters_) / n;
    m.delta_histogram = deltas_;
    m.success_pct = 100.0 * static_cast<double>(successes_) / n;
    m.error_mean_ms = error_ms_.mean;
    m.error_rms_ms = std::sqrt(squares_ms2_ / n);
    m.error_p95_ms = ms_of(error_ns_.nearest_rank(95, 100));
    m.error_p99_ms = ms_of(error_ns_.nearest_rank(99, 100));
    m.max_error_ms = error_ms_.max;
    return m;
}

RunMetrics::RunMetrics(const MetricsOptions& options, int64_t off_tolerance_ns)
    : state_(std::make_unique<State>(options, off_tolerance_ns)) {}
RunMetrics::~RunMetrics() = default;
RunMetrics::RunMetrics(RunMetrics&&) noexcept = default;
RunMetrics& RunMetrics::operator=(RunMetrics&&) noexcept = default;
void RunMetrics::add(const Frame& frame) { state_->add(frame); }
Summary RunMetrics::summary() const { return state_->summary(); }
FrameTimeMetrics RunMetrics::metrics() const { return state_->metrics(); }
int64_t RunMetrics::frames() const { return state_->frames_; }
int64_t RunMetrics::skipped_frames() const { return state_->skipped_; }

}  // namespace pacer
