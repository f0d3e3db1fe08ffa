// Auto's rules one by one (pacer/src/rules/): each with its own state, fed
// through its view, answering with verdicts; no Pacer, no Arbiter.
#include "rules/display.h"
#include "rules/shown.h"
#include "rules/vrr.h"
#include "rules/vsync.h"
#include "rules/window.h"

#include <gtest/gtest.h>

#include <pacer/units.h>

namespace pacer::detail {
namespace {

constexpr int64_t kPeriod60 = 16'666'667;

// A present model whose display clock has locked at `period_ns`.
PresentModel locked_display(int64_t period_ns) {
    PresentModel present;
    for (int64_t k = 1; k <= 40; ++k) {
        Presented report;
        report.frame_index = k;
        report.displayed_ns = 3 * kNsPerMs + k * period_ns;
        present.add(report, 0, k + 1, false, 60);
    }
    return present;
}

VsyncView auto_vsync(const ClockFit& display) {
    VsyncView view;
    view.period_ns = kPeriod60;
    view.target_hz = 60;
    view.decided_hz = 60;
    view.display = &display;
    return view;
}

TEST(VsyncRule, AProbeOfSteadySwapsConfirmsVsyncAfterTheWholeWindow) {
    const ClockFit display;
    VsyncWatch watch;
    watch.start(true, 0);
    EXPECT_FALSE(watch.add(kPeriod60));   // straddles the switch
    MaybeVerdict verdict;
    for (int i = 0; i < 32 && !verdict; ++i) {
        ASSERT_TRUE(watch.add(kPeriod60 + (i % 2) * 50'000));
        verdict = watch.judge_probe(auto_vsync(display), i + 1);
        if (i < 31) {
            EXPECT_FALSE(verdict) << i;   // nothing reports shown frames: 32 are judged
        }
    }
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::ProbeSwapsSteady);
    EXPECT_EQ(verdict->text, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 32 of 32 within 0.5 ms of their median");
    watch.confirm();
    EXPECT_FALSE(watch.probing());
}

TEST(VsyncRule, ASwapThatNeverBlocksFailsTheProbeOnEight) {
    const ClockFit display;
    VsyncWatch watch;
    watch.start(true, 0);
    watch.add(0);
    MaybeVerdict verdict;
    for (int i = 0; i < 8; ++i) {
        watch.add(kNsPerMs);
        verdict = watch.judge_probe(auto_vsync(display), i + 1);
    }
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::ProbeSwapsFast);
    EXPECT_EQ(verdict->text, "vsync requested, swaps return every 1.0 ms");
    EXPECT_FALSE(verdict->long_backoff);
}

TEST(VsyncRule, AutoLeavesOnFastSwapsButExplicitVsyncSaysSoAndStays) {
    const ClockFit display;
    for (Strategy asked : {Strategy::Auto, Strategy::Vsync}) {
        VsyncWatch watch;
        watch.start(false, 0);
        watch.add(0);
        VsyncView view = auto_vsync(display);
        view.asked = asked;
        MaybeVerdict verdict;
        for (int i = 0; i < 32 && !verdict; ++i) {
            watch.add(i < 24 ? kPeriod60 : kNsPerMs);
            const VsyncWatch::Window window = watch.window(view);
            verdict = watch.judge_window(window, view, i + 1);
        }
        ASSERT_TRUE(verdict) << strategy_name(asked);
        if (asked == Strategy::Auto) {
            EXPECT_EQ(verdict->input, Input::SwapsFast);
            EXPECT_EQ(verdict->text, "swaps return every 1.0 ms (8 of the last 32 under half the vsync period)");
        } else {
            EXPECT_EQ(verdict->input, Input::VsyncHealth);
            EXPECT_EQ(verdict->text, "vsync: swap interval 1, but swaps return every 1.0 ms (not blocking)");
            // Said once; fine again only when nearly all intervals are.
            watch.add(kNsPerMs);
            EXPECT_FALSE(watch.judge_window(watch.window(view), view, 40));
            for (int i = 0; i < 30; ++i) watch.add(kPeriod60);
            const MaybeVerdict fine = watch.judge_window(watch.window(view), view, 70);
            ASSERT_TRUE(fine);
            EXPECT_EQ(fine->text, "vsync: swap interval 1, presents every 16.7 ms");
        }
    }
}

TEST(VsyncRule, KeptForShowingTheMostItIgnoresMissedRefreshes) {
    const ClockFit display;
    VsyncWatch watch;
    watch.start(false, 0);
    watch.add(0);
    VsyncView view = auto_vsync(display);
    view.shows_most = true;
    for (int i = 0; i < 32; ++i) watch.add(i < 20 ? kPeriod60 : 2 * kPeriod60);
    const VsyncWatch::Window window = watch.window(view);
    EXPECT_EQ(window.slow, 12);
    EXPECT_TRUE(window.suspect());
    EXPECT_FALSE(watch.judge_window(window, view, 33));
    view.shows_most = false;
    const MaybeVerdict verdict = watch.judge_window(window, view, 33);
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::MissedRefreshes);
}

TEST(VsyncRule, ShownFramesOffCadenceEndAutosVsync) {
    const PresentModel present = locked_display(kPeriod60);
    ASSERT_TRUE(present.display().locked());
    VsyncWatch watch;
    watch.start(false, 10);
    const VsyncView view = auto_vsync(present.display());
    MaybeVerdict verdict;
    for (int64_t f = 12; f < 12 + 32 && !verdict; ++f) {
        PresentModel::Report report;
        report.shown = report.feedback_seen = true;
        report.frame_index = f;
        report.previous_index = f - 1;
        report.previous_ns = f * kPeriod60;
        report.displayed_ns = report.previous_ns + (f % 4 == 0 ? 2 : 1) * kPeriod60;   // a quarter repeat
        verdict = watch.report(report, f + 2, view);
    }
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::ShownOffCadence);
    EXPECT_EQ(verdict->text, "displayed frames off cadence in 8 of the last 32 (not 1 refresh apart)");
}

TEST(DisplayRule, ALostClockIsHeldASecond) {
    DisplayJudge judge;
    EXPECT_TRUE(judge.hold_lost(0));
    EXPECT_TRUE(judge.hold_lost(kNsPerSecond - 1));
    EXPECT_FALSE(judge.hold_lost(kNsPerSecond));
    EXPECT_TRUE(judge.hold_lost(kNsPerSecond + 1));   // a new loss starts its own hold
}

TEST(DisplayRule, ABarLastsItsBackoffAndSaysWhy) {
    const PresentModel present = locked_display(kPeriod60);
    DisplayView view;
    view.has_host = true;
    view.lead_setting_ns = kLeadAuto;
    view.target_hz = 60;
    view.present = &present;
    DisplayJudge judge;
    view.lead_setting_ns = kLeadOff;
    EXPECT_FALSE(DisplayJudge::can_lock(view));
    view.lead_setting_ns = kLeadAuto;
    ASSERT_TRUE(DisplayJudge::can_lock(view));
    EXPECT_TRUE(judge.lockable(view, 0));
    judge.bar(0, "why", true);
    EXPECT_FALSE(judge.lockable(view, 1));
    EXPECT_TRUE(judge.barred_for_vsync(1));
    EXPECT_EQ(judge.bar_left_ns(kNsPerSecond), 63 * kNsPerSecond);
    EXPECT_TRUE(judge.bar_over(64 * kNsPerSecond));
    view.asked = Strategy::DisplayLock;   // asked for, it is never barred
    EXPECT_TRUE(judge.lockable(view, 1));
}

TEST(DisplayRule, ASmallMoveOfTheFittedRefreshMustLastALargeOneCountsAtOnce) {
    const PresentModel present = locked_display(kPeriod60);
    DisplayView view;
    view.present = &present;
    view.target_hz = 60;
    view.decided_hz = 59;   // 1.7 % off: small
    DisplayJudge judge;
    EXPECT_FALSE(judge.moved(view, 0));
    const MaybeVerdict verdict = judge.moved(view, kNsPerSecond);
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::DisplayMoved);
    EXPECT_EQ(verdict->text, "display refresh 59 Hz -> 60 Hz");
    view.decided_hz = 40;   // a new mode
    EXPECT_TRUE(judge.moved(view, kNsPerSecond + 1));
    view.decided_hz = 60;
    EXPECT_FALSE(judge.moved(view, 5 * kNsPerSecond));
}

