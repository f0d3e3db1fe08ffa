// test_hostile_api.cpp: the public API (and the Waiter and Grid under it) fed
// the values a hostile or careless caller passes: the int64 limits, NaN and
// infinities, out-of-range enums and sizes. One row per input; each expects
// an error value or a clamped, sane result. tools/test.sh runs the table in
// the ASan+UBSan build with -fno-sanitize-recover=all, where any signed
// overflow or bad cast aborts the row.
#include "fakes.h"
#include "base/grid.h"
#include "wait/waiter.h"

#include <pacer/fixed_step.h>
#include <pacer/metrics.h>
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/status.h>

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <cstdint>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>

namespace pacer {
namespace {

using testing::FakeClock;
using testing::FakeSleeper;
using pacer::kNsPerMs;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const int64_t kExtremes[] = {kMin, kMin + 1, -1'000'000'000, -1, 0, 1, 1'000'000'000, kMax - 1, kMax};
const Strategy kEveryStrategy[] = {Strategy::Sleep, Strategy::Spin,  Strategy::PreciseSleep, Strategy::RobustSleep,
                                   Strategy::Timer, Strategy::Vsync, Strategy::Auto};

class FakeHost final : public Host {
public:
    explicit FakeHost(double refresh_hz) : refresh(refresh_hz) {}
    bool set_swap_interval(int interval) override {
        last_interval = interval;
        return true;
    }
    double refresh_rate_hz() override { return refresh; }
    double refresh;
    int last_interval = 0;
};

// A host whose window is in front, unfocused, hidden, or a value no state
// has, in turn, frame by frame.
class FlappingHost final : public Host {
public:
    bool set_swap_interval(int interval) override {
        last_interval = interval;
        return true;
    }
    double refresh_rate_hz() override { return 60; }
    WindowState window_state() override { return static_cast<WindowState>(calls++ % 4 == 3 ? -5 : calls % 4); }
    int last_interval = 0;
    int calls = 0;
};

// A frame every pacer must give, however hostile its input.
void expect_sane(const Frame& f, const Config& config) {
    EXPECT_GE(f.dt_ns, 0);
    EXPECT_LE(f.dt_ns, config.max_dt_ns);
    EXPECT_GE(f.missed, 0);
    EXPECT_GE(f.interval_ns, 0);
    EXPECT_GT(f.period_ns, 0);
}

// Config fields past the ranges validate() states: create() refuses each with
// its field's name and reconfigure() changes nothing.
void config_rejected(void (*change)(Config&), const char* field) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = testing::fake_config(clock, sleeper);
    Config bad = config;
    change(bad);
    std::string error;
    EXPECT_EQ(Pacer::create(bad, &error), nullptr);
    EXPECT_EQ(error.rfind(field, 0), 0u) << error;
    Pacer pacer(config);
    pacer.wait();
    EXPECT_EQ(pacer.reconfigure(bad).rfind(field, 0), 0u);
    EXPECT_EQ(pacer.config().target_hz, config.target_hz);
    EXPECT_EQ(pacer.config().strategy, config.strategy);
    expect_sane(pacer.wait(), pacer.config());
}

// A pacer at the widest valid values, stalled for longer than any period:
// every product of a field and a period stays inside int64.
void run_at_valid_extremes(Strategy strategy, MissPolicy policy) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config config = testing::fake_config(clock, sleeper, 0.001, strategy);   // 1000 s period
    config.miss_policy = policy;
    config.resync_after_periods = 1'000'000;
    config.tuning.robust.tolerance_ns = 1'000'000'000;
    config.tuning.timer.margin_pad_ns = 1'000'000'000;
    config.tuning.timer.max_margin_ns = 1'000'000'000;
    config.tuning.timer.max_wait_cpu_ns = 0;   // the fake spins in 50 ns turns: no 1000 s spins
    config.max_dt_ns = 60'000'000'000;
    config.tuning.scheduler_period_ns = 1'000'000'000;
    sleeper.timer_lateness_ns = 1'000'000'000;
    ASSERT_EQ(validate(config), "");
    Pacer pacer(config);
    for (int i = 0; i < 6; ++i) {
        expect_sane(pacer.wait(), config);
        clock.advance(i == 3 ? kMax / 4 : 1'000'000'000'000 * 3);   // stalls of 3 periods and 73 years
    }
}

