// fixed_step.h: a fixed-timestep accumulator, for simulations that must step
// by a constant dt (physics, networking) while frames come at any rate.
//
// USAGE
//   pacer::FixedStepConfig steps_config;
//   steps_config.step_ns = 10'000'000;              // simulate at 100 Hz
//   pacer::FixedStep steps(steps_config);
//   while (running) {
//       pacer::Frame frame = pacer.wait();
//       for (int32_t n = steps.advance(frame.dt_ns); n > 0; --n) {
//           previous = current;
//           current = simulate(current, steps.step_ns());
//       }
//       render(interpolate(previous, current, steps.alpha()));
//   }
//
// Each frame adds its dt to an accumulator and takes out as many whole steps
// as fit; what is left (less than a step) becomes alpha, how far the display
// time lies between the last two simulated states. Rendering the interpolated
// state hides the beat between the step rate and the frame rate.
//
// THE SPIRAL OF DEATH
//   When a step costs more wall time than it simulates, each frame owes more
//   steps than the last, and the program stops responding. So a frame runs at
//   most max_steps_per_frame steps; the whole steps beyond that are dropped
//   (the simulation falls behind wall time instead of the frame rate falling
//   to zero) and counted in dropped_ns() and capped_frames().
#pragma once

#include <cstdint>
#include <string>

namespace pacer {

struct FixedStepConfig {
    int64_t step_ns = 16'666'667;      // the simulation's step (60 Hz), > 0
    int32_t max_steps_per_frame = 8;   // whole steps beyond it in one frame are dropped, > 0
};

// "" when valid, else one line naming the field, e.g.
// "FixedStep: step_ns 0 must be positive".
std::string validate(const FixedStepConfig& config);

class FixedStep {
public:
    // Throws std::invalid_argument with validate()'s line; an engine built
    // without exceptions checks validate() first.
    explicit FixedStep(const FixedStepConfig& config = {});

    // Adds a frame's dt (a negative one counts as 0) and returns the number of
    // steps to simulate now, at most max_steps_per_frame(). Any dt is safe:
    // the sums stop at INT64_MAX rather than overflow.
    int32_t advance(int64_t dt_ns) {
        if (dt_ns > 0) accumulator_ns_ = saturating_add(accumulator_ns_, dt_ns);
        int64_t steps = accumulator_ns_ / step_ns_;
        accumulator_ns_ %= step_ns_;
        if (steps > max_steps_) {
            // (steps - max) * step <= steps * step, which fit in the accumulator.
            dropped_ns_ = saturating_add(dropped_ns_, (steps - max_steps_) * step_ns_);
            ++capped_frames_;
            steps = max_steps_;
        }
        steps_total_ = saturating_add(steps_total_, steps);
        return static_cast<int32_t>(steps);
    }

    // Where the display time lies between the last two states: [0, 1).
    double alpha() const { return static_cast<double>(accumulator_ns_) / static_cast<double>(step_ns_); }

    int64_t step_ns() const { return step_ns_; }
    int32_t max_steps_per_frame() const { return max_steps_; }
    int64_t accumulator_ns() const { return accumulator_ns_; }   // time owed, under one step
    int64_t steps_total() const { return steps_total_; }         // steps returned so far
    int64_t dropped_ns() const { return dropped_ns_; }           // time dropped by the cap
    int64_t capped_frames() const { return capped_frames_; }     // frames that hit the cap

    // Back to an empty accumulator and zero counts (after a pause or a load).
    void reset() { accumulator_ns_ = steps_total_ = dropped_ns_ = capped_frames_ = 0; }

private:
    static int64_t saturating_add(int64_t a, int64_t b) {   // b >= 0
        return a > INT64_MAX - b ? INT64_MAX : a + b;
    }

    int64_t step_ns_;
    int32_t max_steps_;
    int64_t accumulator_ns_ = 0;
    int64_t steps_total_ = 0;
    int64_t dropped_ns_ = 0;
    int64_t capped_frames_ = 0;
};

}  // namespace pacer
