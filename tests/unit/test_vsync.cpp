// test_vsync.cpp: vsync and auto through the Host hooks: accepted, refused,
// no host, unknown refresh, and leaving vsync.
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

class VsyncHost final : public Host {
public:
    VsyncHost(double refresh_hz, bool accept) : refresh(refresh_hz), accepts(accept) {}
    bool set_swap_interval(int interval) override {
        requests.push_back(interval);
        return accepts;
    }
    double refresh_rate_hz() override { return refresh; }

    double refresh;
    bool accepts;
    std::vector<int> requests;
};

using Intervals = std::vector<int>;

struct VsyncRig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    Config config(double hz, Strategy strategy, Host* host) {
        Config c = fake_config(clock, sleeper, hz, strategy);
        c.host = host;
        return c;
    }
};

}  // namespace

TEST(Vsync, AcceptedSetsTheIntervalAndDoesNotSleep) {
    VsyncRig rig;
    VsyncHost host(120, true);
    Pacer pacer(rig.config(60, Strategy::Vsync, &host));
    EXPECT_EQ(host.requests, Intervals{2});   // 120 Hz display, 60 Hz target: every 2nd refresh
    EXPECT_EQ(pacer.status().strategy, Strategy::Vsync);
    pacer.wait();
    for (int i = 0; i < 10; ++i) {
        rig.clock.advance(16'600'000);   // the swap blocked this long
        const int64_t t = rig.clock.now_ns();
        const Frame f = pacer.wait();
        EXPECT_EQ(f.wake_ns, t);                       // returned at once
        EXPECT_EQ(f.strategy, Strategy::Vsync);
        EXPECT_EQ(f.slept_ns + f.spun_ns, 0);
        EXPECT_EQ(f.interval_ns, 16'600'000);
        EXPECT_EQ(f.deadline_ns, t - 16'600'000 + 16'666'667);   // follows the wakes
    }
    EXPECT_TRUE(rig.sleeper.until_requests.empty());
    EXPECT_TRUE(rig.sleeper.sleep_requests.empty());
    EXPECT_EQ(rig.sleeper.pauses, 0);
}

TEST(Vsync, UnknownRefreshAsksForEveryRefresh) {
    VsyncRig rig;
    VsyncHost host(0, true);   // Xvfb reports 0
    Pacer pacer(rig.config(60, Strategy::Vsync, &host));
    EXPECT_EQ(host.requests, Intervals{1});
    EXPECT_EQ(pacer.status().strategy, Strategy::Vsync);
}

TEST(Vsync, RefusedWaitsAsTimer) {
    VsyncRig rig;
    VsyncHost host(60, false);
    Pacer pacer(rig.config(60, Strategy::Vsync, &host));
    EXPECT_EQ(host.requests, Intervals{1});
    EXPECT_EQ(pacer.status().strategy, Strategy::Timer);
    const int64_t d0 = pacer.wait().deadline_ns;
    const Frame f = pacer.wait();
    EXPECT_EQ(f.strategy, Strategy::Timer);
    EXPECT_EQ(f.deadline_ns, d0 + 16'666'667);
    EXPECT_EQ(f.wake_ns, f.deadline_ns);
    EXPECT_EQ(rig.sleeper.until_requests.size(), 1u);
}

TEST(Vsync, NoHostWaitsAsTimer) {
    VsyncRig rig;
    Pacer pacer(rig.config(60, Strategy::Vsync, nullptr));
    EXPECT_EQ(pacer.status().strategy, Strategy::Timer);
    pacer.wait();
    EXPECT_EQ(pacer.wait().strategy, Strategy::Timer);
}

TEST(Vsync, LeavingVsyncTurnsTheSwapIntervalOff) {
    VsyncRig rig;
    VsyncHost host(60, true);
    Pacer pacer(rig.config(60, Strategy::Vsync, &host));
    pacer.wait();
    rig.clock.advance(16 * kNsPerMs);
    const Frame v = pacer.wait();
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.strategy = Strategy::Spin; }), "");
    EXPECT_EQ(host.requests, (Intervals{1, 0}));
    EXPECT_EQ(pacer.status().strategy, Strategy::Spin);
    const Frame s = pacer.wait();   // the grid goes on from the last vsync deadline
    EXPECT_EQ(s.deadline_ns, v.deadline_ns + 16'666'667);
    EXPECT_EQ(s.strategy, Strategy::Spin);
}

