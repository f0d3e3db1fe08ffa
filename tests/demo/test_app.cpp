// test_app.cpp: the demo's parts without a window: the scene (its motion and
// the motion strip) and Controls (the one place settings change), on a fake
// window.
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "controls.h"
#include "motion.h"
#include "window/window.h"
#include "render/scene.h"

namespace pacer_demo {
namespace {

// A window system whose Host answers as told and records every swap-interval request.
class FakeHost final : public pacer::Host {
public:
    bool set_swap_interval(int interval) override {
        requests.push_back(interval);
        state = {interval, answer};
        return answer != SwapAnswer::Refused;
    }
    double refresh_rate_hz() override { return refresh_hz; }

    double refresh_hz = 0;
    SwapAnswer answer = SwapAnswer::Accepted;
    SwapIntervalState state;
    std::vector<int> requests;
};

class FakeWindow final : public Window {
public:
    Backend backend() const override { return Backend::Sdl2; }
    void* gl_proc_address(const char*) override { return nullptr; }
    void poll_events() override {}
    bool should_close() const override { return false; }
    void framebuffer_size(int* width, int* height) const override {
        *width = 1280;
        *height = 720;
    }
    void swap(int64_t) override {}
    pacer::Host& host() override { return fake_host; }
    SwapIntervalState swap_interval_state() const override { return fake_host.state; }
    std::string present_feedback_source() const override { return "none: a fake"; }
    bool display_lost() const override { return false; }
    void imgui_init() override {}
    void imgui_new_frame() override {}
    void imgui_shutdown() override {}

