// Trace CSV: header and columns, values per row, quoting, the temp-and-rename
// rule and the errors for paths that cannot be written.
#include "run/trace.h"

#include <pacer/status.h>
#include <pacer/units.h>

#include <gtest/gtest.h>

#include "temp_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pacer_demo {
namespace {

using pacer::kNsPerMs;

namespace fs = std::filesystem;

using test_files::has_temp;
using test_files::temp_path;

// Splits one CSV record (RFC 4180 quoting, no embedded newlines needed here).
std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields(1);
    bool in_quotes = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (in_quotes) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                in_quotes = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            in_quotes = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    std::ifstream file(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(file, line)) rows.push_back(split_csv(line));
    return rows;
}

pacer::Frame frame_at(int64_t index, int64_t wake_ns, int64_t interval_ns) {
    pacer::Frame f{};
    f.index = index;
    f.wake_ns = wake_ns;
    f.deadline_ns = wake_ns - 50'000;   // woke 50 us late
    f.lateness_ns = 50'000;
    f.interval_ns = interval_ns;
    f.period_ns = 10 * kNsPerMs;
    f.work_ns = index == 0 ? 0 : 3 * kNsPerMs;
    f.slept_ns = index == 0 ? 0 : 6 * kNsPerMs;
    f.spun_ns = index == 0 ? 0 : kNsPerMs / 2;
    f.wait_cpu_ns = -1;
    f.present_ns = -1;
    f.strategy = pacer::Strategy::Timer;
    return f;
}

TEST(TraceWriter, HeaderNamesEveryColumn) {
    const std::vector<std::string> columns = split_csv(TraceWriter::header());
    const std::vector<std::string> expected = {
        "Frame",          "TimeInSeconds",  "MsBetweenSimulationStart", "MsBetweenPresents", "MsCPUBusy",
        "MsCPUWait",      "MsSleeping",     "MsSpinning",               "MsWaitCpu",         "MsWakeLateness",
        "DeadlineSeconds", "MsTargetPeriod", "Missed",                  "Resynced",          "Strategy",
        "Decision",       "Marker",
        // added later, at the end, so that readers of the first 17 keep working
        "MsDt", "DtMode", "MsPacerDt", "FixedSteps", "FixedAlpha", "WaitPoint", "MsWakeToPresent",
        "MsPredictedPresent", "Contended",
        // the display's report (wp_presentation), NA without one
        "DisplayedFrame", "MsBetweenDisplayChange", "MsDisplayLatency", "MsAnimationError",
        "MsPresentPredictionError",
        // the window's state and the rate paced at
        "Window", "PaceHz"};
    EXPECT_EQ(columns, expected);
}

