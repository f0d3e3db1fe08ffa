// test_simulated_scheduler.cpp: tick quantisation and seeded preemption,
// over a fake inner sleeper (so "really sleeping" is visible as inner calls).
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

SimulatedSchedulerConfig sim_config(int64_t period_ns, double q = 0, uint64_t seed = 0) {
    SimulatedSchedulerConfig c{};
    c.period_ns = period_ns;
    c.preempt_probability = q;
    c.seed = seed;
    return c;
}

}  // namespace

TEST(SimulatedScheduler, DefaultsAreTheWindowsTickNoPreemptionSeedOne) {
    FakeClock clock;
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, SimulatedSchedulerConfig{});
    EXPECT_EQ(sim.scheduler_period_ns(), 15'625'000);
    EXPECT_EQ(sim.config().seed, 1u);
    EXPECT_EQ(sim.config().preempt_probability, 0.0);
    for (int i = 0; i < 1000; ++i) sim.sleep_ns(1 * kNsPerMs);
    EXPECT_EQ(sim.preemptions(), 0);
}

TEST(SimulatedScheduler, RelativeSleepWakesOnTheFirstTickAtOrAfterTheRequest) {
    FakeClock clock(1 * kNsPerSecond + 3 * kNsPerMs);   // 3 ms into a 10 ms tick
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs));
    sim.sleep_ns(1 * kNsPerMs);
    EXPECT_EQ(clock.now_ns(), 1 * kNsPerSecond + 10 * kNsPerMs);
    ASSERT_EQ(inner.until_requests.size(), 1u);   // waited precisely on the inner timer
    EXPECT_EQ(inner.until_requests[0], 1 * kNsPerSecond + 10 * kNsPerMs);
    sim.sleep_ns(10 * kNsPerMs);   // from a tick, a whole tick: exactly one tick
    EXPECT_EQ(clock.now_ns(), 1 * kNsPerSecond + 20 * kNsPerMs);
    sim.sleep_ns(0);   // on a tick already: no wait at all
    EXPECT_EQ(clock.now_ns(), 1 * kNsPerSecond + 20 * kNsPerMs);
    sim.sleep_ns(1);   // one nanosecond still costs a whole tick
    EXPECT_EQ(clock.now_ns(), 1 * kNsPerSecond + 30 * kNsPerMs);
}

TEST(SimulatedScheduler, QuantisationOverManyOffsets) {
    FakeClock clock;
    FakeSleeper inner(clock);
    const int64_t period = 15'600'000;
    SimulatedScheduler sim(inner, clock, sim_config(period));
    int64_t offset = 0;
    for (int i = 0; i < 5000; ++i) {
        offset = (offset * 31 + 7'777'777) % (3 * period);   // wander across the tick
        clock.advance(offset % 997'003);
        const int64_t asked = 1 * kNsPerMs + offset;
        const int64_t from = clock.now_ns();
        sim.sleep_ns(asked);
        const int64_t woke = clock.now_ns();
        ASSERT_EQ(woke % period, 0);               // on the tick grid
        ASSERT_GE(woke - from, asked);             // never short
        ASSERT_LT(woke - from, asked + period);    // rounded up by less than a tick
    }
}

TEST(SimulatedScheduler, WithoutAnInnerTimerItSleepsTheRemainderRelatively) {
    FakeClock clock(4 * kNsPerMs);
    FakeSleeper inner(clock);
    inner.high_res_timer = false;
    inner.sleep_overshoot_ns = 30 * kNsPerUs;   // the inner OS's own lateness adds on top
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs));
    EXPECT_FALSE(sim.has_high_res_timer());
    sim.sleep_ns(2 * kNsPerMs);
    ASSERT_EQ(inner.sleep_requests.size(), 1u);
    EXPECT_EQ(inner.sleep_requests[0], 6 * kNsPerMs);
    EXPECT_EQ(clock.now_ns(), 10 * kNsPerMs + 30 * kNsPerUs);
    EXPECT_FALSE(sim.sleep_until_ns(20 * kNsPerMs));   // no timer to offer
    EXPECT_EQ(clock.now_ns(), 10 * kNsPerMs + 30 * kNsPerUs);
}

