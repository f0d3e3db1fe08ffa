// test_os_win32.cpp: the Windows OS file, run for real (under Wine in CI).
// Conversions are checked exactly; waits only from below, with loose upper
// checks, because Wine's timers do not behave like Windows' and the machine
// is shared.
#include "os/os.h"
#include "os/win32.h"

#include <gtest/gtest.h>

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pacer {
namespace {

using os::win32::ticks_to_ns;

TEST(Win32Clock, TicksToNsIsExactAt10MHz) {
    EXPECT_EQ(ticks_to_ns(0, 10'000'000), 0);
    EXPECT_EQ(ticks_to_ns(1, 10'000'000), 100);
    EXPECT_EQ(ticks_to_ns(12'345'678'901, 10'000'000), 1'234'567'890'100);
    // 285 years of ticks: ticks * 1e9 would overflow int64 long before this.
    EXPECT_EQ(ticks_to_ns(90'000'000'000'000'000, 10'000'000), 9'000'000'000'000'000'000);
}

TEST(Win32Clock, TicksToNsKeepsTheRemainderAtOddFrequencies) {
    // The ACPI power-management timer's rate, used by older Windows.
    constexpr int64_t kAcpiHz = 3'579'545;
    EXPECT_EQ(ticks_to_ns(kAcpiHz, kAcpiHz), 1'000'000'000);
    EXPECT_EQ(ticks_to_ns(kAcpiHz * 1000 + 1, kAcpiHz), 1'000'000'000'000 + 279);   // 1e9/3579545 = 279.4
    // A TSC-rate counter, three billion seconds in: remainder just under one second.
    constexpr int64_t kTscHz = 2'893'438'000;
    EXPECT_EQ(ticks_to_ns(kTscHz * 3'000'000'000 + kTscHz - 1, kTscHz), 3'000'000'000'999'999'999);
}

TEST(Win32Clock, NowIsQpcConvertedAndMonotonic) {
    const int64_t frequency_hz = os::win32::qpc_frequency_hz();
    ASSERT_GT(frequency_hz, 0);
    LARGE_INTEGER ticks;
    ASSERT_TRUE(QueryPerformanceCounter(&ticks));
    const int64_t from_qpc_ns = ticks_to_ns(ticks.QuadPart, frequency_hz);
    int64_t previous = os::now_ns();
    // Same timeline: read just after, so at or after, and well within a second.
    EXPECT_GE(previous, from_qpc_ns);
    EXPECT_LT(previous - from_qpc_ns, 1'000'000'000);
    for (int i = 0; i < 100'000; ++i) {
        const int64_t now = os::now_ns();
        ASSERT_GE(now, previous);
        previous = now;
    }
}

TEST(Win32Clock, ThreadCpuTimeGrowsWhileSpinning) {
    const int64_t cpu_before = os::thread_cpu_ns();
    ASSERT_GE(cpu_before, 0);
    // Windows charges CPU time per tick (15.6 ms by default): spin well past one.
    const int64_t wall_before = os::now_ns();
    while (os::now_ns() - wall_before < 300'000'000) os::cpu_pause();
    const int64_t cpu_after = os::thread_cpu_ns();
    EXPECT_GT(cpu_after, cpu_before);
    // Not more CPU than wall time, give or take one coarse charge.
    EXPECT_LE(cpu_after - cpu_before, os::now_ns() - wall_before + 20'000'000);
}

TEST(Win32Sleep, RelativeSleepNeverWakesEarly) {
    for (const int64_t duration_ns : {1, 300'000, 1'000'000, 2'500'000}) {
        for (int i = 0; i < 5; ++i) {
            const int64_t start = os::now_ns();
            os::sleep_ns(duration_ns);
            EXPECT_GE(os::now_ns() - start, duration_ns) << "sleep_ns(" << duration_ns << ")";
        }
    }
}

TEST(Win32Sleep, SchedulerPeriodIsStated) {
    // Windows always has a tick; 0 would mean "tickless" to the strategies.
    const int64_t period_ns = os::scheduler_period_ns();
    EXPECT_GE(period_ns, 100'000);
    EXPECT_LE(period_ns, 100'000'000);
}

TEST(Win32Sleep, TimerResolutionIsConsistentWhereNtdllAnswers) {
    os::win32::TimerResolution resolution{};
    if (!os::win32::query_timer_resolution(&resolution)) GTEST_SKIP() << "no NtQueryTimerResolution";
    EXPECT_GT(resolution.finest_ns, 0);
    EXPECT_LE(resolution.finest_ns, resolution.current_ns);
    EXPECT_LE(resolution.current_ns, resolution.coarsest_ns);
    EXPECT_EQ(os::timer_period_now_ns(), resolution.current_ns);
    // Nothing held by pacer: the default tick is what this process can count on.
    ASSERT_EQ(os::win32::timer_period_outstanding(), 0);
    EXPECT_EQ(os::scheduler_period_ns(), resolution.coarsest_ns);
}

struct TimerDeleter {
    void operator()(os::HighResTimer* timer) const { os::timer_destroy(timer); }
};
using TimerPtr = std::unique_ptr<os::HighResTimer, TimerDeleter>;

TimerPtr make_timer(int64_t scheduler_period_ns) {
    return TimerPtr(os::timer_create(scheduler_period_ns));
}

TEST(Win32Timer, HighResolutionWaitsNeverWakeEarly) {
    TimerPtr timer = make_timer(os::scheduler_period_ns());
    if (!timer) GTEST_SKIP() << "this Windows refuses CREATE_WAITABLE_TIMER_HIGH_RESOLUTION (before 10 1803)";
    EXPECT_NE(std::string(os::timer_describe(timer.get())).find("HIGH_RESOLUTION"), std::string::npos);
    for (const int64_t wait_ns : {0, 50'000, 500'000, 1'000'000, 2'500'000, 7'000'000}) {
        for (int i = 0; i < 5; ++i) {
            const int64_t deadline_ns = os::now_ns() + wait_ns;
            os::timer_sleep_until(timer.get(), deadline_ns);
            EXPECT_GE(os::now_ns(), deadline_ns) << "wait of " << wait_ns << " ns";
        }
    }
}

TEST(Win32Timer, PastDeadlineReturnsAtOnce) {
    TimerPtr timer = make_timer(os::scheduler_period_ns());
    if (!timer) GTEST_SKIP() << "no high-resolution timer";
    const int64_t start = os::now_ns();
    os::timer_sleep_until(timer.get(), start - 1'000'000'000);
    // Generous: no OS wait at all should happen, only a clock read.
    EXPECT_LT(os::now_ns() - start, 50'000'000);
}

TEST(Win32Timer, ChunkedLongWaitLandsNearItsDeadline) {
    // A 2 ms period makes a 40 ms wait twenty-odd chunks; each is re-aimed
    // from the clock, so the chunks must not add up to more than the wait.
    TimerPtr timer = make_timer(2'000'000);
    if (!timer) GTEST_SKIP() << "no high-resolution timer";
    std::vector<int64_t> lateness_ns;
    for (int i = 0; i < 5; ++i) {
        const int64_t deadline_ns = os::now_ns() + 40'000'000;
        os::timer_sleep_until(timer.get(), deadline_ns);
        const int64_t late = os::now_ns() - deadline_ns;
        EXPECT_GE(late, 0);
        lateness_ns.push_back(late);
    }
    std::sort(lateness_ns.begin(), lateness_ns.end());
    // Loose: Wine rounds each chunk up to a millisecond. A chunking bug (waits
    // summed, not re-aimed) would be tens of milliseconds late every time.
    EXPECT_LT(lateness_ns[lateness_ns.size() / 2], 15'000'000);
}

TEST(Win32TimerPeriod, MillisecondsAreRoundedUpToAtLeastOne) {
    using os::win32::timer_period_ms;
    EXPECT_EQ(timer_period_ms(0), 1u);
    EXPECT_EQ(timer_period_ms(1), 1u);
    EXPECT_EQ(timer_period_ms(999'999), 1u);
    EXPECT_EQ(timer_period_ms(1'000'000), 1u);
    EXPECT_EQ(timer_period_ms(1'000'001), 2u);
    EXPECT_EQ(timer_period_ms(15'625'000), 16u);
}

TEST(Win32TimerPeriod, BeginAndEndAreCounted) {
    ASSERT_EQ(os::win32::timer_period_outstanding(), 0);
    EXPECT_FALSE(os::timer_period_begin(0));   // nothing to ask: nothing held
    EXPECT_EQ(os::win32::timer_period_outstanding(), 0);
    ASSERT_TRUE(os::timer_period_begin(1'000'000));
    EXPECT_EQ(os::win32::timer_period_outstanding(), 1);
    ASSERT_TRUE(os::timer_period_begin(2'000'000));
    EXPECT_EQ(os::win32::timer_period_outstanding(), 2);
    os::timer_period_end(2'000'000);
    os::timer_period_end(1'000'000);
    EXPECT_EQ(os::win32::timer_period_outstanding(), 0);
}

TEST(Win32TimerPeriod, HoldingAPeriodStatesTheTickInForce) {
    ASSERT_EQ(os::win32::timer_period_outstanding(), 0);
    ASSERT_TRUE(os::timer_period_begin(1'000'000));
    const int64_t now_ns = os::timer_period_now_ns();
    const int64_t stated_ns = os::scheduler_period_ns();
    os::timer_period_end(1'000'000);
    if (now_ns < 0) GTEST_SKIP() << "no NtQueryTimerResolution";
    EXPECT_EQ(stated_ns, now_ns);
}

}  // namespace
}  // namespace pacer
