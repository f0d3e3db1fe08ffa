// wayland_seat_other.cpp: wayland_seat.h where the demo is built without
// Wayland: nothing to ask.
#include "window/wayland_seat.h"

namespace pacer_demo {

bool wayland_seat_has_pointer(void*) { return true; }

}  // namespace pacer_demo
