// sdl2.cpp: pacer::sdl2::Host (pacer/backends/sdl2.h).
#include <pacer/backends/sdl2.h>

#include <SDL.h>

#include "host_support.h"

namespace pacer::sdl2 {

// sdl2_syswm.cpp, apart because SDL_syswm.h brings Xlib's macros.
bool wayland_handles(SDL_Window* window, void** display, void** surface);

struct Host::Impl {
    SDL_Window* window;
    backends::detail::HostSupport support;
};

Host::Host(SDL_Window* window) : impl_(std::make_unique<Impl>()) {
    impl_->window = window;
    void* display = nullptr;
    void* surface = nullptr;
    wayland_handles(window, &display, &surface);
    impl_->support.open_feedback(display, surface);
}

Host::~Host() = default;

void Host::before_swap(int64_t frame_index) { impl_->support.before_swap(frame_index); }

// SDL_GL_SetSwapInterval returns 0 when the driver took it; -1 (adaptive)
// fails where late swap tearing is unsupported.
bool Host::set_swap_interval(int interval) {
    const bool taken = SDL_GL_SetSwapInterval(interval) == 0;
    return impl_->support.record_swap(interval, taken ? backends::SwapAnswer::Accepted : backends::SwapAnswer::Refused);
}

double Host::refresh_rate_hz() {
    SDL_DisplayMode mode{};
    const int display = SDL_GetWindowDisplayIndex(impl_->window);
    if (display < 0 || SDL_GetCurrentDisplayMode(display, &mode) != 0) return 0;
    return mode.refresh_rate > 0 ? mode.refresh_rate : 0;   // SDL: 0 means unspecified
}

bool Host::take_presented(Presented* out) { return impl_->support.take_presented(out); }

backends::SwapIntervalState Host::swap_interval() const { return impl_->support.swap_interval(); }
const char* Host::present_feedback() const { return impl_->support.present_feedback(); }
void Host::on_presented(backends::PresentedCallback callback, void* user) {
    impl_->support.on_presented(callback, user);
}

}  // namespace pacer::sdl2
