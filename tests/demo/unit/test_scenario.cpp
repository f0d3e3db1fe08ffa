// Scenario format: parsing, error locations, settings rules and the cursor.
#include "run/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace pacer_demo {
namespace {

Scenario parse_ok(const std::string& text) {
    Scenario scenario;
    const std::string error = parse_scenario_text(text, "test.txt", &scenario);
    EXPECT_EQ(error, "");
    return scenario;
}

TEST(ScenarioParse, EveryStatement) {
    const Scenario s = parse_ok(
        "# a comment\n"
        "\n"
        "title \"Two phases\"   # trailing comment\n"
        "tolerance 500ms\n"
        "at 0s set strategy=timer hz=60 vsync=adaptive miss_policy=catch_up\n"
        "at 2.5s set work_ms=4 jitter_ms=1 spike_ms=20 spike_every=30\n"
        "at frame 200 set bg_threads=1 duty=0.5 duty_period_ms=20\n"
        "at frame 200 mark \"over load\"\n"
        "at 250ms set sched_period_ms=15.625 preempt_prob=0.1 timer_slack_ns=50000\n"
        "at 3s set precise_k=2 robust_tolerance_us=50 timer_margin_us=300\n"
        "end frame 600\n"
        "expect interval_error_p99_us <= 2000\n"
        "expect success_pct>=90\n"
        "expect off_pct < 5\n"
        "expect fps > 50.5\n");
    EXPECT_EQ(s.name, "test.txt");
    EXPECT_EQ(s.title, "Two phases");
    EXPECT_DOUBLE_EQ(s.success_tolerance_ms, 500.0);
    ASSERT_EQ(s.steps.size(), 6u);

    EXPECT_EQ(s.steps[0].line, 5);
    EXPECT_EQ(s.steps[0].at.unit, When::Unit::Seconds);
    EXPECT_DOUBLE_EQ(s.steps[0].at.seconds, 0.0);
    EXPECT_EQ(s.steps[0].settings.strategy, pacer::Strategy::Timer);
    EXPECT_EQ(s.steps[0].settings.hz, 60.0);
    EXPECT_EQ(s.steps[0].settings.vsync, VsyncMode::Adaptive);
    EXPECT_EQ(s.steps[0].settings.miss_policy, pacer::MissPolicy::CatchUp);
    EXPECT_FALSE(s.steps[0].settings.work_ms.has_value());

    EXPECT_DOUBLE_EQ(s.steps[1].at.seconds, 2.5);
    EXPECT_EQ(s.steps[1].settings.spike_every, 30);

    EXPECT_EQ(s.steps[2].at.unit, When::Unit::Frame);
    EXPECT_EQ(s.steps[2].at.frame, 200);
    EXPECT_EQ(s.steps[2].settings.bg_threads, 1);
    EXPECT_EQ(s.steps[2].settings.duty_period_ms, 20.0);

    EXPECT_EQ(s.steps[3].mark, "over load");
    EXPECT_TRUE(s.steps[3].settings.empty());
    EXPECT_EQ(s.steps[3].text(), "mark over load");

    EXPECT_DOUBLE_EQ(s.steps[4].at.seconds, 0.25);
    EXPECT_EQ(s.steps[4].settings.sched_period_ms, 15.625);
    EXPECT_EQ(s.steps[4].settings.timer_slack_ns, 50000);
    EXPECT_EQ(s.steps[5].settings.precise_k, 2.0);

    ASSERT_TRUE(s.end.has_value());
    EXPECT_EQ(s.end->unit, When::Unit::Frame);
    EXPECT_EQ(s.end->frame, 600);

    ASSERT_EQ(s.expectations.size(), 4u);
    EXPECT_EQ(s.expectations[0].key, "interval_error_p99_us");
    EXPECT_EQ(s.expectations[0].comparison, Comparison::LessEqual);
    EXPECT_DOUBLE_EQ(s.expectations[0].value, 2000.0);
    EXPECT_EQ(s.expectations[0].line, 12);
    EXPECT_EQ(s.expectations[1].comparison, Comparison::GreaterEqual);
    EXPECT_EQ(s.expectations[2].comparison, Comparison::Less);
    EXPECT_EQ(s.expectations[3].comparison, Comparison::Greater);
    EXPECT_EQ(s.expectations[3].text(), "fps > 50.5");
}

TEST(ScenarioParse, DefaultsWithoutOptionalStatements) {
    const Scenario s = parse_ok("at 0s set hz=30\r\n");   // CRLF files too
    EXPECT_TRUE(s.title.empty());
    EXPECT_FALSE(s.end.has_value());
    EXPECT_DOUBLE_EQ(s.success_tolerance_ms, 1.0);
    EXPECT_TRUE(s.expectations.empty());
    EXPECT_FALSE(s.screenshot_frame.has_value());
    ASSERT_EQ(s.steps.size(), 1u);
    EXPECT_EQ(s.steps[0].text(), "set hz=30");
}

TEST(ScenarioParse, ScreenshotNamesAFrameBeforeTheEnd) {
    EXPECT_EQ(parse_ok("screenshot frame 63\nend 10s\n").screenshot_frame, 63);
    EXPECT_EQ(parse_ok("screenshot frame 0\nend frame 1\n").screenshot_frame, 0);
    Scenario s;
    EXPECT_EQ(parse_scenario_text("screenshot frame 10\nend frame 10\n", "s.txt", &s),
              "s.txt:1: screenshot frame 10 is not before the end (frame 10, line 2)");
}

TEST(ScenarioParse, NeedsPresentFeedbackReachesTheDescription) {
    const Scenario needing = parse_ok("needs present_feedback\nend 2s\n");
    EXPECT_TRUE(needing.needs_present_feedback);
    EXPECT_NE(describe_scenario_json(needing, default_settings()).find("\"needs\":[\"present_feedback\"]"),
              std::string::npos);
    const Scenario plain = parse_ok("end 2s\n");
    EXPECT_FALSE(plain.needs_present_feedback);
    EXPECT_NE(describe_scenario_json(plain, default_settings()).find("\"needs\":[]"), std::string::npos);
}

TEST(ScenarioParse, LinesEndInLfCrLfOrALoneCr) {
    for (const char* text : {"at 0s set hz=30\nend frame 5\n", "at 0s set hz=30\r\nend frame 5\r\n",
                             "at 0s set hz=30\rend frame 5\r"}) {
        const Scenario s = parse_ok(text);
        ASSERT_TRUE(s.end.has_value()) << text;
        EXPECT_EQ(s.end->frame, 5) << text;
        ASSERT_EQ(s.steps.size(), 1u) << text;
        EXPECT_EQ(*s.steps[0].settings.hz, 30) << text;
    }
    Scenario s;   // the line numbers count a lone CR as a line end too
    EXPECT_EQ(parse_scenario_text("end frame 5\rend frame 6\r", "s.txt", &s),
              "s.txt:2: end given twice (first on line 1)");
}

TEST(ScenarioParse, EmptyTextIsAnEmptyScenario) {
    const Scenario s = parse_ok("");
    EXPECT_TRUE(s.steps.empty());
}

TEST(ScenarioParse, EveryShippedScenarioParses) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(PACER_SCENARIO_DIR))
        if (entry.path().extension() == ".txt") files.push_back(entry.path());
    // The scenarios the demo issue asks for, plus the CI one.
    for (const char* name : {"steady-60.txt", "strategy-sweep.txt", "spikes.txt", "win-timers-overload.txt",
                             "ci-smoke.txt", "dt-modes.txt"}) {
        EXPECT_TRUE(std::any_of(files.begin(), files.end(), [&](const fs::path& p) { return p.filename() == name; }))
            << name << " is missing from " << PACER_SCENARIO_DIR;
    }
    for (const fs::path& file : files) {
        Scenario s;
        EXPECT_EQ(parse_scenario_file(file.string(), &s), "") << file;
        EXPECT_FALSE(s.title.empty()) << file;
        EXPECT_TRUE(s.end.has_value()) << file << ": a shipped scenario must end";
        EXPECT_FALSE(s.expectations.empty()) << file << ": a shipped scenario must say what passes";
        EXPECT_FALSE(s.steps.empty()) << file;
    }
}

