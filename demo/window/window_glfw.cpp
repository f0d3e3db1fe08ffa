// window_glfw.cpp: the Window on GLFW, with Dear ImGui's GLFW backend.
#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>
#include <pacer/backends/glfw.h>

#include "window/display_server.h"
#include "window/wayland_seat.h"
#include "window/window.h"

#include <dlfcn.h>

#include <string>

namespace pacer_demo {
namespace {

// GLFW reports errors through a callback, not return values; the latest one
// is kept here to turn calls into answers. GLFW is used by one thread.
std::string g_last_glfw_error;

void on_glfw_error(int code, const char* description) {
    g_last_glfw_error = "GLFW error " + std::to_string(code) + ": " + description;
}

class GlfwWindow final : public Window {
public:
    ~GlfwWindow() override {
        host_.reset();   // before the window and the display connection go
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
        host_ = std::make_unique<pacer::glfw::Host>(window_);
        host_->on_presented(keep_report, this);
        display_server_ = display_server_name(host_->on_wayland());
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
        host_->before_swap(frame_index);
        last_swap_call_ns_ = clock_.now_ns();
        glfwSwapBuffers(window_);
        last_swap_return_ns_ = clock_.now_ns();
    }

    pacer::Host& host() override { return *host_; }
    SwapIntervalState swap_interval_state() const override { return host_->swap_interval(); }
    std::string present_feedback_source() const override { return host_->present_feedback(); }
    bool display_lost() const override { return host_->display_connection_lost(); }

    std::string overlay_unavailable() const override {
        // GLFW 3.3 on a Wayland seat without a pointer cannot make the
        // cursors Dear ImGui's GLFW backend asks for at its init (wayland_seat.h).
        if (!host_->on_wayland()) return {};
        using DisplayOf = void* (*)();
        const auto display = reinterpret_cast<DisplayOf>(dlsym(RTLD_DEFAULT, "glfwGetWaylandDisplay"));
        if (display == nullptr || wayland_seat_has_pointer(display())) return {};
        return "the compositor's seat has no pointer, and GLFW 3.3 on Wayland then cannot make the cursors "
               "Dear ImGui asks for (--no-overlay runs without it; SDL2 has no such limit)";
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

private:
    GLFWwindow* window_ = nullptr;
    std::unique_ptr<pacer::glfw::Host> host_;
    pacer::OsClock clock_;
    bool initialised_ = false;
    bool imgui_ready_ = false;
};

}  // namespace

std::unique_ptr<Window> create_glfw_window(const WindowConfig& config, std::string* error) {
    auto window = std::make_unique<GlfwWindow>();
    if (!window->open(config, error)) return nullptr;
    return window;
}

}  // namespace pacer_demo
