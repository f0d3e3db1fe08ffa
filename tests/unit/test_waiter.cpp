// test_waiter.cpp: each strategy's decisions, on the fake clock and sleeper.
#include "fakes.h"
#include "wait/waiter.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

}  // namespace

// ---------------------------------------------------------------------------
// sleep and spin
// ---------------------------------------------------------------------------

TEST(WaiterSleep, SleepsTheRemainderOnceAndKeepsTheOvershoot) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = 700 * kNsPerUs;
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Sleep));
    const int64_t deadline = clock.now_ns() + 10 * kNsPerMs;
    const WaitResult r = waiter.wait_until(deadline);
    ASSERT_EQ(sleeper.sleep_requests, std::vector<int64_t>{10 * kNsPerMs});
    EXPECT_EQ(r.wake_ns, deadline + 700 * kNsPerUs);   // the naive sleep overshoots; nothing corrects it
    EXPECT_EQ(r.slept_ns, 10 * kNsPerMs + 700 * kNsPerUs);
    EXPECT_EQ(r.spun_ns, 0);
    EXPECT_EQ(sleeper.pauses, 0);
}

TEST(WaiterSleep, PassedDeadlineReturnsAtOnce) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Sleep));
    const int64_t start = clock.now_ns();
    const WaitResult r = waiter.wait_until(start - 1);
    EXPECT_TRUE(sleeper.sleep_requests.empty());
    EXPECT_EQ(r.wake_ns, start);
}

TEST(WaiterSpin, SpinsWithPauseToTheDeadlineAndCostsCpu) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Spin));
    const int64_t start = clock.now_ns();
    const WaitResult r = waiter.wait_until(start + 1 * kNsPerMs);
    EXPECT_EQ(r.wake_ns, start + 1 * kNsPerMs);
    EXPECT_EQ(sleeper.pauses, 1 * kNsPerMs / sleeper.pause_ns);
    EXPECT_EQ(r.spun_ns, 1 * kNsPerMs);
    EXPECT_EQ(r.slept_ns, 0);
    EXPECT_EQ(clock.cpu_ns(), 1 * kNsPerMs);
    EXPECT_TRUE(sleeper.sleep_requests.empty());
    EXPECT_TRUE(sleeper.until_requests.empty());
}

// ---------------------------------------------------------------------------
// precise_sleep
// ---------------------------------------------------------------------------

namespace {

// The textbook two-pass mean and sample deviation, to check the online update.
void two_pass(const std::vector<double>& x, double* mean, double* sd) {
    double sum = 0;
    for (double v : x) sum += v;
    *mean = sum / static_cast<double>(x.size());
    double squares = 0;
    for (double v : x) squares += (v - *mean) * (v - *mean);
    *sd = std::sqrt(squares / static_cast<double>(x.size() - 1));
}

}  // namespace

TEST(WaiterPreciseSleep, WelfordUpdateMatchesTwoPassStatistics) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoots = {100 * kNsPerUs, 250 * kNsPerUs, 40 * kNsPerUs, 900 * kNsPerUs, 60 * kNsPerUs, 130 * kNsPerUs};
    sleeper.sleep_overshoot_ns = 80 * kNsPerUs;
    Config config = fake_config(clock, sleeper, 60, Strategy::PreciseSleep);
    config.tuning.precise.sigma_k = 1.5;
    Waiter waiter(config);

    const int64_t start = clock.now_ns();
    const int64_t deadline = start + 20 * kNsPerMs;
    const WaitResult r = waiter.wait_until(deadline);

    // Every OS sleep asked for exactly 1 ms.
    ASSERT_FALSE(sleeper.sleep_requests.empty());
    for (int64_t request : sleeper.sleep_requests) EXPECT_EQ(request, 1 * kNsPerMs);

    // The article counts its 5 ms initial guess as the first sample.
    std::vector<double> samples{5e6};
    const std::vector<int64_t> scripted{100 * kNsPerUs, 250 * kNsPerUs, 40 * kNsPerUs, 900 * kNsPerUs, 60 * kNsPerUs, 130 * kNsPerUs};
    for (std::size_t i = 0; i < sleeper.sleep_requests.size(); ++i) {
        samples.push_back(static_cast<double>(1 * kNsPerMs + (i < scripted.size() ? scripted[i] : 80 * kNsPerUs)));
    }
    double mean = 0, sd = 0;
    two_pass(samples, &mean, &sd);
    const WaitStatus s = waiter.state();
    EXPECT_EQ(s.precise_samples, static_cast<int64_t>(sleeper.sleep_requests.size()));
    EXPECT_NEAR(s.precise_mean_ns, mean, 1e-6 * mean);
    EXPECT_NEAR(s.precise_sigma_ns, sd, 1e-6 * sd);
    EXPECT_NEAR(s.precise_estimate_ns, mean + 1.5 * sd, 1e-6 * mean);

    // It stopped sleeping exactly when the remaining time no longer exceeded
    // the estimate, and spun the rest.
    double slept = 0;
    for (std::size_t i = 1; i < samples.size(); ++i) slept += samples[i];
    const double remaining_after = static_cast<double>(20 * kNsPerMs) - slept;
    EXPECT_LE(remaining_after, s.precise_estimate_ns);
    EXPECT_EQ(r.slept_ns, static_cast<int64_t>(slept));
    EXPECT_GE(r.wake_ns, deadline);
    EXPECT_LT(r.wake_ns, deadline + sleeper.pause_ns);
    EXPECT_EQ(r.slept_ns + r.spun_ns, r.wake_ns - start);
}

