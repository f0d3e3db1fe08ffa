// test_auto.cpp: auto's choice between vsync and timer, proven by a probe and
// kept under watch, and the decisions that explain it; explicit vsync's
// honesty. A fake display swaps on a vblank grid, or returns at once (Xvfb),
// under a fake clock.
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
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;
using pacer::testing::contains;

namespace {

// Frames a probe takes where nothing reports shown frames: the first has no
// interval, the next straddles the switch, and 32 are judged (kSteadyFrames).
constexpr int kProbe = 34;

using Intervals = std::vector<int>;

// A window system. With a non-zero swap interval n accepted and `blocks`, a
// swap returns on the first vblank at or after now and at least n vblanks
// after the previous present; otherwise it returns after `nonblocking_ns`.
class FakeDisplay final : public Host {
public:
    FakeDisplay(FakeClock& clock, double refresh_hz) : clock_(clock), refresh(refresh_hz) {}

    bool set_swap_interval(int value) override {
        requests.push_back(value);
        if (!accepts) return false;
        interval = value;
        return true;
    }
    double refresh_rate_hz() override { return refresh; }

    void swap() {
        if (interval > 0 && blocks && refresh > 0) {
            // The first vblank at or after now, and n vblanks (less half a
            // period, for rounding) after the last present.
            const double vblank_ns = period_ns_of(actual_hz > 0 ? actual_hz : refresh);
            double earliest = static_cast<double>(clock_.now_ns());
            if (last_present_ns >= 0)
                earliest = std::max(earliest, static_cast<double>(last_present_ns) + (interval - 0.5) * vblank_ns);
            if (queued_ < queue_frames) {   // the queue takes it: a short wait
                ++queued_;
                clock_.advance(queue_return_ns);
                return;
            }
            last_present_ns = std::llround(std::ceil(earliest / vblank_ns) * vblank_ns);
            clock_.set(last_present_ns + late());
        } else {
            clock_.advance(nonblocking_ns);
        }
    }

    FakeClock& clock_;
    double refresh;
    double actual_hz = 0;   // vblanks at this rate, not the stated one (a change the host hides); 0: stated
    bool accepts = true;
    bool blocks = true;
    int64_t nonblocking_ns = 2'100'000;   // what Xvfb does at "interval 1"
    int64_t return_late_ns = 0;           // a blocking swap returns up to this long after its vblank
    int queue_frames = 0;                 // the first swaps at an interval return early (a queue fills) ...
    int64_t queue_return_ns = 9'000'000;  // ... after this long
    int interval = 0;
    std::vector<int> requests;

private:
    // A fixed pseudo-random lateness in [0, return_late_ns).
    int64_t late() {
        if (return_late_ns <= 0) return 0;
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int64_t>(static_cast<double>(state_ >> 11) / 9007199254740992.0 *
                                    static_cast<double>(return_late_ns));
    }
    int64_t last_present_ns = -1;
    uint64_t state_ = 4242;
    int queued_ = 0;
};

struct AutoRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    FakeDisplay display;
    std::unique_ptr<Pacer> pacer;

    // accepts and blocks: the display's answers from the start.
    AutoRig(double refresh_hz, double target_hz, Strategy strategy = Strategy::Auto, bool accepts = true,
            bool blocks = true)
        : display(clock, refresh_hz) {
        display.accepts = accepts;
        display.blocks = blocks;
        Config c = fake_config(clock, sleeper, target_hz, strategy);
        c.host = &display;
        pacer = std::make_unique<Pacer>(c);
    }
    // One frame of the engine: wait, work, swap, mark the present.
    Frame frame(int64_t work_ns = 2 * kNsPerMs) {
        const Frame f = pacer->wait();
        clock.advance_busy(work_ns);
        display.swap();
        pacer->mark_present();
        return f;
    }
    void frames(int n, int64_t work_ns = 2 * kNsPerMs) {
        for (int i = 0; i < n; ++i) frame(work_ns);
    }
    // Frames until the clock has moved by at least duration_ns.
    void run_for(int64_t duration_ns, int64_t work_ns = 2 * kNsPerMs) {
        const int64_t end = clock.now_ns() + duration_ns;
        while (clock.now_ns() < end) frame(work_ns);
    }
    const Decision& decision() const { return pacer->decision(); }
};

}  // namespace

