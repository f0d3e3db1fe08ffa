// test_thread_timing.cpp: the per-thread timing controls. ThreadTiming sets
// what it is asked, reports what is in force, and restores the thread's
// previous settings; an OsSleeper's timer wait holds its own slack and slice
// only while it waits.
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/thread_timing.h>

#include "fakes.h"
#include "wait/waiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#if defined(__linux__)
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#endif

namespace pacer {
namespace {

#if defined(__linux__)
// Read independently of the library, straight from the kernel.
int64_t current_slack_ns() { return static_cast<int64_t>(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)); }

TEST(ThreadTiming, LinuxSlackIsSetReportedAndRestored) {
    const int64_t before_ns = current_slack_ns();
    ASSERT_GT(before_ns, 1);   // a normal thread starts at 50 us
    {
        ThreadTiming timing({/*timer_slack_ns=*/1, /*timer_period_ns=*/0});
        EXPECT_TRUE(timing.report().timer_slack_supported);
        EXPECT_EQ(timing.report().timer_slack_ns, 1);
        EXPECT_EQ(current_slack_ns(), 1);
    }
    EXPECT_EQ(current_slack_ns(), before_ns);
}

TEST(ThreadTiming, LinuxNoRequestReportsWithoutChanging) {
    const int64_t before_ns = current_slack_ns();
    {
        ThreadTiming timing({0, 0});
        EXPECT_TRUE(timing.report().timer_slack_supported);
        EXPECT_EQ(timing.report().timer_slack_ns, before_ns);
    }
    EXPECT_EQ(current_slack_ns(), before_ns);
}

// sched_getattr's view of the calling thread, read without the library.
struct Attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
};

Attr current_attr() {
    Attr attr{};
    EXPECT_EQ(syscall(SYS_sched_getattr, 0, &attr, static_cast<unsigned>(sizeof attr), 0u), 0);
    return attr;
}

int thread_nice() { return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))); }

