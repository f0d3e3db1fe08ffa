// fixed_step.cpp: FixedStep's checks, out of line so that fixed_step.h
// holds no throw and builds without exceptions.
#include "pacer/fixed_step.h"

#include <stdexcept>
#include <string>

namespace pacer {

std::string validate(const FixedStepConfig& config) {
    if (config.step_ns <= 0) return "FixedStep: step_ns " + std::to_string(config.step_ns) + " must be positive";
    if (config.max_steps_per_frame <= 0)
        return "FixedStep: max_steps_per_frame " + std::to_string(config.max_steps_per_frame) +
               " must be positive";
    return {};
}

FixedStep::FixedStep(const FixedStepConfig& config) {
    if (std::string problem = validate(config); !problem.empty()) throw std::invalid_argument(problem);
    step_ns_ = config.step_ns;
    max_steps_ = config.max_steps_per_frame;
}

}  // namespace pacer
