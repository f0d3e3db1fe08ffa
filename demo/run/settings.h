// settings.h: the demo's settings, declared once in one table (settings.cpp,
// kTable). The command line (--hz 120), scenario steps (set hz=120), the
// overlay, describe() and the run summary all read that table, so a setting
// has one key, one flag, one unit, one help text and one default.
//
// Ranges: a setting that maps to a pacer::Config field is checked by the
// library's pacer::validate (check() below), which owns its range; the demo
// restates none of them. Only what the library does not take (the simulated
// scheduler, ThreadTiming, the load, vsync, the dt mode) has a range here or
// in load.h's validate.
#pragma once

#include "run/load.h"

#include <pacer/pacer.h>
#include <pacer/units.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pacer_demo {

// Numbers as settings and scenarios write them: as the library's messages
// do ("60", "0.25"; pacer/units.h).
using pacer::number_text;
bool parse_number(std::string_view text, double* out);      // finite only: no nan, inf
bool parse_integer(std::string_view text, int64_t* out);    // whole text, in int64_t

// The swap interval asked of the window system.
enum class VsyncMode : int { Off = 0, On, Adaptive };
const char* vsync_mode_name(VsyncMode mode);                  // "off", "on", "adaptive"
bool parse_vsync_mode(std::string_view name, VsyncMode* out);  // false for an unknown name
int swap_interval(VsyncMode mode);                             // 0, 1, -1 (pacer::Host's)

// What moves the scene each frame (the engine's clock, pacer.h's Frame::dt_ns).
enum class DtMode : int {
    Raw = 0,   // the measured interval between wakes: wake jitter reaches the motion
    Paced,     // pacer::Frame::dt_ns: the grid step, clamped after a stall (the default)
    Fixed,     // pacer::FixedStep at the target period, fed Frame::dt_ns, drawn
               // interpolated by alpha() between the last two steps
};
const char* dt_mode_name(DtMode mode);                  // "raw", "paced", "fixed"
bool parse_dt_mode(std::string_view name, DtMode* out);  // false for an unknown name

// display_lock's lead (pacer::Config::display.lead_ns): "off", "auto" (learned
// from shown frames) or a fixed lead in ms ("4.5").
struct LeadSetting {
    enum class Kind : int { Off, Auto, Fixed } kind = Kind::Auto;
    double ms = 0;   // Fixed's
};
std::string display_lead_text(const LeadSetting& lead);                // "off", "auto", "4.5"
bool parse_display_lead(std::string_view text, LeadSetting* out);      // false for neither a name nor a number
int64_t display_lead_ns(const LeadSetting& lead);                       // pacer::kLeadOff, kLeadAuto or ns

// A VRR panel's range (pacer::Config::display.vrr_min_hz, vrr_max_hz):
// "host" (0 and 0: the Host's) or "MIN-MAX" in Hz ("48-144").
struct VrrRangeSetting {
    double min_hz = 0, max_hz = 0;
};
std::string vrr_range_text(const VrrRangeSetting& range);            // "host", "48-144"
bool parse_vrr_range(std::string_view text, VrrRangeSetting* out);    // false for neither

// A set of setting changes: only the fields that hold a value change. What
// each field means, its unit and default: the table in settings.cpp.
struct Settings {
    std::optional<pacer::Strategy> strategy;
    std::optional<double> hz;
    std::optional<VsyncMode> vsync;
    std::optional<pacer::MissPolicy> miss_policy;
    std::optional<double> precise_k;
    std::optional<double> robust_tolerance_us;
    std::optional<double> timer_margin_us;
    std::optional<double> sched_period_ms;       // 0: the OS's scheduler
    std::optional<double> preempt_prob;
    std::optional<int64_t> timer_slack_ns;
    std::optional<double> sched_slice_us;        // 0: leave the OS's slice
    std::optional<int32_t> fifo_priority;        // 0: not SCHED_FIFO
    std::optional<int32_t> nice;                 // 0: leave
    std::optional<int32_t> timer_period_ms;      // 0: leave (Windows only)
    std::optional<int64_t> wait_slack_ns;        // -1: leave the thread's own
    std::optional<int64_t> wait_slice_ns;        // -1: leave the thread's own
    std::optional<DtMode> dt_mode;
    std::optional<pacer::WaitPoint> wait_point;
    std::optional<LeadSetting> display_lead;
    std::optional<double> hitches_per_1000;      // display_lock's learned lead: its hitch budget
    std::optional<pacer::Vrr> vrr;
    std::optional<VrrRangeSetting> vrr_range;
    std::optional<double> background_hz;         // 0: off
    std::optional<double> hidden_hz;             // 0: off
    std::optional<double> work_ms;
    std::optional<double> jitter_ms;
    std::optional<double> spike_ms;
    std::optional<int32_t> spike_every;
    std::optional<int32_t> bg_threads;
    std::optional<double> duty;
    std::optional<double> duty_period_ms;

    bool empty() const;
    // Fields set in `later` replace ours.
    void merge(const Settings& later);
};

// One row of the table.
struct SettingInfo {
    const char* key;          // the scenario key; the flag is "--" + key with '-' for '_'
    const char* value_name;   // the value's name in --help: "HZ", "US", "NAME"
    const char* help;         // what it does, with its unit and range where the demo owns it
    // The library field it sets, whose validate() checks the range:
    // "pacer::Config::tuning.timer.margin_ns", "LoadConfig::duty_cycle"; "" if none.
    const char* checked_by;
};

// Every setting, in the order describe() lists them.
const std::vector<const SettingInfo*>& all_settings();
const SettingInfo* find_setting(std::string_view key);   // nullptr for an unknown key
std::string flag_of(const SettingInfo& info);            // "--robust-tolerance-us"
// The setting's value in settings as text ("" when unset): "120", "timer".
std::string value_text(const SettingInfo& info, const Settings& settings);

// The defaults: every field set, the pacer's from pacer::Config{} and the
// load's from LoadConfig's, so the library's defaults are never retyped.
const Settings& default_settings();

// Parses one key=value setting into *out (scenario steps and flags alike).
// Checks the value's form and the ranges the demo owns; returns "" or one
// line naming the key, e.g. "duty: '1x' is not a number".
std::string parse_setting(std::string_view key, std::string_view value, Settings* out);
// "strategy=timer hz=60": the set fields in table order.
std::string describe(const Settings& settings);

// The pacer::Config that `full` (every field set) asks for, on top of base
// (its clock, sleeper and host stay).
pacer::Config to_pacer_config(const Settings& full, pacer::Config base = {});
// Copies the load fields of settings (work_ms .. duty_period_ms) into *load.
void apply_load_settings(const Settings& settings, LoadConfig* load);

// Checks a whole state (every field set): the library's validate on the
// Config it maps to, the load's validate, and the demo's own ranges. "" or
// one short line naming the demo's key first, e.g. "timer_margin_us: 5000
// -> tuning.timer.margin_ns: 5000000 is out of range [10000, 2000000]".
std::string check(const Settings& full);

}  // namespace pacer_demo
