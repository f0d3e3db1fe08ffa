// wayland_seat.h: whether a Wayland compositor's seat has a pointer, asked
// on the window's own connection (a private event queue, so the window
// system's events are left alone).
//
// GLFW 3.3's Wayland build loads its cursor theme only where the seat had a
// pointer when glfwInit ran; without one, glfwCreateStandardCursor (which
// Dear ImGui's GLFW backend calls for every cursor at its init) dereferences
// the missing theme. GNOME's mutter run headless has no pointer. The demo
// asks first, and goes without its overlay there (window_glfw.cpp).
#pragma once

namespace pacer_demo {

// display: a wl_display*. True where the seat has a pointer, and wherever
// it cannot tell (no display, no answer, a build without Wayland).
bool wayland_seat_has_pointer(void* display);

}  // namespace pacer_demo
