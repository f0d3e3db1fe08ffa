// window_create.cpp: Window::create, the one place that knows every
// backend (kept apart so that code using only the interface, such as the
// tests' fake window, links without SDL or GLFW).
#include "window/window.h"

namespace pacer_demo {

std::unique_ptr<Window> Window::create(Backend backend, const WindowConfig& config,
                                           std::string* error) {
    install_close_signal_handlers();
    WindowConfig resolved = config;
    if (resolved.title == nullptr) resolved.title = "pacer demo";
    if (resolved.width <= 0) resolved.width = 1280;
    if (resolved.height <= 0) resolved.height = 720;
    return backend == Backend::Glfw ? create_glfw_window(resolved, error)
                                    : create_sdl2_window(resolved, error);
}

}  // namespace pacer_demo
