// present_source.h: the window's present feedback behind WindowHost
// (pacer/backends/window_host.h), internal to pacer_backend_support:
// wp_presentation where the window is on Wayland and pacer was built with it
// (present_source_wayland.cpp, else present_source_wayland_none.cpp), X11's
// Present extension where it is on X11 and pacer was built with XCB's
// headers (present_source_x11.cpp, else present_source_x11_none.cpp).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pacer::backends::detail {

class PresentSource {
public:
    virtual ~PresentSource() = default;
    virtual void request(int64_t frame_index) = 0;   // right before the swap
    virtual void sent() {}                            // right after it returned
    virtual bool take(Presented* out) = 0;
    virtual std::string describe() const = 0;   // "wp_presentation, clock CLOCK_MONOTONIC"
    virtual const char* clock_name() const = 0;  // "wp_presentation", "X Present" (Host::present_clock_name)
};

// wl_display and wl_surface may be null (not on Wayland). nullptr and *why
// when there is no feedback.
std::unique_ptr<PresentSource> open_present_source(void* wl_display, void* wl_surface, std::string* why);
// Whether the connection of wl_display (null: not on Wayland) has failed:
// the compositor died or closed the client. False without Wayland.
bool display_connection_broken(void* wl_display);
// An X11 window's: xlib_display is the program's Xlib Display* (its server's
// name is read with XDisplayString), null for $DISPLAY; window an X window.
// nullptr and *why when there is no feedback.
std::unique_ptr<PresentSource> open_x11_present_source(void* xlib_display, unsigned long window, std::string* why);

}  // namespace pacer::backends::detail
