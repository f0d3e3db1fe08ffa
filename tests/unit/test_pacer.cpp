// test_pacer.cpp: the deadline grid, missed frames, resync and live changes,
// on the fake clock and sleeper (deterministic, exact to the nanosecond).
#include "fakes.h"
#include "base/grid.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <memory>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

constexpr int64_t kDay = 86'400 * kNsPerSecond;

// The k-th grid point of rate num/den Hz, rounded half up to the nanosecond,
// in exact integer arithmetic: k * 1e9 * den / num.
int64_t exact_grid_ns(int64_t k, int64_t hz_num, int64_t hz_den = 1) {
    const __int128 twice = static_cast<__int128>(k) * 2 * kNsPerSecond * hz_den;
    return static_cast<int64_t>((twice + hz_num) / (2 * hz_num));
}

}  // namespace

// ---------------------------------------------------------------------------
// The grid arithmetic
// ---------------------------------------------------------------------------

TEST(Grid, PointsAreExactForWholeAndFractionalPeriods) {
    detail::Grid grid;
    for (int64_t hz : {1000, 60, 144, 240, 7}) {
        grid.anchor(123, static_cast<double>(hz));
        for (int64_t k : {0L, 1L, 2L, 3L, 1000L, 999'999L, 1'000'000L}) {
            EXPECT_EQ(grid.at(k), 123 + exact_grid_ns(k, hz)) << hz << " Hz, k=" << k;
        }
    }
}

// A 7-day run at 1 kHz is 6.048e8 frames: too many to loop through a Pacer
// in a unit test. The Pacer's deadlines are Grid::at(k) for the k frames since
// the last anchor (the tests below check that frame by frame), so the grid
// is checked here directly at the 7-day step counts, against exact integer
// arithmetic; PacerLongRun then runs a Pacer across the 7-day point on the
// clock's timeline to show the absolute times do not overflow either.
TEST(Grid, SevenDaysAtOneKilohertzIsExact) {
    detail::Grid grid;
    const int64_t anchor = 5 * kNsPerSecond;
    grid.anchor(anchor, 1000);
    const int64_t week_frames = 7 * 86'400 * 1000;   // 6.048e8
    EXPECT_EQ(grid.at(week_frames), anchor + 7 * kDay);
    for (int64_t k = week_frames - 3; k <= week_frames + 3; ++k) {
        EXPECT_EQ(grid.at(k + 1) - grid.at(k), 1 * kNsPerMs);
    }
}

TEST(Grid, SevenDaysAtFractionalPeriodsHasNoDrift) {
    detail::Grid grid;
    for (int64_t hz : {60, 144, 240, 7}) {
        grid.anchor(0, static_cast<double>(hz));
        const int64_t week_frames = 7 * 86'400 * hz;
        // Exactly 7 days after 7 days' worth of frames: no accumulated rounding.
        EXPECT_EQ(grid.at(week_frames), 7 * kDay) << hz << " Hz";
        for (int64_t k = week_frames - 5; k <= week_frames + 5; ++k) {
            EXPECT_EQ(grid.at(k), exact_grid_ns(k, hz)) << hz << " Hz, k=" << k;
        }
    }
    // Adding a rounded period instead would be 12 ms off after a week at 60 Hz:
    // the failure this design avoids.
    EXPECT_NE(7 * 86'400 * 60 * std::llround(1e9 / 60), 7 * kDay);
}

TEST(Grid, CenturyHorizonStaysExact) {
    // Far past a week: 100 years at 144 Hz and at 10 kHz, still to the nanosecond.
    detail::Grid grid;
    const int64_t century_s = 100LL * 365 * 86'400;
    grid.anchor(0, 144);
    EXPECT_EQ(grid.at(century_s * 144), century_s * kNsPerSecond);
    EXPECT_EQ(grid.at(century_s * 144 + 1), exact_grid_ns(century_s * 144 + 1, 144));
    grid.anchor(0, 10'000);
    EXPECT_EQ(grid.at(century_s * 10'000), century_s * kNsPerSecond);
}

// ---------------------------------------------------------------------------
// No drift
// ---------------------------------------------------------------------------

TEST(PacerDrift, MillionFramesAt60HzStayOnTheExactGrid) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.pause_ns = 1 * kNsPerUs;   // coarse spin turns keep a million frames fast
    Pacer pacer(fake_config(clock, sleeper, 60, Strategy::Timer));
    const Frame first = pacer.wait();
    ASSERT_TRUE(first.resynced);
    const int64_t anchor = first.deadline_ns;
    int64_t worst_lateness = 0;
    int64_t mismatches = 0;
    const int64_t frames = 1'000'000;
    for (int64_t k = 1; k <= frames; ++k) {
        clock.advance_busy((3 + k % 7) * kNsPerMs);   // 3..9 ms of engine work, always on time
        const Frame f = pacer.wait();
        if (f.deadline_ns != anchor + exact_grid_ns(k, 60)) ++mismatches;
        worst_lateness = std::max(worst_lateness, f.lateness_ns);
        ASSERT_GE(f.lateness_ns, 0);
        ASSERT_EQ(f.missed, 0);
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_LT(worst_lateness, sleeper.pause_ns);
    // A million frames of 1/60 s end exactly 16666.666667 s (rounded) later.
    EXPECT_EQ(pacer.stats().at(pacer.stats().size() - 1).deadline_ns, anchor + 16'666'666'666'667);
}

TEST(PacerDrift, NaiveSleepDriftsByItsOvershoot) {
    // The same measurement catches the drift the sleep strategy is there to show.
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = 80 * kNsPerUs;
    Pacer pacer(fake_config(clock, sleeper, 100, Strategy::Sleep));
    const int64_t anchor = pacer.wait().wake_ns;
    Frame f{};
    for (int k = 1; k <= 1000; ++k) {
        clock.advance_busy(2 * kNsPerMs);
        f = pacer.wait();
        EXPECT_EQ(f.interval_ns, 10 * kNsPerMs + 80 * kNsPerUs);
    }
    EXPECT_EQ(f.wake_ns - anchor, 1000 * (10 * kNsPerMs + 80 * kNsPerUs));   // 80 ms behind the grid
}

// ---------------------------------------------------------------------------
// A run across the 7-day point of the clock's timeline
// ---------------------------------------------------------------------------

TEST(PacerLongRun, SevenDaysIntoTheTimelineAt1kHzIsExact) {
    // See Grid.SevenDaysAtOneKilohertzIsExact for why the run starts near the
    // 7-day point rather than looping through 6e8 frames.
    FakeClock clock(7 * kDay - 5 * kNsPerSecond);
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 1000, Strategy::Timer));
    const int64_t anchor = pacer.wait().deadline_ns;
    for (int64_t k = 1; k <= 10'000; ++k) {   // crosses 7 days at k = 5000
        clock.advance_busy(300 * kNsPerUs);
        const Frame f = pacer.wait();
        ASSERT_EQ(f.deadline_ns, anchor + k * kNsPerMs);
        ASSERT_EQ(f.wake_ns, f.deadline_ns);
        ASSERT_EQ(f.interval_ns, 1 * kNsPerMs);
        ASSERT_EQ(f.work_ns, 300 * kNsPerUs);
    }
    const Summary s = pacer.stats().summarize();
    EXPECT_DOUBLE_EQ(s.interval.max_us, 1000.0);
    EXPECT_EQ(s.missed, 0);
}

// ---------------------------------------------------------------------------
// The first frame and what each frame reports
// ---------------------------------------------------------------------------

TEST(Pacer, FirstWaitAnchorsAtNowAndReturnsAtOnce) {
    FakeClock clock(42 * kNsPerSecond);
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60));
    const Frame f = pacer.wait();
    EXPECT_EQ(f.index, 0);
    EXPECT_EQ(f.deadline_ns, 42 * kNsPerSecond);
    EXPECT_EQ(f.wake_ns, 42 * kNsPerSecond);
    EXPECT_EQ(f.interval_ns, 0);
    EXPECT_EQ(f.work_ns, 0);
    EXPECT_TRUE(f.resynced);
    EXPECT_EQ(f.present_ns, -1);
    EXPECT_TRUE(sleeper.until_requests.empty());
    EXPECT_EQ(pacer.stats().total_frames(), 1);
}

TEST(Pacer, FrameFieldsAccountForWorkSleepSpinCpuAndPresent) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_lateness_ns = 50 * kNsPerUs;
    Pacer pacer(fake_config(clock, sleeper, 100, Strategy::Timer));
    const Frame f0 = pacer.wait();
    clock.advance_busy(4 * kNsPerMs);
    pacer.mark_present();   // at f0 + 4 ms
    const int64_t cpu_before = clock.cpu_ns();
    const Frame f1 = pacer.wait();
    EXPECT_EQ(f1.index, 1);
    EXPECT_EQ(f1.deadline_ns, f0.deadline_ns + 10 * kNsPerMs);
    EXPECT_EQ(f1.work_ns, 4 * kNsPerMs);
    EXPECT_EQ(f1.present_ns, f0.wake_ns + 4 * kNsPerMs);
    // Timer to deadline - 140 us (the starting 200 us, cut to the wait's CPU
    // budget of min(140 us, 1.4 % of 10 ms): the fake's sleep costs no CPU),
    // woke 50 us late, spun 90 us.
    EXPECT_EQ(f1.slept_ns, 6 * kNsPerMs - 140 * kNsPerUs + 50 * kNsPerUs);
    EXPECT_EQ(f1.spun_ns, 90 * kNsPerUs);
    EXPECT_EQ(f1.wait_cpu_ns, clock.cpu_ns() - cpu_before);
    EXPECT_EQ(f1.wait_cpu_ns, 90 * kNsPerUs);
    EXPECT_EQ(f1.wake_ns, f1.deadline_ns);
    EXPECT_EQ(f1.interval_ns, 10 * kNsPerMs);
    EXPECT_EQ(f1.period_ns, 10 * kNsPerMs);
    EXPECT_EQ(f1.strategy, Strategy::Timer);
    // mark_present with an explicit time, then none: -1 on the frame after.
    pacer.mark_present(f1.wake_ns + 123);
    EXPECT_EQ(pacer.wait().present_ns, f1.wake_ns + 123);
    EXPECT_EQ(pacer.wait().present_ns, -1);
}

