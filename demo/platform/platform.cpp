// platform.cpp: what both backends share.
#include "platform/platform.h"

#include "platform/present_feedback.h"

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

Platform::~Platform() = default;

void Platform::open_present_feedback_(void* wl_display, void* wl_surface) {
    std::string why;
    present_feedback_ = open_wayland_present_feedback(wl_display, wl_surface, &why);
    present_feedback_source_ = present_feedback_
                                   ? std::string("wp_presentation, clock ") + present_feedback_->clock_name()
                                   : "none: " + why;
}

void Platform::request_presented_(int64_t frame_index) {
    if (present_feedback_) present_feedback_->request(frame_index);
}

bool Platform::take_presented(Presented* out) {
    return present_feedback_ && present_feedback_->take(out);
}

bool Platform::set_swap_interval(int interval) {
    swap_state_.requested = interval;
    swap_state_.answer = request_swap_interval_(interval);
    return swap_state_.answer != SwapAnswer::Refused;
}

}  // namespace pacer_demo
