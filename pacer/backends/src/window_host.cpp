// window_host.cpp: WindowHost (pacer/backends/window_host.h), the part the
// GLFW and SDL2 Hosts share.
#include <pacer/backends/window_host.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "present_source.h"
#include "x11_vrr.h"

namespace pacer::backends {
namespace {

// The few GL entry points finish_gpu needs, looked up in the current context
// (no GL headers or library here: the window system loaded GL already).
#if defined(_WIN32) && !defined(_WIN64)
#define PACER_GL_CALL __stdcall
#else
#define PACER_GL_CALL
#endif
constexpr unsigned kGlSyncGpuCommandsComplete = 0x9117;   // GL_SYNC_GPU_COMMANDS_COMPLETE
constexpr unsigned kGlSyncFlushCommandsBit = 0x1;         // GL_SYNC_FLUSH_COMMANDS_BIT
constexpr unsigned kGlTimeoutExpired = 0x911B;            // GL_TIMEOUT_EXPIRED
constexpr int64_t kGlWaitSliceNs = 20'000'000;           // Pacer::interrupt's slice (pacer.h)

struct GlSync {
    bool loaded = false;
    void(PACER_GL_CALL* flush)() = nullptr;
    void*(PACER_GL_CALL* fence)(unsigned condition, unsigned flags) = nullptr;
    unsigned(PACER_GL_CALL* client_wait)(void* sync, unsigned flags, uint64_t timeout_ns) = nullptr;
    void(PACER_GL_CALL* remove)(void* sync) = nullptr;
};

template <class Function>
void look_up(Function* out, void* address) {
    *out = reinterpret_cast<Function>(address);
}

}  // namespace

struct WindowHost::Support {
    GlSync gl;
    std::unique_ptr<detail::PresentSource> source;
    std::string feedback_text = "none: not asked";
    void* wl_display = nullptr;   // the window system's; null: not on Wayland
    PresentedCallback callback = nullptr;
    void* user = nullptr;
    SwapIntervalState swap;
    void* x11_display = nullptr;   // the window's X11 Display* and Window, where it has them
    unsigned long x11_window = 0;
    bool had_focus = false;        // the window has been focused since it was made
};

WindowHost::WindowHost() : support_(std::make_unique<Support>()) {}
WindowHost::~WindowHost() = default;

void WindowHost::open_feedback(void* wl_display, void* wl_surface) {
    support_->wl_display = wl_display;
    std::string why;
    support_->source = detail::open_present_source(wl_display, wl_surface, &why);
    support_->feedback_text = support_->source ? support_->source->describe() : "none: " + why;
}

void WindowHost::open_window(const NativeWindow& window) {
    open_feedback(window.wl_display, window.wl_surface);
    if (window.wl_display == nullptr && window.x11_window != 0) open_x11(window.x11_display, window.x11_window);
}

bool WindowHost::on_wayland() const { return support_->wl_display != nullptr; }

bool WindowHost::display_connection_lost() const { return detail::display_connection_broken(support_->wl_display); }

void WindowHost::before_swap(int64_t frame_index) {
    if (support_->source) support_->source->request(frame_index);
}

void WindowHost::after_swap() {
    if (support_->source) support_->source->sent();
}

void WindowHost::present(Pacer& pacer, const Frame& frame) {
    // Render, wait, swap: the frame swapped now was built after the wait
    // before this one (frame 0's, before any: unknown).
    const bool built_before = pacer.config().wait_point == WaitPoint::BeforePresent;
    before_swap(built_before ? frame.index - 1 : frame.index);
    swap_buffers();
    after_swap();
    pacer.mark_present();
}

const char* WindowHost::present_clock_name() { return support_->source ? support_->source->clock_name() : nullptr; }

bool WindowHost::take_presented(Presented* out) {
    if (!support_->source || !support_->source->take(out)) return false;
    if (support_->callback != nullptr) support_->callback(*out, support_->user);
    return true;
}

void WindowHost::finish_gpu(int64_t budget_ns) {
    const std::atomic<bool> never{false};
    finish_gpu_or_stop(budget_ns, never);
}

void WindowHost::finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) {
    if (!gl_context_current()) return;
    GlSync& gl = support_->gl;
    if (!gl.loaded) {   // once, in the first context seen: the engine's one
        gl.loaded = true;
        look_up(&gl.flush, gl_function("glFlush"));
        look_up(&gl.fence, gl_function("glFenceSync"));
        look_up(&gl.client_wait, gl_function("glClientWaitSync"));
        look_up(&gl.remove, gl_function("glDeleteSync"));
    }
    if (gl.fence == nullptr || gl.client_wait == nullptr || gl.remove == nullptr) {
        if (gl.flush != nullptr) gl.flush();   // at least under way before the wait
        return;
    }
    void* sync = gl.fence(kGlSyncGpuCommandsComplete, 0);
    if (sync == nullptr) return;
    // The flush bit (first slice only) submits the work; the wait ends when
    // it completes, at the budget or at stop, whichever is first (a timeout
    // is no error: the swap waits). A slice that times out took its length.
    int64_t left_ns = std::max<int64_t>(budget_ns, 0);
    unsigned flags = kGlSyncFlushCommandsBit;
    for (;;) {
        const int64_t slice_ns = std::min(left_ns, kGlWaitSliceNs);
        const unsigned result = gl.client_wait(sync, flags, static_cast<uint64_t>(slice_ns));
        flags = 0;
        left_ns -= slice_ns;
        if (result != kGlTimeoutExpired || left_ns <= 0 || stop.load(std::memory_order_relaxed)) break;
    }
    gl.remove(sync);
}

void WindowHost::open_x11(void* display, unsigned long window) {
    support_->x11_display = display;
    support_->x11_window = window;
    open_x11_feedback(display, window);
}

void WindowHost::open_x11_feedback(void* display, unsigned long window) {
    if (support_->wl_display != nullptr) return;   // Wayland's own feedback, or why it has none
    std::string why;
    support_->source = detail::open_x11_present_source(display, window, &why);
    support_->feedback_text = support_->source ? support_->source->describe() : "none: " + why;
}

WindowState WindowHost::window_state() {
    const WindowFlags flags = window_flags();
    if (flags.focused) support_->had_focus = true;
    if (flags.hidden) return WindowState::Hidden;
    return support_->had_focus && !flags.focused ? WindowState::Unfocused : WindowState::Foreground;
}

bool WindowHost::variable_refresh(VrrRange* out) {
    return support_->x11_display != nullptr && detail::x11_variable_refresh(support_->x11_display, support_->x11_window, out);
}

bool WindowHost::record_swap(int interval, SwapAnswer answer) {
    support_->swap = {interval, answer};
    return answer != SwapAnswer::Refused;
}

SwapIntervalState WindowHost::swap_interval() const { return support_->swap; }
const char* WindowHost::present_feedback() const { return support_->feedback_text.c_str(); }

void WindowHost::on_presented(PresentedCallback callback, void* user) {
    support_->callback = callback;
    support_->user = user;
}

}  // namespace pacer::backends
