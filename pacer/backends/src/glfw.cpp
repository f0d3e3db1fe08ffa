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

// The X11 build's handles, found the same way (absent from the Wayland build).
struct X11Api {
    void* (*display)() = nullptr;                           // glfwGetX11Display
    unsigned long (*window)(GLFWwindow* window) = nullptr;   // glfwGetX11Window
};

X11Api x11_api() {
    X11Api api;
    api.display = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "glfwGetX11Display"));
    api.window = reinterpret_cast<unsigned long (*)(GLFWwindow*)>(dlsym(RTLD_DEFAULT, "glfwGetX11Window"));
    if (api.display == nullptr || api.window == nullptr) return {};
    return api;
}

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

// The refresh of the window's monitor: its own when full screen, else the
// one under its centre (the primary on Wayland, which cannot place windows).
double refresh_of(GLFWwindow* window, bool wayland) {
    GLFWmonitor* monitor = glfwGetWindowMonitor(window);   // full screen
    if (monitor == nullptr && !wayland) monitor = monitor_under(window);
    if (monitor == nullptr) monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
    return mode != nullptr && mode->refreshRate > 0 ? mode->refreshRate : 0;
}

}  // namespace

backends::NativeWindow native_window(GLFWwindow* window) {
    backends::NativeWindow native;
    const WaylandApi wayland = wayland_api();
    if (wayland.display != nullptr && wayland.display() != nullptr) {
        native.wl_display = wayland.display();
        native.wl_surface = wayland.window(window);
    } else if (const X11Api x11 = x11_api(); x11.display != nullptr && x11.display() != nullptr) {
        native.x11_display = x11.display();
        native.x11_window = x11.window(window);
    }
    native.refresh_hz = refresh_of(window, native.wl_display != nullptr);
    return native;
}

Host::Host(GLFWwindow* window) : window_(window) {
    const backends::NativeWindow native = native_window(window);
    wayland_ = native.wl_display != nullptr;
    open_window(native);
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

double Host::refresh_rate_hz() { return refresh_of(window_, wayland_); }

// GLFW reads each from the window system: iconified (X11: WM_STATE),
// visible (mapped), focused (the input focus; Wayland: the keyboard).
backends::WindowHost::WindowFlags Host::window_flags() const {
    WindowFlags flags;
    flags.hidden = glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0 || glfwGetWindowAttrib(window_, GLFW_VISIBLE) == 0;
    flags.focused = glfwGetWindowAttrib(window_, GLFW_FOCUSED) != 0;
    return flags;
}

bool Host::gl_context_current() const { return glfwGetCurrentContext() != nullptr; }

void* Host::gl_function(const char* name) const { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

void Host::swap_buffers() { glfwSwapBuffers(window_); }

}  // namespace pacer::glfw
