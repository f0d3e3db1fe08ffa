// test_hostile_clock.cpp: what a Clock or a Host may do to the library and
// must not break: a clock that jumps back (between waits and mid-wait), one
// that stops while interrupt() is called, and shown-frame reports with any
// field at its extreme (UBSan checks the arithmetic in CI's sanitizer run).
#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

using namespace pacer;
using pacer::testing::fake_config;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;

namespace {

// Sleeps as the fake does; a spin turn runs a hook and moves no time (a
// clock that has stopped).
class StoppedSpin final : public Sleeper {
public:
    explicit StoppedSpin(FakeSleeper& sleeps) : sleeps_(sleeps) {}
    void sleep_ns(int64_t duration_ns) override { sleeps_.sleep_ns(duration_ns); }
    bool sleep_until_ns(int64_t deadline_ns) override { return sleeps_.sleep_until_ns(deadline_ns); }
    bool has_high_res_timer() const override { return true; }
    void pause() override {
        ++pauses;
        if (on_pause) on_pause();
    }
    int64_t scheduler_period_ns() const override { return 0; }
    std::function<void()> on_pause;
    int64_t pauses = 0;

private:
    FakeSleeper& sleeps_;
};

// A host whose every report is hostile: each field from a list of extremes.
class HostileReports final : public Host {
public:
    bool set_swap_interval(int) override { return true; }
    double refresh_rate_hz() override { return 60; }
    bool take_presented(Presented* out) override {
        if (given_ % 4 == 3) {   // a few a wait, then none
            ++given_;
            return false;
        }
        const int64_t extremes[] = {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), -1, 0,
                                    1, std::numeric_limits<int64_t>::max() - 1, 16'666'667};
        const std::size_t n = std::size(extremes);
        Presented p;
        p.frame_index = extremes[given_ % n];
        p.displayed_ns = extremes[(given_ / n) % n];
        p.refresh_ns = extremes[(given_ / (n * n)) % n];
        p.seq = given_ % 2 == 0 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(given_);
        p.discarded = given_ % 5 == 0;
        p.flags = static_cast<uint32_t>(given_);
        ++given_;
        *out = p;
        return true;
    }

private:
    int64_t given_ = 0;
};

// A host that hands out a script of reports, each once, from its
// start_at-th call on (so that vsync is already in force when they come).
class ScriptedReports final : public Host {
public:
    ScriptedReports(std::vector<Presented> script, int start_at) : script_(std::move(script)), start_at_(start_at) {}
    bool set_swap_interval(int) override { return true; }
    double refresh_rate_hz() override { return 60; }
    bool take_presented(Presented* out) override {
        if (++calls_ < start_at_ || next_ >= script_.size()) return false;
        *out = script_[next_++];
        return true;
    }

private:
    std::vector<Presented> script_;
    int start_at_;
    int calls_ = 0;
    std::size_t next_ = 0;
};

// Passes each of another host's reports on `times` times.
class RepeatingHost final : public Host {
public:
    RepeatingHost(Host& inner, int times) : inner_(inner), times_(times) {}
    bool set_swap_interval(int interval) override { return inner_.set_swap_interval(interval); }
    double refresh_rate_hz() override { return inner_.refresh_rate_hz(); }
    bool take_presented(Presented* out) override {
        if (left_ == 0) {
            if (!inner_.take_presented(&held_)) return false;
            left_ = times_;
        }
        --left_;
        *out = held_;
        return true;
    }

private:
    Host& inner_;
    int times_;
    int left_ = 0;
    Presented held_;
};

}  // namespace

