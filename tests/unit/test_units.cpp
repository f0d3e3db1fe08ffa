// test_units.cpp: the library's internal units on their own, without a
// Pacer or a Waiter: the contention signs, the timer's margin estimator, the
// ring the vsync watch judges by, and the present model's delay bias.
#include "rules/common.h"
#include "wait/contention.h"
#include "display/display_lead.h"
#include "fakes.h"
#include "base/grid.h"
#include "display/present_model.h"
#include "base/recent.h"
#include "wait/timer_margin.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using namespace pacer;
using pacer::detail::Contention;
using pacer::detail::DisplayLead;
using pacer::detail::Grid;
using pacer::detail::PresentModel;
using pacer::detail::Recent;
using pacer::detail::TimerMargin;

namespace {

constexpr int64_t kFrameNs = 16'666'667;
constexpr int64_t kSignNs = 500 * kNsPerUs;   // Tuning::Timer::contention_wait_ns's default

// A reading at each of `frames` deadlines from `first_ns`, each with a sign
// (more runnable threads than CPUs) or none.
int64_t read_frames(Contention& c, int64_t first_ns, int frames, bool sign) {
    int64_t deadline = first_ns;
    for (int i = 0; i < frames; ++i, deadline += kFrameNs) {
        EXPECT_TRUE(c.read_due());
        c.update(sign ? 3 : 1, 2, -1, deadline, kSignNs);
    }
    return deadline;
}

}  // namespace

TEST(ContentionUnit, StartsOnlyAfterSignsForTheOnsetAndEndsAfterTheCalm) {
    Contention c;
    // 40 ms of signs at 60 Hz: the third reading is 33 ms after the first,
    // the fourth 50 ms.
    int64_t next = read_frames(c, kFrameNs, 3, true);
    EXPECT_FALSE(c.contended());
    next = read_frames(c, next, 1, true);
    EXPECT_TRUE(c.contended());
    // Contended: the signs are read at one wait in four.
    EXPECT_FALSE(c.read_due());
    EXPECT_FALSE(c.read_due());
    EXPECT_FALSE(c.read_due());
    EXPECT_TRUE(c.read_due());
    c.update(1, 2, -1, next, kSignNs);   // calm reading; 100 ms have not passed
    EXPECT_TRUE(c.contended());
    next += 7 * kFrameNs;                // 133 ms after the last sign
    EXPECT_FALSE(c.read_due());
    EXPECT_FALSE(c.read_due());
    EXPECT_FALSE(c.read_due());
    EXPECT_TRUE(c.read_due());
    c.update(1, 2, -1, next, kSignNs);
    EXPECT_FALSE(c.contended());
}

TEST(ContentionUnit, RunQueueWaitIsASignAndIsReportedPerFrame) {
    Contention c;
    ASSERT_TRUE(c.read_due());
    c.update(-1, 0, 1 * kNsPerMs, kFrameNs, kSignNs);
    EXPECT_EQ(c.runqueue_wait_ns(), -1);   // no reading before it
    ASSERT_TRUE(c.read_due());
    c.update(-1, 0, 1 * kNsPerMs + 600 * kNsPerUs, 2 * kFrameNs, kSignNs);
    EXPECT_EQ(c.runqueue_wait_ns(), 600 * kNsPerUs);
    ASSERT_TRUE(c.read_due());
    c.update(-1, 0, 3 * kNsPerMs, 3 * kFrameNs, kSignNs);
    ASSERT_TRUE(c.read_due());
    c.update(-1, 0, 4 * kNsPerMs, 4 * kFrameNs, kSignNs);
    EXPECT_FALSE(c.contended());   // signs for 33 ms
    ASSERT_TRUE(c.read_due());
    c.update(-1, 0, 5 * kNsPerMs, 5 * kFrameNs, kSignNs);
    EXPECT_TRUE(c.contended());    // a sign at every reading for 50 ms
}