TEST(ScenarioParse, WinTimersOverloadMatchesTheArticle) {
    Scenario s;
    ASSERT_EQ(parse_scenario_file(std::string(PACER_SCENARIO_DIR) + "/win-timers-overload.txt", &s), "");
    ASSERT_TRUE(s.end.has_value());
    EXPECT_EQ(s.end->frame, 601);   // 600 intervals
    EXPECT_DOUBLE_EQ(s.success_tolerance_ms, 1.0);
    ScenarioCursor cursor(s);
    const auto start = cursor.due(0, 0.0);
    ASSERT_FALSE(start.empty());
    EXPECT_EQ(start[0]->settings.hz, 10.0);
    EXPECT_TRUE(cursor.due(199, 19.9).empty());
    const auto overload = cursor.due(200, 20.0);
    ASSERT_EQ(overload.size(), 2u);
    EXPECT_GT(overload[1]->settings.bg_threads.value_or(0), 0);
    const auto calm = cursor.due(400, 40.0);
    ASSERT_EQ(calm.size(), 2u);
    EXPECT_EQ(calm[1]->settings.bg_threads, 0);
}

struct BadLine {
    const char* text;
    int line;
    const char* message_part;
};

TEST(ScenarioParse, MalformedLinesReportFileAndLine) {
    const BadLine cases[] = {
        {"frobnicate 1\n", 1, "unknown statement 'frobnicate'"},
        {"screenshot 2s\n", 1, "screenshot: write screenshot frame N"},
        {"screenshot frame -1\n", 1, "screenshot: write screenshot frame N"},
        {"screenshot frame 1 2\n", 1, "screenshot: write screenshot frame N"},
        {"screenshot frame 1\nscreenshot frame 2\n", 2, "screenshot given twice"},
        {"needs vsync\n", 1, "needs: write needs present_feedback"},
        {"needs\n", 1, "needs: write needs present_feedback"},
        {"needs present_feedback\nneeds present_feedback\n", 2, "needs present_feedback given twice"},
        {"# ok\nat 1s set hz=0\n", 2, "hz: 0 is out of range [0.001, 10000]"},   // pacer::validate's
        {"\n\nat 1s set hz=abc\n", 3, "hz: 'abc' is not a number"},
        {"at 1s set hz=20000\n", 1, "out of range"},
        {"at 1s set strategy=warp\n", 1, "strategy: 'warp' is not one of sleep, spin"},
        {"at 1s set vsync=maybe\n", 1, "vsync: 'maybe' is not one of off, on, adaptive"},
        {"at 1s set miss_policy=panic\n", 1, "miss_policy: 'panic' is not one of skip, catch_up"},
        {"at 1s set sched_period_ms=0.5\n", 1, "sched_period_ms"},
        {"at 1s set sched_period_ms=17\n", 1, "sched_period_ms"},
        {"at 1s set preempt_prob=1\n", 1, "preempt_prob: 1 is out of range [0, 1)"},
        {"at 1s set timer_slack_ns=-1\n", 1, "timer_slack_ns"},
        {"at 1s set timer_slack_ns=1.5\n", 1, "is not an integer"},
        {"at 1s set work_ms=-1\n", 1, "work_ms"},
        {"at 1s set jitter_ms=2000\n", 1, "jitter_ms"},
        {"at 1s set spike_ms=20000\n", 1, "spike_ms"},
        {"at 1s set spike_every=-3\n", 1, "spike_every"},
        {"at 1s set bg_threads=100000\n", 1, "bg_threads"},
        {"at 1s set bg_threads=lots\n", 1, "bg_threads"},
        {"at 1s set duty=0\n", 1, "duty: 0 is out of range (0, 1]"},
        {"at 1s set duty_period_ms=0.5\n", 1, "duty_period_ms"},
        {"at 1s set precise_k=-1\n", 1, "precise_k: -1 is out of range [0, 100]"},
        {"at 1s set timer_margin_us=5000\n", 1, "timer_margin_us: 5000 -> tuning.timer.margin_ns: 5000000 is out of range"},
        {"at 1s set dt_mode=smooth\n", 1, "dt_mode: 'smooth' is not one of raw, paced, fixed"},
        {"at 1s set dt_mode=\n", 1, "dt_mode: '' is not one of"},
        {"at 1s set wait_point=middle\n", 1, "wait_point: 'middle' is not one of before_present, frame_start"},
        {"at 1s set sched_slice_us=50\n", 1, "sched_slice_us: 50 is out of range 0 or [100, 100000]"},
        {"at 1s set sched_slice_us=200000\n", 1, "sched_slice_us: 200000 is out of range"},
        {"at 1s set sched_slice_us=fast\n", 1, "sched_slice_us: 'fast' is not a number"},
        {"at 1s set fifo_priority=100\n", 1, "fifo_priority: 100 is out of range [0, 99]"},
        {"at 1s set fifo_priority=-1\n", 1, "fifo_priority: -1 is out of range [0, 99]"},
        {"at 1s set fifo_priority=1.5\n", 1, "fifo_priority: '1.5' is not an integer"},
        {"at 1s set nice=20\n", 1, "nice: 20 is out of range [-20, 19]"},
        {"at 1s set nice=-21\n", 1, "nice: -21 is out of range [-20, 19]"},
        {"at 1s set timer_period_ms=101\n", 1, "timer_period_ms: 101 is out of range [0, 100]"},
        {"at 1s set timer_period_ms=-1\n", 1, "timer_period_ms"},
        {"at 1s set colour=red\n", 1, "unknown setting 'colour'"},
        {"at 1s set hz=60 hz=30\n", 1, "hz given twice"},
        {"at 1s set hz\n", 1, "'hz' is not key=value"},
        {"at 1s set =5\n", 1, "not key=value"},
        {"at 1s set\n", 1, "set: no settings"},
        {"at 1s\n", 1, "missing action"},
        {"at 1s jump\n", 1, "unknown action 'jump'"},
        {"at soon set hz=60\n", 1, "'soon' is not a time"},
        {"at -1s set hz=60\n", 1, "negative"},
        {"at frame x set hz=60\n", 1, "not a frame number"},
        {"at frame -2 set hz=60\n", 1, "not a frame number"},
        {"at frame\n", 1, "missing frame number"},
        {"at\n", 1, "missing time"},
        {"at 1s mark\n", 1, "mark: write mark \"name\""},
        {"at 1s mark unquoted\n", 1, "mark: write mark \"name\""},
        {"at 1s mark \"\"\n", 1, "non-empty"},
        {"at 1s mark \"open\n", 1, "unclosed quote"},
        {"title untitled\n", 1, "title: write title"},
        {"title \"a\"\ntitle \"b\"\n", 2, "title given twice"},
        {"end 10s\nend 20s\n", 2, "end given twice (first on line 1)"},
        {"end 0s\n", 1, "end: must be after the start"},
        {"end frame 0\n", 1, "end: must be after the start"},
        {"end 10s later\n", 1, "end: unexpected 'later'"},
        {"end\n", 1, "end: missing time"},
        {"tolerance\n", 1, "tolerance: write"},
        {"tolerance 0ms\n", 1, "tolerance: 0ms is out of range"},
        {"tolerance 1\n", 1, "tolerance: '1' is not a time"},
        {"expect fps\n", 1, "expect: write expect KEY"},
        {"expect <= 5\n", 1, "missing metric key"},
        {"expect smoothness >= 5\n", 1, "unknown metric 'smoothness'"},
        {"expect fps >= fast\n", 1, "'fast' is not a number"},
        {"expect fps >= \"5\"\n", 1, "unexpected quoted string"},
        {"\"at\" 1s set hz=60\n", 1, "expected a statement"},
        {"at 0s set hz=60\nat 1s\x01 set hz=30\n", 2, "unexpected control byte 0x01"},
        // A step the end makes unreachable is reported on the step's line.
        {"end 5s\nat 6s set hz=30\n", 2, "is not before the end (5s, line 1)"},
        {"at frame 700 set hz=30\nend frame 600\n", 1, "is not before the end"},
    };
    for (const BadLine& bad : cases) {
        Scenario untouched;
        untouched.title = "keep";
        std::string error = parse_scenario_text(bad.text, "bad.txt", &untouched);
        // Ranges the library owns are checked after parsing, before the run.
        Scenario parsed;
        if (error.empty() && parse_scenario_text(bad.text, "bad.txt", &parsed).empty())
            error = check_steps(parsed, default_settings());
        const std::string prefix = "bad.txt:" + std::to_string(bad.line) + ": ";
        EXPECT_EQ(error.rfind(prefix, 0), 0u) << "text: " << bad.text << "error: " << error;
        EXPECT_NE(error.find(bad.message_part), std::string::npos) << "text: " << bad.text << "error: " << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
        EXPECT_TRUE(untouched.title == "keep" || !parsed.steps.empty()) << "a failed parse leaves the output alone";
    }
}

