// test_display.cpp: the display clock fitted from present reports, and what
// the pacer builds on it: auto's trust in vsync, dt and predicted presents
// from the display, the delay bias. A fake compositor shows frames on a
// refresh clock of its own (fakes.h), under a fake clock.
#include "display/clock_fit.h"
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeCompositor;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;
using pacer::testing::contains;
using pacer::testing::kPeriod60_ns;
using pacer::testing::kPeriod144_ns;
using pacer::testing::kWeston_ns;

namespace {

constexpr double k5994 = period_ns_of(60 / 1.001);   // 16.683 ms

// ---- the model alone -------------------------------------------------------

// Reports of refreshes 0, 1, 2 ... of a display at period_ns, each shown
// frame `every` refreshes after the last, with a scripted noise source.
struct Feed {
    double period_ns;
    double phase_ns = kNsPerSecond;
    int64_t stated_ns = 16'666'667;   // Presented::refresh_ns
    uint64_t state = 99;
    double uniform() {   // [0, 1)
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0;
    }
    double refresh(int64_t k) const { return phase_ns + static_cast<double>(k) * period_ns; }
    Presented at(int64_t k, int64_t jitter_ns, bool seq) {
        Presented p;
        p.displayed_ns = std::llround(refresh(k) + (2 * uniform() - 1) * static_cast<double>(jitter_ns));
        p.seq = seq ? static_cast<uint64_t>(k + 1) : 0;
        p.refresh_ns = stated_ns;
        return p;
    }
};

TEST(ClockFit, ConvergesUnderJitterDiscardsAndOutliers) {
    for (bool seq : {true, false}) {
        detail::ClockFit model;
        Feed feed{k5994};
        // States none: dated in software, a stated 60 Hz within 5 % of the
        // fit would be taken (SoftwareDatedReportsTakeTheRefreshTheyState).
        feed.stated_ns = 0;
        int64_t k = 0;
        for (int i = 0; i < 400; ++i) {
            // Frames every refresh, one in five two refreshes apart (a miss),
            // one in ten discarded, one in 25 reported 3 ms late.
            k += i % 5 == 4 ? 2 : 1;
            if (i % 10 == 3) {
                Presented gone;
                gone.discarded = true;
                model.add(gone, 60);
            }
            Presented p = feed.at(k, 300 * kNsPerUs, seq);
            if (i % 25 == 7) p.displayed_ns += 3 * kNsPerMs;
            model.add(p, 60);
        }
        const DisplayClock c = model.clock();
        EXPECT_TRUE(c.locked) << seq;
        EXPECT_NEAR(static_cast<double>(c.period_ns), k5994, k5994 * 0.0005) << seq;   // 0.05 %
        EXPECT_NEAR(c.stated_hz, 60, 0.001);
        EXPECT_LT(c.residual_ns, 250 * kNsPerUs);
        EXPECT_GE(c.samples, 48);
        // The phase: the next true refreshes are predicted within 200 us.
        for (int64_t ahead = 1; ahead <= 4; ++ahead) {
            const double truth = feed.refresh(k + ahead);
            EXPECT_NEAR(static_cast<double>(model.nearest_refresh(std::llround(truth + 0.3 * k5994))), truth,
                        200 * kNsPerUs);
            EXPECT_NEAR(static_cast<double>(model.next_refresh(std::llround(truth - 0.3 * k5994))), truth,
                        200 * kNsPerUs);
        }
    }
}

TEST(ClockFit, TheStatedRefreshDoesNotFoolIt) {
    // weston headless: states 60 Hz, repaints every 25.2 ms; no seq.
    detail::ClockFit model;
    Feed feed{kWeston_ns};
    for (int64_t k = 1; k <= 40; ++k) model.add(feed.at(k, 100 * kNsPerUs, false), 60);
    EXPECT_TRUE(model.locked());
    EXPECT_NEAR(model.period_ns(), kWeston_ns, kWeston_ns * 0.001);
    EXPECT_NEAR(model.clock().stated_hz, 60, 0.001);
}

TEST(ClockFit, EveryOtherRefreshWithoutSeqIsSplitByTheStatedRefresh) {
    // Vsync at interval 2 on 120 Hz: frames 16.7 ms apart, the display's
    // period is 8.3 ms. Without a counter the times alone cannot tell; the
    // stated refresh, a whole divisor, can.
    detail::ClockFit model;
    Feed feed{period_ns_of(120)};
    feed.stated_ns = 8'333'333;
    for (int64_t k = 2; k <= 80; k += 2) model.add(feed.at(k, 50 * kNsPerUs, false), 120);
    EXPECT_NEAR(model.period_ns(), period_ns_of(120), period_ns_of(120) * 0.001);
    // A stated rate that is no divisor is ignored (weston's 60 against 25.2 ms).
    detail::ClockFit lied_to;
    Feed slow{kWeston_ns};
    for (int64_t k = 1; k <= 40; ++k) lied_to.add(slow.at(k, 50 * kNsPerUs, false), 60);
    EXPECT_NEAR(lied_to.period_ns(), kWeston_ns, kWeston_ns * 0.001);
}

// Reports every `pattern` refreshes in turn, with 30 us of jitter.
void feed_pattern(detail::ClockFit& model, double period_ns, const std::vector<int>& pattern, double stated_hz,
                  int reports) {
    Feed feed{period_ns};
    int64_t k = 0;
    for (int i = 0; i < reports; ++i) {
        k += pattern[static_cast<size_t>(i) % pattern.size()];
        Presented p = feed.at(k, 30 * kNsPerUs, false);
        p.refresh_ns = stated_hz > 0 ? std::llround(period_ns_of(stated_hz)) : 0;
        model.add(p, stated_hz);
    }
}

// weston headless shows a late frame half a step late: intervals of 25.2 ms
// and some of 37.8. Their common half, 12.6 ms, is a refresh no report
// showed alone and nothing states: the model must not lock onto it (it did,
// and auto said "display refresh 60 Hz -> 79.2 Hz").
TEST(ClockFit, HalfAStepLateIsNoRefreshOfItsOwn) {
    detail::ClockFit model;
    // 12.6 ms refreshes, shown every 2, 2, 2, 3: 25.2 ms with a 37.8 in four.
    feed_pattern(model, 12.6e6, {2, 2, 2, 3}, 60, 200);
    EXPECT_FALSE(model.locked() && model.period_ns() < 20e6) << model.period_ns();
    // Where the 37.8 ms intervals are rarer, it locks on the step it shows.
    detail::ClockFit calmer;
    feed_pattern(calmer, 12.6e6, {2, 2, 2, 2, 2, 2, 2, 2, 2, 3}, 60, 200);
    EXPECT_TRUE(calmer.locked());
    EXPECT_NEAR(calmer.period_ns(), kWeston_ns, kWeston_ns * 0.01);
}

// Frames shown 2 and 3 refreshes apart are a real refresh split in two or
// three (60 fps at 144 Hz, 24 fps at 60 Hz): the stated rate says so.
TEST(ClockFit, TwoAndThreeRefreshesAFrameFindTheStatedRefresh) {
    detail::ClockFit at144;
    feed_pattern(at144, period_ns_of(144), {2, 3}, 144, 200);
    EXPECT_TRUE(at144.locked());
    EXPECT_NEAR(at144.period_ns(), period_ns_of(144), period_ns_of(144) * 0.005);
    detail::ClockFit at60;
    feed_pattern(at60, period_ns_of(60), {2, 3}, 60, 200);
    EXPECT_TRUE(at60.locked());
    EXPECT_NEAR(at60.period_ns(), period_ns_of(60), period_ns_of(60) * 0.005);
    // Unstated, the times alone: the lowest interval explains only half, so
    // the fraction is taken.
    detail::ClockFit unstated;
    feed_pattern(unstated, period_ns_of(60), {2, 3}, 0, 200);
    EXPECT_TRUE(unstated.locked());
    EXPECT_NEAR(unstated.period_ns(), period_ns_of(60), period_ns_of(60) * 0.005);
}

TEST(ClockFit, FollowsATimerThatDatesEachRefreshFromTheLast) {
    // weston headless: each refresh is a timer armed from the previous one,
    // so a late tick moves every later refresh. Ticks run 0-100 us late, one
    // in 40 by 0.5-3 ms. The period stays within 0.5 % of the median
    // interval, the model stays locked through the late ticks, and the
    // refresh after each report is predicted within 1 ms.
    detail::ClockFit model;
    Feed noise{kWeston_ns};
    double t = kNsPerSecond;
    std::vector<double> intervals;
    int predicted = 0, close = 0, unlocked = 0;
    for (int i = 0; i < 600; ++i) {
        double late = 100 * kNsPerUs * noise.uniform();
        if (i % 40 == 17) late += 0.5 * kNsPerMs + 2.5 * kNsPerMs * noise.uniform();
        const double next = t + kWeston_ns + late;
        if (model.locked()) {
            ++predicted;
            close += std::fabs(static_cast<double>(model.next_refresh(std::llround(t) + 1)) - next) <= 1 * kNsPerMs;
        }
        intervals.push_back(next - t);
        t = next;
        Presented p;
        p.displayed_ns = std::llround(t);
        p.refresh_ns = 16'666'667;
        model.add(p, 60);
        if (i >= 40 && !model.locked()) ++unlocked;
    }
    std::nth_element(intervals.begin(), intervals.begin() + 300, intervals.end());
    EXPECT_NEAR(model.period_ns(), intervals[300], intervals[300] * 0.005);
    EXPECT_EQ(unlocked, 0);
    EXPECT_GE(predicted, 550);
    EXPECT_GE(close * 100, predicted * 95) << close << " of " << predicted;
}

// mutter's headless and virtual outputs: a 60 Hz grid, each report dated in
// software (kPresentedHwCompletion alone) and off it by white jitter (+-0.75
// ms) and a slow wander of the grid's phase (a mean-reverting walk, about
// 0.85 ms rms), with a counter, stating 60 Hz; every slip_every refreshes (0:
// never) the grid moves 3 ms later for good, as a late repaint moves
// mutter's. Returns the fit's worst relative error against the grid's period
// from 2 s to 10 s, and from 10 s to 30 s, and how far the refresh after each
// report was predicted from the true one, at the 95th percentile.
struct Worst {
    double early = 0, late = 0;
    bool always_locked = true;
    double predicted_p95_ns = 0;
};
Worst jittery_display(int slip_every, int64_t stated_ns) {
    detail::ClockFit model;
    Feed noise{kPeriod60_ns};
    double phase = 0, slipped = 0;
    Worst worst;
    std::vector<double> predicted;
    for (int64_t k = 1; k <= 1800; ++k) {
        phase = 0.98 * phase + (2 * noise.uniform() - 1) * 0.3 * kNsPerMs;
        if (slip_every > 0 && k % slip_every == 0) slipped += 3 * kNsPerMs;
        const double grid = kNsPerSecond + static_cast<double>(k) * kPeriod60_ns + slipped;
        if (k >= 120) predicted.push_back(std::fabs(static_cast<double>(model.nearest_refresh(std::llround(grid))) - grid));
        Presented p;
        p.displayed_ns = std::llround(grid + phase + (2 * noise.uniform() - 1) * 0.75 * kNsPerMs);
        p.seq = static_cast<uint64_t>(k);
        p.refresh_ns = stated_ns;
        p.flags = kPresentedHwCompletion;
        model.add(p, 60);
        const double off = std::fabs(model.period_ns() / kPeriod60_ns - 1);
        if (k >= 120 && k < 600) worst.early = std::max(worst.early, off);
        if (k >= 600) worst.late = std::max(worst.late, off);
        if (k >= 120 && !model.locked()) worst.always_locked = false;
    }
    std::sort(predicted.begin(), predicted.end());
    worst.predicted_p95_ns = predicted[predicted.size() * 95 / 100];
    return worst;
}

// A one-second fit of such reports wandered 0.5-1.4 % (the demo said "59.4
// Hz" and once chose 60.3 Hz / 2). Stating no refresh, the long fit holds
// the grid's period within 0.05 % once it spans 512 reports, and within 0.15
// % from 2 s on; stating 60 Hz, the period is that.
TEST(ClockFit, SoftwareDatedJitterAndWanderKeepTheRate) {
    const Worst unstated = jittery_display(0, 0);
    EXPECT_TRUE(unstated.always_locked);
    EXPECT_LE(unstated.early, 0.0015);
    EXPECT_LE(unstated.late, 0.0005);
    const Worst stated = jittery_display(0, 16'666'667);
    EXPECT_TRUE(stated.always_locked);
    EXPECT_LE(stated.early, 1e-7);
    EXPECT_LE(stated.late, 1e-7);
}

// Slips move the grid, not its period: the period stays the stated refresh
// and the phase follows each slip, so the refresh after a report is
// predicted as well as without slips.
TEST(ClockFit, SlipsThatMoveTheGridForGoodMoveThePhase) {
    const Worst calm = jittery_display(0, 16'666'667);
    const Worst slipping = jittery_display(60, 16'666'667);
    EXPECT_TRUE(slipping.always_locked);
    EXPECT_LE(slipping.late, 1e-7);
    EXPECT_LE(slipping.predicted_p95_ns, calm.predicted_p95_ns + 1 * kNsPerMs) << calm.predicted_p95_ns;
}

// Software-dated reports are taken at their stated refresh only where the
// fit comes within 5 % of it: mutter's reads back the pacer's rate, 2.3 %
// slow under display_lock; weston's states 60 Hz and shows 39.7 Hz. Dated by
// the display's own clock, the fit stands: a 59.94 Hz display stating 60.
TEST(ClockFit, SoftwareDatedReportsTakeTheRefreshTheyState) {
    for (const double real_ns : {17.05e6, k5994, kWeston_ns}) {
        for (const uint32_t flags : {0u, kPresentedHwClock}) {
            detail::ClockFit model;
            Feed feed{real_ns};
            for (int64_t k = 1; k <= 600; ++k) {
                Presented p = feed.at(k, 100 * kNsPerUs, false);
                p.flags = flags;
                model.add(p, 60);
            }
            const bool stated = flags == 0 && real_ns < 1.05 * kPeriod60_ns;
            EXPECT_NEAR(model.period_ns(), stated ? 16'666'667 : real_ns, real_ns * 0.0005) << real_ns << " " << flags;
        }
    }
}

// Reports dated in software and stating 60 Hz that jitter about as much as
// a lock allows (an rms of 5 % of a period; +-1.45 ms uniform, twice
// mutter's): the fit takes the stated refresh within a second (the steps
// alone gave no estimate for 7 s), and once locked the lock holds (it came
// and went every few frames); a run of a dozen late frames, 21.5-24.5 ms
// apart (mutter showed some 19-23 ms apart after a stall), outliers every
// one, neither ends it nor starts it over.
TEST(ClockFit, JitterAtTheLockLimitAndLateRunsKeepTheLock) {
    detail::ClockFit model;
    Feed feed{kPeriod60_ns};
    int unlocked = 0;
    double t = kNsPerSecond;
    for (int i = 0; i < 1200; ++i) {
        const bool late_run = i >= 600 && i < 612;
        t += late_run ? 21.5 * kNsPerMs + 3 * kNsPerMs * feed.uniform() : kPeriod60_ns;
        Presented p;
        p.displayed_ns = std::llround(t + (late_run ? 0 : (2 * feed.uniform() - 1) * 1.45 * kNsPerMs));
        p.refresh_ns = 16'666'667;
        p.flags = kPresentedHwCompletion;
        model.add(p, 60);
        if (i >= 100) unlocked += !model.locked();
    }
    EXPECT_EQ(unlocked, 0);
    EXPECT_EQ(model.clock().period_ns, 16'666'667);
}

// A silence of a second or more (mutter's headless output stops for 1.2 s
// every few seconds) keeps the period and the lock; the phase comes from
// the reports after it. A display that comes back at another rate still
// starts over.
TEST(ClockFit, ASilenceKeepsTheClock) {
    for (const double after_ns : {kPeriod60_ns, kPeriod144_ns}) {
        detail::ClockFit model;
        double t = kNsPerSecond;
        for (int i = 0; i < 300; ++i) {
            t += kPeriod60_ns;
            Presented p;
            p.displayed_ns = std::llround(t);
            p.flags = kPresentedHwClock;
            model.add(p, 60);
        }
        ASSERT_TRUE(model.locked());
        t += 1.2e9 + 0.37 * kPeriod60_ns;   // the grid comes back at another phase
        int unlocked = 0, reports = 0;
        for (; reports < 100; ++reports) {
            t += after_ns;
            Presented p;
            p.displayed_ns = std::llround(t);
            p.flags = kPresentedHwClock;
            model.add(p, 60);
            unlocked += !model.locked();
            if (after_ns != kPeriod60_ns && model.locked() && std::fabs(model.period_ns() - kPeriod144_ns) < kPeriod144_ns * 0.001) break;
        }
        if (after_ns == kPeriod60_ns) {
            EXPECT_EQ(unlocked, 0);
            EXPECT_NEAR(model.period_ns(), kPeriod60_ns, kPeriod60_ns * 1e-4);
            EXPECT_NEAR(static_cast<double>(model.next_refresh(std::llround(t) + 1)), t + kPeriod60_ns, 50 * kNsPerUs);
        } else {
            EXPECT_LE(reports, detail::ClockFit::kResetRun + detail::ClockFit::kLockSamples);
        }
    }
}

// Reports as mutter dates them (software, stating 60 Hz): the first
// intervals as given, then a 60 Hz grid with +-0.5 ms of jitter, 400 in all.
// The fit never takes a refresh finer than three quarters of 60 Hz's, and
// ends locked at 60 Hz.
void expect_no_finer_refresh(const std::vector<double>& first_ms) {
    detail::ClockFit model;
    Feed noise{kPeriod60_ns};
    double t = kNsPerSecond;
    for (size_t i = 0; i < 400; ++i) {
        if (i > 0 && i <= first_ms.size()) t += first_ms[i - 1] * kNsPerMs;
        if (i > first_ms.size()) t += kPeriod60_ns + (2 * noise.uniform() - 1) * 0.5 * kNsPerMs;
        Presented p;
        p.displayed_ns = std::llround(t);
        p.refresh_ns = 16'666'667;
        p.flags = kPresentedHwCompletion;
        model.add(p, 60);
        if (model.period_ns() > 0) {
            EXPECT_GT(model.period_ns(), 0.75 * kPeriod60_ns) << "report " << i;
        }
    }
    EXPECT_TRUE(model.locked());
    EXPECT_EQ(model.clock().period_ns, 16'666'667);
}

// A clock re-armed from late frames (mutter's after a stall on the 2-core
// VM) shows them 25 and 33 ms apart among 16.7 ms ones for a while. Half a
// refresh explains them all, but no two frames came faster than the stated
// 16.7 ms: no finer grid is taken (it was, as 119 Hz / 2 on a 60 Hz
// display); the fit waits, then takes 60 Hz once the grid is kept.
TEST(ClockFit, IntervalsOffAGridDoNotSplitTheStatedRefresh) {
    const double pattern_ms[] = {16.7, 25.0, 16.7, 33.3, 25.0, 16.7, 25.0};
    std::vector<double> first_ms;
    for (int i = 0; i < 40; ++i) first_ms.push_back(pattern_ms[i % 7]);
    expect_no_finer_refresh(first_ms);
}

// mutter's first frames, as one run showed them (12.67, 33.46, 16.60 and
// 16.66 ms apart): a third of the lowest makes every one a whole number of
// 4.2 ms steps, and the fit took 240 Hz for a 60 Hz monitor and kept it, each
// 16.7 ms four of its steps. Their median is the refresh they state: that.
TEST(ClockFit, AFirstFewFramesDoNotMakeAFinerRefreshThanTheStatedOne) {
    expect_no_finer_refresh({12.67, 33.46, 16.60, 16.66, 20.26, 14.14});
}

// First frames off every grid and off the stated refresh too (their
// median 13.3 ms), as mutter's can be under load: each interval is a whole
// number of 3.33 ms steps, a fifth of its 60 Hz, which the fit took and kept.
// No report came that fast and the display does not say so: the fit waits
// for frames that keep a grid.
TEST(ClockFit, FirstFramesOffTheStatedRefreshDoNotMakeAFinerOne) {
    expect_no_finer_refresh({6.65, 9.98, 13.30, 16.63, 19.95, 9.98, 13.30, 23.28});
    expect_no_finer_refresh({9.98, 13.30, 6.65, 13.30, 19.95, 9.98});
}

// mutter's seq counts its own repaints, not refreshes: one each frame while
// every refresh shows one, and still one across a frame that spans two
// refreshes (a 32.9 ms gap at 60 Hz). A run that starts without gaps
// trusts it; once frames miss refreshes (one in three here, a loaded
// machine), it must be dropped, not the lock.
TEST(ClockFit, ACounterOfRepaintsIsDroppedOnceFramesMissRefreshes) {
    detail::ClockFit model;
    Feed feed{kPeriod60_ns};
    int64_t k = 0;
    uint64_t repaints = 0;
    int unlocked = 0;
    for (int i = 0; i < 600; ++i) {
        k += (i >= 200 && i % 3 == 1) ? 2 : 1;
        Presented p = feed.at(k, 200 * kNsPerUs, false);
        p.seq = ++repaints;
        p.flags = kPresentedHwCompletion;
        model.add(p, 60);
        if (i >= 100 && !model.locked()) ++unlocked;
    }
    EXPECT_EQ(unlocked, 0);
    EXPECT_NEAR(model.period_ns(), kPeriod60_ns, kPeriod60_ns * 0.0005);
}

// Xvfb's Present counts its software refreshes exactly (the MSC), but dates
// each when its millisecond timer fired: up to 1 ms early, mostly within a
// millisecond late, now and then 5 ms late on a busy 2-core VM. The first
// intervals of one run (10.98, 16.77, 16.19, 16.89 ms) were each a
// whole number of 5.5 ms steps, finer than any interval came; taken over the
// counter, they dropped it for good, and the fit locked at 180 Hz / 3 after
// 6.7 s (display_lock then read every frame as shown early). A step no frame
// came at does not outrank a counter whose every interval is one refresh.
TEST(ClockFit, ACounterOutranksAFinerStepNoIntervalCameAt) {
    detail::ClockFit model;
    Feed feed{kPeriod60_ns};
    const double late_ms[] = {5.7, 0.0, 0.1, -0.4, 0.2, 0.6, -0.2, 0.9, 0.3, -0.5, 0.8, 0.1};
    int locked_at = -1;
    for (int k = 0; k < 240; ++k) {
        Presented p;
        p.displayed_ns = std::llround(feed.refresh(k) + late_ms[k % 12] * kNsPerMs);
        p.seq = static_cast<uint64_t>(1000 + k);
        p.flags = kPresentedVsync;   // dated in software
        model.add(p, 0);
        if (locked_at < 0 && model.locked()) locked_at = k;
    }
    ASSERT_TRUE(model.locked());
    EXPECT_LT(locked_at, 64);
    EXPECT_NEAR(model.period_ns(), kPeriod60_ns, kPeriod60_ns * 0.005);
}

TEST(ClockFit, FollowsDriftAndRelocksAfterARefreshChange) {
    // Drift: the period moves 0.2 % over 20 s. Dated by the display's own
    // clock, the one-second fit follows within 0.02 %; dated in software, the
    // long sums (8.5 s) lag by about half their span, within 0.06 %.
    for (const uint32_t flags : {kPresentedHwClock, 0u}) {
        detail::ClockFit drifting;
        double t = kNsPerSecond, period = kPeriod60_ns;
        uint64_t seq = 1;
        for (int i = 0; i < 1200; ++i) {
            period = kPeriod60_ns * (1 + 0.002 * i / 1200.0);
            t += period;
            Presented p;
            p.displayed_ns = std::llround(t);
            p.seq = ++seq;
            p.flags = flags;
            drifting.add(p, 60);
        }
        EXPECT_TRUE(drifting.locked());
        EXPECT_NEAR(drifting.period_ns(), period, period * (flags != 0 ? 0.0002 : 0.0006)) << flags;
    }
    detail::ClockFit model;
    double t = kNsPerSecond;
    uint64_t seq = 1;
    for (int i = 0; i < 1200; ++i) {
        t += kPeriod60_ns;
        Presented p;
        p.displayed_ns = std::llround(t);
        p.seq = ++seq;
        model.add(p, 60);
    }
    // 60 -> 144 Hz: the model starts over after 8 outliers in a row and
    // locks again 16 reports later (the reset keeps the 8).
    int reports = 0;
    while (reports < 100) {
        t += kPeriod144_ns;
        Presented p;
        p.displayed_ns = std::llround(t);
        p.seq = ++seq;
        model.add(p, 60);
        ++reports;
        if (model.locked() && std::fabs(model.period_ns() - kPeriod144_ns) < kPeriod144_ns * 0.001) break;
    }
    EXPECT_LE(reports, detail::ClockFit::kResetRun + detail::ClockFit::kLockSamples);
}

TEST(ClockFit, IgnoresWhatCannotBeFitted) {
    detail::ClockFit model;
    Presented undated;   // displayed_ns -1
    for (int i = 0; i < 100; ++i) model.add(undated, 60);
    EXPECT_FALSE(model.locked());
    EXPECT_EQ(model.clock().period_ns, 0);
    EXPECT_EQ(model.clock().refresh_at_ns, -1);
    EXPECT_EQ(model.nearest_refresh(123), 123);
    Feed feed{kPeriod60_ns};
    for (int64_t k = 1; k <= 30; ++k) model.add(feed.at(k, 0, true), 60);
    const DisplayClock before = model.clock();
    Presented backwards = feed.at(3, 0, true);   // not after the previous one
    model.add(backwards, 60);
    EXPECT_EQ(model.clock().period_ns, before.period_ns);
    EXPECT_EQ(model.clock().samples, before.samples);
}

// ---- the pacer on a fake compositor -----------------------------------------

// The engine's loop as the demo runs it: wait, swap the frame built last
// turn, mark the present, build the next one.
struct DisplayRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    FakeCompositor display;
    std::unique_ptr<Pacer> pacer;
    int64_t built = -1;   // the frame awaiting its swap

