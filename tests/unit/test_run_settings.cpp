// pacer-run's settings (pacer-run/settings.h): PACER_RUN's keys, their
// errors, and the text pacer-run hands the preload, which parses back.
#include "settings.h"

#include "fakes.h"

#include <gtest/gtest.h>

namespace {

using pacer::testing::contains;
using pacer_run::parse_settings;
using pacer_run::RunSettings;

TEST(RunSettings, DefaultsAreTheTimerAtTheDisplaysRefresh) {
    RunSettings s;
    EXPECT_EQ(parse_settings("", &s), "");
    EXPECT_EQ(s.hz, 0);   // the display's refresh, else kFallbackHz
    EXPECT_TRUE(s.paced);
    EXPECT_EQ(s.strategy, pacer::Strategy::Timer);
    EXPECT_EQ(s.wait_point, pacer::WaitPoint::BeforePresent);
    EXPECT_TRUE(s.trace.empty());
    EXPECT_FALSE(s.summary);
    EXPECT_EQ(s.background_hz, pacer::Config{}.background_hz);   // the library's: 30
    EXPECT_EQ(s.hidden_hz, pacer::Config{}.hidden_hz);           // and 10
}

TEST(RunSettings, EveryKeyParses) {
    RunSettings s;
    ASSERT_EQ(parse_settings("hz=144,strategy=display_lock,wait=frame_start,trace=/tmp/t.csv,summary=1", &s), "");
    EXPECT_EQ(s.hz, 144);
    EXPECT_EQ(s.strategy, pacer::Strategy::DisplayLock);
    EXPECT_EQ(s.wait_point, pacer::WaitPoint::FrameStart);
    EXPECT_EQ(s.trace, "/tmp/t.csv");
    EXPECT_TRUE(s.summary);
    ASSERT_EQ(parse_settings("strategy=off,,", &s), "");   // empty items are harmless
    EXPECT_FALSE(s.paced);
    ASSERT_EQ(parse_settings("background_hz=20,hidden_hz=0", &s), "");
    EXPECT_EQ(s.background_hz, 20);
    EXPECT_EQ(s.hidden_hz, 0);   // off
}

TEST(RunSettings, FormatParsesBack) {
    RunSettings s;
    ASSERT_EQ(parse_settings("hz=59.94,strategy=auto,background_hz=0.5,hidden_hz=0,trace=a b.csv,summary=1", &s), "");
    RunSettings back;
    ASSERT_EQ(parse_settings(pacer_run::format_settings(s), &back), "");
    EXPECT_EQ(back.hz, s.hz);
    EXPECT_EQ(back.background_hz, 0.5);
    EXPECT_EQ(back.hidden_hz, 0);
    EXPECT_EQ(back.strategy, s.strategy);
    EXPECT_EQ(back.trace, s.trace);
    EXPECT_EQ(back.summary, s.summary);
    s.paced = false;
    ASSERT_EQ(parse_settings(pacer_run::format_settings(s), &back), "");
    EXPECT_FALSE(back.paced);
}

TEST(RunSettings, BadValuesNameTheKeyAndLeaveTheSettingsAlone) {
    const struct {
        const char* text;
        const char* line;
    } cases[] = {
        {"hz=abc", "PACER_RUN: hz=abc: not a number"},
        {"hz=", "PACER_RUN: hz=: not a number"},
        {"hz=60x", "PACER_RUN: hz=60x: not a number"},
        {"hz=nan", "PACER_RUN: hz=nan: not a number"},
        {"hz=inf", "PACER_RUN: hz=inf: not a number"},
        {"hz=-1", "PACER_RUN: hz=-1: out of range [0.001, 10000] (0: the display's refresh)"},
        {"hz=10001", "PACER_RUN: hz=10001: out of range [0.001, 10000] (0: the display's refresh)"},
        {"strategy=fast", "PACER_RUN: strategy=fast: unknown strategy"},
        {"wait=later", "PACER_RUN: wait=later: unknown wait point (before_present, frame_start)"},
        {"trace=", "PACER_RUN: trace=: empty path"},
        {"summary=yes", "PACER_RUN: summary=yes: not 0 or 1"},
        {"background_hz=-1", "PACER_RUN: background_hz=-1: out of range [0.001, 10000] (0: off)"},
        {"background_hz=nan", "PACER_RUN: background_hz=nan: not a number"},
        {"hidden_hz=1e9", "PACER_RUN: hidden_hz=1e9: out of range [0.001, 10000] (0: off)"},
        {"hidden_hz=", "PACER_RUN: hidden_hz=: not a number"},
        {"speed=2", "PACER_RUN: speed=2: unknown key (hz, strategy, wait, background_hz, hidden_hz, trace, summary)"},
        {"hz", "PACER_RUN: 'hz': not key=value"},
        {"hz=30,strategy=fast", "PACER_RUN: strategy=fast: unknown strategy"},
    };
    for (const auto& c : cases) {
        RunSettings s;
        s.hz = 75;
        const std::string problem = parse_settings(c.text, &s);
        EXPECT_TRUE(contains(problem, c.line)) << c.text << " -> " << problem;
        EXPECT_EQ(problem.find('\n'), std::string::npos) << c.text;
        EXPECT_EQ(s.hz, 75) << c.text;   // nothing applied, not even the good keys before
    }
}

TEST(RunSettings, FlagsAreNamedAsFlags) {
    RunSettings s;
    EXPECT_EQ(parse_settings("hz=abc", &s, true), "--hz=abc: not a number");
    EXPECT_EQ(parse_settings("background_hz=-2", &s, true), "--background-hz=-2: out of range [0.001, 10000] (0: off)");
}

TEST(RunSettings, TracePartIsBesideTheTrace) {
    EXPECT_EQ(pacer_run::trace_part_path("out/run.csv", 1234), "out/run.csv.1234.part");
}

}  // namespace
