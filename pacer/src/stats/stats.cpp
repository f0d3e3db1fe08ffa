// stats.cpp: the per-frame ring, its summaries, and nearest-rank percentiles.
// add() only writes one slot and bumps two totals; everything that needs a
// sort is done on demand by summarize(), off the frame loop's hot path.
#include "base/saturate.h"
#include "stats/stats_internal.h"

#include <pacer/units.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace pacer {

namespace {

// The value of nearest rank ceil(n * num / den) (1-based) in a sorted sample.
// Integer arithmetic, so that e.g. p95 of 20 values is exactly rank 19.
double nearest_rank(const std::vector<double>& sorted, int64_t num, int64_t den) {
    const int64_t n = static_cast<int64_t>(sorted.size());
    int64_t rank = (n * num + den - 1) / den;
    rank = std::clamp<int64_t>(rank, 1, n);
    return sorted[static_cast<std::size_t>(rank - 1)];
}

}  // namespace

detail::Spread detail::spread(std::vector<double> sample) {
    Spread p{};
    if (sample.empty()) return p;
    std::sort(sample.begin(), sample.end());
    const double n = static_cast<double>(sample.size());
    double sum = 0;
    for (double v : sample) sum += v;
    p.mean = sum / n;
    double squares = 0;   // two passes: no cancellation from sum-of-squares
    for (double v : sample) squares += (v - p.mean) * (v - p.mean);
    p.sd = std::sqrt(squares / n);
    p.p50 = nearest_rank(sample, 50, 100);
    p.p95 = nearest_rank(sample, 95, 100);
    p.p99 = nearest_rank(sample, 99, 100);
    p.max = sample.back();
    return p;
}

void detail::set_rates(Summary& s, int64_t wall_ns, int64_t frames, int64_t spun_ns, int64_t cpu_ns, bool cpu_known) {
    if (wall_ns > 0) {
        const double wall = static_cast<double>(wall_ns);
        s.spin_pct = 100.0 * static_cast<double>(spun_ns) / wall;
        s.cpu_pct = cpu_known ? 100.0 * static_cast<double>(cpu_ns) / wall : -1.0;
        s.fps = static_cast<double>(frames - 1) * static_cast<double>(kNsPerSecond) / wall;
    } else {
        s.cpu_pct = cpu_known ? 0.0 : -1.0;
    }
}

namespace {
// b follows a by one, without overflow for any pair of values.
bool one_apart(int64_t a, int64_t b) { return b > a && b - 1 == a; }
}  // namespace

bool present_interval(const Frame& before, const Frame& frame, int64_t* interval_ns, int64_t* period_ns) {
    // frame.present_ns is the swap after before's wake, before.present_ns the one ahead of it.
    if (!one_apart(before.index, frame.index) || before.present_ns < 0 || frame.present_ns <= before.present_ns)
        return false;
    *interval_ns = frame.present_ns - before.present_ns;
    *period_ns = before.period_ns;
    return true;
}

bool shown_interval(const Frame& before, const Frame& frame, int64_t* interval_ns, int64_t* period_ns) {
    if (!one_apart(before.index, frame.index) || before.displayed_index < 0 || before.displayed_ns < 0 ||
        !one_apart(before.displayed_index, frame.displayed_index) || frame.displayed_ns <= before.displayed_ns)
        return false;
    *interval_ns = frame.displayed_ns - before.displayed_ns;
    *period_ns = frame.period_ns;
    return true;
}

Percentiles percentiles(std::vector<double> sample_us) {
    const detail::Spread s = detail::spread(std::move(sample_us));
    return {s.mean, s.sd, s.p50, s.p95, s.p99, s.max};
}

namespace {

// A cadence over the window's frames, with the pair rule given.
template <class IntervalOf>
Cadence cadence_of(const Stats& stats, IntervalOf interval_of) {
    std::vector<double> intervals_us;
    int64_t off = 0;
    for (std::size_t i = 1; i < stats.size(); ++i) {
        int64_t interval_ns = 0, period_ns = 0;
        if (!interval_of(stats.at(i - 1), stats.at(i), &interval_ns, &period_ns)) continue;
        intervals_us.push_back(us_of(interval_ns));
        if (detail::sat_abs_diff(interval_ns, period_ns) > stats.off_tolerance_ns()) ++off;
    }
    Cadence c{};
    c.intervals = static_cast<int64_t>(intervals_us.size());
    if (c.intervals == 0) return c;
    const detail::Spread spread = detail::spread(std::move(intervals_us));
    c.p50_us = spread.p50;
    c.p99_us = spread.p99;
    c.off_pct = 100.0 * static_cast<double>(off) / static_cast<double>(c.intervals);
    return c;
}

void check_window(const char* who, int32_t capacity, int64_t off_tolerance_ns) {
    if (capacity < 1 || capacity > Stats::kMaxCapacity)
        throw std::invalid_argument(std::string(who) + ": capacity " + std::to_string(capacity) +
                                    " is out of range [1, " + std::to_string(Stats::kMaxCapacity) + "]");
    if (off_tolerance_ns < 0)
        throw std::invalid_argument(std::string(who) + ": off_tolerance_ns " + std::to_string(off_tolerance_ns) +
                                    " must not be negative");
}

}  // namespace