    DisplayRig(double real_period_ns, double stated_hz, double target_hz, Strategy strategy, int64_t lead_ns = -1)
        : display(clock, real_period_ns, stated_hz) {
        Config c = fake_config(clock, sleeper, target_hz, strategy);
        c.host = &display;
        c.display.lead_ns = lead_ns;
        pacer = std::make_unique<Pacer>(c);
    }
    Frame frame(int64_t work_ns = 2 * kNsPerMs) {
        const Frame f = pacer->wait();
        if (built >= 0) {
            display.swap(built);
            pacer->mark_present();
        }
        clock.advance_busy(work_ns);
        built = f.index;
        return f;
    }
    std::vector<Frame> run_for(int64_t duration_ns, int64_t work_ns = 2 * kNsPerMs) {
        std::vector<Frame> frames;
        const int64_t end = clock.now_ns() + duration_ns;
        while (clock.now_ns() < end) frames.push_back(frame(work_ns));
        return frames;
    }
    const Decision& decision() const { return pacer->decision(); }
};

TEST(DisplayAuto, AnHonestDisplayConfirmsVsyncByWhatItShows) {
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.display.jitter_ns = 200 * kNsPerUs;
    EXPECT_EQ(rig.decision().reason, "auto -> vsync (probing): 60 Hz / 1, measuring presents");
    rig.run_for(1 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_FALSE(rig.decision().probing);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: display shows frames every 16.7 ms (60 Hz / 1)");
    EXPECT_TRUE(rig.pacer->display().locked);
    const int32_t seq = rig.decision().seq;
    rig.run_for(30 * kNsPerSecond);
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_EQ(rig.display.discarded, 0);
}

TEST(DisplayAuto, ClaimedVsyncWhoseSwapsDoNotBlockIsCaught) {
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.display.blocks = false;   // accepts interval 1, returns at once
    rig.run_for(1 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason, "auto -> timer: vsync requested, swaps return every 4.1 ms"))
        << rig.decision().reason;
    EXPECT_EQ(rig.display.requests, (std::vector<int>{1, 0}));
}