TEST(Pacer, UnknownThreadCpuGivesMinusOne) {
    FakeClock clock;
    clock.cpu_known = false;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    pacer.wait();
    EXPECT_EQ(pacer.wait().wait_cpu_ns, -1);
}

TEST(Pacer, EveryFrameGoesToTheStats) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, 100);
    config.stats.history_frames = 16;
    Pacer pacer(config);
    for (int i = 0; i < 40; ++i) pacer.wait();
    EXPECT_EQ(pacer.stats().total_frames(), 40);
    EXPECT_EQ(pacer.stats().size(), 16u);
    EXPECT_EQ(pacer.stats().at(15).index, 39);
    pacer.reset_stats();
    EXPECT_EQ(pacer.stats().size(), 0u);
    EXPECT_EQ(pacer.wait().index, 40);   // the grid and the count go on
}

// ---------------------------------------------------------------------------
// Missed frames: skip versus catch-up, and resync
// ---------------------------------------------------------------------------

TEST(PacerMissed, SkipJumpsToTheNextGridPointWithoutBurst) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));   // Skip is the default
    const int64_t d0 = pacer.wait().deadline_ns;
    clock.advance_busy(25 * kNsPerMs);   // late past d0 + 10 and d0 + 20
    const Frame late = pacer.wait();
    EXPECT_EQ(late.missed, 2);
    EXPECT_EQ(late.deadline_ns, d0 + 30 * kNsPerMs);
    EXPECT_EQ(late.wake_ns, d0 + 30 * kNsPerMs);   // waited for the grid, no burst
    EXPECT_EQ(late.interval_ns, 30 * kNsPerMs);
    EXPECT_FALSE(late.resynced);
    clock.advance_busy(1 * kNsPerMs);
    const Frame next = pacer.wait();
    EXPECT_EQ(next.deadline_ns, d0 + 40 * kNsPerMs);
    EXPECT_EQ(next.missed, 0);
    EXPECT_EQ(pacer.stats().total_missed(), 2);
}