TEST(SimulatedScheduler, TimerWaitsAreNotQuantised) {
    FakeClock clock(1 * kNsPerSecond);
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs));
    EXPECT_TRUE(sim.has_high_res_timer());
    EXPECT_TRUE(sim.sleep_until_ns(1 * kNsPerSecond + 4'500 * kNsPerUs));
    EXPECT_EQ(clock.now_ns(), 1 * kNsPerSecond + 4'500 * kNsPerUs);
}

TEST(SimulatedScheduler, PreemptionAddsWholeTicksWithProbabilityQ) {
    // Geometric: P(at least k extra ticks) = q^k, mean q / (1 - q) per sleep.
    const double q = 0.3;
    const int sleeps = 100'000;
    FakeClock clock;
    FakeSleeper inner(clock);
    const int64_t period = 1 * kNsPerMs;
    SimulatedScheduler sim(inner, clock, sim_config(period, q, 12345));
    std::vector<int> extra_counts(8, 0);
    for (int i = 0; i < sleeps; ++i) {
        const int64_t from = clock.now_ns();   // always on a tick here
        sim.sleep_ns(period / 2);
        const int64_t extra = (clock.now_ns() - from) / period - 1;
        ASSERT_GE(extra, 0);
        ASSERT_EQ((clock.now_ns() - from) % period, 0);
        ++extra_counts[static_cast<std::size_t>(std::min<int64_t>(extra, 7))];
    }
    const double at_least_one = 1.0 - static_cast<double>(extra_counts[0]) / sleeps;
    const double at_least_two = at_least_one - static_cast<double>(extra_counts[1]) / sleeps;
    // Binomial standard errors are 0.0014 and 0.0009: these bounds are ~7 sigma.
    EXPECT_NEAR(at_least_one, q, 0.01);
    EXPECT_NEAR(at_least_two, q * q, 0.006);
    EXPECT_NEAR(static_cast<double>(sim.preemptions()) / sleeps, q / (1 - q), 0.02);
}

TEST(SimulatedScheduler, AProbabilityJustUnderOneStillReturnsFromASleep) {
    // q^k for 1e10 ticks would be a sleep of months: capped at kMaxPreemptTicks.
    FakeClock clock;
    FakeSleeper inner(clock);
    const int64_t period = 10 * kNsPerMs;
    SimulatedScheduler sim(inner, clock, sim_config(period, 0.9999999999, 7));
    for (int i = 0; i < 3; ++i) {
        const int64_t from = clock.now_ns();
        sim.sleep_ns(period / 2);
        EXPECT_EQ(clock.now_ns() - from, (1 + SimulatedScheduler::kMaxPreemptTicks) * period);
        EXPECT_TRUE(sim.sleep_until_ns(clock.now_ns() + period / 2));
    }
    EXPECT_EQ(sim.preemptions(), 6 * SimulatedScheduler::kMaxPreemptTicks);
}

TEST(SimulatedScheduler, PreemptedTimerWakeMovesToTheNextTicks) {
    FakeClock clock(0);
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs, 0.5, 7));
    for (int i = 0; i < 200; ++i) {
        const int64_t deadline = clock.now_ns() + 4'500 * kNsPerUs;
        const int64_t before = sim.preemptions();
        sim.sleep_until_ns(deadline);
        const int64_t extra = sim.preemptions() - before;
        if (extra == 0) {
            ASSERT_EQ(clock.now_ns(), deadline);
        } else {
            // The first preemption ends at the tick after the deadline, each
            // further one a tick later.
            const int64_t first_tick = (deadline / (10 * kNsPerMs) + 1) * 10 * kNsPerMs;
            ASSERT_EQ(clock.now_ns(), first_tick + (extra - 1) * 10 * kNsPerMs);
        }
    }
    EXPECT_GT(sim.preemptions(), 0);
}

TEST(SimulatedScheduler, SameSeedSameWakesOtherSeedOtherWakes) {
    auto wakes = [](uint64_t seed) {
        FakeClock clock;
        FakeSleeper inner(clock);
        SimulatedScheduler sim(inner, clock, sim_config(2 * kNsPerMs, 0.4, seed));
        std::vector<int64_t> out;
        for (int i = 0; i < 200; ++i) {
            sim.sleep_ns(3 * kNsPerMs);
            out.push_back(clock.now_ns());
        }
        return out;
    };
    EXPECT_EQ(wakes(99), wakes(99));
    EXPECT_NE(wakes(99), wakes(100));
}

TEST(SimulatedScheduler, BadConfigThrowsNamingTheField) {
    FakeClock clock;
    FakeSleeper inner(clock);
    for (double q : {1.0, -0.1, 1.5}) {
        try {
            SimulatedScheduler sim(inner, clock, sim_config(1 * kNsPerMs, q));
            ADD_FAILURE() << "q = " << q << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_TRUE(pacer::testing::contains(std::string(e.what()), "preempt_probability")) << e.what();
        }
    }
    EXPECT_THROW(SimulatedScheduler(inner, clock, sim_config(-1)), std::invalid_argument);
}

TEST(SimulatedScheduler, PauseAndCpuGoToTheInnerSleeper) {
    FakeClock clock;
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs));
    sim.pause();
    EXPECT_EQ(inner.pauses, 1);
    EXPECT_EQ(clock.cpu_ns(), inner.pause_ns);
}

// Strategies on top of it: the 2020 and 2022 articles' experiments in small.

TEST(SimulatedSchedulerStrategies, NaiveSleepIsQuantisedToTheTick) {
    FakeClock clock;
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(15'625'000));
    Config config = fake_config(clock, inner, 60, Strategy::Sleep);
    config.sleeper = &sim;
    Pacer on_sim(config);
    on_sim.wait();
    for (int i = 0; i < 50; ++i) {
        clock.advance_busy(2 * kNsPerMs);
        const Frame f = on_sim.wait();
        EXPECT_EQ(f.wake_ns % 15'625'000, 0);        // every wake on a tick
        EXPECT_GE(f.interval_ns, 16'666'667 - 1);    // never early ...
        EXPECT_GT(f.interval_ns, 20 * kNsPerMs);          // ... and a 60 Hz frame becomes two ticks
    }
}

TEST(SimulatedSchedulerStrategies, RobustSleepUsesTheSimulatedPeriodAndStaysOnTime) {
    FakeClock clock;
    FakeSleeper inner(clock);
    SimulatedScheduler sim(inner, clock, sim_config(10 * kNsPerMs, 0.0));
    Config config = fake_config(clock, inner, 30, Strategy::RobustSleep);
    config.sleeper = &sim;
    Pacer pacer(config);
    EXPECT_EQ(pacer.status().scheduler_period_ns, 10 * kNsPerMs);   // taken from the sleeper
    pacer.wait();
    for (int i = 0; i < 100; ++i) {
        clock.advance_busy(3 * kNsPerMs);
        const Frame f = pacer.wait();
        EXPECT_GE(f.lateness_ns, 0);
        EXPECT_LT(f.lateness_ns, inner.pause_ns);
        EXPECT_GT(f.slept_ns, 0);
    }
}