TEST(WaiterPreciseSleep, OneUnluckyFirstSampleMakesItSpinForever) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoots = {30 * kNsPerMs};   // the first 1 ms sleep took 31 ms
    sleeper.pause_ns = 1 * kNsPerUs;               // coarse spin turns keep the test fast
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::PreciseSleep));

    // 60 ms away: the first sleep happens (60 > 5 ms), and is unlucky.
    waiter.wait_until(clock.now_ns() + 60 * kNsPerMs);
    WaitStatus s = waiter.state();
    ASSERT_EQ(s.precise_samples, 1);
    EXPECT_DOUBLE_EQ(s.precise_mean_ns, 18e6);                          // (5 + 31) / 2 ms
    EXPECT_NEAR(s.precise_sigma_ns, std::sqrt(2 * 13e6 * 13e6), 1.0);  // 18.4 ms
    EXPECT_GT(s.precise_estimate_ns, 16.7e6);

    // Every 60 Hz frame after that spins all of its 16.7 ms: the estimate
    // never fits again, so it never samples again and never recovers.
    for (int frame = 0; frame < 100; ++frame) {
        const WaitResult r = waiter.wait_until(clock.now_ns() + 16'666'667);
        EXPECT_EQ(r.slept_ns, 0);
        EXPECT_GE(r.spun_ns, 16'666'667);
    }
    EXPECT_EQ(waiter.state().precise_samples, 1);
    EXPECT_EQ(sleeper.sleep_requests.size(), 1u);
}

TEST(WaiterPreciseSleep, AtHighRatesTheInitialEstimateNeverFits) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Waiter waiter(fake_config(clock, sleeper, 1000, Strategy::PreciseSleep));
    for (int frame = 0; frame < 100; ++frame) {
        const WaitResult r = waiter.wait_until(clock.now_ns() + 1 * kNsPerMs);
        EXPECT_EQ(r.slept_ns, 0);
    }
    EXPECT_TRUE(sleeper.sleep_requests.empty());
    EXPECT_EQ(waiter.state().precise_samples, 0);
}

TEST(WaiterPreciseSleep, LuckySamplesBringTheEstimateDownAndItSleepsMore) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = 50 * kNsPerUs;
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::PreciseSleep));
    std::vector<std::size_t> sleeps_per_frame;
    for (int frame = 0; frame < 20; ++frame) {
        const std::size_t before = sleeper.sleep_requests.size();
        waiter.wait_until(clock.now_ns() + 16'666'667);
        sleeps_per_frame.push_back(sleeper.sleep_requests.size() - before);
    }
    // The estimate starts at 5 ms and falls toward 1.05 ms as samples come in.
    EXPECT_LT(waiter.state().precise_estimate_ns, 2.5e6);
    EXPECT_GT(sleeps_per_frame.back(), sleeps_per_frame.front());
}

// ---------------------------------------------------------------------------
// robust_sleep
// ---------------------------------------------------------------------------

namespace {

// One robust_sleep wait of `remaining_ns` with scheduler period `period_ns`;
// returns what it asked the OS to sleep (empty: it only spun).
std::vector<int64_t> robust_sleeps(int64_t period_ns, int64_t remaining_ns, int64_t overshoot_ns = 0,
                                   WaitResult* result = nullptr) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = overshoot_ns;
    Config config = fake_config(clock, sleeper, 60, Strategy::RobustSleep);
    config.tuning.scheduler_period_ns = period_ns;
    Waiter waiter(config);
    const WaitResult r = waiter.wait_until(clock.now_ns() + remaining_ns);
    if (result != nullptr) *result = r;
    return sleeper.sleep_requests;
}

using Sleeps = std::vector<int64_t>;

}  // namespace

TEST(WaiterRobustSleep, RoundsDownToWholePeriodsLeavingOnePeriodPlusTolerance) {
    // P = 1 ms, tolerance 20 us: floor((16.667 - 1.020) / 1) = 15 periods.
    EXPECT_EQ(robust_sleeps(1 * kNsPerMs, 16'666'667), Sleeps{15 * kNsPerMs});
    EXPECT_EQ(robust_sleeps(1 * kNsPerMs, 6'944'444), Sleeps{5 * kNsPerMs});   // 144 Hz
    EXPECT_EQ(robust_sleeps(1 * kNsPerMs, 1 * kNsPerMs), Sleeps{});            // 1 kHz: spin only

    // P = 10 ms: a 60 Hz frame cannot spare a whole period; 30 Hz sleeps 2.
    EXPECT_EQ(robust_sleeps(10 * kNsPerMs, 16'666'667), Sleeps{});
    EXPECT_EQ(robust_sleeps(10 * kNsPerMs, 33'333'333), Sleeps{20 * kNsPerMs});

    // P = 15.6 ms: 60 Hz only spins; 30 Hz sleeps one period, 20 Hz two.
    EXPECT_EQ(robust_sleeps(15'600'000, 16'666'667), Sleeps{});
    EXPECT_EQ(robust_sleeps(15'600'000, 33'333'333), Sleeps{15'600'000});
    EXPECT_EQ(robust_sleeps(15'600'000, 50'000'000), Sleeps{31'200'000});
}

TEST(WaiterRobustSleep, BoundaryIsOnePeriodPlusToleranceExactly) {
    const int64_t p = 10 * kNsPerMs, tolerance = 20 * kNsPerUs;
    EXPECT_EQ(robust_sleeps(p, 2 * p + tolerance), Sleeps{p});
    EXPECT_EQ(robust_sleeps(p, 2 * p + tolerance - 1), Sleeps{});
}