TEST(PacerMissed, SkipTreatsAPointAtNowAsOnTime) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    const int64_t d0 = pacer.wait().deadline_ns;
    clock.advance_busy(20 * kNsPerMs);   // exactly on d0 + 20: d0 + 10 was missed
    const Frame f = pacer.wait();
    EXPECT_EQ(f.missed, 1);
    EXPECT_EQ(f.deadline_ns, d0 + 20 * kNsPerMs);
    EXPECT_EQ(f.wake_ns, d0 + 20 * kNsPerMs);
}

TEST(PacerMissed, LessThanAPeriodLateIsNotMissed) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    const int64_t d0 = pacer.wait().deadline_ns;
    clock.advance_busy(19 * kNsPerMs);   // 9 ms past d0 + 10
    const Frame f = pacer.wait();
    EXPECT_EQ(f.missed, 0);
    EXPECT_EQ(f.deadline_ns, d0 + 10 * kNsPerMs);
    EXPECT_EQ(f.lateness_ns, 9 * kNsPerMs);
    clock.advance_busy(0);
    EXPECT_EQ(pacer.wait().deadline_ns, d0 + 20 * kNsPerMs);   // the grid holds
}

TEST(PacerMissed, CatchUpRunsLateFramesBackToBackUntilOnTheGrid) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, 100);
    config.miss_policy = MissPolicy::CatchUp;
    Pacer pacer(config);
    const int64_t d0 = pacer.wait().deadline_ns;
    clock.advance_busy(25 * kNsPerMs);
    const Frame a = pacer.wait();   // aims at d0 + 10, 15 ms late: at once
    EXPECT_EQ(a.deadline_ns, d0 + 10 * kNsPerMs);
    EXPECT_EQ(a.wake_ns, d0 + 25 * kNsPerMs);
    EXPECT_EQ(a.missed, 0);
    const Frame b = pacer.wait();   // d0 + 20, still passed: at once
    EXPECT_EQ(b.deadline_ns, d0 + 20 * kNsPerMs);
    EXPECT_EQ(b.wake_ns, d0 + 25 * kNsPerMs);
    const Frame c = pacer.wait();   // d0 + 30: caught up, waits
    EXPECT_EQ(c.deadline_ns, d0 + 30 * kNsPerMs);
    EXPECT_EQ(c.wake_ns, d0 + 30 * kNsPerMs);
    EXPECT_EQ(pacer.stats().total_missed(), 0);
}

