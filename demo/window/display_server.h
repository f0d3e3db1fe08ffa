// display_server.h: which program serves the demo's window, for the summary
// and the overlay: the Wayland compositor ("mutter", "kwin_wayland",
// "weston", "sway"), or the X server and, where another program started it,
// that one too ("Xwayland (mutter)", "Xvfb"). Pacing differs by compositor
// (docs/wayland.md), so a run says which it met.
//
// Read from the peer of a new connection to the server's socket
// (SO_PEERCRED) and /proc: no protocol is spoken. display_server_linux.cpp;
// elsewhere (display_server_other.cpp) and where the socket does not answer,
// "".
#pragma once

#include <string>

namespace pacer_demo {

// wayland: the compositor at $WAYLAND_DISPLAY (in $XDG_RUNTIME_DIR unless
// absolute; default wayland-0); else the X server of $DISPLAY.
std::string display_server_name(bool wayland);

}  // namespace pacer_demo
