// test_hitches.cpp: pacer::HitchCount and pacer::due_refreshes (status.h),
// the one count of refreshes that showed the frame before again.
#include <pacer/status.h>
#include <pacer/units.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace pacer;

namespace {

constexpr double kRefresh60 = 1e9 / 60;

// Frames shown at the refreshes in `at` (refresh numbers), dated off them by
// uniform jitter of +-jitter_ns, on a display refreshing every `true_ns`,
// counted against a stated period of `given_ns`.
HitchCount count(const std::vector<int64_t>& at, double true_ns, double given_ns, double jitter_ns, uint32_t flags,
                 int due = 1, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> noise(-jitter_ns, jitter_ns);
    HitchCount hitches;
    for (int64_t k : at) {
        const double t = 1e9 + static_cast<double>(k) * true_ns + (jitter_ns > 0 ? noise(rng) : 0.0);
        hitches.add(static_cast<int64_t>(t), given_ns, due, flags);
    }
    return hitches;
}

std::vector<int64_t> every_refresh(int frames, std::vector<int64_t> repeated_before = {}) {
    std::vector<int64_t> at;
    int64_t k = 0;
    for (int i = 0; i < frames; ++i) {
        for (int64_t r : repeated_before)
            if (r == i) ++k;   // the refresh before frame i showed frame i - 1 again
        at.push_back(k++);
    }
    return at;
}

}  // namespace

TEST(HitchCount, AnExactDisplayCountsItsRepeatsAndNothingElse) {
    const HitchCount none = count(every_refresh(1000), kRefresh60, kRefresh60, 0, kPresentedVsync | kPresentedHwClock);
    EXPECT_EQ(none.hitches(), 0);
    EXPECT_EQ(none.refreshes(), 999);
    const HitchCount three =
        count(every_refresh(1000, {100, 400, 401}), kRefresh60, kRefresh60, 0, kPresentedVsync | kPresentedHwClock);
    EXPECT_EQ(three.hitches(), 3);
    EXPECT_EQ(three.refreshes(), 1002);
    EXPECT_NEAR(three.per_1000(), 3000.0 / 1002, 1e-9);
}

// mutter's headless reports, dated in software: single intervals 3.4 to
// 22.4 ms around an exact 60 Hz (here +-5 ms on each report). Counted by
// the nearest refresh, nothing repeated is nothing counted; under the
// quarter-refresh rule of a hardware clock the same reports would count
// dozens.
TEST(HitchCount, SoftwareDatesJudgedByTheNearestRefresh) {
    const HitchCount software = count(every_refresh(1200), kRefresh60, kRefresh60, 5'000'000, kPresentedVsync);
    EXPECT_EQ(software.hitches(), 0);
    EXPECT_EQ(software.refreshes(), 1199);
    const HitchCount as_hardware = count(every_refresh(1200), kRefresh60, kRefresh60, 5'000'000, kPresentedHwClock);
    EXPECT_GT(as_hardware.hitches(), 20);
    // Real repeats still count through the same jitter.
    const HitchCount repeats =
        count(every_refresh(1200, {200, 600, 900, 1100}), kRefresh60, kRefresh60, 5'000'000, kPresentedVsync);
    EXPECT_EQ(repeats.hitches(), 4);
}

// weston composing a 1280x720 window in software: its frames come every
// 28.4 ms where the fit of its repaint loop said 26.1. The grid follows the
// cadence rather than counting its drift as repeats.
TEST(HitchCount, ACadenceOffItsFittedPeriodIsFollowed) {
    const HitchCount followed = count(every_refresh(900), 28'400'000, 26'100'000, 2'000'000, 0);
    EXPECT_LE(followed.hitches(), 1);
    const HitchCount repeats = count(every_refresh(900, {300, 700}), 28'400'000, 26'100'000, 2'000'000, 0);
    EXPECT_GE(repeats.hitches(), 2);
    EXPECT_LE(repeats.hitches(), 3);
}

TEST(HitchCount, DueRefreshesAreNotHitches) {
    // 60 frames a second on 144 Hz: 2 or 3 refreshes a frame, 3 due.
    std::vector<int64_t> at;
    int64_t k = 0;
    for (int i = 0; i < 600; ++i) at.push_back(k), k += (i % 5 == 0 || i % 5 == 2 || i % 5 == 4) ? 2 : 3;
    const HitchCount paced = count(at, 1e9 / 144, 1e9 / 144, 0, kPresentedHwClock, due_refreshes(1e9 / 144, 60));
    EXPECT_EQ(paced.hitches(), 0);
    at.back() += 4;   // the last one 4 refreshes later than it was due
    const HitchCount late = count(at, 1e9 / 144, 1e9 / 144, 0, kPresentedHwClock, due_refreshes(1e9 / 144, 60));
    EXPECT_GE(late.hitches(), 1);
}

TEST(HitchCount, OutOfOrderAndUndatedReportsAddNothing) {
    HitchCount hitches;
    EXPECT_EQ(hitches.add(1'000'000'000, kRefresh60, 1, 0), 0);
    EXPECT_EQ(hitches.add(900'000'000, kRefresh60, 1, 0), 0);      // before the newest: ignored
    EXPECT_EQ(hitches.add(1'000'000'000, kRefresh60, 1, 0), 0);    // the same time again
    EXPECT_EQ(hitches.add(1'016'666'667, 0, 1, 0), 0);             // no period: noted, not counted
    EXPECT_EQ(hitches.refreshes(), 0);
    EXPECT_EQ(hitches.add(1'050'000'000, kRefresh60, 1, 0), 0);    // starts a grid afresh
    EXPECT_EQ(hitches.add(1'100'000'000, kRefresh60, 1, 0), 2);    // 3 refreshes later: 2 repeats
    EXPECT_EQ(hitches.hitches(), 2);
    hitches.reset();
    EXPECT_EQ(hitches.hitches(), 0);
    EXPECT_EQ(hitches.per_1000(), 0);
}

TEST(DueRefreshes, OneAtLeastAndASlightlyFastDisplayTakesOne) {
    EXPECT_EQ(due_refreshes(kRefresh60, 60), 1);
    EXPECT_EQ(due_refreshes(1e9 / 60.3, 60), 1);
    EXPECT_EQ(due_refreshes(1e9 / 120, 60), 2);
    EXPECT_EQ(due_refreshes(1e9 / 144, 60), 3);
    EXPECT_EQ(due_refreshes(1e9 / 30, 60), 1);
    EXPECT_EQ(due_refreshes(0, 60), 1);
    EXPECT_EQ(due_refreshes(kRefresh60, 0), 1);
    EXPECT_EQ(due_refreshes(kRefresh60, std::nan("")), 1);
}
