// test_app.cpp: the demo's parts without a window: the scene (its motion and
// the motion strip) and Controls (the one place settings change), on a fake
// platform.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "controls.h"
#include "platform/platform.h"
#include "render/scene.h"

namespace pacer_demo {
namespace {

// A window system that answers as told and records every swap-interval request.
class FakePlatform final : public Platform {
public:
    Backend backend() const override { return Backend::Sdl2; }
    void* gl_proc_address(const char*) override { return nullptr; }
    void poll_events() override {}
    bool should_close() const override { return false; }
    void framebuffer_size(int* width, int* height) const override {
        *width = 1280;
        *height = 720;
    }
    void swap() override {}
    double refresh_rate_hz() override { return refresh_hz; }
    void imgui_init() override {}
    void imgui_new_frame() override {}
    void imgui_shutdown() override {}

    double refresh_hz = 0;
    SwapAnswer answer = SwapAnswer::Accepted;
    std::vector<int> requests;

protected:
    SwapAnswer request_swap_interval_(int interval) override {
        requests.push_back(interval);
        return answer;
    }
};

const Stage kStage{440, 0, 840, 720};

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

TEST(Scene, ClassifiesIntervalsAgainstTheTarget) {
    const int64_t period = 16'666'667, tolerance = kOnTimeToleranceNs;
    EXPECT_EQ(classify_interval(period + 400'000, period, 0, tolerance), FrameClass::OnTime);
    EXPECT_EQ(classify_interval(period - 600'000, period, 0, tolerance), FrameClass::Early);
    EXPECT_EQ(classify_interval(period + 600'000, period, 0, tolerance), FrameClass::Late);
    EXPECT_EQ(classify_interval((period * 3 + 1) / 2, period, 0, tolerance), FrameClass::Missed);
    EXPECT_EQ(classify_interval(period, period, 1, tolerance), FrameClass::Missed);
}

TEST(Controls, RejectsABadChangeWholeAndKeepsTheRest) {
    FakePlatform platform;
    Controls controls(platform);
    Settings change;
    change.hz = 120;
    change.sched_period_ms = 40;   // out of range
    EXPECT_NE(controls.apply(change, "test"), "");
    EXPECT_EQ(*controls.current().hz, 60);
    EXPECT_EQ(*controls.current().sched_period_ms, 0);
    EXPECT_EQ(controls.take_markers(), "");
    EXPECT_EQ(controls.pacer().config().target_hz, 60);
}

TEST(Controls, AppliesToThePacerAndRecordsAMarker) {
    FakePlatform platform;
    Controls controls(platform);
    Settings change;
    change.hz = 120;
    change.strategy = pacer::Strategy::Spin;
    ASSERT_EQ(controls.apply(change, "ui"), "");
    EXPECT_EQ(controls.pacer().config().target_hz, 120);
    EXPECT_EQ(controls.pacer().config().strategy, pacer::Strategy::Spin);
    const std::string markers = controls.take_markers();
    EXPECT_NE(markers.find("ui: set"), std::string::npos) << markers;
    EXPECT_NE(markers.find("hz=120"), std::string::npos) << markers;
    EXPECT_EQ(controls.take_markers(), "");
}

TEST(Controls, VsyncSettingYieldsToThePacerAndComesBack) {
    FakePlatform platform;
    platform.refresh_hz = 60;
    Controls controls(platform);
    Settings on;
    on.vsync = VsyncMode::On;
    ASSERT_EQ(controls.apply(on, "test"), "");
    ASSERT_FALSE(platform.requests.empty());
    EXPECT_EQ(platform.requests.back(), 1);   // timer + vsync on: the demo asks

    platform.requests.clear();
    Settings vsync;
    vsync.strategy = pacer::Strategy::Vsync;
    ASSERT_EQ(controls.apply(vsync, "test"), "");
    EXPECT_TRUE(controls.pacer_owns_swap_interval());
    EXPECT_EQ(platform.requests, std::vector<int>{1});   // the pacer asked, once

    platform.requests.clear();
    Settings adaptive;
    adaptive.vsync = VsyncMode::Adaptive;
    ASSERT_EQ(controls.apply(adaptive, "test"), "");
    EXPECT_TRUE(platform.requests.empty());   // kept for later, the pacer owns it now

    Settings timer;
    timer.strategy = pacer::Strategy::Timer;
    ASSERT_EQ(controls.apply(timer, "test"), "");
    ASSERT_FALSE(platform.requests.empty());
    EXPECT_EQ(platform.requests.back(), -1);   // the pacer let go; the setting is back
}

TEST(Controls, ANewSleeperKeepsFramesContinuous) {
    FakePlatform platform;
    Controls controls(platform);
    Settings fast;
    fast.hz = 1000;
    ASSERT_EQ(controls.apply(fast, "test"), "");
    std::vector<pacer::Frame> frames;
    for (int i = 0; i < 5; ++i) frames.push_back(controls.wait());
    Settings simulated;
    simulated.sched_period_ms = 1;
    simulated.precise_k = 2;
    ASSERT_EQ(controls.apply(simulated, "test"), "");
    for (int i = 0; i < 5; ++i) frames.push_back(controls.wait());

    EXPECT_NE(controls.sleeper_description().find("simulated"), std::string::npos);
    EXPECT_EQ(controls.pacer().config().precise_sigma_k, 2);
    for (size_t i = 0; i < frames.size(); ++i) {
        EXPECT_EQ(frames[i].index, static_cast<int64_t>(i));
        if (i == 0) continue;
        EXPECT_EQ(frames[i].interval_ns, frames[i].wake_ns - frames[i - 1].wake_ns);
        EXPECT_GT(frames[i].interval_ns, 0);
    }
}

}  // namespace
}  // namespace pacer_demo