TEST(WaiterRobustSleep, WorstCaseRoundUpNeverOvershoots) {
    // The OS adds up to one period (here P - 1 ns): the wait still ends on
    // time, because a period plus the tolerance was left for the spin.
    for (int64_t p : {1 * kNsPerMs, 10 * kNsPerMs, int64_t{15'600'000}}) {
        for (int64_t remaining : {int64_t{16'666'667}, int64_t{33'333'333}, int64_t{100'000'000}}) {
            FakeClock clock;
            FakeSleeper sleeper(clock);
            sleeper.sleep_overshoot_ns = p - 1;
            Config config = fake_config(clock, sleeper, 60, Strategy::RobustSleep);
            config.tuning.scheduler_period_ns = p;
            Waiter waiter(config);
            const int64_t deadline = clock.now_ns() + remaining;
            const WaitResult r = waiter.wait_until(deadline);
            EXPECT_GE(r.wake_ns, deadline);
            EXPECT_LT(r.wake_ns, deadline + sleeper.pause_ns) << "P=" << p << " remaining=" << remaining;
            EXPECT_GT(r.spun_ns, 20 * kNsPerUs);
        }
    }
}

// ---------------------------------------------------------------------------
// timer
// ---------------------------------------------------------------------------

namespace {

struct TimerRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    Waiter waiter;
    explicit TimerRig(int32_t window)
        : waiter([&] {
              Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
              c.tuning.timer.margin_window = window;
              // The estimator alone: margin = quantile + pad, no spin budget.
              c.tuning.timer.margin_headroom = 1;
              c.tuning.timer.max_wait_cpu_ns = 1'000'000'000;
              c.tuning.timer.max_wait_cpu_pct = 100;
              return c;
          }()) {}
    // One 10 ms wait whose timer wakes `lateness_ns` late; returns the margin used.
    int64_t wait_with_lateness(int64_t lateness_ns, WaitResult* result = nullptr) {
        const int64_t margin = waiter.state().timer_margin_ns;
        sleeper.timer_latenesses.push_back(lateness_ns);
        const int64_t deadline = clock.now_ns() + 10 * kNsPerMs;
        const WaitResult r = waiter.wait_until(deadline);
        EXPECT_EQ(sleeper.until_requests.back(), deadline - margin);
        if (result != nullptr) *result = r;
        return margin;
    }
};

}  // namespace

TEST(WaiterTimer, SleepsToDeadlineMinusMarginThenSpins) {
    TimerRig rig(8);
    WaitResult r{};
    EXPECT_EQ(rig.wait_with_lateness(30 * kNsPerUs, &r), 200 * kNsPerUs);   // the starting margin
    EXPECT_EQ(r.spun_ns, 200 * kNsPerUs - 30 * kNsPerUs);
    EXPECT_EQ(r.slept_ns, 10 * kNsPerMs - 200 * kNsPerUs + 30 * kNsPerUs);
    EXPECT_EQ(r.wake_ns, rig.sleeper.until_requests.back() + 200 * kNsPerUs);   // on the deadline
    EXPECT_FALSE(rig.waiter.state().timer_fell_back);
}

TEST(WaiterTimer, MarginAdaptsDownAndUpAndDownAgain) {
    TimerRig rig(8);
    // Steady 20 us lateness: the margin falls from 200 us to 20 + 5 (pad) us.
    for (int i = 0; i < 8; ++i) rig.wait_with_lateness(20 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 25 * kNsPerUs);
    // One 400 us wake: the 0.99 quantile of 8 is the worst, the margin jumps up.
    rig.wait_with_lateness(400 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 405 * kNsPerUs);
    // It stays up while that wake is in the window (7 more), then comes down.
    for (int i = 0; i < 7; ++i) rig.wait_with_lateness(20 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 405 * kNsPerUs);
    rig.wait_with_lateness(20 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 25 * kNsPerUs);
}

// The short last sleep (Tuning::Timer::last_sleep_ns), taken from SDL3's
// SDL_DelayPrecise: a calm wait sleeps to last_sleep_ns before the margin
// first, so the wake the margin covers ends a short sleep.
struct LastSleepRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    Waiter waiter;
    explicit LastSleepRig(int64_t last_sleep_ns, int32_t window = 512)
        : waiter([&] {
              Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
              c.tuning.timer.last_sleep_ns = last_sleep_ns;
              c.tuning.timer.margin_window = window;
              c.tuning.timer.margin_headroom = 1;
              return c;
          }()) {}
    int64_t margin() const { return waiter.state().timer_margin_ns; }
};

TEST(WaiterTimer, ACalmWaitEndsWithAShortLastSleep) {
    LastSleepRig rig(500 * kNsPerUs);
    const int64_t margin = rig.margin();
    const int64_t deadline = rig.clock.now_ns() + 10 * kNsPerMs;
    const WaitResult r = rig.waiter.wait_until(deadline);
    EXPECT_EQ(rig.sleeper.until_requests,
              (std::vector<int64_t>{deadline - margin - 500 * kNsPerUs, deadline - margin}));
    EXPECT_EQ(r.wake_ns, deadline);
}

