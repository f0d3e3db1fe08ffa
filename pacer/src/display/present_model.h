// present_model.h: what the display showed, and what follows from it. It
// owns the reports (Host::take_presented) as they come in, the display clock
// fitted from them (clock_fit.h), which of our frames was shown when, the
// phase at which a swap returns, the predicted present of a frame, the delay
// bias that slides the deadline grid onto the display's phase,
// display_lock's grid with its learned lead (display_lead.h), and the count
// of hitches (pacer::HitchCount) over every shown frame of ours.
// Internal (pacer_internal); the Pacer drains the host into it.
#pragma once

#include "display/clock_fit.h"
#include "base/saturate.h"
#include "display/display_lead.h"
#include "base/grid.h"
#include "base/recent.h"

#include <pacer/pacer.h>
#include <pacer/status.h>

#include <array>
#include <cstdint>
#include <utility>

namespace pacer::detail {

// A rate fits refresh / n when it is within this share of it (auto's rule,
// and the delay bias's).
inline constexpr double kRateTolerance = 0.005;

class PresentModel {
public:
    // What one report said, for the arbiter's cadence under vsync.
    struct Report {
        bool shown = false;             // dated: shown at displayed_ns
        bool discarded = false;         // never shown
        int64_t frame_index = -1;       // Presented::frame_index
        int64_t displayed_ns = -1;
        int64_t previous_index = -1;    // the frame shown before it (-1 none)
        int64_t previous_ns = -1;       // and when
        bool feedback_seen = false;     // a frame has been reported shown, this one included
    };

    static constexpr double kPerThousand = 1000;   // hitches are counted per 1,000 refreshes

    // Config::display, read here and nowhere else: the lead the engine
    // fixed (>= 0), or kLeadAuto (learned) or kLeadOff.
    void configure(const Config::Display& display) {
        lead_setting_ns_ = display.lead_ns;
        hitches_per_1000_ = display.hitches_per_1000;
        if (locked_) lead_.set_budget(hitches_per_1000_ / kPerThousand * locked_n_);
    }
    // display_lock's lead in force: the fixed one, else the learned one.
    int64_t lead_ns() const { return lead_setting_ns_ >= 0 ? lead_setting_ns_ : lead_.lead_ns(); }

    // One report, taken during the wait of frame `index`; stated_hz is what
    // the host states (0 unknown). An undated, undiscarded report says nothing.
    // swap_follows_wait: the engine waits before its present (WaitPoint::
    // BeforePresent), so frame f is swapped after wait f + 1, not f.
    // target_hz: the frame rate asked, which says how many refreshes a frame
    // is due to take (due_refreshes), for the hitch count.
    Report add(const Presented& report, double stated_hz, int64_t index, bool swap_follows_wait, double target_hz);
    // Frame `index` woke at wake_ns, the swap before it returned at
    // present_ns (-1 unmarked), aiming at the refresh aim_ns (display_lock,
    // from the lead in force; else -1): reports are matched to it later.
    // vsync_shown_ns: under vsync, when the frame built after this wait is
    // predicted shown (-1 otherwise).
    void note_wake(int64_t index, int64_t wake_ns, int64_t present_ns, int64_t aim_ns, int64_t vsync_shown_ns);
    // Before the next wake is noted: when the newest frame swapped is
    // predicted shown, where vsync paced it (-1 not): a compositor's vsync
    // queue may still hold it (weston's holds two past the swap's return).
    int64_t queued_shown_ns(bool swap_follows_wait) const {
        const Wake* wake = wake_of(newest_wake_ - (swap_follows_wait ? 1 : 0));
        return wake != nullptr ? wake->vsync_shown_ns : -1;
    }
    // The swap that followed wake `index` returned at swap_ns.
    void note_swap(int64_t index, int64_t swap_ns);

    // When the frame built after `frame`'s wait reaches the screen, by the
    // display's clock; false (*out untouched) until there is a fit and a few
    // shown frames.
    bool predict_present(const Frame& frame, int64_t* out) const;

    // Delay bias: only with a lead the engine fixed (learned and off leave
    // the grid alone), while `free_running` (a waiter paces on the absolute
    // grid) at refresh / n and the display clock is locked: the grid takes
    // the fitted period and slides, at most kBiasSlew of a period per frame,
    // until each deadline falls that lead before a refresh. Else it puts the
    // grid back on the target's own period (target_hz).
    void bias_grid(Grid& grid, double target_hz, bool free_running);

