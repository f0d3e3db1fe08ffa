// test_stats.cpp: the statistics against hand-computed vectors.
#include <pacer/pacer.h>

#include <gtest/gtest.h>

#include "fakes.h"

#include <numeric>
#include <stdexcept>
#include <vector>

namespace pacer {
namespace {

using testing::kStartNs;   // a run's first wake
constexpr int64_t kPeriodUs = 10'000;   // 100 Hz

// One frame of a scripted run, in microseconds from the start.
struct Row {
    int64_t index, wake_us, deadline_us, spun_us, cpu_us;
    int32_t missed;
};

// Frames as a pacer would report them: interval from the previous row's wake.
std::vector<Frame> make_frames(const std::vector<Row>& rows) {
    std::vector<Frame> frames;
    int64_t previous_wake_us = 0;
    for (const Row& r : rows) {
        Frame f{};
        f.index = r.index;
        f.deadline_ns = kStartNs + r.deadline_us * kNsPerUs;
        f.wake_ns = kStartNs + r.wake_us * kNsPerUs;
        f.lateness_ns = (r.wake_us - r.deadline_us) * kNsPerUs;
        f.interval_ns = r.index == 0 ? 0 : (r.wake_us - previous_wake_us) * kNsPerUs;
        f.period_ns = kPeriodUs * kNsPerUs;
        f.spun_ns = r.spun_us * kNsPerUs;
        f.wait_cpu_ns = r.cpu_us < 0 ? -1 : r.cpu_us * kNsPerUs;
        f.present_ns = -1;
        f.missed = r.missed;
        f.strategy = Strategy::Timer;
        frames.push_back(f);
        previous_wake_us = r.wake_us;
    }
    return frames;
}

// Six frames at 100 Hz. Intervals 9900, 10500, 9500, 10700, 19400 us; errors
// 100, 500, 500, 700, 9400 us (two exactly at the 500 us tolerance, not off);
// lateness 0, -100, 400, -100, 600, 0 us; frame 5 skipped one grid point.
const std::vector<Row> kRun = {
    // index wake  deadline spun  cpu  missed
    {0, 0, 0, 1'000, 5'000, 0},
    {1, 9'900, 10'000, 100, 300, 0},
    {2, 20'400, 20'000, 200, 300, 0},
    {3, 29'900, 30'000, 300, 300, 0},
    {4, 40'600, 40'000, 0, 300, 0},
    {5, 60'000, 60'000, 600, 300, 1},
};

Stats stats_of(const std::vector<Row>& rows, int32_t capacity = 1024) {
    Stats stats(capacity, 500 * kNsPerUs);
    for (const Frame& f : make_frames(rows)) stats.add(f);
    return stats;
}

TEST(Percentiles, EmptySampleIsAllZeros) {
    Percentiles p = percentiles({});
    EXPECT_EQ(p.mean_us, 0);
    EXPECT_EQ(p.sd_us, 0);
    EXPECT_EQ(p.p50_us, 0);
    EXPECT_EQ(p.p99_us, 0);
    EXPECT_EQ(p.max_us, 0);
}

TEST(Percentiles, SingleValue) {
    Percentiles p = percentiles({5});
    EXPECT_EQ(p.mean_us, 5);
    EXPECT_EQ(p.sd_us, 0);
    EXPECT_EQ(p.p50_us, 5);
    EXPECT_EQ(p.p95_us, 5);
    EXPECT_EQ(p.p99_us, 5);
    EXPECT_EQ(p.max_us, 5);
}

TEST(Percentiles, NearestRankOnFourUnsortedValues) {
    // Sorted 1 2 3 4: p50 is rank ceil(2) = 2, p95 rank ceil(3.8) = 4.
    Percentiles p = percentiles({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(p.mean_us, 2.5);
    EXPECT_DOUBLE_EQ(p.sd_us, 1.118033988749895);   // population: sqrt(1.25)
    EXPECT_EQ(p.p50_us, 2);
    EXPECT_EQ(p.p95_us, 4);
    EXPECT_EQ(p.p99_us, 4);
    EXPECT_EQ(p.max_us, 4);
}

TEST(Percentiles, RanksAreExactAtWholeNumbers) {
    // 0.95 * 20 = 19 exactly: rank 19, not 20 (no floating-point round-up).
    std::vector<double> twenty(20);
    std::iota(twenty.begin(), twenty.end(), 1.0);
    Percentiles p = percentiles(twenty);
    EXPECT_EQ(p.p50_us, 10);
    EXPECT_EQ(p.p95_us, 19);
    EXPECT_EQ(p.p99_us, 20);   // ceil(19.8)

    std::vector<double> hundred(100);
    std::iota(hundred.begin(), hundred.end(), 1.0);
    p = percentiles(hundred);
    EXPECT_DOUBLE_EQ(p.mean_us, 50.5);
    EXPECT_NEAR(p.sd_us, 28.86607004772212, 1e-9);
    EXPECT_EQ(p.p50_us, 50);
    EXPECT_EQ(p.p95_us, 95);
    EXPECT_EQ(p.p99_us, 99);
    EXPECT_EQ(p.max_us, 100);
}

TEST(Stats, SummaryOfAScriptedRun) {
    const Stats stats = stats_of(kRun);
    const Summary s = stats.summarize();
    EXPECT_EQ(s.frames, 6);
    EXPECT_DOUBLE_EQ(s.target_period_us, 10'000);

    // Frame 0 has no interval: five intervals.
    EXPECT_DOUBLE_EQ(s.interval.mean_us, 12'000);
    EXPECT_NEAR(s.interval.sd_us, 3724.5133910351296, 1e-6);
    EXPECT_EQ(s.interval.p50_us, 10'500);
    EXPECT_EQ(s.interval.p95_us, 19'400);
    EXPECT_EQ(s.interval.max_us, 19'400);

    EXPECT_DOUBLE_EQ(s.interval_error.mean_us, 2'240);
    EXPECT_NEAR(s.interval_error.sd_us, 3585.3033344474493, 1e-6);
    EXPECT_EQ(s.interval_error.p50_us, 500);
    EXPECT_EQ(s.interval_error.p99_us, 9'400);
    EXPECT_EQ(s.interval_error.max_us, 9'400);

    // Lateness over all six frames, early clamped to 0: 0 0 0 0 400 600.
    EXPECT_NEAR(s.lateness.mean_us, 1000.0 / 6.0, 1e-9);
    EXPECT_NEAR(s.lateness.sd_us, 242.67032964268395, 1e-9);
    EXPECT_EQ(s.lateness.p50_us, 0);
    EXPECT_EQ(s.lateness.p95_us, 600);
    EXPECT_EQ(s.lateness.max_us, 600);

    // Errors of exactly 500 us are not off; 700 and 9400 are: 2 of 5.
    EXPECT_DOUBLE_EQ(s.off_pct, 40);
    EXPECT_EQ(s.missed, 1);

    // Wall 60 ms. The oldest frame's wait is outside it: spin 1.2 ms, CPU 1.5 ms.
    EXPECT_DOUBLE_EQ(s.spin_pct, 2);
    EXPECT_DOUBLE_EQ(s.cpu_pct, 2.5);
    EXPECT_NEAR(s.fps, 5 / 0.060, 1e-9);
}

TEST(Stats, OffToleranceBoundary) {
    // Same run with a tolerance of 499 us: the two 500 us errors become off.
    Stats stats(1024, 499 * kNsPerUs);
    for (const Frame& f : make_frames(kRun)) stats.add(f);
    EXPECT_DOUBLE_EQ(stats.summarize().off_pct, 80);
    EXPECT_EQ(stats.off_tolerance_ns(), 499 * kNsPerUs);
}

TEST(Stats, CpuUnknownWhenAnyWaitIsUnknown) {
    std::vector<Row> rows = kRun;
    rows[3].cpu_us = -1;
    EXPECT_EQ(stats_of(rows).summarize().cpu_pct, -1);
    // The oldest frame's wait is outside the window's wall time: it is not asked.
    rows = kRun;
    rows[0].cpu_us = -1;
    EXPECT_DOUBLE_EQ(stats_of(rows).summarize().cpu_pct, 2.5);
}

TEST(Stats, RingWrapsAndKeepsTotals) {
    std::vector<Row> rows = kRun;
    rows[1].missed = 2;
    const Stats stats = stats_of(rows, 4);
    EXPECT_EQ(stats.capacity(), 4);
    ASSERT_EQ(stats.size(), 4u);
    EXPECT_EQ(stats.at(0).index, 2);   // oldest kept
    EXPECT_EQ(stats.at(3).index, 5);   // newest
    EXPECT_THROW(stats.at(4), std::out_of_range);
    EXPECT_EQ(stats.total_frames(), 6);
    EXPECT_EQ(stats.total_missed(), 3);

    // Window: frames 2..5. All four have intervals: 10500 9500 10700 19400.
    const Summary s = stats.summarize();
    EXPECT_EQ(s.frames, 4);
    EXPECT_EQ(s.missed, 1);
    EXPECT_DOUBLE_EQ(s.interval.mean_us, 12'525);
    EXPECT_EQ(s.interval.p50_us, 10'500);
    EXPECT_DOUBLE_EQ(s.off_pct, 50);
    // Wall 60 - 20.4 = 39.6 ms; waits of frames 3..5 spun 900 us.
    EXPECT_NEAR(s.spin_pct, 100.0 * 900 / 39'600, 1e-9);
    EXPECT_NEAR(s.fps, 3 / 0.0396, 1e-9);
}

TEST(Stats, HistogramBinsAreHalfOpen) {
    const Stats stats = stats_of(kRun);
    // Intervals 9900 10500 9500 10700 19400 us in bins of 500 from 9000.
    auto h = stats.interval_histogram(9'000, 500, 4);
    ASSERT_EQ(h.size(), 4u);
    EXPECT_EQ(h[0].lower_us, 9'000);
    EXPECT_EQ(h[0].count, 0);
    EXPECT_EQ(h[1].lower_us, 9'500);
    EXPECT_EQ(h[1].count, 2);   // 9500 (on the lower edge), 9900
    EXPECT_EQ(h[2].lower_us, 10'000);
    EXPECT_EQ(h[2].count, 0);
    EXPECT_EQ(h[3].lower_us, 10'500);
    EXPECT_EQ(h[3].count, 2);   // 10500, 10700; 19400 is past the last bin
    // One wide bin from 0: frame 0 (no interval) is not counted.
    h = stats.interval_histogram(0, 20'000, 1);
    EXPECT_EQ(h[0].count, 5);
    EXPECT_THROW(stats.interval_histogram(0, 0, 4), std::invalid_argument);
    EXPECT_THROW(stats.interval_histogram(0, 100, 0), std::invalid_argument);
}

TEST(Stats, ResetEmptiesWindowAndTotals) {
    Stats stats = stats_of(kRun, 4);
    stats.reset();
    EXPECT_EQ(stats.size(), 0u);
    EXPECT_EQ(stats.total_frames(), 0);
    EXPECT_EQ(stats.total_missed(), 0);
    const Summary empty = stats.summarize();
    EXPECT_EQ(empty.frames, 0);
    EXPECT_EQ(empty.fps, 0);
    EXPECT_EQ(empty.interval.max_us, 0);

    // After a reset the first frame kept is not frame 0: its interval counts.
    const std::vector<Frame> frames = make_frames(kRun);
    stats.add(frames[4]);
    stats.add(frames[5]);
    const Summary s = stats.summarize();
    EXPECT_EQ(s.frames, 2);
    EXPECT_EQ(stats.at(0).index, 4);
    EXPECT_DOUBLE_EQ(s.interval.mean_us, (10'700 + 19'400) / 2.0);
    EXPECT_EQ(s.missed, 1);
    EXPECT_EQ(stats.total_missed(), 1);
}

TEST(Stats, OneFrameHasNoWallTime) {
    Stats stats(8);
    stats.add(make_frames(kRun)[0]);
    const Summary s = stats.summarize();
    EXPECT_EQ(s.frames, 1);
    EXPECT_EQ(s.fps, 0);
    EXPECT_EQ(s.spin_pct, 0);
    EXPECT_EQ(s.cpu_pct, 0);
    EXPECT_EQ(s.interval.mean_us, 0);
}

TEST(Stats, ErrorIsAgainstEachFramesOwnPeriod) {
    // A live rate change: the frame at 5 ms intervals is on time for its 5 ms period.
    std::vector<Frame> frames = make_frames({{0, 0, 0, 0, 0, 0}, {1, 10'000, 10'000, 0, 0, 0},
                                             {2, 15'000, 15'000, 0, 0, 0}});
    frames[2].period_ns = 5'000 * kNsPerUs;
    Stats stats(8);
    for (const Frame& f : frames) stats.add(f);
    const Summary s = stats.summarize();
    EXPECT_EQ(s.interval_error.max_us, 0);
    EXPECT_DOUBLE_EQ(s.target_period_us, 5'000);
}

TEST(Stats, BadConstructionThrows) {
    EXPECT_THROW(Stats(0), std::invalid_argument);
    EXPECT_THROW(Stats(4, -1), std::invalid_argument);
}

}  // namespace
}  // namespace pacer
