// display_lead.h: display_lock's lead, learned from the frames the display
// reports (just in time), within a hitch budget.
//
// A display_lock deadline sits a lead before the refresh it aims at, so the
// lead must fit the frame's work (wake to swap), the compositor's latch (how
// long before a refresh a swap must come to make it) and the error of the
// predicted refresh. None is known in advance, so each is learned:
//   - the work: its tail at the budget. A frame may miss its refresh, and the
//     display show the one before again (a hitch), for at most the budget's
//     share of frames (Config::display.hitches_per_1000, per refresh, times
//     the refreshes a frame spans): the lead covers the quantile 1 - that
//     share of the last kTailFrames frames' work (34 s at 60 Hz), or, where
//     higher, the work's level now (the newest 64 frames' median) plus that
//     quantile of how far each lay above the level of its day, at most the
//     most work those frames took. So a rare spike is either inside the tail
//     or a budgeted miss, never a reason to move, and work that drifts over
//     minutes moves the tail with it. A change of regime is told from a
//     spike by the median: when the newest 64 frames' median falls below the
//     lower quartile of the 64 before them, the window starts over (the work
//     calmed); a rise shows in the tail within a few frames, and two frames
//     in a row slower than the lead has room for lengthen it at once, at
//     their swap. Work past the lead's reach (four frame steps) is an
//     outage, a miss the budget counts; it teaches nothing.
//   - the latch: bounded from below by the frames shown late (a swap s before
//     its refresh that missed it says latch > s) and from above by those that
//     landed with less room (latch <= s, taken an eighth at a time, for
//     the aimed refresh is a prediction). It may exceed a refresh: weston's
//     headless output reports a frame 16 ms after the repaint that took it.
//     A miss with more room than a recent landing is not the latch's (the
//     display moved, or reported noise), nor is one shown past the lead's
//     reach (the display stopped): counted, not learned from.
//   - the pad: twice the 95th percentile of how far from their predicted
//     refresh the last 64 landed frames were shown (the prediction's error,
//     which the latch's bound, measured against predictions, carries too),
//     at least kMinPadNs, and the prior, kPadNs, until 16 are known: 0.2 ms
//     on a display that keeps exact time.
// Late is pacer::shown_late (pacer/status.h): at a later refresh than the
// aim, past a quarter refresh on the display's own clock, past half on a
// software one. So only real misses teach the lead: a report dated a few ms
// late by a compositor's clock is a landing.
// The lead is tail + latch + pad. A miss its work explains, by work within
// the tail, lengthens it at once to what that frame would have needed, plus
// 1 ms; one past the tail is the budget's and moves nothing; one the work
// does not explain doubles the 1 ms with each further such miss (an
// exponential search for a latch far past the first guess). Frames placed
// before the last lengthening add nothing. Landed frames shorten it by 1 % of
// the frame step each, down to tail + latch + pad, so a step in the work
// settles within 2 s from 40 frames a second up. The lead stays within
// [0, four frame steps] and at most a step plus the least recent work: past
// one step each frame aims a refresh further than its wake's next, and a
// frame swapped before the one ahead of it is shown would replace it.
// Internal (pacer_internal); the PresentModel feeds it.
#pragma once

#include "base/recent.h"

#include <pacer/pacer.h>
#include <pacer/status.h>
#include <pacer/units.h>

#include <cstdint>

namespace pacer::detail {

class DisplayLead {
public:
    // For frames step_ns apart (n refreshes). A new step (1 % or more off
    // the last) starts over: the lead at half the step, nothing known of work
    // or latch; the same step, a relock, keeps what was learned.
    void start(int64_t step_ns);
    // The share of frames that may miss their refresh for want of lead
    // (hitches per refresh times refreshes per frame), in (0, 1].
    void set_budget(double miss_share);
    // A frame's wake-to-swap time, at its swap; lengthens the lead where
    // the frame needed more room than it had.
    void add_work(int64_t work_ns);
    // A frame the display reported, placed lead_ns before the refresh it
    // aimed at. late_ns: shown minus that refresh, or kDiscarded (never
    // shown); refresh_ns: the display's period; slack_ns: the aimed refresh
    // less the frame's swap; work_ns: its wake to its swap; either kUnknown.
    // flags: the report's (kPresented*), which say who dated it.
    void judge(int64_t late_ns, int64_t refresh_ns, uint32_t flags, int64_t lead_ns, int64_t slack_ns, int64_t work_ns);

    // On top of work and latch, until learned: the aimed refresh is a
    // prediction, within 1 ms of the real one for 95 % of weston's frames
    // (docs/wayland.md).
    static constexpr int64_t kPadNs = 1'500'000;
    static constexpr int64_t kMinPadNs = 200'000;
    static constexpr int64_t kUnknown = INT64_MIN;
    static constexpr int64_t kDiscarded = INT64_MAX;

    int64_t lead_ns() const { return lead_ns_; }
    int64_t latch_ns() const { return latch_ns_; }   // the latch's lower bound, 0 until a miss
    int64_t tail_ns() const { return tail_ns_; }     // the work's tail at the budget
    int64_t pad_ns() const { return pad_ns_; }       // the predicted refresh's error, learned
    int64_t judged() const { return judged_; }
    int64_t missed() const { return missed_; }

    // The lead's bound, in frame steps: work or a shown interval past it is
    // an outage (the display, or its server, stopped), not a strategy's
    // doing. Auto's shown-rate judge leaves such intervals out too.
    static constexpr int kMaxSteps = 4;

private:
    int64_t required_ns() const { return tail_ns_ + latch_ns_ + pad_ns(); }
    int64_t reach_ns() const { return kMaxSteps * step_ns_; }   // the most lead there can be
    void bound(int64_t wanted_ns);
    void update_tail();
    void update_pad();
    bool calmed() const;
    int64_t level() const { return work_.median_of_last(work_.count()); }   // the newest 64's median

    static constexpr int kTailFrames = 2048;       // the work's window for its tail
    static constexpr int kTailEvery = 16;          // frames between recomputations of the tail
    static constexpr int kPadSamples = 16;         // landings before the pad is learned
    static constexpr int64_t kMaxPadNs = 4'000'000;
    static constexpr double kShrinkShare = 0.01;   // of the step, per landed frame
    static constexpr int64_t kGrowNs = kNsPerMs;  // a miss's extra, doubling while misses run
    static constexpr double kSameStep = 0.01;      // a step this close to the last keeps the learning
    static constexpr int64_t kLowerShare = 8;      // a landing lowers the latch's bound 1/8 of the way
    static constexpr int64_t kRoomNoiseNs = kNsPerMs;   // more room than a landing by this: not the latch

    Recent<64> work_;                  // the newest wake-to-swap times: the regime, the level
    Recent<kTailFrames> history_;      // ... over the tail's window
    Recent<kTailFrames> above_level_;  // ... each less the level when it came
    Recent<64> landed_slack_;      // the room (aimed refresh less swap) of recent frames that landed
    Recent<64> error_;             // how far from its predicted refresh each landed frame was shown
    double miss_share_ = 0.001;
    int64_t step_ns_ = 0;
    int64_t lead_ns_ = 0;
    int64_t tail_ns_ = 0;
    int64_t latch_ns_ = 0;   // the latch's lower bound from misses, lowered by landings
    int64_t pad_ns_ = kPadNs;
    int64_t judged_ = 0, missed_ = 0;
    int misses_in_a_row_ = 0;
    int since_tail_ = 0;     // frames since the tail was computed
    int over_room_run_ = 0;  // frames in a row slower than the lead had room for
};

}  // namespace pacer::detail
