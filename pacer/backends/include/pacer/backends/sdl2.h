// pacer/backends/sdl2.h: a pacer::Host for an SDL2 window (target pacer::sdl2,
// pkg-config pacer-sdl2). With it, vsync, auto and display_lock work, and
// every strategy presents on time:
//
//   pacer::sdl2::Host host(window);           // its GL context current here
//   config.strategy = pacer::Strategy::Auto;
//   config.host = &host;
//   ...
//   draw();  pacer::Frame frame = pacer.wait();   // the GL work finished, then the deadline
//   host.present(pacer, frame);                // SDL_GL_SwapWindow, and when it is shown
//
// What it does:
// - before a before_present wait, the frame's GL work finished (finish_gpu,
//   window_host.h), so that the swap after the deadline presents at once.
// - the swap interval, with SDL_GL_SetSwapInterval on the current context:
//   Accepted when SDL returns 0, else Refused (Xvfb refuses every interval;
//   adaptive, -1, where late swap tearing is missing).
// - the refresh rate of the display the window is on; 0 when SDL does not
//   know it.
// - under SDL's Wayland driver (SDL_VIDEODRIVER=wayland), the frames the
//   compositor reports shown (wp_presentation), for display_lock and auto.
//   pacer must be built with Wayland (pacer::wayland).
// - on X11, the X server's refresh ticks and each frame's fate from its
//   Present extension, asked on a connection of pacer's own (pacer::x11,
//   built where XCB's Present headers are found; docs/x11.md).
// - the window's state for Config::background_hz and hidden_hz
//   (SDL_GetWindowFlags: hidden or minimized; unfocused once it had the
//   input focus and lost it: SDL keeps the flags from the events the engine
//   pumps), and on X11 whether its display waits for frames (VRR: Mesa's
//   _VARIABLE_REFRESH, RandR's vrr_capable, the EDID).
// Destroy it before the window: it holds the window's feedback objects.
// What it does not: it never owns the window,
// handles no events, and never throws. One thread: the window's.
#pragma once

#include <pacer/backends/window_host.h>

struct SDL_Window;

namespace pacer::sdl2 {

class Host final : public backends::WindowHost {
public:
    explicit Host(SDL_Window* window);
    ~Host() override;

    // pacer::Host (present, take_presented and the rest: window_host.h)
    bool set_swap_interval(int interval) override;
    double refresh_rate_hz() override;

private:
    WindowFlags window_flags() const override;
    bool gl_context_current() const override;
    void* gl_function(const char* name) const override;
    void swap_buffers() override;
    SDL_Window* window_;
};

}  // namespace pacer::sdl2
