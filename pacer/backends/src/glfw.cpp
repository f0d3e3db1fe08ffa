// glfw.cpp: pacer::glfw::Host (pacer/backends/glfw.h).
#include <pacer/backends/glfw.h>
#include <pacer/status.h>

#include <dlfcn.h>

#include <GLFW/glfw3.h>

namespace pacer::glfw {
namespace {

// Debian builds GLFW 3.3 for X11 (libglfw3) or for Wayland (libglfw3-wayland),
// with one soname; only the Wayland build has these two functions. Looked up
// at run time, they say which build is loaded and give the handles for
// present feedback, whichever build the program was linked against.
struct WaylandApi {
    void* (*display)() = nullptr;                    // glfwGetWaylandDisplay
    void* (*window)(GLFWwindow* window) = nullptr;   // glfwGetWaylandWindow
};

WaylandApi wayland_api() {
    WaylandApi api;
    api.display = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "glfwGetWaylandDisplay"));
    api.window = reinterpret_cast<void* (*)(GLFWwindow*)>(dlsym(RTLD_DEFAULT, "glfwGetWaylandWindow"));
    if (api.display == nullptr || api.window == nullptr) return {};
    return api;
}

// The monitor holding the window's centre, else null (GLFW on Wayland cannot
// place windows, and glfwGetWindowPos reports an error there).
GLFWmonitor* monitor_under(GLFWwindow* window) {
    int x = 0, y = 0, width = 0, height = 0;
    glfwGetWindowPos(window, &x, &y);
    glfwGetWindowSize(window, &width, &height);
    const int cx = x + width / 2, cy = y + height / 2;
    int count = 0;
    GLFWmonitor** monitors = glfwGetMonitors(&count);
    for (int i = 0; i < count; ++i) {
        int mx = 0, my = 0;
        glfwGetMonitorPos(monitors[i], &mx, &my);
        const GLFWvidmode* mode = glfwGetVideoMode(monitors[i]);
        if (mode != nullptr && cx >= mx && cx < mx + mode->width && cy >= my && cy < my + mode->height)
            return monitors[i];
    }
    return nullptr;
}

}  // namespace

Host::Host(GLFWwindow* window) : window_(window) {
    const WaylandApi api = wayland_api();
    wayland_ = api.display != nullptr && api.display() != nullptr;
    open_feedback(wayland_ ? api.display() : nullptr, wayland_ ? api.window(window) : nullptr);
}

Host::~Host() = default;

// glfwSwapInterval returns nothing and silently does nothing without a
// swap-control extension, and reports a failure through the error callback,
// which belongs to the program. So: refused where the extension is missing,
// otherwise "requested, cannot confirm". On Wayland it is eglSwapInterval,
// core EGL, which has no adaptive mode.
bool Host::set_swap_interval(int interval) {
    using backends::SwapAnswer;
    if (wayland_) {
        if (interval < 0) return record_swap(interval, SwapAnswer::Refused);
        glfwSwapInterval(interval);
        return record_swap(interval, SwapAnswer::Unconfirmed);
    }
    const bool control = glfwExtensionSupported("GLX_EXT_swap_control") ||
                         glfwExtensionSupported("GLX_MESA_swap_control") ||
                         glfwExtensionSupported("GLX_SGI_swap_control") ||
                         glfwExtensionSupported("WGL_EXT_swap_control");
    const bool tear = glfwExtensionSupported("GLX_EXT_swap_control_tear") ||
                      glfwExtensionSupported("WGL_EXT_swap_control_tear");
    if (!control || (interval < 0 && !tear)) return record_swap(interval, SwapAnswer::Refused);
    glfwSwapInterval(interval);
    return record_swap(interval, SwapAnswer::Unconfirmed);
}

double Host::refresh_rate_hz() {
    GLFWmonitor* monitor = glfwGetWindowMonitor(window_);   // full screen
    if (monitor == nullptr && !wayland_) monitor = monitor_under(window_);
    if (monitor == nullptr) monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
    return mode != nullptr && mode->refreshRate > 0 ? mode->refreshRate : 0;
}

bool Host::gl_context_current() const { return glfwGetCurrentContext() != nullptr; }

void* Host::gl_function(const char* name) const { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

void Host::swap_buffers() { glfwSwapBuffers(window_); }

}  // namespace pacer::glfw