TEST(WaiterTimer, TheMarginLearnsTheLastSleepsLatenessNotTheFirsts) {
    LastSleepRig rig(500 * kNsPerUs, 8);
    // Each frame's first sleep (after a whole frame asleep) wakes 300 us
    // late, its last (after 0.5 ms) 20 us late: the margin is 20 + 5 us.
    for (int i = 0; i < 8; ++i) {
        rig.sleeper.timer_latenesses = {300 * kNsPerUs, 20 * kNsPerUs};
        rig.waiter.wait_until(rig.clock.now_ns() + 10 * kNsPerMs);
    }
    EXPECT_EQ(rig.margin(), 25 * kNsPerUs);
}

TEST(WaiterTimer, ALastSleepLongerThanWhatIsLeftIsTheOnlySleep) {
    LastSleepRig rig(500 * kNsPerUs);
    const int64_t margin = rig.margin();
    const int64_t deadline = rig.clock.now_ns() + margin + 400 * kNsPerUs;
    rig.waiter.wait_until(deadline);
    EXPECT_EQ(rig.sleeper.until_requests, std::vector<int64_t>{deadline - margin});
}

TEST(WaiterTimer, LastSleepZeroIsOneSleep) {
    LastSleepRig rig(0);
    const int64_t margin = rig.margin();
    const int64_t deadline = rig.clock.now_ns() + 10 * kNsPerMs;
    rig.waiter.wait_until(deadline);
    EXPECT_EQ(rig.sleeper.until_requests, std::vector<int64_t>{deadline - margin});
}

TEST(WaiterTimer, MarginIsClampedToMinAndMax) {
    TimerRig rig(1);
    rig.wait_with_lateness(0);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 10 * kNsPerUs);   // 0 + 5 us pad, raised to the minimum
    rig.wait_with_lateness(5 * kNsPerMs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 2 * kNsPerMs);    // capped by timer_max_margin_ns
}

TEST(WaiterTimer, MarginIsClampedToTheMaxMarginUnderALargerSpinCap) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.margin_window = 1;
    c.tuning.timer.max_wait_cpu_ns = 3 * kNsPerMs;
    Waiter waiter(c);
    sleeper.timer_latenesses.push_back(5 * kNsPerMs);
    waiter.wait_until(clock.now_ns() + 10 * kNsPerMs);
    EXPECT_EQ(waiter.state().timer_margin_ns, 2 * kNsPerMs);   // timer_max_margin_ns
}

TEST(WaiterTimer, QuantileIgnoresRareOutliersInALargeWindow) {
    TimerRig rig(1000);
    // 999 wakes at 20 us and one at 1 ms: the 0.998 quantile (rank 998) is 20 us.
    for (int i = 0; i < 500; ++i) rig.wait_with_lateness(20 * kNsPerUs);
    rig.wait_with_lateness(1 * kNsPerMs);
    for (int i = 0; i < 499; ++i) rig.wait_with_lateness(20 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 25 * kNsPerUs);
}

TEST(WaiterTimer, BelowTheMarginItOnlySpins) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.max_wait_cpu_ns = 1'000'000'000;   // the margin stays the starting 200 us
    Waiter waiter(c);
    const int64_t deadline = clock.now_ns() + 150 * kNsPerUs;   // under the 200 us margin
    const WaitResult r = waiter.wait_until(deadline);
    EXPECT_TRUE(sleeper.until_requests.empty());
    EXPECT_EQ(r.wake_ns, deadline);
    EXPECT_EQ(r.spun_ns, 150 * kNsPerUs);
}

// Less than the margin left, but more than the spin budget: spinning it all
// would overspend, so it sleeps to the deadline itself.
TEST(WaiterTimer, BelowTheMarginButOverTheBudgetItSleepsToTheDeadline) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_lateness_ns = 20 * kNsPerUs;
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.max_wait_cpu_ns = 50 * kNsPerUs;
    Waiter waiter(c);
    // Wakes 300 us late: a margin of 1.1 * 300 + 5 us costs no spin at all.
    for (int i = 0; i < 8; ++i) {
        sleeper.timer_latenesses.push_back(300 * kNsPerUs);
        waiter.wait_until(clock.now_ns() + 16 * kNsPerMs);
    }
    ASSERT_EQ(waiter.state().timer_margin_ns, 335 * kNsPerUs);
    const int64_t deadline = clock.now_ns() + 150 * kNsPerUs;   // under the margin, over the budget
    const WaitResult r = waiter.wait_until(deadline);
    EXPECT_EQ(sleeper.until_requests.back(), deadline);
    EXPECT_EQ(r.wake_ns, deadline + 20 * kNsPerUs);
    EXPECT_EQ(r.spun_ns, 0);
}

TEST(WaiterTimer, WithoutHighResTimerFallsBackToRobustSleep) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.high_res_timer = false;
    Config config = fake_config(clock, sleeper, 60, Strategy::Timer);
    config.tuning.scheduler_period_ns = 1 * kNsPerMs;
    Waiter waiter(config);
    EXPECT_TRUE(waiter.state().timer_fell_back);
    const int64_t deadline = clock.now_ns() + 16'666'667;
    const WaitResult r = waiter.wait_until(deadline);
    EXPECT_EQ(sleeper.sleep_requests, Sleeps{15 * kNsPerMs});   // robust_sleep's decision
    EXPECT_GE(r.wake_ns, deadline);
    EXPECT_LT(r.wake_ns, deadline + sleeper.pause_ns);
    EXPECT_EQ(waiter.state().strategy, Strategy::Timer);
}

// ---------------------------------------------------------------------------
// strategy switching and configuration
// ---------------------------------------------------------------------------

