// test_vrr.cpp: a display with variable refresh (Config::display.vrr) on the
// fake VRR panel (fakes.h): the cap, an even pace below the range, where the
// range comes from, and what the same panel does with VRR off.
#include "core/arbiter.h"
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace pacer;
using pacer::testing::contains;
using pacer::testing::fake_config;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::FakeVrrPanel;

namespace {

// A 48-144 Hz panel driven by an engine whose frames take 4 +- 1 ms of work
// (a fixed pseudo-random sequence), waiting before present or at the frame
// start.
struct VrrRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    FakeVrrPanel panel{clock, 48, 144};
    Config config;
    uint64_t state = 99;
    std::vector<double> work_ns;      // each frame's
    std::vector<double> latency_ns;   // from the start of a frame's work to its scanout

    explicit VrrRig(double target_hz, Strategy strategy = Strategy::Auto) {
        config = fake_config(clock, sleeper, target_hz, strategy);
        config.host = &panel;
    }
    int64_t work() {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = static_cast<double>(state >> 11) / 9007199254740992.0;
        return std::llround((3 + 2 * u) * kNsPerMs);
    }
    // frames through the loop; returns the decision at the end.
    Decision run(int frames) {
        Pacer pacer(config);
        for (int i = 0; i < frames; ++i) {
            const int64_t w = work();
            work_ns.push_back(static_cast<double>(w));
            if (config.wait_point == WaitPoint::BeforePresent) {
                const int64_t began = clock.now_ns();
                clock.advance(w);
                const Frame frame = pacer.wait();
                panel.swap(frame.index);
                latency_ns.push_back(panel.shown.back().at_ns - static_cast<double>(began));
            } else {
                const Frame frame = pacer.wait();
                clock.advance(w);
                panel.swap(frame.index);
                latency_ns.push_back(panel.shown.back().at_ns - static_cast<double>(frame.wake_ns));
            }
            pacer.mark_present();
        }
        return pacer.decision();
    }
    // Shown intervals after the first `skip` frames.
    std::vector<double> intervals(size_t skip = 8) const {
        std::vector<double> out;
        for (size_t i = std::max<size_t>(skip, 1); i < panel.shown.size(); ++i)
            out.push_back(panel.shown[i].at_ns - panel.shown[i - 1].at_ns);
        return out;
    }
};

double share_within(const std::vector<double>& values, double centre, double tolerance) {
    const auto in = std::count_if(values.begin(), values.end(),
                                  [&](double v) { return std::fabs(v - centre) <= tolerance; });
    return static_cast<double>(in) / static_cast<double>(values.size());
}

double median(std::vector<double> values) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

}  // namespace

TEST(Vrr, CapIsGodotsFormula) {
    EXPECT_NEAR(detail::vrr_cap_hz(60), 59, 1e-9);
    EXPECT_NEAR(detail::vrr_cap_hz(144), 138.24, 1e-9);
    EXPECT_NEAR(detail::vrr_cap_hz(240), 224, 1e-9);
    EXPECT_EQ(detail::vrr_cap_hz(0), 0);
    EXPECT_NEAR(detail::vrr_cap_hz(3000), 1500, 1e-9);   // past the formula's turn: max / 2
}

// The panel: target 144 on 48-144 Hz, 6,000 frames. Waiting before
// present, the frames reach the panel on the cap's grid, whatever their work.
TEST(Vrr, PacesAtTheCapWithEvenIntervals) {
    VrrRig rig(144);
    const Decision decision = rig.run(6000);
    EXPECT_EQ(decision.in_force, Strategy::Timer);
    EXPECT_EQ(decision.swap_interval, 0);
    EXPECT_TRUE(decision.vrr);
    EXPECT_NEAR(decision.pace_hz, 138.24, 1e-9);
    EXPECT_TRUE(contains(decision.reason, "cap 138.2")) << decision.reason;
    EXPECT_TRUE(contains(decision.reason, "48-144 Hz (fake panel)")) << decision.reason;
    EXPECT_GE(share_within(rig.intervals(), 1e9 / 138.24, 0.5e6), 0.999);
    EXPECT_EQ(rig.panel.torn, 0);
    EXPECT_EQ(rig.panel.requests, (std::vector<int>{1, 0}));   // vsync a ceiling, off when done
    // No frame waits for a refresh: each scanout begins the latch after its swap.
    for (const auto& shown : rig.panel.shown)
        ASSERT_NEAR(shown.at_ns - shown.swap_ns, static_cast<double>(rig.panel.latch_ns), 1) << shown.frame;
}

