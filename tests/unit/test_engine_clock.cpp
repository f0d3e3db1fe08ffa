// test_engine_clock.cpp: what the pacer hands the engine to move things by:
// Frame::dt_ns (grid steps, snapped vsync intervals, clamped stalls),
// Frame::predicted_present_ns at both wait points, and FixedStep.
#include "fakes.h"

#include <pacer/fixed_step.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

constexpr int64_t kPeriod60 = 16'666'667;   // rounded; the grid alternates ...666 and ...667

class FixedHost final : public Host {
public:
    explicit FixedHost(double hz) : refresh(hz) {}
    bool set_swap_interval(int) override { return true; }
    double refresh_rate_hz() override { return refresh; }
    double refresh;
};

}  // namespace

TEST(EngineDt, TimerFramesGetTheGridStepWhateverTheWakeJitter) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    // Wakes land 0 to 400 us late: the intervals wobble, dt must not.
    for (int64_t late : {0, 400, 30, 250, 0, 120, 380, 10, 200, 90}) sleeper.timer_latenesses.push_back(late * kNsPerUs);
    Config c = fake_config(clock, sleeper, 60);
    c.tuning.timer.min_margin_ns = 1;
    c.tuning.timer.margin_ns = 1;
    c.tuning.timer.margin_pad_ns = 1;
    c.tuning.timer.max_margin_ns = 1;   // margin 1 ns: the timer's lateness reaches the wake
    Pacer pacer(c);
    const Frame first = pacer.wait();
    EXPECT_EQ(first.dt_ns, kPeriod60);   // the target period on the first frame
    int64_t dt_sum = 0;
    bool wobbled = false;
    Frame f{};
    for (int i = 0; i < 10; ++i) {
        clock.advance_busy(2 * kNsPerMs);
        f = pacer.wait();
        EXPECT_NEAR(f.dt_ns, kPeriod60, 1);
        wobbled |= std::llabs(f.interval_ns - kPeriod60) > 50 * kNsPerUs;
        dt_sum += f.dt_ns;
    }
    EXPECT_TRUE(wobbled);                                   // the test has teeth
    EXPECT_EQ(dt_sum, f.deadline_ns - first.deadline_ns);   // dt adds up to grid time exactly
}

TEST(EngineDt, AMissAdvancesByTheSkippedPeriods) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60));
    pacer.wait();
    clock.advance_busy(40 * kNsPerMs);   // 2.4 periods of work: two grid points go by
    const Frame f = pacer.wait();
    EXPECT_EQ(f.missed, 2);
    EXPECT_EQ(f.dt_ns, 50 * kNsPerMs);   // three periods, exactly on the grid
}

TEST(EngineDt, CatchUpFramesEachGetOnePeriod) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 100);
    c.miss_policy = MissPolicy::CatchUp;
    Pacer pacer(c);
    pacer.wait();
    clock.advance_busy(35 * kNsPerMs);
    std::vector<int64_t> dts;
    for (int i = 0; i < 4; ++i) dts.push_back(pacer.wait().dt_ns);
    EXPECT_EQ(dts, (std::vector<int64_t>{10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs}));
}

TEST(EngineDt, AStallGivesTheRealTimeClampedToMaxDt) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60);
    Pacer pacer(c);
    pacer.wait();
    clock.advance(5'000 * kNsPerMs);   // a debugger break
    const Frame f = pacer.wait();
    EXPECT_TRUE(f.resynced);
    EXPECT_EQ(f.dt_ns, 100 * kNsPerMs);   // the default max_dt_ns

    Config small = c;
    small.max_dt_ns = 30 * kNsPerMs;
    small.resync_after_periods = 100;
    Pacer clamped(small);
    clamped.wait();
    clock.advance_busy(45 * kNsPerMs);   // a plain miss, still clamped
    const Frame g = clamped.wait();
    EXPECT_EQ(g.missed, 2);
    EXPECT_EQ(g.dt_ns, 30 * kNsPerMs);
}

