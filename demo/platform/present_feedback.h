// present_feedback.h: when each frame really reached the screen, as the
// compositor reports it (Wayland's wp_presentation), for the Platform's
// take_presented(). One implementation per window system, CMake choosing:
// present_feedback_wayland.cpp where libwayland-client, wayland-scanner and
// wayland-protocols are found, present_feedback_none.cpp elsewhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <pacer/pacer.h>

namespace pacer_demo {

class PresentFeedback {
public:
    virtual ~PresentFeedback() = default;
    // Asks for the fate of the next commit of the surface: call it right
    // before the swap that commits frame_index.
    virtual void request(int64_t frame_index) = 0;
    // The oldest frame whose fate arrived; reads the connection without
    // blocking. false when none is waiting.
    virtual bool take(pacer::Presented* out) = 0;
    // The compositor's presentation clock, e.g. "CLOCK_MONOTONIC_RAW".
    virtual const char* clock_name() const = 0;
};

// display and surface are a wl_display* and the window's wl_surface*, owned
// by the window system library. nullptr and one line in *why when there is
// no feedback to have (no wp_presentation global, built without Wayland).
std::unique_ptr<PresentFeedback> open_wayland_present_feedback(void* display, void* surface,
                                                               std::string* why);

}  // namespace pacer_demo