    FakeHost fake_host;
    double& refresh_hz = fake_host.refresh_hz;
    SwapAnswer& answer = fake_host.answer;
    std::vector<int>& requests = fake_host.requests;
};

const Stage kStage{440, 0, 840, 720};

// Controls and a Pacer wired as app.cpp wires them: every change goes
// through Controls::apply, then the pacer's reconfigure, then settle.
struct Rig {
    explicit Rig(FakeWindow& window) : controls(window), pacer(controls.pacer_config()) {}
    std::string apply(const Settings& changes, const std::string& source = "test") {
        pacer::Config config;
        std::string problem = controls.apply(changes, source, &config);
        if (problem.empty()) problem = pacer.reconfigure(config);
        controls.settle();
        return problem;
    }
    Controls controls;
    pacer::Pacer pacer;
};

// The x of the rectangles of one height and colour in draw order (ticks).
std::vector<float> xs_of(const std::vector<Rect>& rects, float height, float r) {
    std::vector<float> xs;
    for (const Rect& rect : rects) {
        if (rect.height == height && rect.r == r) xs.push_back(rect.x);
    }
    return xs;
}

TEST(Scene, PositionIsSpeedTimesTheSumOfTimeStepsWrappedInTheStage) {
    Scene scene;
    for (double dt : {0.010, 0.020, 0.0125}) scene.update(dt);
    EXPECT_DOUBLE_EQ(scene.time_s(), 0.0425);
    const MovingObject& object = scene.objects()[2];
    const double expected = kStage.x + std::fmod(object.speed_px_s * 0.0425, kStage.width - object.size_px);
    bool found = false;
    for (const Rect& rect : scene.draw(kStage, 60)) {
        if (rect.width == object.size_px && rect.r == object.r && rect.g == object.g) {
            EXPECT_FLOAT_EQ(rect.x, static_cast<float>(expected));
            found = true;
        }
    }
    EXPECT_TRUE(found);
    // Long runs stay inside the stage.
    EXPECT_GE(Scene::left_px(kStage, 960, 48, 1234.5), kStage.x);
    EXPECT_LE(Scene::left_px(kStage, 960, 48, 1234.5) + 48, kStage.x + kStage.width);
}

TEST(Scene, EvenStepsAtTheTargetPutTheTrailOnTheReferenceTicks) {
    const MovingObject followed = Scene().objects()[Scene::kTrailObject];
    Scene steady, uneven;
    for (int i = 0; i < 40; ++i) {
        steady.update(1.0 / 60);
        uneven.update(i % 4 == 0 ? 2.0 / 60 : 1.0 / 60);   // a frame missed every 4th
    }
    const std::vector<Rect> a = steady.draw(kStage, 60), b = uneven.draw(kStage, 60);
    const std::vector<float> reference = xs_of(a, Scene::kReferenceTickHeightPx, 0.62f);
    const std::vector<float> trail = xs_of(a, Scene::kTrailTickHeightPx, followed.r);
    ASSERT_EQ(reference.size(), static_cast<size_t>(Scene::kTrailFrames));
    ASSERT_EQ(trail.size(), reference.size());
    for (size_t i = 0; i < trail.size(); ++i) EXPECT_NEAR(trail[i], reference[i], 0.01) << "tick " << i;

    const std::vector<float> reference_b = xs_of(b, Scene::kReferenceTickHeightPx, 0.62f);
    const std::vector<float> trail_b = xs_of(b, Scene::kTrailTickHeightPx, followed.r);
    int apart = 0;
    for (size_t i = 0; i < trail_b.size(); ++i) apart += std::fabs(trail_b[i] - reference_b[i]) > 1;
    EXPECT_GT(apart, Scene::kTrailFrames / 2);
}

TEST(Scene, AtHighRatesTheStripKeepsEveryNthFrameAndItsWorstStep) {
    EXPECT_EQ(Scene::strip_stride(60), 1);
    EXPECT_EQ(Scene::strip_stride(144), 3);
    EXPECT_EQ(Scene::strip_stride(240), 4);
    EXPECT_EQ(Scene::strip_stride(1e6), Scene::kMaxStripStride);
    const MovingObject followed = Scene().objects()[Scene::kTrailObject];
    Scene steady, late;
    for (int i = 0; i < 200; ++i) {
        steady.update(1.0 / 144);
        late.update(i == 197 ? 2.0 / 144 : 1.0 / 144);   // one missed frame, 2 frames back
    }
    const std::vector<Rect> a = steady.draw(kStage, 144), b = late.draw(kStage, 144);
    const std::vector<float> reference = xs_of(a, Scene::kReferenceTickHeightPx, 0.62f);
    const std::vector<float> trail = xs_of(a, Scene::kTrailTickHeightPx, followed.r);
    ASSERT_EQ(reference.size(), static_cast<size_t>(Scene::kTrailFrames));
    ASSERT_EQ(trail.size(), reference.size());
    for (size_t i = 0; i < trail.size(); ++i) {
        EXPECT_NEAR(trail[i], reference[i], 0.01) << "tick " << i;
        if (i > 0 && std::fabs(trail[i] - trail[i - 1]) < 100) {   // not across the stage's wrap
            EXPECT_GE(std::fabs(trail[i] - trail[i - 1]), Scene::kMinTickSpacingPx - 0.01) << "tick " << i;
        }
    }
    // The newest dot stands for the last three steps, the missed one among them.
    auto dots = [](const std::vector<Rect>& rects) {
        std::vector<Rect> out;
        for (const Rect& r : rects) {
            if (r.width == Scene::kStepDotPx && r.height == Scene::kStepDotPx) out.push_back(r);
        }
        return out;
    };
    const std::vector<Rect> steady_dots = dots(a), late_dots = dots(b);
    ASSERT_EQ(late_dots.size(), static_cast<size_t>(Scene::kTrailFrames));
    EXPECT_EQ(steady_dots.front().r, late_dots.back().r);   // an old dot: on time in both
    EXPECT_NE(steady_dots.front().r, late_dots.front().r);  // the newest: missed
}

TEST(Scene, ClassifiesIntervalsAgainstTheTarget) {
    const int64_t period = 16'666'667, tolerance = kOnTimeToleranceNs;
    EXPECT_EQ(classify_interval(period + 400'000, period, 0, tolerance), FrameClass::OnTime);
    EXPECT_EQ(classify_interval(period - 600'000, period, 0, tolerance), FrameClass::Early);
    EXPECT_EQ(classify_interval(period + 600'000, period, 0, tolerance), FrameClass::Late);
    EXPECT_EQ(classify_interval((period * 3 + 1) / 2, period, 0, tolerance), FrameClass::Missed);
    EXPECT_EQ(classify_interval(period, period, 1, tolerance), FrameClass::Missed);
}

TEST(Controls, RejectsABadChangeWholeAndKeepsTheRest) {
    FakeWindow window;
    Rig rig(window);
    Settings change;
    change.hz = 120;
    change.sched_period_ms = 40;   // out of range
    EXPECT_NE(rig.apply(change), "");
    EXPECT_EQ(*rig.controls.current().hz, 60);
    EXPECT_EQ(*rig.controls.current().sched_period_ms, 0);
    EXPECT_EQ(rig.controls.take_markers(), "");
    EXPECT_EQ(rig.pacer.config().target_hz, 60);
}

TEST(Controls, AppliesToThePacerAndRecordsAMarker) {
    FakeWindow window;
    Rig rig(window);
    Settings change;
    change.hz = 120;
    change.strategy = pacer::Strategy::Spin;
    ASSERT_EQ(rig.apply(change, "ui"), "");
    EXPECT_EQ(rig.pacer.config().target_hz, 120);
    EXPECT_EQ(rig.pacer.config().strategy, pacer::Strategy::Spin);
    const std::string markers = rig.controls.take_markers();
    EXPECT_NE(markers.find("ui: set"), std::string::npos) << markers;
    EXPECT_NE(markers.find("hz=120"), std::string::npos) << markers;
    EXPECT_EQ(rig.controls.take_markers(), "");
}

TEST(Controls, TheLibrarysRangeIsCheckedAndNamedByTheDemosKey) {
    FakeWindow window;
    Rig rig(window);
    Settings change;
    change.timer_margin_us = 5000;   // above Config::tuning.timer.max_margin_ns
    const std::string problem = rig.apply(change);
    EXPECT_EQ(problem.rfind("timer_margin_us: 5000 -> tuning.timer.margin_ns: 5000000 is out of range", 0), 0u) << problem;
    EXPECT_LT(problem.size(), 120u) << problem;
    EXPECT_EQ(rig.pacer.config().tuning.timer.margin_ns, pacer::Config{}.tuning.timer.margin_ns);
}

TEST(Controls, VsyncSettingYieldsToThePacerAndComesBack) {
    FakeWindow window;
    window.refresh_hz = 60;
    Rig rig(window);
    Settings on;
    on.vsync = VsyncMode::On;
    ASSERT_EQ(rig.apply(on), "");
    ASSERT_FALSE(window.requests.empty());
    EXPECT_EQ(window.requests.back(), 1);   // timer + vsync on: the demo asks

    window.requests.clear();
    Settings vsync;
    vsync.strategy = pacer::Strategy::Vsync;
    ASSERT_EQ(rig.apply(vsync), "");
    EXPECT_TRUE(rig.controls.pacer_owns_swap_interval());
    EXPECT_EQ(window.requests, std::vector<int>{1});   // the pacer asked, once

    window.requests.clear();
    Settings adaptive;
    adaptive.vsync = VsyncMode::Adaptive;
    ASSERT_EQ(rig.apply(adaptive), "");
    EXPECT_TRUE(window.requests.empty());   // kept for later, the pacer owns it now

    Settings timer;
    timer.strategy = pacer::Strategy::Timer;
    ASSERT_EQ(rig.apply(timer), "");
    ASSERT_FALSE(window.requests.empty());
    EXPECT_EQ(window.requests.back(), -1);   // the pacer let go; the setting is back
}

TEST(Controls, ANewSleeperKeepsFramesAndStatsContinuous) {
    FakeWindow window;
    Rig rig(window);
    Settings fast;
    fast.hz = 1000;
    ASSERT_EQ(rig.apply(fast), "");
    std::vector<pacer::Frame> frames;
    for (int i = 0; i < 5; ++i) frames.push_back(rig.pacer.wait());
    Settings simulated;
    simulated.sched_period_ms = 1;
    simulated.precise_k = 2;
    ASSERT_EQ(rig.apply(simulated), "");
    for (int i = 0; i < 5; ++i) frames.push_back(rig.pacer.wait());

    EXPECT_NE(rig.controls.sleeper_description().find("simulated"), std::string::npos);
    EXPECT_EQ(rig.pacer.config().tuning.precise.sigma_k, 2);
    EXPECT_EQ(rig.pacer.stats().size(), frames.size());   // one window, never restarted
    for (size_t i = 0; i < frames.size(); ++i) {
        EXPECT_EQ(frames[i].index, static_cast<int64_t>(i));
        if (i == 0) continue;
        EXPECT_EQ(frames[i].interval_ns, frames[i].wake_ns - frames[i - 1].wake_ns);
        EXPECT_GT(frames[i].interval_ns, 0);
    }
}

// --- the dt modes (motion.h) -------------------------------------------------

constexpr int64_t kPeriodNs = 10'000'000;   // 100 Hz

// A frame as the pacer hands it: the measured interval and the pacer's dt.
pacer::Frame frame_of(int64_t interval_ns, int64_t dt_ns, int64_t period_ns = kPeriodNs) {
    pacer::Frame frame{};
    frame.interval_ns = interval_ns;
    frame.dt_ns = dt_ns;
    frame.period_ns = period_ns;
    return frame;
}

// A scripted run: wakes jitter around a 10 ms grid, one frame misses a grid
// point (interval and dt 20 ms), one stall is clamped by the pacer to 100 ms.
struct Scripted {
    int64_t interval_ns, dt_ns;
};
const Scripted kScript[] = {
    {0, 10'000'000},                // frame 0: no interval; the pacer's dt is the period
    {10'400'000, 10'000'000},       // woke 0.4 ms late
    {9'600'000, 10'000'000},        // back on the grid
    {20'000'000, 20'000'000},       // missed one grid point
    {10'000'000, 10'000'000},
    {250'000'000, 100'000'000},     // a stall; the pacer clamps dt to max_dt
};

std::vector<MotionStep> run_script(MotionClock& clock, DtMode mode) {
    std::vector<MotionStep> steps;
    for (const Scripted& s : kScript) steps.push_back(clock.advance(frame_of(s.interval_ns, s.dt_ns), mode));
    return steps;
}

TEST(MotionClock, RawMovesByTheMeasuredIntervalClampedLikeThePacersDt) {
    MotionClock clock;
    const std::vector<MotionStep> steps = run_script(clock, DtMode::Raw);
    for (size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].dt_ns, std::min(kScript[i].interval_ns, MotionClock::kMaxRawDtNs)) << i;
        EXPECT_EQ(steps[i].mode, DtMode::Raw);
        EXPECT_EQ(steps[i].fixed_steps, -1);
    }
    // The late wake reaches the motion; the 250 ms stall moves it by 100 ms only.
    EXPECT_EQ(steps[5].dt_ns, 100'000'000);
    EXPECT_EQ(clock.time_ns(), 150'000'000);
}

TEST(MotionClock, PacedMovesByThePacersDt) {
    MotionClock clock;
    const std::vector<MotionStep> steps = run_script(clock, DtMode::Paced);
    for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].dt_ns, kScript[i].dt_ns) << i;
    EXPECT_EQ(steps[1].dt_ns, steps[2].dt_ns) << "the late wake does not reach the motion";
    EXPECT_EQ(clock.time_ns(), 160'000'000);
}

TEST(MotionClock, FixedRunsWholeStepsAndInterpolates) {
    MotionClock clock;
    std::vector<MotionStep> steps;
    // A 4 ms dt against a 10 ms step: steps come every 2 or 3 frames, and
    // the time shown moves by the dt all the same, through alpha.
    for (int i = 0; i < 5; ++i) steps.push_back(clock.advance(frame_of(4'000'000, 4'000'000), DtMode::Fixed));
    const int32_t expected_steps[] = {0, 0, 1, 0, 1};
    const double expected_alpha[] = {0.4, 0.8, 0.2, 0.6, 0.0};
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(steps[i].fixed_steps, expected_steps[i]) << i;
        EXPECT_NEAR(steps[i].fixed_alpha, expected_alpha[i], 1e-12) << i;
        EXPECT_EQ(steps[i].dt_ns, 4'000'000) << i;
    }
    EXPECT_EQ(clock.fixed_step().steps_total(), 2);
    EXPECT_EQ(clock.time_ns(), 20'000'000);
}

TEST(MotionClock, FixedOnTheScriptFollowsThePacersDt) {
    MotionClock clock;
    const std::vector<MotionStep> steps = run_script(clock, DtMode::Fixed);
    const int32_t expected_steps[] = {1, 1, 1, 2, 1, 8};   // the stall's 10 steps capped at 8
    for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].fixed_steps, expected_steps[i]) << i;
    for (size_t i = 0; i + 1 < steps.size(); ++i) EXPECT_EQ(steps[i].dt_ns, kScript[i].dt_ns) << i;
    // The spiral-of-death cap: 8 of the stall's 10 steps run, 2 are dropped.
    EXPECT_EQ(steps.back().dt_ns, 8 * kPeriodNs);
    EXPECT_EQ(clock.fixed_step().dropped_ns(), 2 * kPeriodNs);
    EXPECT_EQ(clock.fixed_step().capped_frames(), 1);
    EXPECT_EQ(clock.time_ns(), 140'000'000);   // 14 steps shown
}

TEST(MotionClock, SwitchingModesContinuesFromTheTimeShown) {
    MotionClock clock;
    clock.advance(frame_of(0, kPeriodNs), DtMode::Raw);
    clock.advance(frame_of(12'000'000, kPeriodNs), DtMode::Raw);
    EXPECT_EQ(clock.time_ns(), 12'000'000);
    MotionStep step = clock.advance(frame_of(11'000'000, kPeriodNs), DtMode::Fixed);
    EXPECT_EQ(step.dt_ns, kPeriodNs) << "fixed starts from the time shown, no jump";
    EXPECT_EQ(clock.time_ns(), 22'000'000);
    // A new target period in fixed mode: a new step, continuing from the time shown.
    step = clock.advance(frame_of(5'000'000, 5'000'000, 5'000'000), DtMode::Fixed);
    EXPECT_EQ(clock.fixed_step().step_ns(), 5'000'000);
    EXPECT_EQ(step.dt_ns, 5'000'000);
    step = clock.advance(frame_of(9'000'000, 5'000'000, 5'000'000), DtMode::Paced);
    EXPECT_EQ(step.dt_ns, 5'000'000);
    EXPECT_EQ(clock.time_ns(), 32'000'000);
}

// --- Controls: the new settings ----------------------------------------------

TEST(Controls, WaitPointGoesToThePacer) {
    FakeWindow window;
    Rig rig(window);
    // The library's default.
    EXPECT_EQ(*rig.controls.current().wait_point, pacer::WaitPoint::BeforePresent);
    EXPECT_EQ(rig.pacer.config().wait_point, pacer::WaitPoint::BeforePresent);
    Settings fast;
    fast.hz = 1000;
    fast.wait_point = pacer::WaitPoint::FrameStart;
    ASSERT_EQ(rig.apply(fast), "");
    rig.pacer.wait();
    Settings before;
    before.wait_point = pacer::WaitPoint::BeforePresent;
    ASSERT_EQ(rig.apply(before), "");
    EXPECT_NE(rig.controls.take_markers().find("wait_point=before_present"), std::string::npos);
    // Before present, the frame built after the wait shows at the next deadline.
    const pacer::Frame frame = rig.pacer.wait();
    EXPECT_EQ(frame.predicted_present_ns, frame.deadline_ns + frame.period_ns);
    // A new sleeper keeps the wait point.
    Settings simulated;
    simulated.sched_period_ms = 1;
    ASSERT_EQ(rig.apply(simulated), "");
    rig.pacer.wait();
    EXPECT_EQ(rig.pacer.config().wait_point, pacer::WaitPoint::BeforePresent);
}

TEST(Controls, DtModeIsASetting) {
    FakeWindow window;
    Rig rig(window);
    EXPECT_EQ(*rig.controls.current().dt_mode, DtMode::Paced);   // the pacer's dt, by default
    Settings fixed;
    ASSERT_EQ(parse_setting("dt_mode", "fixed", &fixed), "");
    ASSERT_EQ(rig.apply(fixed), "");
    EXPECT_EQ(*rig.controls.current().dt_mode, DtMode::Fixed);
}

TEST(Controls, ThreadTimingIsMadeRestoredAndReported) {
    FakeWindow window;
    Rig rig(window);
    EXPECT_EQ(rig.controls.thread_timing(), nullptr);
    Settings nicer;
    nicer.nice = 5;   // raising nice needs no privilege
    ASSERT_EQ(rig.apply(nicer), "");
    const pacer::ThreadTiming::Report* report = rig.controls.thread_timing();
    ASSERT_NE(report, nullptr);
    if (report->sched_supported) {
        EXPECT_EQ(report->nice, 5);
        EXPECT_NE(thread_timing_text(*report).find("nice 5"), std::string::npos) << thread_timing_text(*report);
    } else {
        EXPECT_NE(thread_timing_text(*report).find("unsupported"), std::string::npos);
    }
#ifndef _WIN32
    EXPECT_FALSE(report->timer_period_supported);
#endif
    // Back to every control at 0: no ThreadTiming, the old one restored.
    Settings leave;
    leave.nice = 0;
    ASSERT_EQ(rig.apply(leave), "");
    EXPECT_EQ(rig.controls.thread_timing(), nullptr);

    // Out of range is refused whole, before anything changes.
    Settings bad;
    bad.fifo_priority = 100;
    bad.hz = 120;
    EXPECT_NE(rig.apply(bad).find("fifo_priority"), std::string::npos);
    EXPECT_EQ(*rig.controls.current().hz, 60);
    EXPECT_EQ(rig.controls.thread_timing(), nullptr);
}

TEST(Controls, TimerWaitSettingsMakeANewOsSleeper) {
    FakeWindow window;
    Rig rig(window);
    // The library's defaults, taken from pacer::Config.
    const pacer::Config library;
    EXPECT_EQ(*rig.controls.current().wait_slack_ns, library.tuning.wait.timer_slack_ns);
    EXPECT_EQ(*rig.controls.current().wait_slice_ns, library.tuning.wait.sched_slice_ns);

    Settings change;
    change.hz = 500;   // timer strategy: each frame ends in a high-resolution timer wait
    change.wait_slack_ns = 2000;
    change.wait_slice_ns = -1;
    ASSERT_EQ(rig.apply(change), "");
    EXPECT_NE(rig.controls.take_markers().find("wait_slack_ns=2000 wait_slice_ns=-1"), std::string::npos);
    std::vector<pacer::Frame> frames;
    for (int i = 0; i < 5; ++i) frames.push_back(rig.pacer.wait());
#ifdef __linux__
    // The timer waited, with the slack asked for; the slice is the thread's own.
    int64_t slept_ns = 0;
    for (const pacer::Frame& frame : frames) slept_ns += frame.slept_ns;
    EXPECT_GT(slept_ns, 0);
    const std::string description = rig.controls.sleeper_description();
    EXPECT_NE(description.find("waits with slack 2 us"), std::string::npos) << description;
    EXPECT_EQ(description.find("slice"), std::string::npos) << description;
#endif

    // Live: the same pacer goes on with a new OS sleeper.
    Settings back;
    back.wait_slack_ns = 1;
    ASSERT_EQ(rig.apply(back), "");
    for (int i = 0; i < 5; ++i) frames.push_back(rig.pacer.wait());
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(frames[i].index, static_cast<int64_t>(i));
#ifdef __linux__
    EXPECT_NE(rig.controls.sleeper_description().find("waits with slack 1 ns"), std::string::npos)
        << rig.controls.sleeper_description();
#endif

    // 0 and below -1 are refused whole (by pacer::validate), before anything changes.
    for (int64_t bad_ns : {int64_t{0}, int64_t{-2}}) {
        Settings bad;
        bad.hz = 120;
        bad.wait_slice_ns = bad_ns;
        EXPECT_NE(rig.apply(bad).find("wait_slice_ns: " + std::to_string(bad_ns)), std::string::npos);
        EXPECT_EQ(*rig.controls.current().hz, 500);
        EXPECT_EQ(*rig.controls.current().wait_slice_ns, -1);
    }
}

}  // namespace
}  // namespace pacer_demo