// Linux 6.12 made sched_runtime the fair scheduler's slice.
bool kernel_has_custom_slices() {
    utsname name{};
    int major = 0, minor = 0;
    if (uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return false;
    return major > 6 || (major == 6 && minor >= 12);
}

TEST(ThreadTiming, LinuxSliceIsSetReadBackAndRestored) {
    if (!kernel_has_custom_slices()) GTEST_SKIP() << "kernel before 6.12: no per-thread slice";
    const Attr before = current_attr();
    ASSERT_EQ(before.policy, static_cast<uint32_t>(SCHED_OTHER));
    ThreadTiming::Request request{};
    request.sched_slice_ns = 1'000'000;
    {
        ThreadTiming timing(request);
        EXPECT_TRUE(timing.report().sched_supported);
        EXPECT_EQ(timing.report().refused, "");
        EXPECT_EQ(timing.report().sched_slice_ns, 1'000'000);
        EXPECT_EQ(current_attr().runtime, 1'000'000u);   // the kernel's own answer
        EXPECT_EQ(timing.report().fifo_priority, 0);
    }
    EXPECT_EQ(current_attr().runtime, before.runtime);
    EXPECT_EQ(current_attr().policy, before.policy);
}

TEST(ThreadTiming, LinuxNiceIsSetReadBackAndRestoredWherePermitted) {
    const int before = thread_nice();
    ThreadTiming::Request request{};
    request.nice = before == 5 ? 6 : 5;   // raising nice is always permitted
    {
        ThreadTiming timing(request);
        EXPECT_EQ(timing.report().refused, "");
        EXPECT_EQ(timing.report().nice, request.nice);
        EXPECT_EQ(thread_nice(), request.nice);
    }
    // Going back down needs CAP_SYS_NICE (or RLIMIT_NICE): only then is it restored.
    if (geteuid() == 0) {
        EXPECT_EQ(thread_nice(), before);
    }
}

TEST(ThreadTiming, LinuxFifoIsGrantedOrRefusedWithEperm) {
    const Attr before = current_attr();
    ThreadTiming::Request request{};
    request.fifo_priority = 1;
    {
        ThreadTiming timing(request);
        if (timing.report().refused.empty()) {
            EXPECT_EQ(timing.report().fifo_priority, 1);
            EXPECT_EQ(sched_getscheduler(0), SCHED_FIFO);
        } else {
            EXPECT_EQ(timing.report().refused, "fifo_priority 1: refused: EPERM");
            EXPECT_EQ(timing.report().fifo_priority, 0);
            EXPECT_EQ(current_attr().policy, before.policy);
        }
    }
    EXPECT_EQ(current_attr().policy, before.policy);
    EXPECT_EQ(current_attr().nice, before.nice);
}

TEST(ThreadTiming, LinuxNothingAskedChangesNothing) {
    const Attr before = current_attr();
    {
        ThreadTiming timing({0, 0});
        EXPECT_TRUE(timing.report().sched_supported);
        EXPECT_EQ(timing.report().refused, "");
        EXPECT_EQ(static_cast<uint64_t>(timing.report().sched_slice_ns), before.runtime);
    }
    const Attr after = current_attr();
    EXPECT_EQ(after.runtime, before.runtime);
    EXPECT_EQ(after.nice, before.nice);
}

// What another thread of this process runs with, read from outside it while
// it sleeps: its timer slack (/proc/TID/timerslack_ns) and its slice.
struct SeenFromOutside {
    int64_t slack_ns = -1;
    int64_t slice_ns = -1;
};

SeenFromOutside look_at(pid_t tid) {
    SeenFromOutside seen;
    std::ifstream("/proc/" + std::to_string(tid) + "/timerslack_ns") >> seen.slack_ns;
    Attr attr{};
    if (syscall(SYS_sched_getattr, tid, &attr, static_cast<unsigned>(sizeof attr), 0u) == 0)
        seen.slice_ns = static_cast<int64_t>(attr.runtime);
    return seen;
}

// A thread that makes one long timer wait with an OsSleeper made with
// `options` (or a Waiter made with `config`); the test watches it from outside
// during the wait, and the thread notes what it has after.
struct WaitingThread {
    explicit WaitingThread(const OsSleeper::Options& options)
        : WaitingThread([this, options](int64_t deadline_ns) {
              OsSleeper sleeper(options);
              waiting = true;
              sleeper.sleep_until_ns(deadline_ns);
              description = sleeper.describe();
              woken_slack_ns = current_slack_ns();
              woken_slice_ns = static_cast<int64_t>(current_attr().runtime);
          }) {}
    explicit WaitingThread(const Config& config)
        : WaitingThread([this, config](int64_t deadline_ns) {
              Waiter waiter(config);
              waiting = true;
              waiter.wait_until(deadline_ns);
          }) {}
    explicit WaitingThread(std::function<void(int64_t)> wait) {
        thread = std::thread([this, wait] {
            tid = static_cast<pid_t>(syscall(SYS_gettid));
            before_slack_ns = current_slack_ns();
            before_slice_ns = static_cast<int64_t>(current_attr().runtime);
            OsClock clock;
            wait(clock.now_ns() + 400'000'000);
            after_slack_ns = current_slack_ns();
            after_slice_ns = static_cast<int64_t>(current_attr().runtime);
        });
        while (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // Polls until `done` says what was seen is enough, or 300 ms pass (the
    // wait lasts 400 ms, so the thread is asleep throughout).
    template <class Done>
    SeenFromOutside watch(Done done) {
        SeenFromOutside seen;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
        do {
            seen = look_at(tid);
            if (done(seen)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        } while (std::chrono::steady_clock::now() < until);
        return seen;
    }
    void finish() {
        if (thread.joinable()) thread.join();
    }
    ~WaitingThread() { finish(); }

    std::thread thread;
    std::atomic<bool> waiting{false};
    pid_t tid = 0;
    int64_t before_slack_ns = 0, before_slice_ns = 0;
    int64_t woken_slack_ns = 0, woken_slice_ns = 0;   // after the wait, the sleeper still alive
    int64_t after_slack_ns = 0, after_slice_ns = 0;   // after the sleeper (or Waiter) is gone
    std::string description;
};

// Both hold from the first wait until the sleeper is destroyed on its
// thread: no wait after the first makes a system call for them.
TEST(OsSleeperWaitSettings, LinuxSlackAndSliceHoldUntilTheSleeperGoes) {
    const bool slices = kernel_has_custom_slices();
    WaitingThread waiting(OsSleeper::Options{});
    const SeenFromOutside during = waiting.watch([&](const SeenFromOutside& seen) {
        return seen.slack_ns == 1 && (!slices || seen.slice_ns == 100'000);
    });
    waiting.finish();
    EXPECT_EQ(during.slack_ns, 1);
    EXPECT_GT(waiting.before_slack_ns, 1);   // a new thread has the process's 50 us
    EXPECT_EQ(waiting.woken_slack_ns, 1);
    EXPECT_EQ(waiting.after_slack_ns, waiting.before_slack_ns);
    EXPECT_EQ(waiting.after_slice_ns, waiting.before_slice_ns);
    EXPECT_TRUE(pacer::testing::contains(waiting.description, "waits with slack 1 ns")) << waiting.description;
    if (slices) {
        EXPECT_EQ(during.slice_ns, 100'000);
        EXPECT_EQ(waiting.woken_slice_ns, 100'000);
        EXPECT_TRUE(pacer::testing::contains(waiting.description, "slice 100 us")) << waiting.description;
    }
}

// Before its first timer wait a sleeper has put nothing in force: it says
// what was asked, not nothing (a run whose waits all ended early).
TEST(OsSleeperWaitSettings, LinuxSaysWhatWasAskedBeforeTheFirstWait) {
    OsSleeper sleeper(OsSleeper::Options{});
    if (!sleeper.has_high_res_timer()) GTEST_SKIP() << "no high-resolution timer: no timer waits";
    EXPECT_TRUE(pacer::testing::contains(sleeper.describe(), "waits with slack 1 ns asked (no timer wait yet)"))
        << sleeper.describe();
}

TEST(OsSleeperWaitSettings, LinuxWaiterPassesItsConfigToTheSleeperItOwns) {
    Config config{};
    config.strategy = Strategy::Timer;
    config.tuning.wait.timer_slack_ns = 7'000;
    config.tuning.wait.sched_slice_ns = -1;
    WaitingThread waiting(config);
    const SeenFromOutside during =
        waiting.watch([](const SeenFromOutside& seen) { return seen.slack_ns == 7'000; });
    waiting.finish();
    EXPECT_EQ(during.slack_ns, 7'000);
    EXPECT_EQ(during.slice_ns, waiting.before_slice_ns);
    EXPECT_EQ(waiting.after_slack_ns, waiting.before_slack_ns);
}

TEST(OsSleeperWaitSettings, LinuxMinusOneLeavesTheThreadsOwn) {
    OsSleeper::Options options{};
    options.wait_timer_slack_ns = -1;
    options.wait_sched_slice_ns = -1;
    WaitingThread waiting(options);
    // Nothing should change: watch the whole time for a change that must not come.
    const SeenFromOutside during = waiting.watch([&](const SeenFromOutside& seen) {
        return seen.slack_ns != waiting.before_slack_ns || seen.slice_ns != waiting.before_slice_ns;
    });
    waiting.finish();
    EXPECT_EQ(during.slack_ns, waiting.before_slack_ns);
    EXPECT_EQ(during.slice_ns, waiting.before_slice_ns);
    EXPECT_FALSE(pacer::testing::contains(waiting.description, "waits with")) << waiting.description;
}

// Nothing the pacer changes outlives it: a pacer that waited on one thread and
// is destroyed on another puts the waiting thread's slice back, by its id, and
// its slack where this process may set another thread's (Linux asks for
// CAP_SYS_NICE); without that the waiting thread keeps the 1 ns slack.
TEST(OsSleeperWaitSettings, LinuxSettingsAreRestoredWhenDestroyedOnAnotherThread) {
    const bool slices = kernel_has_custom_slices();
    Config config;
    config.target_hz = 200;
    std::unique_ptr<Pacer> pacer = Pacer::create(config);
    ASSERT_NE(pacer, nullptr);
    std::atomic<bool> waited{false}, destroyed{false};
    std::atomic<pid_t> tid{0};
    std::atomic<int64_t> before_slice_ns{-1}, before_slack_ns{-1};
    std::thread a([&] {
        tid = static_cast<pid_t>(syscall(SYS_gettid));
        before_slice_ns = static_cast<int64_t>(current_attr().runtime);
        before_slack_ns = current_slack_ns();
        for (int i = 0; i < 4; ++i) pacer->wait();   // timer waits: the settings are taken
        waited = true;
        while (!destroyed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const SeenFromOutside held = look_at(tid);   // while the pacer lives
    EXPECT_EQ(held.slack_ns, 1);
    if (slices) {
        EXPECT_EQ(held.slice_ns, 100'000);
    }
    // Whether another thread's slack may be written here: write the 1 it has.
    const std::string path = "/proc/self/task/" + std::to_string(tid.load()) + "/timerslack_ns";
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    const bool may_write = fd >= 0 && write(fd, "1", 1) == 1;
    if (fd >= 0) close(fd);
    pacer.reset();   // destroyed here, on this thread
    const SeenFromOutside after = look_at(tid);
    EXPECT_EQ(after.slice_ns, before_slice_ns.load());
    EXPECT_EQ(after.slack_ns, may_write ? before_slack_ns.load() : 1) << "may write: " << may_write;
    destroyed = true;
    a.join();
}

// sched_setattr rewrites the whole attribute set: the reset-on-fork flag
// must come back with what the wait and ThreadTiming put back.
TEST(OsSleeperWaitSettings, LinuxResetOnForkSurvivesAWaitAndAThreadTiming) {
    if (!kernel_has_custom_slices()) GTEST_SKIP() << "kernel before 6.12: no slice is set";
    constexpr uint64_t kResetOnFork = 0x01;
    Attr attr = current_attr();
    const Attr original = attr;
    attr.size = sizeof attr;
    attr.flags = kResetOnFork;
    ASSERT_EQ(syscall(SYS_sched_setattr, 0, &attr, 0u), 0);
    {
        OsSleeper sleeper;
        OsClock clock;
        sleeper.sleep_until_ns(clock.now_ns() + 2'000'000);
        EXPECT_EQ(current_attr().flags & kResetOnFork, kResetOnFork);
        ThreadTiming::Request request{};
        request.sched_slice_ns = 1'000'000;
        { ThreadTiming timing(request); }
        EXPECT_EQ(current_attr().flags & kResetOnFork, kResetOnFork);
    }
    attr = original;
    attr.size = sizeof attr;
    attr.flags = 0;
    EXPECT_EQ(syscall(SYS_sched_setattr, 0, &attr, 0u), 0);
}

TEST(ThreadTiming, LinuxHasNoTimerPeriodControl) {
    ThreadTiming timing({0, /*timer_period_ns=*/1'000'000});
    EXPECT_FALSE(timing.report().timer_period_supported);
    EXPECT_EQ(timing.report().timer_period_ns, -1);
}
#endif

#if defined(_WIN32)
TEST(ThreadTiming, WindowsHasNoTimerSlack) {
    ThreadTiming timing({/*timer_slack_ns=*/1, 0});
    EXPECT_FALSE(timing.report().timer_slack_supported);
    EXPECT_EQ(timing.report().timer_slack_ns, -1);
}

TEST(ThreadTiming, WindowsTimerPeriodIsReadBack) {
    ThreadTiming timing({0, /*timer_period_ns=*/1'000'000});
    EXPECT_TRUE(timing.report().timer_period_supported);
    // The OS may grant a finer period than asked (another process holds one), never a coarser one.
    EXPECT_GT(timing.report().timer_period_ns, 0);
    EXPECT_LE(timing.report().timer_period_ns, 1'000'000);
}
#endif

TEST(ThreadTiming, NegativeRequestsThrow) {
    EXPECT_THROW(ThreadTiming({-1, 0}), std::invalid_argument);
    EXPECT_THROW(ThreadTiming({0, -1}), std::invalid_argument);
}

TEST(ThreadTiming, OutOfRangeSchedulerRequestsThrow) {
    const auto with = [](int64_t slice_ns, int32_t fifo, int32_t nice) {
        ThreadTiming::Request request{};
        request.sched_slice_ns = slice_ns;
        request.fifo_priority = fifo;
        request.nice = nice;
        return request;
    };
    EXPECT_THROW(ThreadTiming(with(99'999, 0, 0)), std::invalid_argument);
    EXPECT_THROW(ThreadTiming(with(100'000'001, 0, 0)), std::invalid_argument);
    EXPECT_THROW(ThreadTiming(with(0, 100, 0)), std::invalid_argument);
    EXPECT_THROW(ThreadTiming(with(0, -1, 0)), std::invalid_argument);
    EXPECT_THROW(ThreadTiming(with(0, 0, -21)), std::invalid_argument);
    EXPECT_THROW(ThreadTiming(with(0, 0, 20)), std::invalid_argument);
}

}  // namespace
}  // namespace pacer
