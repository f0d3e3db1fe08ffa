// test_config.cpp: names round-trip, every default as declared, 0 asked for
// and got wherever it is legal, and each field's range in validate().
#include <pacer/pacer.h>
#include <pacer/status.h>

#include "fakes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace pacer {
namespace {

TEST(ConfigNames, StrategiesRoundTrip) {
    const char* expected[] = {"sleep", "spin", "precise_sleep", "robust_sleep", "timer", "vsync", "auto", "display_lock"};
    int i = 0;
    for (Strategy strategy : kAllStrategies) {
        EXPECT_STREQ(strategy_name(strategy), expected[i++]);
        Strategy parsed = Strategy::Sleep;
        ASSERT_TRUE(parse_strategy(strategy_name(strategy), &parsed)) << strategy_name(strategy);
        EXPECT_EQ(parsed, strategy);
    }
    EXPECT_EQ(i, 8);
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
    MissPolicy out = MissPolicy::Skip;
    ASSERT_TRUE(parse_miss_policy("catch_up", &out));
    EXPECT_EQ(out, MissPolicy::CatchUp);
    ASSERT_TRUE(parse_miss_policy("skip", &out));
    EXPECT_EQ(out, MissPolicy::Skip);
    EXPECT_FALSE(parse_miss_policy("catchup", &out));
    EXPECT_EQ(out, MissPolicy::Skip);
    EXPECT_STREQ(miss_policy_name(static_cast<MissPolicy>(7)), "unknown");
}

TEST(ConfigNames, WaitPointsRoundTrip) {
    WaitPoint out = WaitPoint::BeforePresent;
    ASSERT_TRUE(parse_wait_point("frame_start", &out));
    EXPECT_EQ(out, WaitPoint::FrameStart);
    ASSERT_TRUE(parse_wait_point("before_present", &out));
    EXPECT_EQ(out, WaitPoint::BeforePresent);
    EXPECT_FALSE(parse_wait_point("start", &out));
    EXPECT_EQ(out, WaitPoint::BeforePresent);
    EXPECT_STREQ(wait_point_name(static_cast<WaitPoint>(5)), "unknown");
}

TEST(ConfigDefaults, EveryDefaultAsDeclared) {
    const Config r;
    EXPECT_EQ(r.target_hz, 60.0);
    EXPECT_EQ(r.strategy, Strategy::Timer);
    EXPECT_EQ(r.miss_policy, MissPolicy::Skip);
    EXPECT_EQ(r.wait_point, WaitPoint::BeforePresent);
    EXPECT_EQ(r.resync_after_periods, 8);
    EXPECT_EQ(r.tuning.scheduler_period_ns, 0);   // the sleeper's, else 1 ms
    EXPECT_EQ(r.max_dt_ns, 100'000'000);
    EXPECT_EQ(r.tuning.precise.sigma_k, 1.0);
    EXPECT_EQ(r.tuning.precise.initial_estimate_ns, 5'000'000);
    EXPECT_EQ(r.tuning.robust.tolerance_ns, 20'000);
    EXPECT_EQ(r.tuning.timer.margin_ns, 200'000);
    EXPECT_EQ(r.tuning.timer.min_margin_ns, 10'000);
    EXPECT_EQ(r.tuning.timer.max_margin_ns, 2'000'000);
    EXPECT_EQ(r.tuning.timer.margin_quantile, 0.998);
    EXPECT_EQ(r.tuning.timer.margin_headroom, 1.1);
    EXPECT_EQ(r.tuning.timer.margin_pad_ns, 5'000);
    EXPECT_EQ(r.tuning.timer.margin_window, 512);
    EXPECT_EQ(r.tuning.timer.max_wait_cpu_ns, 140'000);
    EXPECT_EQ(r.tuning.timer.max_wait_cpu_pct, 1.4);
    EXPECT_EQ(r.tuning.timer.contention_wait_ns, 500'000);
    EXPECT_EQ(r.tuning.timer.last_sleep_ns, 500'000);
    EXPECT_EQ(r.tuning.wait.timer_slack_ns, 1);
    EXPECT_EQ(r.tuning.wait.sched_slice_ns, 100'000);
    EXPECT_EQ(r.display.lead_ns, kLeadAuto);
    EXPECT_EQ(r.display.hitches_per_1000, 1.0);
    EXPECT_EQ(r.stats.off_tolerance_ns, 500'000);
    EXPECT_EQ(r.stats.history_frames, 1024);
    EXPECT_EQ(r.clock, nullptr);
    EXPECT_EQ(r.sleeper, nullptr);
    EXPECT_EQ(r.host, nullptr);
    EXPECT_EQ(validate(r), "");
    // Braces give the same defaults.
    const Config braced{};
    EXPECT_EQ(braced.tuning.timer.max_wait_cpu_ns, 140'000);
    EXPECT_EQ(braced.target_hz, 60.0);
}

TEST(ConfigDefaults, SchedulerPeriodComesFromTheSleeper) {
    testing::FakeClock clock;
    testing::FakeSleeper sleeper(clock);
    sleeper.period_ns = 15'625'000;
    Config config;
    config.clock = &clock;
    config.sleeper = &sleeper;
    EXPECT_EQ(Pacer(config).status().scheduler_period_ns, 15'625'000);
    config.tuning.scheduler_period_ns = 2'000'000;   // an explicit period wins
    EXPECT_EQ(Pacer(config).status().scheduler_period_ns, 2'000'000);
    sleeper.period_ns = 0;                    // none stated: 1 ms is assumed
    config.tuning.scheduler_period_ns = 0;
    EXPECT_EQ(Pacer(config).status().scheduler_period_ns, 1'000'000);
}

// A default config with one field changed; the message must be exactly the
// expected line.
std::string error_with(const std::function<void(Config&)>& change) {
    Config config;
    change(config);
    return validate(config);
}

TEST(ConfigValidate, EachErrorNamesItsFieldPath) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::string hz = " is out of range [0.001, 10000]";
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 0; }), "target_hz: 0" + hz);
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 0.000999; }), "target_hz: 0.000999" + hz);
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = -60; }), "target_hz: -60" + hz);
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 10000.5; }), "target_hz: 10000.5" + hz);
    EXPECT_EQ(error_with([&](Config& c) { c.target_hz = nan; }), "target_hz: nan" + hz);
    EXPECT_EQ(error_with([&](Config& c) { c.target_hz = inf; }), "target_hz: inf" + hz);
    EXPECT_EQ(error_with([](Config& c) { c.strategy = static_cast<Strategy>(8); }),
              "strategy: 8 is not a Strategy");
    EXPECT_EQ(error_with([](Config& c) { c.strategy = static_cast<Strategy>(-1); }),
              "strategy: -1 is not a Strategy");
    EXPECT_EQ(error_with([](Config& c) { c.miss_policy = static_cast<MissPolicy>(2); }),
              "miss_policy: 2 is not a MissPolicy");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_headroom = 0.9; }),
              "tuning.timer.margin_headroom: 0.9 is out of range [1, 10]");
    EXPECT_EQ(error_with([&](Config& c) { c.tuning.timer.margin_headroom = nan; }),
              "tuning.timer.margin_headroom: nan is out of range [1, 10]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_wait_cpu_pct = -1; }),
              "tuning.timer.max_wait_cpu_pct: -1 is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_wait_cpu_pct = 101; }),
              "tuning.timer.max_wait_cpu_pct: 101 is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.wait_point = static_cast<WaitPoint>(7); }),
              "wait_point: 7 is not a WaitPoint");
    EXPECT_EQ(error_with([](Config& c) { c.resync_after_periods = 0; }),
              "resync_after_periods: 0 is out of range [1, 1000000]");
    EXPECT_EQ(error_with([](Config& c) { c.resync_after_periods = 1'000'001; }),
              "resync_after_periods: 1000001 is out of range [1, 1000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.scheduler_period_ns = -1; }),
              "tuning.scheduler_period_ns: -1 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.scheduler_period_ns = 1'000'000'001; }),
              "tuning.scheduler_period_ns: 1000000001 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.max_dt_ns = 0; }), "max_dt_ns: 0 is out of range [1, 60000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.max_dt_ns = 60'000'000'001; }),
              "max_dt_ns: 60000000001 is out of range [1, 60000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.precise.sigma_k = -0.5; }),
              "tuning.precise.sigma_k: -0.5 is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.precise.sigma_k = 101; }), "tuning.precise.sigma_k: 101 is out of range [0, 100]");
    EXPECT_EQ(error_with([&](Config& c) { c.tuning.precise.sigma_k = nan; }), "tuning.precise.sigma_k: nan is out of range [0, 100]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.precise.initial_estimate_ns = 0; }),
              "tuning.precise.initial_estimate_ns: 0 is out of range [1, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.robust.tolerance_ns = -20; }),
              "tuning.robust.tolerance_ns: -20 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.robust.tolerance_ns = 1'000'000'001; }),
              "tuning.robust.tolerance_ns: 1000000001 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.min_margin_ns = -1; }),
              "tuning.timer.min_margin_ns: -1 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_margin_ns = 5'000; }),
              "tuning.timer.max_margin_ns: 5000 is out of range [10000, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_ns = 9'999; }),
              "tuning.timer.margin_ns: 9999 is out of range [tuning.timer.min_margin_ns, tuning.timer.max_margin_ns] = [10000, 2000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_ns = 2'000'001; }),
              "tuning.timer.margin_ns: 2000001 is out of range [tuning.timer.min_margin_ns, tuning.timer.max_margin_ns] = [10000, 2000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_quantile = 1.5; }),
              "tuning.timer.margin_quantile: 1.5 is out of range (0, 1]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_quantile = 0; }),
              "tuning.timer.margin_quantile: 0 is out of range (0, 1]");
    EXPECT_EQ(error_with([&](Config& c) { c.tuning.timer.margin_quantile = nan; }),
              "tuning.timer.margin_quantile: nan is out of range (0, 1]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_pad_ns = -5; }),
              "tuning.timer.margin_pad_ns: -5 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_window = 0; }),
              "tuning.timer.margin_window: 0 is out of range [1, 1000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_window = 1'000'001; }),
              "tuning.timer.margin_window: 1000001 is out of range [1, 1000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_wait_cpu_ns = -1; }),
              "tuning.timer.max_wait_cpu_ns: -1 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_wait_cpu_ns = 1'000'000'001; }),
              "tuning.timer.max_wait_cpu_ns: 1000000001 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.contention_wait_ns = 0; }),
              "tuning.timer.contention_wait_ns: 0 is out of range [1, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.last_sleep_ns = -1; }),
              "tuning.timer.last_sleep_ns: -1 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = -2; }),
              "tuning.wait.timer_slack_ns: -2 is out of range -1 or [1, 100000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = 0; }),
              "tuning.wait.timer_slack_ns: 0 is out of range -1 or [1, 100000000]");
    // Over a tenth of the period: every wait could wake that late.
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = 1'000'000'000; }),
              "tuning.wait.timer_slack_ns: 1000000000 is out of range -1 or [1, 100000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = 1'666'667; }),
              "tuning.wait.timer_slack_ns: 1666667 is over a tenth of the frame period at target_hz 60 (1666666 "
              "ns): each timer wait could wake that late");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.sched_slice_ns = 0; }),
              "tuning.wait.sched_slice_ns: 0 is out of range -1 or [100000, 100000000]");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.sched_slice_ns = 100'000'001; }),
              "tuning.wait.sched_slice_ns: 100000001 is out of range -1 or [100000, 100000000]");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = -3; }),
              "display.lead_ns: -3 is out of range kLeadAuto (-2), kLeadOff (-1) or [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = 1'000'000'001; }),
              "display.lead_ns: 1000000001 is out of range kLeadAuto (-2), kLeadOff (-1) or [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.stats.off_tolerance_ns = -1; }),
              "stats.off_tolerance_ns: -1 is out of range [0, 1000000000]");
    EXPECT_EQ(error_with([](Config& c) { c.stats.history_frames = 1; }),
              "stats.history_frames: 1 is out of range [2, 1000000]");
    EXPECT_EQ(error_with([](Config& c) { c.stats.history_frames = 1'000'001; }),
              "stats.history_frames: 1000001 is out of range [2, 1000000]");
}