TEST(ScenarioParse, MissingFileNamesThePath) {
    Scenario s;
    const std::string error = parse_scenario_file("/nonexistent/dir/none.txt", &s);
    EXPECT_EQ(error.rfind("/nonexistent/dir/none.txt: cannot open", 0), 0u) << error;
}

TEST(ScenarioParse, DirectoryIsNotAScenario) {
    Scenario s;
    const std::string dir = PACER_SCENARIO_DIR;
    EXPECT_EQ(parse_scenario_file(dir, &s), dir + ": cannot open: a directory, not a regular file");
}

TEST(ScenarioParse, FileErrorsUseThePathAsName) {
    const std::string path = ::testing::TempDir() + "pacer_bad_scenario.txt";
    std::FILE* file = std::fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    std::fputs("at 0s set hz=60\nat 1s set hz=-5\n", file);
    std::fclose(file);
    Scenario s;
    std::string error = parse_scenario_file(path, &s);
    if (error.empty()) error = check_steps(s, default_settings());
    std::remove(path.c_str());
    EXPECT_EQ(error.rfind(path + ":2: hz: -5 is out of range", 0), 0u) << error;
}

TEST(Settings, ParseSettingAndDescribe) {
    Settings s;
    EXPECT_EQ(parse_setting("strategy", "precise_sleep", &s), "");
    EXPECT_EQ(parse_setting("hz", "143.5", &s), "");
    EXPECT_EQ(parse_setting("bg_threads", "cores", &s), "");
    EXPECT_EQ(s.bg_threads, max_background_threads() / 2);
    EXPECT_EQ(parse_setting("bg_threads", "2xcores", &s), "");
    EXPECT_EQ(s.bg_threads, max_background_threads());
    EXPECT_EQ(parse_setting("sched_period_ms", "0", &s), "");
    EXPECT_EQ(describe(s), "strategy=precise_sleep hz=143.5 sched_period_ms=0 bg_threads=" +
                               std::to_string(max_background_threads()));
    EXPECT_EQ(parse_setting("hz", "0x", &s), "hz: '0x' is not a number");
    EXPECT_EQ(s.hz, 143.5) << "a refused value leaves the setting alone";
    // The rate's range is the library's, checked on the whole state.
    Settings state = default_settings();
    ASSERT_EQ(parse_setting("hz", "0", &state), "");
    EXPECT_EQ(check(state), "hz: 0 is out of range [0.001, 10000]");
    EXPECT_EQ(parse_setting("hz", "nan", &s), "hz: 'nan' is not a number");
    EXPECT_EQ(parse_setting("hz", "60x", &s), "hz: '60x' is not a number");
}

