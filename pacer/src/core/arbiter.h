// arbiter.h: what paces, and why. The arbiter owns what is in force (the
// swap interval it asked the Host for, the waiter's strategy, display_lock's
// refreshes per frame, the ceiling), auto's backoff, the refresh rate the
// host states, and every Decision with its reason. Auto's rules
// (rules/: the vsync watch, the display's account, the shown-rate judge,
// VRR, the window) keep their own state and hand it verdicts; it takes each
// through rules/table.h, whose kChoices rows arbiter_choices.cpp carries
// out. It reads the display through the PresentModel and sets the Waiter's
// strategy; it never waits. Internal (pacer_internal); docs/design.md,
// "Auto as a table".
#pragma once

#include "rules/display.h"
#include "rules/shown.h"
#include "rules/table.h"
#include "rules/vrr.h"
#include "rules/vsync.h"
#include "rules/window.h"
#include "display/present_model.h"
#include "wait/waiter.h"

#include <pacer/pacer.h>
#include <pacer/status.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace pacer::detail {

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
    // display slower than it (rules/shown.cpp), the display's fitted one.
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
    PaceState state() const;   // table.h's state, read from what is in force
    void take(Input input, const std::string& text, int64_t index);
    void apply(const MaybeVerdict& verdict, int64_t index);
    VsyncView vsync_view() const;
    DisplayView display_view() const;
    double read_refresh_hz() const;
    VrrPlan read_vrr(double stated_hz) const;
    WindowState read_window_state() const;
    bool set_interval(int wanted);
    void set_waiter(Strategy strategy);
    void record(const std::string& reason);
    double decision_hz() const;
    bool refresh_moved(double was, double now) const;
    void leave_vsync(const std::string& why);
    bool refresh_changed(int64_t index);
    void check_display(int64_t index);
    bool check_window(int64_t index);
    bool check_vrr(int64_t t, int64_t index);
    // arbiter_choices.cpp: kChoices' rows carried out
    void choose(const std::string& why, int64_t index);
    std::string choose_vsync(int64_t index);
    std::string choose_probe(int64_t index);
    std::string choose_display_lock(const char* head);
    std::string choose_vsync_shows_most(int64_t index);
    std::string choose_vrr();
    std::string choose_background(double ceiling_hz);
    std::string fell_back_note() const;

    const Config& cfg_;
    Waiter& waiter_;
    PresentModel& present_;
    Strategy waiter_strategy_ = Strategy::Timer;   // the waiter's resolved strategy, cached
    int vsync_interval_ = 0;                       // the swap interval the host accepted
    Decision decision_{};
    int recorded_refreshes_ = 0;   // display_refreshes_ when decision_ was made
    double recorded_hz_ = 0;       // decision_hz() then
    double recorded_limit_hz_ = 0; // limit_hz_ then
    double refresh_hz_ = 0;        // as the host states it, 0 unknown
    int64_t next_refresh_poll_ns_ = 0;
    int64_t next_probe_ns_ = -1;   // auto: when to try vsync again (-1: only on a change)
    int64_t backoff_ns_ = 0;
    double decided_hz_ = 0;        // auto: the refresh its decision rests on (0 none)
    double shown_hz_ = 0;          // ... the display's fitted one where it used it, else 0
    bool vsync_shows_most_ = false;   // auto on vsync because it showed the most (shown.h)
    bool display_locked_ = false;     // display_lock in force ...
    int display_refreshes_ = 0;       // ... one frame every this many refreshes
    bool vsync_ceiling_ = false;      // VRR: swap interval 1 set as a ceiling, not pacing
    double limit_hz_ = 0;             // the ceiling in force (VRR's cap, background): 0 none
    Ceiling ceiling_ = Ceiling::None; // ... which, as kChoices picked it
    // The rules, each with its own state.
    VsyncWatch vsync_;
    DisplayJudge display_;
    ShownJudge shown_;
    VrrWatch vrr_;
    WindowWatch window_;
};

}  // namespace pacer::detail
