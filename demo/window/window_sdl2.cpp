// window_sdl2.cpp: the Window on SDL2, with Dear ImGui's SDL2 backend.
#include <SDL.h>
#include <imgui_impl_sdl.h>
#include <pacer/backends/sdl2.h>

#include "window/display_server.h"
#include "window/window.h"

namespace pacer_demo {
namespace {

class Sdl2Window final : public Window {
public:
    ~Sdl2Window() override {
        host_.reset();   // before the window and the display connection go
        if (context_ != nullptr) SDL_GL_DeleteContext(context_);
        if (window_ != nullptr) SDL_DestroyWindow(window_);
        SDL_Quit();
    }

    bool open(const WindowConfig& config, std::string* error) {
        // SDL's handlers would turn SIGINT and SIGTERM into SDL_QUIT; the
        // demo handles them itself, alike on both backends (window.h).
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            *error = std::string("SDL_Init: ") + SDL_GetError();
            return false;
        }
        // Where neither X11 nor Wayland answers, SDL falls back to a driver
        // that shows nothing (offscreen, KMS/DRM on a console): a run nobody
        // sees. Only where asked for by name (SDL_VIDEODRIVER).
        const char* driver = SDL_GetCurrentVideoDriver();
        const std::string chosen = driver != nullptr ? driver : "";
        const char* asked = SDL_getenv("SDL_VIDEODRIVER");
        if (chosen != "x11" && chosen != "wayland" && (asked == nullptr || chosen != asked)) {
            auto env = [](const char* name) {
                const char* value = SDL_getenv(name);
                return std::string(name) + " " + (value != nullptr ? value : "unset");
            };
            *error = "SDL found no display (" + env("DISPLAY") + ", " + env("WAYLAND_DISPLAY") + ") and chose its '" +
                     chosen + "' driver; run under tools/headless.sh, or set SDL_VIDEODRIVER=" + chosen +
                     " to run there";
            return false;
        }
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
        SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
        window_ = SDL_CreateWindow(config.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                   config.width, config.height,
                                   SDL_WINDOW_OPENGL);
        if (window_ == nullptr) {
            *error = std::string("SDL_CreateWindow: ") + SDL_GetError();
            return false;
        }
        context_ = SDL_GL_CreateContext(window_);
        if (context_ == nullptr) {
            *error = std::string("SDL_GL_CreateContext (OpenGL 3.3 core): ") + SDL_GetError();
            return false;
        }
        SDL_GL_MakeCurrent(window_, context_);
        host_ = std::make_unique<pacer::sdl2::Host>(window_);
        host_->on_presented(keep_report, this);
        display_server_ = display_server_name(host_->on_wayland());
        return true;
    }

    Backend backend() const override { return Backend::Sdl2; }
    void* gl_proc_address(const char* name) override { return SDL_GL_GetProcAddress(name); }

    // Drains the queue, but never pumps a broken Wayland connection: libdecor
    // 0.1's fallback dispatch then loops for good (its dispatch of the
    // events still queued fails and leaves them queued), and the demo hangs
    // once its compositor has gone.
    void poll_events() override {
        SDL_Event event;
        while (!stop_on_lost_display() && SDL_PollEvent(&event)) {
            if (imgui_ready_) ImGui_ImplSDL2_ProcessEvent(&event);
            if (event.type == SDL_QUIT) close_ = true;
            if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE &&
                event.window.windowID == SDL_GetWindowID(window_)) {
                close_ = true;
            }
            if (event.type == SDL_KEYDOWN && event.key.keysym.sym == SDLK_ESCAPE) close_ = true;
        }
    }
    bool should_close() const override { return close_ || close_signal() != 0; }
    void framebuffer_size(int* width, int* height) const override {
        SDL_GL_GetDrawableSize(window_, width, height);
    }

    void swap(int64_t frame_index) override {
        if (stop_on_lost_display()) return;   // SDL's swap waits on the same connection
        host_->before_swap(frame_index);
        last_swap_call_ns_ = clock_.now_ns();
        SDL_GL_SwapWindow(window_);
        last_swap_return_ns_ = clock_.now_ns();
    }

    pacer::Host& host() override { return *host_; }
    SwapIntervalState swap_interval_state() const override { return host_->swap_interval(); }
    std::string present_feedback_source() const override { return host_->present_feedback(); }
    bool display_lost() const override { return host_->display_connection_lost(); }

    void imgui_init() override {
        ImGui_ImplSDL2_InitForOpenGL(window_, context_);
        imgui_ready_ = true;
    }
    void imgui_new_frame() override { ImGui_ImplSDL2_NewFrame(); }
    void imgui_shutdown() override {
        if (imgui_ready_) ImGui_ImplSDL2_Shutdown();
        imgui_ready_ = false;
    }

private:
    // The display server went away: a close, and no more calls that would
    // read its connection.
    bool stop_on_lost_display() {
        if (!host_->display_connection_lost()) return false;
        close_ = true;
        return true;
    }

    SDL_Window* window_ = nullptr;
    SDL_GLContext context_ = nullptr;
    std::unique_ptr<pacer::sdl2::Host> host_;
    pacer::OsClock clock_;
    bool close_ = false;
    bool imgui_ready_ = false;
};

}  // namespace

std::unique_ptr<Window> create_sdl2_window(const WindowConfig& config, std::string* error) {
    auto window = std::make_unique<Sdl2Window>();
    if (!window->open(config, error)) return nullptr;
    return window;
}

}  // namespace pacer_demo
