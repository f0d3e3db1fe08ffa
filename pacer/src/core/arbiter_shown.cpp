// arbiter_shown.cpp: auto judges display_lock by what it shows (arbiter.h).
//
// A compositor that composes slower than the target (weston composing a
// 1280x720 window in software on the 2-core VM: 30-40 frames a second for a
// 60 Hz target) shows one frame a repaint at best. vsync gets that: each
// swap waits for the repaint. display_lock aims each frame at a repaint
// predicted from a cadence that wanders, and there showed 33 frames a
// second where vsync showed 37 (docs/design.md). So auto keeps what its
// vsync probe showed, and once display_lock has shown kShownJudged frames
// of its own at kShownShortfall or more below that, it leaves display_lock for
// vsync, which it then keeps through the cadence's wander (its swaps must
// still block), and tries display_lock again after kMaxBackoffNs.
#include "core/arbiter.h"

#include "core/arbiter_rules.h"
#include "base/saturate.h"

#include <cstdio>

namespace pacer::detail {

using namespace arbiter_rules;

void ShownRate::start(int64_t after_index) {
    after_index_ = after_index;
    first_ns_ = last_ns_ = -1;
    intervals_ = 0;
}

void ShownRate::add(const PresentModel::Report& report) {
    if (!report.shown || report.frame_index <= after_index_ || report.displayed_ns <= last_ns_) return;
    if (first_ns_ < 0) first_ns_ = report.displayed_ns;
    else ++intervals_;
    last_ns_ = report.displayed_ns;
}

double ShownRate::hz() const {
    return intervals_ > 0 ? static_cast<double>(intervals_) * kNsPerSecond / static_cast<double>(last_ns_ - first_ns_)
                          : 0.0;
}

namespace {

std::string per_second(double hz) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", hz);
    return text;
}

}  // namespace

// When what paces changes: vsync's shown rate is kept for auto's judgement
// of display_lock, and the count starts over for what comes next.
void Arbiter::shown_stint(Strategy from, Strategy to, int64_t index) {
    if (from == to) return;
    if (from == Strategy::Vsync && shown_.intervals() >= kProbeFrames) vsync_shown_hz_ = shown_.hz();
    shown_.start(to == Strategy::DisplayLock ? sat_add(index, kProbeFrames) : index);
}

// vsync's probe showed fewer frames a second than the target: where it
// kept the target, nothing shows more.
bool Arbiter::vsync_fell_short() const {
    return vsync_shown_hz_ > 0 && vsync_shown_hz_ < (1 - kRateTolerance) * cfg_.target_hz;
}

// Auto under display_lock, where vsync fell short of the target: vsync
// showed more. True when it left.
bool Arbiter::check_shown_rate(int64_t now, int64_t index) {
    if (cfg_.strategy != Strategy::Auto || !display_locked_ || !vsync_fell_short()) return false;
    // Only where display_lock asks a frame a refresh, as vsync did (a new n
    // is a new display mode, which vsync's old figure says nothing of). The
    // fitted refresh itself is no guide there: weston's repaint timer runs at
    // 60 Hz, and where composing takes 25 ms its fit flips between 39.6 Hz
    // and 60 Hz as its frames come one or two slots apart.
    if (display_refreshes_ != 1) return false;
    if (shown_.intervals() < kShownJudged) return false;
    const double locked_hz = shown_.hz();
    if (locked_hz >= (1 - kShownShortfall) * vsync_shown_hz_) return false;
    bar_for_vsync(now, "display_lock showed " + per_second(locked_hz) + " frames a second, vsync " +
                           per_second(vsync_shown_hz_));
    take(Input::ShownFewer, "", index);
    return true;
}

// Auto's display_lock lost the display's clock for good (past the hold)
// where vsync fell short of the target: such a compositor's cadence wanders
// (weston composing in software lost it every 75-130 frames, and each loss
// was a vsync probe and a new lock: 10 decisions in 900 frames). vsync,
// which showed a frame a repaint, paces until display_lock's retry.
void Arbiter::bar_lost_lock(int64_t now) {
    if (cfg_.strategy != Strategy::Auto || !vsync_fell_short()) return;
    bar_for_vsync(now, "display_lock lost the display's clock, vsync showed " + per_second(vsync_shown_hz_) +
                           " frames a second");
}

// display_lock barred for kMaxBackoffNs, vsync pacing meanwhile, for `why`
// (what display_lock and vsync showed), with the shortfall that makes it so.
void Arbiter::bar_for_vsync(int64_t now, const std::string& why) {
    lock_barred_until_ns_ = sat_add(now, kMaxBackoffNs);
    lock_barred_for_vsync_ = true;
    lock_barred_why_ = why + " (the display shows fewer than the " + hz_text(cfg_.target_hz) + " target)";
}

// Auto where display_lock is barred because vsync showed more: vsync at
// every refresh, kept through the display's wander while its swaps block.
std::string Arbiter::choose_vsync_shows_most(int64_t index) {
    const std::string retry = "; display_lock again in " +
                              seconds(sat_sub(lock_barred_until_ns_, waiter_.clock().now_ns()));
    if (!set_interval(1)) return "auto -> timer: " + lock_barred_why_ + ", but swap interval 1 refused" + retry;
    // The period in force is the display's, not the one it states (weston
    // says 60 Hz and repaints every 25 ms): the watch's bounds, the frames'
    // period and the statistics judge against what it shows.
    if (present_.display().locked()) shown_hz_ = hz_of(present_.display().period_ns());
    start_watch(false, index);
    vsync_shows_most_ = true;
    return "auto -> vsync: " + lock_barred_why_ + retry;
}

}  // namespace pacer::detail