TEST(DisplayAuto, ADisplayThatLiesAboutItsRefreshIsCaught) {
    // weston headless: says 60 Hz, shows a frame every 25.2 ms.
    DisplayRig rig(kWeston_ns, 60, 60, Strategy::Auto);
    rig.display.report_seq = false;
    rig.display.jitter_ns = 300 * kNsPerUs;
    rig.run_for(2 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason,
              "display refresh 60 Hz -> 39.7 Hz: auto -> timer: display says 60 Hz but shows frames every 25.2 ms");
    EXPECT_EQ(rig.display.requests, (std::vector<int>{1, 0}));
    // And it stays there: no retries, nothing new to say.
    const int32_t seq = rig.decision().seq;
    rig.run_for(60 * kNsPerSecond);
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_EQ(rig.display.requests, (std::vector<int>{1, 0}));
}

TEST(DisplayAuto, AnUnstatedRefreshIsLearntFromTheDisplay) {
    DisplayRig rig(kPeriod60_ns, 0, 60, Strategy::Auto);   // states nothing, reports presents
    EXPECT_EQ(rig.decision().reason, "auto -> timer: refresh rate unknown");
    rig.run_for(2 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: display shows frames every 16.7 ms (60 Hz / 1)");
}

TEST(DisplayAuto, ARefreshChangeIsReDecidedWithinTheBound) {
    // 60 -> 144 Hz while the host keeps saying 60: only the display tells.
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.run_for(1 * kNsPerSecond);
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    rig.display.change_period(kPeriod144_ns);
    const int64_t changed = rig.clock.now_ns();
    const int32_t seq = rig.decision().seq;
    while (rig.clock.now_ns() - changed < 2 * kNsPerSecond && !contains(rig.decision().reason, "display refresh")) rig.frame();
    // The bound in pacer.h: 8 + 16 displayed frames, plus the frames in flight.
    EXPECT_LE(rig.clock.now_ns() - changed, 30 * std::llround(kPeriod144_ns) + 2 * std::llround(kPeriod60_ns));
    EXPECT_GT(rig.decision().seq, seq);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason,
              "display refresh 60 Hz -> 144 Hz: auto -> timer: display says 60 Hz but shows frames every 6.9 ms");
    // Stated and real both change (the ordinary case): the stated rate is read within a second.
    DisplayRig both(kPeriod60_ns, 60, 72, Strategy::Auto);
    both.run_for(1 * kNsPerSecond);
    ASSERT_EQ(both.decision().in_force, Strategy::Timer);   // 72 is not 60 / n
    both.display.change_period(kPeriod144_ns);
    both.display.stated_hz = 144;
    const int64_t at = both.clock.now_ns();
    while (both.clock.now_ns() - at < 3 * kNsPerSecond && both.decision().in_force != Strategy::Vsync) both.frame();
    EXPECT_LE(both.clock.now_ns() - at, 1 * kNsPerSecond + 20 * kNsPerMs);
    both.run_for(1 * kNsPerSecond);
    EXPECT_EQ(both.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(both.decision().swap_interval, 2);
    EXPECT_EQ(both.decision().reason, "auto -> vsync: display shows frames every 13.9 ms (144 Hz / 2)");
}

TEST(DisplayAuto, DiscardsAloneLeaveTheJudgingToSwapReturns) {
    // sway 1.7 reports no shown frame, only discards: nothing to fit, and
    // discards alone are no evidence against vsync.
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.display.report_shown = false;
    rig.run_for(1 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 32 of 32 within 0.5 ms of their median");
    const int32_t seq = rig.decision().seq;
    rig.run_for(30 * kNsPerSecond);
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_FALSE(rig.pacer->display().locked);
}

TEST(DisplayAuto, ReportsWithNoSteadyRefreshEndTheProbe) {
    // Swaps block on a steady 60 Hz, but the reported times scatter over
    // +-8 ms: the display clock never locks, and the probe gives up.
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.display.jitter_ns = 8 * kNsPerMs;
    rig.run_for(5 * kNsPerSecond);
    EXPECT_FALSE(rig.pacer->display().locked);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason,
                         "auto -> timer: vsync requested, the display reports no steady refresh in 240 frames: "))
        << rig.decision().reason;
    // ... and why: the fit's inliers and their jitter against a lock's.
    EXPECT_TRUE(contains(rig.decision().reason, " of the last 63 shown intervals are whole refreshes of 16.7 ms "
                                                "(48 wanted), off them by "))
        << rig.decision().reason;
}

