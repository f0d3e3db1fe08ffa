// Synthetic load: config rules, in-frame work (lower bounds only: this runs on
// shared machines), jitter and spikes, background threads coming and going.
// Process CPU time comes from std::clock(), which is CPU time on POSIX but
// wall time on Windows, so those two tests are POSIX-only.
#include "run/load.h"
#include "pacer/pacer.h"
#include "pacer/platform.h"

#include <pacer/units.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <set>
#include <stdexcept>
#include <thread>

namespace pacer_demo {
namespace {

using pacer::kNsPerMs;

TEST(LoadConfig, DefaultsResolveAndValidate) {
    const LoadConfig resolved = resolve(LoadConfig{});
    EXPECT_EQ(resolved.work_ms, 0.0);
    EXPECT_EQ(resolved.duty_cycle, 1.0);
    EXPECT_EQ(resolved.duty_period_ms, 10.0);
    EXPECT_EQ(resolved.seed, 1u);
    EXPECT_EQ(validate(LoadConfig{}), "");
    EXPECT_GE(max_background_threads(), 2);
}

TEST(LoadConfig, EachBadFieldIsNamed) {
    struct Case {
        void (*spoil)(LoadConfig&);
        const char* field;
    };
    const Case cases[] = {
        {[](LoadConfig& c) { c.work_ms = -1; }, "work_ms"},
        {[](LoadConfig& c) { c.work_ms = 1001; }, "work_ms"},
        {[](LoadConfig& c) { c.work_ms = std::numeric_limits<double>::quiet_NaN(); }, "work_ms"},
        {[](LoadConfig& c) { c.jitter_ms = -0.5; }, "jitter_ms"},
        {[](LoadConfig& c) { c.spike_ms = 10001; }, "spike_ms"},
        {[](LoadConfig& c) { c.spike_every_frames = -1; }, "spike_every_frames"},
        {[](LoadConfig& c) { c.background_threads = -1; }, "background_threads"},
        {[](LoadConfig& c) { c.background_threads = max_background_threads() + 1; }, "background_threads"},
        {[](LoadConfig& c) { c.duty_cycle = 1.5; }, "duty_cycle"},
        {[](LoadConfig& c) { c.duty_cycle = -0.1; }, "duty_cycle"},
        {[](LoadConfig& c) { c.duty_period_ms = 0.5; }, "duty_period_ms"},
        {[](LoadConfig& c) { c.duty_period_ms = 2000; }, "duty_period_ms"},
    };
    for (const Case& c : cases) {
        LoadConfig config{};
        c.spoil(config);
        const std::string error = validate(config);
        EXPECT_EQ(error.rfind(std::string(c.field) + ": ", 0), 0u) << error;
        EXPECT_NE(error.find("out of range"), std::string::npos) << error;
    }
}

TEST(LoadGenerator, InvalidConfigThrowsAndKeepsTheOldOne) {
    LoadConfig bad{};
    bad.duty_cycle = 2;
    EXPECT_THROW(LoadGenerator{bad}, std::invalid_argument);

    LoadConfig good{};
    good.work_ms = 3;
    LoadGenerator generator(good);
    EXPECT_THROW(generator.set_config(bad), std::invalid_argument);
    EXPECT_EQ(generator.config().work_ms, 3.0);
    EXPECT_EQ(generator.config().duty_cycle, 1.0) << "config() is resolved";
}

TEST(LoadGenerator, FrameWorkTakesAtLeastTheRequestedTime) {
    LoadConfig config{};
    config.work_ms = 5;
    LoadGenerator generator(config);
    for (int64_t frame = 0; frame < 3; ++frame) {
        const auto start = std::chrono::steady_clock::now();
        const FrameWork work = generator.do_frame_work(frame);
        const auto wall_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(work.requested_ns, 5 * kNsPerMs);
        EXPECT_GE(work.done_ns, 5 * kNsPerMs);
        EXPECT_GE(wall_ns, 5 * kNsPerMs);
        EXPECT_FALSE(work.spike);
    }
}

TEST(LoadGenerator, FrameWorkIsCpuTime) {
    // Busy work shows up as CPU time of the process. Lower bound only, and a
    // generous one: a shared machine may take the core away for a while.
    LoadConfig config{};
    config.work_ms = 50;
    LoadGenerator generator(config);
    pacer::OsClock clock;
    const int64_t before_ns = clock.thread_cpu_ns();
    if (before_ns < 0) GTEST_SKIP() << "no thread CPU time on this OS";
    // The work is timed in wall time, so on a crowded machine one call may get
    // only a slice of a core: allow up to 100 calls (5 s) to add up 10 ms.
    int64_t cpu_ns = 0;
    for (int64_t frame = 1; frame <= 100 && cpu_ns < 10 * kNsPerMs; ++frame) {
        generator.do_frame_work(frame);
        cpu_ns = clock.thread_cpu_ns() - before_ns;
    }
    EXPECT_GE(cpu_ns, 10 * kNsPerMs);
}

TEST(LoadGenerator, NoWorkReturnsAtOnceWithZeroRequested) {
    LoadGenerator generator;
    const FrameWork work = generator.do_frame_work(0);
    EXPECT_EQ(work.requested_ns, 0);
    EXPECT_GE(work.done_ns, 0);
}

TEST(LoadGenerator, JitterIsSeededBoundedAndVaries) {
    LoadConfig config{};
    config.work_ms = 0.2;
    config.jitter_ms = 0.1;
    config.seed = 42;
    LoadGenerator a(config), b(config);
    std::set<int64_t> seen;
    for (int64_t frame = 0; frame < 20; ++frame) {
        const FrameWork wa = a.do_frame_work(frame);
        const FrameWork wb = b.do_frame_work(frame);
        EXPECT_EQ(wa.requested_ns, wb.requested_ns) << "same seed, same frame, same jitter";
        EXPECT_GE(wa.requested_ns, 100'000);
        EXPECT_LE(wa.requested_ns, 300'000);
        EXPECT_GE(wa.done_ns, wa.requested_ns);
        seen.insert(wa.requested_ns);
    }
    EXPECT_GT(seen.size(), 10u) << "jitter varies from frame to frame";

    config.seed = 43;
    LoadGenerator c(config);
    int differ = 0;
    for (int64_t frame = 0; frame < 20; ++frame)
        if (c.do_frame_work(frame).requested_ns != a.do_frame_work(frame).requested_ns) ++differ;
    EXPECT_GT(differ, 10) << "another seed, other jitter";
}

TEST(LoadGenerator, JitterLargerThanWorkClampsAtZero) {
    LoadConfig config{};
    config.work_ms = 0;
    config.jitter_ms = 0.05;
    LoadGenerator generator(config);
    bool saw_zero = false;
    for (int64_t frame = 0; frame < 40; ++frame) {
        const FrameWork work = generator.do_frame_work(frame);
        EXPECT_GE(work.requested_ns, 0);
        EXPECT_LE(work.requested_ns, 50'000);
        if (work.requested_ns == 0) saw_zero = true;
    }
    EXPECT_TRUE(saw_zero);
}

TEST(LoadGenerator, SpikesOnPositiveMultiples) {
    LoadConfig config{};
    config.work_ms = 0.1;
    config.spike_ms = 2;
    config.spike_every_frames = 4;
    LoadGenerator generator(config);
    for (int64_t frame = 0; frame <= 12; ++frame) {
        const FrameWork work = generator.do_frame_work(frame);
        const bool expected = frame > 0 && frame % 4 == 0;
        EXPECT_EQ(work.spike, expected) << "frame " << frame;
        EXPECT_EQ(work.requested_ns, expected ? 2'100'000 : 100'000) << "frame " << frame;
        EXPECT_GE(work.done_ns, work.requested_ns);
    }
}

TEST(LoadGenerator, BackgroundThreadsStartAndStopLive) {
    LoadGenerator generator;
    EXPECT_EQ(generator.running_background_threads(), 0);

    LoadConfig config{};
    config.background_threads = 2;
    config.duty_cycle = 0.5;
    config.duty_period_ms = 5;
    generator.set_config(config);
    EXPECT_EQ(generator.running_background_threads(), 2);

    config.background_threads = 1;
    generator.set_config(config);
    EXPECT_EQ(generator.running_background_threads(), 1);

    config.background_threads = max_background_threads();
    config.duty_cycle = 1;
    generator.set_config(config);
    EXPECT_EQ(generator.running_background_threads(), max_background_threads());

    // Stopping a fully busy pool is prompt: the busy loop polls its flag.
    const auto start = std::chrono::steady_clock::now();
    config.background_threads = 0;
    generator.set_config(config);
    const auto stop_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(generator.running_background_threads(), 0);
    EXPECT_LT(stop_ms, 5000) << "joins should not wait for whole duty periods";
}

TEST(LoadGenerator, BackgroundThreadsBurnCpu) {
#ifdef _WIN32
    GTEST_SKIP() << "std::clock() is wall time on Windows";
#endif
    // One always-busy thread must show as process CPU time: 50 ms of it. A
    // shared machine may give the thread only a slice of a core, so wait for
    // it up to 10 s of wall time rather than asserting a share of a window.
    LoadConfig config{};
    config.background_threads = 1;
    const std::clock_t before = std::clock();
    const auto cpu_ms = [&] { return 1000.0 * static_cast<double>(std::clock() - before) / CLOCKS_PER_SEC; };
    {
        LoadGenerator generator(config);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (cpu_ms() < 50.0 && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }   // the destructor joins
    EXPECT_GE(cpu_ms(), 50.0);
}

TEST(LoadGenerator, IdleDutyLeavesTheCpuMostlyFree) {
#ifdef _WIN32
    GTEST_SKIP() << "std::clock() is wall time on Windows";
#endif
    // The opposite bound, also loose: at a 10 % duty one thread cannot use a
    // whole core. This is an upper bound on our own CPU use, which a busy
    // machine only lowers.
    LoadConfig config{};
    config.background_threads = 1;
    config.duty_cycle = 0.1;
    config.duty_period_ms = 10;
    const std::clock_t before = std::clock();
    {
        LoadGenerator generator(config);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - before) / CLOCKS_PER_SEC;
    EXPECT_LT(cpu_ms, 200.0);
}

}  // namespace
}  // namespace pacer_demo