TEST(PacerMissed, LongStallResyncsAtNowWhateverThePolicy) {
    for (MissPolicy policy : {MissPolicy::Skip, MissPolicy::CatchUp}) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        Config config = fake_config(clock, sleeper, 60);
        config.miss_policy = policy;
        Pacer pacer(config);
        pacer.wait();
        clock.advance(3 * kNsPerSecond);   // a debugger stop
        const int64_t t = clock.now_ns();
        const Frame f = pacer.wait();
        EXPECT_TRUE(f.resynced);
        EXPECT_EQ(f.deadline_ns, t);
        EXPECT_EQ(f.wake_ns, t);
        EXPECT_GT(f.missed, 170);   // ~180 grid points went by
        const Frame g = pacer.wait();
        EXPECT_FALSE(g.resynced);
        EXPECT_EQ(g.deadline_ns, t + exact_grid_ns(1, 60));   // the new grid starts at t
        EXPECT_EQ(g.interval_ns, g.deadline_ns - t);
    }
}

TEST(PacerMissed, ResyncThresholdIsResyncAfterPeriods) {
    for (int64_t late_periods : {7, 8}) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        Config config = fake_config(clock, sleeper, 100);
        config.resync_after_periods = 8;
        Pacer pacer(config);
        pacer.wait();
        clock.advance((1 + late_periods) * 10 * kNsPerMs);   // late_periods past the next point
        const Frame f = pacer.wait();
        EXPECT_EQ(f.resynced, late_periods >= 8) << late_periods;
    }
}