TEST(DisplayAuto, ShownFramesOffCadenceLeaveVsync) {
    DisplayRig rig(kPeriod60_ns, 60, 60, Strategy::Auto);
    rig.run_for(1 * kNsPerSecond);
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    // The compositor starts to show a frame only every other refresh, though
    // the pacer asked for every one (swaps still block, on refreshes).
    rig.display.interval = 2;
    rig.run_for(1 * kNsPerSecond);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason, "auto -> timer: ")) << rig.decision().reason;
}

TEST(DisplayHost, ARunawayHostCannotHoldAWait) {
    // A host whose take_presented never runs dry: each wait takes at most 256.
    struct Runaway final : Host {
        bool set_swap_interval(int) override { return true; }
        double refresh_rate_hz() override { return 60; }
        bool take_presented(Presented* out) override {
            ++calls;
            *out = Presented{};
            out->discarded = true;
            return true;
        }
        int64_t calls = 0;
    } host;
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Config c = fake_config(clock, sleeper, 60, Strategy::Timer);
    c.host = &host;
    Pacer pacer(c);
    pacer.wait();
    pacer.wait();
    EXPECT_EQ(host.calls, 2 * 256);
    EXPECT_FALSE(pacer.display().locked);
}

TEST(DisplayHost, ANewHostForgetsTheOldDisplay) {
    DisplayRig rig(kWeston_ns, 60, 60, Strategy::Timer);
    int reported = 0;   // frames whose wait took a report (not all: 60 Hz on 39.7 Hz)
    for (const Frame& f : rig.run_for(2 * kNsPerSecond)) reported += f.displayed_index >= 0 && f.displayed_ns > 0;
    EXPECT_TRUE(rig.pacer->display().locked);
    EXPECT_GE(reported, 60);
    FakeCompositor other(rig.clock, kPeriod60_ns, 60);
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.host = &other; }), "");
    EXPECT_FALSE(rig.pacer->display().locked);
    EXPECT_EQ(rig.pacer->display().period_ns, 0);
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.host = nullptr; }), "");
    const Frame none = rig.pacer->wait();
    EXPECT_EQ(none.displayed_index, -1);
    EXPECT_EQ(none.displayed_ns, -1);
}

