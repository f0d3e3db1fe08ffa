// settings.cpp: the table of the demo's settings and what reads it.
#include "cli/echo.h"
#include "run/settings.h"
#include "run/files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace pacer_demo {

namespace {

// Where a number must lie; the library's fields have no Range here.
struct Range {
    double lo, hi;
    bool lo_open, hi_open;
    bool zero_too;   // 0 ("off", "leave") is valid outside [lo, hi]
    bool contains(double v) const {
        if (zero_too && v == 0) return true;
        return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    }
    std::string text() const {
        return std::string(zero_too ? "0 or " : "") + (lo_open ? "(" : "[") + number_text(lo) + ", " +
               number_text(hi) + (hi_open ? ")" : "]");
    }
};
constexpr Range kAny{0, 0, false, false, false};   // the library's, or load.h's, to check

// The typed field of Settings a row reads and writes.
using Slot = std::variant<std::optional<double> Settings::*, std::optional<int64_t> Settings::*,
                          std::optional<int32_t> Settings::*, std::optional<pacer::Strategy> Settings::*,
                          std::optional<pacer::MissPolicy> Settings::*, std::optional<pacer::WaitPoint> Settings::*,
                          std::optional<VsyncMode> Settings::*, std::optional<DtMode> Settings::*,
                          std::optional<LeadSetting> Settings::*, std::optional<pacer::Vrr> Settings::*,
                          std::optional<VrrRangeSetting> Settings::*>;

struct Row {
    SettingInfo info;
    Slot slot;
    Range range;   // kAny: checked by check() (pacer::validate, validate(LoadConfig))
};

// THE TABLE: one row per setting. Defaults: default_settings() below.
const Row kTable[] = {
    {{"strategy", "NAME",
      "how the pacer waits: sleep, spin, precise_sleep, robust_sleep, timer, vsync, auto, display_lock",
      "pacer::Config::strategy"}, &Settings::strategy, kAny},
    {{"hz", "HZ", "target rate in Hz", "pacer::Config::target_hz"}, &Settings::hz, kAny},
    {{"vsync", "MODE", "off, on, adaptive: the swap interval asked of the window system", ""}, &Settings::vsync,
     kAny},
    {{"miss_policy", "POLICY", "skip, catch_up: after a late frame", "pacer::Config::miss_policy"}, &Settings::miss_policy, kAny},
    {{"precise_k", "K", "precise_sleep: estimate = mean + k*sigma", "pacer::Config::tuning.precise.sigma_k"}, &Settings::precise_k, kAny},
    {{"robust_tolerance_us", "US", "robust_sleep's tolerance in us", "pacer::Config::tuning.robust.tolerance_ns"},
     &Settings::robust_tolerance_us, kAny},
    {{"timer_margin_us", "US", "timer's starting margin in us", "pacer::Config::tuning.timer.margin_ns"}, &Settings::timer_margin_us, kAny},
    {{"sched_period_ms", "MS", "0: the OS's scheduler; else the simulated scheduler's tick in ms, [1, 16]", ""},
     &Settings::sched_period_ms, {1, 16, false, false, true}},
    {{"preempt_prob", "P", "simulated scheduler's preemption probability, [0, 1)", ""}, &Settings::preempt_prob,
     {0, 1, false, true, false}},
    {{"timer_slack_ns", "NS", "Linux timer slack of the pacing thread in ns, [0, 1e8]; 0 leaves the OS's", ""},
     &Settings::timer_slack_ns, {0, 1e8, false, false, false}},
    {{"sched_slice_us", "US", "Linux >= 6.12 slice of the pacing thread in us, [100, 100000]; 0 leaves it", ""},
     &Settings::sched_slice_us, {100, 100'000, false, false, true}},
    {{"fifo_priority", "N", "Linux SCHED_FIFO priority of the pacing thread, [0, 99]; 0: not FIFO", ""},
     &Settings::fifo_priority, {0, 99, false, false, false}},
    {{"nice", "N", "nice value of the pacing thread, [-20, 19]; 0 leaves it", ""}, &Settings::nice,
     {-20, 19, false, false, false}},
    {{"timer_period_ms", "MS", "Windows timeBeginPeriod in whole ms, [0, 100]; 0 leaves it", ""},
     &Settings::timer_period_ms, {0, 100, false, false, false}},
    {{"wait_slack_ns", "NS", "Linux timer slack of each timer wait in ns; -1 leaves the thread's own",
      "pacer::Config::tuning.wait.timer_slack_ns"}, &Settings::wait_slack_ns, kAny},
    {{"wait_slice_ns", "NS", "Linux >= 6.12 slice held from the first timer wait in ns; -1 leaves it",
      "pacer::Config::tuning.wait.sched_slice_ns"}, &Settings::wait_slice_ns, kAny},
    {{"dt_mode", "MODE", "what moves the scene: paced (the pacer's dt), raw (the measured interval), fixed", ""},
     &Settings::dt_mode, kAny},
    {{"wait_point", "POINT", "before_present (steadiest presents) or frame_start (lowest latency)", "pacer::Config::wait_point"},
     &Settings::wait_point, kAny},
    {{"display_lead", "LEAD",
      "display_lock: a deadline's lead before its refresh: auto (learned from shown frames), a fixed lead in ms, "
      "or off (auto never locks to the display)",
      "pacer::Config::display.lead_ns"},
     &Settings::display_lead, kAny},
    {{"hitches_per_1000", "N",
      "display_lock's learned lead: at most N frames in 1,000 refreshes may miss their refresh for want of lead "
      "(the last frame shows again); more saves latency, (0, 1000]",
      "pacer::Config::display.hitches_per_1000"},
     &Settings::hitches_per_1000, kAny},
    {{"vrr", "MODE",
      "variable refresh: off, on, or auto (on where the window system says the display waits for frames); on, the "
      "timer paces at the target or the cap max - max^2/3600, whichever is lower",
      "pacer::Config::display.vrr"},
     &Settings::vrr, kAny},
    {{"vrr_range", "MIN-MAX", "the VRR panel's range in Hz, e.g. 48-144; host: the window system's",
      "pacer::Config::display.vrr_min_hz"},
     &Settings::vrr_range, kAny},
    {{"background_hz", "HZ", "the rate for an unfocused window; 0: off", "pacer::Config::background_hz"},
     &Settings::background_hz, kAny},
    {{"hidden_hz", "HZ", "the rate for a minimized or hidden window; 0: background_hz's", "pacer::Config::hidden_hz"},
     &Settings::hidden_hz, kAny},
    {{"work_ms", "MS", "in-frame CPU work per frame in ms", "LoadConfig::work_ms"}, &Settings::work_ms, kAny},
    {{"jitter_ms", "MS", "uniform +- jitter on the work in ms", "LoadConfig::jitter_ms"}, &Settings::jitter_ms, kAny},
    {{"spike_ms", "MS", "extra work on spike frames in ms", "LoadConfig::spike_ms"}, &Settings::spike_ms, kAny},
    {{"spike_every", "N", "a spike every N frames; 0: none", "LoadConfig::spike_every_frames"}, &Settings::spike_every, kAny},
    {{"bg_threads", "N", "background load threads: N, cores or 2xcores", "LoadConfig::background_threads"},
     &Settings::bg_threads, kAny},
    // LoadConfig reads a 0 in these two as "the default": the demo refuses it.
    {{"duty", "D", "busy share of each background thread's period, (0, 1]", "LoadConfig::duty_cycle"},
     &Settings::duty, {0, 1, true, false, false}},
    {{"duty_period_ms", "MS", "background threads' duty period in ms, [1, 1000]", "LoadConfig::duty_period_ms"},
     &Settings::duty_period_ms, {1, 1000, false, false, false}},
};

// --- values by type --------------------------------------------------------

std::string to_text(double v) { return number_text(v); }
std::string to_text(int64_t v) { return std::to_string(v); }
std::string to_text(int32_t v) { return std::to_string(v); }
std::string to_text(pacer::Strategy v) { return pacer::strategy_name(v); }
std::string to_text(pacer::MissPolicy v) { return pacer::miss_policy_name(v); }
std::string to_text(pacer::WaitPoint v) { return pacer::wait_point_name(v); }
std::string to_text(VsyncMode v) { return vsync_mode_name(v); }
std::string to_text(DtMode v) { return dt_mode_name(v); }
std::string to_text(const LeadSetting& v) { return display_lead_text(v); }
std::string to_text(pacer::Vrr v) { return pacer::vrr_name(v); }
std::string to_text(const VrrRangeSetting& v) { return vrr_range_text(v); }

bool from_text(std::string_view t, pacer::Strategy* out) { return pacer::parse_strategy(t, out); }
bool from_text(std::string_view t, pacer::MissPolicy* out) { return pacer::parse_miss_policy(t, out); }
bool from_text(std::string_view t, pacer::WaitPoint* out) { return pacer::parse_wait_point(t, out); }
bool from_text(std::string_view t, VsyncMode* out) { return parse_vsync_mode(t, out); }
bool from_text(std::string_view t, DtMode* out) { return parse_dt_mode(t, out); }
bool from_text(std::string_view t, LeadSetting* out) { return parse_display_lead(t, out); }
bool from_text(std::string_view t, pacer::Vrr* out) { return pacer::parse_vrr(t, out); }
bool from_text(std::string_view t, VrrRangeSetting* out) { return parse_vrr_range(t, out); }
// The names there are, for an unknown one.
const char* names_of(pacer::Strategy*) {
    return "sleep, spin, precise_sleep, robust_sleep, timer, vsync, auto, display_lock";
}
const char* names_of(pacer::MissPolicy*) { return "skip, catch_up"; }
const char* names_of(pacer::WaitPoint*) { return "before_present, frame_start"; }
const char* names_of(VsyncMode*) { return "off, on, adaptive"; }
const char* names_of(DtMode*) { return "raw, paced, fixed"; }
const char* names_of(LeadSetting*) { return "off, auto, or a lead in ms"; }
const char* names_of(pacer::Vrr*) { return "off, on, auto"; }
const char* names_of(VrrRangeSetting*) { return "host, or MIN-MAX in Hz (48-144)"; }

std::string parse_into(const Row& row, std::string_view value, std::optional<double>* slot) {
    const std::string key = row.info.key;
    double v = 0;
    if (!parse_number(value, &v)) return key + ": '" + pacer_cli::clipped(value) + "' is not a number";
    if (row.range.hi > row.range.lo && !row.range.contains(v))
        return key + ": " + pacer_cli::clipped(value) + " is out of range " + row.range.text();
    *slot = v;
    return {};
}

template <typename Int>
std::string parse_into(const Row& row, std::string_view value, std::optional<Int>* slot) {
    const std::string key = row.info.key;
    int64_t v = 0;
    if (key == "bg_threads" && (value == "cores" || value == "2xcores")) {
        v = value == "cores" ? max_background_threads() / 2 : max_background_threads();
    } else if (!parse_integer(value, &v)) {
        return key + ": '" + pacer_cli::clipped(value) + "' is not an integer";
    }
    const bool ranged = row.range.hi > row.range.lo;
    if ((ranged && !row.range.contains(static_cast<double>(v))) || v < std::numeric_limits<Int>::min() ||
        v > std::numeric_limits<Int>::max())
        return key + ": " + pacer_cli::clipped(value) + " is out of range " +
               (ranged ? row.range.text()
                       : "[" + std::to_string(std::numeric_limits<Int>::min()) + ", " +
                             std::to_string(std::numeric_limits<Int>::max()) + "]");
    *slot = static_cast<Int>(v);
    return {};
}

template <typename Enum>
std::string parse_name_into(const Row& row, std::string_view value, std::optional<Enum>* slot) {
    Enum parsed{};
    if (!from_text(value, &parsed))
        return std::string(row.info.key) + ": '" + pacer_cli::clipped(value) + "' is not one of " + names_of(&parsed);
    *slot = parsed;
    return {};
}

std::string parse_into(const Row& r, std::string_view v, std::optional<pacer::Strategy>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<pacer::MissPolicy>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<pacer::WaitPoint>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<VsyncMode>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<DtMode>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<LeadSetting>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<pacer::Vrr>* s) { return parse_name_into(r, v, s); }
std::string parse_into(const Row& r, std::string_view v, std::optional<VrrRangeSetting>* s) { return parse_name_into(r, v, s); }

const Row* row_of(const SettingInfo& info) {
    for (const Row& row : kTable) {
        if (&row.info == &info) return &row;
    }
    return &kTable[0];   // not reached: every SettingInfo is a row's
}

// The value among `all` whose name is `name`; false (leaving *out) if none.
template <typename Enum>
bool parse_named(std::string_view name, std::initializer_list<Enum> all, const char* (*name_of)(Enum), Enum* out) {
    for (Enum value : all) {
        if (name == name_of(value)) {
            *out = value;
            return true;
        }
    }
    return false;
}

// Microseconds to the library's nanoseconds, saturating far outside any
// valid range so that validate() reports the value instead of overflowing.
int64_t us_to_ns(double us) { return std::llround(std::clamp(us * 1e3, -1e18, 1e18)); }

}  // namespace

// --- numbers ----------------------------------------------------------------

bool parse_number(std::string_view text, double* out) {
    double value = 0;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() || !std::isfinite(value))
        return false;
    *out = value;
    return true;
}

bool parse_integer(std::string_view text, int64_t* out) {
    int64_t value = 0;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size()) return false;
    *out = value;
    return true;
}

