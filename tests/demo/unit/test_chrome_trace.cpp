// Chrome trace JSON: parsed with nlohmann::json, the structure the viewers
// need (metadata, complete spans, instants, a counter), spans that add up to
// what the frames measured and nest exactly, escaping, and the file rules.
#include "run/chrome_trace.h"

#include <pacer/units.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_files.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace pacer_demo {
namespace {

using pacer::kNsPerMs;
using pacer::kNsPerUs;

namespace fs = std::filesystem;
using nlohmann::json;

using test_files::has_temp;
using test_files::temp_path;

json read_json(const std::string& path) {
    std::ifstream file(path);
    return json::parse(file);   // throws on anything that is not JSON
}

// A frame that woke at wake_ns after a wait of work, sleep and spin.
pacer::Frame frame_at(int64_t index, int64_t wake_ns, int64_t interval_ns, int64_t work_ns, int64_t slept_ns,
                      int64_t spun_ns) {
    pacer::Frame frame{};
    frame.index = index;
    frame.wake_ns = wake_ns;
    frame.deadline_ns = wake_ns - 20 * kNsPerUs;
    frame.lateness_ns = 20 * kNsPerUs;
    frame.interval_ns = interval_ns;
    frame.period_ns = 16'666'667;
    frame.work_ns = work_ns;
    frame.slept_ns = slept_ns;
    frame.spun_ns = spun_ns;
    frame.wait_cpu_ns = -1;
    frame.present_ns = -1;
    frame.strategy = pacer::Strategy::Timer;
    return frame;
}

std::vector<json> events_named(const json& trace, const std::string& name) {
    std::vector<json> out;
    for (const json& event : trace.at("traceEvents")) {
        if (event.at("name") == name) out.push_back(event);
    }
    return out;
}

// ts/dur are microseconds with three decimals: back to integer nanoseconds.
int64_t ns_of(const json& value) { return std::llround(value.get<double>() * 1000.0); }

TEST(ChromeTrace, StructureSumsAndNesting) {
    const std::string path = temp_path("run.json");
    // Three waits after frame 0 with different work, sleep and spin; one wait
    // with no sleep (a spin strategy) and one with no spin.
    struct Wait { int64_t interval_ns, work_ns, slept_ns, spun_ns; };
    const std::vector<Wait> waits = {
        {16 * kNsPerMs + 700 * kNsPerUs, 3 * kNsPerMs, 13 * kNsPerMs, 500 * kNsPerUs},
        {16 * kNsPerMs + 600 * kNsPerUs, 5 * kNsPerMs + 123, 0, 11 * kNsPerMs},
        {33 * kNsPerMs + 333 * kNsPerUs, 20 * kNsPerMs, 13 * kNsPerMs + 333 * kNsPerUs, 0},
    };
    const int64_t start_ns = 5'000 * kNsPerMs;   // an arbitrary clock origin
    {
        ChromeTraceWriter writer(path, "pacer-demo test");
        ASSERT_TRUE(writer.ok()) << writer.error();
        int64_t wake_ns = start_ns;
        writer.write(frame_at(0, wake_ns, 0, 0, 0, 0), "", "cli: set strategy=timer");
        int64_t index = 1;
        for (const Wait& w : waits) {
            wake_ns += w.interval_ns;
            writer.write(frame_at(index, wake_ns, w.interval_ns, w.work_ns, w.slept_ns, w.spun_ns),
                         index == 2 ? "auto: timer (\"refused\")" : "", index == 3 ? "mark \"overload\"\n" : "");
            ++index;
        }
        EXPECT_EQ(writer.frames(), 4);
        EXPECT_FALSE(fs::exists(path)) << "only PATH.tmp until close()";
        ASSERT_EQ(writer.close(), "");
    }
    ASSERT_TRUE(fs::exists(path));
    EXPECT_FALSE(has_temp(path));

    const json trace = read_json(path);
    ASSERT_TRUE(trace.is_object());
    EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
    ASSERT_TRUE(trace.at("traceEvents").is_array());

    // Metadata names the process and the thread.
    const auto process = events_named(trace, "process_name");
    ASSERT_EQ(process.size(), 1u);
    EXPECT_EQ(process[0].at("ph"), "M");
    EXPECT_EQ(process[0].at("args").at("name"), "pacer-demo test");
    const auto thread = events_named(trace, "thread_name");
    ASSERT_EQ(thread.size(), 1u);
    EXPECT_EQ(thread[0].at("args").at("name"), "frame loop");

    // Every event has what the viewers need for its phase.
    for (const json& event : trace.at("traceEvents")) {
        ASSERT_TRUE(event.contains("ph") && event.contains("pid") && event.contains("tid")) << event.dump();
        const std::string ph = event.at("ph");
        if (ph == "X") {
            ASSERT_TRUE(event.at("ts").is_number() && event.at("dur").is_number()) << event.dump();
            EXPECT_GE(event.at("dur").get<double>(), 0.0);
        } else if (ph == "i") {
            EXPECT_EQ(event.at("s"), "t");
            EXPECT_TRUE(event.at("ts").is_number());
        } else if (ph == "C") {
            EXPECT_TRUE(event.at("args").at("ms").is_number());
        } else {
            EXPECT_EQ(ph, "M") << event.dump();
        }
    }

    // One frame span per completed frame, wake to wake, from the first wake.
    const auto frame0 = events_named(trace, "frame 0");
    ASSERT_EQ(frame0.size(), 1u);
    EXPECT_EQ(ns_of(frame0[0].at("ts")), 0);
    EXPECT_EQ(ns_of(frame0[0].at("dur")), waits[0].interval_ns);
    EXPECT_EQ(events_named(trace, "frame 2").size(), 1u);
    EXPECT_TRUE(events_named(trace, "frame 3").empty()) << "frame 3's wait never returned";

    // The spans add up to what the frames measured.
    std::map<std::string, int64_t> sums;
    for (const json& event : trace.at("traceEvents")) {
        if (event.at("ph") == "X") sums[event.at("name")] += ns_of(event.at("dur"));
    }
    int64_t work = 0, wait = 0, slept = 0, spun = 0;
    for (const Wait& w : waits) {
        work += w.work_ns;
        wait += w.interval_ns - w.work_ns;
        slept += w.slept_ns;
        spun += w.spun_ns;
    }
    EXPECT_EQ(sums["work"], work);
    EXPECT_EQ(sums["wait"], wait);
    EXPECT_EQ(sums["sleep"], slept);
    EXPECT_EQ(sums["spin"], spun);
    EXPECT_EQ(events_named(trace, "sleep").size(), 2u) << "no span for a wait without sleep";
    EXPECT_EQ(events_named(trace, "spin").size(), 2u) << "no span for a wait without spin";

    // Nesting: work and wait tile their frame; sleep starts the wait, spin ends it.
    const auto waits_json = events_named(trace, "wait");
    const auto works = events_named(trace, "work");
    ASSERT_EQ(waits_json.size(), 3u);
    ASSERT_EQ(works.size(), 3u);
    for (std::size_t i = 0; i < waits_json.size(); ++i) {
        const json frame = events_named(trace, "frame " + std::to_string(i))[0];
        EXPECT_EQ(ns_of(works[i].at("ts")), ns_of(frame.at("ts")));
        EXPECT_EQ(ns_of(waits_json[i].at("ts")), ns_of(works[i].at("ts")) + ns_of(works[i].at("dur")));
        EXPECT_EQ(ns_of(waits_json[i].at("ts")) + ns_of(waits_json[i].at("dur")),
                  ns_of(frame.at("ts")) + ns_of(frame.at("dur")));
        EXPECT_EQ(waits_json[i].at("args").at("strategy"), "timer");
        EXPECT_NEAR(waits_json[i].at("args").at("lateness_us").get<double>(), 20.0, 1e-9);
    }
    const auto sleeps = events_named(trace, "sleep");
    EXPECT_EQ(ns_of(sleeps[0].at("ts")), ns_of(waits_json[0].at("ts")));
    const auto spins = events_named(trace, "spin");
    EXPECT_EQ(ns_of(spins[1].at("ts")) + ns_of(spins[1].at("dur")),
              ns_of(waits_json[1].at("ts")) + ns_of(waits_json[1].at("dur")));

    // The interval counter, one sample per completed frame.
    const auto counter = events_named(trace, "MsBetweenSimulationStart");
    ASSERT_EQ(counter.size(), 3u);
    EXPECT_NEAR(counter[2].at("args").at("ms").get<double>(), 33.333, 1e-9);

    // Markers and decisions as instants at their frame's wake, text intact.
    std::vector<json> markers, decisions;
    for (const json& event : trace.at("traceEvents")) {
        if (event.value("cat", "") == "marker") markers.push_back(event);
        if (event.value("cat", "") == "decision") decisions.push_back(event);
    }
    ASSERT_EQ(markers.size(), 2u);
    EXPECT_EQ(markers[0].at("name"), "cli: set strategy=timer");
    EXPECT_EQ(ns_of(markers[0].at("ts")), 0);
    EXPECT_EQ(markers[1].at("name"), "mark \"overload\"\n");
    EXPECT_EQ(ns_of(markers[1].at("ts")), waits[0].interval_ns + waits[1].interval_ns + waits[2].interval_ns);
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].at("name"), "auto: timer (\"refused\")");
}