// ---- dt and predicted presents from the display ------------------------------

// How many of the frames that were shown had their predicted present within
// 1 ms of the refresh that showed them.
struct Predictions {
    int compared = 0, close = 0;
};
Predictions predictions(const DisplayRig& rig, const std::vector<Frame>& frames) {
    std::vector<int64_t> shown_at(static_cast<size_t>(frames.back().index + 1), -1);
    for (const FakeCompositor::Shown& s : rig.display.shown)
        if (s.frame >= 0 && s.frame < static_cast<int64_t>(shown_at.size()))
            shown_at[static_cast<size_t>(s.frame)] = std::llround(rig.display.refresh_time(s.k));
    Predictions p;
    for (const Frame& f : frames) {
        const int64_t at = shown_at[static_cast<size_t>(f.index)];
        if (at < 0) continue;
        ++p.compared;
        p.close += std::llabs(f.predicted_present_ns - at) <= 1 * kNsPerMs;
    }
    return p;
}

TEST(DisplayVsync, DtAndPredictedPresentsComeFromTheDisplay) {
    // Explicit vsync on weston's lying display: swaps return every 25.2 ms.
    // Stated-refresh snapping would give 2 * 16.7 = 33.3 ms; the display says 25.2.
    DisplayRig rig(kWeston_ns, 60, 60, Strategy::Vsync);
    rig.display.jitter_ns = 300 * kNsPerUs;
    rig.run_for(2 * kNsPerSecond);
    ASSERT_TRUE(rig.pacer->display().locked);
    std::vector<Frame> frames = rig.run_for(10 * kNsPerSecond);
    for (const Frame& f : frames) EXPECT_NEAR(static_cast<double>(f.dt_ns), kWeston_ns, kWeston_ns * 0.002);
    // Each frame's predicted present against the time it was shown (jitter
    // included): within 1 ms for at least 95 %.
    const Predictions p = predictions(rig, frames);
    EXPECT_GE(p.compared, 390);
    EXPECT_GE(p.close * 100, p.compared * 95) << p.close << " of " << p.compared;
    // Frames carry the newest report their wait took.
    const Frame last = frames.back();
    EXPECT_GE(last.displayed_index, last.index - 4);
    EXPECT_GT(last.displayed_ns, 0);
}