TEST(Settings, EngineClockAndThreadKeys) {
    Settings s;
    EXPECT_EQ(parse_setting("dt_mode", "fixed", &s), "");
    EXPECT_EQ(parse_setting("wait_point", "before_present", &s), "");
    EXPECT_EQ(parse_setting("sched_slice_us", "700", &s), "");
    EXPECT_EQ(parse_setting("fifo_priority", "10", &s), "");
    EXPECT_EQ(parse_setting("nice", "-5", &s), "");
    EXPECT_EQ(parse_setting("timer_period_ms", "1", &s), "");
    EXPECT_EQ(s.dt_mode, DtMode::Fixed);
    EXPECT_EQ(s.wait_point, pacer::WaitPoint::BeforePresent);
    EXPECT_EQ(s.sched_slice_us, 700.0);
    EXPECT_EQ(s.fifo_priority, 10);
    EXPECT_EQ(s.nice, -5);
    EXPECT_EQ(s.timer_period_ms, 1);
    EXPECT_EQ(describe(s), "sched_slice_us=700 fifo_priority=10 nice=-5 timer_period_ms=1 dt_mode=fixed "
                           "wait_point=before_present");
    // 0 means "leave" for each thread control.
    EXPECT_EQ(parse_setting("sched_slice_us", "0", &s), "");
    EXPECT_EQ(parse_setting("fifo_priority", "0", &s), "");
    EXPECT_EQ(parse_setting("nice", "0", &s), "");
    Settings later;
    ASSERT_EQ(parse_setting("dt_mode", "raw", &later), "");
    s.merge(later);
    EXPECT_EQ(s.dt_mode, DtMode::Raw);
    EXPECT_EQ(s.wait_point, pacer::WaitPoint::BeforePresent) << "merge keeps what later leaves unset";
    for (DtMode mode : {DtMode::Raw, DtMode::Paced, DtMode::Fixed}) {
        DtMode parsed = DtMode::Raw;
        ASSERT_TRUE(parse_dt_mode(dt_mode_name(mode), &parsed));
        EXPECT_EQ(parsed, mode);
    }
    DtMode untouched = DtMode::Paced;
    EXPECT_FALSE(parse_dt_mode("measured", &untouched));
    EXPECT_EQ(untouched, DtMode::Paced);
}

