// pacer/host.h: what a window system tells the pacer, and does for it: the
// Host. An engine on GLFW or SDL2 takes one ready-made (pacer/backends/glfw.h,
// sdl2.h); one on another window system, or on Vulkan or D3D, writes its own
// against this contract. pacer.h includes it.
#pragma once

#include <atomic>
#include <cstdint>

namespace pacer {

// Presented::flags bits, as the display states them (Wayland's wp_presentation kinds).
inline constexpr uint32_t kPresentedVsync = 1;          // shown at a refresh, not torn
inline constexpr uint32_t kPresentedHwClock = 2;        // displayed_ns from the display's own clock
inline constexpr uint32_t kPresentedHwCompletion = 4;   // the display signalled completion itself
inline constexpr uint32_t kPresentedZeroCopy = 8;       // scanned out from the engine's buffer

// One frame's fate as the display reported it (Host::take_presented).
struct Presented {
    int64_t frame_index = -1;   // Frame::index of the wait the frame was built after; -1 unknown
    bool discarded = false;     // never shown (replaced before a refresh); the fields below unknown
    int64_t displayed_ns = -1;  // when it turned visible, on the pacer's Clock (the Host converts); -1 unknown
    int64_t refresh_ns = 0;     // the refresh period the display states (may be wrong); 0 unknown
    uint64_t seq = 0;           // the display's refresh counter at displayed_ns; 0 unknown
    uint32_t flags = 0;         // kPresented* bits
};

// Where the engine's window stands (Host::window_state): what
// Config::background_hz and hidden_hz pace.
enum class WindowState : int {
    Foreground,   // "foreground": seen and focused, or nothing says otherwise
    Unfocused,    // "unfocused": seen, but another window has the input focus
    Hidden,       // "hidden": minimized, unmapped, or otherwise not seen
};
const char* window_state_name(WindowState state);   // "foreground", "unfocused", "hidden"

// The rates a display with variable refresh shows frames at (Host::variable_refresh).
struct VrrRange {
    double min_hz = 0;            // below it the driver shows each frame more than once; 0 unknown
    double max_hz = 0;            // its fastest refresh; 0 unknown (then the stated refresh)
    const char* source = "host";  // where the range was read, for the decision's reason
                                  // ("EDID range limits"); a static string
};

// What the engine's window system can do for vsync and auto.
class Host {
public:
    virtual ~Host() = default;
    // Swap interval: 0 off, n every n-th refresh. Returns whether it was accepted.
    virtual bool set_swap_interval(int interval) = 0;
    // The display's refresh rate in Hz, 0 when unknown (as is any value
    // outside [1, 10000] or not finite). Read at most once a second.
    virtual double refresh_rate_hz() = 0;
    // Optional: frames the display reports as shown or discarded, oldest first,
    // one per call; false when none waits. Polled in every wait() until false.
    // The only way to know what reached the screen: a swap's return does not say.
    virtual bool take_presented(Presented* out) {
        (void)out;
        return false;
    }
    // Optional: what the reports of take_presented come from, named in the
    // reasons of auto and display_lock ("X Present", "wp_presentation"); a
    // string that lives as long as the Host. nullptr: unnamed.
    virtual const char* present_clock_name() { return nullptr; }
    // Optional: the frame's GPU work, finished before a before_present wait
    // (wait() calls it first, under WaitPoint::BeforePresent, except while
    // vsync paces: that swap waits anyway). budget_ns is the time left to
    // the deadline, 0 when none is: return by then, done or not. Without it,
    // the work still queued at the wait runs in the swap after it, and what
    // reaches the screen lands that long, and that unevenly, after the
    // deadline. The GLFW and SDL2 Hosts flush and wait on a GL fence.
    virtual void finish_gpu(int64_t budget_ns) { (void)budget_ns; }
    // The same, cut short once stop is set (Pacer::interrupt): what wait()
    // calls. A Host whose wait can be long (a GPU that never finishes)
    // overrides it and checks stop at least every 20 ms, so that interrupt()
    // ends the wait within one such slice; by default it is finish_gpu.
    virtual void finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) {
        (void)stop;
        finish_gpu(budget_ns);
    }
    // Optional: whether the window is in front, unfocused or hidden; read
    // before every wait, so it must be cheap (a flag the window system keeps,
    // or a query or two to its server).
    // A window that never had the input focus (a headless compositor with no
    // seat, an X server without a window manager) is Foreground: unfocused
    // means another window took the focus. The GLFW and SDL2 Hosts read
    // glfwGetWindowAttrib and SDL_GetWindowFlags.
    virtual WindowState window_state() { return WindowState::Foreground; }
    // Optional: true, with *out filled, where the window's display waits for
    // frames (variable refresh enabled for this window); false where it does
    // not or nothing says. What Config::display.vrr auto follows; read at most
    // once a second.
    virtual bool variable_refresh(VrrRange* out) {
        (void)out;
        return false;
    }
};

}  // namespace pacer
