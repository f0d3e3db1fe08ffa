// display_lead.cpp: display_lock's learned lead (display_lead.h).
#include "display/display_lead.h"

#include <algorithm>
#include <cmath>

namespace pacer::detail {

namespace {

constexpr int64_t kLatchStepNs = 100'000;   // a miss puts the latch this far past its slack

}  // namespace

void DisplayLead::start(int64_t step_ns) {
    step_ns = std::max<int64_t>(step_ns, 0);
    const bool same = step_ns_ > 0 && std::llabs(step_ns - step_ns_) <= kSameStep * static_cast<double>(step_ns_);
    step_ns_ = step_ns;
    if (same) return;
    work_.clear();
    latch_ns_ = 0;
    landed_slack_.clear();
    lead_ns_ = step_ns_ / 2;
    misses_in_a_row_ = 0;
}

void DisplayLead::add_work(int64_t work_ns) {
    if (work_ns < 0) return;
    work_.push(work_ns);
    // A frame slower than the lead has room for is known at its swap, two or
    // three frames before the display can say it missed: the next frames get
    // its room at once, instead of missing in the meantime.
    if (latch_ns_ > 0) bound(std::max(lead_ns_, work_ns + latch_ns_ + kPadNs));
}

int64_t DisplayLead::work_quantile_ns() const { return work_.quantile(kWorkQuantile); }

void DisplayLead::judge(int64_t late_ns, int64_t refresh_ns, int64_t lead_ns, int64_t slack_ns, int64_t work_ns) {
    ++judged_;
    const bool landed = late_ns != kDiscarded && !late(late_ns, refresh_ns);
    if (landed) {
        misses_in_a_row_ = 0;
        // Landed with less room than the bound: the latch is no longer than
        // that. An eighth of the way there per frame: the slack is measured
        // against a predicted refresh, whose error (about half a millisecond
        // under weston) would otherwise lower the bound to its noise, and
        // each lowering cost a miss to learn back.
        if (slack_ns != kUnknown && slack_ns >= 0 && slack_ns < latch_ns_)
            latch_ns_ -= (latch_ns_ - slack_ns + kLowerShare - 1) / kLowerShare;
        if (slack_ns != kUnknown) landed_slack_.push(slack_ns);
        const int64_t shrink = std::llround(kShrinkShare * static_cast<double>(step_ns_));
        bound(std::max(required_ns(), lead_ns_ - shrink));
        return;
    }
    ++missed_;
    // A frame that missed with clearly more room (by kRoomNoiseNs, the
    // aimed refresh being a prediction) than one that landed lately did not
    // miss for the latch: the display moved (weston restarts its repaint
    // loop from a late commit, and the frames aimed at its old phase show
    // late whatever their room) or its report is noise. Counted, learned
    // from not: taking its room as the latch's bound would hold the lead
    // that much too long for good.
    if (slack_ns != kUnknown && landed_slack_.count() > 0 && slack_ns >= landed_slack_.quantile(0) + kRoomNoiseNs)
        return;
    // A miss its own work explains (slower than its lead had room for, by
    // the latch known before it) asks for that room and 1 ms; one it does
    // not says the latch is further than thought, and the extra doubles
    // while such misses go on.
    const bool explained = work_ns != kUnknown && work_ns + latch_ns_ > lead_ns;
    // Shown late (not merely discarded, which a frame swapped in time but
    // replaced by the next says nothing of): the latch is past its slack.
    if (late_ns != kDiscarded && slack_ns != kUnknown && slack_ns >= 0)
        latch_ns_ = std::max(latch_ns_, slack_ns + kLatchStepNs);
    // Placed before the lead last grew: that growth already answered it.
    if (lead_ns < lead_ns_) return;
    const int64_t needed = work_ns != kUnknown ? work_ns + latch_ns_ + kPadNs : 0;
    const int64_t extra = explained ? kGrowNs : kGrowNs << std::min(misses_in_a_row_, 20);
    if (!explained) ++misses_in_a_row_;
    bound(std::max({lead_ns_, needed, required_ns()}) + extra);
}

void DisplayLead::bound(int64_t wanted_ns) { lead_ns_ = std::clamp<int64_t>(wanted_ns, 0, kMaxSteps * step_ns_); }

}  // namespace pacer::detail
