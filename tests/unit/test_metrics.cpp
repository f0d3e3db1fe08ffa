// test_metrics.cpp: frame-time metrics against hand-computed vectors.
#include <pacer/metrics.h>

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacer {
namespace {

// Ten frames, one spike of 40 ms and a 20 ms hitch; sum 140 ms.
const std::vector<double> kTimes = {10, 10, 10, 40, 10, 10, 20, 10, 10, 10};

TEST(Metrics, FpsPercentilesAndSigma) {
    const FrameTimeMetrics m = compute_metrics(kTimes);
    EXPECT_EQ(m.frames, 10);
    EXPECT_DOUBLE_EQ(m.duration_ms, 140);
    EXPECT_DOUBLE_EQ(m.avg_fps, 10'000.0 / 140);   // frames / time, not mean of 1000/t
    // Sorted: 10 x8, 20, 40. Nearest rank: p50 = x[5], p95 = x[ceil(9.5)] = x[10].
    EXPECT_DOUBLE_EQ(m.frame_time_mean_ms, 14);
    EXPECT_NEAR(m.frame_time_sd_ms, 9.16515138991168, 1e-12);   // sqrt(840 / 10)
    EXPECT_EQ(m.frame_time_p50_ms, 10);
    EXPECT_EQ(m.frame_time_p95_ms, 40);
    EXPECT_EQ(m.frame_time_p99_ms, 40);
    EXPECT_EQ(m.frame_time_max_ms, 40);
    // k = ceil(10 / 100) = 1 slowest frame: 40 ms.
    EXPECT_DOUBLE_EQ(m.low_1pct_fps, 25);
    EXPECT_DOUBLE_EQ(m.low_0_1pct_fps, 25);
    // No target: nothing measured against one.
    EXPECT_FALSE(m.has_target);
    EXPECT_EQ(m.success_pct, 0);
    EXPECT_EQ(m.max_error_ms, 0);
}

TEST(Metrics, LowsAverageTheSlowestFrames) {
    // 200 frames: k = 2 for 1 % (30 and 50 ms), k = 1 for 0.1 % (50 ms).
    std::vector<double> t(198, 10.0);
    t.insert(t.begin() + 50, 30.0);
    t.insert(t.begin() + 120, 50.0);
    const FrameTimeMetrics m = compute_metrics(t);
    EXPECT_DOUBLE_EQ(m.low_1pct_fps, 2 * 1000.0 / 80);
    EXPECT_DOUBLE_EQ(m.low_0_1pct_fps, 1000.0 / 50);
    EXPECT_DOUBLE_EQ(m.avg_fps, 200 * 1000.0 / 2060);
}

TEST(Metrics, StutterAgainstTheMovingAverage) {
    // Whole history (1 s window): frame 3 (40 > 2.5 * 10) is the one stutter;
    // frame 6 (20) against the average 15 is not.
    FrameTimeMetrics m = compute_metrics(kTimes);
    EXPECT_EQ(m.stutter_frames, 1);
    EXPECT_DOUBLE_EQ(m.stutter_pct, 10);

    // Factor 1.5: frame 6 is 20 against 1.5 * 15 = 22.5, still not a stutter...
    MetricsOptions options{};
    options.stutter_factor = 1.5;
    EXPECT_EQ(compute_metrics(kTimes, options).stutter_frames, 1);
    // ...but with a 20 ms window its average is of frames 4 and 5 only (10 ms),
    // and it is. Frame 4's window is frame 3 alone (40 ms is past the window,
    // yet one frame is always kept): 10 is no stutter.
    options.stutter_window_ms = 20;
    m = compute_metrics(kTimes, options);
    EXPECT_EQ(m.stutter_frames, 2);
    EXPECT_DOUBLE_EQ(m.stutter_pct, 20);
}

TEST(Metrics, FrameZeroIsNeverAStutter) {
    EXPECT_EQ(compute_metrics({100, 1, 1}).stutter_frames, 0);
    EXPECT_EQ(compute_metrics({1, 100, 1}).stutter_frames, 1);
}

TEST(Metrics, DeltaHistogramBinsAreHalfOpen) {
    // Deltas 1.5, 2, 4, 8, 12: one in each bin, each edge going up.
    const FrameTimeMetrics m = compute_metrics({0, 1.5, 3.5, 7.5, 15.5, 27.5});
    const std::array<int64_t, 5> expected = {1, 1, 1, 1, 1};
    EXPECT_EQ(m.delta_histogram, expected);
    // kTimes: deltas 0 0 30 30 0 10 10 0 0.
    const std::array<int64_t, 5> spikes = {5, 0, 0, 2, 2};
    EXPECT_EQ(compute_metrics(kTimes).delta_histogram, spikes);
    // Decreasing frame times count by their absolute delta.
    const std::array<int64_t, 5> down = {0, 0, 1, 0, 0};
    EXPECT_EQ(compute_metrics({16, 10}).delta_histogram, down);
}

TEST(Metrics, AgainstATarget) {
    MetricsOptions options{};
    options.target_period_ms = 10;
    // kTimes: errors 0 x8, 10, 30.
    FrameTimeMetrics m = compute_metrics(kTimes, options);
    EXPECT_TRUE(m.has_target);
    EXPECT_EQ(m.tolerance_ms, 1);   // the default
    EXPECT_DOUBLE_EQ(m.success_pct, 80);
    EXPECT_DOUBLE_EQ(m.error_mean_ms, 4);
    EXPECT_DOUBLE_EQ(m.error_rms_ms, 10);   // sqrt((100 + 900) / 10)
    EXPECT_EQ(m.max_error_ms, 30);

    // 1..20 ms: errors 9 8 ... 1 0 1 ... 10. Sorted: 0, 1 1, 2 2, ... 9 9, 10.
    std::vector<double> ramp;
    for (int i = 1; i <= 20; ++i) ramp.push_back(i);
    m = compute_metrics(ramp, options);
    EXPECT_EQ(m.error_p95_ms, 9);    // rank 19
    EXPECT_EQ(m.error_p99_ms, 10);   // rank 20
    EXPECT_EQ(m.max_error_ms, 10);
    EXPECT_DOUBLE_EQ(m.success_pct, 15);   // 9, 10, 11: within +-1 inclusive
    EXPECT_EQ(m.frame_time_p95_ms, 19);
}

TEST(Metrics, RmsIsAroundTheTargetSigmaAroundTheMean) {
    MetricsOptions options{};
    options.target_period_ms = 10;
    FrameTimeMetrics m = compute_metrics({11, 11, 11, 11}, options);
    EXPECT_EQ(m.frame_time_sd_ms, 0);
    EXPECT_DOUBLE_EQ(m.error_rms_ms, 1);
    EXPECT_DOUBLE_EQ(m.success_pct, 100);   // |11 - 10| = 1 is within +-1
    options.tolerance_ms = 0.5;
    m = compute_metrics({11, 11, 11, 11}, options);
    EXPECT_EQ(m.success_pct, 0);
    EXPECT_EQ(m.tolerance_ms, 0.5);
}

std::vector<Frame> rate_change_frames() {
    // 100 Hz, then 200 Hz from frame 2. Frame 0 has no interval.
    std::vector<Frame> frames(4);
    const int64_t intervals_us[] = {0, 10'000, 5'500, 5'000};
    const int64_t periods_us[] = {10'000, 10'000, 5'000, 5'000};
    for (int i = 0; i < 4; ++i) {
        frames[i].index = i;
        frames[i].interval_ns = intervals_us[i] * 1'000;
        frames[i].period_ns = periods_us[i] * 1'000;
        frames[i].wake_ns = 1'000'000'000 + i * 10'000'000;
    }
    return frames;
}

TEST(Metrics, FramesAreMeasuredAgainstTheirOwnPeriod) {
    MetricsOptions options{};
    options.tolerance_ms = 0.25;
    // Frame times 10, 5.5, 5 against 10, 5, 5.
    FrameTimeMetrics m = compute_metrics(rate_change_frames(), options);
    EXPECT_EQ(m.frames, 3);
    EXPECT_TRUE(m.has_target);
    EXPECT_DOUBLE_EQ(m.duration_ms, 20.5);
    EXPECT_DOUBLE_EQ(m.max_error_ms, 0.5);
    EXPECT_NEAR(m.success_pct, 200.0 / 3, 1e-12);

    // An explicit target applies to every frame.
    options.target_period_ms = 10;
    m = compute_metrics(rate_change_frames(), options);
    EXPECT_DOUBLE_EQ(m.max_error_ms, 5);
    EXPECT_NEAR(m.success_pct, 100.0 / 3, 1e-12);
}

TEST(Metrics, StatsWindow) {
    Stats stats(2);
    for (const Frame& f : rate_change_frames()) stats.add(f);
    const FrameTimeMetrics m = compute_window_metrics(stats);   // frames 2 and 3
    EXPECT_EQ(m.frames, 2);
    EXPECT_DOUBLE_EQ(m.duration_ms, 10.5);
    EXPECT_DOUBLE_EQ(m.max_error_ms, 0.5);
    EXPECT_DOUBLE_EQ(m.success_pct, 100);   // default tolerance 1 ms
}

TEST(Metrics, EmptyAndZeroTimes) {
    FrameTimeMetrics m = compute_metrics(std::vector<double>{});
    EXPECT_EQ(m.frames, 0);
    EXPECT_EQ(m.avg_fps, 0);
    EXPECT_EQ(m.stutter_pct, 0);
    m = compute_metrics({0, 0});
    EXPECT_EQ(m.avg_fps, 0);
    EXPECT_EQ(m.low_1pct_fps, 0);
    EXPECT_EQ(m.delta_histogram[0], 1);
}

std::string error_of(const std::vector<double>& t, const MetricsOptions& options = {}) {
    try {
        compute_metrics(t, options);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(Metrics, BadInputNamesWhatAndWhere) {
    EXPECT_EQ(error_of({10, -1}), "compute_metrics: frame time 1: -1 ms must be finite and not negative");
    EXPECT_EQ(error_of({std::numeric_limits<double>::quiet_NaN()}),
              "compute_metrics: frame time 0: nan ms must be finite and not negative");
    MetricsOptions options{};
    options.tolerance_ms = -1;
    EXPECT_EQ(error_of({10}, options), "compute_metrics: tolerance_ms: -1 must be finite and not negative");
    options = {};
    options.target_period_ms = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_of({10}, options), "compute_metrics: target_period_ms: inf must be finite and not negative");
    options = {};
    options.stutter_window_ms = -5;
    EXPECT_EQ(error_of({10}, options), "compute_metrics: stutter_window_ms: -5 must be finite and not negative");
    options = {};
    options.stutter_factor = -2.5;
    EXPECT_EQ(error_of({10}, options), "compute_metrics: stutter_factor: -2.5 must be finite and not negative");

    std::vector<Frame> frames = rate_change_frames();
    frames[2].period_ns = 0;
    EXPECT_THROW(compute_metrics(frames), std::invalid_argument);
}

}  // namespace
}  // namespace pacer
