// motion.cpp: the scene's clock in the three dt modes.
#include "motion.h"

#include <algorithm>

namespace pacer_demo {

MotionStep MotionClock::advance(const pacer::Frame& frame, DtMode mode) {
    const int64_t before_ns = shown_ns_;
    MotionStep step{mode, 0, -1, -1.0};
    if (mode != DtMode::Fixed) {
        fixed_active_ = false;
        // Raw is clamped as the pacer clamps dt: a stall (a debugger break,
        // SIGSTOP, a swapped-out machine) must not teleport the scene.
        shown_ns_ += mode == DtMode::Raw ? std::clamp<int64_t>(frame.interval_ns, 0, kMaxRawDtNs) : frame.dt_ns;
    } else {
        if (!fixed_active_ || steps_.step_ns() != frame.period_ns) {
            // Start from the time shown: it is the older of the two states
            // with an empty accumulator.
            pacer::FixedStepConfig config{};
            config.step_ns = frame.period_ns;
            config.max_steps_per_frame = kMaxStepsPerFrame;
            steps_ = pacer::FixedStep(config);
            newest_state_ns_ = shown_ns_ + steps_.step_ns();
            fixed_active_ = true;
        }
        step.fixed_steps = steps_.advance(frame.dt_ns);
        step.fixed_alpha = steps_.alpha();
        newest_state_ns_ += step.fixed_steps * steps_.step_ns();
        // Between the state before the newest (newest - step) and the newest, at alpha.
        shown_ns_ = newest_state_ns_ - steps_.step_ns() + steps_.accumulator_ns();
    }
    step.dt_ns = shown_ns_ - before_ns;
    return step;
}

}  // namespace pacer_demo
