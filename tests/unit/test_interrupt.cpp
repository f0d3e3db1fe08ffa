// Pacer::interrupt(): a wait cut short from a signal handler or another
// thread. Fake clock and sleeper, plus one real-time check.
#include "fakes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace pacer;
using pacer::testing::fake_config;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;

namespace {
}

TEST(Interrupt, ALongWaitReturnsWithinOneSliceAndIsLeftOutOfTheStats) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 0.001, Strategy::Timer));   // a frame every 1000 s
    const Frame first = pacer.wait();
    const int64_t frames_before = pacer.stats().total_frames();
    int sleeps = 0;
    sleeper.after_sleep = [&] {
        if (++sleeps == 3) pacer.interrupt();   // a SIGTERM during the third 20 ms slice
    };
    const int64_t called = clock.now_ns();
    const Frame cut = pacer.wait();
    EXPECT_TRUE(cut.interrupted);
    EXPECT_EQ(cut.wake_ns - called, 3 * 20 * kNsPerMs);   // heard at the end of that slice
    EXPECT_LT(cut.wake_ns, cut.deadline_ns);
    EXPECT_EQ(cut.deadline_ns, first.deadline_ns + 1000 * kNsPerSecond);
    EXPECT_EQ(pacer.stats().total_frames(), frames_before);
    // The flag is taken: the next wait is a whole one again, on the grid.
    sleeper.after_sleep = nullptr;
    const Frame next = pacer.wait();
    EXPECT_FALSE(next.interrupted);
    EXPECT_EQ(next.deadline_ns, first.deadline_ns + 2000 * kNsPerSecond);
    EXPECT_GE(next.wake_ns, next.deadline_ns);
}

TEST(Interrupt, ACallDuringTheEnginesWorkCutsTheNextWaitAtOnce) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 60, Strategy::Timer));
    pacer.wait();
    clock.advance_busy(2 * kNsPerMs);
    pacer.interrupt();
    const int64_t called = clock.now_ns();
    const Frame cut = pacer.wait();
    EXPECT_TRUE(cut.interrupted);
    EXPECT_EQ(cut.wake_ns, called);
    EXPECT_TRUE(sleeper.until_requests.empty());   // nothing slept
    const Frame next = pacer.wait();
    EXPECT_FALSE(next.interrupted);
    EXPECT_GE(next.wake_ns, next.deadline_ns);
}

TEST(Interrupt, WaitsUnderTwoSlicesAreNotSliced) {
    // 25 Hz and up: one timer wait a frame, as before interrupt() existed.
    for (const double hz : {25.0, 60.0, 240.0}) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        Pacer pacer(fake_config(clock, sleeper, hz, Strategy::Timer));
        pacer.wait();
        for (int k = 0; k < 10; ++k) pacer.wait();
        EXPECT_EQ(sleeper.until_requests.size(), 10u) << hz;
        EXPECT_TRUE(sleeper.sleep_requests.empty()) << hz;
    }
    // 10 Hz: slices while over 40 ms are left, then the timer's own wait.
    FakeClock clock;
    FakeSleeper sleeper(clock);
    Pacer pacer(fake_config(clock, sleeper, 10, Strategy::Timer));
    pacer.wait();
    const Frame f = pacer.wait();
    EXPECT_EQ(sleeper.sleep_requests.size(), 3u);   // 100 -> 80 -> 60 -> 40 ms left
    EXPECT_EQ(sleeper.until_requests.size(), 1u);
    EXPECT_GE(f.wake_ns, f.deadline_ns);
    EXPECT_EQ(f.slept_ns, 3 * 20 * kNsPerMs + (sleeper.until_requests[0] - (f.deadline_ns - 40 * kNsPerMs)));
}

TEST(Interrupt, AnotherThreadCutsARealWaitShort) {
    Config config;
    config.target_hz = 0.5;   // 2 s a frame
    Pacer pacer(config);
    pacer.wait();
    const auto start = std::chrono::steady_clock::now();
    std::thread other([&pacer] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        pacer.interrupt();
    });
    const Frame cut = pacer.wait();
    const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    other.join();
    EXPECT_TRUE(cut.interrupted);
    EXPECT_GE(waited_s, 0.045);   // not before the call
    EXPECT_LT(waited_s, 1.0);     // generous on a loaded VM; a slice is 20 ms
}