TEST(TraceWriter, WritesRowsOnlyVisibleAfterClose) {
    const std::string path = temp_path("rows.csv");
    {
        TraceWriter trace(path);
        ASSERT_TRUE(trace.ok()) << trace.error();
        EXPECT_EQ(trace.error(), "");

        pacer::Frame f0 = frame_at(0, 5'000 * kNsPerMs, 0);
        f0.resynced = true;
        trace.write(f0, {"", "set strategy=timer hz=100"});
        pacer::Frame f1 = frame_at(1, 5'010 * kNsPerMs, 10 * kNsPerMs);
        f1.present_ns = 5'009 * kNsPerMs;
        f1.wait_cpu_ns = 250'000;
        trace.write(f1, {"auto: timer, swap interval refused", ""});
        pacer::Frame f2 = frame_at(2, 5'022 * kNsPerMs, 12 * kNsPerMs);
        f2.present_ns = 5'020 * kNsPerMs;
        f2.missed = 1;
        f2.strategy = pacer::Strategy::Spin;
        f2.dt_ns = 20 * kNsPerMs;
        f2.predicted_present_ns = f2.wake_ns + 10 * kNsPerMs;
        f2.contended = true;
        TraceExtra extra{"", "mark \"quoted\", and comma"};
        extra.dt_mode = "fixed";
        extra.motion_dt_ns = 20 * kNsPerMs + 1;
        extra.fixed_steps = 2;
        extra.fixed_alpha = 0.25;
        extra.wait_point = "before_present";
        extra.present_ns = f2.wake_ns + 1'500'000;
        extra.window = "unfocused";
        extra.pace_hz = 30;
        trace.write(f2, extra);
        EXPECT_EQ(trace.rows(), 3);

        EXPECT_FALSE(fs::exists(path)) << "nothing at PATH before close";
        EXPECT_TRUE(has_temp(path));
        EXPECT_EQ(trace.close(), "");
        EXPECT_EQ(trace.close(), "") << "closing twice is harmless";
    }
    EXPECT_FALSE(has_temp(path));
    const auto rows = read_csv(path);
    ASSERT_EQ(rows.size(), 4u);
    for (const auto& row : rows) EXPECT_EQ(row.size(), 33u);

    const auto& r0 = rows[1];
    EXPECT_EQ(r0[0], "0");
    EXPECT_EQ(r0[1], "0.000000");
    EXPECT_EQ(r0[2], "NA") << "no interval on the first frame";
    EXPECT_EQ(r0[3], "NA");
    EXPECT_EQ(r0[5], "NA");
    EXPECT_EQ(r0[8], "NA") << "unknown wait CPU";
    EXPECT_EQ(r0[13], "1");
    EXPECT_EQ(r0[14], "timer");
    EXPECT_EQ(r0[16], "set strategy=timer hz=100");
    // Without the app's motion and loop facts: NA; the pacer's own always.
    const std::vector<std::string> tail0(r0.begin() + 17, r0.end());
    EXPECT_EQ(tail0, (std::vector<std::string>{"NA", "NA", "0.000000", "NA", "NA", "NA", "NA", "-5000.0000", "0",
                                               "NA", "NA", "NA", "NA", "NA", "NA", "NA"}));

    const auto& r1 = rows[2];
    EXPECT_EQ(r1[1], "0.010000");
    EXPECT_EQ(r1[2], "10.0000");
    EXPECT_EQ(r1[3], "NA") << "one present known: no interval between presents yet";
    EXPECT_EQ(r1[4], "3.0000");
    EXPECT_EQ(r1[5], "7.0000") << "wait = interval - work";
    EXPECT_EQ(r1[6], "6.0000");
    EXPECT_EQ(r1[7], "0.5000");
    EXPECT_EQ(r1[8], "0.2500");
    EXPECT_EQ(r1[9], "0.0500");
    EXPECT_EQ(r1[10], "0.009950");
    EXPECT_EQ(r1[11], "10.0000");
    EXPECT_EQ(r1[12], "0");
    EXPECT_EQ(r1[15], "auto: timer, swap interval refused");

    const auto& r2 = rows[3];
    EXPECT_EQ(r2[2], "12.0000");
    EXPECT_EQ(r2[3], "11.0000") << "between the two latest presents";
    EXPECT_EQ(r2[12], "1");
    EXPECT_EQ(r2[14], "spin");
    EXPECT_EQ(r2[16], "mark \"quoted\", and comma");
    const std::vector<std::string> tail2(r2.begin() + 17, r2.end());
    EXPECT_EQ(tail2, (std::vector<std::string>{"20.000001", "fixed", "20.000000", "2", "0.250000", "before_present",
                                               "1.5000", "10.0000", "1", "NA", "NA", "NA", "NA", "NA", "unfocused",
                                               "30.0000"}));
}

// Frames 0..count-1 woken 16 ms apart from 1,000 ms, each predicted on
// screen 40 ms after its wake and moving the scene by 16 ms.
void write_frames(TraceWriter& trace, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        pacer::Frame f = frame_at(i, 1'000 * kNsPerMs + i * 16 * kNsPerMs, i == 0 ? 0 : 16 * kNsPerMs);
        f.predicted_present_ns = f.wake_ns + 40 * kNsPerMs;
        TraceExtra extra{"", ""};
        extra.motion_dt_ns = 16 * kNsPerMs;
        trace.write(f, extra);
    }
}

// A trace row's display columns: DisplayedFrame (the 27th) to
// MsPresentPredictionError, before Window and PaceHz.
std::vector<std::string> display_columns(const std::vector<std::string>& row) {
    constexpr std::size_t kDisplayedFrame = 26, kAfter = 2;
    return {row.begin() + kDisplayedFrame, row.end() - kAfter};
}

// The display's reports join their frames' rows, which wait for them: shown
// frames get the time since the previous shown one, the latency from their
// wake, the animation error (the scene's advance since the previous shown
// frame minus that time) and the prediction's error; a discarded frame's
// advance counts toward the next shown one; a frame without a report is NA.
TEST(TraceWriter, DisplayReportsJoinTheirRows) {
    const std::string path = temp_path("displayed.csv");
    {
        TraceWriter trace(path);
        ASSERT_TRUE(trace.ok());
        write_frames(trace, 5);
        trace.displayed(0, false, 1'040 * kNsPerMs);                    // wake 1000
        trace.displayed(1, true, 0);                               // discarded
        trace.displayed(2, false, 1'073 * kNsPerMs);                    // wake 1032: 33 ms after frame 0
        trace.displayed(4, false, 1'105 * kNsPerMs);                    // 3 has none
        trace.displayed(9, false, 1'200 * kNsPerMs);                    // never traced: ignored
        EXPECT_EQ(trace.close(), "");
    }
    const auto rows = read_csv(path);
    ASSERT_EQ(rows.size(), 6u);
    auto tail = [&](std::size_t row) { return display_columns(rows[row]); };
    EXPECT_EQ(tail(1), (std::vector<std::string>{"1", "NA", "40.0000", "NA", "0.0000"}));
    EXPECT_EQ(tail(2), (std::vector<std::string>{"0", "NA", "NA", "NA", "NA"}));
    // frames 1 and 2 moved the scene by 32 ms; the screen moved on by 33 ms
    EXPECT_EQ(tail(3), (std::vector<std::string>{"1", "33.0000", "41.0000", "-1.0000", "1.0000"}));
    EXPECT_EQ(tail(4), (std::vector<std::string>{"NA", "NA", "NA", "NA", "NA"}));
    // frames 3 and 4: 32 ms of motion against 32 ms on screen
    EXPECT_EQ(tail(5), (std::vector<std::string>{"1", "32.0000", "41.0000", "0.0000", "1.0000"}));
}

// A discard can come before the report of the frame ahead of it: that frame
// was taken for a refresh when the discarded one, aimed at the next, was
// replaced. Each report still finds its own row.
TEST(TraceWriter, ADiscardAheadOfAnEarlierFramesReportWaitsForIt) {
    const std::string path = temp_path("discard-first.csv");
    {
        TraceWriter trace(path);
        ASSERT_TRUE(trace.ok());
        write_frames(trace, 4);
        trace.displayed(0, false, 1'040 * kNsPerMs);
        trace.displayed(2, true, 0);                    // replaced by frame 3 ...
        trace.displayed(1, false, 1'057 * kNsPerMs);    // ... while frame 1 waited for its refresh
        trace.displayed(3, false, 1'090 * kNsPerMs);
        EXPECT_EQ(trace.close(), "");
    }
    const auto rows = read_csv(path);
    ASSERT_EQ(rows.size(), 5u);
    auto tail = [&](std::size_t row) { return display_columns(rows[row]); };
    EXPECT_EQ(tail(2)[0], "1");
    EXPECT_EQ(tail(2)[1], "17.0000");   // after frame 0
    EXPECT_EQ(tail(3), (std::vector<std::string>{"0", "NA", "NA", "NA", "NA"}));
    EXPECT_EQ(tail(4)[1], "33.0000");   // after frame 1
}

TEST(TraceWriter, AbandonedTraceLeavesNothing) {
    const std::string path = temp_path("abandoned.csv");
    {
        TraceWriter trace(path);
        ASSERT_TRUE(trace.ok());
        trace.write(frame_at(0, 0, 0));
    }   // no close(): the run failed
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temp(path));
}

TEST(TraceWriter, UnwritablePathIsReportedAtConstruction) {
    const std::string path = "/nonexistent-pacer-dir/trace.csv";
    TraceWriter trace(path);
    EXPECT_FALSE(trace.ok());
    EXPECT_EQ(trace.error().rfind("--trace: cannot write " + path + ": ", 0), 0u) << trace.error();
    EXPECT_EQ(trace.error().find('\n'), std::string::npos);
    trace.write(frame_at(0, 0, 0));   // ignored
    EXPECT_EQ(trace.rows(), 0);
    EXPECT_EQ(trace.close(), trace.error());
    EXPECT_FALSE(fs::exists(path));
}

TEST(TraceWriter, DirectoryPathIsReported) {
    const std::string dir = ::testing::TempDir() + "pacer_trace_dir";
    fs::create_directories(dir);
    TraceWriter trace(dir);
    EXPECT_FALSE(trace.ok());
    EXPECT_NE(trace.error().find("a directory, not a regular file"), std::string::npos) << trace.error();
    fs::remove(dir);
}

TEST(TraceWriter, EmptyPathIsReported) {
    TraceWriter trace("");
    EXPECT_FALSE(trace.ok());
    EXPECT_FALSE(trace.error().empty());
}

TEST(TraceWriter, FailedOpenDoesNotRemoveSomeoneElsesTempFile) {
    // PATH is a directory, so the writer refuses it; PATH.tmp is not ours.
    const std::string dir = ::testing::TempDir() + "pacer_trace_dir2";
    fs::create_directories(dir);
    { std::ofstream(dir + ".tmp") << "keep"; }
    { TraceWriter trace(dir); }
    EXPECT_TRUE(fs::exists(dir + ".tmp"));
    fs::remove(dir + ".tmp");
    fs::remove(dir);
}

}  // namespace
}  // namespace pacer_demo