// ---------------------------------------------------------------------------
// Live changes
// ---------------------------------------------------------------------------

TEST(PacerLive, RateChangeTakesTheNewPeriodFromTheLastDeadline) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    pacer.wait();
    Frame f{};
    for (int i = 0; i < 5; ++i) {
        clock.advance_busy(2 * kNsPerMs);
        f = pacer.wait();
        ASSERT_EQ(f.interval_ns, 10 * kNsPerMs);
    }
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 250; }), "");
    EXPECT_EQ(pacer.config().target_hz, 250);
    const int64_t last = f.deadline_ns;
    for (int i = 1; i <= 5; ++i) {
        clock.advance_busy(1 * kNsPerMs);
        f = pacer.wait();
        EXPECT_EQ(f.deadline_ns, last + i * 4 * kNsPerMs);
        EXPECT_EQ(f.interval_ns, 4 * kNsPerMs);   // the very first new interval is already 4 ms
        EXPECT_EQ(f.period_ns, 4 * kNsPerMs);
        EXPECT_EQ(f.missed, 0);
    }
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 50; }), "");   // slower again: no hitch either way
    const int64_t last2 = f.deadline_ns;
    clock.advance_busy(1 * kNsPerMs);
    f = pacer.wait();
    EXPECT_EQ(f.deadline_ns, last2 + 20 * kNsPerMs);
    EXPECT_EQ(f.interval_ns, 20 * kNsPerMs);
}

TEST(PacerLive, RateChangeAfterAFractionalPeriodStaysExact) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60));
    pacer.wait();
    Frame f{};
    for (int i = 0; i < 7; ++i) f = pacer.wait();
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 144; }), "");
    const int64_t last = f.deadline_ns;
    for (int64_t k = 1; k <= 1000; ++k) {
        f = pacer.wait();
        ASSERT_EQ(f.deadline_ns, last + exact_grid_ns(k, 144));
    }
}

TEST(PacerLive, InvalidConfigIsRefusedWithItsLineAndChangesNothing) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    pacer.wait();
    for (double hz : {0.0, -60.0, 20000.0, std::numeric_limits<double>::quiet_NaN()}) {
        const std::string line = pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = hz; });
        EXPECT_EQ(line.rfind("target_hz: ", 0), 0u) << hz << " Hz: " << line;
    }
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.tuning.timer.max_wait_cpu_ns = -1; }),
              "tuning.timer.max_wait_cpu_ns: -1 is out of range [0, 1000000000]");
    FakeClock other;
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.clock = &other; }),
              "clock: cannot change after construction");
    EXPECT_EQ(pacer.config().target_hz, 100);
    EXPECT_EQ(pacer.config().tuning.timer.max_wait_cpu_ns, Config{}.tuning.timer.max_wait_cpu_ns);
    EXPECT_EQ(pacer.wait().interval_ns, 10 * kNsPerMs);
}

