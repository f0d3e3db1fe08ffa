// display.cpp: the rules on the display's own account (display.h).
#include "rules/display.h"

#include "base/saturate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pacer::detail {

using namespace rules;

// A fit a little above a refresh equal to the target (a jittery clock's
// 60.3 Hz for 60) is that refresh, not one to halve.
int refreshes_per_frame(double shown_hz, double target_hz) {
    return std::max(1, static_cast<int>(std::ceil(shown_hz / target_hz - kFrameSlack)));
}

// A young fit of jittery reports wanders up to 1.4 % (mutter's).
std::string display_says(double shown_hz, double stated_hz) {
    const bool lies = shown_hz > 0 && !(std::fabs(shown_hz - stated_hz) <= kRefreshJump * shown_hz);
    if (!lies) return std::string();
    // 0: none stated, or one no display has (the arbiter's read_refresh_hz).
    return (stated_hz > 0 ? "display says " + hz_text(stated_hz) : std::string("display states no refresh rate")) +
           " but shows frames every " + ms(period_ns_of(shown_hz));
}

std::string unlocked_why(const ClockFit& fit) {
    const int intervals = fit.intervals();
    if (!(fit.period_ns() > 0))
        return "no refresh period common to the last " + std::to_string(intervals) + " shown intervals";
    const DisplayClock clock = fit.clock();
    char jitter[96];
    std::snprintf(jitter, sizeof jitter, "off them by %.2f ms rms (under %.2f ms wanted)", ms_of(clock.residual_ns),
                  ms_of(fit.lock_residual_ns()));
    return std::to_string(clock.samples) + " of the last " + std::to_string(intervals) +
           " shown intervals are whole refreshes of " + ms(fit.period_ns()) + " (" +
           std::to_string(fit.lock_inliers()) + " wanted), " + jitter;
}

bool DisplayJudge::can_lock(const DisplayView& view) {
    return view.has_host && view.lead_setting_ns != kLeadOff && view.present->feedback_seen() &&
           view.present->display().locked();
}

bool DisplayJudge::lockable(const DisplayView& view, int64_t now) const {
    return can_lock(view) && !(view.asked == Strategy::Auto && now < barred_until_ns_);
}

void DisplayJudge::bar(int64_t now, const std::string& why, bool for_vsync) {
    barred_until_ns_ = sat_add(now, kMaxBackoffNs);
    barred_for_vsync_ = for_vsync;
    barred_why_ = why;
}

void DisplayJudge::lift_bar() {
    barred_until_ns_ = -1;
    barred_for_vsync_ = false;
}

int64_t DisplayJudge::bar_left_ns(int64_t now) const { return sat_sub(barred_until_ns_, now); }

// A display that moved (weston's repaint loop, a 2 % change) relocks within
// the hold, and a new rate re-decides at once when it does.
bool DisplayJudge::hold_lost(int64_t now) {
    if (lost_since_ns_ < 0) lost_since_ns_ = now;
    if (sat_sub(now, lost_since_ns_) < kLostHoldNs) return true;
    lost_since_ns_ = -1;
    return false;
}

// With a learned lead: a lead past one frame step that lasts
// (kRefreshHoldNs) is named in a new decision, and so is its end (the work
// calmed). Hysteresis: past a step to step down, under 90 % of one to come
// back.
bool DisplayJudge::lead_stepped(const DisplayView& view, int64_t now) {
    if (!view.locked || view.lead_setting_ns != kLeadAuto || view.refreshes < 1) return false;
    const double step = view.present->display().period_ns() * view.refreshes;
    const double lead = static_cast<double>(view.present->lead_ns());
    const bool later = aims_later_ ? lead > 0.9 * step : lead > step;
    if (later == aims_later_) {
        lead_change_since_ns_ = -1;
        return false;
    }
    if (lead_change_since_ns_ < 0) lead_change_since_ns_ = now;
    if (sat_sub(now, lead_change_since_ns_) < kRefreshHoldNs) return false;
    lead_change_since_ns_ = -1;
    aims_later_ = later;
    return true;
}

// A quarter of display_lock's last PresentModel::kEarlyWindow shown frames
// came a quarter refresh or more before the refresh they aimed at. Such a
// display shows frames as they come (mutter's headless output showed 40-50 %
// early, weston's 0-1 %): its refresh is no target, and a frame's wait for
// it only moves the frame. The timer paces, and display_lock is tried again
// after kMaxBackoffNs, or on a change.
bool DisplayJudge::frames_early(const DisplayView& view, int64_t now) {
    const PresentModel& present = *view.present;
    if (view.asked != Strategy::Auto || !view.locked || !present.early_window_full()) return false;
    const int early = present.early_frames();
    if (early * 4 < PresentModel::kEarlyWindow) return false;
    bar(now,
        "display_lock's frames shown a quarter refresh or more before the refresh they aimed at in " +
            std::to_string(early) + " of the last " + std::to_string(PresentModel::kEarlyWindow) +
            " (the display shows frames as they come)",
        false);
    return true;
}

// Auto re-decides when the display's fitted refresh departs from the one its
// decision rests on (a lying stated rate, a mode change); display_lock, which
// follows its clock anyway, only when the refreshes per frame change too.
MaybeVerdict DisplayJudge::moved(const DisplayView& view, int64_t now) {
    const double hz = hz_of(view.present->display().period_ns());
    const double decided = view.decided_hz;
    const double off = decided > 0 ? std::fabs(hz - decided) / decided : 1.0;
    const bool small = off < kRefreshJump;
    // display_lock follows its clock's period frame by frame
    // (PresentModel::lock_grid): a small change that keeps the refreshes per
    // frame changes nothing it decided (weston's fit wanders 1-2 % for
    // seconds: up to 5 re-decisions in 1,200 frames of an example, docs/design.md).
    const bool followed = small && view.locked && refreshes_per_frame(hz, view.target_hz) == view.refreshes;
    if (off <= kRateTolerance || followed) {
        refresh_off_since_ns_ = -1;
        return std::nullopt;
    }
    // Elsewhere a small change must last (a fit that wobbles, as weston's
    // headless output's does, would re-decide again and again); a large one
    // is a new mode.
    if (small) {
        if (refresh_off_since_ns_ < 0) refresh_off_since_ns_ = now;
        if (sat_sub(now, refresh_off_since_ns_) < kRefreshHoldNs) return std::nullopt;
    }
    refresh_off_since_ns_ = -1;
    return Verdict{Input::DisplayMoved,
                   decided > 0 ? "display refresh " + hz_rounded(decided) + " -> " + hz_rounded(hz) : std::string()};
}

// A clock that does not lock leaves display_lock on the timer for good; the
// reason it was chosen with ("waiting for the host to report shown frames",
// or "... for the display's clock to lock") then says why, once the fit has
// had as long as auto's probe gives it (kDisplayProbeFrames).
MaybeVerdict DisplayJudge::clock_waits(const DisplayView& view, int64_t index) {
    const PresentModel& present = *view.present;
    if (view.locked || !present.feedback_seen() || present.display().locked() || view.lead_setting_ns == kLeadOff) {
        wait_anew();
        return std::nullopt;
    }
    if (waits_since_index_ < 0) waits_since_index_ = index;
    if (waits_said_ || index - waits_since_index_ < kDisplayProbeFrames) return std::nullopt;
    waits_said_ = true;
    return Verdict{Input::ClockWaits, "display_lock -> timer: the display's clock does not lock in " +
                                          std::to_string(index - waits_since_index_) +
                                          " frames: " + unlocked_why(present.display())};
}

}  // namespace pacer::detail
