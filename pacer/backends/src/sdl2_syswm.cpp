// sdl2_syswm.cpp: the wl_display and wl_surface of an SDL2 window under
// SDL's Wayland driver (SDL_VIDEODRIVER=wayland), for present feedback, and
// its X11 Display and Window elsewhere, for variable refresh.
#include <SDL.h>
#include <SDL_syswm.h>

#include <cstring>

namespace pacer::sdl2 {

// false, and both left as they are, when the window is not on Wayland.
bool wayland_handles(SDL_Window* window, void** display, void** surface) {
#if defined(SDL_VIDEO_DRIVER_WAYLAND)
    const char* driver = SDL_GetCurrentVideoDriver();
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (driver == nullptr || std::strcmp(driver, "wayland") != 0 || !SDL_GetWindowWMInfo(window, &info) ||
        info.subsystem != SDL_SYSWM_WAYLAND) {
        return false;
    }
    *display = info.info.wl.display;
    *surface = info.info.wl.surface;
    return true;
#else
    (void)window;
    (void)display;
    (void)surface;
    return false;   // an SDL built without its Wayland driver
#endif
}

// false, and both left as they are, when the window is not on X11.
bool x11_handles(SDL_Window* window, void** display, unsigned long* x11_window) {
#if defined(SDL_VIDEO_DRIVER_X11)
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(window, &info) || info.subsystem != SDL_SYSWM_X11) return false;
    *display = info.info.x11.display;
    *x11_window = info.info.x11.window;
    return true;
#else
    (void)window;
    (void)display;
    (void)x11_window;
    return false;
#endif
}

}  // namespace pacer::sdl2
