// test_background.cpp: a window in the background (Config::background_hz,
// hidden_hz; Host::window_state) on the fake compositor: the rate drops at
// the first wait after the window loses the focus or is hidden, comes back
// at the first after it returns, with no catch-up frames, and a hidden
// window's swap never blocks.
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace pacer;
using pacer::testing::contains;
using pacer::testing::fake_config;
using pacer::testing::FakeClock;
using pacer::testing::FakeCompositor;
using pacer::testing::FakeSleeper;
using pacer::testing::kPeriod60_ns;

namespace {

struct Rig {
    FakeClock clock;
    FakeSleeper sleeper{clock};
    FakeCompositor display{clock, kPeriod60_ns, 60};
    Config config;
    std::vector<Frame> frames;

    explicit Rig(Strategy strategy) {
        config = fake_config(clock, sleeper, 60, strategy);
        config.host = &display;
    }
    // n frames of 3 ms work, waiting before present.
    void run(Pacer& pacer, int n) {
        for (int i = 0; i < n; ++i) {
            clock.advance(3 * kNsPerMs);
            const Frame frame = pacer.wait();
            frames.push_back(frame);
            display.swap(frame.index);
            pacer.mark_present();
        }
    }
};

// The interval into frame i, ms.
double interval_ms(const std::vector<Frame>& frames, size_t i) { return ms_of(static_cast<double>(frames[i].interval_ns)); }

}  // namespace

TEST(Background, DropsAndRecoversWithinOneFrame) {
    for (Strategy strategy : {Strategy::Timer, Strategy::Vsync, Strategy::Auto}) {
        SCOPED_TRACE(strategy_name(strategy));
        Rig rig(strategy);
        Pacer pacer(rig.config);
        rig.run(pacer, 300);
        const Strategy front = pacer.decision().in_force;

        rig.display.window = WindowState::Unfocused;
        rig.run(pacer, 60);
        EXPECT_EQ(pacer.decision().window, WindowState::Unfocused);
        EXPECT_EQ(pacer.decision().in_force, Strategy::Timer);
        EXPECT_EQ(pacer.decision().pace_hz, 30);
        EXPECT_TRUE(contains(pacer.decision().reason, "window unfocused, paced at 30 Hz (background_hz)"))
            << pacer.decision().reason;
        EXPECT_EQ(rig.display.interval, 0);   // the swap no longer blocks
        // The first wait after the change is already 30 Hz's, and so is each after.
        for (size_t i = 300; i < 360; ++i) ASSERT_NEAR(interval_ms(rig.frames, i), 1000.0 / 30, 0.01) << i;

        rig.display.window = WindowState::Hidden;
        rig.run(pacer, 20);
        EXPECT_EQ(pacer.decision().pace_hz, 10);
        for (size_t i = 360; i < 380; ++i) ASSERT_NEAR(interval_ms(rig.frames, i), 100, 0.01) << i;

        // Back in front: the first wait is 60 Hz's, none shorter (no catch-up).
        rig.display.window = WindowState::Foreground;
        rig.run(pacer, 300);
        EXPECT_EQ(pacer.decision().window, WindowState::Foreground);
        EXPECT_EQ(pacer.decision().pace_hz, 60);
        EXPECT_EQ(pacer.decision().in_force, front) << pacer.decision().reason;
        // The timer's grid: the first wait is 60 Hz's. Vsync's first wait
        // returns at once (its swap is the wait) and the swap after it
        // blocks to the next refresh: on screen, one frame a refresh.
        if (strategy == Strategy::Timer) {
            for (size_t i = 380; i < rig.frames.size(); ++i)
                ASSERT_NEAR(interval_ms(rig.frames, i), 1000.0 / 60, 0.01) << i;
        }
        for (size_t i = 380; i < rig.frames.size(); ++i) ASSERT_EQ(rig.frames[i].missed, 0) << i;
        EXPECT_EQ(rig.display.discarded, 0);
    }
}

