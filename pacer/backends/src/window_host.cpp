// window_host.cpp: WindowHost (pacer/backends/window_host.h), the part the
// GLFW and SDL2 Hosts share.
#include <pacer/backends/window_host.h>

#include <string>

#include "present_source.h"

namespace pacer::backends {

struct WindowHost::Support {
    std::unique_ptr<detail::PresentSource> source;
    std::string feedback_text = "none: not asked";
    PresentedCallback callback = nullptr;
    void* user = nullptr;
    SwapIntervalState swap;
};

WindowHost::WindowHost() : support_(std::make_unique<Support>()) {}
WindowHost::~WindowHost() = default;

void WindowHost::open_feedback(void* wl_display, void* wl_surface) {
    std::string why;
    support_->source = detail::open_present_source(wl_display, wl_surface, &why);
    support_->feedback_text = support_->source ? support_->source->describe() : "none: " + why;
}

void WindowHost::before_swap(int64_t frame_index) {
    if (support_->source) support_->source->request(frame_index);
}

bool WindowHost::take_presented(Presented* out) {
    if (!support_->source || !support_->source->take(out)) return false;
    if (support_->callback != nullptr) support_->callback(*out, support_->user);
    return true;
}

bool WindowHost::record_swap(int interval, SwapAnswer answer) {
    support_->swap = {interval, answer};
    return answer != SwapAnswer::Refused;
}

SwapIntervalState WindowHost::swap_interval() const { return support_->swap; }
const char* WindowHost::present_feedback() const { return support_->feedback_text.c_str(); }

void WindowHost::on_presented(PresentedCallback callback, void* user) {
    support_->callback = callback;
    support_->user = user;
}

}  // namespace pacer::backends