TEST(TimerMarginUnit, FollowsTheQuantileWithHeadroomAndPad) {
    Tuning::Timer tuning;
    tuning.max_wait_cpu_ns = 1'000'000'000;   // the estimator alone: no budget cut
    tuning.max_wait_cpu_pct = 100;
    TimerMargin margin(tuning);
    EXPECT_EQ(margin.in_force(kFrameNs, false), tuning.margin_ns);   // the starting margin
    for (int i = 0; i < 100; ++i) margin.record_wake(i == 50 ? 300 * kNsPerUs : 20 * kNsPerUs, -1);
    // 0.998 of 100 wakes: the largest, 300 us; 1.1 * 300 + 5 us.
    EXPECT_EQ(margin.in_force(kFrameNs, false), 335 * kNsPerUs);
    EXPECT_EQ(margin.in_force(kFrameNs, true), 0);   // contended: no spin at all
}

TEST(TimerMarginUnit, TheRunQueueWaitIsTakenOutOfTheLastWake) {
    Tuning::Timer tuning;
    tuning.max_wait_cpu_ns = 1'000'000'000;
    tuning.max_wait_cpu_pct = 100;
    tuning.margin_window = 1;
    TimerMargin margin(tuning);
    margin.record_wake(400 * kNsPerUs, 10 * kNsPerMs);
    EXPECT_EQ(margin.in_force(kFrameNs, false), 445 * kNsPerUs);
    margin.correct_last_wake(10 * kNsPerMs + 300 * kNsPerUs);   // 300 us of it waited for a CPU
    EXPECT_EQ(margin.in_force(kFrameNs, false), 115 * kNsPerUs);
}

TEST(TimerMarginUnit, TheBudgetCutsTheMarginAndAChangedBudgetKeepsTheWindow) {
    Tuning::Timer tuning;
    tuning.max_wait_cpu_ns = 100 * kNsPerUs;
    TimerMargin margin(tuning);
    for (int i = 0; i < 40; ++i) margin.record_wake(i % 2 == 0 ? 0 : 300 * kNsPerUs, -1);
    // Half the wakes would spin all of 335 us: 200 us averages the 100 us budget.
    EXPECT_EQ(margin.in_force(kFrameNs, false), 200 * kNsPerUs);
    tuning.max_wait_cpu_ns = 1'000'000'000;
    tuning.max_wait_cpu_pct = 100;
    margin.configure(tuning);   // only the budget changed: nothing to relearn
    EXPECT_EQ(margin.in_force(kFrameNs, false), 335 * kNsPerUs);
    tuning.margin_pad_ns = 0;
    margin.configure(tuning);   // the estimator's own setting: it starts over
    EXPECT_EQ(margin.in_force(kFrameNs, false), tuning.margin_ns);
}

TEST(RecentUnit, MediansAndCountsOverTheNewestValues) {
    Recent<4> recent;
    EXPECT_EQ(recent.median_where([](int64_t) { return true; }), 0);
    for (int64_t v : {10, 20, 30, 40, 50}) recent.push(v);   // 10 has left
    EXPECT_TRUE(recent.full());
    EXPECT_EQ(recent.count(), 4);
    EXPECT_EQ(recent.sum(), 140);
    EXPECT_EQ(recent.median_of_last(2), 50);   // upper median of {40, 50}
    EXPECT_EQ(recent.median_of_last(3), 40);
    EXPECT_EQ(recent.count_where([](int64_t v) { return v > 25; }), 3);
    EXPECT_EQ(recent.median_where([](int64_t v) { return v < 45; }), 30);
    recent.clear();
    EXPECT_EQ(recent.count(), 0);
}

