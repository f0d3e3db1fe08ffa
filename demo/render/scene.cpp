// scene.cpp: the motion test's state and layout.
#include "render/scene.h"

#include <cmath>

namespace pacer_demo {
namespace {

constexpr float kBackground[3] = {0.09f, 0.09f, 0.11f};
constexpr float kGridLine[3] = {0.17f, 0.17f, 0.21f};
constexpr float kGridSpacingPx = 64;
constexpr float kTickWidthPx = 3;

}  // namespace

Scene::Scene()
    : objects_{{
          {"240 px/s", 240, 48, 0.10f, 1.00f, 0.55f, 0.00f},   // orange
          {"480 px/s", 480, 48, 0.36f, 0.00f, 0.80f, 1.00f},   // cyan, followed by the strip
          {"960 px/s", 960, 48, 0.74f, 1.00f, 0.25f, 0.80f},   // magenta
      }} {}

void Scene::update(double dt_s) {
    time_s_ += dt_s;
    ++steps_;
    trail_time_s_[trail_head_] = time_s_;
    trail_head_ = (trail_head_ + 1) % kTrailFrames;
    if (trail_count_ < kTrailFrames) ++trail_count_;
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

    // The motion strip under the followed square: reference ticks at even
    // steps of 1/target_hz back from now, then the real positions, newest
    // brightest.
    const MovingObject& followed = objects_[kTrailObject];
    float strip_y = stage.y + followed.row_y * stage.height + followed.size_px + kStripGapPx;
    float half = followed.size_px / 2;
    double period_s = target_hz > 0 ? 1 / target_hz : 0;
    for (int i = 0; i < trail_count_; ++i) {
        double t = time_s_ - i * period_s;
        float x = static_cast<float>(left_px(stage, followed.speed_px_s, followed.size_px, t)) + half;
        rects.push_back({x - kTickWidthPx / 2, strip_y, kTickWidthPx, kReferenceTickHeightPx,
                         0.62f, 0.62f, 0.62f, 1});
    }
    float trail_y = strip_y + kReferenceTickHeightPx + 4;
    for (int i = 0; i < trail_count_; ++i) {
        int slot = (trail_head_ - 1 - i + kTrailFrames) % kTrailFrames;
        float x = static_cast<float>(left_px(stage, followed.speed_px_s, followed.size_px,
                                             trail_time_s_[slot])) + half;
        float alpha = 1.0f - 0.75f * static_cast<float>(i) / kTrailFrames;
        rects.push_back({x - kTickWidthPx / 2, trail_y, kTickWidthPx, kTrailTickHeightPx,
                         followed.r, followed.g, followed.b, alpha});
    }
    return rects;
}

}  // namespace pacer_demo
