// window.h: the demo's window-system layer, one small interface with one
// implementation per backend (platform_sdl2.cpp, platform_glfw.cpp), in the
// spirit of Dear ImGui's platform backends. The renderer (render/) and the
// ImGui OpenGL3 renderer backend sit on top and never see SDL or GLFW.
//
// A Platform is also the pacer's Host: the vsync and auto strategies set the
// swap interval and read the refresh rate through it. It records what the
// window system said, because under Xvfb SDL refuses every interval, GLFW
// cannot tell (glfwSwapInterval returns nothing), swaps never block and the
// refresh rate reads 0; the overlay and the summary show exactly that.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>
#include <pacer/thread_timing.h>

#include "platform/present_feedback.h"

namespace pacer_demo {

enum class Backend { Sdl2, Glfw };
const char* backend_name(Backend backend);   // "sdl2", "glfw"

// What the window system said to the last swap-interval request.
enum class SwapAnswer {
    None,          // nothing requested yet
    Accepted,      // the window system confirmed it (SDL returned 0)
    Refused,       // the window system refused it, or lacks the extension
    Unconfirmed,   // requested, and nothing can confirm it (GLFW)
};
const char* swap_answer_name(SwapAnswer answer);   // "accepted", "refused", ...

struct SwapIntervalState {
    int requested;       // 0 off, n every n-th refresh, -1 adaptive
    SwapAnswer answer;
};

struct WindowConfig {
    const char* title;   // default: "pacer demo"
    int width;           // default: 1280
    int height;          // default: 720
};

class Platform : public pacer::Host {
public:
    // Opens a window with an OpenGL 3.3 core context made current. Returns
    // nullptr and one line in *error when the window system says no.
    static std::unique_ptr<Platform> create(Backend backend, const WindowConfig& config,
                                            std::string* error);
    ~Platform() override;

    virtual Backend backend() const = 0;
    // An OpenGL function's address in the current context, for glad.
    virtual void* gl_proc_address(const char* name) = 0;

    // Handles pending window events (and feeds them to ImGui once
    // imgui_init has run). should_close turns true on a close request.
    virtual void poll_events() = 0;
    virtual bool should_close() const = 0;
    virtual void framebuffer_size(int* width, int* height) const = 0;

    // Presents the back buffer holding frame_index and records when the swap
    // call returned, on pacer::OsClock's timeline (the pacer's default clock).
    virtual void swap(int64_t frame_index) = 0;
    int64_t last_swap_return_ns() const { return last_swap_return_ns_; }

    // pacer::Host. set_swap_interval returns false when the window system
    // refused the interval, true when it confirmed it or took the request
    // without complaint (GLFW: nothing can confirm, so the pacer must measure
    // the swaps, as auto does). swap_interval_state() tells the three apart.
    bool set_swap_interval(int interval) override;
    double refresh_rate_hz() override = 0;   // 0 when unknown
    SwapIntervalState swap_interval_state() const { return swap_state_; }

    // pacer::Host::take_presented: when frames were really displayed, where
    // the compositor tells (Wayland's wp_presentation: weston does, sway 1.7
    // never does; X11 tells nothing), with Presented::frame_index the index
    // given to swap(). The pacer pulls these in every wait; each report it
    // pulls is also kept for the demo's trace and summary (take_reports).
    bool take_presented(pacer::Presented* out) override;
    // The reports the pacer pulled since the last call, oldest first.
    std::vector<pacer::Presented> take_reports() { return std::exchange(reports_, {}); }
    // Where take_presented's times come from ("wp_presentation, clock
    // CLOCK_MONOTONIC_RAW"), or why there are none.
    const std::string& present_feedback_source() const { return present_feedback_source_; }

    // Dear ImGui's platform backend for this window system.
    virtual void imgui_init() = 0;
    virtual void imgui_new_frame() = 0;
    virtual void imgui_shutdown() = 0;

protected:
    virtual SwapAnswer request_swap_interval_(int interval) = 0;
    // Backends: open_present_feedback_ once the window exists, with its
    // wl_display and wl_surface (nullptr when not on Wayland), and
    // request_presented_ right before each swap, close_present_feedback_
    // before the window and the display connection go.
    void open_present_feedback_(void* wl_display, void* wl_surface);
    void request_presented_(int64_t frame_index);
    void close_present_feedback_() { present_feedback_.reset(); }
    int64_t last_swap_return_ns_ = -1;

private:
    static constexpr std::size_t kMaxReports = 4096;   // about a minute at 60 Hz undrained
    SwapIntervalState swap_state_{0, SwapAnswer::None};
    std::unique_ptr<PresentFeedback> present_feedback_;
    std::string present_feedback_source_ = "none: not asked";
    std::vector<pacer::Presented> reports_;   // the tee of what take_presented gave
};

// SIGINT and SIGTERM as close requests, the same on every backend: the first
// one makes should_close() true and cuts the wait of the pacer named by
// interrupt_on_close() short (the run ends at once, at any rate, and writes
// its files and summary); a second one ends the process at once.
// Platform::create installs them; SDL's own handlers are turned off.
void install_close_signal_handlers();
void interrupt_on_close(pacer::Pacer* pacer);   // nullptr: none (before the pacer goes)
int close_signal();                // the signal received, 0 while none
const char* close_signal_name();   // "SIGINT", "SIGTERM", "" while none

std::unique_ptr<Platform> create_sdl2_platform(const WindowConfig& config, std::string* error);
std::unique_ptr<Platform> create_glfw_platform(const WindowConfig& config, std::string* error);

}  // namespace pacer_demo