TEST(DisplayRule, RefreshesPerFrameAndWhatTheDisplaySays) {
    EXPECT_EQ(refreshes_per_frame(60.3, 60), 1);
    EXPECT_EQ(refreshes_per_frame(120, 60), 2);
    EXPECT_EQ(refreshes_per_frame(30, 60), 1);
    EXPECT_EQ(display_says(60.2, 60), "");
    EXPECT_EQ(display_says(39.7, 60), "display says 60 Hz but shows frames every 25.2 ms");
    EXPECT_EQ(display_says(39.7, 0), "display states no refresh rate but shows frames every 25.2 ms");
}

PresentModel::Report shown_at(int64_t index, int64_t ns) {
    PresentModel::Report report;
    report.shown = true;
    report.frame_index = index;
    report.displayed_ns = ns;
    return report;
}

TEST(ShownRule, DisplayLockShowingFewerThanVsyncIsBarredForIt) {
    ShownJudge judge;
    judge.stint(Strategy::Timer, Strategy::Vsync, 0, kPeriod60);
    const int64_t vsync_ns = 27 * kNsPerMs;   // 37 a second
    for (int64_t f = 1; f <= 20; ++f) judge.add(shown_at(f, f * vsync_ns));
    judge.stint(Strategy::Vsync, Strategy::DisplayLock, 20, kPeriod60);
    EXPECT_TRUE(judge.vsync_fell_short(60));
    const int64_t locked_ns = 30 * kNsPerMs;   // 33.3 a second
    for (int64_t f = 21; f <= 29 + 64; ++f) {
        judge.add(shown_at(f, f * locked_ns));
        if (f < 29 + 64) {
            EXPECT_FALSE(judge.fewer(60, 1)) << f;   // the switch's 8, then 64 judged
        }
    }
    ASSERT_TRUE(judge.fewer(60, 1));
    EXPECT_EQ(*judge.fewer(60, 1),
              "display_lock showed 33.3 frames a second, vsync 37.0 (the display shows fewer than the 60 Hz target)");
    EXPECT_FALSE(judge.fewer(60, 2));   // another n: another mode
    judge.forget();
    EXPECT_FALSE(judge.vsync_fell_short(60));
}

