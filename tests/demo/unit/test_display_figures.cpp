// display_figures: the summary's display-side figures, with the trace's
// definitions (trace.h): frames joined to the display's reports by index.
#include "run/display_figures.h"

#include <pacer/units.h>

#include <gtest/gtest.h>

namespace {

using pacer::kNsPerMs;

pacer::Frame woken_at(int64_t index, int64_t wake_ns) {
    pacer::Frame f{};
    f.index = index;
    f.wake_ns = wake_ns;
    f.predicted_present_ns = wake_ns + 40 * kNsPerMs;
    return f;
}

pacer::Presented shown(int64_t index, int64_t displayed_ns) {
    pacer::Presented p;
    p.frame_index = index;
    p.displayed_ns = displayed_ns;
    return p;
}

}  // namespace

namespace pacer_demo {

TEST(DisplayFigures, JoinsReportsToTheirFrames) {
    std::vector<pacer::Frame> frames;
    for (int64_t i = 0; i < 5; ++i) frames.push_back(woken_at(i, 1'000 * kNsPerMs + i * 16 * kNsPerMs));
    const std::vector<int64_t> motion(5, 16 * kNsPerMs);
    pacer::Presented dropped;
    dropped.frame_index = 1;
    dropped.discarded = true;
    // Out of order and with a report for a frame the run never had.
    const std::vector<pacer::Presented> reports = {shown(2, 1'073 * kNsPerMs), shown(0, 1'040 * kNsPerMs), dropped,
                                                   shown(4, 1'105 * kNsPerMs), shown(9, 1'200 * kNsPerMs)};
    const DisplayFigures d = display_figures(frames, motion, reports);
    EXPECT_EQ(d.shown, 3);
    EXPECT_EQ(d.discarded, 1);
    EXPECT_EQ(d.latency_ns, (std::vector<int64_t>{40 * kNsPerMs, 41 * kNsPerMs, 41 * kNsPerMs}));
    EXPECT_EQ(d.between_ns, (std::vector<int64_t>{33 * kNsPerMs, 32 * kNsPerMs}));
    // Frames 1 and 2 moved the scene 32 ms while the screen moved on 33 ms;
    // frames 3 and 4 moved it 32 ms against 32 ms.
    EXPECT_EQ(d.animation_error_ns, (std::vector<int64_t>{-1 * kNsPerMs, 0}));
    EXPECT_EQ(d.prediction_error_ns, (std::vector<int64_t>{0, 1 * kNsPerMs, 1 * kNsPerMs}));
}

TEST(DisplayFigures, NoReportsNoFigures) {
    const std::vector<pacer::Frame> frames = {woken_at(0, 0), woken_at(1, 16 * kNsPerMs)};
    const DisplayFigures d = display_figures(frames, {}, {});
    EXPECT_EQ(d.shown, 0);
    EXPECT_TRUE(d.latency_ns.empty());
    EXPECT_TRUE(d.between_ns.empty());
}

}  // namespace pacer_demo
