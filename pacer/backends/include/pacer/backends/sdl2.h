// pacer/backends/sdl2.h: a pacer::Host for an SDL2 window (target pacer::sdl2,
// pkg-config pacer-sdl2). With it, vsync, auto and display_lock work:
//
//   pacer::sdl2::Host host(window);           // its GL context current here
//   config.strategy = pacer::Strategy::Auto;
//   config.host = &host;
//   ...
//   pacer::Frame frame = pacer.wait();  draw();
//   host.before_swap(frame.index);  SDL_GL_SwapWindow(window);  pacer.mark_present();
//
// What it does:
// - the swap interval, with SDL_GL_SetSwapInterval on the current context:
//   Accepted when SDL returns 0, else Refused (Xvfb refuses every interval;
//   adaptive, -1, where late swap tearing is missing).
// - the refresh rate of the display the window is on; 0 when SDL does not
//   know it.
// - under SDL's Wayland driver (SDL_VIDEODRIVER=wayland), the frames the
//   compositor reports shown (wp_presentation), for display_lock and auto.
//   pacer must be built with Wayland (pacer::wayland).
// Destroy it before the window: it holds the window's feedback objects.
// What it does not: X11 has no present feedback. It never owns the window,
// handles no events, and never throws. One thread: the window's.
#pragma once

#include <pacer/backends/swap_interval.h>
#include <pacer/pacer.h>

#include <cstdint>
#include <memory>

struct SDL_Window;

namespace pacer::sdl2 {

class Host final : public pacer::Host {
public:
    explicit Host(SDL_Window* window);
    ~Host() override;
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    // Right before SDL_GL_SwapWindow, with the index of the frame it shows.
    void before_swap(int64_t frame_index);

    // pacer::Host
    bool set_swap_interval(int interval) override;
    double refresh_rate_hz() override;
    bool take_presented(Presented* out) override;

    // The last request and what SDL said; where the shown frames come from,
    // or why none do.
    backends::SwapIntervalState swap_interval() const;
    const char* present_feedback() const;
    // Sees each report the pacer pulls (for a trace); nullptr: none.
    void on_presented(backends::PresentedCallback callback, void* user);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pacer::sdl2