// A change of rate, strategy and sleeper mid-run: the index counts on, every
// deadline is the last one plus the period in force, and nothing is skipped.
TEST(PacerLive, RateStrategyAndSleeperChangesKeepIndexAndGridContinuous) {
    FakeClock clock;
    FakeSleeper first(clock), second(clock);
    Pacer pacer(fake_config(clock, first, 100));
    Frame last = pacer.wait();
    const auto run = [&](int frames, int64_t period_ns) {
        for (int i = 0; i < frames; ++i) {
            clock.advance_busy(2 * kNsPerMs);
            const Frame f = pacer.wait();
            EXPECT_EQ(f.index, last.index + 1);
            EXPECT_EQ(f.deadline_ns, last.deadline_ns + period_ns);
            EXPECT_EQ(f.missed, 0);
            EXPECT_FALSE(f.resynced);
            last = f;
        }
    };
    run(3, 10 * kNsPerMs);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 50; }), "");
    run(3, 20 * kNsPerMs);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.strategy = Strategy::Spin; }), "");
    run(3, 20 * kNsPerMs);
    EXPECT_EQ(last.strategy, Strategy::Spin);
    const std::size_t first_pauses = static_cast<std::size_t>(first.pauses);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) {
                  c.sleeper = &second;
                  c.strategy = Strategy::Timer;
                  c.target_hz = 100;
              }),
              "");
    const std::size_t second_requests = second.until_requests.size();
    run(3, 10 * kNsPerMs);
    EXPECT_EQ(static_cast<std::size_t>(first.pauses), first_pauses);   // the old sleeper is left alone
    EXPECT_EQ(second.until_requests.size(), second_requests + 3);      // the new one waits
    EXPECT_EQ(pacer.stats().total_frames(), last.index + 1);           // the statistics continue
}

TEST(PacerLive, TheSameConfigAgainDoesNothing) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    pacer.wait();
    const int32_t seq = pacer.decision().seq;
    EXPECT_EQ(pacer.reconfigure(pacer.config()), "");
    EXPECT_EQ(pacer.decision().seq, seq);
    EXPECT_EQ(pacer.wait().interval_ns, 10 * kNsPerMs);
}

TEST(PacerLive, StatsWindowChangesKeepTheNewestFramesAndTotals) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, 100);
    config.stats.history_frames = 8;
    Pacer pacer(config);
    for (int i = 0; i < 8; ++i) pacer.wait();
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) {
                  c.stats.history_frames = 4;
                  c.stats.off_tolerance_ns = 0;
              }),
              "");
    EXPECT_EQ(pacer.stats().size(), 4u);
    EXPECT_EQ(pacer.stats().at(0).index, 4);
    EXPECT_EQ(pacer.stats().total_frames(), 8);
    EXPECT_EQ(pacer.stats().off_tolerance_ns(), 0);
    pacer.wait();
    EXPECT_EQ(pacer.stats().at(3).index, 8);
}

// Strategy parameters apply at the next wait: a new margin setting restarts
// the timer's margin from tuning.timer.margin_ns; precise_sleep's new first guess
// restarts its estimator.
TEST(PacerLive, StrategyParametersApplyLive) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    for (int i = 0; i < 5; ++i) pacer.wait();
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) {
                  c.tuning.timer.margin_ns = 300 * kNsPerUs;
                  c.tuning.timer.max_wait_cpu_pct = 100;   // no budget cut: the margin shows as set
                  c.tuning.timer.max_wait_cpu_ns = 1'000'000'000;
                  c.tuning.precise.initial_estimate_ns = 3 * kNsPerMs;
              }),
              "");
    EXPECT_EQ(pacer.status().timer_margin_ns, 300 * kNsPerUs);
    EXPECT_EQ(pacer.status().precise_estimate_ns, 3.0 * kNsPerMs);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.tuning.timer.max_wait_cpu_ns = 40 * kNsPerUs; }), "");
    EXPECT_EQ(pacer.status().timer_margin_ns, 40 * kNsPerUs);   // the spin budget applies at once
    clock.advance_busy(2 * kNsPerMs);
    const Frame f = pacer.wait();
    EXPECT_EQ(sleeper.until_requests.back(), f.deadline_ns - 40 * kNsPerUs);
}