// The delay bias slides the grid, at most 2 % of a period a frame, until a
// deadline falls the lead before a refresh of the fitted display clock.
TEST(PresentModelUnit, TheDelayBiasPutsDeadlinesTheLeadBeforeARefresh) {
    PresentModel present;
    const int64_t refresh_ns = 16'000'000;   // a 62.5 Hz display, phase 3 ms
    for (int64_t k = 1; k <= 40; ++k) {
        Presented report;
        report.frame_index = k;
        report.displayed_ns = 3 * kNsPerMs + k * refresh_ns;
        present.add(report, 0, k + 1, false, 60);
    }
    ASSERT_TRUE(present.display().locked());
    Grid grid;
    grid.anchor(0, 62.5);
    const int64_t lead_ns = 2 * kNsPerMs;
    Config::Display display;
    display.lead_ns = lead_ns;
    present.configure(display);
    for (int frame = 0; frame < 200; ++frame) {
        present.bias_grid(grid, 62.5, /*free_running=*/true);
        grid.advance(1);
    }
    const int64_t deadline = grid.current();
    const int64_t to_refresh = present.display().next_refresh(deadline) - deadline;
    EXPECT_NEAR(static_cast<double>(to_refresh), static_cast<double>(lead_ns), 1000.0);
    // Not free running (vsync paces): the grid goes back to the target's period.
    present.bias_grid(grid, 62.5, /*free_running=*/false);
    EXPECT_EQ(grid.period_ns(), refresh_ns);
}