// weston answers a blocking swap when it repaints, about 0.4 of a refresh
// after the refresh (docs/wayland.md); on a busy machine the demo sees the
// return up to a few ms later still (swap to swap from 0.86 to 1.18 of the
// refresh, p5 to p95, on the 2-core VM). Rounding such a return to the nearest
// refresh flips between two refreshes from frame to frame, and the prediction
// with it by a whole refresh; counting from the refresh before the returns'
// usual phase does not.
TEST(DisplayVsync, PredictionHoldsWhenSwapsReturnLateInTheirRefresh) {
    DisplayRig rig(kWeston_ns, 60, 60, Strategy::Vsync);
    rig.display.return_ns = 10 * kNsPerMs;
    rig.display.return_late_ns = 5 * kNsPerMs;   // 10-15 ms: either side of the half-refresh (12.6 ms)
    rig.run_for(2 * kNsPerSecond);
    ASSERT_TRUE(rig.pacer->display().locked);
    std::vector<Frame> frames = rig.run_for(10 * kNsPerSecond);
    rig.run_for(200 * kNsPerMs);   // the last frames' reports
    const Predictions p = predictions(rig, frames);
    EXPECT_GE(p.compared, 390);
    EXPECT_GE(p.close * 100, p.compared * 95) << p.close << " of " << p.compared;
}