TEST(ChromeTrace, EmptyRunIsValidJson) {
    const std::string path = temp_path("empty.json");
    ChromeTraceWriter writer(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_EQ(writer.close(), "");
    const json trace = read_json(path);
    EXPECT_EQ(trace.at("traceEvents").size(), 2u);   // the two metadata events
}

TEST(ChromeTrace, UnwritablePathIsReportedUpFront) {
    ChromeTraceWriter missing_dir("/nonexistent-pacer-dir/t.json");
    EXPECT_FALSE(missing_dir.ok());
    EXPECT_EQ(missing_dir.error(),
              "--chrome-trace: cannot write /nonexistent-pacer-dir/t.json: No such file or directory");
    missing_dir.write(frame_at(0, 0, 0, 0, 0, 0));   // ignored, no crash
    EXPECT_NE(missing_dir.close(), "");

    const std::string dir = temp_path("dir");
    fs::create_directories(dir);
    ChromeTraceWriter directory(dir);
    EXPECT_EQ(directory.error(), "--chrome-trace: cannot write " + dir + ": a directory, not a regular file");
    fs::remove(dir);

    ChromeTraceWriter empty("");
    EXPECT_EQ(empty.error(), "--chrome-trace: empty path");
}

TEST(ChromeTrace, NoCloseLeavesNothing) {
    const std::string path = temp_path("abandoned.json");
    {
        ChromeTraceWriter writer(path);
        ASSERT_TRUE(writer.ok());
        writer.write(frame_at(0, 0, 0, 0, 0, 0));
        EXPECT_TRUE(has_temp(path));
    }
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temp(path));
}

}  // namespace
}  // namespace pacer_demo