TEST(EngineDt, SleepFramesGetTheMeasuredInterval) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.sleep_overshoot_ns = 700 * kNsPerUs;
    Pacer pacer(fake_config(clock, sleeper, 60, Strategy::Sleep));
    pacer.wait();
    clock.advance_busy(2 * kNsPerMs);
    const Frame f = pacer.wait();
    EXPECT_EQ(f.interval_ns, kPeriod60 + 700 * kNsPerUs);
    EXPECT_EQ(f.dt_ns, f.interval_ns);   // sleep's frames really are this uneven
}

TEST(EngineDt, VsyncIntervalsAreSnappedToWholeRefreshes) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FixedHost host(60);
    Config c = fake_config(clock, sleeper, 60, Strategy::Vsync);
    c.host = &host;
    Pacer pacer(c);
    pacer.wait();
    std::vector<int64_t> dts;
    // Swap returns jittered by +-150 us, then one missed refresh.
    for (int64_t blocked : {16'520'000, 16'810'000, 16'700'000, 33'280'000, 16'600'000}) {
        clock.advance(blocked);
        dts.push_back(pacer.wait().dt_ns);
    }
    EXPECT_EQ(dts, (std::vector<int64_t>{kPeriod60, kPeriod60, kPeriod60, 2 * kPeriod60 - 1, kPeriod60}));
}

TEST(EngineDt, VsyncWithUnknownRefreshSnapsToTheTargetPeriod) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FixedHost host(0);
    Config c = fake_config(clock, sleeper, 50, Strategy::Vsync);
    c.host = &host;
    Pacer pacer(c);
    pacer.wait();
    clock.advance(20'300'000);
    EXPECT_EQ(pacer.wait().dt_ns, 20 * kNsPerMs);
}

TEST(EnginePresent, BeforePresentPredictsTheNextDeadline) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 100));
    EXPECT_EQ(pacer.config().wait_point, WaitPoint::BeforePresent);
    const Frame a = pacer.wait();
    EXPECT_EQ(a.predicted_present_ns, a.deadline_ns + 10 * kNsPerMs);
    clock.advance_busy(3 * kNsPerMs);
    const Frame b = pacer.wait();
    EXPECT_EQ(b.predicted_present_ns, b.deadline_ns + 10 * kNsPerMs);
    EXPECT_EQ(b.predicted_present_ns - a.predicted_present_ns, b.dt_ns);
}

TEST(EnginePresent, FrameStartPredictsTheWakePlusTheLastBuildTime) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 100);
    c.wait_point = WaitPoint::FrameStart;
    Pacer pacer(c);
    const Frame a = pacer.wait();
    EXPECT_EQ(a.predicted_present_ns, a.wake_ns);   // nothing measured yet
    clock.advance_busy(4 * kNsPerMs);                    // input, simulate, render, swap
    pacer.mark_present();
    const Frame b = pacer.wait();
    EXPECT_EQ(b.predicted_present_ns, b.wake_ns + 4 * kNsPerMs);
    // Switched live: the next frame predicts as BeforePresent does.
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.wait_point = WaitPoint::BeforePresent; }), "");
    EXPECT_EQ(pacer.config().wait_point, WaitPoint::BeforePresent);
    clock.advance_busy(4 * kNsPerMs);
    const Frame d = pacer.wait();
    EXPECT_EQ(d.predicted_present_ns, d.deadline_ns + 10 * kNsPerMs);
}