// A target under the ceiling stays; 0 turns each rate off, and a hidden
// window with hidden_hz 0 takes background_hz.
TEST(Background, RatesAreCeilingsAndZeroIsOff) {
    Rig rig(Strategy::Timer);
    rig.config.target_hz = 20;
    rig.config.hidden_hz = 0;
    Pacer pacer(rig.config);
    rig.display.window = WindowState::Unfocused;
    rig.run(pacer, 10);
    EXPECT_EQ(pacer.decision().pace_hz, 20);
    EXPECT_TRUE(contains(pacer.decision().reason, "the target 20 Hz, under background_hz 30 Hz")) << pacer.decision().reason;
    rig.display.window = WindowState::Hidden;
    rig.run(pacer, 10);
    EXPECT_EQ(pacer.decision().pace_hz, 20);

    Config off = rig.config;
    off.target_hz = 60;
    off.background_hz = 0;
    ASSERT_EQ(pacer.reconfigure(off), "");
    rig.run(pacer, 10);
    EXPECT_EQ(pacer.decision().pace_hz, 60);
    EXPECT_EQ(pacer.decision().window, WindowState::Hidden);
    EXPECT_NEAR(interval_ms(rig.frames, rig.frames.size() - 1), 1000.0 / 60, 0.01);
}

// A host that flaps between in front and unfocused every frame (auto: a
// vsync probe, then the timer, each frame): no wait is longer than the
// background's, none is skipped, the display never gets two frames for one
// refresh, and the pacer stays sane.
TEST(Background, FocusFlappingEveryFrame) {
    Rig rig(Strategy::Auto);
    Pacer pacer(rig.config);
    for (int i = 0; i < 1000; ++i) {
        rig.display.window = i % 2 == 0 ? WindowState::Unfocused : WindowState::Foreground;
        rig.run(pacer, 1);
    }
    for (size_t i = 1; i < rig.frames.size(); ++i) {
        ASSERT_LE(interval_ms(rig.frames, i), 1000.0 / 30 + 0.2) << i;
        ASSERT_EQ(rig.frames[i].missed, 0) << i;
    }
    EXPECT_EQ(rig.display.discarded, 0);   // never two frames for one refresh
    // A value no state has is taken as in front.
    rig.display.window = static_cast<WindowState>(77);
    rig.run(pacer, 3);
    EXPECT_EQ(pacer.decision().window, WindowState::Foreground);
}

// A hidden window under vsync (a Wayland surface that gets no frame
// callbacks): the swap is off, the wait is the timer's 100 ms, and
// interrupt() ends it within one 20 ms slice.
TEST(Background, AHiddenWindowsWaitIsBoundedAndInterruptible) {
    Rig rig(Strategy::Vsync);
    Pacer pacer(rig.config);
    rig.run(pacer, 60);
    ASSERT_EQ(rig.display.interval, 1);
    rig.display.window = WindowState::Hidden;
    rig.run(pacer, 3);
    EXPECT_EQ(rig.display.interval, 0);
    EXPECT_NEAR(interval_ms(rig.frames, rig.frames.size() - 1), 100, 0.01);
    int sleeps = 0;
    rig.sleeper.after_sleep = [&] {
        if (++sleeps == 2) pacer.interrupt();
    };
    const int64_t called = rig.clock.now_ns();
    const Frame cut = pacer.wait();
    EXPECT_TRUE(cut.interrupted);
    EXPECT_EQ(cut.wake_ns - called, 2 * 20 * kNsPerMs);
}

// The frame that notices the change ran past one new period (a loaded
// machine: 128 ms of work): its deadline is the moment it noticed, and the
// next one a whole period after, not a grid point the work ran past.
TEST(Background, WorkPastTheNewPeriodStartsTheGridAtOnce) {
    Rig rig(Strategy::Timer);
    Pacer pacer(rig.config);
    rig.run(pacer, 60);
    rig.display.window = WindowState::Hidden;
    rig.run(pacer, 10);
    rig.display.window = WindowState::Foreground;
    rig.clock.advance(125 * kNsPerMs);   // with run()'s 3 ms: 128 ms of work
    rig.run(pacer, 3);
    const size_t back = rig.frames.size() - 3;
    EXPECT_EQ(rig.frames[back].lateness_ns, 0);
    // The wake before it, its swap (2.1 ms, no vsync while hidden), the work.
    EXPECT_NEAR(interval_ms(rig.frames, back), ms_of(static_cast<double>(rig.display.nonblocking_ns)) + 128, 0.01);
    EXPECT_NEAR(interval_ms(rig.frames, back + 1), 1000.0 / 60, 0.01);   // not 5.7 ms: no grid point chased
    EXPECT_EQ(rig.frames[back + 1].missed, 0);
}
