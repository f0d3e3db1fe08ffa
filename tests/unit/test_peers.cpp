// test_peers.cpp: each of the bench's peers (bench/peers.h) does what its own
// source does, on a fake clock: the sleeps it asks for, in order, and the
// state it keeps from one call to the next.
#include "peers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace {

using pacer::kNsPerMs;
using pacer::kNsPerUs;

// A clock that moves only when waited on. A sleep lasts what was asked plus
// the next scripted overshoot (then `overshoot_ns` for every later one); a
// pause or a yield lasts 100 ns. Every request is kept.
struct FakeTime {
    int64_t now = 1'000 * kNsPerMs;
    int64_t overshoot_ns = 0;
    std::deque<int64_t> script;   // overshoots of the next sleeps, in order
    std::vector<int64_t> relative;   // sleep_for's requests
    std::vector<int64_t> absolute;   // sleep_until's targets
    int64_t spin_steps = 0;

    int64_t next_overshoot() {
        if (script.empty()) return overshoot_ns;
        const int64_t o = script.front();
        script.pop_front();
        return o;
    }
    auto now_ns() {
        return [this] { return now; };
    }
    auto sleep_for() {
        return [this](int64_t ns) {
            relative.push_back(ns);
            now += ns + next_overshoot();
        };
    }
    auto sleep_until() {
        return [this](int64_t target) {
            absolute.push_back(target);
            if (target > now) now = target;
            now += next_overshoot();
        };
    }
    auto step() {
        return [this] {
            ++spin_steps;
            now += 100;
        };
    }
};

using bench::peers::sdl3_delay_precise;
using bench::peers::sdl3_sleeps;

// ---------------------------------------------------------------------------
// SDL3's SDL_DelayPrecise
// ---------------------------------------------------------------------------

TEST(PeerSdl3, ExactSleepsAreOneMillisecondStepsThenTheRemainder) {
    FakeTime t;
    const int64_t deadline = t.now + 5 * kNsPerMs + 500 * kNsPerUs;
    sdl3_delay_precise(deadline, t.now_ns(), t.sleep_for(), t.step());
    // 1 ms while more than 1 ms is left (5.5, 4.5, 3.5, 2.5, 1.5 ms), then
    // the 0.5 ms left less no overshoot; nothing to spin.
    EXPECT_EQ(t.relative, (std::vector<int64_t>{kNsPerMs, kNsPerMs, kNsPerMs, kNsPerMs, kNsPerMs, 500 * kNsPerUs}));
    EXPECT_EQ(t.now, deadline);
    EXPECT_EQ(t.spin_steps, 0);
}

TEST(PeerSdl3, TheLastSleepLeavesTheLongestOvershootOfThisCall) {
    FakeTime t;
    t.script = {20 * kNsPerUs, 150 * kNsPerUs, 40 * kNsPerUs};
    t.overshoot_ns = 0;
    const int64_t deadline = t.now + 4 * kNsPerMs;
    sdl3_delay_precise(deadline, t.now_ns(), t.sleep_for(), t.step());
    // Sleeps of 1.02, 1.15 and 1.04 ms leave 0.79 ms: under the longest
    // (1.15 ms), so the loop ends; the shorter sleep is 0.79 - 0.15 ms.
    ASSERT_EQ(t.relative.size(), 4u);
    EXPECT_EQ(t.relative[3], 790 * kNsPerUs - 150 * kNsPerUs);
    EXPECT_GE(t.now, deadline);
    EXPECT_EQ(t.spin_steps, 150 * kNsPerUs / 100);
}

// The defect this peer once had: SDL starts max_sleep_ns at 1 ms in every
// call, so one late 1 ms sleep does not make the next frames stop sleeping
// early and spin. A version that kept the longest sleep for the whole run
// would shorten the second call's last sleep by 3 ms and spin them.
TEST(PeerSdl3, ALateSleepInOneCallDoesNotShortenTheNextCallsSleeps) {
    FakeTime t;
    t.script = {3 * kNsPerMs};   // the first 1 ms sleep of the first call lasts 4 ms
    sdl3_delay_precise(t.now + 10 * kNsPerMs, t.now_ns(), t.sleep_for(), t.step());
    t.relative.clear();
    t.spin_steps = 0;

    const int64_t deadline = t.now + 5 * kNsPerMs + 500 * kNsPerUs;
    sdl3_delay_precise(deadline, t.now_ns(), t.sleep_for(), t.step());
    EXPECT_EQ(t.relative, (std::vector<int64_t>{kNsPerMs, kNsPerMs, kNsPerMs, kNsPerMs, kNsPerMs, 500 * kNsPerUs}));
    EXPECT_EQ(t.spin_steps, 0);
}

TEST(PeerSdl3, AnEarlyShortSleepIsFollowedByOneMillisecondSleeps) {
    FakeTime t;
    // One 1 ms sleep overshoots by 3 ms: 3.2 ms left is under the longest
    // (4 ms), and over its overshoot (3 ms) by only 0.2 ms, which the
    // shorter sleep takes; 1 ms sleeps while more than 1 ms is left follow.
    t.script = {3 * kNsPerMs};
    const int64_t deadline = t.now + 7 * kNsPerMs + 200 * kNsPerUs;
    sdl3_sleeps(deadline, t.now_ns(), t.sleep_for());
    EXPECT_EQ(t.relative, (std::vector<int64_t>{kNsPerMs, 200 * kNsPerUs, kNsPerMs, kNsPerMs}));
}

