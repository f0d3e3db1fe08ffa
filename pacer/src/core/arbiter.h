// arbiter.h: what paces, and why. The strategy arbiter owns the swap interval
// it asked the Host for, auto's vsync probes and their backoff, the watch over
// vsync's present intervals and displayed cadence, the refresh rate the host
// states and its changes, and every Decision with its reason. It reads the
// display through the PresentModel and sets the Waiter's strategy; it never
// waits. Internal (pacer_internal); arbiter.cpp (choosing), arbiter_display.cpp
// (the display's account), arbiter_vsync.cpp, arbiter_shown.cpp,
// arbiter_vrr.cpp, arbiter_window.cpp and docs/design.md have the rules.
#pragma once

#include "core/auto_table.h"
#include "display/present_model.h"
#include "base/recent.h"
#include "wait/waiter.h"

#include <pacer/pacer.h>
#include <pacer/status.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace pacer::detail {

// Frames shown a second by the display, over the reports of frames after a
// given one (arbiter_shown.cpp).
class ShownRate {
public:
    void start(int64_t after_index);
    void add(const PresentModel::Report& report);
    int intervals() const { return intervals_; }   // between the shown frames counted
    double hz() const;                             // 0 until two are

private:
    int64_t after_index_ = -1;
    int64_t first_ns_ = -1, last_ns_ = -1;
    int intervals_ = 0;
};

// Variable refresh as the arbiter applies it (arbiter_vrr.cpp).
struct VrrPlan {
    bool on = false;
    double min_hz = 0, max_hz = 0;   // the range, 0 unknown
    double cap_hz = 0;               // vrr_cap_hz(max_hz), 0 where the maximum is unknown
    std::string source;              // where the range came from, for the reason
    bool operator==(const VrrPlan& o) const {
        return on == o.on && min_hz == o.min_hz && max_hz == o.max_hz && source == o.source;
    }
};
double vrr_cap_hz(double max_hz);   // max - max^2 / 3600 (0 for an unknown maximum)
// From the config, the Host's range (null: it says none) and the stated refresh.
VrrPlan plan_vrr(const Config::Display& display, const VrrRange* host_range, double stated_hz);
// The ceiling for a window in `state` (arbiter_window.cpp): 0 none.
double background_ceiling_hz(const Config& cfg, WindowState state);

class Arbiter {
public:
    // Keeps references to the Pacer's own config, waiter and present model,
    // which outlive it; reads the host's refresh and makes the first decision.
    Arbiter(const Config& cfg, Waiter& waiter, PresentModel& present);
    ~Arbiter();   // leaves the swap interval as found (off)
    Arbiter(const Arbiter&) = delete;
    Arbiter& operator=(const Arbiter&) = delete;

    // Before the wait of frame `index` (> 0) at t: a display whose fitted
    // refresh moved, a changed stated refresh, auto's retry time.
    void before_wait(int64_t t, int64_t index);
    // One present interval while the swap paces (vsync's evidence).
    void watch(int64_t interval_ns, int64_t index);
    // One report the present model took, during the wait of frame `index`.
    void on_report(const PresentModel::Report& report, int64_t index);

    // The host is about to change: the old one's swap goes back to off, and
    // what was learnt of its display is forgotten.
    void host_changing(Host* old_host);
    // The config changed from `old` to the one referenced (the Pacer's own):
    // re-decides where the change matters.
    void reconfigured(const Config& old, int64_t index);

    int vsync_interval() const { return vsync_interval_; }   // 0: not pacing by vsync
    Strategy waiter_strategy() const { return waiter_strategy_; }
    Strategy in_force() const {
        if (display_locked_) return Strategy::DisplayLock;
        return vsync_interval_ != 0 ? Strategy::Vsync : waiter_strategy_;
    }
    int display_refreshes() const { return display_refreshes_; }   // display_lock's n, 0 when not locked
    // The rate frames come at: the target, or where auto keeps vsync on a
    // display slower than it (arbiter_shown.cpp), the display's fitted one.
    // Under a ceiling (VRR's cap, a window in the background), no faster.
    double pace_hz() const {
        const double hz = vsync_shows_most_ && shown_hz_ > 0 ? shown_hz_ : cfg_.target_hz;
        return limit_hz_ > 0 ? std::min(hz, limit_hz_) : hz;
    }
    double limit_hz() const { return limit_hz_; }   // the ceiling in force, 0 none
    const Decision& decision() const { return decision_; }
    double refresh_hz() const { return refresh_hz_; }   // as the host states it, 0 unknown
    // The refresh period: the display's fitted one when it was locked at the
    // last decision, else the stated one, else the target's.
    double refresh_unit_ns() const;
    double vsync_period_ns() const { return refresh_unit_ns() * std::max(vsync_interval_, 1); }

private:
    enum class Health { Fine, Fast, Slow, OffRate };