TEST(Vsync, RateChangeRenegotiatesTheInterval) {
    VsyncRig rig;
    VsyncHost host(120, true);
    Pacer pacer(rig.config(60, Strategy::Vsync, &host));
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 120; }), "");
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 40; }), "");
    EXPECT_EQ(host.requests, (Intervals{2, 1, 3}));
}

TEST(Vsync, DestroyingThePacerTurnsTheSwapIntervalOff) {
    VsyncRig rig;
    VsyncHost host(60, true);
    { Pacer pacer(rig.config(60, Strategy::Vsync, &host)); }
    EXPECT_EQ(host.requests, (Intervals{1, 0}));
}

TEST(Auto, ChoosesVsyncWhenTheTargetIsAWholeDivisorOfTheRefresh) {
    VsyncRig rig;
    VsyncHost host(144, true);
    Pacer pacer(rig.config(72, Strategy::Auto, &host));
    EXPECT_EQ(host.requests, Intervals{2});
    EXPECT_EQ(pacer.status().strategy, Strategy::Vsync);
    EXPECT_EQ(pacer.config().strategy, Strategy::Auto);   // what was asked stays visible
    pacer.wait();
    EXPECT_EQ(pacer.wait().strategy, Strategy::Vsync);
}

TEST(Auto, ToleratesHalfAPercent) {
    VsyncRig rig;
    VsyncHost ntsc(59.94, true);   // 0.1 % under 60
    EXPECT_EQ(Pacer(rig.config(60, Strategy::Auto, &ntsc)).status().strategy, Strategy::Vsync);
    VsyncHost near(143.5, true);   // 0.35 % under 144
    EXPECT_EQ(Pacer(rig.config(144, Strategy::Auto, &near)).status().strategy, Strategy::Vsync);
    VsyncHost far(140, true);      // 2.8 % under 144
    EXPECT_EQ(Pacer(rig.config(144, Strategy::Auto, &far)).status().strategy, Strategy::Timer);
    EXPECT_TRUE(far.requests.empty());
}

TEST(Auto, TimerWhenTheRateDoesNotFit) {
    VsyncRig rig;
    VsyncHost host(144, true);
    Pacer pacer(rig.config(100, Strategy::Auto, &host));   // 144 / 100: not whole
    EXPECT_TRUE(host.requests.empty());
    EXPECT_EQ(pacer.status().strategy, Strategy::Timer);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 144; }), "");   // fits now
    EXPECT_EQ(host.requests, Intervals{1});
    EXPECT_EQ(pacer.status().strategy, Strategy::Vsync);
    EXPECT_EQ(pacer::testing::reconfigure_with(pacer, [&](Config& c) { c.target_hz = 100; }), "");   // no longer: back to timer, swap interval off
    EXPECT_EQ(host.requests, (Intervals{1, 0}));
    EXPECT_EQ(pacer.status().strategy, Strategy::Timer);
}

TEST(Auto, TimerWhenRefreshUnknownRefusedOrNoHost) {
    VsyncRig rig;
    VsyncHost unknown(0, true);
    EXPECT_EQ(Pacer(rig.config(60, Strategy::Auto, &unknown)).status().strategy, Strategy::Timer);
    EXPECT_TRUE(unknown.requests.empty());
    VsyncHost refusing(60, false);
    EXPECT_EQ(Pacer(rig.config(60, Strategy::Auto, &refusing)).status().strategy, Strategy::Timer);
    EXPECT_EQ(refusing.requests, Intervals{1});
    EXPECT_EQ(Pacer(rig.config(60, Strategy::Auto, nullptr)).status().strategy, Strategy::Timer);
}
