// display.h: auto's and display_lock's rules on the display's own account
// (table.h's rows "display"): whether display_lock can pace, the hold
// through a lost clock, the bar after frames shown early (and the bar for
// vsync that shown.h asks for), the learned lead past a frame step, and the
// fitted refresh leaving the one a decision rests on. Its own state; it
// reads the pacer through a DisplayView. Internal. docs/design.md, "The
// display clock, and what auto trusts" and "display_lock".
#pragma once

#include "rules/common.h"
#include "display/present_model.h"

#include <cstdint>
#include <string>

namespace pacer::detail {

// What the display's rules read of the pacer.
struct DisplayView {
    Strategy asked = Strategy::Auto;
    bool has_host = false;
    int64_t lead_setting_ns = 0;             // Config::display.lead_ns (kLeadOff, kLeadAuto or a lead)
    double target_hz = 0;
    const PresentModel* present = nullptr;   // the reports, their clock, the learned lead
    bool locked = false;                     // display_lock in force ...
    int refreshes = 0;                       // ... one frame every this many refreshes
    double decided_hz = 0;                   // the refresh auto's decision rests on (0 none)
};

// Refreshes per frame for display_lock: the fewest that keep the frame rate
// at the target, or over it by less than kFrameSlack of a frame.
int refreshes_per_frame(double shown_hz, double target_hz);
// "display says 60 Hz but shows frames every 25.2 ms" where the fitted
// refresh is further from the stated one (0: none) than a young fit
// wanders, else "".
std::string display_says(double shown_hz, double stated_hz);
// Why a fit of shown frames has not locked: its period, the intervals that
// are whole refreshes of it and their jitter, each against what a lock wants.
std::string unlocked_why(const ClockFit& fit);

class DisplayJudge {
public:
    // The host reports shown frames, their clock is locked, the lead is not off.
    static bool can_lock(const DisplayView& view);
    // ... and auto has not barred it.
    bool lockable(const DisplayView& view, int64_t now) const;

    // display_lock barred until now + kMaxBackoffNs, for `why`; `for_vsync`:
    // because vsync showed more (vsync paces meanwhile).
    void bar(int64_t now, const std::string& why, bool for_vsync);
    void lift_bar();
    bool bar_over(int64_t now) const { return barred_until_ns_ >= 0 && now >= barred_until_ns_; }
    bool barred_for_vsync(int64_t now) const { return barred_for_vsync_ && now < barred_until_ns_; }
    const std::string& bar_why() const { return barred_why_; }
    int64_t bar_left_ns(int64_t now) const;

    // display_lock's clock is lost at `now`: true while the loss is held
    // (kLostHoldNs, the timer on the last step); past it, false.
    bool hold_lost(int64_t now);
    void clock_kept() { lost_since_ns_ = -1; }

    // The learned lead crossed a frame step and stayed (true: re-decide).
    bool lead_stepped(const DisplayView& view, int64_t now);
    bool aims_later() const { return aims_later_; }
    void unlocked() { aims_later_ = false; }   // a new lock starts from a lead within the step
    // Auto: a quarter of display_lock's frames shown early (true: barred).
    bool frames_early(const DisplayView& view, int64_t now);
    // The fitted refresh left the decided one, for long enough.
    MaybeVerdict moved(const DisplayView& view, int64_t now);
    // display_lock asked for and waiting on the timer: where shown frames
    // come and the clock stays unlocked for kDisplayProbeFrames, says why,
    // once a wait (frame `index`).
    MaybeVerdict clock_waits(const DisplayView& view, int64_t index);
    // A new choice, a new reason: the wait is counted and said afresh.
    void wait_anew() { waits_since_index_ = -1, waits_said_ = false; }

private:
    int64_t lost_since_ns_ = -1;          // display_lock's clock lost since (-1: it is not)
    int64_t barred_until_ns_ = -1;        // auto: display_lock not before (-1: not barred) ...
    std::string barred_why_;              // ... for this reason
    bool barred_for_vsync_ = false;       // ... because vsync showed more frames
    bool aims_later_ = false;             // the learned lead is past a frame step (named)
    int64_t lead_change_since_ns_ = -1;   // ... has been crossing that step since (-1: it is not)
    int64_t refresh_off_since_ns_ = -1;   // the fitted refresh off the decided one since (-1: it is not)
    int64_t waits_since_index_ = -1;      // display_lock's clock unlocked, frames shown, since (-1: it is not)
    bool waits_said_ = false;             // ... and the reason has said why
};

}  // namespace pacer::detail
