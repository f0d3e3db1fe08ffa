// vulkan.cpp: pacer::vulkan::Host (pacer/backends/vulkan.h).
#include <pacer/backends/vulkan.h>
#include <pacer/units.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace pacer::vulkan {
namespace {

constexpr int64_t kFenceSliceNs = 20 * kNsPerMs;     // Pacer::interrupt's slice (pacer.h)
constexpr uint64_t kReuseWaitNs = kNsPerSecond;     // a submit kSlots presents old: long done
constexpr std::size_t kSlots = 8;                   // fence and semaphore pairs, used in turn
constexpr std::size_t kMostWaits = 16;              // a present's semaphores: more than any program uses

// The device's functions the Host calls, from the engine's lookups.
struct Dispatch {
    PFN_vkQueuePresentKHR queue_present = nullptr;
    PFN_vkQueueSubmit queue_submit = nullptr;
    PFN_vkCreateSemaphore create_semaphore = nullptr;
    PFN_vkDestroySemaphore destroy_semaphore = nullptr;
    PFN_vkCreateFence create_fence = nullptr;
    PFN_vkDestroyFence destroy_fence = nullptr;
    PFN_vkWaitForFences wait_fences = nullptr;
    PFN_vkResetFences reset_fences = nullptr;
    PFN_vkGetPhysicalDeviceSurfacePresentModesKHR surface_present_modes = nullptr;
};

// A binary semaphore a present waited on can be reused only once that wait
// is surely over: the slot's fence, kSlots presents later.
struct Slot {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    bool submitted = false;
};

template <class Fn>
bool look_up(Fn* out, PFN_vkVoidFunction function) {
    *out = reinterpret_cast<Fn>(function);
    return function != nullptr;
}

std::string handle_text(uint64_t handle) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, handle);
    return text;
}

// A non-dispatchable handle is a pointer on 64-bit platforms, a uint64_t on others.
template <class Handle>
uint64_t handle_id(Handle handle) {
    if constexpr (std::is_pointer_v<Handle>) {
        return reinterpret_cast<uintptr_t>(handle);
    } else {
        return handle;
    }
}

}  // namespace

const char* present_mode_name(VkPresentModeKHR mode) {
    switch (mode) {
        case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
        case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
        case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
        case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
        default: return "another";
    }
}

VkPresentModeKHR present_mode_for(Strategy strategy, VkPresentModeKHR wanted, const VkPresentModeKHR* modes,
                                  uint32_t count) {
    const auto has = [&](VkPresentModeKHR mode) {
        return modes != nullptr && std::find(modes, modes + count, mode) != modes + count;
    };
    if (strategy == Strategy::Vsync) return VK_PRESENT_MODE_FIFO_KHR;
    if (strategy_uses_host(strategy) && wanted == VK_PRESENT_MODE_FIFO_KHR) {
        for (const VkPresentModeKHR unqueued : {VK_PRESENT_MODE_IMMEDIATE_KHR, VK_PRESENT_MODE_MAILBOX_KHR}) {
            if (has(unqueued)) return unqueued;
        }
    }
    return has(wanted) ? wanted : VK_PRESENT_MODE_FIFO_KHR;
}

struct Host::State {
    Device device;
    Dispatch vk;
    bool ready = false;   // a device, and every function found
    std::array<Slot, kSlots> slots{};
    std::size_t next_slot = 0;
    VkFence frame_fence = VK_NULL_HANDLE;   // set_frame_fence's, for the next wait
    bool prepared = false;                  // prepare_present's call, until made
    VkQueue queue = VK_NULL_HANDLE;
    VkPresentInfoKHR info{};
    VkSemaphore finished = VK_NULL_HANDLE;  // the Host's: the prepared present waits on it instead
    bool swapchain_named = false;           // set_swapchain was called
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
    VkPresentModeKHR wanted = VK_PRESENT_MODE_FIFO_KHR;   // present_mode's, with the surface's modes
    std::vector<VkPresentModeKHR> surface_modes;
    VkResult result = VK_SUCCESS;
    double refresh_hz = 0;
    std::string error;

