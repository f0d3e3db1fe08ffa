// test_config.cpp: names round-trip, every default of resolve(), and each
// validation error names its field.
#include <pacer/pacer.h>

#include "fakes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace pacer {
namespace {

TEST(ConfigNames, StrategiesRoundTrip) {
    const char* expected[] = {"sleep", "spin", "precise_sleep", "robust_sleep", "timer", "vsync", "auto"};
    int i = 0;
    for (Strategy strategy : kAllStrategies) {
        EXPECT_STREQ(strategy_name(strategy), expected[i++]);
        Strategy parsed = Strategy::Default;
        ASSERT_TRUE(parse_strategy(strategy_name(strategy), &parsed)) << strategy_name(strategy);
        EXPECT_EQ(parsed, strategy);
    }
    EXPECT_EQ(i, 7);
    EXPECT_STREQ(strategy_name(Strategy::Default), "timer");
}

TEST(ConfigNames, UnknownStrategyLeavesOutAlone) {
    Strategy out = Strategy::Spin;
    EXPECT_FALSE(parse_strategy("Timer", &out));   // names are case-sensitive
    EXPECT_FALSE(parse_strategy("", &out));
    EXPECT_FALSE(parse_strategy("default", &out));
    EXPECT_FALSE(parse_strategy("timer ", &out));
    EXPECT_EQ(out, Strategy::Spin);
    EXPECT_STREQ(strategy_name(static_cast<Strategy>(99)), "unknown");
}

TEST(ConfigNames, MissPoliciesRoundTrip) {
    EXPECT_STREQ(miss_policy_name(MissPolicy::Skip), "skip");
    EXPECT_STREQ(miss_policy_name(MissPolicy::CatchUp), "catch_up");
    EXPECT_STREQ(miss_policy_name(MissPolicy::Default), "skip");
    MissPolicy out = MissPolicy::Default;
    ASSERT_TRUE(parse_miss_policy("catch_up", &out));
    EXPECT_EQ(out, MissPolicy::CatchUp);
    ASSERT_TRUE(parse_miss_policy("skip", &out));
    EXPECT_EQ(out, MissPolicy::Skip);
    EXPECT_FALSE(parse_miss_policy("catchup", &out));
    EXPECT_EQ(out, MissPolicy::Skip);
    EXPECT_STREQ(miss_policy_name(static_cast<MissPolicy>(7)), "unknown");
}

TEST(ConfigNames, WaitPointsRoundTrip) {
    WaitPoint out = WaitPoint::Default;
    ASSERT_TRUE(parse_wait_point("frame_start", &out));
    EXPECT_EQ(out, WaitPoint::FrameStart);
    ASSERT_TRUE(parse_wait_point("before_present", &out));
    EXPECT_EQ(out, WaitPoint::BeforePresent);
    EXPECT_FALSE(parse_wait_point("start", &out));
    EXPECT_EQ(out, WaitPoint::BeforePresent);
    EXPECT_STREQ(wait_point_name(WaitPoint::Default), "before_present");
}

TEST(ConfigResolve, EveryDefault) {
    testing::FakeClock clock;
    testing::FakeSleeper sleeper(clock);   // states no period: 1 ms is assumed
    Config config{};
    config.sleeper = &sleeper;
    const Config r = resolve(config);
    EXPECT_EQ(r.target_hz, 60.0);
    EXPECT_EQ(r.strategy, Strategy::Timer);
    EXPECT_EQ(r.miss_policy, MissPolicy::Skip);
    EXPECT_EQ(r.resync_after_periods, 8);
    EXPECT_EQ(r.scheduler_period_ns, 1'000'000);
    EXPECT_EQ(r.precise_sigma_k, 1.0);
    EXPECT_EQ(r.precise_initial_estimate_ns, 5'000'000);
    EXPECT_EQ(r.robust_tolerance_ns, 20'000);
    EXPECT_EQ(r.timer_margin_ns, 200'000);
    EXPECT_EQ(r.timer_min_margin_ns, 10'000);
    EXPECT_EQ(r.timer_max_margin_ns, 2'000'000);
    EXPECT_EQ(r.timer_margin_quantile, 0.99);
    EXPECT_EQ(r.timer_margin_headroom, 1.1);
    EXPECT_EQ(r.timer_margin_pad_ns, 5'000);
    EXPECT_EQ(r.timer_margin_window, 512);
    EXPECT_EQ(r.timer_max_spin_ns, 100'000);
    EXPECT_EQ(r.timer_max_spin_pct, 1.0);
    EXPECT_EQ(r.contention_wait_ns, 500'000);
    EXPECT_EQ(r.wait_timer_slack_ns, 1);
    EXPECT_EQ(r.wait_sched_slice_ns, 100'000);
    EXPECT_EQ(r.max_dt_ns, 100'000'000);
    EXPECT_EQ(r.wait_point, WaitPoint::BeforePresent);
    EXPECT_EQ(r.off_tolerance_ns, 500'000);
    EXPECT_EQ(r.history_frames, 1024);
    EXPECT_EQ(r.clock, nullptr);
    EXPECT_EQ(r.sleeper, &sleeper);
    EXPECT_EQ(r.host, nullptr);
    EXPECT_EQ(validate(r), "");
}

TEST(ConfigResolve, SchedulerPeriodComesFromTheSleeper) {
    testing::FakeClock clock;
    testing::FakeSleeper sleeper(clock);
    sleeper.period_ns = 15'625'000;
    Config config{};
    config.sleeper = &sleeper;
    EXPECT_EQ(resolve(config).scheduler_period_ns, 15'625'000);
    config.scheduler_period_ns = 2'000'000;   // an explicit period wins
    EXPECT_EQ(resolve(config).scheduler_period_ns, 2'000'000);
}

#if defined(__linux__)
TEST(ConfigResolve, WithoutASleeperLinuxAssumesOneMillisecond) {
    // Linux states no scheduler period (tickless high-resolution timers).
    EXPECT_EQ(resolve(Config{}).scheduler_period_ns, 1'000'000);
}
#endif

TEST(ConfigResolve, SetFieldsAreKeptAndResolveIsIdempotent) {
    Config config{};
    config.target_hz = 144;
    config.strategy = Strategy::Spin;
    config.miss_policy = MissPolicy::CatchUp;
    config.timer_margin_quantile = 0.5;
    config.history_frames = 16;
    config.scheduler_period_ns = 3;
    config.wait_timer_slack_ns = -1;   // -1: leave the thread's own, kept as is
    config.wait_sched_slice_ns = 2'000'000;
    const Config r = resolve(config);
    EXPECT_EQ(r.wait_timer_slack_ns, -1);
    EXPECT_EQ(r.wait_sched_slice_ns, 2'000'000);
    EXPECT_EQ(r.target_hz, 144.0);
    EXPECT_EQ(r.strategy, Strategy::Spin);
    EXPECT_EQ(r.miss_policy, MissPolicy::CatchUp);
    EXPECT_EQ(r.timer_margin_quantile, 0.5);
    EXPECT_EQ(r.history_frames, 16);
    const Config again = resolve(r);
    EXPECT_EQ(again.target_hz, r.target_hz);
    EXPECT_EQ(again.timer_margin_ns, r.timer_margin_ns);
    EXPECT_EQ(again.scheduler_period_ns, 3);
}

// A valid resolved config with one field changed; the message must be exactly
// the expected line.
std::string error_with(const std::function<void(Config&)>& change) {
    testing::FakeClock clock;
    testing::FakeSleeper sleeper(clock);
    Config config{};
    config.sleeper = &sleeper;
    Config r = resolve(config);
    change(r);
    return validate(r);
}

TEST(ConfigValidate, EachErrorNamesItsField) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 0; }), "target_hz: 0 is out of range (0, 10000]");
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = -60; }), "target_hz: -60 is out of range (0, 10000]");
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 10000.5; }),
              "target_hz: 10000.5 is out of range (0, 10000]");
    EXPECT_EQ(error_with([&](Config& c) { c.target_hz = nan; }), "target_hz: nan is out of range (0, 10000]");
    EXPECT_EQ(error_with([&](Config& c) { c.target_hz = inf; }), "target_hz: inf is out of range (0, 10000]");
    EXPECT_EQ(error_with([](Config& c) { c.strategy = static_cast<Strategy>(8); }),
              "strategy: 8 is not a Strategy");
    EXPECT_EQ(error_with([](Config& c) { c.strategy = static_cast<Strategy>(-1); }),
              "strategy: -1 is not a Strategy");
    EXPECT_EQ(error_with([](Config& c) { c.miss_policy = static_cast<MissPolicy>(3); }),
              "miss_policy: 3 is not a MissPolicy");
    EXPECT_EQ(error_with([](Config& c) { c.resync_after_periods = 0; }),
              "resync_after_periods: 0 must be at least 1");
    EXPECT_EQ(error_with([](Config& c) { c.scheduler_period_ns = -1; }),
              "scheduler_period_ns: -1 is out of range (0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.scheduler_period_ns = 1'000'000'001; }),
              "scheduler_period_ns: 1000000001 is out of range (0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.precise_sigma_k = -0.5; }),
              "precise_sigma_k: -0.5 must be finite and not negative");
    EXPECT_EQ(error_with([&](Config& c) { c.precise_sigma_k = nan; }),
              "precise_sigma_k: nan must be finite and not negative");
    EXPECT_EQ(error_with([](Config& c) { c.precise_initial_estimate_ns = -5; }),
              "precise_initial_estimate_ns: -5 must be positive");
    EXPECT_EQ(error_with([](Config& c) { c.robust_tolerance_ns = -20; }),
              "robust_tolerance_ns: -20 must not be negative");
    EXPECT_EQ(error_with([](Config& c) { c.timer_min_margin_ns = -1; }),
              "timer_min_margin_ns: -1 must not be negative");
    EXPECT_EQ(error_with([](Config& c) { c.timer_max_margin_ns = 5'000; }),
              "timer_max_margin_ns: 5000 is below timer_min_margin_ns (10000)");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_ns = 9'999; }),
              "timer_margin_ns: 9999 is outside [timer_min_margin_ns, timer_max_margin_ns] = [10000, 2000000]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_ns = 2'000'001; }),
              "timer_margin_ns: 2000001 is outside [timer_min_margin_ns, timer_max_margin_ns] = [10000, 2000000]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_quantile = 1.5; }),
              "timer_margin_quantile: 1.5 is out of range (0, 1]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_quantile = 0; }),
              "timer_margin_quantile: 0 is out of range (0, 1]");
    EXPECT_EQ(error_with([&](Config& c) { c.timer_margin_quantile = nan; }),
              "timer_margin_quantile: nan is out of range (0, 1]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_headroom = 0.9; }),
              "timer_margin_headroom: 0.9 is out of range [1, 10]");
    EXPECT_EQ(error_with([&](Config& c) { c.timer_margin_headroom = nan; }),
              "timer_margin_headroom: nan is out of range [1, 10]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_pad_ns = -5; }),
              "timer_margin_pad_ns: -5 must not be negative");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_window = 0; }),
              "timer_margin_window: 0 must be at least 1");
    EXPECT_EQ(error_with([](Config& c) { c.timer_max_spin_ns = -1; }),
              "timer_max_spin_ns: -1 must not be negative");
    EXPECT_EQ(error_with([](Config& c) { c.contention_wait_ns = -1; }),
              "contention_wait_ns: -1 must be positive");
    EXPECT_EQ(error_with([](Config& c) { c.timer_max_spin_pct = -1; }),
              "timer_max_spin_pct: -1 is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.timer_max_spin_pct = 101; }),
              "timer_max_spin_pct: 101 is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.wait_timer_slack_ns = -2; }),
              "wait_timer_slack_ns: -2 must be positive, or -1 (leave the thread's)");
    EXPECT_EQ(error_with([](Config& c) { c.wait_sched_slice_ns = 0; }),
              "wait_sched_slice_ns: 0 must be positive, or -1 (leave the thread's)");
    EXPECT_EQ(error_with([](Config& c) { c.max_dt_ns = -1; }), "max_dt_ns: -1 must be positive");
    EXPECT_EQ(error_with([](Config& c) { c.wait_point = static_cast<WaitPoint>(7); }),
              "wait_point: 7 is not a WaitPoint");
    EXPECT_EQ(error_with([](Config& c) { c.off_tolerance_ns = -1; }),
              "off_tolerance_ns: -1 must not be negative");
    EXPECT_EQ(error_with([](Config& c) { c.history_frames = 1; }),
              "history_frames: 1 is out of range [2, 10000000]");
    EXPECT_EQ(error_with([](Config& c) { c.history_frames = 10'000'001; }),
              "history_frames: 10000001 is out of range [2, 10000000]");
}

TEST(ConfigValidate, BoundariesAreAccepted) {
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 10000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 0.001; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_quantile = 1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_headroom = 1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_headroom = 10; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_max_spin_pct = 100; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.history_frames = 2; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.history_frames = 10'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_ns = c.timer_min_margin_ns; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.timer_margin_ns = c.timer_max_margin_ns; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.scheduler_period_ns = 1'000'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.off_tolerance_ns = 0; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.wait_timer_slack_ns = -1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.wait_sched_slice_ns = -1; }), "");
}

TEST(ConfigValidate, AnUnresolvedZeroIsReported) {
    // validate() checks the values as given: zeros mean "default" only to resolve().
    EXPECT_EQ(validate(Config{}), "target_hz: 0 is out of range (0, 10000]");
}

}  // namespace
}  // namespace pacer