    PaceState state() const;   // auto_table.h's state, read from what is in force
    void take(Input input, const std::string& text, int64_t index);
    double read_refresh_hz() const;
    bool set_interval(int wanted);
    void start_watch(bool probe, int64_t index);
    void choose(const std::string& why, int64_t index);
    std::string choose_vsync(int64_t index);
    std::string choose_auto(int64_t index);
    std::string choose_display_lock(const char* head);
    bool can_lock() const;
    bool lockable(int64_t now) const;
    bool check_early_frames(int64_t now, int64_t index);
    std::string display_says() const;
    void record(const std::string& reason);
    double decision_hz() const;
    bool refresh_moved(double was, double now) const;
    void watch_vsync(int fast, int slow, int64_t median, int64_t index);
    bool uneven_twice(int64_t index);
    void judge_probe(int64_t index);
    void judge_cadence(bool on_cadence, int64_t index);
    void judge_display_probe(int64_t index);
    void check_display(int64_t index);
    void leave_vsync(const std::string& why);
    bool refresh_changed(int64_t index);
    int refreshes_per_frame(double shown_hz) const;
    bool check_lead_steps(int64_t now, int64_t index);
    void shown_stint(Strategy from, Strategy to, int64_t index);
    bool check_shown_rate(int64_t now, int64_t index);
    bool vsync_fell_short() const;
    void bar_lost_lock(int64_t now);
    void bar_for_vsync(int64_t now, const std::string& why);
    std::string choose_vsync_shows_most(int64_t index);
    std::string fell_back_note() const;
    // arbiter_vrr.cpp, arbiter_window.cpp
    VrrPlan read_vrr(double stated_hz) const;
    std::string choose_vrr();
    bool check_vrr(int64_t t, int64_t index);
    WindowState read_window_state() const;
    std::string choose_background(double ceiling_hz);
    bool check_window(int64_t index);

    static constexpr int kWatchWindow = 32;     // intervals watched while on vsync
    static constexpr int kCadenceWindow = 32;   // displayed frames judged for cadence under vsync

    const Config& cfg_;
    Waiter& waiter_;
    PresentModel& present_;
    Strategy waiter_strategy_ = Strategy::Timer;   // the waiter's resolved strategy, cached
    int vsync_interval_ = 0;                       // the swap interval the host accepted
    Decision decision_{};
    int recorded_refreshes_ = 0;   // display_refreshes_ when decision_ was made
    double recorded_hz_ = 0;       // decision_hz() then
    double refresh_hz_ = 0;
    int64_t next_refresh_poll_ns_ = 0;
    int64_t next_probe_ns_ = -1;     // auto: when to try vsync again (-1: only on a change)
    int64_t backoff_ns_ = 0;
    bool probing_ = false;
    Health health_ = Health::Fine;   // explicit vsync: what the last reason said
    int64_t uneven_since_ = -1;      // auto on vsync: the frame its presents were first found uneven
    Recent<kWatchWindow> watched_;     // present intervals while the swap paces
    int skip_samples_ = 0;
    Recent<kCadenceWindow> cadence_;   // displayed frames under vsync: 1 off cadence, 0 on
    int64_t vsync_since_index_ = 0;   // the frame index when vsync (re)started
    int64_t probe_started_index_ = 0;
    double decided_hz_ = 0;   // auto: the refresh its decision rests on (0 none)
    int64_t lost_since_ns_ = -1;          // display_lock's clock has been lost since (-1: it is not)
    int64_t lock_barred_until_ns_ = -1;   // auto: display_lock not before (-1: not barred) ...
    std::string lock_barred_why_;         // ... for this reason
    bool lock_barred_for_vsync_ = false;  // ... because vsync showed more frames (vsync paces meanwhile)
    bool vsync_shows_most_ = false;       // auto on vsync for that reason: kept through the display's wander
    ShownRate shown_;                     // frames shown a second since what paces last changed
    double vsync_shown_hz_ = 0;           // ... under vsync, its last stint of kProbeFrames or more (0 none)
    bool aims_later_ = false;             // display_lock: the learned lead is past a frame step (named)
    int64_t lead_change_since_ns_ = -1;   // ... has been crossing that step since (-1: it is not)
    int64_t refresh_off_since_ns_ = -1;   // the fitted refresh has been off decided_hz_ since (-1: it is not)
    double shown_hz_ = 0;     // auto: the fitted refresh it used, 0 when the stated one
    WindowState window_ = WindowState::Foreground;   // as the host last said
    VrrPlan vrr_;                   // variable refresh, as last read
    int64_t next_vrr_poll_ns_ = 0;  // ... read again then
    bool vsync_ceiling_ = false;    // VRR: swap interval 1 set as a ceiling, not pacing
    double limit_hz_ = 0;           // the ceiling in force (VRR's cap, background): 0 none
    Ceiling ceiling_ = Ceiling::None;   // ... which, as kChoices picked it
    double recorded_limit_hz_ = 0;  // limit_hz_ when decision_ was made
    bool display_locked_ = false;   // display_lock in force
    int display_refreshes_ = 0;     // ... one frame every this many refreshes
};

}  // namespace pacer::detail