TEST(AutoProbe, VsyncThatWorksIsConfirmedAndKept) {
    AutoRig rig(60, 60);
    EXPECT_EQ(rig.display.requests, Intervals{1});
    EXPECT_TRUE(rig.decision().probing);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync (probing): 60 Hz / 1, measuring presents");
    rig.frames(kProbe);
    EXPECT_FALSE(rig.decision().probing);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().swap_interval, 1);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 32 of 32 within 0.5 ms of their median");
    const int32_t seq = rig.decision().seq;
    EXPECT_EQ(seq, 1);   // the probe confirmed is the same decision, its reason updated
    rig.run_for(60 * kNsPerSecond);
    EXPECT_EQ(rig.decision().seq, seq);   // nothing to change its mind
    EXPECT_EQ(rig.display.requests, Intervals{1});
    EXPECT_TRUE(rig.sleeper.until_requests.empty());   // the display paced, not the timer
    const Frame f = rig.frame();
    EXPECT_EQ(f.strategy, Strategy::Vsync);
    EXPECT_EQ(f.decision_seq, seq);
}

TEST(AutoProbe, HalfTheRefreshUsesIntervalTwo) {
    AutoRig rig(120, 60);
    EXPECT_EQ(rig.display.requests, Intervals{2});
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (120 Hz / 2), 32 of 32 within 0.5 ms of their median");
}

// KWin's virtual output: the swaps block at the refresh but return up to 3
// ms after it, so the presents are as uneven as that, while a timer's would
// not be. Nothing reports shown frames: auto judges the presents, takes the
// timer, saying how uneven they were, and does not try again for 64 s.
TEST(AutoProbe, BlockingSwapsThatReturnUnevenlyLeaveVsyncForTheTimer) {
    AutoRig rig(60, 60);
    rig.display.return_late_ns = 3 * kNsPerMs;
    int probed = 0;   // frames until the probe ended: 8 uneven of 32 end it early
    while (rig.decision().in_force == Strategy::Vsync && probed < kProbe) rig.frame(), ++probed;
    EXPECT_LT(probed, kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason, "auto -> timer: vsync presents off their median (16.")) << rig.decision().reason;
    EXPECT_TRUE(contains(rig.decision().reason, "ms) by > 0.5 ms in ")) << rig.decision().reason;
    EXPECT_TRUE(contains(rig.decision().reason, "; retry in 64 s"))
        << rig.decision().reason;
    const int32_t seq = rig.decision().seq;
    EXPECT_EQ(seq, 2);
    rig.run_for(60 * kNsPerSecond);
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_EQ(rig.display.requests, (Intervals{1, 0}));
    // Steady through the probe, uneven later: left once a second, wholly
    // new watch window holds 8 uneven presents too (a burst is one window).
    AutoRig later(60, 60);
    later.frames(kProbe);
    ASSERT_EQ(later.decision().in_force, Strategy::Vsync);
    later.display.return_late_ns = 3 * kNsPerMs;
    later.frames(30);
    EXPECT_EQ(later.decision().in_force, Strategy::Vsync) << "one uneven window is not yet a compositor's way";
    later.frames(50);
    EXPECT_EQ(later.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(later.decision().reason, "vsync presents off their median")) << later.decision().reason;
    // Swaps that return within a few hundred us of their vblank (sway's
    // headless output) are steady: vsync is kept, for good.
    AutoRig steady(60, 60);
    steady.display.return_late_ns = 300'000;
    steady.frames(kProbe);
    EXPECT_EQ(steady.decision().in_force, Strategy::Vsync) << steady.decision().reason;
    const int32_t kept = steady.decision().seq;
    steady.run_for(30 * kNsPerSecond);
    EXPECT_EQ(steady.decision().seq, kept) << steady.decision().reason;
}

// A compositor queue takes the first few swaps early (KWin's under GLFW:
// 11.4 ms over the first 8): the median is fast, but over half the period.
// The probe looks further, and vsync is confirmed in one probe (1 decision,
// the probe's, confirmed in place; it was left, retried 2 s later, and made 3).
TEST(AutoProbe, AQueueThatFillsFirstDoesNotEndTheProbe) {
    AutoRig rig(60, 60);
    rig.display.queue_frames = 5;
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync) << rig.decision().reason;
    EXPECT_FALSE(rig.decision().probing);
    EXPECT_EQ(rig.decision().seq, 1);
    // A swap that never blocks still ends the probe at 8 intervals.
    AutoRig never(60, 60, Strategy::Auto, true, /*blocks=*/false);
    never.frames(10);
    EXPECT_EQ(never.decision().in_force, Strategy::Timer);
}

