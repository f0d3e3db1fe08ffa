// test_os.cpp: the real clock and sleeps. This runs on a noisy shared VM, so
// only lower bounds (never early) and generous medians are asserted.
#include "os/os.h"

#include <pacer/pacer.h>

#include <gtest/gtest.h>

#include "fakes.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pacer;

namespace {

int64_t median(std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

TEST(OsClock, IsMonotonic) {
    OsClock clock;
    int64_t previous = clock.now_ns();
    EXPECT_GT(previous, 0);
    for (int i = 0; i < 100'000; ++i) {
        const int64_t now = clock.now_ns();
        ASSERT_GE(now, previous);
        previous = now;
    }
}

TEST(OsClock, ThreadCpuTimeGrowsWhileBusyNotWhileAsleep) {
    OsClock clock;
    const int64_t cpu0 = clock.thread_cpu_ns();
    if (cpu0 < 0) GTEST_SKIP() << "thread CPU time unknown on this OS";
    const int64_t until = clock.now_ns() + 20 * kNsPerMs;
    while (clock.now_ns() < until) {
    }
    const int64_t cpu1 = clock.thread_cpu_ns();
    EXPECT_GT(cpu1 - cpu0, 1 * kNsPerMs);   // most of 20 ms busy, even when preempted a lot
    OsSleeper sleeper;
    sleeper.sleep_ns(50 * kNsPerMs);
    EXPECT_LT(clock.thread_cpu_ns() - cpu1, 25 * kNsPerMs);   // sleeping costs (almost) nothing
}

#if defined(__linux__)
// Whatever the machine's load, the run-queue wait can only grow, and never
// faster than wall time.
TEST(OsClock, LinuxRunQueueWaitIsKnownAndNeverDecreases) {
    OsClock clock;
    const int64_t start_wait = clock.thread_runqueue_wait_ns();
    const int64_t start_wall = clock.now_ns();
    ASSERT_GE(start_wait, 0);
    int64_t previous = start_wait;
    for (int i = 0; i < 200; ++i) {
        os::sleep_ns(50 * kNsPerUs);
        const int64_t now = clock.thread_runqueue_wait_ns();
        EXPECT_GE(now, previous);
        previous = now;
    }
    EXPECT_LE(previous - start_wait, clock.now_ns() - start_wall);
}
#else
TEST(OsClock, RunQueueWaitIsUnknownOffLinux) { EXPECT_EQ(OsClock().thread_runqueue_wait_ns(), -1); }
#endif

TEST(OsSleeper, RelativeSleepIsNeverShort) {
    OsClock clock;
    OsSleeper sleeper;
    std::vector<int64_t> over;
    for (int64_t d : {50 * kNsPerUs, 500 * kNsPerUs, 1 * kNsPerMs, 3 * kNsPerMs}) {
        for (int i = 0; i < 10; ++i) {
            const int64_t start = clock.now_ns();
            sleeper.sleep_ns(d);
            const int64_t slept = clock.now_ns() - start;
            ASSERT_GE(slept, d);
            over.push_back(slept - d);
        }
    }
    EXPECT_LT(median(over), 20 * kNsPerMs);   // generous: a loaded VM, a 15.6 ms Windows tick
}

TEST(OsSleeper, TimerNeverWakesBeforeTheDeadline) {
    OsClock clock;
    OsSleeper sleeper;
    if (!sleeper.has_high_res_timer()) GTEST_SKIP() << sleeper.describe();
    std::vector<int64_t> lateness;
    for (int i = 0; i < 50; ++i) {
        const int64_t deadline = clock.now_ns() + 2 * kNsPerMs;
        ASSERT_TRUE(sleeper.sleep_until_ns(deadline));
        const int64_t woke = clock.now_ns();
        ASSERT_GE(woke, deadline) << "woke " << deadline - woke << " ns early";
        lateness.push_back(woke - deadline);
    }
    EXPECT_LT(median(lateness), 20 * kNsPerMs);
    // A deadline already passed returns (late, not never).
    EXPECT_TRUE(sleeper.sleep_until_ns(clock.now_ns() - 1 * kNsPerMs));
}

TEST(OsSleeper, RefusedTimerFallsBackAndSaysSo) {
    OsSleeper::Options options{};
    options.refuse_high_res_timer = true;
    OsSleeper sleeper(options);
    EXPECT_FALSE(sleeper.has_high_res_timer());
    OsClock clock;
    const int64_t start = clock.now_ns();
    EXPECT_FALSE(sleeper.sleep_until_ns(start + 500 * kNsPerMs));
    EXPECT_LT(clock.now_ns() - start, 400 * kNsPerMs);   // refused without waiting
    EXPECT_FALSE(sleeper.describe().empty());
    EXPECT_NE(sleeper.describe(), OsSleeper().describe());
}

TEST(OsSleeper, PeriodFromOptionsElseTheOsElseOneMillisecond) {
    OsSleeper::Options options{};
    options.scheduler_period_ns = 4 * kNsPerMs;
    EXPECT_EQ(OsSleeper(options).scheduler_period_ns(), 4 * kNsPerMs);
    const int64_t stated = os::scheduler_period_ns();
    EXPECT_EQ(OsSleeper().scheduler_period_ns(), stated > 0 ? stated : 1 * kNsPerMs);
    EXPECT_TRUE(pacer::testing::contains(OsSleeper().describe(), "period")) << OsSleeper().describe();
}

TEST(OsTimerSlack, SetThenReadBackWhereSupported) {
    int64_t original = 0;
    if (!os::timer_slack_get(&original)) GTEST_SKIP() << "no timer slack on this OS";
    ASSERT_TRUE(os::timer_slack_set(1'000));
    int64_t now = 0;
    ASSERT_TRUE(os::timer_slack_get(&now));
    EXPECT_EQ(now, 1'000);
    EXPECT_FALSE(os::timer_slack_set(0));   // would mean "default", not 0 ns: refused
    ASSERT_TRUE(os::timer_slack_set(original));
}

TEST(OsPacer, RealTimerPacerNeverWakesBeforeItsDeadline) {
    Config config{};
    config.target_hz = 200;
    Pacer pacer(config);
    pacer.wait();
    std::vector<int64_t> intervals;
    for (int i = 0; i < 60; ++i) {
        const Frame f = pacer.wait();
        if (f.resynced) continue;   // a VM stall of 40 ms+ re-anchors; not what this checks
        ASSERT_GE(f.wake_ns, f.deadline_ns);
        ASSERT_GE(f.lateness_ns, 0);
        intervals.push_back(f.interval_ns);
    }
    ASSERT_FALSE(intervals.empty());
    EXPECT_GE(median(intervals), 4 * kNsPerMs);   // 5 ms period; the grid never runs fast
}

TEST(OsPacer, SimulatedTickOverTheRealSleeperWakesOnTicks) {
    OsClock clock;
    OsSleeper inner;
    SimulatedSchedulerConfig sim_config{};
    sim_config.period_ns = 5 * kNsPerMs;
    SimulatedScheduler sim(inner, clock, sim_config);
    for (int i = 0; i < 10; ++i) {
        const int64_t start = clock.now_ns();
        sim.sleep_ns(1 * kNsPerMs);
        const int64_t woke = clock.now_ns();
        const int64_t first_tick = (start + 1 * kNsPerMs + 5 * kNsPerMs - 1) / (5 * kNsPerMs) * (5 * kNsPerMs);
        ASSERT_GE(woke, first_tick);   // never before the tick the sleep rounds up to
    }
}

TEST(OsSleeper, OptionsOutOfRangeAreRefusedNotLeftAlone) {
    // -1 leaves the thread's own; 0 and other negatives were silently "leave",
    // and a slice past 100 ms silently clamped.
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
    for (int64_t slack : {int64_t{0}, int64_t{-2}, kMin, int64_t{100'000'001}}) {
        OsSleeper::Options options{};
        options.wait_timer_slack_ns = slack;
        EXPECT_THROW(OsSleeper{options}, std::invalid_argument) << slack;
    }
    for (int64_t slice : {int64_t{0}, int64_t{-5}, int64_t{99'999}, kMax}) {
        OsSleeper::Options options{};
        options.wait_sched_slice_ns = slice;
        EXPECT_THROW(OsSleeper{options}, std::invalid_argument) << slice;
    }
    OsSleeper::Options leave{};
    leave.wait_timer_slack_ns = -1;
    leave.wait_sched_slice_ns = -1;
    EXPECT_NO_THROW(OsSleeper{leave});
}