// Waiting at the frame start, the latency is the work and the latch: no
// frame waits for the display. (Its shown intervals carry the work's +- 1 ms:
// a panel that shows a frame as it comes shows it when the work ends.)
TEST(Vrr, FrameStartLatencyIsWorkAndLatch) {
    VrrRig rig(144);
    rig.config.wait_point = WaitPoint::FrameStart;
    rig.run(6000);
    const double latch_ms = ms_of(static_cast<double>(rig.panel.latch_ns));
    EXPECT_LE(ms_of(median(rig.latency_ns)), ms_of(median(rig.work_ns)) + latch_ms + 1.0);
    EXPECT_EQ(rig.panel.torn, 0);

    // The same panel with VRR off: auto trusts the stated 144 Hz, vsync
    // paces, and every frame waits for the panel's fastest refresh.
    VrrRig off(144);
    off.config.wait_point = WaitPoint::FrameStart;
    off.config.display.vrr = Vrr::Off;
    const Decision vsync = off.run(6000);
    EXPECT_EQ(vsync.in_force, Strategy::Vsync) << vsync.reason;
    EXPECT_GT(median(off.latency_ns), median(rig.latency_ns) + 1e6);
}

// The ceiling is what keeps those frames whole: where the swap interval is
// refused, a short frame after a long one comes sooner than the panel's
// fastest refresh and tears.
TEST(Vrr, WithoutTheCeilingFramesTear) {
    VrrRig rig(144);
    rig.config.wait_point = WaitPoint::FrameStart;
    rig.panel.accepts = false;
    const Decision decision = rig.run(6000);
    EXPECT_TRUE(contains(decision.reason, "vsync refused as a ceiling")) << decision.reason;
    EXPECT_GT(rig.panel.torn, 1000) << rig.panel.torn;
}

// Below the range (target 40 on 48-144 Hz) the driver shows each frame
// twice; an even pace keeps both even.
TEST(Vrr, BelowTheRangeKeepsAnEvenPace) {
    VrrRig rig(40);
    const Decision decision = rig.run(6000);
    EXPECT_NEAR(decision.pace_hz, 40, 1e-9);
    EXPECT_TRUE(contains(decision.reason, "below the range")) << decision.reason;
    EXPECT_GE(share_within(rig.intervals(), 25e6, 0.5e6), 0.999);
}

// A target under the cap stays; the config's range outranks the Host's; on
// with no range anywhere caps under the stated refresh; auto without the
// Host's word is off.
TEST(Vrr, WhereTheRangeComesFrom) {
    {
        VrrRig rig(100);
        EXPECT_NEAR(rig.run(10).pace_hz, 100, 1e-9);
    }
    {
        VrrRig rig(144);
        rig.config.display.vrr_min_hz = 40;
        rig.config.display.vrr_max_hz = 120;
        const Decision decision = rig.run(10);
        EXPECT_NEAR(decision.pace_hz, 116, 1e-9);
        EXPECT_TRUE(contains(decision.reason, "40-120 Hz (Config::display)")) << decision.reason;
    }
    {
        VrrRig rig(144);
        rig.panel.states_vrr = false;
        rig.config.display.vrr = Vrr::On;
        const Decision decision = rig.run(10);
        EXPECT_NEAR(decision.pace_hz, 138.24, 1e-9);
        EXPECT_TRUE(contains(decision.reason, "up to the stated refresh")) << decision.reason;
    }
    {
        VrrRig rig(144);
        rig.panel.states_vrr = false;
        const Decision decision = rig.run(10);
        EXPECT_FALSE(decision.vrr);
        EXPECT_NEAR(decision.pace_hz, 144, 1e-9);
    }
    {   // the explicit timer is capped too; its waiter stays its own
        VrrRig rig(144, Strategy::Spin);
        const Decision decision = rig.run(10);
        EXPECT_EQ(decision.in_force, Strategy::Spin);
        EXPECT_NEAR(decision.pace_hz, 138.24, 1e-9);
    }
}

// The Host turns VRR on and off live (a window moved to another monitor):
// one new decision each way, read within a second.
TEST(Vrr, FollowsTheHostLive) {
    VrrRig rig(144);
    rig.panel.states_vrr = false;
    Pacer pacer(rig.config);
    auto frames = [&](int n) {
        for (int i = 0; i < n; ++i) {
            const Frame frame = pacer.wait();
            rig.clock.advance(rig.work());
            rig.panel.swap(frame.index);
            pacer.mark_present();
        }
    };
    frames(300);
    EXPECT_FALSE(pacer.decision().vrr);
    const int32_t before = pacer.decision().seq;
    rig.panel.states_vrr = true;
    frames(200);   // 1.4 s
    EXPECT_TRUE(pacer.decision().vrr);
    EXPECT_EQ(pacer.decision().seq, before + 1);
    EXPECT_TRUE(contains(pacer.decision().reason, "VRR on: ")) << pacer.decision().reason;
}
