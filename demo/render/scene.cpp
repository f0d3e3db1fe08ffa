// scene.cpp: the motion test's state and layout.
#include "render/scene.h"

#include <pacer/units.h>

#include <algorithm>
#include <cmath>

namespace pacer_demo {
namespace {

constexpr float kBackground[3] = {0.09f, 0.09f, 0.11f};
constexpr float kGridLine[3] = {0.17f, 0.17f, 0.21f};
constexpr float kGridSpacingPx = 64;
constexpr float kTickWidthPx = 3;
// FrameClass order: on time, early, late, missed. The overlay's graph uses the same.
constexpr float kStepColours[4][3] = {
    {0.31f, 0.78f, 0.35f}, {0.35f, 0.59f, 0.94f}, {0.92f, 0.78f, 0.20f}, {0.90f, 0.24f, 0.20f}};

}  // namespace

FrameClass classify_interval(int64_t interval_ns, int64_t period_ns, int32_t missed, int64_t tolerance_ns) {
    const int64_t error_ns = interval_ns - period_ns;
    if (missed > 0 || 2 * interval_ns >= 3 * period_ns) return FrameClass::Missed;
    if (error_ns > tolerance_ns) return FrameClass::Late;
    if (error_ns < -tolerance_ns) return FrameClass::Early;
    return FrameClass::OnTime;
}

Scene::Scene()
    : objects_{{
          {"240 px/s", 240, 48, 0.10f, 1.00f, 0.55f, 0.00f},   // orange
          {"480 px/s", kTrailSpeedPxS, 48, 0.36f, 0.00f, 0.80f, 1.00f},   // cyan, followed by the strip
          // Low enough that its label clears the strip in a 360 px tall window.
          {"960 px/s", 960, 48, 0.76f, 1.00f, 0.25f, 0.80f},   // magenta
      }} {}

void Scene::update(double dt_s) {
    time_s_ += dt_s;
    ++steps_;
    trail_time_s_[trail_head_] = time_s_;
    trail_dt_s_[trail_head_] = dt_s;
    trail_head_ = (trail_head_ + 1) % kTrailHistory;
    if (trail_count_ < kTrailHistory) ++trail_count_;
}

int Scene::strip_stride(double target_hz) {
    if (!(target_hz > 0)) return 1;
    const double step_px = kTrailSpeedPxS / target_hz;
    const double stride = std::ceil(kMinTickSpacingPx / step_px - 1e-9);
    return static_cast<int>(std::clamp(stride, 1.0, static_cast<double>(kMaxStripStride)));
}

double Scene::left_px(const Stage& stage, double speed_px_s, float size_px, double time_s) {
    double range = stage.width - size_px;
    if (range <= 1) return stage.x;
    return stage.x + std::fmod(speed_px_s * time_s, range);
}

std::vector<Rect> Scene::draw(const Stage& stage, double target_hz) const {
    std::vector<Rect> rects;
    rects.push_back({stage.x, stage.y, stage.width, stage.height,
                     kBackground[0], kBackground[1], kBackground[2], 1});
    for (float x = 0; x < stage.width; x += kGridSpacingPx) {
        rects.push_back({stage.x + x, stage.y, 1, stage.height,
                         kGridLine[0], kGridLine[1], kGridLine[2], 1});
    }

    // The tearing bar first, so the squares stay on top of it and a square's
    // colour is always where its position says.
    float bar_x = static_cast<float>(left_px(stage, kBarSpeedPxS, kBarWidthPx, time_s_));
    rects.push_back({bar_x, stage.y, kBarWidthPx, stage.height, 1, 1, 1, 1});

    for (const MovingObject& object : objects_) {
        float x = static_cast<float>(left_px(stage, object.speed_px_s, object.size_px, time_s_));
        float y = stage.y + object.row_y * stage.height;
        rects.push_back({x, y, object.size_px, object.size_px, object.r, object.g, object.b, 1});
    }

    draw_strip(stage, target_hz, &rects);
    return rects;
}

// The motion strip under the followed square: reference ticks at even steps
// of stride/target_hz back from now, then the real positions of every
// stride-th frame, newest brightest, each with a dot for its worst step.
void Scene::draw_strip(const Stage& stage, double target_hz, std::vector<Rect>* out) const {
    std::vector<Rect>& rects = *out;
    const MovingObject& followed = objects_[kTrailObject];
    float strip_y = stage.y + followed.row_y * stage.height + followed.size_px + kStripGapPx;
    float half = followed.size_px / 2;
    double period_s = target_hz > 0 ? 1 / target_hz : 0;
    const int stride = strip_stride(target_hz);
    const int ticks = std::min(kTrailFrames, (trail_count_ + stride - 1) / stride);
    for (int i = 0; i < ticks; ++i) {
        double t = time_s_ - i * stride * period_s;
        float x = static_cast<float>(left_px(stage, followed.speed_px_s, followed.size_px, t)) + half;
        rects.push_back({x - kTickWidthPx / 2, strip_y, kTickWidthPx, kReferenceTickHeightPx,
                         0.62f, 0.62f, 0.62f, 1});
    }
    float trail_y = strip_y + kReferenceTickHeightPx + 4;
    const auto period_ns = static_cast<int64_t>(std::llround(pacer::ns_of_seconds(period_s)));
    for (int i = 0; i < ticks; ++i) {
        const int newest = i * stride;   // frames back from the newest
        int slot = (trail_head_ - 1 - newest + kTrailHistory) % kTrailHistory;
        float x = static_cast<float>(left_px(stage, followed.speed_px_s, followed.size_px,
                                             trail_time_s_[slot])) + half;
        float alpha = 1.0f - 0.75f * static_cast<float>(i) / kTrailFrames;
        rects.push_back({x - kTickWidthPx / 2, trail_y, kTickWidthPx, kTrailTickHeightPx,
                         followed.r, followed.g, followed.b, alpha});
        // The dot: the worst of the steps since the tick before (none before frame 0).
        if (period_s <= 0) continue;
        int worst = -1;
        for (int k = 0; k < stride; ++k) {
            const int back = newest + k;
            if (back >= trail_count_ || (back == trail_count_ - 1 && steps_ == trail_count_)) break;
            const int at = (trail_head_ - 1 - back + kTrailHistory) % kTrailHistory;
            const auto dt_ns = static_cast<int64_t>(std::llround(pacer::ns_of_seconds(trail_dt_s_[at])));
            worst = std::max(worst, static_cast<int>(classify_interval(dt_ns, period_ns, 0, kOnTimeToleranceNs)));
        }
        if (worst < 0) continue;
        const float* colour = kStepColours[worst];
        rects.push_back({x - kStepDotPx / 2, trail_y + kTrailTickHeightPx + 3, kStepDotPx, kStepDotPx,
                         colour[0], colour[1], colour[2], 1});
    }
}

}  // namespace pacer_demo
