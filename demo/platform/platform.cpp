// platform.cpp: what both backends share.
#include "platform/platform.h"

namespace pacer_demo {

const char* backend_name(Backend backend) {
    return backend == Backend::Glfw ? "glfw" : "sdl2";
}

const char* swap_answer_name(SwapAnswer answer) {
    switch (answer) {
        case SwapAnswer::None: return "not requested";
        case SwapAnswer::Accepted: return "accepted";
        case SwapAnswer::Refused: return "refused";
        case SwapAnswer::Unconfirmed: return "requested, cannot confirm";
    }
    return "?";
}

bool Platform::set_swap_interval(int interval) {
    swap_state_.requested = interval;
    swap_state_.answer = request_swap_interval_(interval);
    return swap_state_.answer != SwapAnswer::Refused;
}

}  // namespace pacer_demo
