// Run summary: whole-run figures from frames, metric names, verdicts, the
// text and JSON forms (parsed back with nlohmann) and atomic file writes.
#include "run/summary.h"
#include "run/run_record.h"

#include <pacer/status.h>
#include <pacer/units.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace pacer_demo {
namespace {

using pacer::kNsPerMs;
using pacer::kNsPerUs;

// A run at 100 Hz whose intervals are `intervals_ns` (frame 0 has none).
// Each frame's swap returns present_after_ns[i] after its wake (2 ms where
// not given; reported with the next frame, as wait() does) and is shown 10 ms
// after its wake (reported the same way).
std::vector<pacer::Frame> run_of(const std::vector<int64_t>& intervals_ns,
                                 const std::vector<int64_t>& present_after_ns = {}) {
    std::vector<pacer::Frame> frames;
    int64_t wake = 1'000 * kNsPerMs, previous_wake = -1;
    for (std::size_t i = 0; i <= intervals_ns.size(); ++i) {
        pacer::Frame f{};
        f.index = static_cast<int64_t>(i);
        f.interval_ns = i == 0 ? 0 : intervals_ns[i - 1];
        wake += f.interval_ns;
        f.wake_ns = wake;
        f.deadline_ns = wake;
        f.period_ns = 10 * kNsPerMs;
        f.wait_cpu_ns = 100 * kNsPerUs;
        const int64_t after = i >= 1 && i - 1 < present_after_ns.size() ? present_after_ns[i - 1] : 2 * kNsPerMs;
        f.present_ns = i == 0 ? -1 : previous_wake + after;
        f.displayed_index = f.index - 1;
        f.displayed_ns = i == 0 ? -1 : previous_wake + 10 * kNsPerMs;
        f.strategy = pacer::Strategy::Timer;
        frames.push_back(f);
        previous_wake = wake;
    }
    return frames;
}

TEST(RunStats, SuccessUsesTheScenarioTolerance) {
    // 10 intervals: 6 exact, 2 off by 0.8 ms (inside 1 ms, outside 0.5 ms), 2 off by 3 ms.
    const std::vector<int64_t> intervals = {10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs,
                                            10 * kNsPerMs + 800 * kNsPerUs, 10 * kNsPerMs - 800 * kNsPerUs, 13 * kNsPerMs, 7 * kNsPerMs};
    const RunStats stats = compute_run_stats(run_of(intervals), 1.0);
    EXPECT_EQ(stats.summary.frames, 11);
    EXPECT_DOUBLE_EQ(stats.success_tolerance_ms, 1.0);
    EXPECT_DOUBLE_EQ(stats.success_pct, 80.0);
    EXPECT_DOUBLE_EQ(stats.summary.off_pct, 40.0) << "off_pct stays at the overlay's 0.5 ms";

    const RunStats wide = compute_run_stats(run_of(intervals), 5.0);
    EXPECT_DOUBLE_EQ(wide.success_pct, 100.0);
}

TEST(RunStats, KeepsEveryFrameOfALongRun) {
    // More frames than the pacer's default 1024-frame window: all count.
    std::vector<int64_t> intervals(3000, 10 * kNsPerMs);
    intervals[10] = 20 * kNsPerMs;
    const RunStats stats = compute_run_stats(run_of(intervals), 1.0);
    EXPECT_EQ(stats.summary.frames, 3001);
    EXPECT_DOUBLE_EQ(stats.summary.interval.max_us, 20'000.0);
}

TEST(RunStats, TooFewFramesLeaveSuccessUnmeasured) {
    const RunStats stats = compute_run_stats(run_of({}), 1.0);
    EXPECT_TRUE(std::isnan(stats.success_pct));
    EXPECT_EQ(metric_values(stats).count("success_pct"), 0u);
    const RunStats none = compute_run_stats({}, 1.0);
    EXPECT_EQ(none.summary.frames, 0);
}

TEST(Metrics, EveryKeyHasAValueWhenMeasured) {
    RunStats stats = compute_run_stats(run_of({10 * kNsPerMs, 11 * kNsPerMs, 9 * kNsPerMs}), 1.0);
    stats.shown_late_pct = 0.5;     // a display that reported (run_record.cpp)
    stats.hitches_per_1000 = 1.25;  // display_lock judged frames
    stats.wake_to_present_p50_us = 500;   // swaps after the wakes
    stats.gpu_finish_p50_us = 800;        // a host that finished the GPU work
    const MetricValues values = metric_values(stats);
    for (const std::string& key : metric_keys()) {
        EXPECT_TRUE(is_metric_key(key));
        EXPECT_EQ(values.count(key), 1u) << key;
    }
    EXPECT_EQ(values.size(), metric_keys().size());
    EXPECT_FALSE(is_metric_key("smoothness"));
    EXPECT_DOUBLE_EQ(values.at("interval_max_us"), 11'000.0);
    EXPECT_DOUBLE_EQ(values.at("interval_error_max_us"), 1'000.0);
    EXPECT_DOUBLE_EQ(values.at("frames"), 4.0);
    // The shared metrics (pacer/metrics.h) under their own names, in ms.
    EXPECT_DOUBLE_EQ(values.at("frame_time_max_ms"), 11.0);
    EXPECT_DOUBLE_EQ(values.at("max_error_ms"), 1.0);
    EXPECT_DOUBLE_EQ(values.at("success_pct"), 100.0);
    EXPECT_DOUBLE_EQ(values.at("delta_lt2_ms") + values.at("delta_lt4_ms"), 2.0) << "deltas 1 ms and 2 ms";
    EXPECT_DOUBLE_EQ(values.at("delta_lt2_ms"), 1.0);
}

TEST(Metrics, TheDisplaysFiguresAreNotMeasuredWithoutADisplay) {
    const RunStats stats = compute_run_stats(run_of({10 * kNsPerMs, 11 * kNsPerMs, 9 * kNsPerMs}), 1.0);
    const MetricValues values = metric_values(stats);
    EXPECT_EQ(values.count("shown_late_pct"), 0u);
    EXPECT_EQ(values.count("hitches_per_1000"), 0u);
    const std::vector<Verdict> verdicts = evaluate({Expectation{"hitches_per_1000", Comparison::LessEqual, 2.0, 1}}, values);
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_FALSE(verdicts[0].available);
    EXPECT_FALSE(verdicts[0].passed) << "a display_lock scenario must not pass where nothing was shown";
}

// The run's record: each wake to the present after it, from the next
// frame's present_ns (as wait() reports mark_present), as a median; and the
// time the waits spent finishing the GPU work (Frame::gpu_finish_ns).
TEST(RunRecord, WakeToPresentAndTheGpuStepComeFromTheFrames) {
    std::string error;
    const std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(pacer::Config{}, &error);
    ASSERT_TRUE(pacer) << error;
    RunRecord record(1.0);
    for (pacer::Frame f : run_of({10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs, 10 * kNsPerMs}, {kNsPerMs, 3 * kNsPerMs, 3 * kNsPerMs, 5 * kNsPerMs})) {
        f.gpu_finish_ns = f.index == 2 ? 0 : f.index * 200 * kNsPerUs;   // one wait finished no GPU work
        record.add_frame(f, f.period_ns, "paced", false);
    }
    const RunReport report = record.report(RunFacts{}, *pacer);
    EXPECT_NEAR(report.stats.wake_to_present_p50_us, 3'000.0, 3'000.0 * 0.002);
    EXPECT_NEAR(metric_values(report.stats).at("wake_to_present_p50_us"), 3'000.0, 3'000.0 * 0.002);
    EXPECT_NEAR(metric_values(report.stats).at("gpu_finish_p50_us"), 600.0, 600.0 * 0.002)
        << "0.2, 0, 0.6, 0.8 ms: the median of 4 is the third";

    RunRecord no_presents(1.0);   // an engine that never called mark_present
    for (pacer::Frame f : run_of({10 * kNsPerMs, 10 * kNsPerMs})) {
        f.present_ns = -1;
        no_presents.add_frame(f, f.period_ns, "paced", false);
    }
    const RunReport bare = no_presents.report(RunFacts{}, *pacer);
    EXPECT_TRUE(std::isnan(bare.stats.wake_to_present_p50_us));
    EXPECT_EQ(metric_values(bare.stats).count("wake_to_present_p50_us"), 0u);
    EXPECT_DOUBLE_EQ(bare.stats.gpu_finish_p50_us, 0.0) << "no host: measured, and nothing finished";
}

// Under vsync the swap waits for the refresh inside the frame's work (wake
// to the next wait): 9.5 ms of each 10 ms frame here. The summary's frame
// work leaves the swap's time out, and says nothing of slow building.
TEST(RunRecord, TheSwapsWaitIsNoPartOfTheFramesWork) {
    std::string error;
    const std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(pacer::Config{}, &error);
    ASSERT_TRUE(pacer) << error;
    RunRecord with_swap(1.0), without(1.0);
    for (pacer::Frame f : run_of(std::vector<int64_t>(40, 10 * kNsPerMs))) {
        f.work_ns = 10 * kNsPerMs + 200 * kNsPerUs;   // past the period, as a blocking swap makes it
        with_swap.add_frame(f, f.period_ns, "paced", false);
        without.add_frame(f, f.period_ns, "paced", false, 9'500 * kNsPerUs);
    }
    auto notes = [&](const RunRecord& record) {
        std::string all;
        for (const std::string& note : record.report(RunFacts{}, *pacer).notes) all += note + "\n";
        return all;
    };
    const std::string counted = notes(with_swap), left_out = notes(without);
    EXPECT_NE(counted.find("took longer than the 10.000 ms period to build"), std::string::npos) << counted;
    EXPECT_EQ(left_out.find("took longer than"), std::string::npos) << left_out;
    EXPECT_NE(left_out.find("the time in the swap left out) p50 0."), std::string::npos) << left_out;
}

TEST(Metrics, StutterAndLowsComeFromTheSharedModule) {
    std::vector<int64_t> intervals(200, 10 * kNsPerMs);
    intervals[150] = 40 * kNsPerMs;   // 4x the moving average: a stutter (factor 2.5)
    const RunStats stats = compute_run_stats(run_of(intervals), 1.0);
    const pacer::FrameTimeMetrics& m = stats.metrics;
    EXPECT_EQ(m.frames, 200);
    EXPECT_EQ(m.stutter_frames, 1);
    const MetricValues values = metric_values(stats);
    EXPECT_DOUBLE_EQ(values.at("stutter_frames"), 1.0);
    EXPECT_DOUBLE_EQ(values.at("stutter_pct"), m.stutter_pct);
    EXPECT_DOUBLE_EQ(values.at("low_1pct_fps"), m.low_1pct_fps);
    EXPECT_LT(values.at("low_1pct_fps"), values.at("avg_fps"));
    EXPECT_DOUBLE_EQ(values.at("success_pct"), 100.0 * 199 / 200);
}

TEST(Metrics, UnknownCpuIsLeftOut) {
    std::vector<pacer::Frame> frames = run_of({10 * kNsPerMs, 10 * kNsPerMs});
    for (pacer::Frame& f : frames) f.wait_cpu_ns = -1;
    const MetricValues values = metric_values(compute_run_stats(frames, 1.0));
    EXPECT_EQ(values.count("cpu_pct"), 0u);
}

Expectation expect(const std::string& key, Comparison comparison, double value) {
    Expectation e{};
    e.key = key;
    e.comparison = comparison;
    e.value = value;
    e.line = 1;
    return e;
}

TEST(Verdicts, PassFailAndNotMeasured) {
    const MetricValues values = {{"off_pct", 4.0}, {"fps", 59.9}, {"success_pct", std::nan("")}};
    const std::vector<Verdict> verdicts = evaluate(
        {expect("off_pct", Comparison::LessEqual, 4.0), expect("off_pct", Comparison::Less, 4.0),
         expect("fps", Comparison::GreaterEqual, 59.0), expect("fps", Comparison::Greater, 60.0),
         expect("cpu_pct", Comparison::Less, 50.0), expect("success_pct", Comparison::GreaterEqual, 90.0)},
        values);
    ASSERT_EQ(verdicts.size(), 6u);
    EXPECT_TRUE(verdicts[0].passed);
    EXPECT_FALSE(verdicts[1].passed) << "strict comparison at the threshold";
    EXPECT_TRUE(verdicts[2].passed);
    EXPECT_FALSE(verdicts[3].passed);
    EXPECT_FALSE(verdicts[4].available);
    EXPECT_FALSE(verdicts[4].passed) << "a metric the run did not produce fails";
    EXPECT_FALSE(verdicts[5].available) << "NaN is not a measurement";
    EXPECT_EQ(verdicts[0].text(), "PASS off_pct <= 4 (actual 4)");
    EXPECT_EQ(verdicts[3].text(), "FAIL fps > 60 (actual 59.9)");
    EXPECT_EQ(verdicts[4].text(), "FAIL cpu_pct < 50 (not measured)");
    EXPECT_FALSE(all_passed(verdicts));
    EXPECT_TRUE(all_passed({verdicts[0], verdicts[2]}));
    EXPECT_TRUE(all_passed({}));
}

RunReport sample_report() {
    RunReport report;
    report.info = {{"backend", "sdl2"}, {"vsync", "on requested, refused"}, {"scenario", "x \"y\".txt"}};
    report.brief = {"pacer-demo: sdl2, llvmpipe, 640x360 window", "pacing: timer -> timer: asked for"};
    report.stats = compute_run_stats(run_of({10 * kNsPerMs, 10 * kNsPerMs + 300 * kNsPerUs, 12 * kNsPerMs}), 1.0);
    report.verdicts = evaluate({expect("interval_max_us", Comparison::LessEqual, 11'000.0),
                                expect("frames", Comparison::GreaterEqual, 4.0),
                                expect("cpu_pct", Comparison::GreaterEqual, 0.0)},
                               metric_values(report.stats));
    return report;
}

TEST(SummaryJson, RoundTripsThroughAJsonParser) {
    const RunReport report = sample_report();
    const nlohmann::json json = nlohmann::json::parse(summary_json(report));
    EXPECT_EQ(json.at("run").at("backend"), "sdl2");
    EXPECT_EQ(json.at("run").at("scenario"), "x \"y\".txt");
    const auto& metrics = json.at("metrics");
    for (const std::string& key : metric_keys()) EXPECT_TRUE(metrics.contains(key)) << key;
    EXPECT_DOUBLE_EQ(metrics.at("interval_max_us").get<double>(), 12'000.0);
    EXPECT_DOUBLE_EQ(metrics.at("frames").get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(json.at("success_tolerance_ms").get<double>(), 1.0);
    ASSERT_EQ(json.at("verdicts").size(), 3u);
    EXPECT_EQ(json.at("verdicts")[0].at("expect"), "interval_max_us <= 11000");
    EXPECT_EQ(json.at("verdicts")[0].at("op"), "<=");
    EXPECT_EQ(json.at("verdicts")[0].at("passed"), false);
    EXPECT_DOUBLE_EQ(json.at("verdicts")[0].at("actual").get<double>(), 12'000.0);
    EXPECT_EQ(json.at("verdicts")[1].at("passed"), true);
    EXPECT_EQ(json.at("passed"), false);
}

TEST(SummaryJson, UnmeasuredValuesAreNull) {
    RunReport report;
    report.stats = compute_run_stats({}, 1.0);
    report.verdicts = evaluate({expect("success_pct", Comparison::GreaterEqual, 90.0)}, metric_values(report.stats));
    const nlohmann::json json = nlohmann::json::parse(summary_json(report));
    EXPECT_TRUE(json.at("metrics").at("success_pct").is_null());
    EXPECT_TRUE(json.at("verdicts")[0].at("actual").is_null());
    EXPECT_EQ(json.at("passed"), false);
    EXPECT_TRUE(json.at("run").is_object());
}

TEST(SummaryJson, NoExpectationsPass) {
    RunReport report;
    report.stats = compute_run_stats(run_of({10 * kNsPerMs}), 1.0);
    const nlohmann::json json = nlohmann::json::parse(summary_json(report));
    EXPECT_TRUE(json.at("verdicts").empty());
    EXPECT_EQ(json.at("passed"), true);
}

TEST(SummaryText, ShowsTheBriefTheFiguresAndWhatFailed) {
    const std::string text = summary_text(sample_report());
    EXPECT_EQ(text.rfind("pacer-demo: sdl2, llvmpipe, 640x360 window\npacing: timer", 0), 0u) << text;
    EXPECT_EQ(text.find("vsync: on requested"), std::string::npos) << "the info goes to the JSON only";
    EXPECT_NE(text.find("wakes: 4 frames"), std::string::npos) << text;
    // What reached the screen comes first, right after what ran.
    EXPECT_LT(text.find("presents (swap to swap): off by > 0.5 ms"), text.find("wakes: ")) << text;
    EXPECT_LT(text.find("shown (display reports): off by > 0.5 ms"), text.find("wakes: ")) << text;
    EXPECT_NE(text.find("max 12.000 (target 10.000)"), std::string::npos) << text;
    EXPECT_NE(text.find("FAIL (2/3 expectations met)\n  FAIL interval_max_us <= 11000 (actual 12000)"),
              std::string::npos) << text;
    EXPECT_EQ(text.find("PASS frames >= 4"), std::string::npos) << "passed verdicts are counted, not listed";
    EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 20);
    EXPECT_EQ(text.back(), '\n');
}

TEST(SummaryText, NamesTheRendererWhenFramesOutlastTheirPeriod) {
    EXPECT_EQ(renderer_limit_note(1000, 49, 5.0, 16.667), "") << "under 5 %: a few slow frames";
    EXPECT_NE(renderer_limit_note(1000, 50, 5.0, 16.667), "");
    EXPECT_EQ(renderer_limit_note(0, 0, 0, 16.667), "");
    const std::string note = renderer_limit_note(1000, 310, 16.9, 16.667);
    EXPECT_EQ(note.rfind("31.0 % of frames took longer than the 16.667 ms period to build (p50 16.900 ms)", 0), 0u)
        << note;
    EXPECT_NE(note.find("not the pacer"), std::string::npos);
}

}  // namespace
TEST(Metrics, SteadyWakesWithUnevenPresentsFailAPresentExpectation) {
    // Every wake on time; the swaps return 2 ms after, or 6 ms every fourth frame.
    std::vector<int64_t> intervals(40, 10 * kNsPerMs), after;
    for (int i = 0; i <= 40; ++i) after.push_back(i % 4 == 3 ? 6 * kNsPerMs : 2 * kNsPerMs);
    const MetricValues values = metric_values(compute_run_stats(run_of(intervals, after), 1.0));
    EXPECT_DOUBLE_EQ(values.at("off_pct"), 0.0);
    EXPECT_GT(values.at("present_off_pct"), 40.0);
    const std::vector<Verdict> verdicts =
        evaluate({Expectation{"off_pct", Comparison::LessEqual, 5, 1}, Expectation{"present_off_pct", Comparison::LessEqual, 5, 2}},
                 values);
    EXPECT_TRUE(verdicts[0].passed);
    EXPECT_FALSE(verdicts[1].passed);
}

TEST(Metrics, PresentsNotMeasuredWithoutMarkPresent) {
    std::vector<pacer::Frame> frames = run_of({10 * kNsPerMs, 10 * kNsPerMs});
    for (pacer::Frame& f : frames) f.present_ns = -1;
    const MetricValues values = metric_values(compute_run_stats(frames, 1.0));
    EXPECT_EQ(values.count("present_off_pct"), 0u);
    EXPECT_EQ(evaluate({Expectation{"present_off_pct", Comparison::LessEqual, 5, 1}}, values)[0].available, false);
}

}  // namespace pacer_demo
