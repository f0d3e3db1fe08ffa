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

// A display dated with +-5 ms of uniform error, repeating a frame at random
// 5 times in 1,000 refreshes: over 10,000 refreshes the count is within 1
// per 1,000 of the truth, on either grid.
TEST(HitchCount, JitteredDatesCountTheRepeatsWithinOnePer1000) {
    for (unsigned seed : {1u, 2u, 3u}) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> pick(0, 999);
        std::vector<int64_t> at;
        int64_t truth = 0;
        for (int64_t k = 0; k < 10000; ++k) {
            at.push_back(k);
            if (pick(rng) < 5) ++k, ++truth;
        }
        for (HitchCount::Grid grid : {HitchCount::Grid::Follow, HitchCount::Grid::Fixed}) {
            std::uniform_real_distribution<double> noise(-5e6, 5e6);
            HitchCount hitches;
            for (int64_t k : at)
                hitches.add(static_cast<int64_t>(1e9 + static_cast<double>(k) * kRefresh60 + noise(rng)), kRefresh60, 1,
                            kPresentedVsync, grid);
            EXPECT_NEAR(hitches.hitches(), truth, 10) << seed << " " << static_cast<int>(grid);
            EXPECT_NEAR(hitches.refreshes(), at.back() - at.front(), 10);
        }
    }
}

// Headless mutter paints on a timer that a late frame re-arms: the frame is
// painted when it comes, a few ms after its refresh, and every later refresh
// moves with it. Two runs under display_lock at 60 Hz: frames 18-22 ms apart
// now and then among 16.7 ms ones, and the shown frames spanned 2.5 and 2.8
// refreshes more over 20 s than the count on a followed grid said (it took
// each move for jitter). On the display's own period (Grid::Fixed), the
// count is the span less the frames, within one, whatever the dates' error.
TEST(HitchCount, OnAFixedGridFramesPaintedLateAddUpToTheSpan) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> late_ms(1.0, 6.0), noise(-2e6, 2e6);
    std::uniform_int_distribution<int> pick(0, 99);
    double refresh = 1e9;   // the timer's next refresh
    std::vector<double> shown;
    for (int i = 0; i < 6000; ++i) {
        if (pick(rng) < 2) refresh += late_ms(rng) * 1e6;      // painted late: the timer re-armed
        if (pick(rng) == 0) refresh += kRefresh60;             // a whole refresh repeated
        shown.push_back(refresh);
        refresh += kRefresh60;
    }
    HitchCount fixed, followed;
    for (double t : shown) {
        const auto dated = static_cast<int64_t>(t + noise(rng));
        fixed.add(dated, kRefresh60, 1, kPresentedVsync, HitchCount::Grid::Fixed);
        followed.add(dated, kRefresh60, 1, kPresentedVsync, HitchCount::Grid::Follow);
    }
    const double span = (shown.back() - shown.front()) / kRefresh60 - static_cast<double>(shown.size() - 1);
    EXPECT_NEAR(static_cast<double>(fixed.hitches()), span, 1.5);
    EXPECT_NEAR(static_cast<double>(fixed.refreshes()), (shown.back() - shown.front()) / kRefresh60, 1.5);
    EXPECT_LT(static_cast<double>(followed.hitches()), span - 10);   // the moves taken for jitter
}

// Two refreshes a frame on the fixed grid, dates +-5 ms: no hitch from the
// error alone, and a frame shown a refresh late is one.
TEST(HitchCount, AFixedGridAtTwoRefreshesAFrameCountsOnlyTheLateOnes) {
    std::vector<int64_t> at;
    for (int i = 0; i < 1000; ++i) at.push_back(2 * i + (i >= 500 ? 1 : 0));
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> noise(-5e6, 5e6);
    HitchCount hitches;
    for (int64_t k : at)
        hitches.add(static_cast<int64_t>(1e9 + static_cast<double>(k) * kRefresh60 + noise(rng)), kRefresh60, 2,
                    kPresentedVsync, HitchCount::Grid::Fixed);
    EXPECT_EQ(hitches.hitches(), 1);
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
