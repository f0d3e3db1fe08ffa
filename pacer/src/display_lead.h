// display_lead.h: display_lock's lead, learned from what the display showed.
//
// A frame whose deadline falls `lead` before a refresh is shown at that
// refresh when the engine's work after the wake (wake to swap) and the
// compositor's latch (how long before a refresh a swap must come to make it)
// fit in the lead. Neither is known in advance, so both are learned:
//   - the work: a high quantile of the recent wake-to-swap times;
//   - the latch: bounded from below by the frames that missed (a swap s
//     before its refresh that missed says latch > s) and from above by those
//     that landed with less room than the bound (latch <= s). Only misses and
//     unusually slow frames tell it, so it is not probed for on purpose.
// The lead is work + latch + a pad. It lengthens at once when a frame misses
// (to what that frame would have needed) and shortens slowly while frames
// land, by 1 % of the frame step per frame, so a step in the work settles in
// within 2 s from 40 frames a second up. It stays within [0, one frame
// step]. Internal (pacer_internal); the PresentModel feeds it.
#pragma once

#include "recent.h"

#include <cstdint>

namespace pacer::detail {

class DisplayLead {
public:
    // Starts over for frames step_ns apart (n refreshes): the lead at half
    // the step, nothing known of work or latch.
    void start(int64_t step_ns);
    // A frame's wake-to-swap time.
    void add_work(int64_t work_ns);
    // A frame the display reported: shown at the refresh it aimed at or not
    // (later, or discarded). slack_ns: its aimed refresh less its swap;
    // work_ns: its wake to its swap; either kUnknown.
    void judge(bool landed, int64_t slack_ns, int64_t work_ns);

    static constexpr int64_t kUnknown = INT64_MIN;

    int64_t lead_ns() const { return lead_ns_; }
    int64_t latch_ns() const { return latch_ns_; }   // the latch's estimate, 0 until a miss
    int64_t judged() const { return judged_; }
    int64_t missed() const { return missed_; }

private:
    int64_t work_quantile_ns() const;
    int64_t required_ns() const { return work_quantile_ns() + latch_ns_ + kPadNs; }
    void bound(int64_t wanted_ns);

    static constexpr int64_t kPadNs = 500'000;   // on top of work and latch
    static constexpr double kWorkQuantile = 0.95;   // of the last 64: the 4th largest
    static constexpr double kShrinkShare = 0.01;   // of the step, per landed frame

    Recent<64> work_;        // recent wake-to-swap times: 1.1 s at 60 Hz, 1.6 s at 40
    int64_t step_ns_ = 0;
    int64_t lead_ns_ = 0;
    int64_t latch_ns_ = 0;   // the latch's lower bound from misses, lowered by landings
    int64_t judged_ = 0, missed_ = 0;
};

}  // namespace pacer::detail