TEST(PeerSdl3, APassedDeadlineSleepsNotAtAll) {
    FakeTime t;
    sdl3_delay_precise(t.now - kNsPerMs, t.now_ns(), t.sleep_for(), t.step());
    EXPECT_TRUE(t.relative.empty());
    EXPECT_EQ(t.spin_steps, 0);
}

// ---------------------------------------------------------------------------
// The seeds
// ---------------------------------------------------------------------------

TEST(PeerPreciseSleep2020, SleepsWhileTheTimeLeftExceedsTheEstimateThenSpins) {
    FakeTime t;
    t.overshoot_ns = 100 * kNsPerUs;   // every 1 ms sleep lasts 1.1 ms
    bench::peers::PreciseSleep2020 precise;
    const int64_t deadline = t.now + 16 * kNsPerMs;
    precise.wait_until(deadline, t.now_ns(), t.sleep_for(), t.step());
    // The 5 ms first guess comes down with each sample: mean and sigma of
    // {5, 1.1, 1.1, ...} ms. Every sleep is 1 ms; the rest is spun.
    for (int64_t ns : t.relative) EXPECT_EQ(ns, kNsPerMs);
    EXPECT_GE(t.relative.size(), 9u);
    EXPECT_GE(t.now, deadline);
    EXPECT_LT(t.now, deadline + kNsPerUs);
    EXPECT_EQ(precise.samples(), static_cast<int64_t>(t.relative.size()));
}

TEST(PeerPreciseSleep2020, ItsEstimateLastsFromOneCallToTheNext) {
    // The source keeps its figures in function statics: a long first sleep
    // inflates sigma for the rest of the program, so later calls sleep less.
    FakeTime fresh;
    fresh.overshoot_ns = 100 * kNsPerUs;
    bench::peers::PreciseSleep2020 unspoiled;
    unspoiled.wait_until(fresh.now + 16 * kNsPerMs, fresh.now_ns(), fresh.sleep_for(), fresh.step());

    FakeTime t;
    t.overshoot_ns = 100 * kNsPerUs;
    t.script = {9 * kNsPerMs};   // the very first sleep lasts 10 ms
    bench::peers::PreciseSleep2020 precise;
    precise.wait_until(t.now + 16 * kNsPerMs, t.now_ns(), t.sleep_for(), t.step());
    t.relative.clear();
    precise.wait_until(t.now + 16 * kNsPerMs, t.now_ns(), t.sleep_for(), t.step());
    EXPECT_GT(precise.estimate_s(), unspoiled.estimate_s() + 1e-3);
    EXPECT_LT(t.relative.size(), fresh.relative.size());
}

TEST(PeerRobustSleep2021, SleepsWholePeriodsLeavingOnePlusTheToleranceThenSpins) {
    FakeTime t;
    const int64_t deadline = t.now + 6 * kNsPerMs + 944 * kNsPerUs;   // 144 Hz
    bench::peers::robust_sleep_2021(deadline, t.now_ns(), t.sleep_for(), t.step());
    // 6.944 - 1.02 = 5.924 ms: 5 whole periods.
    EXPECT_EQ(t.relative, std::vector<int64_t>{5 * kNsPerMs});
    EXPECT_EQ(t.now, deadline);
    EXPECT_EQ(t.spin_steps, (1 * kNsPerMs + 944 * kNsPerUs) / 100);
}

TEST(PeerRobustSleep2021, LessThanAPeriodAndTheToleranceSpinsOnly) {
    FakeTime t;
    bench::peers::robust_sleep_2021(t.now + 2 * kNsPerMs + 19 * kNsPerUs, t.now_ns(), t.sleep_for(), t.step());
    EXPECT_TRUE(t.relative.empty());
}

TEST(PeerSleepUntilThenYield, SleepsTo100UsBeforeTheTickThenYields) {
    FakeTime t;
    const int64_t deadline = t.now + 5 * kNsPerMs;
    bench::peers::sleep_until_then_yield(deadline, t.now_ns(), t.sleep_until(), t.step());
    EXPECT_EQ(t.absolute, std::vector<int64_t>{deadline - 100 * kNsPerUs});
    EXPECT_EQ(t.now, deadline);
    EXPECT_EQ(t.spin_steps, 100 * kNsPerUs / 100);
}

TEST(PeerPlainAbsoluteSleep, OneAbsoluteSleepToTheDeadlineAndNoSpin) {
    FakeTime t;
    t.overshoot_ns = 60 * kNsPerUs;
    const int64_t deadline = t.now + 5 * kNsPerMs;
    bench::peers::plain_absolute_sleep(deadline, t.sleep_until());
    EXPECT_EQ(t.absolute, std::vector<int64_t>{deadline});
    EXPECT_EQ(t.now, deadline + 60 * kNsPerUs);
}

}  // namespace