TEST(Waiter, VsyncAndAutoWaitAsTimer) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Vsync));
    EXPECT_EQ(waiter.state().strategy, Strategy::Timer);
    waiter.set_strategy(Strategy::Auto);
    EXPECT_EQ(waiter.state().strategy, Strategy::Timer);
    waiter.wait_until(clock.now_ns() + 5 * kNsPerMs);
    EXPECT_EQ(sleeper.until_requests.size(), 1u);
    waiter.set_strategy(Strategy::Timer);
    EXPECT_EQ(waiter.state().strategy, Strategy::Timer);
}

TEST(Waiter, StateOfEveryStrategyIsKeptAcrossSwitches) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = 100 * kNsPerUs;
    sleeper.timer_lateness_ns = 30 * kNsPerUs;
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::PreciseSleep));
    waiter.wait_until(clock.now_ns() + 16 * kNsPerMs);
    const WaitStatus precise = waiter.state();
    ASSERT_GT(precise.precise_samples, 0);
    waiter.set_strategy(Strategy::Timer);
    waiter.wait_until(clock.now_ns() + 16 * kNsPerMs);
    EXPECT_EQ(waiter.state().timer_margin_ns, 38 * kNsPerUs);   // 1.1 * 30 + 5
    waiter.set_strategy(Strategy::PreciseSleep);
    EXPECT_EQ(waiter.state().precise_samples, precise.precise_samples);
    EXPECT_DOUBLE_EQ(waiter.state().precise_estimate_ns, precise.precise_estimate_ns);
    EXPECT_EQ(waiter.state().timer_margin_ns, 38 * kNsPerUs);
}

TEST(Waiter, PeriodComesFromConfigElseTheSleeper) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.period_ns = 15'625'000;
    EXPECT_EQ(Waiter(fake_config(clock, sleeper)).state().scheduler_period_ns, 15'625'000);
    sleeper.period_ns = 0;   // tickless: assume 1 ms
    EXPECT_EQ(Waiter(fake_config(clock, sleeper)).state().scheduler_period_ns, 1 * kNsPerMs);
    Config config = fake_config(clock, sleeper);
    config.tuning.scheduler_period_ns = 4 * kNsPerMs;
    EXPECT_EQ(Waiter(config).state().scheduler_period_ns, 4 * kNsPerMs);
}

TEST(Waiter, InvalidConfigThrowsNamingTheField) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = fake_config(clock, sleeper, -5);
    try {
        Waiter waiter(config);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(pacer::testing::contains(std::string(e.what()), "target_hz")) << e.what();
    }
}

// ---------------------------------------------------------------------------
// timer under contention
// ---------------------------------------------------------------------------

namespace {

// A timer waiter whose clock knows the run-queue wait (as Linux's does).
struct ContendedRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    Waiter waiter;
    explicit ContendedRig(int32_t window = 8, int64_t contention_wait_ns = 0)
        : waiter([&] {
              clock.runqueue_ns = 0;
              Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
              c.tuning.timer.margin_window = window;
              if (contention_wait_ns > 0) c.tuning.timer.contention_wait_ns = contention_wait_ns;
              c.tuning.timer.margin_headroom = 1;
              c.tuning.timer.max_wait_cpu_ns = 1'000'000'000;
              c.tuning.timer.max_wait_cpu_pct = 100;
              return c;
          }()) {}
    // One frame: `work_ns` of work of which `runnable_ns` spent waiting for a
    // CPU, then a wait 10 ms ahead whose timer wakes `lateness_ns` late and
    // then waits `wake_runqueue_ns` for a CPU.
    WaitResult frame(int64_t runnable_ns, int64_t lateness_ns = 20 * kNsPerUs, int64_t wake_runqueue_ns = 0) {
        clock.advance_busy(2 * kNsPerMs);
        clock.advance_runnable(runnable_ns);
        sleeper.timer_latenesses.push_back(lateness_ns);
        sleeper.timer_runqueue_waits.push_back(wake_runqueue_ns);
        deadline_ns = clock.now_ns() + 10 * kNsPerMs;
        return waiter.wait_until(deadline_ns);
    }
    // Crowded (3 runnable threads on 2 CPUs) for 5 frames, 48 ms: contended.
    void crowd() {
        clock.cpus = 2;
        clock.runnable = 3;
        for (int i = 0; i < 5; ++i) frame(0);
    }
    int64_t deadline_ns = -1;   // the last frame's
};

}  // namespace

TEST(WaiterContention, UnknownRunQueueWaitChangesNothing) {
    TimerRig rig(8);   // FakeClock's run-queue wait is -1 by default
    for (int i = 0; i < 8; ++i) rig.wait_with_lateness(300 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().runqueue_wait_ns, -1);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 305 * kNsPerUs);
}

TEST(WaiterContention, TheMarginIgnoresTimeSpentWaitingForACpu) {
    ContendedRig rig(8, 10 * kNsPerMs);   // never counts as contended: the margin stays visible
    // Each wake: 20 us of timer lateness, then 3 ms on the run queue. The
    // margin is for the timer; spinning 3 ms earlier would not win the CPU back.
    // The run-queue figure is read at the next wait, off the spin's path, so
    // the newest wake counts as it looked until then; the next wait uses the
    // corrected margin.
    for (int i = 0; i < 8; ++i) rig.frame(0, 20 * kNsPerUs, 3 * kNsPerMs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 2 * kNsPerMs);
    const WaitResult next = rig.frame(0, 20 * kNsPerUs);
    EXPECT_EQ(rig.sleeper.until_requests.back(), next.wake_ns - 25 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 25 * kNsPerUs);
    // Without the run-queue figure the same wakes look 3 ms late.
    TimerRig blind(8);
    for (int i = 0; i < 8; ++i) blind.wait_with_lateness(20 * kNsPerUs + 3 * kNsPerMs);
    EXPECT_EQ(blind.waiter.state().timer_margin_ns, 2 * kNsPerMs);   // pinned at timer_max_margin_ns
}