// The swaps that fill a queue as vsync comes on return at once, and the one
// after them waits part of a refresh (sway's under GLFW: 2.9, 5.7, 15.1 ms):
// the probe judges the swaps' steadiness after those. Here the swaps after
// them return up to 1.3 ms after their vblank, 6 of the 29 intervals off
// their median by more than 0.5 ms: too few to end vsync. Counted with the
// queue's, 8 of the first 20 were, and ended it.
TEST(AutoProbe, TheQueuesFirstSwapsAreNotJudgedForSteadiness) {
    AutoRig rig(60, 60);
    rig.display.queue_frames = 2;
    rig.display.queue_return_ns = 2'900'000;
    rig.display.return_late_ns = 1'300'000;
    rig.frames(kProbe + 4);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync) << rig.decision().reason;
    EXPECT_TRUE(contains(rig.decision().reason, "23 of 29 within 0.5 ms of their median")) << rig.decision().reason;
    EXPECT_EQ(rig.decision().seq, 1);
}

TEST(AutoProbe, VsyncRefusedMeansTimerWithoutRetries) {
    AutoRig rig(60, 60, Strategy::Auto, /*accepts=*/false);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: swap interval 1 refused");
    rig.run_for(100 * kNsPerSecond);
    EXPECT_EQ(rig.display.requests, Intervals{1});   // no retry until something changes
    const Frame f = rig.frame();
    EXPECT_EQ(f.strategy, Strategy::Timer);
    EXPECT_NEAR(f.interval_ns, 16'666'667, 1);
}

TEST(AutoProbe, AcceptedButNeverBlockingFallsBackToTimerAndRetriesWithBackoff) {
    AutoRig rig(60, 60, Strategy::Auto, true, /*blocks=*/false);   // Xvfb: accepted, swaps return at once
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().swap_interval, 0);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: vsync requested, swaps return every 4.1 ms; retry in 2 s");
    EXPECT_EQ(rig.display.requests, (Intervals{1, 0}));
    // The timer paces from here: whole periods, not 4.1 ms frames.
    rig.frame();
    EXPECT_NEAR(rig.frame().interval_ns, 16'666'667, 1);
    // Retries at 2 s, then 4, 8, 16 s after each failure: four more probes in 31 s.
    rig.run_for(31 * kNsPerSecond);
    int probes = 0;
    for (int r : rig.display.requests) probes += r == 1;
    EXPECT_EQ(probes, 5);
    EXPECT_TRUE(contains(rig.decision().reason, "retry in 32 s"));
}

TEST(AutoProbe, SwapsThatCostTheWorkOnlyAreNotVsync) {
    // The measured interval is work + swap: 2 + 2.1 ms. Even a slow non-blocking
    // swap that happens to land near the period is judged by its median.
    AutoRig rig(60, 60, Strategy::Auto, true, /*blocks=*/false);
    rig.display.nonblocking_ns = 3 * kNsPerMs;
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason, "swaps return every 5.0 ms"));
}

TEST(AutoProbe, UnknownRefreshMeansTimerUntilItIsKnown) {
    AutoRig rig(0, 60);   // Xvfb reports 0 Hz
    EXPECT_TRUE(rig.display.requests.empty());
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: refresh rate unknown");
    rig.run_for(5 * kNsPerSecond);
    EXPECT_TRUE(rig.display.requests.empty());   // nothing to retry
    rig.display.refresh = 60;                    // the window reached a real display
    const int64_t changed = rig.clock.now_ns();
    while (rig.display.requests.empty() && rig.clock.now_ns() - changed < 2 * kNsPerSecond) rig.frame();
    EXPECT_LE(rig.clock.now_ns() - changed, 1 * kNsPerSecond + 17 * kNsPerMs);   // read at most a second later
    EXPECT_EQ(rig.display.requests, Intervals{1});
    EXPECT_EQ(rig.decision().reason, "refresh 0 Hz -> 60 Hz: auto -> vsync (probing): 60 Hz / 1, measuring presents");
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    // The first interval measured straddles the switch from the timer's grid.
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 31 of 32 within 0.5 ms of their median");
}

TEST(AutoProbe, TargetThatIsNotADivisorMeansTimer) {
    AutoRig rig(144, 100);
    EXPECT_TRUE(rig.display.requests.empty());
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: 100 Hz is not 144 Hz / n");
    rig.run_for(10 * kNsPerSecond);
    EXPECT_TRUE(rig.display.requests.empty());
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.target_hz = 72; }), "");   // 144 / 2 fits: probe at once
    EXPECT_EQ(rig.display.requests, Intervals{2});
    EXPECT_TRUE(rig.decision().probing);
}

