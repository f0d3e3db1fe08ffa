// pacer/backends/x11.h: the display's refresh clock and each frame's fate on
// an X11 window, from the X server's Present extension (target pacer::x11;
// libxcb and libxcb-present, found at run time: nothing links against them).
//
// For an engine that owns its X11 window (Xlib or XCB, with GL or Vulkan):
// its own pacer::Host calls request() right before each present of the
// window, sent() right after it returns, and hands take()'s reports to
// Host::take_presented. The GLFW and SDL2 backends (glfw.h, sdl2.h) and
// pacer-run do this themselves for a window on X11.
//
// What it does: opens a connection of its own to the server, so that
// nothing it asks can raise an error in the program's own connection, and
// selects the window's CompleteNotify events there. It keeps a few
// PresentNotifyMSC requests ahead of the window's refresh counter (MSC), one
// request a refresh and no round trip, and reads the answers without
// blocking: the refresh ticks, each MSC with its time (UST). A frame's fate
// comes from the program's own PresentPixmap completions where it presents
// that way (Mesa's DRI3 GL and Vulkan on a GPU), else from the ticks: an
// image put on the window (Mesa's software drivers, servers without DRI3)
// counts as shown at the first tick after it was sent. Times are on
// CLOCK_MONOTONIC, pacer::OsClock's timeline, as the server's UST is.
//
// What the ticks are worth depends on the server: Xorg dates them at the
// display's vblank (kPresentedHwClock); Xwayland at the compositor's frame
// callbacks, and Xvfb on a software timer (16.3 or 17.3 ms apart at 60 Hz),
// both dated in software (docs/x11.md). It never owns the window, never
// blocks after open(), and never throws.
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pacer::x11 {

class PresentFeedback {
public:
    // The server named display_name (as XDisplayString gives it; null: the
    // DISPLAY variable) and the X window frames are presented to (not a
    // GLXWindow's or a pixmap's XID). nullptr and one line in *why (if given)
    // where there is nothing to have: no libxcb-present, no server, no
    // Present extension, no such window.
    static std::unique_ptr<PresentFeedback> open(const char* display_name, uint32_t window,
                                                 std::string* why = nullptr);
    ~PresentFeedback();   // closes its connection (not in a child forked since: the parent's)
    PresentFeedback(const PresentFeedback&) = delete;
    PresentFeedback& operator=(const PresentFeedback&) = delete;

    // Frame frame_index (pacer::Frame::index) is about to be presented.
    void request(int64_t frame_index);
    // Its present returned: the image is with the server. Optional; dates the
    // image more closely where the present itself takes a while.
    void sent();
    // The oldest frame whose fate is known; false when none is waiting.
    bool take(Presented* out);

    // "X Present 1.2 on Xwayland: the compositor's frame clock, dated in software"
    const char* describe() const;
    // Whether the ticks are dated at the display's own vblank (Xorg with a GPU).
    bool hardware_clock() const;
    // Whether the window is gone or the connection broke: nothing more comes.
    bool lost() const;
    // Whether frames are told by the program's own PresentPixmap completions
    // (from the first one heard), rather than by the ticks after their images.
    bool by_completions() const;
    // What it cost since open(), for docs/x11.md: requests sent (after the
    // open's), events read, round trips (the open's only).
    struct Counts {
        int64_t requests = 0, events = 0, ticks = 0, round_trips = 0;
    };
    Counts counts() const;

private:
    struct Impl;
    explicit PresentFeedback(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pacer::x11