// Between the wake and the deadline the spin is all there is: a system call
// there (the run-queue figure costs one) would make a late wake later still.
TEST(WaiterContention, NothingIsReadBetweenTheWakeAndTheDeadline) {
    ContendedRig rig;
    for (int i = 0; i < 20; ++i) {
        const std::size_t before = rig.clock.runqueue_reads.size();
        const WaitResult r = rig.frame(0, 150 * kNsPerUs);
        const int64_t slept_until = rig.sleeper.until_requests.back();
        for (std::size_t k = before; k < rig.clock.runqueue_reads.size(); ++k)
            EXPECT_LE(rig.clock.runqueue_reads[k], slept_until) << "frame " << i;
        EXPECT_GT(r.spun_ns, 0) << "frame " << i;   // there was a spin to stay out of
    }
}

TEST(WaiterContention, ContentionStopsTheSpinUntilCalmReturns) {
    ContendedRig rig;
    // Calm: the timer is late 200 us now and then, the margin follows.
    for (int i = 0; i < 8; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 205 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    // Frames with 600 us on the run queue (the default threshold is 500 us),
    // 12 ms apart: four cover 36 ms, short of the 40 ms onset; five are over.
    rig.frame(600 * kNsPerUs, 200 * kNsPerUs);
    const int64_t first_sign_ns = rig.deadline_ns;
    for (int i = 0; i < 3; ++i) rig.frame(600 * kNsPerUs, 200 * kNsPerUs);
    EXPECT_LT(rig.deadline_ns - first_sign_ns, 40 * kNsPerMs);
    EXPECT_FALSE(rig.waiter.state().contended);
    rig.frame(600 * kNsPerUs, 200 * kNsPerUs);
    EXPECT_TRUE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 0);
    const int64_t last_sign_ns = rig.deadline_ns;
    // The next sleep is aimed at the deadline itself, not 205 us before it.
    const WaitResult r = rig.frame(0, 0);
    EXPECT_EQ(rig.sleeper.until_requests.back(), r.wake_ns);
    EXPECT_EQ(r.spun_ns, 0);
    // Calm frames end it once no reading has shown a sign for 100 ms (a
    // reading while contended is at one wait in four: 48 ms apart here).
    while (rig.waiter.state().contended && rig.deadline_ns - last_sign_ns < 1000 * kNsPerMs)
        rig.frame(100 * kNsPerUs, 200 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    EXPECT_GE(rig.deadline_ns - last_sign_ns, 100 * kNsPerMs);
    EXPECT_LT(rig.deadline_ns - last_sign_ns, 100 * kNsPerMs + 4 * 13 * kNsPerMs);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 205 * kNsPerUs);
}

// At idle other programs' bursts put a sign at a few waits in a row (one
// reading in 500 to 1000 at 60 Hz, mostly in runs of two or three,
// docs/precision.md). With contention at two signs in a row they took the
// margin away for half a second at a time.
TEST(WaiterContention, AShortRunOfSignsIsNotContention) {
    ContendedRig rig;
    rig.clock.cpus = 2;
    rig.clock.runnable = 1;
    for (int i = 0; i < 8; ++i) rig.frame(0, 200 * kNsPerUs);
    for (int k = 0; k < 5; ++k) {
        rig.clock.runnable_script = {3, 3, 3};   // 24 ms of signs
        for (int i = 0; i < 3; ++i) rig.frame(i == 1 ? 1 * kNsPerMs : 0, 200 * kNsPerUs);
        EXPECT_FALSE(rig.waiter.state().contended) << "burst " << k;
        for (int i = 0; i < 10; ++i) rig.frame(0, 200 * kNsPerUs);
    }
    const WaitResult r = rig.frame(0, 100 * kNsPerUs);
    EXPECT_GT(r.spun_ns, 0);
}

// On a virtual machine the host sometimes holds a vCPU for a millisecond or
// more, and the guest counts it as run-queue wait, even at idle: one such
// frame must not take the margin away (docs/precision.md measures it).
TEST(WaiterContention, OneFrameOnTheRunQueueIsNotContention) {
    ContendedRig rig;
    for (int i = 0; i < 8; ++i) rig.frame(0, 200 * kNsPerUs);
    for (int k = 0; k < 5; ++k) {
        rig.frame(2 * kNsPerMs, 200 * kNsPerUs);
        for (int i = 0; i < 10; ++i) rig.frame(0, 200 * kNsPerUs);
    }
    EXPECT_FALSE(rig.waiter.state().contended);
    const WaitResult r = rig.frame(0, 100 * kNsPerUs);
    EXPECT_GT(r.spun_ns, 0);
}

TEST(WaiterContention, ABusyFrameInTheCalmStartsItAgain) {
    ContendedRig rig;
    rig.frame(0);
    for (int i = 0; i < 5; ++i) rig.frame(1 * kNsPerMs);
    ASSERT_TRUE(rig.waiter.state().contended);
    // Readings while contended are 4 frames (48 ms) apart: the second after
    // the onset, 96 ms on, sees the busy frame; the third, 144 ms on, would
    // have ended contention without it.
    for (int i = 0; i < 6; ++i) rig.frame(0);
    rig.frame(1 * kNsPerMs);
    for (int i = 0; i < 5; ++i) rig.frame(0);
    EXPECT_TRUE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().runqueue_wait_ns, 0);
    // The same frames without the busy one: calm.
    ContendedRig quiet;
    quiet.frame(0);
    for (int i = 0; i < 5; ++i) quiet.frame(1 * kNsPerMs);
    for (int i = 0; i < 12; ++i) quiet.frame(0);
    EXPECT_FALSE(quiet.waiter.state().contended);
}

