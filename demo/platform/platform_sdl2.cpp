// platform_sdl2.cpp: the Platform on SDL2, with Dear ImGui's SDL2 backend.
#include <SDL.h>
#include <imgui_impl_sdl.h>

#include "platform/window.h"

namespace pacer_demo {

// platform_sdl2_wayland.cpp, apart because SDL_syswm.h brings Xlib's macros.
bool sdl2_wayland_handles(SDL_Window* window, void** display, void** surface);

namespace {

class Sdl2Platform final : public Platform {
public:
    ~Sdl2Platform() override {
        close_present_feedback_();
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
        void* display = nullptr;
        void* surface = nullptr;
        sdl2_wayland_handles(window_, &display, &surface);
        open_present_feedback_(display, surface);
        return true;
    }

    Backend backend() const override { return Backend::Sdl2; }
    void* gl_proc_address(const char* name) override { return SDL_GL_GetProcAddress(name); }

    void poll_events() override {
        SDL_Event event;
        while (SDL_PollEvent(&event)) {
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
        request_presented_(frame_index);
        SDL_GL_SwapWindow(window_);
        last_swap_return_ns_ = clock_.now_ns();
    }

    double refresh_rate_hz() override {
        SDL_DisplayMode mode{};
        int display = SDL_GetWindowDisplayIndex(window_);
        if (display < 0 || SDL_GetCurrentDisplayMode(display, &mode) != 0) return 0;
        return mode.refresh_rate > 0 ? mode.refresh_rate : 0;   // SDL: 0 means unspecified
    }

    void imgui_init() override {
        ImGui_ImplSDL2_InitForOpenGL(window_, context_);
        imgui_ready_ = true;
    }
    void imgui_new_frame() override { ImGui_ImplSDL2_NewFrame(); }
    void imgui_shutdown() override {
        if (imgui_ready_) ImGui_ImplSDL2_Shutdown();
        imgui_ready_ = false;
    }

protected:
    // SDL_GL_SetSwapInterval returns 0 when the driver took it; -1 (adaptive)
    // fails where late swap tearing is unsupported.
    SwapAnswer request_swap_interval_(int interval) override {
        return SDL_GL_SetSwapInterval(interval) == 0 ? SwapAnswer::Accepted : SwapAnswer::Refused;
    }

private:
    SDL_Window* window_ = nullptr;
    SDL_GLContext context_ = nullptr;
    pacer::OsClock clock_;
    bool close_ = false;
    bool imgui_ready_ = false;
};

}  // namespace

std::unique_ptr<Platform> create_sdl2_platform(const WindowConfig& config, std::string* error) {
    auto platform = std::make_unique<Sdl2Platform>();
    if (!platform->open(config, error)) return nullptr;
    return platform;
}

}  // namespace pacer_demo