TEST(EnginePresent, VsyncPredictsFromTheLastPresent) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FixedHost host(60);
    Config c = fake_config(clock, sleeper, 60, Strategy::Vsync);
    c.host = &host;
    Pacer pacer(c);
    pacer.wait();
    clock.advance(16 * kNsPerMs);
    const int64_t present = clock.now_ns();
    pacer.mark_present(present);
    clock.advance_busy(1 * kNsPerMs);
    // Before present: this wait's swap takes the next refresh, the frame built
    // after it the one after that.
    EXPECT_EQ(pacer.wait().predicted_present_ns, present + 2 * kPeriod60);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.wait_point = WaitPoint::FrameStart; }), "");
    clock.advance(15 * kNsPerMs);
    pacer.mark_present(present + kPeriod60);
    EXPECT_EQ(pacer.wait().predicted_present_ns, present + 2 * kPeriod60);
    // Without a marked present: one vsync period after the wake.
    clock.advance(16 * kNsPerMs);
    const Frame f = pacer.wait();
    EXPECT_EQ(f.predicted_present_ns, f.wake_ns + kPeriod60);
}

TEST(FixedStep, StepsAndAlphaFollowTheAccumulator) {
    FixedStepConfig config{};
    config.step_ns = 10 * kNsPerMs;
    FixedStep steps(config);
    EXPECT_EQ(steps.advance(16'666'667), 1);
    EXPECT_NEAR(steps.alpha(), 0.6666667, 1e-7);
    EXPECT_EQ(steps.advance(16'666'667), 2);   // 6.67 + 16.67 = 23.3 ms owed
    EXPECT_NEAR(steps.alpha(), 0.3333333, 1e-6);
    EXPECT_EQ(steps.advance(3 * kNsPerMs), 0);
    EXPECT_NEAR(steps.alpha(), 0.6333333, 1e-6);
    EXPECT_EQ(steps.steps_total(), 3);
    EXPECT_EQ(steps.dropped_ns(), 0);
    // 600 frames at 60 Hz simulate 10 s in 100 Hz steps, to the step.
    FixedStep long_run(config);
    int64_t total = 0;
    for (int i = 0; i < 600; ++i) total += long_run.advance(i % 3 == 0 ? 16'666'666 : 16'666'667);
    EXPECT_EQ(total, 1000);
    EXPECT_GE(long_run.alpha(), 0.0);
    EXPECT_LT(long_run.alpha(), 1.0);
}

TEST(FixedStep, TheCapDropsTheExcessAndCountsIt) {
    FixedStepConfig config{};
    config.step_ns = 10 * kNsPerMs;
    config.max_steps_per_frame = 4;
    FixedStep steps(config);
    EXPECT_EQ(steps.advance(95 * kNsPerMs), 4);     // 9 owed, 4 run, 5 dropped
    EXPECT_EQ(steps.dropped_ns(), 50 * kNsPerMs);
    EXPECT_EQ(steps.capped_frames(), 1);
    EXPECT_NEAR(steps.alpha(), 0.5, 1e-12);    // the fraction is kept
    EXPECT_EQ(steps.advance(10 * kNsPerMs), 1);     // and it recovers at once
    EXPECT_EQ(steps.capped_frames(), 1);
    steps.reset();
    EXPECT_EQ(steps.accumulator_ns(), 0);
    EXPECT_EQ(steps.dropped_ns(), 0);
    EXPECT_EQ(steps.steps_total(), 0);
}

TEST(FixedStep, DefaultsAndBadInput) {
    FixedStep steps;
    EXPECT_EQ(steps.step_ns(), kPeriod60);
    EXPECT_EQ(steps.max_steps_per_frame(), 8);
    EXPECT_EQ(steps.advance(-5 * kNsPerMs), 0);   // a negative dt counts as nothing
    EXPECT_EQ(steps.accumulator_ns(), 0);
    EXPECT_EQ(validate(FixedStepConfig{}), "");
    FixedStepConfig bad{};
    bad.step_ns = -1;
    EXPECT_EQ(validate(bad), "FixedStep: step_ns -1 must be positive");
    EXPECT_THROW(FixedStep{bad}, std::invalid_argument);
    bad.step_ns = 1;
    bad.max_steps_per_frame = -2;
    EXPECT_EQ(validate(bad), "FixedStep: max_steps_per_frame -2 must be positive");
    EXPECT_THROW(FixedStep{bad}, std::invalid_argument);
}