// ---- the table -------------------------------------------------------------

struct Case {
    const char* name;
    void (*run)();
};

const Case kCases[] = {
    // Config: validate() bounds every field; the pacer never sees these.
    {"TargetHzTiny", [] { config_rejected([](Config& c) { c.target_hz = 1e-300; }, "target_hz"); }},
    {"TargetHzNano", [] { config_rejected([](Config& c) { c.target_hz = 1e-9; }, "target_hz"); }},
    {"TargetHzHuge", [] { config_rejected([](Config& c) { c.target_hz = 1e300; }, "target_hz"); }},
    {"TargetHzNan", [] { config_rejected([](Config& c) { c.target_hz = kNan; }, "target_hz"); }},
    {"TargetHzInf", [] { config_rejected([](Config& c) { c.target_hz = kInf; }, "target_hz"); }},
    {"TargetHzNegative", [] { config_rejected([](Config& c) { c.target_hz = -60; }, "target_hz"); }},
    {"ResyncAfterPeriodsHuge",
     [] { config_rejected([](Config& c) { c.resync_after_periods = std::numeric_limits<int32_t>::max(); },
                          "resync_after_periods"); }},
    {"ResyncAfterPeriodsZero", [] { config_rejected([](Config& c) { c.resync_after_periods = 0; }, "resync_after_periods"); }},
    {"RobustToleranceHuge", [] { config_rejected([](Config& c) { c.tuning.robust.tolerance_ns = kMax; }, "tuning.robust.tolerance_ns"); }},
    {"RobustToleranceNegative", [] { config_rejected([](Config& c) { c.tuning.robust.tolerance_ns = kMin; }, "tuning.robust.tolerance_ns"); }},
    {"MarginPadHuge", [] { config_rejected([](Config& c) { c.tuning.timer.margin_pad_ns = kMax; }, "tuning.timer.margin_pad_ns"); }},
    {"MarginWindowHuge",
     [] { config_rejected([](Config& c) { c.tuning.timer.margin_window = std::numeric_limits<int32_t>::max(); },
                          "tuning.timer.margin_window"); }},
    {"MaxDtHuge", [] { config_rejected([](Config& c) { c.max_dt_ns = kMax; }, "max_dt_ns"); }},
    {"TimerSlackHuge", [] { config_rejected([](Config& c) { c.tuning.wait.timer_slack_ns = kMax; }, "tuning.wait.timer_slack_ns"); }},
    {"HistoryFramesHuge",
     [] { config_rejected([](Config& c) { c.stats.history_frames = std::numeric_limits<int32_t>::max(); },
                          "stats.history_frames"); }},
    // The display's VRR range and the background rates.
    {"VrrRangeMinAboveMax",
     [] { config_rejected([](Config& c) { c.display.vrr_min_hz = 144, c.display.vrr_max_hz = 48; }, "display.vrr_min_hz: 144 is above"); }},
    {"VrrRangeOfZero",
     [] { config_rejected([](Config& c) { c.display.vrr_min_hz = 60, c.display.vrr_max_hz = 60; }, "display.vrr_min_hz: 60 equals display.vrr_max_hz: a range of zero"); }},
    {"VrrRangeOneSided",
     [] { config_rejected([](Config& c) { c.display.vrr_max_hz = 144; }, "display.vrr_min_hz: 0 with display.vrr_max_hz 144: give both or neither"); }},
    {"VrrRangeNan", [] { config_rejected([](Config& c) { c.display.vrr_max_hz = kNan; }, "display.vrr_max_hz"); }},
    {"VrrOutOfRange", [] { config_rejected([](Config& c) { c.display.vrr = static_cast<Vrr>(9); }, "display.vrr"); }},
    {"BackgroundHzNegative", [] { config_rejected([](Config& c) { c.background_hz = -30; }, "background_hz"); }},
    {"BackgroundHzInf", [] { config_rejected([](Config& c) { c.background_hz = kInf; }, "background_hz"); }},
    {"HiddenHzNegative", [] { config_rejected([](Config& c) { c.hidden_hz = -1; }, "hidden_hz"); }},
    // A host whose window state flaps every frame, or says a value no state has.
    {"HostWindowStateFlaps",
     [] {
         FakeClock clock;
         FakeSleeper sleeper(clock);
         Config config = testing::fake_config(clock, sleeper, 60, Strategy::Auto);
         FlappingHost host;
         config.host = &host;
         {
             Pacer pacer(config);
             for (int i = 0; i < 600; ++i) {
                 const Frame f = pacer.wait();
                 expect_sane(f, config);
                 EXPECT_LE(f.interval_ns, 101 * kNsPerMs);   // hidden_hz's period, at the longest
                 clock.advance(3 * kNsPerMs);
                 pacer.mark_present();
             }
         }
         EXPECT_EQ(host.last_interval, 0);   // left as found
     }},
    // A host whose VRR range is garbage: NaN, infinite, negative, upside down.
    {"HostVrrRangeHostile",
     [] {
         for (const auto& [lo, hi] : {std::pair{kNan, kNan}, std::pair{-48.0, -kInf}, std::pair{144.0, 48.0},
                                      std::pair{0.0, kInf}, std::pair{1e300, 1e301}}) {
             FakeClock clock;
             FakeSleeper sleeper(clock);
             Config config = testing::fake_config(clock, sleeper, 144, Strategy::Auto);
             testing::FakeVrrPanel panel(clock, lo, hi);
             config.host = &panel;
             Pacer pacer(config);
             for (int i = 0; i < 40; ++i) {
                 const Frame f = pacer.wait();
                 expect_sane(f, config);
                 panel.swap(f.index);
             }
             const double pace = pacer.decision().pace_hz;
             EXPECT_TRUE(pace > 0 && pace <= 144) << lo << "-" << hi << ": " << pace;
         }
     }},
    {"StrategyOutOfRange", [] { config_rejected([](Config& c) { c.strategy = static_cast<Strategy>(99); }, "strategy"); }},
    {"StrategyNegative", [] { config_rejected([](Config& c) { c.strategy = static_cast<Strategy>(-1); }, "strategy"); }},
    {"MissPolicyOutOfRange",
     [] { config_rejected([](Config& c) { c.miss_policy = static_cast<MissPolicy>(99); }, "miss_policy"); }},
    {"WaitPointOutOfRange",
     [] { config_rejected([](Config& c) { c.wait_point = static_cast<WaitPoint>(99); }, "wait_point"); }},
    {"EnumNamesOutOfRange",
     [] {
         EXPECT_STREQ(strategy_name(static_cast<Strategy>(99)), "unknown");
         EXPECT_STREQ(miss_policy_name(static_cast<MissPolicy>(-7)), "unknown");
         EXPECT_STREQ(wait_point_name(static_cast<WaitPoint>(1 << 30)), "unknown");
     }},

    // The widest valid values, with stalls: products of fields and periods.
    {"ValidExtremesTimerSkip", [] { run_at_valid_extremes(Strategy::Timer, MissPolicy::Skip); }},
    {"ValidExtremesRobustCatchUp", [] { run_at_valid_extremes(Strategy::RobustSleep, MissPolicy::CatchUp); }},
    {"ValidExtremesSleep", [] { run_at_valid_extremes(Strategy::Sleep, MissPolicy::Skip); }},
    {"ValidExtremesPrecise", [] { run_at_valid_extremes(Strategy::PreciseSleep, MissPolicy::CatchUp); }},

    // mark_present: a time far ahead of the clock, or a negative one, is none.
    {"MarkPresentInt64Max",
     [] {
         for (WaitPoint point : {WaitPoint::BeforePresent, WaitPoint::FrameStart}) {
             FakeClock clock;
             FakeSleeper sleeper(clock);
             Config config = testing::fake_config(clock, sleeper, 60);
             config.wait_point = point;
             Pacer pacer(config);
             for (int i = 0; i < 4; ++i) {
                 const Frame f = pacer.wait();
                 expect_sane(f, config);
                 EXPECT_EQ(f.present_ns, -1);   // ignored: not a time of this clock
                 EXPECT_LT(f.predicted_present_ns, f.wake_ns + 1'000 * kNsPerMs);
                 clock.advance(2 * kNsPerMs);
                 pacer.mark_present(kMax);
             }
         }
     }},
    {"MarkPresentNegative",
     [] {
         for (int64_t present : {kMin, kMin + 1, int64_t{-2}, int64_t{-1'000'000'000}}) {
             FakeClock clock;
             FakeSleeper sleeper(clock);
             Config config = testing::fake_config(clock, sleeper, 60, Strategy::Vsync);
             FakeHost host(60);
             config.host = &host;
             Pacer pacer(config);
             for (int i = 0; i < 4; ++i) {
                 const Frame f = pacer.wait();
                 expect_sane(f, config);
                 if (i > 0) {
                     EXPECT_EQ(f.present_ns, -1) << present;
                 }
                 clock.advance(16 * kNsPerMs);
                 pacer.mark_present(present);
             }
         }
     }},

    // A host's refresh rate outside [1, 10000] Hz or not finite is unknown.
    {"HostRefreshHostile",
     [] {
         for (double refresh : {1e-300, 1e300, kNan, kInf, -kInf, -60.0, 0.5, 1e5}) {
             for (Strategy strategy : {Strategy::Vsync, Strategy::Auto}) {
                 FakeClock clock;
                 FakeSleeper sleeper(clock);
                 Config config = testing::fake_config(clock, sleeper, 60, strategy);
                 FakeHost host(refresh);
                 config.host = &host;
                 Pacer pacer(config);
                 for (int i = 0; i < 40; ++i) {
                     const Frame f = pacer.wait();
                     expect_sane(f, config);
                     EXPECT_GE(f.predicted_present_ns, f.wake_ns);
                     EXPECT_LE(f.predicted_present_ns, f.wake_ns + 1'000 * kNsPerMs);
                     clock.advance(i == 20 ? 5'000 * kNsPerMs : 16 * kNsPerMs);
                     pacer.mark_present();
                 }
                 EXPECT_GE(host.last_interval, 0);
                 EXPECT_LE(host.last_interval, 1);   // unknown refresh: every refresh, or off
                 if (strategy == Strategy::Auto) {
                     EXPECT_TRUE(pacer::testing::contains(pacer.decision().reason, "unknown"))
                         << refresh << ": " << pacer.decision().reason;
                 }
             }
         }
     }},
    {"HostRefreshTurnsHostileLive",
     [] {
         FakeClock clock;
         FakeSleeper sleeper(clock);
         Config config = testing::fake_config(clock, sleeper, 60, Strategy::Auto);
         FakeHost host(60);
         config.host = &host;
         Pacer pacer(config);
         for (int i = 0; i < 400; ++i) {
             if (i % 50 == 10) host.refresh = i % 100 == 10 ? 1e-300 : kNan;
             if (i % 50 == 30) host.refresh = 60;
             expect_sane(pacer.wait(), config);
             clock.advance(17 * kNsPerMs);
             pacer.mark_present();
         }
     }},

    // Clocks at the int64 limits: the grid and every frame field saturate.
    {"ClockNearInt64Max",
     [] {
         for (Strategy strategy : kEveryStrategy) {
             FakeClock clock(kMax - 1'000 * kNsPerMs);
             FakeSleeper sleeper(clock);
             Config config = testing::fake_config(clock, sleeper, 60, strategy);
             FakeHost host(60);
             config.host = &host;
             Pacer pacer(config);
             for (int i = 0; i < 80; ++i) {
                 const Frame f = pacer.wait();
                 EXPECT_GE(f.dt_ns, 0);
                 EXPECT_LE(f.dt_ns, config.max_dt_ns);
                 clock.advance(16 * kNsPerMs);
                 pacer.mark_present();
             }
         }
     }},
    {"ClockJumpsAcrossTheWholeRange",
     [] {
         for (Strategy strategy : kEveryStrategy) {
             FakeClock clock(kMin);
             FakeSleeper sleeper(clock);
             Config config = testing::fake_config(clock, sleeper, 144, strategy);
             FakeHost host(144);
             config.host = &host;
             Pacer pacer(config);
             for (int64_t t : kExtremes) {
                 clock.set(t);
                 const Frame f = pacer.wait();
                 EXPECT_GE(f.dt_ns, 0);
                 EXPECT_LE(f.dt_ns, config.max_dt_ns);
                 pacer.mark_present(t);
             }
         }
     }},

    // The Waiter, at deadlines no pacer makes: at once, or at the limit.
    {"WaiterDeadlineInt64Min",
     [] {
         for (Strategy strategy : kEveryStrategy) {
             FakeClock clock;
             FakeSleeper sleeper(clock);
             Waiter waiter(testing::fake_config(clock, sleeper, 60, strategy));
             const int64_t before = clock.now_ns();
             const WaitResult r = waiter.wait_until(kMin);
             EXPECT_EQ(r.wake_ns, before);
             EXPECT_EQ(r.slept_ns, 0);
             EXPECT_EQ(r.spun_ns, 0);
         }
     }},
    {"WaiterDeadlineInt64Max",
     [] {
         for (Strategy strategy : kEveryStrategy) {
             for (int64_t start : {int64_t{0}, kMax - 10 * kNsPerMs, kMin}) {
                 FakeClock clock(start);
                 FakeSleeper sleeper(clock);
                 // Spins and 1 ms sleeps that reach the end of time in a few thousand turns.
                 sleeper.pause_ns = 1'000'000'000'000'000;
                 sleeper.sleep_overshoot_ns = 1'000'000'000'000'000;
                 Config config = testing::fake_config(clock, sleeper, 60, strategy);
                 config.tuning.scheduler_period_ns = 1'000'000'000;
                 Waiter waiter(config);
                 const WaitResult r = waiter.wait_until(kMax);
                 // sleep is one relative sleep, which from below zero cannot span the range.
                 if (strategy == Strategy::Sleep) EXPECT_GE(r.wake_ns, start);
                 else EXPECT_EQ(r.wake_ns, kMax);
                 EXPECT_GE(r.slept_ns, 0);
                 EXPECT_GE(r.spun_ns, 0);
                 EXPECT_GE(waiter.state().timer_margin_ns, 0);
             }
         }
     }},
    {"WaiterTimerLatenessHuge",
     [] {
         // The timer wakes near the end of time: lateness + pad passes INT64_MAX.
         FakeClock clock(0);
         FakeSleeper sleeper(clock);
         sleeper.timer_lateness_ns = kMax - 20 * kNsPerMs;
         Config config = testing::fake_config(clock, sleeper, 60, Strategy::Timer);
         config.tuning.timer.margin_pad_ns = 1'000'000'000;
         Waiter waiter(config);
         EXPECT_GE(waiter.wait_until(10 * kNsPerMs).wake_ns, kMax - 20 * kNsPerMs);
         EXPECT_LE(waiter.state().timer_margin_ns, config.tuning.timer.max_margin_ns);
         EXPECT_GE(waiter.state().timer_margin_ns, config.tuning.timer.min_margin_ns);
     }},
    {"WaiterOutOfRangeStrategy",
     [] {
         FakeClock clock;
         FakeSleeper sleeper(clock);
         Waiter waiter(testing::fake_config(clock, sleeper));
         waiter.set_strategy(static_cast<Strategy>(99));
         const int64_t deadline = clock.now_ns() + 5 * kNsPerMs;
         EXPECT_GE(waiter.wait_until(deadline).wake_ns, deadline);
     }},

    // The grid far out: saturates at the int64 limits, never wraps.
    {"GridAtHugeSteps",
     [] {
         detail::Grid grid;
         grid.anchor(kMax - 1'000, 0.001);
         EXPECT_EQ(grid.at(kMax), kMax);
         EXPECT_EQ(grid.at(1), kMax);
         grid.anchor(kMin + 1'000, 10'000);
         EXPECT_EQ(grid.at(kMin), kMin);
         EXPECT_EQ(grid.at(kMax), kMax);
         grid.anchor(0, 59.94);
         EXPECT_EQ(grid.at(kMax / 2), kMax);
     }},

    // Stats: hostile frames, sizes.
    {"StatsAddHostileFrames",
     [] {
         Stats stats(8);
         for (int64_t v : kExtremes) {
             Frame f{};
             f.index = v;
             f.deadline_ns = f.wake_ns = f.lateness_ns = f.interval_ns = f.period_ns = v;
             f.work_ns = f.slept_ns = f.spun_ns = f.wait_cpu_ns = f.present_ns = v;
             f.dt_ns = f.predicted_present_ns = v;
             f.missed = v > 0 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
             f.decision_seq = static_cast<int32_t>(v);
             stats.add(f);
             stats.add(f);
             const Summary s = stats.summarize();
             EXPECT_EQ(s.frames, static_cast<int64_t>(stats.size()));
             EXPECT_FALSE(std::isnan(s.fps));
             EXPECT_FALSE(std::isnan(s.spin_pct));
             EXPECT_GE(s.interval_error.p50_us, 0);
             (void)stats.interval_histogram(0, 100, 64);
             try {
                 (void)compute_window_metrics(stats);
             } catch (const std::invalid_argument&) {
                 // a negative interval or no period: refused, as documented
             }
         }
         EXPECT_GE(stats.total_missed(), 0);
     }},
    {"StatsMissedTotalSaturates",
     [] {
         Stats stats(2);
         Frame f{};
         f.index = 1;
         f.missed = std::numeric_limits<int32_t>::max();
         for (int i = 0; i < 5; ++i) stats.add(f);
         EXPECT_GT(stats.total_missed(), 0);
         f.missed = std::numeric_limits<int32_t>::min();
         for (int i = 0; i < 5; ++i) stats.add(f);
         EXPECT_LE(stats.total_missed(), 5 * int64_t{std::numeric_limits<int32_t>::max()});
     }},
    {"StatsCapacityBounded",
     [] {
         EXPECT_THROW(Stats(std::numeric_limits<int32_t>::max()), std::invalid_argument);
         EXPECT_THROW(Stats(1'000'001), std::invalid_argument);
         EXPECT_THROW(Stats(0), std::invalid_argument);
         EXPECT_THROW(Stats(-5), std::invalid_argument);
         EXPECT_THROW(Stats(16, -1), std::invalid_argument);
         Stats stats(4);
         EXPECT_THROW(stats.resize(std::numeric_limits<int32_t>::max(), 0), std::invalid_argument);
         EXPECT_THROW(stats.resize(0, 0), std::invalid_argument);
         EXPECT_THROW(stats.resize(4, -1), std::invalid_argument);
         EXPECT_EQ(stats.capacity(), 4);
         stats.add(Frame{});
         EXPECT_EQ(stats.size(), 1u);
     }},
    {"HistogramBinsBounded",
     [] {
         Stats stats(4);
         EXPECT_THROW(stats.interval_histogram(0, 1, std::numeric_limits<int>::max()), std::invalid_argument);
         EXPECT_THROW(stats.interval_histogram(0, 1, 1'000'001), std::invalid_argument);
         EXPECT_THROW(stats.interval_histogram(0, 0, 10), std::invalid_argument);
         EXPECT_THROW(stats.interval_histogram(kNan, 1, 10), std::invalid_argument);
         EXPECT_THROW(stats.interval_histogram(0, kInf, 10), std::invalid_argument);
         Frame f{};
         f.index = 1;
         f.interval_ns = kMax;
         stats.add(f);
         const auto h = stats.interval_histogram(-1e300, 1e-300, 1'000);
         EXPECT_EQ(h.size(), 1'000u);
     }},
    {"MetricsHostileFrames",
     [] {
         for (int64_t v : kExtremes) {
             std::vector<Frame> frames(3);
             for (int i = 0; i < 3; ++i) {
                 frames[i].index = i;
                 frames[i].interval_ns = v;
                 frames[i].period_ns = v;
             }
             try {
                 const FrameTimeMetrics m = compute_metrics(frames);
                 EXPECT_GE(m.frame_time_max_ms, 0);
             } catch (const std::invalid_argument&) {
                 EXPECT_LE(v, 0);   // refused only for what is not a frame time or period
             }
         }
     }},

    // SimulatedScheduler at the int64 limits.
    {"SimulatedSchedulerAtTheLimits",
     [] {
         for (int64_t period : {int64_t{1}, int64_t{3}, int64_t{1'000'000'000}}) {
             for (double preempt : {0.0, 0.99}) {
                 for (int64_t start : {kMin, kMin + 2, int64_t{-7}, int64_t{0}, kMax - 5, kMax}) {
                     FakeClock clock(start);
                     FakeSleeper inner(clock);
                     SimulatedSchedulerConfig config;
                     config.period_ns = period;
                     config.preempt_probability = preempt;
                     SimulatedScheduler scheduler(inner, clock, config);
                     scheduler.sleep_ns(kMax);
                     EXPECT_GE(clock.now_ns(), start > 0 ? kMax : start + kMax);
                     clock.set(start);
                     scheduler.sleep_ns(kMin);
                     EXPECT_GE(clock.now_ns(), start);
                     clock.set(start);
                     EXPECT_TRUE(scheduler.sleep_until_ns(kMax));
                     EXPECT_EQ(clock.now_ns(), kMax);
                     clock.set(start);
                     EXPECT_TRUE(scheduler.sleep_until_ns(kMin));
                     EXPECT_GE(clock.now_ns(), start);
                 }
             }
         }
         SimulatedSchedulerConfig bad;
         FakeClock clock;
         FakeSleeper inner(clock);
         // No scheduler ticks slower than once a second (INT64_MAX slept 292 years a sleep).
         for (int64_t period : {kMin, int64_t{0}, int64_t{1'000'000'001}, kMax / 2 + 1, kMax}) {
             bad.period_ns = period;
             EXPECT_THROW(SimulatedScheduler(inner, clock, bad), std::invalid_argument) << period;
         }
         bad.period_ns = 1;
         bad.preempt_probability = kNan;
         EXPECT_THROW(SimulatedScheduler(inner, clock, bad), std::invalid_argument);
     }},

    // FixedStep: the cap holds and alpha stays in [0, 1) whatever dt.
    {"FixedStepInt64MaxTwice",
     [] {
         FixedStep steps;   // 60 Hz steps, at most 8 a frame
         for (int i = 0; i < 3; ++i) {
             const int32_t n = steps.advance(kMax);
             EXPECT_GE(n, 0);
             EXPECT_LE(n, steps.max_steps_per_frame());
             EXPECT_GE(steps.alpha(), 0.0);
             EXPECT_LT(steps.alpha(), 1.0);
         }
         EXPECT_EQ(steps.steps_total(), 3 * 8);
         EXPECT_GT(steps.dropped_ns(), 0);
         EXPECT_EQ(steps.advance(kMin), 0);
         EXPECT_GE(steps.alpha(), 0.0);
         EXPECT_LT(steps.alpha(), 1.0);
     }},
    {"FixedStepHugeStep",
     [] {
         FixedStepConfig config;
         config.step_ns = kMax;
         config.max_steps_per_frame = std::numeric_limits<int32_t>::max();
         FixedStep steps(config);
         EXPECT_EQ(steps.advance(kMax - 1), 0);
         EXPECT_EQ(steps.advance(kMax), 1);
         EXPECT_GE(steps.alpha(), 0.0);
         EXPECT_LT(steps.alpha(), 1.0);
         FixedStepConfig tiny;
         tiny.step_ns = 1;
         tiny.max_steps_per_frame = std::numeric_limits<int32_t>::max();
         FixedStep fine(tiny);
         EXPECT_EQ(fine.advance(kMax), std::numeric_limits<int32_t>::max());
         EXPECT_EQ(fine.advance(kMax), std::numeric_limits<int32_t>::max());
         EXPECT_EQ(fine.alpha(), 0.0);
         EXPECT_GT(fine.dropped_ns(), 0);
         EXPECT_THROW(FixedStep(FixedStepConfig{0, 8}), std::invalid_argument);
         EXPECT_THROW(FixedStep(FixedStepConfig{kMin, 8}), std::invalid_argument);
         EXPECT_THROW(FixedStep(FixedStepConfig{1, std::numeric_limits<int32_t>::min()}), std::invalid_argument);
     }},
};

// ctest lists rows by name, not by their bytes.
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class HostileApi : public ::testing::TestWithParam<Case> {};

TEST_P(HostileApi, GivesAnErrorValueOrASaneResult) { GetParam().run(); }

INSTANTIATE_TEST_SUITE_P(Table, HostileApi, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pacer
