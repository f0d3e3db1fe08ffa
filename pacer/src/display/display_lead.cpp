// display_lead.cpp: display_lock's learned lead (display_lead.h).
#include "display/display_lead.h"

#include <algorithm>
#include <array>
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
    history_.clear();
    above_level_.clear();
    tail_ns_ = 0;
    since_tail_ = 0;
    over_room_run_ = 0;
    latch_ns_ = 0;
    landed_slack_.clear();
    error_.clear();
    update_pad();
    lead_ns_ = step_ns_ / 2;
    misses_in_a_row_ = 0;
}

void DisplayLead::set_budget(double miss_share) {
    // A share, not a time: above zero, so that a quantile of 1 - share exists.
    constexpr double kMinMissShare = 1.0 / (1 << 30);
    miss_share = std::clamp(miss_share, kMinMissShare, 1.0);
    if (miss_share == miss_share_) return;
    miss_share_ = miss_share;
    since_tail_ = kTailEvery;   // recomputed at the next frame
}

// Each frame reads the pad several times; it changes only with a landing.
void DisplayLead::update_pad() {
    pad_ns_ = error_.count() < kPadSamples ? kPadNs
                                           : std::clamp<int64_t>(2 * error_.quantile(0.95), kMinPadNs, kMaxPadNs);
}

// The work's tail at the budget: the budget's quantile of the window's work,
// or, where higher, its level now (the newest 64 frames' median) plus the
// budget's quantile of how far each frame lay above the level of its day,
// never past the most work the window saw. A level that drifts over minutes
// (a scene growing heavier) moves the tail with it, where the quantile of
// the work alone lagged the trend (1.35 to 1.68 repeats per 1,000 against a
// budget of 1 at 0.4 ms more work every 1,000 frames, test_hitch_budget.cpp);
// the cap keeps a step's transition, frames far above a level not yet caught
// up, from counting twice; the floor keeps short windows (under the
// sanitizers' 5,000 frames, 1.65 per 1,000 without it) from missing more
// than the quantile of the work alone did. The window starts over from the
// newest frames when their median falls below its lower quartile (the work
// calmed: a change of regime, not a spike).
// Every kTailEvery frames (each frame while the window is short): the
// quantiles of 2,048 values cost microseconds.
void DisplayLead::update_tail() {
    if (++since_tail_ < kTailEvery && history_.count() > kTailEvery) return;
    since_tail_ = 0;
    if (calmed()) {   // the tail is the new regime's, from here
        history_.clear();
        above_level_.clear();
    }
    const int64_t of_work = history_.quantile(1.0 - miss_share_);
    const int64_t followed = level() + above_level_.quantile(1.0 - miss_share_);
    tail_ns_ = std::max(of_work, std::min(followed, history_.quantile(1.0)));
}

// The work calmed: the newest 64 frames' median lies below the lower
// quartile of the 64 before them. A spike moves no median; a drop in the
// work's level moves it past the old spread within 33 frames.
bool DisplayLead::calmed() const {
    const int block = work_.count();
    if (!work_.full() || history_.count() < 2 * block) return false;
    std::array<int64_t, 64> before{};
    for (int i = 0; i < block; ++i) before[static_cast<std::size_t>(i)] = history_.newest(block + 1 + i);
    const std::size_t quartile = static_cast<std::size_t>(block / 4);
    std::nth_element(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(quartile), before.end());
    return work_.median_of_last(block) < before[quartile];
}