TEST(HostileClock, AJumpBackBetweenWaitsReAnchorsTheGridAtOnce) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60, Strategy::Timer));
    for (int i = 0; i < 5; ++i) pacer.wait();
    for (const int64_t back : {kNsPerSecond, 1000 * kNsPerSecond}) {
        clock.set(clock.now_ns() - back);
        const int64_t called = clock.now_ns();
        const Frame jumped = pacer.wait();
        EXPECT_TRUE(jumped.resynced) << back;
        EXPECT_EQ(jumped.wake_ns, called) << "no wait of the jump";
        const Frame next = pacer.wait();   // then on the new grid, a period on
        EXPECT_EQ(next.deadline_ns, jumped.deadline_ns + 16'666'667) << back;
        EXPECT_LE(next.wake_ns - called, 17 * kNsPerMs) << back;
    }
}

TEST(HostileClock, AJumpBackMidWaitEndsTheWait) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 1, Strategy::Timer));   // waits of 1 s, in 20 ms slices
    pacer.wait();
    int sleeps = 0;
    sleeper.after_sleep = [&] {
        if (++sleeps == 2) clock.set(clock.now_ns() - 1000 * kNsPerSecond);
    };
    const int64_t called = clock.now_ns();
    const Frame cut = pacer.wait();
    sleeper.after_sleep = nullptr;
    // Two slices in, then the clock read 1000 s earlier: the wait ended there.
    EXPECT_EQ(sleeps, 2);
    EXPECT_LT(cut.wake_ns, called);
    const Frame next = pacer.wait();
    EXPECT_TRUE(next.resynced);
}

TEST(HostileClock, InterruptEndsASpinOnAStoppedClock) {
    FakeClock clock;
    FakeSleeper sleeps(clock);
    StoppedSpin sleeper(sleeps);
    for (const Strategy strategy : {Strategy::Spin, Strategy::Timer, Strategy::RobustSleep, Strategy::PreciseSleep}) {
        Config config = fake_config(clock, sleeps, 60, strategy);
        config.sleeper = &sleeper;
        Pacer pacer(config);
        pacer.wait();
        sleeper.pauses = 0;
        // The clock stops (no spin turn moves it); a signal comes 1,000 turns in.
        sleeper.on_pause = [&] {
            if (sleeper.pauses == 1000) pacer.interrupt();
        };
        const Frame cut = pacer.wait();
        sleeper.on_pause = nullptr;
        EXPECT_TRUE(cut.interrupted) << strategy_name(strategy);
        EXPECT_LE(sleeper.pauses, 1001) << strategy_name(strategy);
    }
}

TEST(HostileHost, ReportsAtEveryExtremeLeaveNoHarm) {
    for (const Strategy strategy : {Strategy::Auto, Strategy::DisplayLock, Strategy::Vsync}) {
        for (const WaitPoint point : {WaitPoint::BeforePresent, WaitPoint::FrameStart}) {
            FakeClock clock;
            FakeSleeper sleeper(clock);
            HostileReports host;
            Config config = fake_config(clock, sleeper, 60, strategy);
            config.host = &host;
            config.wait_point = point;
            Pacer pacer(config);
            for (int i = 0; i < 400; ++i) {
                const Frame f = pacer.wait();
                clock.advance_busy(3 * kNsPerMs);
                pacer.mark_present();
                EXPECT_GE(f.interval_ns, 0);
            }
            (void)pacer.stats().summarize();
            (void)pacer.status();
            const DisplayClock display = pacer.display();
            EXPECT_GE(display.period_ns, 0);
        }
    }
}

TEST(HostileHost, ARefreshNoDisplayHasIsNoStatement) {
    // The host states 1e9 Hz and reports a 1 ns refresh: neither is a rate
    // any display has. The clock is fitted from the shown frames alone.
    FakeClock clock;
    FakeSleeper sleeper(clock);
    pacer::testing::FakeCompositor display(clock, period_ns_of(60), 1e9);
    display.nonblocking_ns = 100'000;
    Config config = fake_config(clock, sleeper, 60, Strategy::Auto);
    config.host = &display;
    config.wait_point = WaitPoint::FrameStart;
    Pacer pacer(config);
    for (int i = 0; i < 240; ++i) {
        const Frame f = pacer.wait();
        clock.advance_busy(3 * kNsPerMs);
        display.swap(f.index);
        pacer.mark_present();
    }
    const DisplayClock fitted = pacer.display();
    ASSERT_TRUE(fitted.locked);
    EXPECT_NEAR(static_cast<double>(fitted.period_ns), period_ns_of(60), 1e3);
    EXPECT_EQ(pacer.decision().in_force, Strategy::DisplayLock) << pacer.decision().reason;
    EXPECT_NE(pacer.decision().reason.find("display states no refresh rate but shows frames every 16.7 ms"),
              std::string::npos)
        << pacer.decision().reason;
}

