// test_fallback_win32.cpp: where Windows refuses the high-resolution timer,
// OsSleeper holds a timeBeginPeriod for as long as it lives and the timer
// strategy runs robust_sleep. Wine accepts the timer and ignores
// timeBeginPeriod, so the refusal is injected (Options::refuse_high_res_timer)
// and the balance of begin/end is read from pacer's own count.
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/status.h>
#include <pacer/thread_timing.h>

#include "os/os.h"
#include "wait/waiter.h"
#include "os/win32.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace pacer {
namespace {

using os::win32::timer_period_outstanding;

constexpr int64_t kOneMsNs = 1'000'000;

OsSleeper::Options refused(int64_t scheduler_period_ns) {
    OsSleeper::Options options{};
    options.scheduler_period_ns = scheduler_period_ns;
    options.refuse_high_res_timer = true;
    return options;
}

TEST(Win32Fallback, RefusedTimerHoldsOnePeriodWhileTheSleeperLives) {
    ASSERT_EQ(timer_period_outstanding(), 0);
    {
        OsSleeper sleeper(refused(kOneMsNs));
        EXPECT_FALSE(sleeper.has_high_res_timer());
        EXPECT_FALSE(sleeper.sleep_until_ns(os::now_ns() + kOneMsNs));   // no timer: no wait
        EXPECT_EQ(timer_period_outstanding(), 1);
        EXPECT_GT(sleeper.scheduler_period_ns(), 0);
        EXPECT_EQ(sleeper.describe().find("HIGH_RESOLUTION"), std::string::npos) << sleeper.describe();
    }
    EXPECT_EQ(timer_period_outstanding(), 0);
}

TEST(Win32Fallback, WithTheTimerNoPeriodIsHeld) {
    // The power rule: the high-resolution timer needs no system-wide tick.
    ASSERT_EQ(timer_period_outstanding(), 0);
    OsSleeper sleeper;
    if (!sleeper.has_high_res_timer()) GTEST_SKIP() << "this Windows refuses the high-resolution timer";
    EXPECT_EQ(timer_period_outstanding(), 0);
    EXPECT_NE(sleeper.describe().find("HIGH_RESOLUTION"), std::string::npos) << sleeper.describe();
}

TEST(Win32Fallback, ChangingThePeriodEndsTheOldOne) {
    // A sleeper's period is fixed for its life: a new period is a new sleeper,
    // made before the old one goes, as a pacer would swap them.
    ASSERT_EQ(timer_period_outstanding(), 0);
    auto sleeper = std::make_unique<OsSleeper>(refused(2 * kOneMsNs));
    EXPECT_EQ(timer_period_outstanding(), 1);
    // The configured period is the one held, and the overlay line says so.
    EXPECT_NE(sleeper->describe().find("2.000 ms held"), std::string::npos) << sleeper->describe();
    sleeper = std::make_unique<OsSleeper>(refused(kOneMsNs));
    EXPECT_EQ(timer_period_outstanding(), 1);
    EXPECT_NE(sleeper->describe().find("1.000 ms held"), std::string::npos) << sleeper->describe();
    {
        OsSleeper second(refused(5 * kOneMsNs));   // two sleepers, two holds
        EXPECT_EQ(timer_period_outstanding(), 2);
    }
    EXPECT_EQ(timer_period_outstanding(), 1);
    sleeper.reset();
    EXPECT_EQ(timer_period_outstanding(), 0);
}

TEST(Win32Fallback, TimerStrategyRunsRobustSleep) {
    OsSleeper sleeper(refused(kOneMsNs));
    Config config{};
    config.strategy = Strategy::Timer;
    config.sleeper = &sleeper;
    Waiter waiter(config);
    for (int i = 0; i < 3; ++i) {
        const int64_t deadline_ns = waiter.clock().now_ns() + 30 * kOneMsNs;
        const WaitResult result = waiter.wait_until(deadline_ns);
        EXPECT_GE(result.wake_ns, deadline_ns);
        // robust_sleep sleeps all but one period plus 20 us. (Whether it then
        // spins depends on how late the sleep woke: not asserted on a shared machine.)
        EXPECT_GT(result.slept_ns, 0);
    }
    EXPECT_TRUE(waiter.state().timer_fell_back);
    EXPECT_EQ(waiter.state().strategy, Strategy::Timer);
    EXPECT_EQ(waiter.state().scheduler_period_ns, sleeper.scheduler_period_ns());
}

TEST(Win32Fallback, PacerFramesOnTheFallbackAreNeverEarly) {
    ASSERT_EQ(timer_period_outstanding(), 0);
    {
        OsSleeper sleeper(refused(kOneMsNs));
        {
            Config config{};
            config.target_hz = 100;
            config.sleeper = &sleeper;
            Pacer pacer(config);
            for (int i = 0; i < 10; ++i) {
                const Frame frame = pacer.wait();
                EXPECT_GE(frame.lateness_ns, 0) << "frame " << frame.index;
            }
            EXPECT_TRUE(pacer.status().timer_fell_back);
        }
        // The pacer did not own the sleeper: the hold is the sleeper's to end.
        EXPECT_EQ(timer_period_outstanding(), 1);
    }
    EXPECT_EQ(timer_period_outstanding(), 0);
}

TEST(Win32Fallback, PacerWithItsOwnSleeperLeavesNothingHeld) {
    ASSERT_EQ(timer_period_outstanding(), 0);
    {
        Config config{};
        config.target_hz = 200;
        Pacer pacer(config);
        for (int i = 0; i < 5; ++i) pacer.wait();
    }
    EXPECT_EQ(timer_period_outstanding(), 0);
}

TEST(Win32Fallback, ThreadTimingEndsWhatItBegan) {
    ASSERT_EQ(timer_period_outstanding(), 0);
    {
        ThreadTiming::Request request{};
        request.timer_period_ns = kOneMsNs;
        ThreadTiming timing(request);
        EXPECT_TRUE(timing.report().timer_period_supported);
        EXPECT_EQ(timer_period_outstanding(), 1);
        OsSleeper sleeper(refused(kOneMsNs));
        EXPECT_EQ(timer_period_outstanding(), 2);
    }
    EXPECT_EQ(timer_period_outstanding(), 0);
}

}  // namespace
}  // namespace pacer