TEST(Settings, TimerWaitKeys) {
    Settings s;
    EXPECT_EQ(parse_setting("wait_slack_ns", "1", &s), "");
    EXPECT_EQ(parse_setting("wait_slice_ns", "-1", &s), "");
    EXPECT_EQ(s.wait_slack_ns, 1);
    EXPECT_EQ(s.wait_slice_ns, -1);
    EXPECT_EQ(describe(s), "wait_slack_ns=1 wait_slice_ns=-1");
    EXPECT_EQ(parse_setting("wait_slice_ns", "100000000", &s), "");
    EXPECT_EQ(s.wait_slice_ns, 100'000'000);
    // 0 and anything below -1 are refused by pacer::validate on the whole
    // state, named by the demo's key; the form is checked at parsing.
    Settings state = default_settings();
    for (const char* bad : {"0", "-2"}) {
        Settings probe = state;
        ASSERT_EQ(parse_setting("wait_slack_ns", bad, &probe), "");
        EXPECT_EQ(check(probe), std::string("wait_slack_ns: ") + bad + " is out of range -1 or [1, 100000000]");
    }
    Settings slice = state;
    ASSERT_EQ(parse_setting("wait_slice_ns", "100000001", &slice), "");
    EXPECT_EQ(check(slice), "wait_slice_ns: 100000001 is out of range -1 or [100000, 100000000]");
    EXPECT_EQ(parse_setting("wait_slice_ns", "1e5", &s), "wait_slice_ns: '1e5' is not an integer");
    EXPECT_EQ(s.wait_slice_ns, 100'000'000);

    Scenario scenario;
    EXPECT_EQ(parse_scenario_text("at 0s set wait_slack_ns=2000 wait_slice_ns=-1\n", "w.txt", &scenario), "");
    ASSERT_EQ(scenario.steps.size(), 1u);
    EXPECT_EQ(scenario.steps[0].text(), "set wait_slack_ns=2000 wait_slice_ns=-1");
    ASSERT_EQ(parse_scenario_text("at 0s set hz=60\nat 1s set wait_slice_ns=0\n", "w.txt", &scenario), "");
    EXPECT_EQ(check_steps(scenario, default_settings()),
              "w.txt:2: wait_slice_ns: 0 is out of range -1 or [100000, 100000000]");
}