void DisplayLead::add_work(int64_t work_ns) {
    if (work_ns < 0) return;
    // Past the lead's reach (four steps) no lead could have covered the
    // frame: an outage (mutter stalls about 1 s every 6 s on the 2-core
    // VM, under every strategy), a miss the budget counts. Taken as work it
    // would hold the tail near a second for the tail's whole window, the lead
    // at its bound and every frame a refresh later.
    if (step_ns_ > 0 && work_ns > reach_ns()) {
        over_room_run_ = 0;
        return;
    }
    work_.push(work_ns);
    history_.push(work_ns);
    above_level_.push(work_ns - level());
    update_tail();
    // Two frames in a row slower than the lead has room for are known at
    // their swaps, two or three frames before the display can say they
    // missed: the next frames get the room at once, instead of missing in
    // the meantime. One alone is a spike, which the tail answers for.
    const bool over = latch_ns_ > 0 && work_ns + latch_ns_ + pad_ns() > lead_ns_;
    over_room_run_ = over ? over_room_run_ + 1 : 0;
    if (over_room_run_ >= 2) bound(std::max(lead_ns_, work_ns + latch_ns_ + pad_ns()));
}

void DisplayLead::judge(int64_t late_ns, int64_t refresh_ns, uint32_t flags, int64_t lead_ns, int64_t slack_ns,
                        int64_t work_ns) {
    ++judged_;
    const bool landed = late_ns != kDiscarded && !shown_late(late_ns, refresh_ns, flags);
    if (landed) {
        misses_in_a_row_ = 0;
        error_.push(late_ns < 0 ? -late_ns : late_ns);
        update_pad();
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
    // Shown further past its aim than the lead can reach: the display (or
    // its server: headless mutter's Xwayland stops for half a second every
    // few) was not showing frames, whatever their lead. An outage, as work
    // past that reach is: counted, learned from not.
    if (late_ns != kDiscarded && late_ns > reach_ns()) return;
    // A frame that missed with clearly more room (by kRoomNoiseNs, the
    // aimed refresh being a prediction) than one that landed lately did not
    // miss for the latch: the display moved (weston restarts its repaint
    // loop from a late commit, and the frames aimed at its old phase show
    // late whatever their room) or its report is noise. Counted, learned
    // from not: taking its room as the latch's bound would hold the lead
    // that much too long for good.
    if (slack_ns != kUnknown && landed_slack_.count() > 0 && slack_ns >= landed_slack_.min() + kRoomNoiseNs)
        return;
    // A miss its own work explains (slower than its lead had room for, by
    // the latch known before it) asks for that room and 1 ms, unless that
    // work lies past the tail: a miss the budget allows. One the work does
    // not explain says the latch is further than thought, and the extra
    // doubles while such misses go on.
    const bool explained = work_ns != kUnknown && work_ns + latch_ns_ > lead_ns;
    // Shown late, or discarded with less room than any recent landing had
    // (a display that keeps its cadence replaces a frame that missed its
    // refresh with the next; one swapped in time and replaced anyway had
    // room that others landed with): the latch is past its slack.
    const bool short_of_landings = landed_slack_.count() > 0 && slack_ns < landed_slack_.min();
    if (slack_ns != kUnknown && slack_ns >= 0 && (late_ns != kDiscarded || short_of_landings))
        latch_ns_ = std::max(latch_ns_, slack_ns + kLatchStepNs);
    // Placed before the lead last grew: that growth already answered it.
    if (lead_ns < lead_ns_) return;
    if (explained && work_ns > tail_ns_) return;
    const int64_t needed = work_ns != kUnknown ? work_ns + latch_ns_ + pad_ns() : 0;
    const int64_t extra = explained ? kGrowNs : kGrowNs << std::min(misses_in_a_row_, 20);
    if (!explained) ++misses_in_a_row_;
    bound(std::max({lead_ns_, needed, required_ns()}) + extra);
}

// Past one frame step, a frame is swapped before the one ahead of it has
// been shown unless its work outlasts the excess: with swap interval 0 it
// then replaces that one (a discarded frame, a hitch the lead made). So the
// lead stays within a step plus the least recent work, and four steps.
void DisplayLead::bound(int64_t wanted_ns) {
    int64_t most = reach_ns();
    if (work_.count() > 0) most = std::min(most, step_ns_ + work_.min());
    lead_ns_ = std::clamp<int64_t>(wanted_ns, 0, most);
}

}  // namespace pacer::detail
