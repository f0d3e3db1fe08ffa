// sdl2.cpp: pacer::sdl2::Host (pacer/backends/sdl2.h).
#include <pacer/backends/sdl2.h>

#include <SDL.h>

namespace pacer::sdl2 {

// sdl2_syswm.cpp, apart because SDL_syswm.h brings Xlib's macros.
bool wayland_handles(SDL_Window* window, void** display, void** surface);
bool x11_handles(SDL_Window* window, void** display, unsigned long* x11_window);

Host::Host(SDL_Window* window) : window_(window) {
    void* display = nullptr;
    void* surface = nullptr;
    wayland_handles(window, &display, &surface);
    open_feedback(display, surface);
    unsigned long x11_window = 0;
    if (x11_handles(window, &display, &x11_window)) open_x11(display, x11_window);
}

Host::~Host() = default;

// SDL_GL_SetSwapInterval returns 0 when the driver took it; -1 (adaptive)
// fails where late swap tearing is unsupported.
bool Host::set_swap_interval(int interval) {
    const bool taken = SDL_GL_SetSwapInterval(interval) == 0;
    return record_swap(interval, taken ? backends::SwapAnswer::Accepted : backends::SwapAnswer::Refused);
}

double Host::refresh_rate_hz() {
    SDL_DisplayMode mode{};
    const int display = SDL_GetWindowDisplayIndex(window_);
    if (display < 0 || SDL_GetCurrentDisplayMode(display, &mode) != 0) return 0;
    return mode.refresh_rate > 0 ? mode.refresh_rate : 0;   // SDL: 0 means unspecified
}

// SDL keeps them from the window system's events, which the engine pumps.
backends::WindowHost::WindowFlags Host::window_flags() const {
    const Uint32 flags = SDL_GetWindowFlags(window_);
    WindowFlags out;
    out.hidden = (flags & (SDL_WINDOW_HIDDEN | SDL_WINDOW_MINIMIZED)) != 0;
    out.focused = (flags & SDL_WINDOW_INPUT_FOCUS) != 0;
    return out;
}

bool Host::gl_context_current() const { return SDL_GL_GetCurrentContext() != nullptr; }

void* Host::gl_function(const char* name) const { return SDL_GL_GetProcAddress(name); }

void Host::swap_buffers() { SDL_GL_SwapWindow(window_); }

}  // namespace pacer::sdl2
