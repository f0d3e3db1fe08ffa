// motion.h: the scene's clock in the three dt modes (run/scenario.h DtMode),
// so the demo can show what each does to the motion:
//   raw    the measured interval between wakes (pacer::Frame::interval_ns):
//          every bit of wake jitter moves the objects by the wrong amount;
//          clamped to kMaxRawDtNs (100 ms, the pacer's max_dt_ns default),
//          so that a stall moves the scene by 100 ms, not by the stall;
//   paced  pacer::Frame::dt_ns: the grid step while frames are on time, so
//          the motion is as even as the grid;
//   fixed  pacer::FixedStep with the target period as its step, fed
//          Frame::dt_ns (fixed_step.h's usage): whole steps are simulated and
//          the picture is interpolated by alpha() between the last two states.
// The scene's state is a pure function of its time (scene.h), so a state is a
// time, and interpolating two states is interpolating their times: the time
// shown is the newest state's time minus one step plus the accumulator.
// Times are integer nanoseconds, so a replay of the trace is exact.
#pragma once

#include <cstdint>

#include <pacer/fixed_step.h>
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/metrics.h>
#include <pacer/thread_timing.h>

#include "run/scenario.h"

namespace pacer_demo {

// What the scene moved by on one frame.
struct MotionStep {
    DtMode mode;
    int64_t dt_ns;         // the shown time's advance this frame
    int32_t fixed_steps;   // fixed: steps simulated this frame; -1 in the other modes
    double fixed_alpha;    // fixed: the interpolation fraction in [0, 1); -1 otherwise
};

class MotionClock {
public:
    // Where a frame's dt exceeds this many steps, fixed drops the rest (the
    // spiral-of-death cap, fixed_step.h).
    static constexpr int32_t kMaxStepsPerFrame = 8;
    // Raw mode's largest step: what pacer::Config::max_dt_ns clamps the
    // paced dt to by default, so both modes survive a stall alike.
    static constexpr int64_t kMaxRawDtNs = 100'000'000;

    // Advances the clock by one frame in the given mode. Switching modes, or
    // a new target period in fixed mode, continues from the time shown, so
    // the objects never jump.
    MotionStep advance(const pacer::Frame& frame, DtMode mode);

    int64_t time_ns() const { return shown_ns_; }   // the time shown
    // Fixed mode's accumulator (valid while the last frame was fixed).
    const pacer::FixedStep& fixed_step() const { return steps_; }

private:
    int64_t shown_ns_ = 0;
    bool fixed_active_ = false;
    int64_t newest_state_ns_ = 0;   // fixed: the time of the newest simulated state
    pacer::FixedStep steps_;
};

}  // namespace pacer_demo