TEST(AutoProbe, RefreshChangeMidRunRenegotiates) {
    AutoRig rig(120, 60);
    rig.frames(kProbe);
    ASSERT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (120 Hz / 2), 32 of 32 within 0.5 ms of their median");
    // The window moves to a 60 Hz display: interval 2 now presents at 30 Hz
    // until the pacer reads the new rate (within a second) and asks for 1.
    rig.display.refresh = 60;
    rig.run_for(1 * kNsPerSecond + 40 * kNsPerMs);
    EXPECT_EQ(rig.display.requests, (Intervals{2, 1}));
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 32 of 32 within 0.5 ms of their median");
    // Then to 144 Hz, where 60 does not fit: timer, swap interval off.
    rig.display.refresh = 144;
    rig.run_for(1 * kNsPerSecond + 40 * kNsPerMs);
    EXPECT_EQ(rig.display.requests, (Intervals{2, 1, 0}));
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "refresh 60 Hz -> 144 Hz: auto -> timer: 60 Hz is not 144 Hz / n");
}

TEST(AutoWatch, IntermittentMissesDoNotFlap) {
    AutoRig rig(60, 60);
    rig.frames(kProbe);
    const int32_t seq = rig.decision().seq;
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    // One frame in ten overruns the refresh (a missed vblank: 33 ms), for a minute.
    for (int i = 0; i < 3600; ++i) rig.frame(i % 10 == 0 ? 20 * kNsPerMs : 2 * kNsPerMs);
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.display.requests, Intervals{1});
}

TEST(AutoWatch, RepeatedMissesSwitchToTimer) {
    AutoRig rig(60, 60);
    rig.frames(kProbe);
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    // Every other frame misses: a quarter of the window is reached in 16 frames.
    for (int i = 0; i < 16; ++i) rig.frame(i % 2 == 0 ? 20 * kNsPerMs : 2 * kNsPerMs);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: vsync missed refreshes in 8 of the last 16 frames; retry in 2 s");
    EXPECT_EQ(rig.display.requests, (Intervals{1, 0}));
}

TEST(AutoWatch, VsyncThatStopsBlockingIsLeftAndFoundAgainWhenItRecovers) {
    AutoRig rig(60, 60);
    rig.frames(kProbe);
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    rig.display.blocks = false;   // e.g. the window got occluded and the driver stopped waiting
    rig.frames(8);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);   // the eighth fast present is seen at the next wait
    rig.frames(1);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason,
              "auto -> timer: swaps return every 4.1 ms (8 of the last 9 under half the vsync period); retry in 2 s");
    rig.display.blocks = true;
    rig.run_for(2 * kNsPerSecond + 700 * kNsPerMs);   // the retry after 2 s probes (34 frames) and confirms
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "auto -> vsync: presents every 16.7 ms (60 Hz / 1), 31 of 32 within 0.5 ms of their median");
    EXPECT_EQ(rig.display.requests, (Intervals{1, 0, 1}));
}

// SDL2 on Wayland keeps stating 60 Hz after the output went faster: the swaps
// still block, at 10 ms, neither under half nor over 1.5 vsync periods.
TEST(AutoWatch, SwapsAtAnotherRateThanStatedAreLeft) {
    AutoRig rig(60, 60);
    rig.frames(kProbe);
    ASSERT_EQ(rig.decision().in_force, Strategy::Vsync);
    rig.display.actual_hz = 100;
    rig.frames(20);   // the window still holds more 16.7 ms intervals than 10 ms ones
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    rig.frames(20);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason,
              "auto -> timer: swaps return every 10.0 ms (median of the last 32), not 16.7 ms; retry in 2 s");
    // The retry probes, sees the same, and stays on the timer.
    rig.run_for(2 * kNsPerSecond + 200 * kNsPerMs);
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_EQ(rig.decision().reason, "auto -> timer: vsync requested, swaps return every 10.0 ms; retry in 4 s");
    EXPECT_EQ(rig.display.requests, (Intervals{1, 0, 1, 0}));
}

TEST(AutoWatch, WithoutMarkPresentTheWakesAreTheEvidence) {
    AutoRig rig(60, 60, Strategy::Auto, true, /*blocks=*/false);
    for (int i = 0; i < 10; ++i) {   // no mark_present
        rig.pacer->wait();
        rig.clock.advance_busy(2 * kNsPerMs);
        rig.display.swap();
    }
    EXPECT_EQ(rig.decision().in_force, Strategy::Timer);
    EXPECT_TRUE(contains(rig.decision().reason, "swaps return every 4.1 ms"));
}

