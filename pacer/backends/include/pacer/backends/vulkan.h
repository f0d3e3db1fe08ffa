// pacer/backends/vulkan.h: a pacer::Host for a Vulkan swapchain (target
// pacer::vulkan, pkg-config pacer-vulkan), as glfw.h and sdl2.h are for a GL
// window. With it, vsync, auto and display_lock work, and every strategy
// presents on time (examples/glfw_vulkan is the whole program):
//
//   pacer::vulkan::Host host({instance, physical_device, device,
//                             vkGetInstanceProcAddr, vkGetDeviceProcAddr});
//   host.set_window(pacer::glfw::native_window(window));   // shown frames' reports
//   config.strategy = pacer::Strategy::Auto;
//   config.host = &host;
//   ...
//   info.presentMode = host.present_mode(*pacer, surface, VK_PRESENT_MODE_FIFO_KHR);
//   vkCreateSwapchainKHR(device, &info, nullptr, &swapchain);
//   host.set_swapchain(swapchain, info.presentMode);
//   ...
//   vkQueueSubmit(queue, 1, &submit, in_flight_fence);   // the frame's last submit
//   host.set_frame_fence(in_flight_fence);
//   pacer::Frame frame = pacer->wait();                  // its GPU work done, then the deadline
//   VkResult result = host.present(*pacer, frame, queue, present_info);
//   if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) remake the swapchain
//
// What it does:
// - before a before_present wait, the frame's GPU work finished: the fence
//   of the frame's last submit waited on within the time left to the
//   deadline, in 20 ms slices that Pacer::interrupt ends (finish_gpu). An
//   engine that cannot name a fence names the present instead
//   (prepare_present): the Host submits a wait on the present's semaphores
//   that signals a fence and a semaphore of its own, and the present waits on
//   that semaphore instead. pacer-run's Vulkan layer paces programs so.
// - the present mode for each strategy (present_mode, present_mode_for):
//   FIFO for vsync; for auto and display_lock, a FIFO the engine wants
//   becomes IMMEDIATE, else MAILBOX, where the surface has one, because a
//   FIFO queue holds display_lock's frames back a refresh; IMMEDIATE first,
//   because Mesa's X11 swapchain hands a MAILBOX image to a thread of its own
//   that shows it when it runs, not when the pacer presents (docs/x11.md).
//   The swap interval the pacer asks for is accepted where the swapchain's
//   mode gives it (FIFO: 1; IMMEDIATE and MAILBOX: 0). Where the strategy
//   changed (Pacer::reconfigure) and wants another mode, present() returns
//   VK_SUBOPTIMAL_KHR in place of VK_SUCCESS: the engine's own path for a
//   resized window remakes the swapchain, with present_mode's new answer.
// - the frames the display reports shown, for display_lock and auto, from
//   the window the surface was made for (set_window): wp_presentation on
//   Wayland (pacer built with pacer::wayland), X11's Present extension on an
//   X window (pacer::x11). VK_KHR_present_wait is not used: no driver this
//   project can test on has it (docs/vulkan.md).
// - the present: vkQueuePresentKHR in one call, its result returned as it
//   came (OUT_OF_DATE, SUBOPTIMAL, DEVICE_LOST: the engine's to handle).
// What it does not: it links no Vulkan loader (every function comes from the
// two lookups given: the loader's, volk's, or a layer's next), makes no
// swapchain, and never throws. Its errors are values, with one line
// (error()). One thread: the one that presents. Destroy it, or set_device
// another device, before vkDestroyDevice: it holds fences and semaphores
// of the device.
#pragma once

#include <pacer/backends/window_host.h>

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pacer::vulkan {

// The engine's Vulkan objects the Host works with, and where it finds the
// functions it calls.
struct Device {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;   // the loader's vkGetInstanceProcAddr
    PFN_vkGetDeviceProcAddr get_device_proc_addr = nullptr;       // the loader's vkGetDeviceProcAddr
};

// The present mode a swapchain gets under strategy, where the engine wants
// wanted and the surface has modes (count of them): FIFO for vsync (every
// surface has it); for auto and display_lock, IMMEDIATE, else MAILBOX, in
// place of a FIFO the engine wants; else wanted where the surface has it,
// else FIFO.
VkPresentModeKHR present_mode_for(Strategy strategy, VkPresentModeKHR wanted, const VkPresentModeKHR* modes,
                                  uint32_t count);
const char* present_mode_name(VkPresentModeKHR mode);   // "FIFO", "IMMEDIATE", ...

class Host final : public backends::WindowHost {
public:
    // Without a device (a null handle or lookup) it presents nothing and
    // error() says why; set_device gives it one.
    explicit Host(const Device& device);
    ~Host() override;   // waits for its submits, then frees its fences and semaphores

    // Another device (the engine remade its own after VK_ERROR_DEVICE_LOST):
    // the old one's fences and semaphores freed first. An empty Device
    // before vkDestroyDevice frees them alone. false and error() where a
    // function the Host needs is missing.
    bool set_device(const Device& device);
    // The window the surface belongs to, for the shown frames' reports.
    void set_window(const backends::NativeWindow& window);

    // The mode to make a swapchain on surface with, for pacer's strategy
    // (Config::strategy), the engine wanting wanted: present_mode_for with
    // the surface's modes. A wanted mode the surface lacks gives FIFO, and
    // error() names it.
    VkPresentModeKHR present_mode(const Pacer& pacer, VkSurfaceKHR surface, VkPresentModeKHR wanted);
    // After each vkCreateSwapchainKHR: the swapchain and the mode it got.
    // VK_NULL_HANDLE after vkDestroySwapchainKHR: a present to the old one
    // is then refused (VK_ERROR_SURFACE_LOST_KHR, and error() says so)
    // instead of reaching the driver with a destroyed handle.
    void set_swapchain(VkSwapchainKHR swapchain, VkPresentModeKHR mode);

    // Before Pacer::wait: the fence the frame's last vkQueueSubmit signals.
    // The wait finishes the frame by it (it is not reset: it stays the
    // engine's). Once: the next wait needs the next frame's.
    void set_frame_fence(VkFence fence);
    // Or, before Pacer::wait, where no fence can be named: the present that
    // follows (its semaphores; info's arrays must live until it is made).
    // present() then makes this one, whatever it is given.
    void prepare_present(VkQueue queue, const VkPresentInfoKHR& info);

    // The present, in one call: asks when the frame is shown, presents
    // (vkQueuePresentKHR), tells the pacer (Pacer::mark_present). frame is
    // the one wait() returned before it. Returns vkQueuePresentKHR's result,
    // or VK_SUBOPTIMAL_KHR where the strategy wants another mode.
    VkResult present(Pacer& pacer, const Frame& frame, VkQueue queue, const VkPresentInfoKHR& info);
    // The same in parts, for a caller that marks the present itself (as
    // WindowHost::before_swap and after_swap): the prepared present made now.
    VkResult present_prepared();
    // What the last present returned (present_prepared's result).
    VkResult last_result() const;

    // The last thing that went wrong, in one line ("" none): a refused
    // present, a missing function, a mode the surface lacks.
    const std::string& error() const;

    // pacer::Host (take_presented and the rest: window_host.h)
    bool set_swap_interval(int interval) override;
    double refresh_rate_hz() override;   // NativeWindow::refresh_hz, 0 unknown
    void finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) override;
    void finish_gpu(int64_t budget_ns) override;

private:
    WindowFlags window_flags() const override { return {}; }   // nothing says: in front
    bool gl_context_current() const override { return false; }
    void* gl_function(const char*) const override { return nullptr; }
    void swap_buffers() override;
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace pacer::vulkan
