// pacer/backends/window_host.h: what the GLFW, SDL2 and Vulkan Hosts (glfw.h,
// sdl2.h, vulkan.h) share: the answer to the last swap-interval request, the window's
// shown frames (Wayland's wp_presentation, or X11's Present extension, where
// pacer was built with them: wayland.h, x11.h), and a callback that sees
// each report.
// Under Xvfb SDL refuses every interval and GLFW cannot tell (glfwSwapInterval
// returns nothing): a demo or an overlay shows which.
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <memory>

namespace pacer::backends {

enum class SwapAnswer : int {
    None,          // nothing requested yet
    Accepted,      // the window system confirmed it (SDL returned 0)
    Refused,       // refused, or the swap-control extension is missing
    Unconfirmed,   // requested, and nothing can confirm it (GLFW)
};

inline const char* swap_answer_name(SwapAnswer answer) {
    switch (answer) {
        case SwapAnswer::None: return "not requested";
        case SwapAnswer::Accepted: return "accepted";
        case SwapAnswer::Refused: return "refused";
        case SwapAnswer::Unconfirmed: return "requested, cannot confirm";
    }
    return "?";
}

struct SwapIntervalState {
    int requested = 0;   // 0 off, n every n-th refresh, -1 adaptive
    SwapAnswer answer = SwapAnswer::None;
};

// A window as its window system names it, for a Host that is given one
// (pacer/backends/vulkan.h; pacer::glfw::native_window fills it): the
// Wayland display and surface, or the X11 display and window. All null: no
// window known, and no shown frames reported.
struct NativeWindow {
    void* wl_display = nullptr;    // wl_display*, where the window is on Wayland
    void* wl_surface = nullptr;    // its wl_surface*
    void* x11_display = nullptr;   // Xlib's Display*, where it is on X11 (null: $DISPLAY's server)
    unsigned long x11_window = 0;  // the X window
    double refresh_hz = 0;         // the refresh of the monitor under it, where the window system
                                   // says; 0 unknown
};

// Called with each report the pacer pulls through Host::take_presented (a
// trace, an overlay); on the pacer's thread, inside Pacer::wait.
using PresentedCallback = void (*)(const Presented& presented, void* user);

class WindowHost : public pacer::Host {
public:
    ~WindowHost() override;
    WindowHost(const WindowHost&) = delete;
    WindowHost& operator=(const WindowHost&) = delete;

    // The swap, in one call: asks when the frame is shown (before_swap),
    // swaps the window's buffers (glfwSwapBuffers, SDL_GL_SwapWindow) and
    // tells the pacer the swap returned (Pacer::mark_present). frame is the
    // one wait() returned before this swap; waiting before the present
    // (WaitPoint::BeforePresent), the frame swapped was built after the wait
    // before that one, and is reported as that one's (Presented::frame_index).
    void present(Pacer& pacer, const Frame& frame);
    // The same in parts, for an engine that swaps itself: right before its
    // swap, with the index of the wait the frame it shows was built after
    // (Presented::frame_index: the wait before the last one where the
    // engine waits before its present, else the last one); after it,
    // after_swap (optional: on X11 it dates the image the swap sent) and
    // Pacer::mark_present.
    void before_swap(int64_t frame_index);
    void after_swap();
    bool take_presented(Presented* out) override;
    // "wp_presentation" or "X Present" where the window reports shown
    // frames, else nullptr (Host::present_clock_name).
    const char* present_clock_name() override;
    // The frame's GL work done before the pacer waits (Host::finish_gpu):
    // glFlush, then a fence (GL 3.2 or ARB_sync) waited on for at most
    // budget_ns. Nothing without a current GL context (a Vulkan window);
    // the flush alone without fences. The pacer calls it from wait(), on the
    // thread whose context is current: the one that swaps.
    // The fence is waited on in slices of at most 20 ms, each checking stop,
    // so that Pacer::interrupt ends even a wait on a GPU that never finishes.
    void finish_gpu(int64_t budget_ns) override;
    void finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) override;
    // Whether the window is in front, unfocused or hidden (Host::window_state),
    // from the window system's own flags (window_flags): minimized or not
    // shown is hidden; unfocused only once the window had the focus and lost
    // it, so that a window nothing ever focuses (a headless compositor with
    // no keyboard, an X server without a window manager) stays in front.
    WindowState window_state() override;
    // On X11, where Mesa enabled variable refresh for the window and the
    // output under it is vrr_capable (RandR), with the EDID's range
    // (Host::variable_refresh). Wayland's protocols do not say: false there.
    bool variable_refresh(VrrRange* out) override;

    // The last request and what the window system said.
    SwapIntervalState swap_interval() const;
    // Where the shown frames come from ("wp_presentation, clock
    // CLOCK_MONOTONIC_RAW", "X Present 1.2 on Xwayland: ..."), or why none
    // do ("none: the X server ':1' has no Present extension").
    const char* present_feedback() const;
    // Whether the window's connection to the display server broke (Wayland:
    // the compositor died or closed the client). SDL2 and GLFW report that
    // only as a quit or close request; this tells it from the user's close.
    // False on X11 (Xlib exits the process instead) and where pacer was built
    // without Wayland.
    bool display_connection_lost() const;
    // Whether the window is on Wayland (its window system handed over a
    // wl_display), else on X11 or another.
    bool on_wayland() const;
    // Sees each report the pacer pulls (for a trace); nullptr: none.
    void on_presented(PresentedCallback callback, void* user);

protected:
    WindowHost();
    // Once the window exists, with its Wayland handles (null: not on Wayland).
    void open_feedback(void* wl_display, void* wl_surface);
    // Either: Wayland's feedback where it has a Wayland surface, else X11's
    // (open_x11) where it has an X window.
    void open_window(const NativeWindow& window);
    // Notes a request and its answer; what set_swap_interval returns.
    bool record_swap(int interval, SwapAnswer answer);
    // The window system's GL lookups, for finish_gpu: whether a GL context
    // is current on this thread, and a GL function's address in it.
    virtual bool gl_context_current() const = 0;
    virtual void* gl_function(const char* name) const = 0;
    // The window system's swap of the window's buffers.
    virtual void swap_buffers() = 0;
    // The window's flags as the window system keeps them: hidden (minimized,
    // or not shown) and focused (has the keyboard focus).
    struct WindowFlags {
        bool hidden = false;
        bool focused = false;
    };
    virtual WindowFlags window_flags() const = 0;
    // Once the window exists, where it is an X11 window: its Display* and
    // Window, for variable_refresh and X11's present feedback
    // (open_x11_feedback).
    void open_x11(void* display, unsigned long window);
    // X11's present feedback alone, where no Wayland feedback is open: the
    // program's Xlib Display* (null: $DISPLAY's server) and the X window
    // it presents to.
    void open_x11_feedback(void* display, unsigned long window);

private:
    struct Support;
    std::unique_ptr<Support> support_;
};

}  // namespace pacer::backends
