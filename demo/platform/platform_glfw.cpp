// platform_glfw.cpp: the Platform on GLFW, with Dear ImGui's GLFW backend.
#include <dlfcn.h>

#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>

#include "platform/window.h"

namespace pacer_demo {
namespace {

// GLFW reports errors through a callback, not return values; the latest one
// is kept here to turn calls into answers. GLFW is used by one thread.
std::string g_last_glfw_error;

void on_glfw_error(int code, const char* description) {
    g_last_glfw_error = "GLFW error " + std::to_string(code) + ": " + description;
}

// Debian builds GLFW 3.3 for X11 or for Wayland, and the demo links the X11
// build (libglfw3-dev). The Wayland build, put first on LD_LIBRARY_PATH
// (tools/wayland.sh glfw-wayland), has the same soname plus these two
// functions: looked up at run time, they say which build is loaded and give
// the handles for present feedback.
struct GlfwWayland {
    void* (*display)() = nullptr;                  // glfwGetWaylandDisplay
    void* (*window)(GLFWwindow* window) = nullptr;   // glfwGetWaylandWindow
};

GlfwWayland glfw_wayland() {
    GlfwWayland api;
    api.display = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "glfwGetWaylandDisplay"));
    api.window = reinterpret_cast<void* (*)(GLFWwindow*)>(dlsym(RTLD_DEFAULT, "glfwGetWaylandWindow"));
    if (api.display == nullptr || api.window == nullptr) return {};
    return api;
}

class GlfwPlatform final : public Platform {
public:
    ~GlfwPlatform() override {
        close_present_feedback_();
        if (window_ != nullptr) glfwDestroyWindow(window_);
        if (initialised_) glfwTerminate();
    }

    bool open(const WindowConfig& config, std::string* error) {
        glfwSetErrorCallback(on_glfw_error);
        g_last_glfw_error.clear();
        if (glfwInit() != GLFW_TRUE) {
            *error = "glfwInit: " + g_last_glfw_error;
            return false;
        }
        initialised_ = true;
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_DOUBLEBUFFER, GLFW_TRUE);
        window_ = glfwCreateWindow(config.width, config.height, config.title, nullptr, nullptr);
        if (window_ == nullptr) {
            *error = "glfwCreateWindow (OpenGL 3.3 core): " + g_last_glfw_error;
            return false;
        }
        glfwMakeContextCurrent(window_);
        const GlfwWayland wayland = glfw_wayland();
        wayland_ = wayland.display != nullptr && wayland.display() != nullptr;
        open_present_feedback_(wayland_ ? wayland.display() : nullptr,
                               wayland_ ? wayland.window(window_) : nullptr);
        return true;
    }

    Backend backend() const override { return Backend::Glfw; }
    void* gl_proc_address(const char* name) override {
        return reinterpret_cast<void*>(glfwGetProcAddress(name));
    }

    void poll_events() override {
        glfwPollEvents();   // ImGui's GLFW backend installed its callbacks
        if (glfwGetKey(window_, GLFW_KEY_ESCAPE) == GLFW_PRESS) {
            glfwSetWindowShouldClose(window_, GLFW_TRUE);
        }
    }
    bool should_close() const override {
        return glfwWindowShouldClose(window_) == GLFW_TRUE || close_signal() != 0;
    }
    void framebuffer_size(int* width, int* height) const override {
        glfwGetFramebufferSize(window_, width, height);
    }

    void swap(int64_t frame_index) override {
        request_presented_(frame_index);
        glfwSwapBuffers(window_);
        last_swap_return_ns_ = clock_.now_ns();
    }

    double refresh_rate_hz() override {
        GLFWmonitor* monitor = glfwGetWindowMonitor(window_);   // fullscreen only
        if (monitor == nullptr) monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
        return mode != nullptr && mode->refreshRate > 0 ? mode->refreshRate : 0;
    }

    void imgui_init() override {
        ImGui_ImplGlfw_InitForOpenGL(window_, true);
        imgui_ready_ = true;
    }
    void imgui_new_frame() override { ImGui_ImplGlfw_NewFrame(); }
    void imgui_shutdown() override {
        if (imgui_ready_) ImGui_ImplGlfw_Shutdown();
        imgui_ready_ = false;
    }

protected:
    // glfwSwapInterval returns nothing and silently does nothing without a
    // swap-control extension. So: refused when the extension is missing (the
    // tear extension for adaptive), otherwise "requested, cannot confirm".
    // On Wayland it calls eglSwapInterval, core EGL, which has no adaptive
    // mode.
    SwapAnswer request_swap_interval_(int interval) override {
        if (wayland_) {
            if (interval < 0) return SwapAnswer::Refused;
            g_last_glfw_error.clear();
            glfwSwapInterval(interval);
            return g_last_glfw_error.empty() ? SwapAnswer::Unconfirmed : SwapAnswer::Refused;
        }
        bool control = glfwExtensionSupported("GLX_EXT_swap_control") ||
                       glfwExtensionSupported("GLX_MESA_swap_control") ||
                       glfwExtensionSupported("GLX_SGI_swap_control") ||
                       glfwExtensionSupported("WGL_EXT_swap_control");
        bool tear = glfwExtensionSupported("GLX_EXT_swap_control_tear") ||
                    glfwExtensionSupported("WGL_EXT_swap_control_tear");
        if (!control || (interval < 0 && !tear)) return SwapAnswer::Refused;
        g_last_glfw_error.clear();
        glfwSwapInterval(interval);
        return g_last_glfw_error.empty() ? SwapAnswer::Unconfirmed : SwapAnswer::Refused;
    }

private:
    GLFWwindow* window_ = nullptr;
    pacer::OsClock clock_;
    bool initialised_ = false;
    bool imgui_ready_ = false;
    bool wayland_ = false;   // the Wayland build of GLFW is loaded
};

}  // namespace

std::unique_ptr<Platform> create_glfw_platform(const WindowConfig& config, std::string* error) {
    auto platform = std::make_unique<GlfwPlatform>();
    if (!platform->open(config, error)) return nullptr;
    return platform;
}

}  // namespace pacer_demo
