// present_feedback_none.cpp: the demo built without Wayland's client library
// or protocol files: no window reports when its frames were shown.
#include "platform/present_feedback.h"

namespace pacer_demo {

std::unique_ptr<PresentFeedback> open_wayland_present_feedback(void*, void*, std::string* why) {
    *why = "built without Wayland (libwayland-dev, wayland-protocols)";
    return nullptr;
}

}  // namespace pacer_demo