// --- names -------------------------------------------------------------------

const char* vsync_mode_name(VsyncMode mode) {
    switch (mode) {
        case VsyncMode::Off: return "off";
        case VsyncMode::On: return "on";
        case VsyncMode::Adaptive: return "adaptive";
    }
    return "unknown";
}

bool parse_vsync_mode(std::string_view name, VsyncMode* out) {
    return parse_named(name, {VsyncMode::Off, VsyncMode::On, VsyncMode::Adaptive}, vsync_mode_name, out);
}

int swap_interval(VsyncMode mode) {
    switch (mode) {
        case VsyncMode::Off: return 0;
        case VsyncMode::On: return 1;
        case VsyncMode::Adaptive: return -1;
    }
    return 0;
}

const char* dt_mode_name(DtMode mode) {
    switch (mode) {
        case DtMode::Raw: return "raw";
        case DtMode::Paced: return "paced";
        case DtMode::Fixed: return "fixed";
    }
    return "unknown";
}

bool parse_dt_mode(std::string_view name, DtMode* out) {
    return parse_named(name, {DtMode::Raw, DtMode::Paced, DtMode::Fixed}, dt_mode_name, out);
}

std::string display_lead_text(const LeadSetting& lead) {
    switch (lead.kind) {
        case LeadSetting::Kind::Off: return "off";
        case LeadSetting::Kind::Auto: return "auto";
        case LeadSetting::Kind::Fixed: return number_text(lead.ms);
    }
    return "auto";
}