// A compositor whose queue grows by a refresh (measured on weston under load:
// a run of frames then shown a whole refresh later than predicted): the
// prediction follows within a few frames, where the most common count of the
// last 16 took about ten.
TEST(DisplayVsync, PredictionFollowsAQueueThatGrows) {
    DisplayRig rig(16.7e6, 60, 60, Strategy::Vsync);
    rig.run_for(2 * kNsPerSecond);
    ASSERT_TRUE(rig.pacer->display().locked);
    rig.display.queue_refreshes = 1;
    std::vector<Frame> frames = rig.run_for(1 * kNsPerSecond);
    rig.run_for(200 * kNsPerMs);   // the last frames' reports
    const Predictions p = predictions(rig, frames);
    EXPECT_GE(p.compared, 50);
    EXPECT_LE(p.compared - p.close, 5);
}

// ---- delay bias ---------------------------------------------------------------

// Runs 60 s of a 60 Hz timer on a 59.94 Hz display that latches 1 ms before
// each refresh; returns the frames shown in a refresh other than the one
// after their deadline plus the lead, and counts discards.
struct BiasRun {
    int missed_intent = 0;
    int discarded = 0;
    int doubled_refreshes = 0;
    int64_t max_step_ns = 0;   // the largest change of the deadline spacing
};

