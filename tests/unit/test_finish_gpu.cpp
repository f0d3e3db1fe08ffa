// test_finish_gpu.cpp: Host::finish_gpu, the frame's GPU work finished before
// a before_present wait: when wait() calls it, with what budget, and how the
// frame accounts for it.
#include "fakes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

using namespace pacer;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

// A GPU that takes gpu_ns to finish a frame, cut at the budget as a fence
// wait is; records each budget it was given.
class FakeGpuHost final : public Host {
public:
    FakeGpuHost(FakeClock& clock, int64_t gpu_ns, bool accepts_swap = false)
        : clock_(clock), gpu_ns_(gpu_ns), accepts_(accepts_swap) {}
    bool set_swap_interval(int) override { return accepts_; }
    double refresh_rate_hz() override { return 60; }
    void finish_gpu(int64_t budget_ns) override {
        budgets.push_back(budget_ns);
        clock_.advance(std::min(gpu_ns_, budget_ns));
    }
    std::vector<int64_t> budgets;

private:
    FakeClock& clock_;
    int64_t gpu_ns_;
    bool accepts_;
};

}  // namespace

TEST(FinishGpu, RunsBeforeABeforePresentWaitWithTheTimeLeftAsItsBudget) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FakeGpuHost host(clock, 5 * kNsPerMs);
    Config config = fake_config(clock, sleeper, 50, Strategy::Timer);   // 20 ms
    config.host = &host;
    Pacer pacer(config);
    const Frame first = pacer.wait();   // anchors the grid: no wait, no GPU step
    EXPECT_TRUE(host.budgets.empty());
    EXPECT_EQ(first.gpu_finish_ns, 0);
    clock.advance_busy(8 * kNsPerMs);   // the engine's CPU work
    const Frame frame = pacer.wait();
    ASSERT_EQ(host.budgets.size(), 1u);
    EXPECT_EQ(host.budgets[0], 12 * kNsPerMs);       // the deadline is 20 ms after the anchor
    EXPECT_EQ(frame.gpu_finish_ns, 5 * kNsPerMs);
    EXPECT_EQ(frame.work_ns, 13 * kNsPerMs);          // the CPU's 8 and the GPU's 5
    EXPECT_EQ(frame.deadline_ns, first.wake_ns + 20 * kNsPerMs);
    EXPECT_GE(frame.wake_ns, frame.deadline_ns);  // and then the wait, to the deadline
}

TEST(FinishGpu, AFrameAlreadyLateGetsABudgetOfZero) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FakeGpuHost host(clock, 5 * kNsPerMs);
    Config config = fake_config(clock, sleeper, 50, Strategy::Timer);
    config.host = &host;
    Pacer pacer(config);
    pacer.wait();
    clock.advance_busy(21 * kNsPerMs);   // past the deadline, not by a resync's 8 periods
    const Frame frame = pacer.wait();
    ASSERT_EQ(host.budgets.size(), 1u);
    EXPECT_GE(host.budgets[0], 0);
    EXPECT_EQ(frame.gpu_finish_ns, host.budgets[0] < 5 * kNsPerMs ? host.budgets[0] : 5 * kNsPerMs);
}

TEST(FinishGpu, NotCalledAtFrameStartNorUnderVsync) {
    for (const bool vsync : {false, true}) {
        FakeClock clock;
        FakeSleeper sleeper(clock);
        FakeGpuHost host(clock, 5 * kNsPerMs, vsync);
        Config config = fake_config(clock, sleeper, 60, vsync ? Strategy::Vsync : Strategy::Timer);
        config.host = &host;
        if (!vsync) config.wait_point = WaitPoint::FrameStart;   // the work comes after the wait
        Pacer pacer(config);
        for (int i = 0; i < 5; ++i) {
            clock.advance_busy(4 * kNsPerMs);
            EXPECT_EQ(pacer.wait().gpu_finish_ns, 0);
        }
        EXPECT_TRUE(host.budgets.empty()) << (vsync ? "vsync" : "frame_start");
    }
}

// A GPU that never finishes: its fence wait checks stop every 20 ms slice,
// as the GLFW and SDL2 Hosts' do.
class HungGpuHost final : public Host {
public:
    explicit HungGpuHost(FakeClock& clock) : clock_(clock) {}
    bool set_swap_interval(int) override { return false; }
    double refresh_rate_hz() override { return 60; }
    void finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) override {
        for (int64_t left = budget_ns; left > 0 && !stop.load(); left -= 20 * kNsPerMs) {
            clock_.advance(std::min<int64_t>(left, 20 * kNsPerMs));
            ++slices;
            if (slices == interrupt_at && pacer != nullptr) pacer->interrupt();   // as another thread would
        }
    }
    Pacer* pacer = nullptr;
    int interrupt_at = 0;
    int slices = 0;

private:
    FakeClock& clock_;
};

TEST(FinishGpu, InterruptEndsAWaitOnAGpuThatNeverFinishesWithinASlice) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    HungGpuHost host(clock);
    Config config = fake_config(clock, sleeper, 0.01, Strategy::Timer);   // a 100 s frame
    config.host = &host;
    Pacer pacer(config);
    host.pacer = &pacer;
    (void)pacer.wait();                 // frame 0: no GPU work yet
    host.interrupt_at = host.slices + 10;   // 0.2 s into the next wait
    const int64_t start = clock.now_ns();
    const Frame cut = pacer.wait();
    EXPECT_TRUE(cut.interrupted);
    EXPECT_LE(clock.now_ns() - start, 220 * kNsPerMs) << "a 100 s budget, cut after 0.2 s";
}