bool parse_display_lead(std::string_view text, LeadSetting* out) {
    if (text == "off" || text == "auto") {
        *out = {text == "off" ? LeadSetting::Kind::Off : LeadSetting::Kind::Auto, 0};
        return true;
    }
    double ms = 0;
    // A negative lead would alias the library's kLeadOff and kLeadAuto.
    if (!parse_number(text, &ms) || ms < 0) return false;
    *out = {LeadSetting::Kind::Fixed, ms};   // its upper bound is the library's (check())
    return true;
}

int64_t display_lead_ns(const LeadSetting& lead) {
    switch (lead.kind) {
        case LeadSetting::Kind::Off: return pacer::kLeadOff;
        case LeadSetting::Kind::Auto: return pacer::kLeadAuto;
        case LeadSetting::Kind::Fixed: break;
    }
    // Far outside any valid lead saturates, so that validate() names the value.
    return std::llround(std::clamp(lead.ms * 1e6, -1e18, 1e18));
}

std::string vrr_range_text(const VrrRangeSetting& range) {
    if (range.min_hz == 0 && range.max_hz == 0) return "host";
    return number_text(range.min_hz) + "-" + number_text(range.max_hz);
}

bool parse_vrr_range(std::string_view text, VrrRangeSetting* out) {
    if (text == "host") {
        *out = {};
        return true;
    }
    const size_t dash = text.find('-', 1);   // not a leading minus
    double lo = 0, hi = 0;
    if (dash == std::string_view::npos || !parse_number(text.substr(0, dash), &lo) ||
        !parse_number(text.substr(dash + 1), &hi))
        return false;
    *out = {lo, hi};   // the range's own rules (min below max, [1, 10000]) are the library's (check())
    return true;
}