TEST(PacerCreate, ReturnsNullAndTheLineForAnInvalidConfig) {
    Config config;
    config.stats.history_frames = 0;
    std::string error = "untouched";
    EXPECT_EQ(Pacer::create(config, &error), nullptr);
    EXPECT_EQ(error, "stats.history_frames: 0 is out of range [2, 1000000]");
    EXPECT_EQ(Pacer::create(config), nullptr);   // the error line is optional
    EXPECT_THROW(Pacer{config}, std::invalid_argument);
}

TEST(PacerCreate, MakesAPacerForAValidConfig) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    std::string error = "untouched";
    std::unique_ptr<Pacer> pacer = Pacer::create(fake_config(clock, sleeper, 100), &error);
    ASSERT_NE(pacer, nullptr);
    EXPECT_EQ(error, "");
    EXPECT_EQ(pacer->wait().index, 0);
    EXPECT_EQ(pacer->wait().interval_ns, 10 * kNsPerMs);
}

// 0 asked for is 0 got, where 0 is legal.
TEST(PacerZero, NoSpinTailWithMaxSpinZero) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_lateness_ns = 30 * kNsPerUs;
    Config config = fake_config(clock, sleeper, 100);
    config.tuning.timer.max_wait_cpu_ns = 0;
    Pacer pacer(config);
    pacer.wait();
    for (int i = 0; i < 5; ++i) {
        clock.advance_busy(2 * kNsPerMs);
        const Frame f = pacer.wait();
        EXPECT_EQ(f.spun_ns, 0);
        EXPECT_EQ(f.lateness_ns, 30 * kNsPerUs);                       // the timer's own lateness stays
        EXPECT_EQ(sleeper.until_requests.back(), f.deadline_ns);  // aimed at the deadline itself
    }
    EXPECT_EQ(pacer.status().timer_margin_ns, 0);
}

TEST(PacerZero, RobustToleranceZeroLeavesExactlyOnePeriod) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, 100, Strategy::RobustSleep);
    config.tuning.scheduler_period_ns = 1 * kNsPerMs;
    config.tuning.robust.tolerance_ns = 0;
    Pacer pacer(config);
    pacer.wait();
    sleeper.sleep_requests.clear();
    pacer.wait();   // 10 ms ahead: sleep 9 whole periods, spin the last one
    ASSERT_EQ(sleeper.sleep_requests.size(), 1u);
    EXPECT_EQ(sleeper.sleep_requests[0], 9 * kNsPerMs);
}

TEST(PacerZero, MinMarginAndPadZeroLetTheMarginReachZero) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_lateness_ns = 0;   // a perfect timer
    Config config = fake_config(clock, sleeper, 100);
    config.tuning.timer.min_margin_ns = 0;
    config.tuning.timer.margin_pad_ns = 0;
    Pacer pacer(config);
    for (int i = 0; i < 5; ++i) pacer.wait();
    EXPECT_EQ(pacer.status().timer_margin_ns, 0);
}

TEST(PacerZero, OffToleranceZeroCountsEveryUnevenInterval) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_lateness_ns = 0;
    Config config = fake_config(clock, sleeper, 100, Strategy::Sleep);
    config.stats.off_tolerance_ns = 0;
    sleeper.sleep_overshoot_ns = 1;   // every sleep 1 ns long
    Pacer pacer(config);
    for (int i = 0; i < 5; ++i) pacer.wait();
    EXPECT_EQ(pacer.stats().off_tolerance_ns(), 0);
    EXPECT_EQ(pacer.stats().summarize().off_pct, 100.0);
}

