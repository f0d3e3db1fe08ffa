// sdl2_syswm.cpp: the wl_display and wl_surface of an SDL2 window under
// SDL's Wayland driver (SDL_VIDEODRIVER=wayland), for present feedback.
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

}  // namespace pacer::sdl2