TEST(Settings, MergeLaterWins) {
    Settings a, b;
    ASSERT_EQ(parse_setting("hz", "60", &a), "");
    ASSERT_EQ(parse_setting("work_ms", "2", &a), "");
    ASSERT_EQ(parse_setting("hz", "30", &b), "");
    ASSERT_EQ(parse_setting("duty", "0.5", &b), "");
    a.merge(b);
    EXPECT_EQ(describe(a), "hz=30 work_ms=2 duty=0.5");
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(Settings{}.empty());
}

TEST(Settings, ApplyLoadSettingsTouchesOnlyLoadFields) {
    Settings s;
    ASSERT_EQ(parse_setting("work_ms", "3", &s), "");
    ASSERT_EQ(parse_setting("spike_every", "7", &s), "");
    ASSERT_EQ(parse_setting("bg_threads", "1", &s), "");
    ASSERT_EQ(parse_setting("hz", "30", &s), "");
    LoadConfig load{};
    load.jitter_ms = 1.5;
    apply_load_settings(s, &load);
    EXPECT_EQ(load.work_ms, 3.0);
    EXPECT_EQ(load.spike_every_frames, 7);
    EXPECT_EQ(load.background_threads, 1);
    EXPECT_EQ(load.jitter_ms, 1.5);
    EXPECT_EQ(validate(load), "");
}