TEST(PacerLive, StrategyChangesKeepTheGridWithoutHitch) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, 100);
    config.tuning.scheduler_period_ns = 1 * kNsPerMs;
    Pacer pacer(config);
    const int64_t d0 = pacer.wait().deadline_ns;
    int64_t k = 0;
    for (Strategy s : {Strategy::Spin, Strategy::RobustSleep, Strategy::PreciseSleep, Strategy::Sleep,
                       Strategy::Timer}) {
        EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.strategy = s; }), "");
        for (int i = 0; i < 3; ++i) {
            clock.advance_busy(3 * kNsPerMs);
            const Frame f = pacer.wait();
            ++k;
            EXPECT_EQ(f.deadline_ns, d0 + k * 10 * kNsPerMs) << strategy_name(s);
            EXPECT_GE(f.lateness_ns, 0);
            EXPECT_LT(f.lateness_ns, sleeper.pause_ns) << strategy_name(s);
            EXPECT_EQ(f.missed, 0);
            EXPECT_EQ(f.strategy, s);
        }
    }
    EXPECT_EQ(pacer.config().strategy, Strategy::Timer);
}

TEST(PacerLive, MissPolicyChangeAppliesAtTheNextWait) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    const int64_t d0 = pacer.wait().deadline_ns;
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.miss_policy = MissPolicy::CatchUp; }), "");
    clock.advance_busy(25 * kNsPerMs);
    EXPECT_EQ(pacer.wait().deadline_ns, d0 + 10 * kNsPerMs);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.miss_policy = MissPolicy::Skip; }), "");
    EXPECT_EQ(pacer.config().miss_policy, MissPolicy::Skip);
    clock.advance_busy(30 * kNsPerMs);   // now at d0 + 55: skip to d0 + 60
    const Frame f = pacer.wait();
    EXPECT_EQ(f.deadline_ns, d0 + 60 * kNsPerMs);
    EXPECT_EQ(f.missed, 4);   // d0 + 20, 30, 40, 50
}

// ---------------------------------------------------------------------------
// Several pacers, configuration
// ---------------------------------------------------------------------------

TEST(Pacer, SeveralPacersKeepSeparateGrids) {
    FakeClock clock_a, clock_b(77 * kNsPerSecond);
    FakeSleeper sleeper_a(clock_a), sleeper_b(clock_b);
    Pacer a(fake_config(clock_a, sleeper_a, 100, Strategy::Spin));
    Pacer b(fake_config(clock_b, sleeper_b, 250, Strategy::RobustSleep));
    const int64_t a0 = a.wait().deadline_ns, b0 = b.wait().deadline_ns;
    for (int64_t k = 1; k <= 50; ++k) {
        EXPECT_EQ(a.wait().deadline_ns, a0 + k * 10 * kNsPerMs);
        EXPECT_EQ(b.wait().deadline_ns, b0 + k * 4 * kNsPerMs);
    }
    EXPECT_EQ(a.stats().total_frames(), 51);
    EXPECT_EQ(b.status().strategy, Strategy::RobustSleep);
    EXPECT_EQ(a.status().strategy, Strategy::Spin);
}

TEST(Pacer, ConfigIsResolvedAndInvalidConfigThrows) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config zero{};
    zero.clock = &clock;
    zero.sleeper = &sleeper;
    Pacer pacer(zero);
    EXPECT_EQ(pacer.config().target_hz, 60);
    EXPECT_EQ(pacer.config().strategy, Strategy::Timer);
    EXPECT_EQ(pacer.config().miss_policy, MissPolicy::Skip);
    EXPECT_EQ(&pacer.clock(), &clock);
    EXPECT_EQ(pacer.config().clock, &clock);   // injected pointers are kept as given

    Config bad = zero;
    bad.tuning.timer.margin_window = -1;
    EXPECT_THROW(Pacer{bad}, std::invalid_argument);
}

TEST(Pacer, DefaultConstructedUsesTheOsClock) {
    Pacer pacer;   // OsClock + OsSleeper, 60 Hz timer
    // The owned defaults stay private: a copy of config() makes its own.
    EXPECT_EQ(pacer.config().clock, nullptr);
    EXPECT_EQ(pacer.config().sleeper, nullptr);
    const Frame f = pacer.wait();
    EXPECT_GT(f.wake_ns, 0);
    EXPECT_EQ(pacer.status().strategy, Strategy::Timer);
}
