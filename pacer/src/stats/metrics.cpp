// metrics.cpp: the frame-time metrics of metrics.h. Percentiles come from
// the same nearest-rank code as pacer::percentiles(), so the bench, the statistics and these agree on what
// "p99" means.
#include "stats/stats_internal.h"

#include <pacer/units.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pacer {

namespace {

void check_option(const char* name, double value) {
    if (!std::isfinite(value) || value < 0)
        throw std::invalid_argument(std::string("compute_metrics: ") + name + ": " + number_text(value) +
                                    " must be finite and not negative");
}

MetricsOptions checked_options(const MetricsOptions& options) {
    check_option("target_period_ms", options.target_period_ms);
    check_option("tolerance_ms", options.tolerance_ms);
    check_option("stutter_factor", options.stutter_factor);
    check_option("stutter_window_ms", options.stutter_window_ms);
    return options;
}

// Average FPS of the k = ceil(n / per) longest frame times. sorted is ascending.
double low_fps(const std::vector<double>& sorted, std::size_t per) {
    const std::size_t k = std::max<std::size_t>(1, (sorted.size() + per - 1) / per);
    double sum = 0;
    for (std::size_t i = sorted.size() - k; i < sorted.size(); ++i) sum += sorted[i];
    return sum > 0 ? static_cast<double>(k) * kMsPerSecond / sum : 0.0;
}

// Frames longer than factor times the moving average of the frames before them
// (the most recent ones totalling at most window_ms, and at least one).
int64_t count_stutters(const std::vector<double>& t, double factor, double window_ms) {
    int64_t stutters = 0;
    double sum = 0;          // of t[first, i)
    std::size_t first = 0;
    for (std::size_t i = 1; i < t.size(); ++i) {
        sum += t[i - 1];
        while (i - first > 1 && sum > window_ms) sum -= t[first++];
        const double average = sum / static_cast<double>(i - first);
        if (t[i] > factor * average) ++stutters;
    }
    return stutters;
}

std::size_t delta_bin(double delta_ms) {
    std::size_t bin = 0;
    while (bin < kDeltaBinUpperMs.size() && delta_ms >= kDeltaBinUpperMs[bin]) ++bin;
    return bin;
}

// t: frame times; targets: each frame's target in ms, or nullptr for none.
FrameTimeMetrics compute(const std::vector<double>& t, const std::vector<double>* targets,
                         const MetricsOptions& options) {
    FrameTimeMetrics m{};
    m.frames = static_cast<int64_t>(t.size());
    m.has_target = targets != nullptr;
    m.tolerance_ms = m.has_target ? options.tolerance_ms : 0.0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!std::isfinite(t[i]) || t[i] < 0)
            throw std::invalid_argument("compute_metrics: frame time " + std::to_string(i) + ": " +
                                        number_text(t[i]) + " ms must be finite and not negative");
    }
    if (t.empty()) return m;

    std::vector<double> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    for (double v : t) m.duration_ms += v;
    m.avg_fps = m.duration_ms > 0 ? static_cast<double>(t.size()) * kMsPerSecond / m.duration_ms : 0.0;
    m.low_1pct_fps = low_fps(sorted, 100);
    m.low_0_1pct_fps = low_fps(sorted, 1000);

    const detail::Spread p = detail::spread(sorted);
    m.frame_time_mean_ms = p.mean;
    m.frame_time_sd_ms = p.sd;
    m.frame_time_p50_ms = p.p50;
    m.frame_time_p95_ms = p.p95;
    m.frame_time_p99_ms = p.p99;
    m.frame_time_max_ms = p.max;

    m.stutter_frames = count_stutters(t, options.stutter_factor, options.stutter_window_ms);
    m.stutter_pct = 100.0 * static_cast<double>(m.stutter_frames) / static_cast<double>(t.size());

    for (std::size_t i = 1; i < t.size(); ++i) ++m.delta_histogram[delta_bin(std::fabs(t[i] - t[i - 1]))];

    if (targets) {
        std::vector<double> errors(t.size());
        double squares = 0;
        int64_t successes = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            const double signed_error = t[i] - (*targets)[i];
            errors[i] = std::fabs(signed_error);
            squares += signed_error * signed_error;
            if (errors[i] <= options.tolerance_ms) ++successes;
        }
        const detail::Spread e = detail::spread(std::move(errors));
        m.success_pct = 100.0 * static_cast<double>(successes) / static_cast<double>(t.size());
        m.error_mean_ms = e.mean;
        m.error_rms_ms = std::sqrt(squares / static_cast<double>(t.size()));
        m.error_p95_ms = e.p95;
        m.error_p99_ms = e.p99;
        m.max_error_ms = e.max;
    }
    return m;
}

// Frames in order: intervals of those that have one, with their periods.
template <typename FrameAt>
FrameTimeMetrics compute_from_frames(std::size_t count, FrameAt frame_at, const MetricsOptions& options) {
    const MetricsOptions o = checked_options(options);
    std::vector<double> t, periods;
    t.reserve(count);
    periods.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const Frame& f = frame_at(i);
        if (!detail::has_interval(f)) continue;
        if (o.target_period_ms == 0 && f.period_ns <= 0)
            throw std::invalid_argument("compute_metrics: frame " + std::to_string(f.index) +
                                        ": period_ns " + std::to_string(f.period_ns) + " is not a period");
        t.push_back(ms_of(f.interval_ns));
        periods.push_back(o.target_period_ms > 0 ? o.target_period_ms
                                                 : ms_of(f.period_ns));
    }
    return compute(t, &periods, o);
}

}  // namespace

FrameTimeMetrics compute_metrics(const std::vector<double>& frame_times_ms, const MetricsOptions& options) {
    const MetricsOptions o = checked_options(options);
    if (o.target_period_ms == 0) return compute(frame_times_ms, nullptr, o);
    const std::vector<double> targets(frame_times_ms.size(), o.target_period_ms);
    return compute(frame_times_ms, &targets, o);
}

FrameTimeMetrics compute_metrics(const std::vector<Frame>& frames, const MetricsOptions& options) {
    return compute_from_frames(frames.size(), [&](std::size_t i) -> const Frame& { return frames[i]; }, options);
}

FrameTimeMetrics compute_window_metrics(const Stats& stats, const MetricsOptions& options) {
    return compute_from_frames(stats.size(), [&](std::size_t i) -> const Frame& { return stats.at(i); }, options);
}

}  // namespace pacer
