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

std::unique_ptr<Platform> Platform::create(Backend backend, const WindowConfig& config,
                                           std::string* error) {
    WindowConfig resolved = config;
    if (resolved.title == nullptr) resolved.title = "pacer demo";
    if (resolved.width <= 0) resolved.width = 1280;
    if (resolved.height <= 0) resolved.height = 720;
    return backend == Backend::Glfw ? create_glfw_platform(resolved, error)
                                    : create_sdl2_platform(resolved, error);
}

bool Platform::set_swap_interval(int interval) {
    swap_state_.requested = interval;
    swap_state_.answer = request_swap_interval_(interval);
    return swap_state_.answer != SwapAnswer::Refused;
}

}  // namespace pacer_demo