TEST(VsyncMode, NamesAndSwapIntervals) {
    for (VsyncMode mode : {VsyncMode::Off, VsyncMode::On, VsyncMode::Adaptive}) {
        VsyncMode parsed = VsyncMode::On;
        ASSERT_TRUE(parse_vsync_mode(vsync_mode_name(mode), &parsed));
        EXPECT_EQ(parsed, mode);
    }
    VsyncMode untouched = VsyncMode::On;
    EXPECT_FALSE(parse_vsync_mode("sometimes", &untouched));
    EXPECT_EQ(untouched, VsyncMode::On);
    EXPECT_EQ(swap_interval(VsyncMode::Off), 0);
    EXPECT_EQ(swap_interval(VsyncMode::On), 1);
    EXPECT_EQ(swap_interval(VsyncMode::Adaptive), -1);
}

std::vector<int> lines_of(const std::vector<const Step*>& steps) {
    std::vector<int> lines;
    for (const Step* step : steps) lines.push_back(step->line);
    return lines;
}

TEST(ScenarioCursor, YieldsEachStepOnceWhenDue) {
    const Scenario s = parse_ok(
        "at 0s set hz=60\n"             // line 1
        "at frame 0 set work_ms=1\n"    // line 2
        "at 1s set hz=30\n"             // line 3
        "at frame 100 set hz=120\n"     // line 4
        "at 0.5s mark \"half\"\n"       // line 5
        "at 2s set hz=60\n"             // line 6
        "end 3s\n");
    ScenarioCursor cursor(s);
    EXPECT_EQ(cursor.remaining(), 6u);
    EXPECT_EQ(lines_of(cursor.due(0, 0.0)), (std::vector<int>{1, 2}));
    EXPECT_TRUE(cursor.due(0, 0.0).empty()) << "never twice";
    EXPECT_TRUE(cursor.due(29, 0.49).empty());
    EXPECT_EQ(lines_of(cursor.due(30, 0.5)), (std::vector<int>{5}));
    // A frame that lands past several due points gets them all, in file order.
    EXPECT_EQ(lines_of(cursor.due(100, 2.2)), (std::vector<int>{3, 4, 6}));
    EXPECT_EQ(cursor.remaining(), 0u);
    EXPECT_TRUE(cursor.due(1000, 10.0).empty());

    EXPECT_FALSE(cursor.finished(150, 2.99));
    EXPECT_TRUE(cursor.finished(151, 3.0));

    cursor.reset();
    EXPECT_EQ(cursor.remaining(), 6u);
    EXPECT_EQ(lines_of(cursor.due(0, 0.0)), (std::vector<int>{1, 2}));
}

TEST(ScenarioCursor, FrameEndCountsFrames) {
    const Scenario s = parse_ok("end frame 3\n");
    ScenarioCursor cursor(s);
    EXPECT_FALSE(cursor.finished(0, 0.0));
    EXPECT_FALSE(cursor.finished(2, 100.0)) << "a frame end ignores time";
    EXPECT_TRUE(cursor.finished(3, 0.0));
}

TEST(ScenarioCursor, NoEndNeverFinishes) {
    const Scenario s = parse_ok("at 0s set hz=60\n");
    ScenarioCursor cursor(s);
    EXPECT_FALSE(cursor.finished(1'000'000, 1e6));
}

}  // namespace
}  // namespace pacer_demo
