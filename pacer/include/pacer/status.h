// pacer/status.h: why a Pacer paces as it does, and what it knows now: the
// diagnostics behind Pacer::decision(), status() and display(), for
// overlays, logs and QA. An engine needs none of it to pace (pacer.h).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer {

// Why the pacer paces as it does. A new one (seq + 1) where what is in force
// changes: the strategy asked or in force, the swap interval, display_lock's
// refreshes per frame, a ceiling on the rate (VRR's cap, the background
// rates), or the refresh the choice rests on, by more than its fit's error. A reason whose numbers move (a retry's countdown, a rate
// re-measured, a probe confirmed) updates `reason` and `probing` in place.
struct Decision {
    int32_t seq;            // 1 for the first, + 1 at each change (after INT32_MAX, 1 again)
    int64_t at_ns;          // clock time it was made
    Strategy requested;     // Config::strategy
    Strategy in_force;      // Vsync, or the strategy that waits
    int32_t swap_interval;  // accepted by the host (0: not pacing by vsync)
    bool probing;           // auto: vsync on trial
    std::string reason;     // one line, e.g. "auto -> timer: refresh rate unknown"
    // The rate frames are paced at: the target, or a lower one in force (VRR's
    // cap, a window in the background, a kept vsync's display slower than
    // the target). A new ceiling is a new Decision.
    double pace_hz;
    WindowState window;     // as the Host last said (Host::window_state)
    bool vrr;               // variable refresh in force (Config::display.vrr)
    double vrr_min_hz;      // ... its range, 0 unknown
    double vrr_max_hz;
    double vrr_cap_hz;      // ... max - max^2 / 3600, 0 where the maximum is unknown
};

// What the waiting strategy knows now, for overlays and logs.
struct WaitStatus {
    Strategy strategy;             // in force (as Decision::in_force)
    bool timer_fell_back;          // timer waits as robust_sleep: no high-resolution timer
    int64_t scheduler_period_ns;   // the period in use
    double precise_estimate_ns;    // precise_sleep's estimate of a 1 ms sleep
    double precise_mean_ns, precise_sigma_ns;
    int64_t precise_samples;
    int64_t timer_margin_ns;       // the margin the next timer wait uses
    double timer_spin_stall_share; // of its recent spin, the part a deadline would miss by
                                   // over 10 us (stalls); lowers the margin's quantile
    bool contended;                // the timer counts the thread as contended
    int64_t runqueue_wait_ns;      // run-queue wait per frame, last read (-1 unknown)
    int64_t timer_sleep_cpu_ns;    // a calm timer wait's CPU before its spin, recent mean (-1 unknown)
    int64_t display_lead_ns;       // display_lock: deadlines this long before their refresh (-1: not locked)
    int64_t display_work_tail_ns;  // display_lock: of the lead, the frames' work it covers (their
                                   // tail at Config::display.hitches_per_1000), -1 when not locked
    int64_t display_latch_ns;      // ... the compositor's latch, as learned, -1 when not locked
    int64_t display_pad_ns;        // ... the predicted refresh's error, as learned, -1 when not locked
    int32_t display_refreshes;     // display_lock: refreshes per frame (n), 0 when not locked
    int64_t display_judged;        // display_lock: frames reported shown or discarded since the pacer began
    int64_t display_missed;        // ... of those, shown late (shown_late) or discarded: what its
                                   // learned lead answers for
    // Hitches (HitchCount) since the pacer began, whatever paced: refreshes
    // that showed the frame before again where a new one was due. 0 where
    // the host reports no shown frames.
    int64_t display_hitches;
    int64_t display_refreshes_counted;   // ... the refreshes the shown frames spanned
    double display_hitches_per_1000;     // ... hitches per 1,000 of them (display_lock's budget:
                                         // Config::display.hitches_per_1000)
};

// The display's clock as fitted from Presented reports (Pacer::display()):
// least squares over the last 64 shown times, outliers left out.
struct DisplayClock {
    bool locked = false;            // enough consistent reports: period and phase are trustworthy
    int64_t period_ns = 0;          // the fitted refresh period (0 unknown)
    int64_t refresh_at_ns = -1;     // a fitted refresh: refreshes at refresh_at_ns + k * period_ns
    double stated_hz = 0;           // what the host states (refresh_rate_hz, Presented::refresh_ns), 0 unknown
    int32_t samples = 0;            // inliers among the last 64 shown reports
    double residual_ns = 0;         // rms jitter of a report, from the inlier intervals
};

