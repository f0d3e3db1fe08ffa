// test_thread_timing.cpp: ThreadTiming sets what it is asked, reports what is
// in force, and restores the thread's previous settings.
#include <pacer/pacer.h>

#include <gtest/gtest.h>

#include <stdexcept>

#if defined(__linux__)
#include <sys/prctl.h>
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

}  // namespace
}  // namespace pacer