// Under full load a woken sleeper preempts a busy neighbour at once, so the
// run-queue wait shows nothing (measured here: 1 % of 144 Hz frames over
// 500 us with one busy thread per CPU); what shows is more runnable threads
// than CPUs, at nearly every wait.
TEST(WaiterContention, MoreRunnableThreadsThanCpusAtEveryWaitIsContention) {
    ContendedRig rig;
    rig.clock.cpus = 2;
    rig.clock.runnable = 2;   // this thread and one busy one: a CPU is free
    for (int i = 0; i < 8; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 205 * kNsPerUs);
    rig.clock.runnable_script = {3};   // one crowded wait (a kernel worker passing by) is not enough
    for (int i = 0; i < 3; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    rig.clock.runnable_script = {3, 3, 3, 3, 3};   // 40 ms or more of them are
    for (int i = 0; i < 4; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
    rig.frame(0, 200 * kNsPerUs);
    EXPECT_TRUE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().runqueue_wait_ns, 0);   // with no run-queue wait at all
    const WaitResult r = rig.frame(0, 0);
    EXPECT_EQ(r.spun_ns, 0);
    // Crowded all the time: contended all the time.
    rig.clock.runnable = 3;
    for (int i = 0; i < 100; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_TRUE(rig.waiter.state().contended);
    // The load goes: calm after 100 ms (within two readings of 48 ms more).
    rig.clock.runnable = 1;
    for (int i = 0; i < 16; ++i) rig.frame(0, 200 * kNsPerUs);
    EXPECT_FALSE(rig.waiter.state().contended);
}

// Under contention each system call before the sleep made more frames late
// (docs/precision.md): while contended the signs are read at one wait in
// four, and a reading still sees every frame since the last one.
TEST(WaiterContention, WhileContendedTheSignsAreReadAtOneWaitInFour) {
    ContendedRig rig;
    rig.crowd();
    ASSERT_TRUE(rig.waiter.state().contended);
    const std::size_t before = rig.clock.runqueue_reads.size();
    for (int i = 0; i < 40; ++i) rig.frame(0, 900 * kNsPerUs);
    EXPECT_EQ(rig.clock.runqueue_reads.size() - before, 10u);
    EXPECT_TRUE(rig.waiter.state().contended);
    // A wait for a CPU over the threshold, split over the frames between two
    // readings, is still a sign: the sum over them is read. Frames are 12.9 ms
    // apart, readings four frames: the one after the split wait (frames 1 and
    // 2) restarts the calm; without it the next reading, 103 ms after the
    // last crowded one, would have ended contention.
    rig.clock.runnable = 1;
    for (int i = 0; i < 10; ++i) rig.frame(i == 1 || i == 2 ? 300 * kNsPerUs : 0, 900 * kNsPerUs);
    EXPECT_TRUE(rig.waiter.state().contended);
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 0);
    int calm = 0;
    while (rig.waiter.state().contended && calm < 8) {
        rig.frame(0, 200 * kNsPerUs);
        ++calm;
    }
    EXPECT_FALSE(rig.waiter.state().contended);
    // The 900 us wakes while contended taught the window nothing: it holds the
    // calm wakes on either side (20 us before, 200 us at the end).
    EXPECT_EQ(rig.waiter.state().timer_margin_ns, 205 * kNsPerUs);
}

// The rules run on the deadlines' time. A caller that falls behind and
// passes deadlines already a second past must not hold contention for that
// second: a deadline before the remembered ones moves them back to it.
TEST(WaiterContention, StaleDeadlinesDoNotHoldContention) {
    ContendedRig rig;
    rig.crowd();
    ASSERT_TRUE(rig.waiter.state().contended);
    rig.clock.runnable = 1;
    int frames = 0;   // 2 ms each
    for (; frames < 500 && rig.waiter.state().contended; ++frames) {
        rig.clock.advance_busy(2 * kNsPerMs);
        rig.waiter.wait_until(rig.clock.now_ns() - 1000 * kNsPerMs);
    }
    EXPECT_FALSE(rig.waiter.state().contended);
    EXPECT_LE(frames, 60);   // 100 ms, and a reading at one wait in four
}

TEST(WaiterContention, AnUnknownCountOrCpuNumberChangesNothing) {
    for (const auto& [runnable, cpus] : {std::pair{-1, 2}, std::pair{64, -1}}) {
        ContendedRig rig;
        rig.clock.runnable = runnable;
        rig.clock.cpus = cpus;
        for (int i = 0; i < 8; ++i) rig.frame(0, 200 * kNsPerUs);
        EXPECT_FALSE(rig.waiter.state().contended) << runnable << " " << cpus;
    }
}

TEST(WaiterTimer, TheSpinBudgetBoundsTheAverageSpin) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.max_wait_cpu_ns = 100 * kNsPerUs;
    Waiter waiter(c);
    // Timer lateness of 0 or 300 us: the quantile asks for 1.1 * 300 + 5 us of
    // margin. Half the wakes would spin all of it, so the budget allows 200 us.
    int64_t spun_ns = 0;
    for (int i = 0; i < 40; ++i) {
        sleeper.timer_latenesses.push_back(i % 2 == 0 ? 0 : 300 * kNsPerUs);
        spun_ns += waiter.wait_until(clock.now_ns() + 10 * kNsPerMs).spun_ns;
    }
    EXPECT_LE(spun_ns / 40, 100 * kNsPerUs + sleeper.pause_ns);
    EXPECT_EQ(waiter.state().timer_margin_ns, 200 * kNsPerUs);
}