Stats::Stats(int32_t capacity, int64_t off_tolerance_ns) : off_tolerance_ns_(off_tolerance_ns) {
    check_window("Stats", capacity, off_tolerance_ns);
    ring_.resize(static_cast<std::size_t>(capacity));
}

void Stats::add(const Frame& frame) {
    ring_[head_] = frame;
    head_ = (head_ + 1) % ring_.size();
    if (count_ < ring_.size()) ++count_;
    ++total_frames_;
    // A hostile missed count saturates; a negative one adds nothing.
    total_missed_ = detail::sat_add(total_missed_, std::max<int32_t>(frame.missed, 0));
}

void Stats::resize(int32_t capacity, int64_t off_tolerance_ns) {
    check_window("Stats::resize", capacity, off_tolerance_ns);
    off_tolerance_ns_ = off_tolerance_ns;
    if (capacity == this->capacity()) return;
    const std::size_t keep = std::min(count_, static_cast<std::size_t>(capacity));
    std::vector<Frame> ring(static_cast<std::size_t>(capacity));
    for (std::size_t i = 0; i < keep; ++i) ring[i] = at(count_ - keep + i);
    ring_ = std::move(ring);
    count_ = keep;
    head_ = keep % ring_.size();
}

void Stats::reset() {
    head_ = 0;
    count_ = 0;
    total_frames_ = 0;
    total_missed_ = 0;
}

std::size_t Stats::size() const { return count_; }

const Frame& Stats::at(std::size_t i) const {
    if (i >= count_)
        throw std::out_of_range("Stats::at: index " + std::to_string(i) + " with " +
                                std::to_string(count_) + " frames in the window");
    // The oldest frame sits at head_ once the ring is full, at 0 before.
    return ring_[(head_ + ring_.size() - count_ + i) % ring_.size()];
}

Summary Stats::summarize() const {
    Summary s{};
    s.frames = static_cast<int64_t>(count_);
    if (count_ == 0) return s;

    const Frame& oldest = at(0);
    const Frame& newest = at(count_ - 1);
    s.target_period_us = us_of(newest.period_ns);

    std::vector<double> intervals, errors, lateness;
    intervals.reserve(count_);
    errors.reserve(count_);
    lateness.reserve(count_);
    int64_t off = 0;
    int64_t spun_ns = 0, cpu_ns = 0;
    bool cpu_known = true;
    for (std::size_t i = 0; i < count_; ++i) {
        const Frame& f = at(i);
        s.missed = detail::sat_add(s.missed, std::max<int32_t>(f.missed, 0));
        lateness.push_back(us_of(std::max<int64_t>(f.lateness_ns, 0)));
        if (detail::has_interval(f)) {
            const int64_t error_ns = detail::sat_abs_diff(f.interval_ns, f.period_ns);
            intervals.push_back(us_of(f.interval_ns));
            errors.push_back(us_of(error_ns));
            if (error_ns > off_tolerance_ns_) ++off;
        }
        // The oldest frame's wait ended at the window's first wake, so it lies
        // before the wall-time span; every later wait lies inside it.
        if (i > 0) {
            spun_ns = detail::sat_add(spun_ns, f.spun_ns);
            if (f.wait_cpu_ns < 0) cpu_known = false;
            else cpu_ns = detail::sat_add(cpu_ns, f.wait_cpu_ns);
        }
    }
    s.interval = percentiles(intervals);
    s.interval_error = percentiles(errors);
    s.lateness = percentiles(std::move(lateness));
    s.off_pct = intervals.empty() ? 0.0 : 100.0 * static_cast<double>(off) / static_cast<double>(intervals.size());

    detail::set_rates(s, detail::sat_sub(newest.wake_ns, oldest.wake_ns), static_cast<int64_t>(count_), spun_ns,
                      cpu_ns, cpu_known);
    s.presents = cadence_of(*this, present_interval);
    s.shown = cadence_of(*this, shown_interval);
    return s;
}

std::vector<HistogramBin> Stats::interval_histogram(double lower_us, double bin_us, int bins) const {
    if (bins < 1 || bins > kMaxHistogramBins || !(std::isfinite(bin_us) && bin_us > 0) || !std::isfinite(lower_us))
        throw std::invalid_argument("Stats::interval_histogram: needs bins in [1, " +
                                    std::to_string(kMaxHistogramBins) + "] (got " + std::to_string(bins) +
                                    ") and a finite bin_us > 0 and lower_us");
    std::vector<HistogramBin> histogram(static_cast<std::size_t>(bins));
    for (int b = 0; b < bins; ++b) histogram[static_cast<std::size_t>(b)].lower_us = lower_us + b * bin_us;
    for (std::size_t i = 0; i < count_; ++i) {
        const Frame& f = at(i);
        if (!detail::has_interval(f)) continue;
        const double bin = std::floor((us_of(f.interval_ns) - lower_us) / bin_us);
        if (bin >= 0 && bin < bins) ++histogram[static_cast<std::size_t>(bin)].count;
    }
    return histogram;
}

}  // namespace pacer
