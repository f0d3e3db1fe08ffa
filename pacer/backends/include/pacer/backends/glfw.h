// pacer/backends/glfw.h: a pacer::Host for a GLFW window (target pacer::glfw,
// pkg-config pacer-glfw). With it, vsync, auto and display_lock work, and
// every strategy presents on time:
//
//   pacer::glfw::Host host(window);           // its GL context current here
//   config.strategy = pacer::Strategy::Auto;
//   config.host = &host;
//   ...
//   draw();  pacer::Frame frame = pacer.wait();   // the GL work finished, then the deadline
//   host.present(pacer, frame);                // glfwSwapBuffers, and when it is shown
//
// What it does:
// - before a before_present wait, the frame's GL work finished (finish_gpu,
//   window_host.h), so that the swap after the deadline presents at once.
// - the swap interval, with glfwSwapInterval on the current context. GLFW
//   cannot say whether the driver took it: the answer is Unconfirmed (auto
//   then measures the swaps), or Refused where the swap-control extension
//   is missing (Xvfb has none) or adaptive is asked without the tear one.
// - the refresh rate of the monitor holding the window's centre (the
//   window's own monitor when full screen; the primary where GLFW cannot
//   place windows, as on Wayland); 0 when unknown.
// - when GLFW runs on Wayland (Debian's libglfw3-wayland build, found at run
//   time), the frames the compositor reports shown (wp_presentation), for
//   display_lock and auto. pacer must be built with Wayland (pacer::wayland).
// - on X11, the X server's refresh ticks and each frame's fate from its
//   Present extension, asked on a connection of pacer's own (pacer::x11,
//   built where XCB's Present headers are found; docs/x11.md).
// - the window's state for Config::background_hz and hidden_hz
//   (glfwGetWindowAttrib: iconified or not visible is hidden; unfocused once
//   it had the focus and lost it), and on X11 whether its display waits for
//   frames (VRR: Mesa's _VARIABLE_REFRESH, RandR's vrr_capable, the EDID).
// Destroy it before the window: it holds the window's feedback objects.
// What it does not: it never owns the window,
// installs no GLFW callback, and never throws. One thread: GLFW's.
#pragma once

#include <pacer/backends/window_host.h>

struct GLFWwindow;

namespace pacer::glfw {

class Host final : public backends::WindowHost {
public:
    explicit Host(GLFWwindow* window);
    ~Host() override;

    // pacer::Host (present, take_presented and the rest: window_host.h)
    bool set_swap_interval(int interval) override;
    double refresh_rate_hz() override;

private:
    WindowFlags window_flags() const override;
    bool gl_context_current() const override;
    void* gl_function(const char* name) const override;
    void swap_buffers() override;
    GLFWwindow* window_;
    bool wayland_ = false;   // the Wayland build of GLFW is loaded
};

// The window's Wayland or X11 handles and its monitor's refresh, for a Host
// made without GLFW's help (a Vulkan window: pacer/backends/vulkan.h).
backends::NativeWindow native_window(GLFWwindow* window);

}  // namespace pacer::glfw
