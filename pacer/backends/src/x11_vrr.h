// x11_vrr.h: whether an X11 window's display waits for frames (VRR), for the
// GLFW and SDL2 Hosts. Apart from window_host.cpp because Xlib's headers
// bring macros (None, Status, Bool) into whatever includes them.
#pragma once

#include <pacer/host.h>

namespace pacer::backends::detail {

// True, with *out, where Mesa enabled variable refresh for the window (its
// _VARIABLE_REFRESH property is 1) and the RandR output under the window's
// centre says vrr_capable; the range from that output's EDID where it states
// one (else max 0: the stated refresh). display is an Xlib Display*, window
// its Window. libX11 and libXrandr are looked up at run time (the window
// system has them loaded), so nothing links against them; false where either
// is missing, or on another window system.
bool x11_variable_refresh(void* display, unsigned long window, VrrRange* out);

}  // namespace pacer::backends::detail