    void release() {
        for (Slot& slot : slots) {
            if (slot.submitted) vk.wait_fences(device.device, 1, &slot.fence, VK_TRUE, kReuseWaitNs);
            if (slot.semaphore != VK_NULL_HANDLE) vk.destroy_semaphore(device.device, slot.semaphore, nullptr);
            if (slot.fence != VK_NULL_HANDLE) vk.destroy_fence(device.device, slot.fence, nullptr);
            slot = Slot{};
        }
        next_slot = 0;
    }

    // The next slot, its fence waited on and reset where it was used; null
    // where a semaphore or fence cannot be made.
    Slot* take_slot() {
        Slot& slot = slots[next_slot];
        const VkDevice d = device.device;
        if (slot.semaphore == VK_NULL_HANDLE) {
            const VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, nullptr, 0};
            const VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, 0};
            if (vk.create_semaphore(d, &semaphore_info, nullptr, &slot.semaphore) != VK_SUCCESS) {
                slot.semaphore = VK_NULL_HANDLE;
                return nullptr;
            }
            if (vk.create_fence(d, &fence_info, nullptr, &slot.fence) != VK_SUCCESS) {
                vk.destroy_semaphore(d, slot.semaphore, nullptr);
                slot = Slot{};
                return nullptr;
            }
        } else if (slot.submitted) {
            if (vk.wait_fences(d, 1, &slot.fence, VK_TRUE, kReuseWaitNs) != VK_SUCCESS) return nullptr;
            vk.reset_fences(d, 1, &slot.fence);
            slot.submitted = false;
        }
        next_slot = (next_slot + 1) % kSlots;
        return &slot;
    }

    // The layer's way to a fence: a submit on the present's queue that waits
    // on its semaphores and signals a slot's fence and semaphore.
    VkFence fence_for_prepared() {
        if (info.waitSemaphoreCount > kMostWaits) return VK_NULL_HANDLE;   // left as it is
        Slot* slot = take_slot();
        if (slot == nullptr) return VK_NULL_HANDLE;
        std::array<VkPipelineStageFlags, kMostWaits> stages{};
        std::fill(stages.begin(), stages.end(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        const VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, info.waitSemaphoreCount,
                                  info.pWaitSemaphores, stages.data(), 0, nullptr, 1, &slot->semaphore};
        if (vk.queue_submit(queue, 1, &submit, slot->fence) != VK_SUCCESS) return VK_NULL_HANDLE;
        slot->submitted = true;
        finished = slot->semaphore;
        return slot->fence;
    }
};

Host::Host(const Device& device) : state_(std::make_unique<State>()) { set_device(device); }

Host::~Host() {
    if (state_->ready) state_->release();
}