// The budget is for the whole wait: a sleep that costs the thread 40 us of
// CPU leaves 60 us of a 100 us budget to the spin. (With the budget for the
// spin alone, the wait took 140 us a frame.)
TEST(WaiterTimer, TheSleepsOwnCpuComesOutOfTheBudget) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_cpu_ns = 40 * kNsPerUs;
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.max_wait_cpu_ns = 100 * kNsPerUs;
    Waiter waiter(c);
    int64_t spun_ns = 0, cpu_ns = 0;
    for (int i = 0; i < 40; ++i) {
        sleeper.timer_latenesses.push_back(i % 2 == 0 ? 0 : 300 * kNsPerUs);
        const WaitResult r = waiter.wait_until(clock.now_ns() + 10 * kNsPerMs);
        if (i < 8) continue;   // the first waits learn what the sleep costs
        spun_ns += r.spun_ns;
        cpu_ns += r.cpu_ns;
    }
    EXPECT_EQ(waiter.state().timer_sleep_cpu_ns, 40 * kNsPerUs);
    EXPECT_LE(spun_ns / 32, 60 * kNsPerUs + sleeper.pause_ns);
    EXPECT_LE(cpu_ns / 32, 100 * kNsPerUs + sleeper.pause_ns);
    EXPECT_EQ(waiter.state().timer_margin_ns, 120 * kNsPerUs);   // half the wakes spin 120 us
}

// The CPU time is a system call: read after the spin, it would delay the end
// of the wait by its own cost (several microseconds on the reference VM).
// The timer reads it before the wait and before its spin, and counts the spin
// by its time.
TEST(WaiterTimer, TheCpuTimeIsReadBeforeTheSpinNotAfter) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_cpu_ns = 30 * kNsPerUs;
    sleeper.timer_lateness_ns = 20 * kNsPerUs;
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Timer));
    const int64_t deadline = clock.now_ns() + 10 * kNsPerMs;
    const WaitResult r = waiter.wait_until(deadline);
    ASSERT_GT(r.spun_ns, 0);
    ASSERT_FALSE(clock.cpu_reads.empty());
    EXPECT_LE(clock.cpu_reads.back(), deadline - r.spun_ns);
    EXPECT_EQ(r.cpu_ns, 30 * kNsPerUs + r.spun_ns);
    EXPECT_EQ(waiter.state().timer_sleep_cpu_ns, 30 * kNsPerUs);
}

// A sleep that costs the whole budget leaves no spin: the timer waits to the
// deadline itself.
TEST(WaiterTimer, ASleepThatCostsTheWholeBudgetLeavesNoSpin) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.timer_cpu_ns = 150 * kNsPerUs;
    Waiter waiter(fake_config(clock, sleeper, 60, Strategy::Timer));   // budget 140 us at 60 Hz
    waiter.wait_until(clock.now_ns() + 10 * kNsPerMs);
    for (int i = 0; i < 10; ++i) {
        const int64_t deadline = clock.now_ns() + 10 * kNsPerMs;
        EXPECT_EQ(waiter.wait_until(deadline).spun_ns, 0);
        EXPECT_EQ(sleeper.until_requests.back(), deadline);
    }
    EXPECT_EQ(waiter.state().timer_margin_ns, 0);
}

TEST(WaiterTimer, TheMarginIsHeadroomTimesTheQuantilePlusPad) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.tuning.timer.margin_window = 100;
    c.tuning.timer.max_wait_cpu_ns = 1'000'000'000;   // the estimator alone: no spin budget
    c.tuning.timer.max_wait_cpu_pct = 100;
    Waiter waiter(c);
    // 100 wakes: 97 at 10 us and 3 at 100 us. The 0.99 quantile (rank 99) is 100 us.
    for (int i = 0; i < 100; ++i) {
        sleeper.timer_latenesses.push_back(i % 33 == 32 ? 100 * kNsPerUs : 10 * kNsPerUs);
        waiter.wait_until(clock.now_ns() + 16 * kNsPerMs);
    }
    EXPECT_EQ(waiter.state().timer_margin_ns, 115 * kNsPerUs);   // 1.1 * 100 + 5
}

TEST(WaiterContention, ThePacerMarksContendedFrames) {
    FakeClock clock;
    clock.runqueue_ns = 0;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60));
    pacer.wait();   // the first frame does not wait
    EXPECT_FALSE(pacer.wait().contended);   // the first timer wait reads the baseline
    for (int i = 0; i < 3; ++i) {   // signs over 33 ms are not contention yet
        clock.advance_runnable(2 * kNsPerMs);
        EXPECT_FALSE(pacer.wait().contended) << i;
    }
    clock.advance_runnable(2 * kNsPerMs);
    EXPECT_TRUE(pacer.wait().contended);   // over 50 ms they are
    EXPECT_EQ(pacer.status().runqueue_wait_ns, 2 * kNsPerMs);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.strategy = Strategy::Spin; }), "");   // spin does not watch: its frames do not claim it
    clock.advance_runnable(2 * kNsPerMs);
    EXPECT_FALSE(pacer.wait().contended);
}
