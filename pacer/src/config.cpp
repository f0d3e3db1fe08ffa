// config.cpp: strategy and miss-policy names, the defaults of Config (all in
// one place, as pacer.h documents them) and the validation of a resolved Config.
#include "pacer/pacer.h"

#include "internal.h"
#include "os.h"

#include <charconv>
#include <cmath>
#include <string>

namespace pacer {

namespace {

// The defaults, written once. pacer.h states the same values next to each field.
constexpr double kDefaultTargetHz = 60.0;
constexpr int32_t kDefaultResyncAfterPeriods = 8;
constexpr int64_t kDefaultSchedulerPeriodNs = 1'000'000;       // 1 ms
constexpr double kDefaultPreciseSigmaK = 1.0;
constexpr int64_t kDefaultPreciseInitialEstimateNs = 5'000'000;  // 5 ms
constexpr int64_t kDefaultRobustToleranceNs = 20'000;           // 20 us
constexpr int64_t kDefaultTimerMarginNs = 200'000;              // 200 us
constexpr int64_t kDefaultTimerMinMarginNs = 10'000;            // 10 us
constexpr int64_t kDefaultTimerMaxMarginNs = 2'000'000;         // 2 ms
constexpr double kDefaultTimerMarginQuantile = 0.99;
constexpr double kDefaultTimerMarginHeadroom = 1.1;
constexpr int64_t kDefaultTimerMarginPadNs = 5'000;             // 5 us
constexpr int32_t kDefaultTimerMarginWindow = 512;
constexpr int64_t kDefaultTimerMaxSpinNs = 100'000;             // 100 us
constexpr double kDefaultTimerMaxSpinPct = 1.0;
constexpr int64_t kDefaultContentionWaitNs = 500'000;           // 500 us
constexpr int64_t kDefaultMaxDtNs = 100'000'000;                // 100 ms
constexpr int64_t kDefaultOffToleranceNs = 500'000;             // 500 us
constexpr int32_t kDefaultHistoryFrames = 1024;

// Validation limits. Rates above 10 kHz are below any timer's resolution; a
// scheduler period over a second is not a scheduler period; the history bound
// keeps the ring (about 100 bytes a frame) under a gigabyte.
constexpr double kMaxTargetHz = 10'000.0;
constexpr int64_t kMaxSchedulerPeriodNs = 1'000'000'000;
constexpr int32_t kMinHistoryFrames = 2;
constexpr int32_t kMaxHistoryFrames = 10'000'000;
constexpr double kMaxTimerMarginHeadroom = 10.0;   // a margin ten times the tail is a spin, not a margin

// Shortest text that reads back as the same double ("60", "0.99", "nan").
std::string format_double(double value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

}  // namespace

const char* strategy_name(Strategy strategy) {
    switch (strategy) {
        case Strategy::Default: return "timer";   // Default resolves to Timer
        case Strategy::Sleep: return "sleep";
        case Strategy::Spin: return "spin";
        case Strategy::PreciseSleep: return "precise_sleep";
        case Strategy::RobustSleep: return "robust_sleep";
        case Strategy::Timer: return "timer";
        case Strategy::Vsync: return "vsync";
        case Strategy::Auto: return "auto";
    }
    return "unknown";
}

bool parse_strategy(std::string_view name, Strategy* out) {
    for (Strategy strategy : kAllStrategies) {
        if (name == strategy_name(strategy)) {
            *out = strategy;
            return true;
        }
    }
    return false;
}

const char* miss_policy_name(MissPolicy policy) {
    switch (policy) {
        case MissPolicy::Default: return "skip";   // Default resolves to Skip
        case MissPolicy::Skip: return "skip";
        case MissPolicy::CatchUp: return "catch_up";
    }
    return "unknown";
}

bool parse_miss_policy(std::string_view name, MissPolicy* out) {
    for (MissPolicy policy : {MissPolicy::Skip, MissPolicy::CatchUp}) {
        if (name == miss_policy_name(policy)) {
            *out = policy;
            return true;
        }
    }
    return false;
}

const char* wait_point_name(WaitPoint point) {
    switch (point) {
        case WaitPoint::Default: return "before_present";   // Default resolves to BeforePresent
        case WaitPoint::BeforePresent: return "before_present";
        case WaitPoint::FrameStart: return "frame_start";
    }
    return "unknown";
}

bool parse_wait_point(std::string_view name, WaitPoint* out) {
    for (WaitPoint point : {WaitPoint::BeforePresent, WaitPoint::FrameStart}) {
        if (name == wait_point_name(point)) {
            *out = point;
            return true;
        }
    }
    return false;
}

Config resolve(const Config& config) {
    Config r = config;
    if (r.target_hz == 0) r.target_hz = kDefaultTargetHz;
    if (r.strategy == Strategy::Default) r.strategy = Strategy::Timer;
    if (r.miss_policy == MissPolicy::Default) r.miss_policy = MissPolicy::Skip;
    if (r.resync_after_periods == 0) r.resync_after_periods = kDefaultResyncAfterPeriods;
    if (r.scheduler_period_ns == 0) {
        // The pacer makes its OsSleeper after resolving, so without an injected
        // sleeper ask the OS directly: it is what that OsSleeper would state.
        int64_t stated_ns = r.sleeper ? r.sleeper->scheduler_period_ns() : os::scheduler_period_ns();
        r.scheduler_period_ns = stated_ns > 0 ? stated_ns : kDefaultSchedulerPeriodNs;
    }
    if (r.precise_sigma_k == 0) r.precise_sigma_k = kDefaultPreciseSigmaK;
    if (r.precise_initial_estimate_ns == 0) r.precise_initial_estimate_ns = kDefaultPreciseInitialEstimateNs;
    if (r.robust_tolerance_ns == 0) r.robust_tolerance_ns = kDefaultRobustToleranceNs;
    if (r.timer_margin_ns == 0) r.timer_margin_ns = kDefaultTimerMarginNs;
    if (r.timer_min_margin_ns == 0) r.timer_min_margin_ns = kDefaultTimerMinMarginNs;
    if (r.timer_max_margin_ns == 0) r.timer_max_margin_ns = kDefaultTimerMaxMarginNs;
    if (r.timer_margin_quantile == 0) r.timer_margin_quantile = kDefaultTimerMarginQuantile;
    if (r.timer_margin_headroom == 0) r.timer_margin_headroom = kDefaultTimerMarginHeadroom;
    if (r.timer_margin_pad_ns == 0) r.timer_margin_pad_ns = kDefaultTimerMarginPadNs;
    if (r.timer_margin_window == 0) r.timer_margin_window = kDefaultTimerMarginWindow;
    if (r.timer_max_spin_ns == 0) r.timer_max_spin_ns = kDefaultTimerMaxSpinNs;
    if (r.timer_max_spin_pct == 0) r.timer_max_spin_pct = kDefaultTimerMaxSpinPct;
    if (r.contention_wait_ns == 0) r.contention_wait_ns = kDefaultContentionWaitNs;
    if (r.wait_timer_slack_ns == 0) r.wait_timer_slack_ns = detail::kDefaultWaitTimerSlackNs;
    if (r.wait_sched_slice_ns == 0) r.wait_sched_slice_ns = detail::kDefaultWaitSchedSliceNs;
    if (r.max_dt_ns == 0) r.max_dt_ns = kDefaultMaxDtNs;
    if (r.wait_point == WaitPoint::Default) r.wait_point = WaitPoint::BeforePresent;
    if (r.off_tolerance_ns == 0) r.off_tolerance_ns = kDefaultOffToleranceNs;
    if (r.history_frames == 0) r.history_frames = kDefaultHistoryFrames;
    // clock, sleeper and host stay null: the pacer owns the OS defaults.
    return r;
}

std::string validate(const Config& c) {
    const auto field = [](const char* name, const std::string& value, const std::string& why) {
        return std::string(name) + ": " + value + " " + why;
    };
    const auto i = [](int64_t value) { return std::to_string(value); };
    const auto d = format_double;

    if (!(std::isfinite(c.target_hz) && c.target_hz > 0 && c.target_hz <= kMaxTargetHz))
        return field("target_hz", d(c.target_hz), "is out of range (0, " + d(kMaxTargetHz) + "]");
    if (static_cast<int>(c.strategy) < static_cast<int>(Strategy::Default) ||
        static_cast<int>(c.strategy) > static_cast<int>(Strategy::Auto))
        return field("strategy", i(static_cast<int>(c.strategy)), "is not a Strategy");
    if (static_cast<int>(c.miss_policy) < static_cast<int>(MissPolicy::Default) ||
        static_cast<int>(c.miss_policy) > static_cast<int>(MissPolicy::CatchUp))
        return field("miss_policy", i(static_cast<int>(c.miss_policy)), "is not a MissPolicy");
    if (c.resync_after_periods < 1)
        return field("resync_after_periods", i(c.resync_after_periods), "must be at least 1");
    if (c.scheduler_period_ns <= 0 || c.scheduler_period_ns > kMaxSchedulerPeriodNs)
        return field("scheduler_period_ns", i(c.scheduler_period_ns),
                     "is out of range (0, " + i(kMaxSchedulerPeriodNs) + "]");

    if (!(std::isfinite(c.precise_sigma_k) && c.precise_sigma_k >= 0))
        return field("precise_sigma_k", d(c.precise_sigma_k), "must be finite and not negative");
    if (c.precise_initial_estimate_ns <= 0)
        return field("precise_initial_estimate_ns", i(c.precise_initial_estimate_ns), "must be positive");

    if (c.robust_tolerance_ns < 0)
        return field("robust_tolerance_ns", i(c.robust_tolerance_ns), "must not be negative");

    if (c.timer_min_margin_ns < 0)
        return field("timer_min_margin_ns", i(c.timer_min_margin_ns), "must not be negative");
    if (c.timer_max_margin_ns < c.timer_min_margin_ns)
        return field("timer_max_margin_ns", i(c.timer_max_margin_ns),
                     "is below timer_min_margin_ns (" + i(c.timer_min_margin_ns) + ")");
    if (c.timer_margin_ns < c.timer_min_margin_ns || c.timer_margin_ns > c.timer_max_margin_ns)
        return field("timer_margin_ns", i(c.timer_margin_ns),
                     "is outside [timer_min_margin_ns, timer_max_margin_ns] = [" +
                         i(c.timer_min_margin_ns) + ", " + i(c.timer_max_margin_ns) + "]");
    if (!(std::isfinite(c.timer_margin_quantile) && c.timer_margin_quantile > 0 &&
          c.timer_margin_quantile <= 1))
        return field("timer_margin_quantile", d(c.timer_margin_quantile), "is out of range (0, 1]");
    if (!(std::isfinite(c.timer_margin_headroom) && c.timer_margin_headroom >= 1 &&
          c.timer_margin_headroom <= kMaxTimerMarginHeadroom))
        return field("timer_margin_headroom", d(c.timer_margin_headroom),
                     "is out of range [1, " + d(kMaxTimerMarginHeadroom) + "]");
    if (c.timer_margin_pad_ns < 0)
        return field("timer_margin_pad_ns", i(c.timer_margin_pad_ns), "must not be negative");
    if (c.timer_margin_window < 1)
        return field("timer_margin_window", i(c.timer_margin_window), "must be at least 1");
    if (c.timer_max_spin_ns < 0)
        return field("timer_max_spin_ns", i(c.timer_max_spin_ns), "must not be negative");
    if (!(std::isfinite(c.timer_max_spin_pct) && c.timer_max_spin_pct >= 0 && c.timer_max_spin_pct <= 100))
        return field("timer_max_spin_pct", d(c.timer_max_spin_pct), "is out of range [0, 100]");
    if (c.contention_wait_ns <= 0)
        return field("contention_wait_ns", i(c.contention_wait_ns), "must be positive");
    if (c.wait_timer_slack_ns < -1 || c.wait_timer_slack_ns == 0)
        return field("wait_timer_slack_ns", i(c.wait_timer_slack_ns), "must be positive, or -1 (leave the thread's)");
    if (c.wait_sched_slice_ns < -1 || c.wait_sched_slice_ns == 0)
        return field("wait_sched_slice_ns", i(c.wait_sched_slice_ns), "must be positive, or -1 (leave the thread's)");

    if (c.max_dt_ns <= 0) return field("max_dt_ns", i(c.max_dt_ns), "must be positive");
    if (static_cast<int>(c.wait_point) < static_cast<int>(WaitPoint::Default) ||
        static_cast<int>(c.wait_point) > static_cast<int>(WaitPoint::FrameStart))
        return field("wait_point", i(static_cast<int>(c.wait_point)), "is not a WaitPoint");

    if (c.off_tolerance_ns < 0)
        return field("off_tolerance_ns", i(c.off_tolerance_ns), "must not be negative");
    if (c.history_frames < kMinHistoryFrames || c.history_frames > kMaxHistoryFrames)
        return field("history_frames", i(c.history_frames),
                     "is out of range [" + i(kMinHistoryFrames) + ", " + i(kMaxHistoryFrames) + "]");
    return {};
}

}  // namespace pacer