TEST(ConfigValidate, OneLineForTheFirstBadField) {
    Config config;
    config.target_hz = 0;
    config.tuning.timer.max_wait_cpu_ns = -1;
    const std::string line = validate(config);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.rfind("target_hz: ", 0), 0u) << line;
}

TEST(ConfigValidate, BoundariesAreAccepted) {
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 10000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.target_hz = 0.001; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.resync_after_periods = 1'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.max_dt_ns = 60'000'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.precise.sigma_k = 100; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_quantile = 1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_window = 1'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.stats.history_frames = 2; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.stats.history_frames = 1'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_ns = c.tuning.timer.min_margin_ns; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_ns = c.tuning.timer.max_margin_ns; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_headroom = 1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.margin_headroom = 10; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.timer.max_wait_cpu_pct = 100; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.scheduler_period_ns = 1'000'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = -1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.timer_slack_ns = 1'666'666; }), "");
    EXPECT_EQ(error_with([](Config& c) {
                  c.target_hz = 1;
                  c.tuning.wait.timer_slack_ns = 100'000'000;
              }),
              "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.sched_slice_ns = -1; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.sched_slice_ns = 100'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.tuning.wait.sched_slice_ns = 100'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = 0; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = 1'000'000'000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = kLeadOff; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.lead_ns = kLeadAuto; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.hitches_per_1000 = 1000; }), "");
    EXPECT_EQ(error_with([](Config& c) { c.display.hitches_per_1000 = 0.01; }), "");
}

TEST(Config, TheHitchBudgetIsAShareAboveZero) {
    EXPECT_EQ(error_with([](Config& c) { c.display.hitches_per_1000 = 0; }),
              "display.hitches_per_1000: 0 is out of range (0, 1000]");
    EXPECT_EQ(error_with([](Config& c) { c.display.hitches_per_1000 = 1000.5; }),
              "display.hitches_per_1000: 1000.5 is out of range (0, 1000]");
    EXPECT_EQ(error_with([](Config& c) { c.display.hitches_per_1000 = std::nan(""); }),
              "display.hitches_per_1000: nan is out of range (0, 1000]");
}

// Every field where 0 is legal takes 0 as given (no "zero means default").
TEST(ConfigZero, EveryLegalZeroIsAccepted) {
    const std::function<void(Config&)> zeros[] = {
        [](Config& c) { c.tuning.scheduler_period_ns = 0; },
        [](Config& c) { c.tuning.precise.sigma_k = 0; },
        [](Config& c) { c.tuning.robust.tolerance_ns = 0; },
        [](Config& c) {
            c.tuning.timer.min_margin_ns = 0;
            c.tuning.timer.margin_ns = 0;
        },
        [](Config& c) { c.tuning.timer.min_margin_ns = 0; },
        [](Config& c) { c.tuning.timer.margin_pad_ns = 0; },
        [](Config& c) { c.tuning.timer.max_wait_cpu_ns = 0; },
        [](Config& c) { c.tuning.timer.max_wait_cpu_pct = 0; },
        [](Config& c) { c.stats.off_tolerance_ns = 0; },
    };
    for (const auto& zero : zeros) EXPECT_EQ(error_with(zero), "");
}

}  // namespace
}  // namespace pacer