bool Host::set_device(const Device& device) {
    State& s = *state_;
    if (s.ready) s.release();
    s.ready = false;
    s.vk = Dispatch{};
    s.device = device;
    s.frame_fence = VK_NULL_HANDLE;
    s.prepared = false;
    s.finished = VK_NULL_HANDLE;
    s.swapchain_named = false;
    s.swapchain = VK_NULL_HANDLE;
    if (device.device == VK_NULL_HANDLE && device.get_device_proc_addr == nullptr) {
        s.error = "pacer::vulkan: no device";
        return false;
    }
    if (device.instance == VK_NULL_HANDLE || device.physical_device == VK_NULL_HANDLE ||
        device.device == VK_NULL_HANDLE || device.get_instance_proc_addr == nullptr ||
        device.get_device_proc_addr == nullptr) {
        s.error = "pacer::vulkan: Device needs an instance, a physical device, a device and both lookups";
        return false;
    }
    const VkDevice d = device.device;
    const PFN_vkGetDeviceProcAddr gdpa = device.get_device_proc_addr;
    const char* missing = nullptr;
    const auto need = [&](auto* out, const char* name, PFN_vkVoidFunction function) {
        if (!look_up(out, function) && missing == nullptr) missing = name;
    };
    need(&s.vk.queue_present, "vkQueuePresentKHR", gdpa(d, "vkQueuePresentKHR"));
    need(&s.vk.queue_submit, "vkQueueSubmit", gdpa(d, "vkQueueSubmit"));
    need(&s.vk.create_semaphore, "vkCreateSemaphore", gdpa(d, "vkCreateSemaphore"));
    need(&s.vk.destroy_semaphore, "vkDestroySemaphore", gdpa(d, "vkDestroySemaphore"));
    need(&s.vk.create_fence, "vkCreateFence", gdpa(d, "vkCreateFence"));
    need(&s.vk.destroy_fence, "vkDestroyFence", gdpa(d, "vkDestroyFence"));
    need(&s.vk.wait_fences, "vkWaitForFences", gdpa(d, "vkWaitForFences"));
    need(&s.vk.reset_fences, "vkResetFences", gdpa(d, "vkResetFences"));
    need(&s.vk.surface_present_modes, "vkGetPhysicalDeviceSurfacePresentModesKHR",
         device.get_instance_proc_addr(device.instance, "vkGetPhysicalDeviceSurfacePresentModesKHR"));
    if (missing != nullptr) {
        s.error = std::string("pacer::vulkan: ") + missing + " not found (is VK_KHR_swapchain enabled?)";
        return false;
    }
    s.ready = true;
    s.error.clear();
    return true;
}

void Host::set_window(const backends::NativeWindow& window) {
    state_->refresh_hz = window.refresh_hz;
    open_window(window);
}

VkPresentModeKHR Host::present_mode(const Pacer& pacer, VkSurfaceKHR surface, VkPresentModeKHR wanted) {
    State& s = *state_;
    s.wanted = wanted;
    s.surface_modes.clear();
    uint32_t count = 0;
    if (s.ready && s.vk.surface_present_modes(s.device.physical_device, surface, &count, nullptr) == VK_SUCCESS) {
        s.surface_modes.resize(count);
        if (s.vk.surface_present_modes(s.device.physical_device, surface, &count, s.surface_modes.data()) < 0)
            count = 0;
        s.surface_modes.resize(count);
    }
    if (s.surface_modes.empty()) {
        s.error = "pacer::vulkan: the surface's present modes cannot be read; FIFO";
        return VK_PRESENT_MODE_FIFO_KHR;
    }
    if (std::find(s.surface_modes.begin(), s.surface_modes.end(), wanted) == s.surface_modes.end()) {
        s.error = std::string("pacer::vulkan: the surface has no ") + present_mode_name(wanted) +
                  " present mode; FIFO instead";
    }
    return present_mode_for(pacer.config().strategy, wanted, s.surface_modes.data(),
                            static_cast<uint32_t>(s.surface_modes.size()));
}

void Host::set_swapchain(VkSwapchainKHR swapchain, VkPresentModeKHR mode) {
    state_->swapchain_named = true;
    state_->swapchain = swapchain;
    state_->mode = mode;
}

void Host::set_frame_fence(VkFence fence) { state_->frame_fence = fence; }

void Host::prepare_present(VkQueue queue, const VkPresentInfoKHR& info) {
    State& s = *state_;
    s.prepared = true;
    s.queue = queue;
    s.info = info;
    s.finished = VK_NULL_HANDLE;
}

VkResult Host::present(Pacer& pacer, const Frame& frame, VkQueue queue, const VkPresentInfoKHR& info) {
    State& s = *state_;
    if (!s.prepared) prepare_present(queue, info);   // else prepare_present named this one
    WindowHost::present(pacer, frame);   // before_swap, present_prepared, mark_present
    if (s.result == VK_SUCCESS && !s.surface_modes.empty() &&
        present_mode_for(pacer.config().strategy, s.wanted, s.surface_modes.data(),
                         static_cast<uint32_t>(s.surface_modes.size())) != s.mode) {
        return VK_SUBOPTIMAL_KHR;   // the strategy wants another mode: the engine remakes its swapchain
    }
    return s.result;
}