// Headless mutter stops showing frames for 0.3-0.5 s now and then, under
// every strategy: such a stop in display_lock's stint is the display's, not
// display_lock's, and leaves its rate as it was.
TEST(ShownRule, AnOutageIsLeftOutOfTheShownRate) {
    ShownJudge judge;
    judge.stint(Strategy::Timer, Strategy::Vsync, 0, kPeriod60);
    for (int64_t f = 1; f <= 20; ++f) judge.add(shown_at(f, f * 17'668'000));   // 56.6 a second
    judge.stint(Strategy::Vsync, Strategy::DisplayLock, 20, kPeriod60);
    ASSERT_TRUE(judge.vsync_fell_short(60));
    int64_t at_ns = 0;
    for (int64_t f = 29; f <= 29 + 70; ++f) {
        at_ns += f == 60 ? 353 * kNsPerMs : kPeriod60;   // one stop of 353 ms
        judge.add(shown_at(f, at_ns));
    }
    EXPECT_FALSE(judge.fewer(60, 1)) << *judge.fewer(60, 1);
    // Four refreshes apart is still a rate (a display composing slowly).
    ShownRate slow;
    slow.start(0, 4 * kPeriod60);
    for (int64_t f = 1; f <= 10; ++f) slow.add(shown_at(f, f * 4 * kPeriod60));
    EXPECT_NEAR(slow.hz(), 15, 0.01);
}

TEST(VrrRule, SaysOnOffAndARangeThatMovedOncePolled) {
    VrrWatch watch;
    VrrPlan plan;
    watch.set(plan, 100);
    EXPECT_FALSE(watch.due(99));
    EXPECT_TRUE(watch.due(100));
    EXPECT_FALSE(watch.update(plan, 100));
    EXPECT_FALSE(watch.due(100 + kNsPerSecond - 1));
    plan.on = true;
    plan.max_hz = 144;
    EXPECT_EQ(watch.update(plan, 200)->text, "VRR on");
    plan.min_hz = 48;
    EXPECT_EQ(watch.update(plan, 300)->text, "VRR range changed");
    EXPECT_EQ(watch.update(VrrPlan{}, 400)->text, "VRR off");
    plan.cap_hz = vrr_cap_hz(144);
    EXPECT_EQ(vrr_reason(plan, Strategy::Auto, true, true, 60),
              "auto -> timer: VRR 48-144 Hz (), vsync kept as a ceiling, paced at the target 60 Hz, under the cap 138.2 Hz");
}

TEST(RuleWords, TimesLeftAreToATenthOfASecond) {
    EXPECT_EQ(rules::seconds(64 * kNsPerSecond - 100 * kNsPerUs), "64 s");   // a bar read just after it began
    EXPECT_EQ(rules::seconds(1'500 * kNsPerMs), "1.5 s");
    EXPECT_EQ(rules::seconds(2 * kNsPerSecond), "2 s");
}

TEST(WindowRule, AMoveThatChangesNoCeilingIsNoTransition) {
    Config cfg;
    cfg.background_hz = cfg.hidden_hz = 0;
    WindowWatch watch;
    EXPECT_FALSE(watch.update(WindowState::Unfocused, cfg));   // both rates off: no ceiling either way
    EXPECT_EQ(watch.state(), WindowState::Unfocused);
    cfg.hidden_hz = 10;
    const MaybeVerdict verdict = watch.update(WindowState::Hidden, cfg);
    ASSERT_TRUE(verdict);
    EXPECT_EQ(verdict->input, Input::WindowChanged);
    EXPECT_EQ(verdict->text, "window unfocused -> hidden");
    EXPECT_FALSE(watch.update(WindowState::Hidden, cfg));
}

}  // namespace
}  // namespace pacer::detail