    // display_lock: places the grid's next point the lead in force before
    // the refresh n refreshes after the last one aimed at (entering the
    // lock: the first refresh at least the lead after t, and n after the
    // newest frame a vsync queue holds), in steps of n fitted refreshes.
    void lock_grid(Grid& grid, int64_t t, int n, bool swap_follows_wait);
    // The refresh a display_lock deadline aims at: the one the lead in force
    // after it.
    int64_t aim_of(int64_t deadline_ns) const { return display_.nearest_refresh(sat_add(deadline_ns, lead_ns())); }
    const DisplayLead& lead() const { return lead_; }
    // Every shown frame of ours since the pacer began, whatever paced it.
    const HitchCount& hitches() const { return hitches_; }
    // display_lock's shown frames, the newest kEarlyWindow: how many were
    // shown early, more than a quarter refresh (late_after_ns) before the
    // refresh they aimed at. A display that holds each frame for a refresh
    // never does that (weston's headless: 0-1 % of any 128); one that shows
    // frames as they come does (mutter's headless: 40-50 %).
    static constexpr int kEarlyWindow = 64;
    int early_frames() const { return static_cast<int>(early_.sum()); }
    bool early_window_full() const { return early_.full(); }
    void clear_early() { early_.clear(); }
    const ClockFit& display() const { return display_; }
    bool feedback_seen() const { return feedback_seen_; }
    // The display changed its refresh: the old fit no longer holds.
    void reset_display() { display_.reset(); }
    // A new host is a new display: nothing learnt from the old one holds.
    void forget();

private:
    static constexpr int kFrameMemory = 64;     // wakes kept to match reports to their frames
    static constexpr int kLatencyWindow = 16;   // refreshes from wake to shown behind the prediction
    static constexpr int kLatencyMin = 2;       // ... needed before they are used

    struct Wake {
        int64_t index = -1, wake_ns = 0;
        int64_t present_ns = -1;   // the swap return before the wake (Frame::present_ns)
        int64_t aim_ns = -1;       // display_lock: the refresh it aimed at
        int64_t lead_ns = 0;       // display_lock: its deadline's lead before aim_ns
        int64_t swap_ns = -1;      // the swap return after the wake
        int64_t vsync_shown_ns = -1;   // under vsync: the frame built after it, predicted shown
        bool judged = false;       // display_lock: its frame's fate was counted (once, however often told)
    };
    const Wake* wake_of(int64_t index) const {
        if (index < 0) return nullptr;
        const Wake& wake = wakes_[static_cast<size_t>(index % kFrameMemory)];
        return wake.index == index ? &wake : nullptr;
    }
    Wake* wake_of(int64_t index) { return const_cast<Wake*>(std::as_const(*this).wake_of(index)); }
    void judge(const Presented& report, bool swap_follows_wait);
    struct Shown {
        int64_t wake_ns, present_ns, shown_ns;   // a frame's wake, the swap return before it, when shown
    };
    const Shown& shown_back(int back) const {   // the back-th newest (1: the newest)
        return latency_ring_[static_cast<size_t>((latency_next_ - back + kLatencyWindow) % kLatencyWindow)];
    }
    int64_t refresh_anchor(int64_t wake_ns, int64_t present_ns, int64_t return_phase_ns) const;
    int64_t swap_return_phase_ns() const;

    ClockFit display_;
    bool feedback_seen_ = false;                 // the host has reported a shown frame
    std::array<Wake, kFrameMemory> wakes_{};     // by index % kFrameMemory
    int64_t newest_wake_ = -1;                   // the index of the newest
    std::array<Shown, kLatencyWindow> latency_ring_{};   // the newest shown frames of ours
    int latency_count_ = 0, latency_next_ = 0;
    int64_t last_shown_index_ = -1, last_shown_ns_ = -1;
    bool biased_ = false;                        // the grid follows the display (delay bias)
    bool locked_ = false;                        // the grid is display_lock's
    Recent<kEarlyWindow> early_;                 // display_lock's shown frames: 1 early, 0 not
    int locked_n_ = 0;                           // ... in steps of this many refreshes
    int64_t last_aim_ns_ = -1;                   // the refresh the newest frame aimed at
    int64_t lead_setting_ns_ = kLeadAuto;        // Config::display.lead_ns (configure)
    double hitches_per_1000_ = 1;                // Config::display.hitches_per_1000 (configure)
    DisplayLead lead_;
    HitchCount hitches_;
};

}  // namespace pacer::detail
