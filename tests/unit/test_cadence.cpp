// test_cadence.cpp: Summary::presents and ::shown, what reached the screen,
// in the Stats window and in RunMetrics: the pair rules and the off count.
#include "fakes.h"

#include <pacer/metrics.h>

#include <gtest/gtest.h>

#include <vector>

namespace pacer {
namespace {

constexpr int64_t kPeriodNs = 10'000'000;   // 100 Hz
using testing::kStartNs;   // a run's first wake

// Wakes exactly on the grid; each frame's swap returned present_after_ns[i]
// after its wake (reported with the next frame, as wait() does), and frame i
// shown at shown_ns[i] (-1: not reported; reported with frame i + 2).
std::vector<Frame> frames_of(const std::vector<int64_t>& present_after_ns, const std::vector<int64_t>& shown_ns) {
    std::vector<Frame> frames;
    for (std::size_t i = 0; i < present_after_ns.size() + 2; ++i) {
        Frame f{};
        f.index = static_cast<int64_t>(i);
        f.wake_ns = kStartNs + f.index * kPeriodNs;
        f.interval_ns = i == 0 ? 0 : kPeriodNs;
        f.period_ns = kPeriodNs;
        f.wait_cpu_ns = 0;
        f.present_ns = i >= 1 && i - 1 < present_after_ns.size()
                           ? kStartNs + (f.index - 1) * kPeriodNs + present_after_ns[i - 1]
                           : -1;
        const bool reported = i >= 2 && i - 2 < shown_ns.size() && shown_ns[i - 2] >= 0;
        f.displayed_index = reported ? f.index - 2 : -1;
        f.displayed_ns = reported ? shown_ns[i - 2] : -1;
        frames.push_back(f);
    }
    return frames;
}

Summary window_summary_of(const std::vector<Frame>& frames) {
    Stats stats(static_cast<int32_t>(frames.size()));
    for (const Frame& f : frames) stats.add(f);
    return stats.summarize();
}

Summary run_summary_of(const std::vector<Frame>& frames) {
    RunMetrics run;
    for (const Frame& f : frames) run.add(f);
    return run.summary();
}

}  // namespace

TEST(Cadence, PresentsAreJudgedApartFromTheWakes) {
    // Wakes all on time; the swaps return 2, 2, 5, 2, 2, 2 ms after them:
    // present intervals 10, 13, 7, 10, 10 ms, two off by more than 0.5 ms.
    const std::vector<Frame> frames = frames_of({2'000'000, 2'000'000, 5'000'000, 2'000'000, 2'000'000, 2'000'000}, {});
    for (const Summary& s : {window_summary_of(frames), run_summary_of(frames)}) {
        EXPECT_EQ(s.off_pct, 0.0);   // the wakes
        EXPECT_EQ(s.presents.intervals, 5);
        EXPECT_DOUBLE_EQ(s.presents.off_pct, 40.0);
        EXPECT_NEAR(s.presents.p50_us, 10'000, 10'000.0 / 512);
        EXPECT_NEAR(s.presents.p99_us, 13'000, 13'000.0 / 512);
        EXPECT_EQ(s.shown.intervals, 0);   // no display reports
        EXPECT_EQ(s.shown.off_pct, 0.0);
    }
}

TEST(Cadence, ShownCountsOnlyFramesReportedOneAfterTheOther) {
    // Frames 0..5 shown at 20, 30, 41, -, 60, 70 ms: pairs (0,1) 10 ms,
    // (1,2) 11 ms (off), (4,5) 10 ms; frame 3's report is missing, so
    // (2,4) is no pair.
    const int64_t ms = 1'000'000;
    const std::vector<Frame> frames =
        frames_of({ms, ms, ms, ms, ms, ms}, {kStartNs + 20 * ms, kStartNs + 30 * ms, kStartNs + 41 * ms, -1,
                                             kStartNs + 60 * ms, kStartNs + 70 * ms});
    for (const Summary& s : {window_summary_of(frames), run_summary_of(frames)}) {
        EXPECT_EQ(s.shown.intervals, 3);
        EXPECT_NEAR(s.shown.off_pct, 100.0 / 3, 1e-9);
        EXPECT_NEAR(s.shown.p99_us, 11'000, 11'000.0 / 512);
    }
}

TEST(Cadence, NoneWithoutMarkPresent) {
    std::vector<Frame> frames = frames_of({1, 1, 1}, {});
    for (Frame& f : frames) f.present_ns = -1;
    const Summary s = window_summary_of(frames);
    EXPECT_EQ(s.presents.intervals, 0);
    EXPECT_EQ(s.presents.p50_us, 0.0);
}

}  // namespace pacer
