// config.cpp: the names of strategies, miss policies and wait points, and
// validate(), which gives every Config field a finite range.
#include "os/os.h"

#include <pacer/pacer.h>
#include <pacer/units.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <string>

namespace pacer {

namespace {

// The ranges validate() checks (pacer.h states them beside each field). Every
// duration is bounded so that sums and products of a few of them stay far
// inside int64; the sizes keep each buffer under a few hundred megabytes.
constexpr double kMinTargetHz = 0.001;            // a 1000 s period
constexpr double kMaxTargetHz = 10'000.0;         // below it lies any timer's resolution
constexpr int64_t kMaxDtNs = 60 * kNsPerSecond;
constexpr int32_t kMaxResyncPeriods = 1'000'000;
constexpr double kMaxSigmaK = 100.0;
constexpr double kMaxMarginHeadroom = 10.0;       // ten times the tail is a spin, not a margin
constexpr int32_t kMaxMarginWindow = 1'000'000;   // two int64 vectors: 16 MB
constexpr int32_t kMinHistoryFrames = 2;
constexpr int32_t kMaxHistoryFrames = 1'000'000;  // about 130 MB of frames

// The value among `values` whose name(value) is `name`; false (and *out
// left alone) for none: what every parse_* below does.
template <class Enum, class Values>
bool parse_named(std::string_view name, const Values& values, const char* (*name_of)(Enum), Enum* out) {
    for (Enum value : values) {
        if (name == name_of(value)) {
            *out = value;
            return true;
        }
    }
    return false;
}

}  // namespace

const char* strategy_name(Strategy strategy) {
    switch (strategy) {
        case Strategy::Sleep: return "sleep";
        case Strategy::Spin: return "spin";
        case Strategy::PreciseSleep: return "precise_sleep";
        case Strategy::RobustSleep: return "robust_sleep";
        case Strategy::Timer: return "timer";
        case Strategy::Vsync: return "vsync";
        case Strategy::Auto: return "auto";
        case Strategy::DisplayLock: return "display_lock";
    }
    return "unknown";
}

bool parse_strategy(std::string_view name, Strategy* out) {
    return parse_named(name, kAllStrategies, strategy_name, out);
}

const char* miss_policy_name(MissPolicy policy) {
    switch (policy) {
        case MissPolicy::Skip: return "skip";
        case MissPolicy::CatchUp: return "catch_up";
    }
    return "unknown";
}

bool parse_miss_policy(std::string_view name, MissPolicy* out) {
    return parse_named(name, std::initializer_list<MissPolicy>{MissPolicy::Skip, MissPolicy::CatchUp}, miss_policy_name, out);
}

const char* wait_point_name(WaitPoint point) {
    switch (point) {
        case WaitPoint::BeforePresent: return "before_present";
        case WaitPoint::FrameStart: return "frame_start";
    }
    return "unknown";
}

bool parse_wait_point(std::string_view name, WaitPoint* out) {
    return parse_named(name, std::initializer_list<WaitPoint>{WaitPoint::BeforePresent, WaitPoint::FrameStart}, wait_point_name, out);
}

const char* window_state_name(WindowState state) {
    switch (state) {
        case WindowState::Foreground: return "foreground";
        case WindowState::Unfocused: return "unfocused";
        case WindowState::Hidden: return "hidden";
    }
    return "unknown";
}

const char* vrr_name(Vrr vrr) {
    switch (vrr) {
        case Vrr::Off: return "off";
        case Vrr::On: return "on";
        case Vrr::Auto: return "auto";
    }
    return "unknown";
}

bool parse_vrr(std::string_view name, Vrr* out) {
    return parse_named(name, std::initializer_list<Vrr>{Vrr::Off, Vrr::On, Vrr::Auto}, vrr_name, out);
}

namespace {

// The enum fields hold one of their values; "" or the first that does not.
std::string enum_problem(const Config& c) {
    const auto i = [](auto value) { return std::to_string(static_cast<int>(value)); };
    if (static_cast<int>(c.strategy) < static_cast<int>(Strategy::Sleep) ||
        static_cast<int>(c.strategy) > static_cast<int>(Strategy::DisplayLock))
        return "strategy: " + i(c.strategy) + " is not a Strategy";
    if (c.miss_policy != MissPolicy::Skip && c.miss_policy != MissPolicy::CatchUp)
        return "miss_policy: " + i(c.miss_policy) + " is not a MissPolicy";
    if (c.wait_point != WaitPoint::BeforePresent && c.wait_point != WaitPoint::FrameStart)
        return "wait_point: " + i(c.wait_point) + " is not a WaitPoint";
    if (c.display.vrr != Vrr::Off && c.display.vrr != Vrr::On && c.display.vrr != Vrr::Auto)
        return "display.vrr: " + i(c.display.vrr) + " is not a Vrr";
    return "";
}

// validate()'s checks: each names its field and range, and the first
// problem found is the one reported.
class Checks {
public:
    static std::string i(int64_t value) { return std::to_string(value); }
    static std::string out_of(const char* field, const std::string& value, const std::string& range) {
        return std::string(field) + ": " + value + " is out of range " + range;
    }
    void first(std::string line) {
        if (problem_.empty()) problem_ = std::move(line);
    }
    // A whole-number field in [lo, hi].
    void whole(const char* field, int64_t value, int64_t lo, int64_t hi) {
        if (!(value >= lo && value <= hi)) first(out_of(field, i(value), "[" + i(lo) + ", " + i(hi) + "]"));
    }
    // -1 (leave the thread's own) or [lo, hi].
    void whole_or_leave(const char* field, int64_t value, int64_t lo, int64_t hi) {
        if (!(value == -1 || (value >= lo && value <= hi)))
            first(out_of(field, i(value), "-1 or [" + i(lo) + ", " + i(hi) + "]"));
    }
    // A real field: in range where `in` holds (NaN never does).
    void real(const char* field, double value, bool in, const std::string& range) {
        if (!in) first(out_of(field, number_text(value), range));
    }
    bool ok() const { return problem_.empty(); }
    const std::string& problem() const { return problem_; }

private:
    std::string problem_;
};

void check_timer(const Tuning::Timer& t, Checks& checks) {
    const auto d = number_text;
    checks.whole("tuning.timer.min_margin_ns", t.min_margin_ns, 0, kNsPerSecond);
    checks.whole("tuning.timer.max_margin_ns", t.max_margin_ns, std::max<int64_t>(t.min_margin_ns, 0), kNsPerSecond);
    if (checks.ok() && (t.margin_ns < t.min_margin_ns || t.margin_ns > t.max_margin_ns))
        checks.first(Checks::out_of("tuning.timer.margin_ns", Checks::i(t.margin_ns),
                                    "[tuning.timer.min_margin_ns, tuning.timer.max_margin_ns] = [" +
                                        Checks::i(t.min_margin_ns) + ", " + Checks::i(t.max_margin_ns) + "]"));
    checks.real("tuning.timer.margin_quantile", t.margin_quantile, t.margin_quantile > 0 && t.margin_quantile <= 1,
                "(0, 1]");
    checks.real("tuning.timer.margin_headroom", t.margin_headroom,
                t.margin_headroom >= 1 && t.margin_headroom <= kMaxMarginHeadroom, "[1, " + d(kMaxMarginHeadroom) + "]");
    checks.whole("tuning.timer.margin_pad_ns", t.margin_pad_ns, 0, kNsPerSecond);
    checks.whole("tuning.timer.margin_window", t.margin_window, 1, kMaxMarginWindow);
    checks.whole("tuning.timer.max_wait_cpu_ns", t.max_wait_cpu_ns, 0, kNsPerSecond);
    checks.real("tuning.timer.max_wait_cpu_pct", t.max_wait_cpu_pct,
                t.max_wait_cpu_pct >= 0 && t.max_wait_cpu_pct <= 100, "[0, 100]");
    checks.whole("tuning.timer.contention_wait_ns", t.contention_wait_ns, 1, kNsPerSecond);
    checks.whole("tuning.timer.last_sleep_ns", t.last_sleep_ns, 0, kNsPerSecond);
}

void check_wait(const Config& c, Checks& checks) {
    const int64_t slack = c.tuning.wait.timer_slack_ns;
    checks.whole_or_leave("tuning.wait.timer_slack_ns", slack, 1, os::kMaxTimerSlackNs);
    // A slack lets every timer wait wake that late: over a tenth of the
    // period, pacing stops meaning anything (1 s at 60 Hz gave 1.14 fps).
    const double tenth = period_ns_of(c.target_hz) / 10;
    if (checks.ok() && slack > 0 && static_cast<double>(slack) > tenth)
        checks.first("tuning.wait.timer_slack_ns: " + Checks::i(slack) +
                     " is over a tenth of the frame period at target_hz " + number_text(c.target_hz) + " (" +
                     Checks::i(static_cast<int64_t>(tenth)) + " ns): each timer wait could wake that late");
    checks.whole_or_leave("tuning.wait.sched_slice_ns", c.tuning.wait.sched_slice_ns, os::kMinSliceNs,
                          os::kMaxSliceNs);
}

// The VRR range: neither (0 and 0) or both, each in [1, 10000], the
// minimum below the maximum (a range of zero is a fixed refresh).
void check_vrr(const Config::Display& display, Checks& checks) {
    const double lo = display.vrr_min_hz, hi = display.vrr_max_hz;
    const std::string range = "0 (the Host's) or [1, 10000]";
    checks.real("display.vrr_min_hz", lo, lo == 0 || (lo >= 1 && lo <= 10'000), range);
    checks.real("display.vrr_max_hz", hi, hi == 0 || (hi >= 1 && hi <= 10'000), range);
    if (!checks.ok()) return;
    if ((lo == 0) != (hi == 0))
        checks.first("display.vrr_min_hz: " + number_text(lo) + " with display.vrr_max_hz " + number_text(hi) +
                     ": give both or neither (0 and 0: the Host's range)");
    else if (lo > hi)
        checks.first("display.vrr_min_hz: " + number_text(lo) + " is above display.vrr_max_hz " + number_text(hi));
    else if (lo > 0 && lo == hi)
        checks.first("display.vrr_min_hz: " + number_text(lo) + " equals display.vrr_max_hz: a range of zero is a "
                     "fixed refresh (display.vrr off)");
}

}  // namespace

std::string validate(const Config& c) {
    const auto d = number_text;
    Checks checks;
    checks.real("target_hz", c.target_hz, c.target_hz >= kMinTargetHz && c.target_hz <= kMaxTargetHz,
                "[" + d(kMinTargetHz) + ", " + d(kMaxTargetHz) + "]");
    checks.first(enum_problem(c));
    checks.whole("resync_after_periods", c.resync_after_periods, 1, kMaxResyncPeriods);
    checks.whole("tuning.scheduler_period_ns", c.tuning.scheduler_period_ns, 0, kNsPerSecond);
    checks.whole("max_dt_ns", c.max_dt_ns, 1, kMaxDtNs);

    const Tuning::Precise& precise = c.tuning.precise;
    checks.real("tuning.precise.sigma_k", precise.sigma_k, precise.sigma_k >= 0 && precise.sigma_k <= kMaxSigmaK,
                "[0, " + d(kMaxSigmaK) + "]");
    checks.whole("tuning.precise.initial_estimate_ns", precise.initial_estimate_ns, 1, kNsPerSecond);
    checks.whole("tuning.robust.tolerance_ns", c.tuning.robust.tolerance_ns, 0, kNsPerSecond);
    check_timer(c.tuning.timer, checks);
    check_wait(c, checks);

    const int64_t lead = c.display.lead_ns;
    if (lead != kLeadAuto && lead != kLeadOff && !(lead >= 0 && lead <= kNsPerSecond))
        checks.first(Checks::out_of("display.lead_ns", Checks::i(lead),
                                    "kLeadAuto (-2), kLeadOff (-1) or [0, " + Checks::i(kNsPerSecond) + "]"));
    const double hitches = c.display.hitches_per_1000;
    checks.real("display.hitches_per_1000", hitches, hitches > 0 && hitches <= 1000, "(0, 1000]");
    check_vrr(c.display, checks);
    const auto rate_or_off = [&](const char* field, double hz) {
        checks.real(field, hz, hz == 0 || (hz >= kMinTargetHz && hz <= kMaxTargetHz),
                    "0 (off) or [" + d(kMinTargetHz) + ", " + d(kMaxTargetHz) + "]");
    };
    rate_or_off("background_hz", c.background_hz);
    rate_or_off("hidden_hz", c.hidden_hz);
    checks.whole("stats.off_tolerance_ns", c.stats.off_tolerance_ns, 0, kNsPerSecond);
    checks.whole("stats.history_frames", c.stats.history_frames, kMinHistoryFrames, kMaxHistoryFrames);
    return checks.problem();
}

bool operator==(const Tuning::Timer& a, const Tuning::Timer& b) {
    return a.margin_ns == b.margin_ns && a.min_margin_ns == b.min_margin_ns && a.max_margin_ns == b.max_margin_ns &&
           a.margin_quantile == b.margin_quantile && a.margin_headroom == b.margin_headroom &&
           a.margin_pad_ns == b.margin_pad_ns && a.margin_window == b.margin_window &&
           a.max_wait_cpu_ns == b.max_wait_cpu_ns && a.max_wait_cpu_pct == b.max_wait_cpu_pct &&
           a.contention_wait_ns == b.contention_wait_ns && a.last_sleep_ns == b.last_sleep_ns;
}

bool operator==(const Config::StatsWindow& a, const Config::StatsWindow& b) {
    return a.off_tolerance_ns == b.off_tolerance_ns && a.history_frames == b.history_frames;
}

bool operator==(const Tuning::Wait& a, const Tuning::Wait& b) {
    return a.timer_slack_ns == b.timer_slack_ns && a.sched_slice_ns == b.sched_slice_ns;
}

}  // namespace pacer
