// test_run_metrics.cpp: the streaming RunMetrics against the exact
// Stats::summarize() and compute_metrics() on synthetic runs, and the error
// bound its header states for the binned figures (1/512 of the value).
#include <pacer/metrics.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace pacer {
namespace {

constexpr double kBinned = 1.0 / 512;   // stats.h: a binned figure is within this of the exact one

// A run of frames with the given intervals (ns) on a grid of period_ns.
std::vector<Frame> run_of(const std::vector<int64_t>& intervals_ns, int64_t period_ns) {
    std::vector<Frame> frames;
    int64_t wake = 1'000'000'000;
    for (std::size_t i = 0; i <= intervals_ns.size(); ++i) {
        Frame f{};
        f.index = static_cast<int64_t>(i);
        if (i > 0) {
            f.interval_ns = intervals_ns[i - 1];
            wake += f.interval_ns;
        }
        f.wake_ns = wake;
        f.period_ns = period_ns;
        f.lateness_ns = (f.index % 7) * 13'000 - 20'000;
        f.spun_ns = 40'000 + f.index % 5;
        f.wait_cpu_ns = 90'000;
        f.missed = f.interval_ns > 2 * period_ns ? 1 : 0;
        frames.push_back(f);
    }
    return frames;
}

void expect_near_relative(double binned, double exact, const char* what) {
    EXPECT_LE(std::fabs(binned - exact), kBinned * std::fabs(exact) + 1e-9) << what << ": binned " << binned
                                                                              << " exact " << exact;
}

void expect_matches(const std::vector<Frame>& frames, const MetricsOptions& options = {}) {
    RunMetrics run(options);
    Stats window(static_cast<int32_t>(frames.size()));
    for (const Frame& f : frames) {
        run.add(f);
        window.add(f);
    }
    const FrameTimeMetrics exact = compute_metrics(frames, options);
    const FrameTimeMetrics m = run.metrics();
    EXPECT_EQ(m.frames, exact.frames);
    EXPECT_NEAR(m.duration_ms, exact.duration_ms, 1e-9 * exact.duration_ms);
    EXPECT_NEAR(m.avg_fps, exact.avg_fps, 1e-9 * exact.avg_fps);
    EXPECT_NEAR(m.frame_time_mean_ms, exact.frame_time_mean_ms, 1e-9 * exact.frame_time_mean_ms);
    EXPECT_NEAR(m.frame_time_sd_ms, exact.frame_time_sd_ms, 1e-6 * exact.frame_time_mean_ms);
    EXPECT_EQ(m.frame_time_max_ms, exact.frame_time_max_ms);
    expect_near_relative(m.frame_time_p50_ms, exact.frame_time_p50_ms, "p50");
    expect_near_relative(m.frame_time_p95_ms, exact.frame_time_p95_ms, "p95");
    expect_near_relative(m.frame_time_p99_ms, exact.frame_time_p99_ms, "p99");
    expect_near_relative(m.low_1pct_fps, exact.low_1pct_fps, "1% low");
    expect_near_relative(m.low_0_1pct_fps, exact.low_0_1pct_fps, "0.1% low");
    EXPECT_EQ(m.stutter_frames, exact.stutter_frames);
    EXPECT_EQ(m.delta_histogram, exact.delta_histogram);
    EXPECT_EQ(m.has_target, exact.has_target);
    EXPECT_DOUBLE_EQ(m.success_pct, exact.success_pct);
    EXPECT_NEAR(m.error_mean_ms, exact.error_mean_ms, 1e-9 + 1e-9 * exact.error_mean_ms);
    EXPECT_NEAR(m.error_rms_ms, exact.error_rms_ms, 1e-9 * exact.error_rms_ms);
    EXPECT_DOUBLE_EQ(m.max_error_ms, exact.max_error_ms);
    // Errors are binned in whole ns: 0.5 ns on top of the relative bound.
    EXPECT_LE(std::fabs(m.error_p95_ms - exact.error_p95_ms), kBinned * exact.error_p95_ms + 1e-6);
    EXPECT_LE(std::fabs(m.error_p99_ms - exact.error_p99_ms), kBinned * exact.error_p99_ms + 1e-6);

    const Summary s = run.summary(), w = window.summarize();
    EXPECT_EQ(s.frames, w.frames);
    EXPECT_EQ(s.missed, w.missed);
    EXPECT_DOUBLE_EQ(s.target_period_us, w.target_period_us);
    EXPECT_DOUBLE_EQ(s.off_pct, w.off_pct);
    EXPECT_NEAR(s.spin_pct, w.spin_pct, 1e-9);
    EXPECT_NEAR(s.cpu_pct, w.cpu_pct, 1e-9);
    EXPECT_NEAR(s.fps, w.fps, 1e-9 * w.fps);
    const Percentiles* pairs[][2] = {{&s.interval, &w.interval},
                                     {&s.interval_error, &w.interval_error},
                                     {&s.lateness, &w.lateness}};
    for (const auto& pair : pairs) {
        const Percentiles& a = *pair[0];
        const Percentiles& b = *pair[1];
        EXPECT_NEAR(a.mean_us, b.mean_us, 1e-9 * std::fabs(b.mean_us) + 1e-9);
        EXPECT_NEAR(a.sd_us, b.sd_us, 1e-6 * std::fabs(b.mean_us) + 1e-9);
        EXPECT_DOUBLE_EQ(a.max_us, b.max_us);
        expect_near_relative(a.p50_us, b.p50_us, "summary p50");
        expect_near_relative(a.p95_us, b.p95_us, "summary p95");
        expect_near_relative(a.p99_us, b.p99_us, "summary p99");
    }
}

TEST(RunMetrics, MatchesTheExactFiguresOnJitteredRuns) {
    std::mt19937_64 random(11);
    for (const int64_t period : {int64_t{100'000}, int64_t{6'944'444}, int64_t{16'666'667}}) {
        std::normal_distribution<double> jitter(0, static_cast<double>(period) * 0.05);
        std::vector<int64_t> intervals;
        for (int i = 0; i < 20'000; ++i) {
            int64_t t = period + static_cast<int64_t>(jitter(random));
            if (i % 997 == 0) t += 5 * period;   // hitches: stutters, lows, misses
            intervals.push_back(std::max<int64_t>(t, 0));
        }
        expect_matches(run_of(intervals, period));
        MetricsOptions fixed{};
        fixed.target_period_ms = 10;
        fixed.tolerance_ms = 0.25;
        expect_matches(run_of(intervals, period), fixed);
    }
}

TEST(RunMetrics, ExactBelow256NsAndAtTheExtremes) {
    // Small values have a bin each; the same value everywhere is reported exactly.
    expect_matches(run_of({1, 2, 3, 200, 255, 17, 0, 4}, 100));
    expect_matches(run_of(std::vector<int64_t>(1000, 16'666'667), 16'666'667));
    expect_matches(run_of({}, 1000));
    RunMetrics none;
    EXPECT_EQ(none.metrics().frames, 0);
    EXPECT_EQ(none.summary().frames, 0);
}

TEST(RunMetrics, LogHistogramBoundHoldsOverTheWholeRange) {
    // Every value from 1 ns to INT64_MAX, a few per octave: reported within 1/512.
    for (int64_t v = 1; v < std::numeric_limits<int64_t>::max() / 3; v = v * 3 + 1) {
        for (const int64_t value : {v, v + 1, 2 * v - 1}) {
            LogHistogram h;
            h.add(0);
            h.add(value);
            h.add(std::numeric_limits<int64_t>::max());
            const double got = static_cast<double>(h.at_rank(2));
            EXPECT_LE(std::fabs(got - static_cast<double>(value)), static_cast<double>(value) * kBinned + 0.5)
                << value;
        }
    }
    LogHistogram h;
    h.add(-5);   // counts as 0
    EXPECT_EQ(h.min(), 0);
    EXPECT_EQ(h.at_rank(1), 0);
    EXPECT_EQ(h.sum_of_largest(5), 0);
}

TEST(RunMetrics, NearestRankTakesAnyFraction) {
    LogHistogram h;
    for (int64_t v = 1; v <= 100; ++v) h.add(v * 1000);
    EXPECT_EQ(h.nearest_rank(1, 0), 100'000);                   // no division by zero: the largest
    EXPECT_EQ(h.nearest_rank(INT64_MAX, 1), 100'000);           // no overflow past int64: the largest
    EXPECT_EQ(h.nearest_rank(-5, 100), 1'000);                  // below 0: the smallest
    EXPECT_EQ(h.nearest_rank(INT64_MIN, -1), 100'000);          // den <= 0: the largest
    EXPECT_EQ(h.nearest_rank(1, 100), 1'000);
}

TEST(RunMetrics, StutterWindowIsBoundedButExactWithinIt) {
    // 1 kHz for 3 s: the 1000 ms window holds ~1000 frames, far under the cap.
    std::vector<int64_t> intervals(3000, 1'000'000);
    intervals[1500] = 3'000'000;
    intervals[2500] = 2'400'000;
    expect_matches(run_of(intervals, 1'000'000));
}

TEST(RunMetrics, RejectsBadOptionsUpFront) {
    MetricsOptions bad{};
    bad.tolerance_ms = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(RunMetrics{bad}, std::invalid_argument);
    EXPECT_THROW(RunMetrics({}, -1), std::invalid_argument);
}

TEST(RunMetrics, SkipsWhatComputeMetricsWouldRefuse) {
    std::vector<Frame> frames = run_of({1'000'000, 1'000'000}, 1'000'000);
    frames[1].period_ns = 0;          // no period
    frames[2].interval_ns = -5;       // a clock that went back
    RunMetrics run;
    for (const Frame& f : frames) run.add(f);
    EXPECT_EQ(run.skipped_frames(), 2);
    EXPECT_EQ(run.metrics().frames, 0);
    EXPECT_EQ(run.frames(), 3);
}

TEST(RunMetrics, HostileFramesSaturateAndNeverThrow) {
    // INT64_MIN/MAX in every field (test_hostile_api.cpp does the same to Stats).
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    RunMetrics run;
    for (int64_t v : {kMin, kMin + 1, int64_t{-1}, int64_t{0}, int64_t{1}, kMax - 1, kMax}) {
        Frame f{};
        f.index = f.deadline_ns = f.wake_ns = f.lateness_ns = f.interval_ns = f.period_ns = v;
        f.work_ns = f.slept_ns = f.spun_ns = f.wait_cpu_ns = f.present_ns = f.dt_ns = v;
        f.missed = v > 0 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
        EXPECT_NO_THROW(run.add(f));
        EXPECT_NO_THROW(run.add(f));
    }
    const Summary s = run.summary();
    EXPECT_EQ(s.frames, 14);
    EXPECT_GE(s.missed, 0);
    EXPECT_FALSE(std::isnan(s.fps));
    EXPECT_GE(s.interval_error.p99_us, 0);
    const FrameTimeMetrics m = run.metrics();
    EXPECT_GE(m.frame_time_max_ms, 0);
    EXPECT_GE(m.low_1pct_fps, 0);
    LogHistogram h;
    h.add(kMin);
    h.add(kMax);
    EXPECT_EQ(h.at_rank(1), 0);
    EXPECT_EQ(h.at_rank(2), kMax);
    EXPECT_EQ(h.at_rank(kMax), kMax);
    EXPECT_EQ(h.at_rank(kMin), 0);
    EXPECT_EQ(h.nearest_rank(99, 100), kMax);
    EXPECT_GT(h.sum_of_largest(kMax), 9e18);
}

}  // namespace
}  // namespace pacer