void Host::swap_buffers() { present_prepared(); }

VkResult Host::present_prepared() {
    State& s = *state_;
    const bool prepared = s.prepared;
    s.prepared = false;
    const VkSemaphore finished = s.finished;
    s.finished = VK_NULL_HANDLE;
    if (!prepared) {
        s.error = "pacer::vulkan: present_prepared with no present prepared";
        return s.result = VK_ERROR_INITIALIZATION_FAILED;
    }
    if (!s.ready) return s.result = VK_ERROR_INITIALIZATION_FAILED;   // set_device's error stands
    const VkPresentInfoKHR& info = s.info;
    if (info.swapchainCount == 0 || info.pSwapchains == nullptr || info.pSwapchains[0] == VK_NULL_HANDLE) {
        s.error = "pacer::vulkan: a present with no swapchain (a null handle): not made";
        return s.result = VK_ERROR_INITIALIZATION_FAILED;
    }
    if (s.swapchain_named && info.pSwapchains[0] != s.swapchain) {
        s.error = "pacer::vulkan: swapchain " + handle_text(handle_id(info.pSwapchains[0])) +
                  (s.swapchain == VK_NULL_HANDLE ? std::string(" after set_swapchain(VK_NULL_HANDLE)")
                                                 : " is not set_swapchain's " + handle_text(handle_id(s.swapchain))) +
                  " (destroyed?): not presented";
        return s.result = VK_ERROR_SURFACE_LOST_KHR;
    }
    if (finished == VK_NULL_HANDLE) {
        s.result = s.vk.queue_present(s.queue, &info);
    } else {
        VkPresentInfoKHR changed = info;   // the Host's submit consumed the present's own semaphores
        changed.waitSemaphoreCount = 1;
        changed.pWaitSemaphores = &finished;
        s.result = s.vk.queue_present(s.queue, &changed);
    }
    if (s.result == VK_ERROR_DEVICE_LOST) s.error = "pacer::vulkan: the device was lost (vkQueuePresentKHR)";
    return s.result;
}

VkResult Host::last_result() const { return state_->result; }
const std::string& Host::error() const { return state_->error; }

bool Host::set_swap_interval(int interval) {
    const VkPresentModeKHR mode = state_->mode;
    const bool blocks = mode == VK_PRESENT_MODE_FIFO_KHR || mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR;
    return record_swap(interval, (interval > 0) == blocks ? backends::SwapAnswer::Accepted
                                                          : backends::SwapAnswer::Refused);
}

double Host::refresh_rate_hz() { return state_->refresh_hz; }

void Host::finish_gpu(int64_t budget_ns) {
    const std::atomic<bool> never{false};
    finish_gpu_or_stop(budget_ns, never);
}

void Host::finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) {
    State& s = *state_;
    if (!s.ready) return;
    VkFence fence = s.frame_fence;
    s.frame_fence = VK_NULL_HANDLE;
    if (fence == VK_NULL_HANDLE && s.prepared && s.finished == VK_NULL_HANDLE) fence = s.fence_for_prepared();
    if (fence == VK_NULL_HANDLE) return;
    // In slices, each checking stop, up to the budget; a timeout is no
    // error (the present waits on the GPU instead).
    for (int64_t left_ns = std::max<int64_t>(budget_ns, 0);;) {
        const int64_t slice_ns = std::min(left_ns, kFenceSliceNs);
        const VkResult result =
            s.vk.wait_fences(s.device.device, 1, &fence, VK_TRUE, static_cast<uint64_t>(slice_ns));
        left_ns -= slice_ns;
        if (result == VK_ERROR_DEVICE_LOST) s.error = "pacer::vulkan: the device was lost (vkWaitForFences)";
        if (result != VK_TIMEOUT || left_ns <= 0 || stop.load(std::memory_order_relaxed)) break;
    }
}

}  // namespace pacer::vulkan