// --- the table's readers -------------------------------------------------------

const std::vector<const SettingInfo*>& all_settings() {
    static const std::vector<const SettingInfo*> all = [] {
        std::vector<const SettingInfo*> out;
        for (const Row& row : kTable) out.push_back(&row.info);
        return out;
    }();
    return all;
}

const SettingInfo* find_setting(std::string_view key) {
    for (const Row& row : kTable) {
        if (key == row.info.key) return &row.info;
    }
    return nullptr;
}

std::string flag_of(const SettingInfo& info) {
    std::string flag = std::string("--") + info.key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

std::string value_text(const SettingInfo& info, const Settings& settings) {
    return std::visit(
        [&](auto member) -> std::string {
            const auto& value = settings.*member;
            return value ? to_text(*value) : std::string();
        },
        row_of(info)->slot);
}

bool Settings::empty() const { return describe(*this).empty(); }

void Settings::merge(const Settings& later) {
    for (const Row& row : kTable) {
        std::visit(
            [&](auto member) {
                if (later.*member) this->*member = later.*member;
            },
            row.slot);
    }
}

std::string parse_setting(std::string_view key, std::string_view value, Settings* out) {
    const SettingInfo* info = find_setting(key);
    if (info == nullptr) return "unknown setting '" + pacer_cli::clipped(key) + "'";
    const Row& row = *row_of(*info);
    return std::visit([&](auto member) { return parse_into(row, value, &(out->*member)); }, row.slot);
}

std::string describe(const Settings& settings) {
    std::string out;
    for (const Row& row : kTable) {
        const std::string value = value_text(row.info, settings);
        if (value.empty()) continue;
        if (!out.empty()) out += ' ';
        out += std::string(row.info.key) + "=" + value;
    }
    return out;
}

// --- defaults and the library's Config -------------------------------------------

const Settings& default_settings() {
    static const Settings defaults = [] {
        Settings s;
        // The pacer's: pacer::Config's defaults, read back through the mapping.
        const pacer::Config library;
        s.strategy = library.strategy;
        s.hz = library.target_hz;
        s.miss_policy = library.miss_policy;
        s.precise_k = library.tuning.precise.sigma_k;
        s.robust_tolerance_us = static_cast<double>(library.tuning.robust.tolerance_ns) * 1e-3;
        s.timer_margin_us = static_cast<double>(library.tuning.timer.margin_ns) * 1e-3;
        s.wait_slack_ns = library.tuning.wait.timer_slack_ns;
        s.wait_slice_ns = library.tuning.wait.sched_slice_ns;
        s.wait_point = library.wait_point;
        s.display_lead = library.display.lead_ns == pacer::kLeadOff    ? LeadSetting{LeadSetting::Kind::Off, 0}
                         : library.display.lead_ns == pacer::kLeadAuto ? LeadSetting{}
                                                                       : LeadSetting{LeadSetting::Kind::Fixed,
                                                                                     static_cast<double>(library.display.lead_ns) * 1e-6};
        s.hitches_per_1000 = library.display.hitches_per_1000;
        s.vrr = library.display.vrr;
        s.vrr_range = VrrRangeSetting{library.display.vrr_min_hz, library.display.vrr_max_hz};
        s.background_hz = library.background_hz;
        s.hidden_hz = library.hidden_hz;
        // The load's: LoadConfig's.
        const LoadConfig load = resolve(LoadConfig{});
        s.work_ms = load.work_ms;
        s.jitter_ms = load.jitter_ms;
        s.spike_ms = load.spike_ms;
        s.spike_every = load.spike_every_frames;
        s.bg_threads = load.background_threads;
        s.duty = load.duty_cycle;
        s.duty_period_ms = load.duty_period_ms;
        // The demo's own: nothing simulated, the OS's thread settings left
        // alone, vsync off (the pacer paces), and the pacer's dt.
        s.vsync = VsyncMode::Off;
        s.sched_period_ms = 0;
        s.preempt_prob = 0;
        s.timer_slack_ns = 0;
        s.sched_slice_us = 0;
        s.fifo_priority = 0;
        s.nice = 0;
        s.timer_period_ms = 0;
        s.dt_mode = DtMode::Paced;
        return s;
    }();
    return defaults;
}

pacer::Config to_pacer_config(const Settings& s, pacer::Config c) {
    c.strategy = *s.strategy;
    c.target_hz = *s.hz;
    c.miss_policy = *s.miss_policy;
    c.tuning.precise.sigma_k = *s.precise_k;
    c.tuning.robust.tolerance_ns = us_to_ns(*s.robust_tolerance_us);
    c.tuning.timer.margin_ns = us_to_ns(*s.timer_margin_us);
    c.tuning.wait.timer_slack_ns = *s.wait_slack_ns;
    c.tuning.wait.sched_slice_ns = *s.wait_slice_ns;
    c.wait_point = *s.wait_point;
    c.display.lead_ns = display_lead_ns(*s.display_lead);
    c.display.hitches_per_1000 = *s.hitches_per_1000;
    c.display.vrr = *s.vrr;
    c.display.vrr_min_hz = s.vrr_range->min_hz;
    c.display.vrr_max_hz = s.vrr_range->max_hz;
    c.background_hz = *s.background_hz;
    c.hidden_hz = *s.hidden_hz;
    return c;
}

void apply_load_settings(const Settings& s, LoadConfig* load) {
    if (s.work_ms) load->work_ms = *s.work_ms;
    if (s.jitter_ms) load->jitter_ms = *s.jitter_ms;
    if (s.spike_ms) load->spike_ms = *s.spike_ms;
    if (s.spike_every) load->spike_every_frames = *s.spike_every;
    if (s.bg_threads) load->background_threads = *s.bg_threads;
    if (s.duty) load->duty_cycle = *s.duty;
    if (s.duty_period_ms) load->duty_period_ms = *s.duty_period_ms;
}

std::string check(const Settings& full) {
    // A library's "field: value is out of range R" names the demo's key
    // first: "timer_margin_us: 5000 -> tuning.timer.margin_ns: 5000000 is ...".
    const auto as_demo = [&full](std::string problem) {
        const std::string field = problem.substr(0, problem.find(':'));
        for (const Row& row : kTable) {
            const std::string_view checked_by = row.info.checked_by;
            if (checked_by.empty() || field != checked_by.substr(checked_by.rfind("::") + 2)) continue;
            const std::string value = value_text(row.info, full);
            std::string rest = problem.substr(problem.find(':') + 2);   // "V is out of range R"
            // "[tuning.timer.min_margin_ns, tuning.timer.max_margin_ns] = [10000, 2000000]": the numbers say enough.
            if (const std::size_t named = rest.find("] = ["); named != std::string::npos)
                rest.erase(rest.rfind('[', named), named + 4 - rest.rfind('[', named));
            problem = field + ": " + rest;
            if (rest.rfind(value + " ", 0) == 0) return std::string(row.info.key) + ": " + rest;
            // A value past what the unit conversion holds (us_to_ns stops at
            // 1e18 ns): the clamped number would be no value the user gave.
            const std::size_t range_at = rest.find("out of range");
            if ((rest.rfind("1000000000000000000 ", 0) == 0 || rest.rfind("-1000000000000000000 ", 0) == 0) &&
                range_at != std::string::npos)
                return std::string(row.info.key) + ": " + value + " is too large for " + field + " (" +
                       rest.substr(range_at) + ")";
            return std::string(row.info.key) + ": " + value + " -> " + problem;
        }
        return problem;
    };
    for (const Row& row : kTable) {
        if (value_text(row.info, full).empty()) return std::string(row.info.key) + ": not set";
    }
    if (std::string problem = pacer::validate(to_pacer_config(full)); !problem.empty()) return as_demo(problem);
    LoadConfig load{};
    apply_load_settings(full, &load);
    if (std::string problem = validate(resolve(load)); !problem.empty()) return as_demo(problem);
    // The demo's own ranges, as parse_setting checks them (a Settings can be
    // built in code, as the overlay does).
    for (const Row& row : kTable) {
        if (row.range.hi <= row.range.lo) continue;
        const std::string value = value_text(row.info, full);
        Settings probe;
        if (std::string problem = parse_setting(row.info.key, value, &probe); !problem.empty()) return problem;
    }
    return {};
}

}  // namespace pacer_demo
