// host_support.cpp: the GLFW and SDL2 Hosts' shared part (host_support.h).
#include "host_support.h"

namespace pacer::backends::detail {

void HostSupport::open_feedback(void* wl_display, void* wl_surface) {
    std::string why;
    source_ = open_present_source(wl_display, wl_surface, &why);
    feedback_text_ = source_ ? source_->describe() : "none: " + why;
}

bool HostSupport::take_presented(Presented* out) {
    if (!source_ || !source_->take(out)) return false;
    if (callback_ != nullptr) callback_(*out, user_);
    return true;
}

}  // namespace pacer::backends::detail