// Late: a frame shown at a later refresh than the one it aimed at
// (display_lock's aim, Frame::predicted_present_ns), so that the refresh it
// aimed at showed the frame before again. Which refresh a report names
// depends on who dated it:
//   - the display's own clock (kPresentedHwClock): a fixed-rate display shows
//     a late frame whole refreshes late, one that waits for frames (VRR) a
//     fraction of one, so past a quarter refresh is late;
//   - software (no kPresentedHwClock: a compositor's estimate, as mutter's
//     and weston's headless outputs send, 3-6 ms off their refresh on a
//     loaded machine): the nearest refresh, so under half a refresh after the
//     aim is that refresh, not the next.
// The rule behind WaitStatus::display_missed and display_lock's learned lead.
inline int64_t late_after_ns(int64_t refresh_ns, uint32_t flags = kPresentedHwClock) {
    return (flags & kPresentedHwClock) != 0 ? refresh_ns / 4 : refresh_ns / 2;
}
inline bool shown_late(int64_t after_aim_ns, int64_t refresh_ns, uint32_t flags = kPresentedHwClock) {
    return after_aim_ns > late_after_ns(refresh_ns, flags);
}

// The refreshes a frame is due to take at target_hz on a display refreshing
// every refresh_ns: one at least, and a display a little faster than the
// target (within 5 % of a frame: 60.3 Hz for 60) still takes one. A frame
// shown later than that repeated the one before.
int due_refreshes(double refresh_ns, double target_hz);

// Hitches: refreshes that showed the frame before again where a new one was
// due. The one count behind WaitStatus::display_hitches, the demo's overlay
// and summary, and pacer-replay (on a trace, a capture or a replayed run).
// Each shown frame (in order) is placed on the display's refresh grid: the
// refreshes since the frame before are counted by the rule of late_after_ns
// against a grid that follows the reports' mean phase and period (a loop,
// hitches.cpp), so a report dated a few ms off its refresh in software moves
// no frame to another refresh, while a display that moved its phase, or runs
// off its fitted period, is followed. The refreshes past `due` are the hitches.
// Where the period is the display's own (Grid::Fixed: a refresh it states
// and its reports confirm, as headless mutter's timer), the grid keeps it,
// and its phase moves add up: a frame painted a few ms late moves every
// later refresh, and each half refresh they come to is one more hitch (one
// less where they moved it earlier), so that over any stretch the count is
// the refreshes the shown frames spanned less those due, within one.
class HitchCount {
public:
    enum class Grid : uint8_t {
        Follow,   // the period given may be off the display's cadence: follow the reports
        Fixed,    // the period given is the display's own: keep it, count what the phase moves
    };
    // A frame shown at shown_ns (a report no later than the previous is
    // ignored) on a display refreshing every refresh_ns (> 0: the fitted or
    // stated period; else only its time is noted), due `due` refreshes after
    // the frame before (>= 1; the swap interval, display_lock's n, else
    // due_refreshes), reported with `flags` (kPresented*). Returns the
    // hitches it adds.
    int64_t add(int64_t shown_ns, double refresh_ns, int due, uint32_t flags, Grid grid = Grid::Follow);
    void reset() { *this = HitchCount{}; }

    int64_t hitches() const { return hitches_; }
    int64_t refreshes() const { return refreshes_; }   // refreshes spanned by the counted frames
    double per_1000() const { return refreshes_ > 0 ? 1000.0 * static_cast<double>(hitches_) / static_cast<double>(refreshes_) : 0; }

private:
    int64_t last_ns_ = -1;    // the newest frame's report
    double grid_ns_ = -1;     // the refresh the newest frame was placed on
    double correction_ns_ = 0;   // the grid's period less the one given
    double moved_ = 0;        // Grid::Fixed: the phase's moves not yet counted, in refreshes
    int64_t credit_ = 0;      // Grid::Fixed: refreshes the phase moved earlier, owed back by the next hitches
    int64_t hitches_ = 0, refreshes_ = 0;
};

}  // namespace pacer