TEST(Decisions, EachFrameCarriesTheDecisionInForce) {
    AutoRig rig(60, 60);
    std::vector<int32_t> seqs;
    for (int i = 0; i < kProbe + 2; ++i) seqs.push_back(rig.frame().decision_seq);
    EXPECT_EQ(seqs.front(), 1);   // probing
    EXPECT_EQ(seqs.back(), 1);    // confirmed: the same decision, its reason updated
    EXPECT_FALSE(rig.decision().probing);
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.strategy = Strategy::Spin; }), "");
    EXPECT_EQ(rig.decision().seq, 2);
    EXPECT_EQ(rig.decision().reason, "spin: asked for");
    EXPECT_EQ(rig.decision().requested, Strategy::Spin);
    EXPECT_EQ(rig.frame().decision_seq, 2);
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.strategy = Strategy::Spin; }), "");   // no change, no new decision
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.target_hz = 30; }), "");
    EXPECT_EQ(rig.decision().seq, 2);
}

TEST(Decisions, SettingTheSameValuesAgainDoesNotReprobe) {
    AutoRig rig(60, 60);
    rig.frames(kProbe);
    ASSERT_FALSE(rig.decision().probing);
    const int32_t seq = rig.decision().seq;
    for (int i = 0; i < 100; ++i) {   // a UI that applies its settings every frame
        EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.strategy = Strategy::Auto; }), "");
        EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.target_hz = 60; }), "");
        rig.frame();
    }
    EXPECT_EQ(rig.decision().seq, seq);
    EXPECT_FALSE(rig.decision().probing);
    EXPECT_EQ(rig.display.requests, Intervals{1});
}

TEST(Decisions, SwitchingToAutoReadsTheRefreshAfresh) {
    AutoRig rig(60, 60, Strategy::Timer);
    rig.run_for(3 * kNsPerSecond);
    rig.display.refresh = 120;   // not read while timer was asked for
    EXPECT_EQ(pacer::testing::reconfigure_with(*rig.pacer, [&](Config& c) { c.strategy = Strategy::Auto; }), "");
    EXPECT_EQ(rig.display.requests, Intervals{2});
    EXPECT_EQ(rig.decision().reason, "auto -> vsync (probing): 120 Hz / 2, measuring presents");
}

TEST(Decisions, TheTimerFallbackIsSaid) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.high_res_timer = false;
    Pacer pacer(fake_config(clock, sleeper, 60, Strategy::Timer));
    EXPECT_EQ(pacer.decision().reason, "timer: asked for (no high-resolution timer: robust_sleep)");
    EXPECT_EQ(pacer.decision().in_force, Strategy::Timer);
}

TEST(ExplicitVsync, NonBlockingSwapsAreReportedButVsyncStays) {
    AutoRig rig(60, 60, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason, "vsync: swap interval 1 at 60 Hz");
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().seq, 1);   // healthy: nothing new to say
    rig.display.blocks = false;
    rig.frames(kProbe);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    // Said in the reason; what is in force did not change: no new decision.
    EXPECT_EQ(rig.decision().seq, 1);
    EXPECT_EQ(rig.decision().reason, "vsync: swap interval 1, but swaps return every 4.1 ms (not blocking)");
    EXPECT_EQ(rig.display.requests, Intervals{1});   // it never turned vsync off
    // Recovery is said too, once nearly the whole window is fine again.
    rig.display.blocks = true;
    rig.frames(20);
    EXPECT_TRUE(contains(rig.decision().reason, "not blocking")) << rig.decision().reason;
    rig.frames(12);
    EXPECT_EQ(rig.decision().seq, 1);
    EXPECT_EQ(rig.decision().reason, "vsync: swap interval 1, presents every 16.7 ms");
}

TEST(ExplicitVsync, SwapsAtAnotherRateThanStatedAreReported) {
    AutoRig rig(60, 60, Strategy::Vsync);
    rig.frames(40);
    rig.display.actual_hz = 100;
    rig.frames(40);
    EXPECT_EQ(rig.decision().in_force, Strategy::Vsync);
    EXPECT_EQ(rig.decision().reason,
              "vsync: swap interval 1, but swaps return every 10.0 ms (median of the last 32), not 16.7 ms");
    rig.display.actual_hz = 0;
    rig.frames(40);
    EXPECT_EQ(rig.decision().reason, "vsync: swap interval 1, presents every 16.7 ms");
    EXPECT_EQ(rig.display.requests, Intervals{1});
}

TEST(ExplicitVsync, RefusedOrHostlessSaysWhy) {
    AutoRig refused(60, 60, Strategy::Vsync, /*accepts=*/false);
    EXPECT_EQ(refused.decision().reason, "vsync -> timer: swap interval 1 refused");
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer hostless(fake_config(clock, sleeper, 60, Strategy::Vsync));
    EXPECT_EQ(hostless.decision().reason, "vsync -> timer: no host to set the swap interval");
    EXPECT_EQ(hostless.decision().in_force, Strategy::Timer);
}
