// platform_create.cpp: Platform::create, the one place that knows every
// backend (kept apart so that code using only the interface, such as the
// tests' fake platform, links without SDL or GLFW).
#include "platform/window.h"

namespace pacer_demo {

std::unique_ptr<Platform> Platform::create(Backend backend, const WindowConfig& config,
                                           std::string* error) {
    install_close_signal_handlers();
    WindowConfig resolved = config;
    if (resolved.title == nullptr) resolved.title = "pacer demo";
    if (resolved.width <= 0) resolved.width = 1280;
    if (resolved.height <= 0) resolved.height = 720;
    return backend == Backend::Glfw ? create_glfw_platform(resolved, error)
                                    : create_sdl2_platform(resolved, error);
}

}  // namespace pacer_demo
