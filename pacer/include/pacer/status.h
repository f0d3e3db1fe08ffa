// pacer/status.h: why a Pacer paces as it does, and what it knows now: the
// diagnostics behind Pacer::decision(), status() and display(), for
// overlays, logs and QA. An engine needs none of it to pace (pacer.h).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer {

// Why the pacer paces as it does; a new one (seq + 1) at every change.
struct Decision {
    int32_t seq;            // 1 for the first, + 1 at each change (after INT32_MAX, 1 again)
    int64_t at_ns;          // clock time it was made
    Strategy requested;     // Config::strategy
    Strategy in_force;      // Vsync, or the strategy that waits
    int32_t swap_interval;  // accepted by the host (0: not pacing by vsync)
    bool probing;           // auto: vsync on trial
    std::string reason;     // one line, e.g. "auto -> timer: refresh rate unknown"
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
    int64_t display_missed;        // ... of those, shown over a quarter refresh after the refresh they
                                   // aimed at, or discarded
    double display_hitches_per_1000;   // display_lock: those misses per 1,000 refreshes (each showed the
                                       // frame before again), against Config::display.hitches_per_1000
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

// Late: a frame shown more than late_after_ns(refresh), a quarter refresh,
// after the refresh it aimed at (Frame::predicted_present_ns). A fixed-rate
// display shows a late frame whole refreshes late; one that waits for frames
// shows it as soon as it can, a fraction of a refresh late. The rule behind
// display_missed, and the one a tool that judges shown frames should use.
inline int64_t late_after_ns(int64_t refresh_ns) { return refresh_ns / 4; }
inline bool shown_late(int64_t after_aim_ns, int64_t refresh_ns) { return after_aim_ns > late_after_ns(refresh_ns); }

}  // namespace pacer