BiasRun run_bias(int64_t lead_ns) {
    DisplayRig rig(k5994, 60, 60, Strategy::Timer, lead_ns);
    rig.display.flags = kPresentedVsync | kPresentedHwClock;   // else the stated 60 Hz is taken
    rig.display.latch_ns = 1 * kNsPerMs;
    rig.display.jitter_ns = 100 * kNsPerUs;
    rig.run_for(3 * kNsPerSecond);   // the model locks, the bias slides into place
    const size_t shown_before = rig.display.shown.size();
    const int discarded_before = rig.display.discarded;
    std::vector<Frame> frames = rig.run_for(60 * kNsPerSecond);
    BiasRun run;
    run.discarded = rig.display.discarded - discarded_before;
    std::vector<int64_t> deadline_of(frames.back().index + 2, -1);
    for (const Frame& f : frames) deadline_of[static_cast<size_t>(f.index)] = f.deadline_ns;
    for (size_t i = 2; i < frames.size(); ++i) {
        const int64_t a = frames[i].deadline_ns - frames[i - 1].deadline_ns;
        const int64_t b = frames[i - 1].deadline_ns - frames[i - 2].deadline_ns;
        run.max_step_ns = std::max<int64_t>(run.max_step_ns, std::llabs(a - b));
    }
    int64_t last_k = -1;
    for (size_t i = shown_before; i < rig.display.shown.size(); ++i) {
        const FakeCompositor::Shown& s = rig.display.shown[i];
        if (last_k >= 0 && s.k != last_k + 1) ++run.doubled_refreshes;   // a refresh repeated a frame
        last_k = s.k;
        // The frame built after wait f is swapped after wait f + 1: meant for
        // the refresh after that deadline (plus the lead when biased).
        const size_t swap_wait = static_cast<size_t>(s.frame + 1);
        if (swap_wait >= deadline_of.size() || deadline_of[swap_wait] < 0) continue;
        // The refresh nearest to the deadline plus the lead.
        const int64_t intended = rig.display.first_refresh_from(
            static_cast<double>(deadline_of[swap_wait] + std::max<int64_t>(lead_ns, 0)) - k5994 / 2);
        run.missed_intent += s.k != intended;
    }
    return run;
}

TEST(DelayBias, WithoutItA60HzGridBeatsAgainstA5994HzDisplay) {
    const BiasRun run = run_bias(-1);
    // 0.06 Hz apart: the grid passes a refresh about once in 16.7 s.
    EXPECT_GE(run.discarded + run.doubled_refreshes, 3);
}

TEST(DelayBias, WithItEveryFrameLandsInItsIntendedRefresh) {
    const BiasRun run = run_bias(4 * kNsPerMs);
    EXPECT_EQ(run.discarded, 0);
    EXPECT_EQ(run.doubled_refreshes, 0);
    EXPECT_EQ(run.missed_intent, 0);
    // Gradual: the spacing of deadlines never changes by more than 2 % of a period.
    EXPECT_LE(run.max_step_ns, std::llround(0.02 * k5994) * 2 + 2);
}

TEST(DelayBias, SlidesIntoPlaceWithoutAHitch) {
    DisplayRig rig(k5994, 60, 60, Strategy::Timer, 4 * kNsPerMs);
    rig.display.flags = kPresentedVsync | kPresentedHwClock;
    const std::vector<Frame> frames = rig.run_for(4 * kNsPerSecond);
    for (size_t i = 1; i < frames.size(); ++i) {
        const int64_t step = frames[i].deadline_ns - frames[i - 1].deadline_ns;
        EXPECT_NEAR(static_cast<double>(step), kPeriod60_ns, 0.021 * k5994 + 20 * kNsPerUs) << i;
        EXPECT_EQ(frames[i].missed, 0);
    }
    // In place: each deadline 4 ms before a refresh.
    const Frame last = frames.back();
    const double to_refresh = rig.display.refresh_time(rig.display.first_refresh_from(static_cast<double>(last.deadline_ns))) -
                              static_cast<double>(last.deadline_ns);
    EXPECT_NEAR(to_refresh, 4e6, 300 * kNsPerUs);
    EXPECT_NEAR(static_cast<double>(last.period_ns), k5994, 20 * kNsPerUs);   // the grid runs at the display's rate
}

TEST(DelayBias, OffWhenTheTargetIsNoDivisorOfTheDisplay) {
    DisplayRig rig(kWeston_ns, 60, 60, Strategy::Timer, 4 * kNsPerMs);   // 39.7 Hz real: 60 does not fit
    const std::vector<Frame> frames = rig.run_for(3 * kNsPerSecond);
    ASSERT_TRUE(rig.pacer->display().locked);
    EXPECT_EQ(frames.back().period_ns, 16'666'667);
}

}  // namespace
