// present_model.cpp: the display's own account (present_model.h).
#include "display/present_model.h"

#include "base/saturate.h"

#include <pacer/status.h>

#include <algorithm>
#include <cstdint>
#include <cmath>

namespace pacer::detail {

namespace {

constexpr double kBiasSlew = 0.02;   // delay bias: grid moved by at most 2 % of a period per frame
constexpr int64_t kMaxQueuedSteps = 4;   // display_lock's entry: frames a vsync queue may still hold
constexpr double kPi = 3.14159265358979323846;

}  // namespace

PresentModel::Report PresentModel::add(const Presented& report, double stated_hz, int64_t index,
                                       bool swap_follows_wait, double target_hz) {
    display_.add(report, stated_hz);
    judge(report, swap_follows_wait);
    Report out;
    out.frame_index = report.frame_index;
    out.previous_index = last_shown_index_;
    out.previous_ns = last_shown_ns_;
    if (report.discarded) {
        out.discarded = true;
        out.feedback_seen = feedback_seen_;
        return out;
    }
    if (report.displayed_ns < 0) {
        out.feedback_seen = feedback_seen_;
        return out;
    }
    feedback_seen_ = true;   // the host tells when frames were shown
    out.shown = true;
    out.feedback_seen = true;
    out.displayed_ns = report.displayed_ns;
    const int64_t fi = report.frame_index;
    if (fi >= 0 && fi < index && fi >= index - kFrameMemory) {
        const Wake& wake = wakes_[static_cast<size_t>(fi % kFrameMemory)];
        if (wake.index == fi && report.displayed_ns >= wake.wake_ns) {
            latency_ring_[static_cast<size_t>(latency_next_)] = {wake.wake_ns, wake.present_ns, report.displayed_ns};
            latency_next_ = (latency_next_ + 1) % kLatencyWindow;
            latency_count_ = std::min(latency_count_ + 1, kLatencyWindow);
        }
    }
    // Our frames in order: a report of an older frame than the newest shown
    // says nothing of what the display repeated. Counted on the locked fit,
    // or on a stated refresh the fit confirms, locked or not: the stated
    // refresh alone may lie (weston's says 60 Hz and shows frames every
    // 25 ms), and an unlocked fit of its own is no grid yet. A stated
    // refresh the fit confirms is the display's own (headless mutter's
    // timer): its grid is kept, and a frame painted late, which moves every
    // later refresh, counts as the time it took. Its dates may be too
    // jittery to lock (+-2 ms uniform is 7 % of a 60 Hz period, past the
    // lock's 5 %) and the count still holds (test_display_lock.cpp).
    if (fi > last_shown_index_) {
        const bool stated = display_.uses_stated();
        const double refresh_ns = display_.locked() || stated ? display_.period_ns() : 0.0;
        hitches_.add(report.displayed_ns, refresh_ns, due_refreshes(refresh_ns, target_hz), report.flags,
                     stated ? HitchCount::Grid::Fixed : HitchCount::Grid::Follow);
    }
    last_shown_index_ = fi;
    last_shown_ns_ = report.displayed_ns;
    return out;
}

void PresentModel::note_wake(int64_t index, int64_t wake_ns, int64_t present_ns, int64_t aim_ns,
                             int64_t vsync_shown_ns) {
    const int64_t lead = aim_ns >= 0 ? lead_ns() : 0;
    wakes_[static_cast<size_t>(index % kFrameMemory)] = {index, wake_ns, present_ns, aim_ns, lead, -1, vsync_shown_ns};
    newest_wake_ = index;
    if (aim_ns >= 0) last_aim_ns_ = aim_ns;
}

void PresentModel::note_swap(int64_t index, int64_t swap_ns) {
    if (index < 0) return;
    Wake& wake = wakes_[static_cast<size_t>(index % kFrameMemory)];
    if (wake.index != index || swap_ns < wake.wake_ns) return;
    wake.swap_ns = swap_ns;
    // The first display_lock frame's swap can still wait out the interval
    // before it (GLFW on weston: the vsync frame still queued; docs/design.md
    // has the figures): that says what the old interval did, not the work.
    // So a frame feeds the lead only where the one before it was aimed too;
    // otherwise that one swap would be the tail of the few frames known, and
    // put the lead past a step.
    const Wake* before = wake_of(index - 1);
    if (wake.aim_ns >= 0 && before != nullptr && before->aim_ns >= 0) lead_.add_work(swap_ns - wake.wake_ns);
}

// A display_lock frame's fate: shown at the refresh it aimed at, or not. The
// frame built after wait f is swapped after wake f, or f + 1 where the
// engine waits before its present; that wake's aim is the frame's.
void PresentModel::judge(const Presented& report, bool swap_follows_wait) {
    // A hostile index at the int64 limit names no frame of ours.
    if (report.frame_index == INT64_MAX) return;
    Wake* wake = wake_of(report.frame_index + (swap_follows_wait ? 1 : 0));
    if (wake == nullptr || wake->aim_ns < 0 || wake->judged || !(display_.period_ns() > 0)) return;
    if (!report.discarded && report.displayed_ns < 0) return;
    wake->judged = true;
    const int64_t late_ns = report.discarded ? DisplayLead::kDiscarded : report.displayed_ns - wake->aim_ns;
    const int64_t refresh_ns = std::llround(display_.period_ns());
    if (!report.discarded) early_.push(late_ns < -late_after_ns(refresh_ns) ? 1 : 0);
    const bool swapped = wake->swap_ns >= 0;
    lead_.judge(late_ns, refresh_ns, report.flags, wake->lead_ns,
                swapped ? wake->aim_ns - wake->swap_ns : DisplayLead::kUnknown,
                swapped ? wake->swap_ns - wake->wake_ns : DisplayLead::kUnknown);
}

void PresentModel::forget() {
    display_.reset();
    feedback_seen_ = false;
    latency_count_ = latency_next_ = 0;
    last_shown_index_ = last_shown_ns_ = -1;
}

// The refresh a frame's present is counted from: the one the swap before its
// wake returned in, where there was one, else the first after the wake. A
// blocking swap returns at a steady phase of a refresh (weston answers when
// it repaints, about 0.4 of a refresh after it), so a wake that runs late
// does not move the anchor; the return is rounded around that phase, since
// rounded to the nearest refresh a return a few ms late on a busy machine
// lands on the next one.
int64_t PresentModel::refresh_anchor(int64_t wake_ns, int64_t present_ns, int64_t return_phase_ns) const {
    return present_ns >= 0 ? display_.nearest_refresh(sat_sub(present_ns, return_phase_ns))
                           : display_.next_refresh(wake_ns);
}

// Where in its refresh a swap returns: the circular mean of the recent shown
// frames' returns (a phase either side of the half-refresh wraps instead of
// averaging to the middle).
int64_t PresentModel::swap_return_phase_ns() const {
    const double period = display_.period_ns();
    double sin_sum = 0, cos_sum = 0;
    for (int back = 1; back <= latency_count_; ++back) {
        const Shown& s = shown_back(back);
        if (s.present_ns < 0) continue;
        const double angle = 2 * kPi * static_cast<double>(s.present_ns - display_.nearest_refresh(s.present_ns)) / period;
        sin_sum += std::sin(angle);
        cos_sum += std::cos(angle);
    }
    if (sin_sum == 0 && cos_sum == 0) return 0;
    return std::llround(std::atan2(sin_sum, cos_sum) / (2 * kPi) * period);
}

// From the display's first estimate on, not only once it locks: the Pacer's
// fallbacks know nothing of a compositor's queue, which on weston holds a
// frame three refreshes (Pacer::display().locked says when the fit is trusted
// for decisions).
bool PresentModel::predict_present(const Frame& frame, int64_t* out) const {
    if (!(display_.period_ns() > 0) || latency_count_ < kLatencyMin) return false;
    // The frame's anchor refresh plus the number of refreshes recent frames
    // took from theirs to the screen: the newest two's where they agree (a
    // compositor queue that grew or shrank is followed within two reports),
    // else the most common (on a tie the newest), so one odd frame moves
    // nothing. Whole refreshes, not a time: where a wake falls within its
    // refresh then cannot round the prediction into a neighbour. Counted
    // with the current fit, so that reports from before the first estimate
    // count too.
    const double period = display_.period_ns();
    const int64_t phase = swap_return_phase_ns();
    std::array<int64_t, kLatencyWindow> refreshes{};
    for (int back = 1; back <= latency_count_; ++back) {
        const Shown& s = shown_back(back);
        refreshes[static_cast<size_t>(back - 1)] =
            std::llround(static_cast<double>(sat_sub(s.shown_ns, refresh_anchor(s.wake_ns, s.present_ns, phase))) / period);
    }
    int64_t best = refreshes[0];
    if (refreshes[0] != refreshes[1]) {
        int best_count = 0;
        const auto end = refreshes.begin() + latency_count_;
        for (int i = 0; i < latency_count_; ++i) {   // newest first: a tie keeps the newest
            const int64_t value = refreshes[static_cast<size_t>(i)];
            const int count = static_cast<int>(std::count(refreshes.begin(), end, value));
            if (count > best_count) best = value, best_count = count;
        }
    }
    *out = sat_add(refresh_anchor(frame.wake_ns, frame.present_ns, phase),
                   sat_from_double(std::round(static_cast<double>(best) * period)));
    return true;
}

void PresentModel::lock_grid(Grid& grid, int64_t t, int n, bool swap_follows_wait) {
    const double step = static_cast<double>(n) * display_.period_ns();
    const int64_t step_ns = std::llround(step);
    if (!locked_ || n != locked_n_) {   // a new lock, or a new n: what was learnt was for another step
        lead_.start(step_ns);
        lead_.set_budget(hitches_per_1000_ / kPerThousand * n);   // per refresh, a frame spanning n
        last_aim_ns_ = -1;
    }
    locked_ = true;
    locked_n_ = n;
    biased_ = false;
    const int64_t lead = lead_ns();
    // The next refresh n after the last one aimed at, unless that one left
    // no room since (a stall, or entering the lock): then the first that a
    // deadline after now can make, and not one a frame still queued from
    // vsync holds (weston's queue holds two: aimed at their refreshes, the
    // first frame was replaced and the next shown a refresh late).
    int64_t aim = last_aim_ns_ >= 0 ? display_.nearest_refresh(sat_add(last_aim_ns_, step_ns)) : -1;
    if (aim < 0 || sat_sub(aim, lead) < sat_sub(t, step_ns)) {
        aim = display_.next_refresh(sat_add(t, lead));
        const int64_t queued_ns = queued_shown_ns(swap_follows_wait);
        // A queue holds a few frames: a prediction further out is no queue's
        // (a report from a hostile host), and waiting for it would stall.
        if (queued_ns >= 0 && queued_ns <= sat_add(t, sat_mul(kMaxQueuedSteps, step_ns)))
            aim = std::max(aim, display_.nearest_refresh(sat_add(queued_ns, step_ns)));
    }
    grid.anchor_period(sat_sub(sat_sub(aim, lead), step_ns), step);
}

void PresentModel::bias_grid(Grid& grid, double target_hz, bool free_running) {
    const int64_t lead = lead_setting_ns_;   // a fixed lead, else no bias
    if (locked_) {   // leaving display_lock: back to the target's own period
        grid.anchor(grid.current(), target_hz);
        locked_ = false;
        last_aim_ns_ = -1;
    }
    const double unit = display_.period_ns();
    const double target = period_ns_of(target_hz);
    const long n = unit > 0 ? std::lround(target / unit) : 0;
    const bool wanted = lead >= 0 && free_running && display_.locked() && n >= 1 &&
                        std::fabs(static_cast<double>(n) * unit - target) <= kRateTolerance * target;
    if (!wanted) {
        if (biased_) grid.anchor(grid.current(), target_hz);   // back to the target's own period
        biased_ = false;
        return;
    }
    const double step = static_cast<double>(n) * unit;
    const int64_t next = sat_add(grid.current(), sat_from_double(std::round(step)));
    const int64_t error = sat_sub(next, sat_sub(display_.nearest_refresh(sat_add(next, lead)), lead));
    const int64_t slew = std::llround(kBiasSlew * step);
    grid.anchor_period(sat_sub(grid.current(), std::clamp<int64_t>(error, -slew, slew)), step);
    biased_ = true;
}

}  // namespace pacer::detail
