// arbiter_display.cpp: the arbiter's rules on the display's own account
// (arbiter.h): whether display_lock can pace and what it says when it
// does, when auto leaves it (frames shown early, a lead that passes a frame
// step), the probe of vsync on shown frames, and the re-decisions the
// fitted refresh calls for. docs/design.md, "The display clock, and what
// auto trusts" and "display_lock".
#include "core/arbiter.h"

#include "core/arbiter_rules.h"
#include "base/saturate.h"

#include <pacer/status.h>

#include <algorithm>
#include <cmath>

namespace pacer::detail {

using namespace arbiter_rules;

// Whether display_lock can pace now: the host reports shown frames, their
// clock is locked, and the lead is not off.
bool Arbiter::can_lock() const {
    return cfg_.host != nullptr && cfg_.display.lead_ns != kLeadOff && present_.feedback_seen() &&
           present_.display().locked();
}

// Whether display_lock may pace now: it can, and auto has not barred it.
bool Arbiter::lockable(int64_t now) const {
    return can_lock() && !(cfg_.strategy == Strategy::Auto && now < lock_barred_until_ns_);
}

// Auto under display_lock: a quarter of its last PresentModel::kEarlyWindow
// shown frames came a quarter refresh or more before the refresh they aimed
// at. Such a display shows frames as they come (mutter's headless output
// showed 40-50 % early, weston's 0-1 %): its refresh is no target, and a
// frame's wait for it only moves the frame. The timer paces, and display_lock
// is tried again after kMaxBackoffNs, or on a change. True when it left.
bool Arbiter::check_early_frames(int64_t now, int64_t index) {
    if (cfg_.strategy != Strategy::Auto || !display_locked_ || !present_.early_window_full()) return false;
    const int early = present_.early_frames();
    if (early * 4 < PresentModel::kEarlyWindow) return false;
    lock_barred_until_ns_ = sat_add(now, kMaxBackoffNs);
    lock_barred_for_vsync_ = false;
    lock_barred_why_ = "display_lock's frames shown a quarter refresh or more before the refresh they aimed at in " +
                       std::to_string(early) + " of the last " + std::to_string(PresentModel::kEarlyWindow) +
                       " (the display shows frames as they come)";
    present_.clear_early();
    take(Input::FramesEarly, "", index);
    return true;
}

// "display says 60 Hz but shows frames every 25.2 ms" where the fitted
// refresh (shown_hz_) is further from the stated one than a young fit of
// jittery reports wanders (mutter's: up to 1.4 %), else "".
std::string Arbiter::display_says() const {
    const bool lies = shown_hz_ > 0 && !(std::fabs(shown_hz_ - refresh_hz_) <= kRefreshJump * shown_hz_);
    if (!lies) return std::string();
    // 0: none stated, or one no display has (read_refresh_hz).
    return (refresh_hz_ > 0 ? "display says " + hz_text(refresh_hz_) : std::string("display states no refresh rate")) +
           " but shows frames every " + ms(period_ns_of(shown_hz_));
}

// display_lock: swap interval 0, one frame every n fitted refreshes (the
// fewest that do not exceed the target), each deadline a lead before its
// refresh. `head` names who chose it.
std::string Arbiter::choose_display_lock(const char* head) {
    const std::string to_timer = std::string(head) + " -> timer: ";
    if (cfg_.host == nullptr) return to_timer + "no host to report shown frames";
    // Swaps must not block, or they would pace instead of the grid; said
    // once, on entering, whatever the host was left at.
    if (vsync_interval_ != 0 || decision_.in_force != Strategy::DisplayLock) {
        vsync_interval_ = 0;
        cfg_.host->set_swap_interval(0);
    }
    if (cfg_.display.lead_ns == kLeadOff) return to_timer + "display.lead_ns is off";
    if (!present_.feedback_seen()) return to_timer + "waiting for the host to report shown frames";
    if (!present_.display().locked()) return to_timer + "waiting for the display's clock to lock";
    shown_hz_ = hz_of(present_.display().period_ns());
    decided_hz_ = shown_hz_;
    display_refreshes_ = refreshes_per_frame(shown_hz_);
    if (!display_locked_) present_.clear_early();
    display_locked_ = true;
    const std::string says = display_says();
    const std::string lead = cfg_.display.lead_ns >= 0 ? "a lead of " + ms(static_cast<double>(cfg_.display.lead_ns))
                                                        : std::string("a lead learned from shown frames");
    // The learned lead past a frame step: the work's tail and the latch take
    // longer than a step at the hitch budget, so each frame aims a refresh
    // further than the one after its wake (a frame more of latency).
    const std::string later = aims_later_ ? "; the work's tail and the latch take more than a frame step: each "
                                            "frame aims a refresh later"
                                          : std::string();
    const char* clock = cfg_.host->present_clock_name();
    return std::string(head) + " -> display_lock: " + (says.empty() ? std::string() : says + "; ") +
           (clock != nullptr ? std::string(clock) + ", " : std::string()) + hz_rounded(shown_hz_) + " / " +
           std::to_string(display_refreshes_) + ", each deadline " + lead + " before its refresh" + later;
}

// display_lock with a learned lead: a lead past one frame step that lasts
// (kRefreshHoldNs) is named in a new decision, and so is its end (the work
// calmed). True when it re-decided.
bool Arbiter::check_lead_steps(int64_t now, int64_t index) {
    if (!display_locked_ || cfg_.display.lead_ns != kLeadAuto || display_refreshes_ < 1) return false;
    const double step = present_.display().period_ns() * display_refreshes_;
    const double lead = static_cast<double>(present_.lead_ns());
    // Hysteresis: past a step to step down, under 90 % of one to come back.
    const bool later = aims_later_ ? lead > 0.9 * step : lead > step;
    if (later == aims_later_) {
        lead_change_since_ns_ = -1;
        return false;
    }
    if (lead_change_since_ns_ < 0) lead_change_since_ns_ = now;
    if (sat_sub(now, lead_change_since_ns_) < kRefreshHoldNs) return false;
    lead_change_since_ns_ = -1;
    aims_later_ = later;
    take(Input::LeadStepped, "", index);
    return true;
}

// Auto's probe where the display reports: vsync is trusted once the display
// clock is locked, n of its periods make the target's, and the shown frames
// keep that cadence.
void Arbiter::judge_display_probe(int64_t index) {
    const ClockFit& display = present_.display();
    if (!display.locked() || cadence_.count() < kProbeFrames) {
        if (index - probe_started_index_ >= kDisplayProbeFrames)
            take(Input::ProbeNoClock, "vsync requested, the display reports no steady refresh in " +
                        std::to_string(index - probe_started_index_) + " frames", index);
        return;
    }
    const double shown = display.period_ns() * vsync_interval_;
    const double target = period_ns_of(cfg_.target_hz);
    if (std::fabs(shown - target) > kRateTolerance * target) {
        take(Input::ProbeShownOffRate, "display shows frames every " + ms(shown) + ", not " + ms(target), index);
        return;
    }
    const int off = static_cast<int>(cadence_.sum());
    if (off * 4 > cadence_.count()) {
        take(Input::ProbeOffCadence,
             "displayed frames off cadence in " + std::to_string(off) + " of " + std::to_string(cadence_.count()), index);
        return;
    }
    take(Input::ProbeShownSteady,
         "auto -> vsync: display shows frames every " + ms(shown) + " (" + hz_rounded(hz_of(display.period_ns())) +
             " / " + std::to_string(vsync_interval_) + ")",
         index);
}

// Auto re-decides when the display's fitted refresh departs from the one its
// decision rests on (a lying stated rate, a mode change); display_lock, which
// follows its clock anyway, only when the refreshes per frame change too.
void Arbiter::check_display(int64_t index) {
    const ClockFit& display = present_.display();
    const bool listens = cfg_.strategy == Strategy::Auto || cfg_.strategy == Strategy::DisplayLock;
    if (!listens || cfg_.host == nullptr) return;
    // display_lock begins once the clock locks, and ends when it is lost
    // (the fit restarts after kResetRun reports off it: a changed display).
    const int64_t now = waiter_.clock().now_ns();
    // A bar that has run out is kept until display_lock starts again: where
    // the clock is unlocked then, the decision that starts it once it locks
    // is still the retry.
    const bool retry = lock_barred_until_ns_ >= 0 && now >= lock_barred_until_ns_;
    if (lockable(now) != display_locked_) {
        if (display_locked_) {   // lost: held a while, on the timer at the last step
            if (lost_since_ns_ < 0) lost_since_ns_ = now;
            if (sat_sub(now, lost_since_ns_) < kLostHoldNs) return;
        }
        lost_since_ns_ = -1;
        backoff_ns_ = kFirstBackoffNs;
        if (retry) lock_barred_until_ns_ = -1, lock_barred_for_vsync_ = false;
        if (display_locked_) bar_lost_lock(now);
        if (display_locked_) take(Input::ClockLost, "display clock lost", index);
        else take(Input::ClockLocked, retry ? "retry" : "", index);
        return;
    }
    lost_since_ns_ = -1;
    if (!display.locked() || (cfg_.strategy == Strategy::DisplayLock && !display_locked_)) return;
    if (check_lead_steps(now, index) || check_early_frames(now, index) || check_shown_rate(now, index)) return;
    const double hz = hz_of(display.period_ns());
    const double off = decided_hz_ > 0 ? std::fabs(hz - decided_hz_) / decided_hz_ : 1.0;
    const bool small = off < kRefreshJump;
    // display_lock follows its clock's period frame by frame
    // (PresentModel::lock_grid): a small change that keeps the refreshes per
    // frame changes nothing it decided (weston's fit wanders 1-2 % for
    // seconds: up to 5 re-decisions in 1,200 frames of an example, docs/design.md).
    const bool followed = small && display_locked_ && refreshes_per_frame(hz) == display_refreshes_;
    if (off <= kRateTolerance || followed) {
        refresh_off_since_ns_ = -1;
        return;
    }
    // Elsewhere a small change must last (a fit that wobbles, as weston's
    // headless output's does, would re-decide again and again); a large one
    // is a new mode.
    if (small) {
        if (refresh_off_since_ns_ < 0) refresh_off_since_ns_ = now;
        if (sat_sub(now, refresh_off_since_ns_) < kRefreshHoldNs) return;
    }
    refresh_off_since_ns_ = -1;
    backoff_ns_ = kFirstBackoffNs;
    take(Input::DisplayMoved,
         decided_hz_ > 0 ? "display refresh " + hz_rounded(decided_hz_) + " -> " + hz_rounded(hz) : std::string(), index);
}

// Refreshes per frame for display_lock: the fewest that keep the frame rate
// at the target, or over it by less than kFrameSlack of a frame: a fit a
// little above a refresh equal to the target (a jittery clock's 60.3 Hz for
// 60) is that refresh, not one to halve.
int Arbiter::refreshes_per_frame(double shown_hz) const {
    return std::max(1, static_cast<int>(std::ceil(shown_hz / cfg_.target_hz - kFrameSlack)));
}

}  // namespace pacer::detail
