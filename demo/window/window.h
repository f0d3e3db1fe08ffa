// window.h: the demo's window-system layer, one small interface with one
// implementation per backend (window_sdl2.cpp, window_glfw.cpp), in the
// spirit of Dear ImGui's platform backends. The renderer (render/) and the
// ImGui OpenGL3 renderer backend sit on top and never see SDL or GLFW.
//
// A Window opens the window, feeds ImGui and swaps. Everything the pacer
// hears (swap interval, refresh rate, shown frames) goes through the
// library's backend for the window system (pacer/backends/glfw.h, sdl2.h),
// the Host it hands the pacer. Under Xvfb SDL refuses every interval, GLFW
// cannot tell, swaps never block and the refresh rate reads 0; the overlay
// and the summary show exactly what the backend says.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pacer/backends/window_host.h>
#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/metrics.h>
#include <pacer/thread_timing.h>

namespace pacer_demo {

enum class Backend { Sdl2, Glfw };
const char* backend_name(Backend backend);   // "sdl2", "glfw"

using pacer::backends::SwapAnswer;
using pacer::backends::SwapIntervalState;
using pacer::backends::swap_answer_name;

struct WindowConfig {
    const char* title;   // default: "pacer demo"
    int width;           // default: 1280
    int height;          // default: 720
};

class Window {
public:
    // Opens a window with an OpenGL 3.3 core context made current. Returns
    // nullptr and one line in *error when the window system says no.
    static std::unique_ptr<Window> create(Backend backend, const WindowConfig& config,
                                            std::string* error);
    virtual ~Window();

    virtual Backend backend() const = 0;
    // An OpenGL function's address in the current context, for glad.
    virtual void* gl_proc_address(const char* name) = 0;

    // Handles pending window events (and feeds them to ImGui once
    // imgui_init has run). should_close turns true on a close request.
    virtual void poll_events() = 0;
    virtual bool should_close() const = 0;
    virtual void framebuffer_size(int* width, int* height) const = 0;

    // Presents the back buffer holding frame_index and records when the swap
    // call began and returned, on pacer::OsClock's timeline (the pacer's
    // default clock).
    virtual void swap(int64_t frame_index) = 0;
    int64_t last_swap_return_ns() const { return last_swap_return_ns_; }
    // How long the last swap call took: under vsync mostly the wait for the
    // refresh, which is no part of the frame's work.
    int64_t last_swap_ns() const {
        return last_swap_call_ns_ >= 0 ? std::max<int64_t>(last_swap_return_ns_ - last_swap_call_ns_, 0) : 0;
    }

    // The pacer's Host for this window (the library's backend), what it said
    // to the last swap-interval request, and where its shown frames come from
    // ("wp_presentation, clock CLOCK_MONOTONIC_RAW") or why none do.
    virtual pacer::Host& host() = 0;
    virtual SwapIntervalState swap_interval_state() const = 0;
    virtual std::string present_feedback_source() const = 0;
    // The program serving the window ("mutter", "Xwayland (mutter)"), ""
    // unknown (display_server.h).
    const std::string& display_server() const { return display_server_; }
    // The display server's connection broke (a Wayland compositor that
    // died), which the window system reports only as a close request.
    virtual bool display_lost() const = 0;
    double refresh_rate_hz() { return host().refresh_rate_hz(); }   // 0 when unknown
    // The shown-frame reports the pacer pulled since the last call, oldest
    // first (the backend hands each to keep_report).
    std::vector<pacer::Presented> take_reports() { return std::exchange(reports_, {}); }

    // Dear ImGui's platform backend for this window system. Where it cannot
    // run, overlay_unavailable says why ("" where it can), and the demo goes
    // without its overlay.
    virtual std::string overlay_unavailable() const { return {}; }
    virtual void imgui_init() = 0;
    virtual void imgui_new_frame() = 0;
    virtual void imgui_shutdown() = 0;

protected:
    // For the backend Host's on_presented, with this window as user.
    static void keep_report(const pacer::Presented& presented, void* window);
    std::string display_server_;   // set by the backend once its window exists
    int64_t last_swap_call_ns_ = -1;
    int64_t last_swap_return_ns_ = -1;

private:
    static constexpr std::size_t kMaxReports = 4096;   // about a minute at 60 Hz undrained
    std::vector<pacer::Presented> reports_;
};

// SIGINT and SIGTERM (and on POSIX SIGHUP, SIGQUIT and SIGUSR1) as close
// requests, the same on every backend, and SIGPIPE ignored: the first
// one makes should_close() true and cuts the wait of the pacer named by
// interrupt_on_close() short (the run ends at once, at any rate, and writes
// its files and summary); a second one ends the process at once, after the
// last words given to on_second_close_signal_first (async-signal-safe).
// Window::create installs them; SDL's own handlers are turned off.
void install_close_signal_handlers();
void interrupt_on_close(pacer::Pacer* pacer);   // nullptr: none (before the pacer goes)
void on_second_close_signal_first(void (*last_words)());
int close_signal();                // the signal received, 0 while none
const char* close_signal_name();   // "SIGINT", "SIGTERM", "SIGHUP" ..., "" while none

std::unique_ptr<Window> create_sdl2_window(const WindowConfig& config, std::string* error);
std::unique_ptr<Window> create_glfw_window(const WindowConfig& config, std::string* error);

}  // namespace pacer_demo