TEST(HostileHost, AShownFrameAtTheIndexLimitThenAnEarlierOneIsNoOverflow) {
    // Under vsync (and auto's probe of it) the arbiter compares each shown
    // frame with the one before: INT64_MAX, then 4. The sanitizer build
    // (tools/test.sh) aborts on any signed overflow here.
    for (const Strategy strategy : {Strategy::Vsync, Strategy::Auto}) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        Presented at_limit;
        at_limit.frame_index = std::numeric_limits<int64_t>::max();
        at_limit.displayed_ns = clock.now_ns() + 100 * kNsPerMs;
        Presented early;
        early.frame_index = 4;
        early.displayed_ns = clock.now_ns() + 120 * kNsPerMs;
        ScriptedReports host({at_limit, early}, 10);
        Config config = fake_config(clock, sleeper, 60, strategy);
        config.host = &host;
        Pacer pacer(config);
        for (int i = 0; i < 20; ++i) {
            const Frame f = pacer.wait();
            clock.advance_busy(3 * kNsPerMs);
            pacer.mark_present();
            EXPECT_GE(f.interval_ns, 0) << strategy_name(strategy);
        }
    }
}

TEST(HostileClock, DisplayLockAtTheInt64LimitSaturates) {
    // The clock runs into INT64_MAX under display_lock: every refresh, aim
    // and grid step saturates there (the sanitizer build aborts on overflow).
    FakeClock clock(std::numeric_limits<int64_t>::max() - 5 * kNsPerSecond);
    FakeSleeper sleeper(clock);
    pacer::testing::FakeCompositor display(clock, period_ns_of(60), 60);
    display.nonblocking_ns = 100 * kNsPerUs;
    Config config = fake_config(clock, sleeper, 60, Strategy::DisplayLock);
    config.host = &display;
    Pacer pacer(config);
    for (int i = 0; i < 400; ++i) {
        const Frame f = pacer.wait();
        clock.advance_busy(4 * kNsPerMs);
        display.swap(f.index);
        pacer.mark_present();
        EXPECT_GE(f.interval_ns, 0);
        EXPECT_LE(f.wake_ns, std::numeric_limits<int64_t>::max());
    }
    EXPECT_EQ(clock.now_ns(), std::numeric_limits<int64_t>::max()) << "the run reached the limit";
}

TEST(HostileHost, AReportPassedOnThriceIsJudgedOnce) {
    // The same display_lock run, its reports passed on once and three times:
    // the second says no more than the first.
    auto judged_and_missed = [](int times) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        pacer::testing::FakeCompositor display(clock, period_ns_of(60), 60);
        display.nonblocking_ns = 100 * kNsPerUs;
        display.latch_ns = 2 * kNsPerMs;
        RepeatingHost host(display, times);
        Config config = fake_config(clock, sleeper, 60, Strategy::DisplayLock);
        config.host = &host;
        Pacer pacer(config);
        for (int i = 0; i < 1200; ++i) {
            const Frame f = pacer.wait();
            clock.advance_busy((i % 50 == 49 ? 14 : 4) * kNsPerMs);
            display.swap(f.index);
            pacer.mark_present();
        }
        const WaitStatus status = pacer.status();
        return std::make_pair(status.display_judged, status.display_missed);
    };
    const auto once = judged_and_missed(1);
    const auto thrice = judged_and_missed(3);
    ASSERT_GT(once.first, 1000);
    EXPECT_EQ(thrice, once);
}
