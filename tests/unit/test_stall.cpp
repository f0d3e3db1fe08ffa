// test_stall.cpp: a stall (the process stopped or starved) of any length is
// reported on the first frame after it, whether it hit the engine's work or
// the wait itself: exactly one resynced frame, dt clamped to max_dt_ns, and
// the grid continuing from that frame's wake.
#include "fakes.h"

#include <gtest/gtest.h>

#include <vector>

namespace pacer {
namespace {

using testing::FakeClock;
using testing::FakeSleeper;
using pacer::kNsPerMs;

constexpr int64_t kStallNs = 2'000 * kNsPerMs;   // a SIGSTOP of 2 s
constexpr int kStallFrames = 40;
constexpr int kStallFrame = 20;             // the wait of this frame (or the work before it) stalls

enum class Where { Work, Wait };

// Runs kStallFrames frames at 100 Hz with 3 ms of work; one stall of kStallNs
// before frame kStallFrame's wait (Work) or inside it (Wait).
std::vector<Frame> run_with_stall(Strategy strategy, Where where, int64_t stall_ns = kStallNs) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    sleeper.period_ns = 1 * kNsPerMs;
    Pacer pacer(testing::fake_config(clock, sleeper, 100, strategy));
    std::vector<Frame> frames;
    for (int i = 0; i < kStallFrames; ++i) {
        if (i == kStallFrame) {
            if (where == Where::Work) {
                clock.advance(stall_ns);
            } else if (strategy == Strategy::Timer) {
                sleeper.timer_latenesses.push_back(stall_ns);   // the timer wakes 2 s late
            } else {
                sleeper.sleep_overshoots.push_back(stall_ns);   // the first sleep of the wait does
            }
        }
        frames.push_back(pacer.wait());
        clock.advance_busy(3 * kNsPerMs);
    }
    return frames;
}

int resynced_after_first(const std::vector<Frame>& frames) {
    int n = 0;
    for (std::size_t i = 1; i < frames.size(); ++i) n += frames[i].resynced ? 1 : 0;
    return n;
}

TEST(Stall, InsideTheWaitIsReportedOnThatFrame) {
    for (Strategy strategy : {Strategy::Timer, Strategy::Sleep, Strategy::PreciseSleep, Strategy::RobustSleep}) {
        const std::vector<Frame> frames = run_with_stall(strategy, Where::Wait);
        const Frame& stalled = frames[kStallFrame];
        SCOPED_TRACE(strategy_name(strategy));
        EXPECT_EQ(resynced_after_first(frames), 1);
        EXPECT_TRUE(stalled.resynced);
        EXPECT_GE(stalled.interval_ns, kStallNs);
        EXPECT_EQ(stalled.dt_ns, Config{}.max_dt_ns);   // clamped, 100 ms
        EXPECT_EQ(stalled.deadline_ns, stalled.wake_ns);   // re-anchored at the wake
        EXPECT_GE(stalled.missed, 199);                  // the grid points the stall covered
        // The frame after is an ordinary one on the new grid.
        const Frame& next = frames[kStallFrame + 1];
        EXPECT_FALSE(next.resynced);
        EXPECT_EQ(next.dt_ns, 10 * kNsPerMs);
        EXPECT_NEAR(static_cast<double>(next.interval_ns), 10.0 * kNsPerMs, 1.0 * kNsPerMs);
        EXPECT_EQ(next.missed, 0);
    }
}

TEST(Stall, DuringTheWorkIsReportedOnTheNextFrame) {
    for (Strategy strategy : {Strategy::Timer, Strategy::Sleep, Strategy::Spin, Strategy::PreciseSleep,
                              Strategy::RobustSleep}) {
        const std::vector<Frame> frames = run_with_stall(strategy, Where::Work);
        const Frame& stalled = frames[kStallFrame];
        SCOPED_TRACE(strategy_name(strategy));
        EXPECT_EQ(resynced_after_first(frames), 1);
        EXPECT_TRUE(stalled.resynced);
        EXPECT_GE(stalled.interval_ns, kStallNs);
        EXPECT_EQ(stalled.dt_ns, Config{}.max_dt_ns);
        EXPECT_FALSE(frames[kStallFrame + 1].resynced);
        EXPECT_EQ(frames[kStallFrame + 1].dt_ns, 10 * kNsPerMs);
    }
}

TEST(Stall, AWakeLateByLessThanTheResyncThresholdIsNotOne) {
    // 7 periods late inside the wait (resync_after_periods = 8): a late frame, no resync.
    const std::vector<Frame> frames = run_with_stall(Strategy::Timer, Where::Wait, 70 * kNsPerMs);
    EXPECT_EQ(resynced_after_first(frames), 0);
    EXPECT_GE(frames[kStallFrame].lateness_ns, 69 * kNsPerMs);   // the timer aimed a margin early
    // 8 periods and the margin: one.
    EXPECT_EQ(resynced_after_first(run_with_stall(Strategy::Timer, Where::Wait, 81 * kNsPerMs)), 1);
}

TEST(Stall, OfAnyLengthGivesOneClampedFrame) {
    for (int64_t stall : {int64_t{100} * kNsPerMs, int64_t{60'000} * kNsPerMs, int64_t{86'400'000} * kNsPerMs}) {
        for (Where where : {Where::Work, Where::Wait}) {
            const std::vector<Frame> frames = run_with_stall(Strategy::Timer, where, stall);
            EXPECT_EQ(resynced_after_first(frames), 1) << stall;
            EXPECT_EQ(frames[kStallFrame].dt_ns, Config{}.max_dt_ns) << stall;
        }
    }
}

}  // namespace
}  // namespace pacer
