// scene.h: the motion test the demo draws, as plain state with no OpenGL, so
// that a test can predict every pixel of it from the time steps alone.
//
// Everything moves by the frame's time step dt, and nothing else: after steps
// dt_0 .. dt_n the simulated time is their sum and every object's position is
// a pure function of it (position = speed * time, wrapped in the stage). The
// stutter a person sees is therefore exactly the unevenness of the dts.
//
// What is drawn, in the stage (the window right of the overlay panel):
//   - a faint grid of vertical lines every 64 px: a still reference for the eye;
//   - a full-height white bar sweeping left to right: with vsync off its
//     edges break where a swap tore the frame;
//   - three squares in rows, each at a constant speed in px/s;
//   - under the middle square, the motion strip: a tick where the square was
//     on each of the last kTrailFrames frames, above it the ticks where it
//     would have been with perfectly even steps at the target rate, and
//     under each tick a dot coloured by its step (classify_interval: green on
//     time, yellow late, red missed, blue early). Uneven spacing shows even on
//     a still screenshot. Where a step is under kMinTickSpacingPx (120 Hz and
//     up), the strip keeps every strip_stride()-th frame, so ticks stay apart,
//     and a dot takes the worst of the steps it stands for.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace pacer_demo {

// How a frame's interval compares with the target period, Tracy-style: on
// time within tolerance_ns (the statistics' 0.5 ms), early or late beyond it,
// missed from 1.5 periods (a whole refresh lost at vsync) or when the pacer
// skipped grid points. The overlay's graph and the motion strip both use it.
// In order from best to worst (a strip dot shows the worst of its steps).
enum class FrameClass { OnTime, Early, Late, Missed };
FrameClass classify_interval(int64_t interval_ns, int64_t period_ns, int32_t missed, int64_t tolerance_ns);
inline constexpr int64_t kOnTimeToleranceNs = 500'000;

struct Rect {
    float x, y, width, height;   // px, origin at the top-left
    float r, g, b, a;            // straight alpha
};

struct Stage {
    float x, y, width, height;   // px
};

struct MovingObject {
    const char* name;
    double speed_px_s;
    float size_px;
    float row_y;                 // top of the square, as a fraction of the stage's height
    float r, g, b;
};

class Scene {
public:
    static constexpr int kTrailFrames = 32;          // ticks in the strip
    static constexpr float kMinTickSpacingPx = 8;    // an even step's ticks at least this far apart
    static constexpr int kMaxStripStride = 8;        // 480 px/s: steps down to 1 px (480 Hz)
    static constexpr double kBarSpeedPxS = 1000;   // 16.7 px a frame at 60 Hz: a torn edge shows
    static constexpr float kBarWidthPx = 16;
    // The motion strip starts kStripGapPx under the followed square: reference
    // ticks, a 4 px gap, then the trail's ticks.
    static constexpr float kStripGapPx = 12;
    static constexpr float kReferenceTickHeightPx = 18;
    static constexpr float kTrailTickHeightPx = 34;
    static constexpr float kStepDotPx = 6;
    static constexpr float kStripHeightPx = kReferenceTickHeightPx + 4 + kTrailTickHeightPx + 3 + kStepDotPx;

    Scene();

    // Advances the simulation by one frame's time step.
    void update(double dt_s);
    // The rectangles of the current state, back to front. target_hz spaces the
    // reference ticks of the motion strip.
    std::vector<Rect> draw(const Stage& stage, double target_hz) const;

    double time_s() const { return time_s_; }
    int64_t steps() const { return steps_; }
    const std::array<MovingObject, 3>& objects() const { return objects_; }
    // Frames per strip tick at this target rate: 1 up to 60 Hz, 3 at 144 Hz.
    static int strip_stride(double target_hz);
    // Left edge of an object (or of the bar, with speed kBarSpeedPxS and width
    // kBarWidthPx) at simulated time time_s: speed * time wrapped so that the
    // whole shape stays inside the stage.
    static double left_px(const Stage& stage, double speed_px_s, float size_px, double time_s);
    // The object the motion strip follows, and its speed.
    static constexpr int kTrailObject = 1;
    static constexpr double kTrailSpeedPxS = 480;

private:
    void draw_strip(const Stage& stage, double target_hz, std::vector<Rect>* rects) const;
    std::array<MovingObject, 3> objects_;
    double time_s_ = 0;
    int64_t steps_ = 0;
    // Simulated time and step of each of the last kTrailHistory frames (ring).
    static constexpr int kTrailHistory = kTrailFrames * kMaxStripStride;
    std::array<double, kTrailHistory> trail_time_s_{};
    std::array<double, kTrailHistory> trail_dt_s_{};
    int trail_head_ = 0, trail_count_ = 0;
};

}  // namespace pacer_demo
