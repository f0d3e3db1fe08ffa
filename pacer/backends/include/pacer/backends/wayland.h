// pacer/backends/wayland.h: when each frame really reached the screen, from
// Wayland's wp_presentation (target pacer::wayland; libwayland-client).
//
// For an engine that owns its wl_surface (EGL or Vulkan on Wayland): its own
// pacer::Host calls request() right before each commit of the surface
// (eglSwapBuffers, vkQueuePresentKHR, wl_surface_commit) and returns take()
// from Host::take_presented. The GLFW and SDL2 backends (glfw.h, sdl2.h) do
// this themselves when their window is on Wayland.
//
// What it does: binds wp_presentation on an event queue of its own, so it
// never dispatches the window system's events nor they its; reads the
// socket without blocking; gives each frame's fate once (shown, with the time
// on CLOCK_MONOTONIC, pacer::OsClock's timeline, the refresh and the
// sequence; or discarded). What it does not: compositors that never report
// (sway 1.7 sends every frame discarded) look like that here too; X11's
// counterpart is the Present extension (pacer/backends/x11.h). It never
// owns the display or the surface, and never throws.
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <memory>
#include <string>

struct wl_display;
struct wl_surface;

namespace pacer::wayland {

class PresentFeedback {
public:
    // nullptr and one line in *why (if given) when there is nothing to have:
    // a null display or surface, or a compositor without wp_presentation.
    static std::unique_ptr<PresentFeedback> open(wl_display* display, wl_surface* surface,
                                                 std::string* why = nullptr);
    ~PresentFeedback();
    PresentFeedback(const PresentFeedback&) = delete;
    PresentFeedback& operator=(const PresentFeedback&) = delete;

    // Asks for the fate of the surface's next commit, which shows frame_index
    // (pacer::Frame::index). Call it right before that commit.
    void request(int64_t frame_index);
    // The oldest frame whose fate has arrived; false when none is waiting.
    bool take(Presented* out);
    // The compositor's presentation clock, e.g. "CLOCK_MONOTONIC_RAW" (its
    // times are mapped onto CLOCK_MONOTONIC).
    const char* clock_name() const;

private:
    struct Impl;
    explicit PresentFeedback(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pacer::wayland