// display_lock's learned lead (display_lead.h), frame by frame.
TEST(DisplayLeadUnit, ShownAFractionOfARefreshLateIsAMissAndLengthensTheLeadOnce) {
    constexpr int64_t refresh = 25 * kNsPerMs;
    DisplayLead lead;
    lead.start(refresh);
    ASSERT_EQ(lead.lead_ns(), refresh / 2);
    for (int i = 0; i < 64; ++i) lead.add_work(10 * kNsPerMs);
    // A display that waits for a late frame (weston) shows it 10 ms late,
    // not a refresh late: still a miss. Its swap came 2.5 ms before the aimed
    // refresh, so the latch is longer than that.
    const int64_t placed = lead.lead_ns();
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, placed, 2'500 * kNsPerUs, 10 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 1);
    EXPECT_EQ(lead.latch_ns(), 2'600 * kNsPerUs);
    // 10 ms of work + the latch's bound + 0.5 ms pad, + 1 ms for the miss.
    EXPECT_EQ(lead.lead_ns(), 10 * kNsPerMs + 2'600 * kNsPerUs + DisplayLead::kPadNs + 1 * kNsPerMs);
    // A frame placed before that lengthening misses too: counted, not grown on.
    const int64_t grown = lead.lead_ns();
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, placed, 2'500 * kNsPerUs, 10 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 2);
    EXPECT_EQ(lead.lead_ns(), grown);
    // A miss at the lengthened lead doubles the extra: the latch is further.
    lead.judge(9 * kNsPerMs, refresh, kPresentedHwClock, grown, grown - 10 * kNsPerMs, 10 * kNsPerMs);
    EXPECT_EQ(lead.latch_ns(), grown - 10 * kNsPerMs + 100 * kNsPerUs);
    EXPECT_EQ(lead.lead_ns(), 10 * kNsPerMs + lead.latch_ns() + DisplayLead::kPadNs + 2 * kNsPerMs);
    // Within a quarter refresh of the aim is landed (the prediction's noise).
    const int64_t before = lead.missed();
    lead.judge(refresh / 4, refresh, kPresentedHwClock, lead.lead_ns(), lead.lead_ns() - 10 * kNsPerMs, 10 * kNsPerMs);
    EXPECT_EQ(lead.missed(), before);
}

TEST(DisplayLeadUnit, AFrameShownPastTheLeadsReachIsAnOutageNotALatch) {
    DisplayLead lead;
    lead.start(kFrameNs);
    for (int i = 0; i < 64; ++i) lead.add_work(2 * kNsPerMs);
    const int64_t placed = lead.lead_ns();
    // Swapped 5 ms before its refresh, shown 33 refreshes later: the server
    // stopped (headless mutter's Xwayland for half a second), whatever the lead.
    lead.judge(33 * kFrameNs, kFrameNs, 0, placed, 5 * kNsPerMs, 2 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 1);
    EXPECT_EQ(lead.latch_ns(), 0);
    EXPECT_EQ(lead.lead_ns(), placed);
    // One refresh late with the same room is the latch's.
    lead.judge(kFrameNs, kFrameNs, 0, placed, 5 * kNsPerMs, 2 * kNsPerMs);
    EXPECT_GT(lead.latch_ns(), 5 * kNsPerMs);
    EXPECT_GT(lead.lead_ns(), placed);
}

TEST(DisplayLeadUnit, LandedFramesShortenItToWorkPlusLatchPlusPadAndARelockKeepsIt) {
    constexpr int64_t refresh = 20 * kNsPerMs;
    DisplayLead lead;
    lead.start(refresh);
    for (int i = 0; i < 64; ++i) lead.add_work(4 * kNsPerMs);
    const int64_t first = lead.lead_ns();
    lead.judge(1 * kNsPerMs, refresh, kPresentedHwClock, first, first - 4 * kNsPerMs, 4 * kNsPerMs);   // landed
    EXPECT_EQ(lead.lead_ns(), first - refresh / 100);                  // 1 % of the step
    for (int i = 0; i < 200; ++i) lead.judge(0, refresh, kPresentedHwClock, lead.lead_ns(), lead.lead_ns() - 4 * kNsPerMs, 4 * kNsPerMs);
    // No latch seen: work + pad, the pad learned from 200 frames shown just
    // on their predicted refresh (its floor).
    EXPECT_EQ(lead.pad_ns(), DisplayLead::kMinPadNs);
    EXPECT_EQ(lead.lead_ns(), 4 * kNsPerMs + DisplayLead::kMinPadNs);
    EXPECT_EQ(lead.missed(), 0);
    // A relock at the same step keeps what was learned; a new step starts over.
    lead.start(refresh + refresh / 200);
    EXPECT_EQ(lead.lead_ns(), 4 * kNsPerMs + DisplayLead::kMinPadNs);
    lead.start(2 * refresh);
    EXPECT_EQ(lead.lead_ns(), refresh);
    // A discarded frame says it missed, not by how much: no latch from it.
    lead.judge(DisplayLead::kDiscarded, refresh, kPresentedHwClock, lead.lead_ns(), 5 * kNsPerMs, 4 * kNsPerMs);
    EXPECT_EQ(lead.latch_ns(), 0);
    EXPECT_EQ(lead.missed(), 1);
}

// Stalls of about a second (mutter's on the 2-core VM: every 6 s, under
// every strategy) are past any lead: they neither move the work's tail nor
// push the lead to its bound. Taken as work, three of them in the tail's
// window held the tail at 950 ms and every frame a refresh later.
TEST(DisplayLeadUnit, AnOutagePastTheLeadsReachTeachesNothing) {
    constexpr int64_t refresh = 16'666'667;
    DisplayLead lead;
    lead.start(refresh);
    for (int i = 0; i < 2000; ++i) {
        const bool stall = i % 360 == 359;
        const int64_t work = stall ? 950 * kNsPerMs : (i % 360 == 0 && i > 0 ? 166 * kNsPerMs : 6 * kNsPerMs);
        lead.add_work(work);
        const int64_t aimed = lead.lead_ns();
        if (stall || (i % 360 == 0 && i > 0))
            lead.judge(DisplayLead::kDiscarded, refresh, kPresentedHwClock, aimed, aimed - work, work);   // missed
        else
            lead.judge(0, refresh, kPresentedHwClock, aimed, aimed - work, work);   // landed
    }
    EXPECT_LE(lead.tail_ns(), 6 * kNsPerMs);
    EXPECT_LT(lead.lead_ns(), refresh / 2);
}

namespace {

// A lead for 25 ms frames of 10 ms work, settled after one frame shown
// 10 ms late with latch_past_ns of room (the latch is past that) and 100
// landings.
DisplayLead settled_lead(int64_t latch_past_ns) {
    constexpr int64_t refresh = 25 * kNsPerMs;
    DisplayLead lead;
    lead.start(refresh);
    for (int i = 0; i < 64; ++i) lead.add_work(10 * kNsPerMs);
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, lead.lead_ns(), latch_past_ns, 10 * kNsPerMs);
    for (int i = 0; i < 100; ++i) lead.judge(0, refresh, kPresentedHwClock, lead.lead_ns(), lead.lead_ns() - 10 * kNsPerMs, 10 * kNsPerMs);
    return lead;
}

}  // namespace

TEST(DisplayLeadUnit, TwoSlowFramesLengthenItAtTheirSwapsAndASpikePastTheTailDoesNot) {
    constexpr int64_t refresh = 25 * kNsPerMs;
    DisplayLead lead = settled_lead(8 * kNsPerMs);
    ASSERT_EQ(lead.latch_ns(), 8'100 * kNsPerUs);
    const int64_t before = lead.lead_ns();
    const int64_t pad = lead.pad_ns();   // learned from 100 frames shown on their refresh
    ASSERT_EQ(pad, DisplayLead::kMinPadNs);
    ASSERT_EQ(before, 10 * kNsPerMs + 8'100 * kNsPerUs + pad);
    // A 14 ms frame alone is a spike, which the tail answers for; a second in
    // a row, known at its swap, is a change: the next frames get its room.
    lead.add_work(14 * kNsPerMs);
    EXPECT_EQ(lead.lead_ns(), before);
    lead.add_work(14 * kNsPerMs);
    EXPECT_EQ(lead.lead_ns(), 14 * kNsPerMs + 8'100 * kNsPerUs + pad);
    // A frame placed before that lengthening, missing: counted, nothing more.
    const int64_t now = lead.lead_ns();
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, before, 0, 13 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 2);
    EXPECT_EQ(lead.lead_ns(), now);
    // A lone frame far past the work's tail (24 ms where the frames take
    // 10-14 ms) that misses is a miss the budget allows: counted, and the
    // lead stays (the miss its own work explains within the tail, + 1 ms,
    // is ShownAFractionOfARefreshLate's).
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, now, now - 24 * kNsPerMs, 24 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 3);
    EXPECT_EQ(lead.lead_ns(), now);
}

TEST(DisplayLeadUnit, AMissWithMoreRoomThanALandingIsNotTheLatch) {
    constexpr int64_t refresh = 25 * kNsPerMs;
    DisplayLead lead = settled_lead(16 * kNsPerMs);
    const int64_t settled = lead.lead_ns();
    ASSERT_EQ(settled, 10 * kNsPerMs + 16'100 * kNsPerUs + lead.pad_ns());
    // Shown 10 ms late with 24 ms of room, where frames with 17.6 ms landed:
    // the display moved (weston's loop restarted); counted, not learned from.
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, settled, 24 * kNsPerMs, 10 * kNsPerMs);
    EXPECT_EQ(lead.missed(), 2);
    EXPECT_EQ(lead.latch_ns(), 16'100 * kNsPerUs);
    EXPECT_EQ(lead.lead_ns(), settled);
    // Within a millisecond of a landing's room: the latch's, learned.
    lead.judge(10 * kNsPerMs, refresh, kPresentedHwClock, settled, 17 * kNsPerMs, 10 * kNsPerMs);
    EXPECT_EQ(lead.latch_ns(), 17'100 * kNsPerUs);
    EXPECT_GT(lead.lead_ns(), settled);
}

TEST(ArbiterRules, DecisionSeqStartsOverAtOnePastInt32Max) {
    using pacer::detail::rules::next_decision_seq;
    EXPECT_EQ(next_decision_seq(0), 1);
    EXPECT_EQ(next_decision_seq(41), 42);
    EXPECT_EQ(next_decision_seq(std::numeric_limits<int32_t>::max()), 1) << "a change, never 0, no overflow";
}
