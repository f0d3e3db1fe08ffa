// vk_layer.cpp: pacer-run's Vulkan half, the layer VK_LAYER_PACER_frame_pacing
// (named in the manifest and in pacer-run's main.cpp)
// (manifest: VkLayer_pacer_frame_pacing.json.in). It hooks vkQueuePresentKHR
// and hands each present to the process's session (session.h):
//   1. the frame's GPU work finished (VkHost::finish_gpu_or_stop): a submit
//      on the present's queue that waits on the present's semaphores and
//      signals a fence and a semaphore of the layer's, the fence waited on
//      within the frame's budget;
//   2. the pacer's wait;
//   3. the present, waiting on the layer's semaphore in place of the
//      program's (already consumed by the submit).
// The present mode is set where the swapchain is made: FIFO for vsync;
// for auto and display_lock, a FIFO the program asked for becomes IMMEDIATE
// (else MAILBOX) where the surface has it, since display_lock times each
// frame to its refresh itself and a FIFO queue would hold it back a refresh
// (vkcube-wayland on weston: auto saw display_lock's frames shown early and
// left it); IMMEDIATE before MAILBOX, because Mesa's software X11 swapchain
// hands a MAILBOX image to a thread of its own, which puts it on the window
// when it runs, not when the pacer presents (docs/x11.md). The others keep
// the program's. The swap interval the pacer
// asks for is accepted where the mode gives it (FIFO: 1, the others: 0).
// The swapchain's surface tells where the present feedback auto and
// display_lock pace to comes from: vkCreateWaylandSurfaceKHR's wl_surface
// (wp_presentation), or vkCreateXlibSurfaceKHR's and vkCreateXcbSurfaceKHR's
// X window (X11's Present, asked on a connection of pacer's own: an XCB
// surface's server is $DISPLAY's).
//
// The same shared library is pacer-run's GL preload: loaded both ways, it is
// one session. It exports only vkNegotiateLoaderLayerInterfaceVersion, so a
// program's own vkGetInstanceProcAddr is never shadowed by the preload.
#include "session.h"

// vulkan_wayland.h's types need only the two opaque Wayland structs; the
// Xlib and XCB surfaces' are declared here, so that neither header (and
// Xlib's macros) comes in.
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#define PACER_EXPORT extern "C" __attribute__((visibility("default")))

namespace pacer_run {
namespace {

constexpr int64_t kFenceSliceNs = 20'000'000;   // Pacer::interrupt's slice (pacer.h)
constexpr uint64_t kReuseWaitNs = 1'000'000'000;

// The dispatch key of a dispatchable handle: the loader's table pointer,
// shared by an instance and its physical devices, a device and its queues.
void* key_of(const void* handle) { return *static_cast<void* const*>(handle); }

// vulkan_xlib.h's and vulkan_xcb.h's create-infos, as the Vulkan headers
// lay them out (sType, pNext, flags, then the display or connection, and
// the window: an XID).
struct XlibSurfaceCreateInfo {
    VkStructureType sType;
    const void* pNext;
    VkFlags flags;
    void* dpy;
    unsigned long window;
};
struct XcbSurfaceCreateInfo {
    VkStructureType sType;
    const void* pNext;
    VkFlags flags;
    void* connection;
    uint32_t window;
};
using CreateXlibSurfaceFn = VkResult(VKAPI_PTR*)(VkInstance, const XlibSurfaceCreateInfo*,
                                                 const VkAllocationCallbacks*, VkSurfaceKHR*);
using CreateXcbSurfaceFn = VkResult(VKAPI_PTR*)(VkInstance, const XcbSurfaceCreateInfo*,
                                                const VkAllocationCallbacks*, VkSurfaceKHR*);

struct InstanceData {
    VkInstance instance = VK_NULL_HANDLE;
    PFN_vkGetInstanceProcAddr next_gipa = nullptr;
    PFN_vkDestroyInstance destroy = nullptr;
    PFN_vkCreateWaylandSurfaceKHR create_wayland_surface = nullptr;
    CreateXlibSurfaceFn create_xlib_surface = nullptr;
    CreateXcbSurfaceFn create_xcb_surface = nullptr;
    PFN_vkGetPhysicalDeviceSurfacePresentModesKHR present_modes = nullptr;
};

// The layer's semaphores and fences, used in turn: a binary semaphore a
// present waited on can only be reused once that wait is surely over.
constexpr std::size_t kSlots = 8;
struct Slot {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    bool submitted = false;
};

struct DeviceData {
    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    PFN_vkGetPhysicalDeviceSurfacePresentModesKHR present_modes = nullptr;   // the instance's
    PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
    PFN_vkDestroyDevice destroy = nullptr;
    PFN_vkQueuePresentKHR present = nullptr;
    PFN_vkQueueSubmit submit = nullptr;
    PFN_vkCreateSwapchainKHR create_swapchain = nullptr;
    PFN_vkDestroySwapchainKHR destroy_swapchain = nullptr;
    PFN_vkCreateSemaphore create_semaphore = nullptr;
    PFN_vkDestroySemaphore destroy_semaphore = nullptr;
    PFN_vkCreateFence create_fence = nullptr;
    PFN_vkDestroyFence destroy_fence = nullptr;
    PFN_vkWaitForFences wait_fences = nullptr;
    PFN_vkResetFences reset_fences = nullptr;
    std::array<Slot, kSlots> slots{};
    std::size_t next_slot = 0;
};

struct SwapchainData {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
};

// Where a surface's frames go: a Wayland surface (display, surface) or an
// X window (x11_window, on the Xlib display given, else $DISPLAY's server).
struct WindowOf {
    void* display = nullptr;
    void* surface = nullptr;
    unsigned long x11_window = 0;
};

std::mutex* const g_mutex = new std::mutex;   // the maps below; never destroyed
auto* const g_instances = new std::unordered_map<void*, InstanceData>;
auto* const g_devices = new std::unordered_map<void*, DeviceData*>;
auto* const g_swapchains = new std::unordered_map<uint64_t, SwapchainData>;
auto* const g_surfaces = new std::unordered_map<uint64_t, WindowOf>;   // Wayland's and X11's

uint64_t handle_id(VkSwapchainKHR handle) { return reinterpret_cast<uint64_t>(handle); }
uint64_t handle_id(VkSurfaceKHR handle) { return reinterpret_cast<uint64_t>(handle); }

InstanceData* instance_of(const void* dispatchable) {
    std::lock_guard<std::mutex> lock(*g_mutex);
    const auto found = g_instances->find(key_of(dispatchable));
    return found == g_instances->end() ? nullptr : &found->second;
}

DeviceData* device_of(const void* dispatchable) {
    std::lock_guard<std::mutex> lock(*g_mutex);
    const auto found = g_devices->find(key_of(dispatchable));
    return found == g_devices->end() ? nullptr : found->second;
}

// One present, as the hook received it, and what the Host did to it.
struct VkCall {
    DeviceData* device;
    VkQueue queue;
    const VkPresentInfoKHR* info;
    VkSemaphore finished = VK_NULL_HANDLE;   // the layer's: the present waits on it instead
    VkResult result = VK_SUCCESS;
};

class VkHost final : public PresentHost {
public:
    const char* api_name() const override { return "Vulkan"; }
    bool set_swap_interval(int interval) override {
        const auto* call = static_cast<const VkCall*>(present_context());
        VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
        if (call != nullptr && call->info->swapchainCount > 0) {
            std::lock_guard<std::mutex> lock(*g_mutex);
            const auto found = g_swapchains->find(handle_id(call->info->pSwapchains[0]));
            if (found != g_swapchains->end()) mode = found->second.mode;
        }
        const bool blocks = mode == VK_PRESENT_MODE_FIFO_KHR || mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR;
        return record_swap(interval, (interval > 0) == blocks ? pacer::backends::SwapAnswer::Accepted
                                                              : pacer::backends::SwapAnswer::Refused);
    }
    double refresh_rate_hz() override { return 0; }   // Wayland states it in each report
    void starting(const void* window) override {
        WindowOf found;
        {
            std::lock_guard<std::mutex> lock(*g_mutex);
            const auto swapchain = g_swapchains->find(reinterpret_cast<uint64_t>(window));
            if (swapchain == g_swapchains->end()) return;
            const auto surface = g_surfaces->find(handle_id(swapchain->second.surface));
            if (surface == g_surfaces->end()) return;
            found = surface->second;
        }
        if (found.x11_window != 0) {
            watch_x11_window(found.display, found.x11_window);
        } else {
            watch_surface(found.display, found.surface);
        }
    }
    void finish_gpu_or_stop(int64_t budget_ns, const std::atomic<bool>& stop) override {
        auto* call = static_cast<VkCall*>(present_context());
        if (call == nullptr || call->finished != VK_NULL_HANDLE) return;
        DeviceData& d = *call->device;
        Slot& slot = d.slots[d.next_slot];
        if (slot.semaphore == VK_NULL_HANDLE) {
            const VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, nullptr, 0};
            const VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, 0};
            if (d.create_semaphore(d.device, &semaphore_info, nullptr, &slot.semaphore) != VK_SUCCESS) return;
            if (d.create_fence(d.device, &fence_info, nullptr, &slot.fence) != VK_SUCCESS) {
                d.destroy_semaphore(d.device, slot.semaphore, nullptr);
                slot.semaphore = VK_NULL_HANDLE;
                return;
            }
        } else if (slot.submitted) {   // kSlots presents ago: long done
            if (d.wait_fences(d.device, 1, &slot.fence, VK_TRUE, kReuseWaitNs) != VK_SUCCESS) return;
            d.reset_fences(d.device, 1, &slot.fence);
            slot.submitted = false;
        }
        const uint32_t waits = call->info->waitSemaphoreCount;
        std::array<VkPipelineStageFlags, 16> stages{};
        if (waits > stages.size()) return;   // more than any program uses: left as it is
        std::fill(stages.begin(), stages.end(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        const VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, waits, call->info->pWaitSemaphores,
                                  stages.data(), 0, nullptr, 1, &slot.semaphore};
        if (d.submit(call->queue, 1, &submit, slot.fence) != VK_SUCCESS) return;
        slot.submitted = true;
        d.next_slot = (d.next_slot + 1) % kSlots;
        call->finished = slot.semaphore;
        // The fence waited on in slices, each checking stop, up to the budget.
        for (int64_t left_ns = std::max<int64_t>(budget_ns, 0);;) {
            const int64_t slice_ns = std::min(left_ns, kFenceSliceNs);
            const VkResult result = d.wait_fences(d.device, 1, &slot.fence, VK_TRUE, static_cast<uint64_t>(slice_ns));
            left_ns -= slice_ns;
            if (result != VK_TIMEOUT || left_ns <= 0 || stop.load(std::memory_order_relaxed)) break;
        }
    }
    void finish_gpu(int64_t budget_ns) override {
        const std::atomic<bool> never{false};
        finish_gpu_or_stop(budget_ns, never);
    }

protected:
    bool gl_context_current() const override { return false; }
    void* gl_function(const char*) const override { return nullptr; }
};

VkHost& vk_host() {
    static VkHost* const host = new VkHost;   // never destroyed: presents may come until the end
    return *host;
}

void run_present(void* context) {
    auto* call = static_cast<VkCall*>(context);
    if (call->finished == VK_NULL_HANDLE) {
        call->result = call->device->present(call->queue, call->info);
        return;
    }
    VkPresentInfoKHR info = *call->info;
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &call->finished;
    call->result = call->device->present(call->queue, &info);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_present(VkQueue queue, const VkPresentInfoKHR* info) {
    DeviceData* device = device_of(queue);
    if (device == nullptr) return VK_ERROR_DEVICE_LOST;
    VkCall call{device, queue, info};
    Session* session = process_session();
    if (session == nullptr || info->swapchainCount == 0) {
        run_present(&call);
    } else {
        session->present(reinterpret_cast<const void*>(handle_id(info->pSwapchains[0])), vk_host(), run_present,
                         &call);
    }
    return call.result;
}

// IMMEDIATE, else MAILBOX, where the surface has one; else FIFO.
VkPresentModeKHR unqueued_mode(const DeviceData& d, VkSurfaceKHR surface) {
    std::array<VkPresentModeKHR, 16> modes{};
    uint32_t count = modes.size();
    if (d.present_modes == nullptr || d.present_modes(d.physical, surface, &count, modes.data()) < 0)
        return VK_PRESENT_MODE_FIFO_KHR;
    for (const VkPresentModeKHR wanted : {VK_PRESENT_MODE_IMMEDIATE_KHR, VK_PRESENT_MODE_MAILBOX_KHR}) {
        if (std::find(modes.begin(), modes.begin() + count, wanted) != modes.begin() + count) return wanted;
    }
    return VK_PRESENT_MODE_FIFO_KHR;
}

VKAPI_ATTR VkResult VKAPI_CALL create_swapchain(VkDevice device, const VkSwapchainCreateInfoKHR* info,
                                                const VkAllocationCallbacks* allocator, VkSwapchainKHR* out) {
    DeviceData* d = device_of(device);
    if (d == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    VkSwapchainCreateInfoKHR changed = *info;
    Session* session = process_session();
    if (session != nullptr && session->wants_vsync()) {
        changed.presentMode = VK_PRESENT_MODE_FIFO_KHR;   // every device has it
    } else if (session != nullptr && session->owns_swap_interval() && info->presentMode == VK_PRESENT_MODE_FIFO_KHR) {
        changed.presentMode = unqueued_mode(*d, info->surface);
    }
    const VkResult result = d->create_swapchain(device, &changed, allocator, out);
    if (result == VK_SUCCESS) {
        std::lock_guard<std::mutex> lock(*g_mutex);
        (*g_swapchains)[handle_id(*out)] = {info->surface, changed.presentMode};
    }
    return result;
}

VKAPI_ATTR void VKAPI_CALL destroy_swapchain(VkDevice device, VkSwapchainKHR swapchain,
                                             const VkAllocationCallbacks* allocator) {
    DeviceData* d = device_of(device);
    if (d == nullptr) return;
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        g_swapchains->erase(handle_id(swapchain));
    }
    d->destroy_swapchain(device, swapchain, allocator);
}

VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device, const VkAllocationCallbacks* allocator) {
    DeviceData* d = nullptr;
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        const auto found = g_devices->find(key_of(device));
        if (found == g_devices->end()) return;
        d = found->second;
        g_devices->erase(found);
    }
    for (Slot& slot : d->slots) {
        if (slot.submitted) d->wait_fences(device, 1, &slot.fence, VK_TRUE, kReuseWaitNs);
        if (slot.semaphore != VK_NULL_HANDLE) d->destroy_semaphore(device, slot.semaphore, nullptr);
        if (slot.fence != VK_NULL_HANDLE) d->destroy_fence(device, slot.fence, nullptr);
    }
    d->destroy(device, allocator);
    delete d;
}

// A surface the next layer made, and where its frames go, remembered for
// VkHost::starting: the three surface hooks below differ only in which.
template <class Info, class Next>
VkResult make_surface(VkInstance instance, const Info* info, const VkAllocationCallbacks* allocator,
                      VkSurfaceKHR* out, Next InstanceData::*next, const WindowOf& window) {
    InstanceData* data = instance_of(instance);
    if (data == nullptr || data->*next == nullptr) return VK_ERROR_EXTENSION_NOT_PRESENT;
    const VkResult result = (data->*next)(instance, info, allocator, out);
    if (result == VK_SUCCESS) {
        std::lock_guard<std::mutex> lock(*g_mutex);
        (*g_surfaces)[handle_id(*out)] = window;
    }
    return result;
}

VKAPI_ATTR VkResult VKAPI_CALL create_wayland_surface(VkInstance instance, const VkWaylandSurfaceCreateInfoKHR* info,
                                                      const VkAllocationCallbacks* allocator, VkSurfaceKHR* out) {
    return make_surface(instance, info, allocator, out, &InstanceData::create_wayland_surface,
                        {info->display, info->surface, 0});
}

VKAPI_ATTR VkResult VKAPI_CALL create_xlib_surface(VkInstance instance, const XlibSurfaceCreateInfo* info,
                                                   const VkAllocationCallbacks* allocator, VkSurfaceKHR* out) {
    return make_surface(instance, info, allocator, out, &InstanceData::create_xlib_surface,
                        {info->dpy, nullptr, info->window});
}

VKAPI_ATTR VkResult VKAPI_CALL create_xcb_surface(VkInstance instance, const XcbSurfaceCreateInfo* info,
                                                  const VkAllocationCallbacks* allocator, VkSurfaceKHR* out) {
    // No server's name with an XCB connection: $DISPLAY's.
    return make_surface(instance, info, allocator, out, &InstanceData::create_xcb_surface,
                        {nullptr, nullptr, info->window});
}

template <class Fn>
Fn next_device(PFN_vkGetDeviceProcAddr gdpa, VkDevice device, const char* name) {
    return reinterpret_cast<Fn>(gdpa(device, name));
}

VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice physical, const VkDeviceCreateInfo* info,
                                             const VkAllocationCallbacks* allocator, VkDevice* out) {
    auto* chain = static_cast<VkLayerDeviceCreateInfo*>(const_cast<void*>(info->pNext));
    while (chain != nullptr &&
           !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
        chain = static_cast<VkLayerDeviceCreateInfo*>(const_cast<void*>(chain->pNext));
    InstanceData* instance = instance_of(physical);
    if (chain == nullptr || instance == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    const PFN_vkGetDeviceProcAddr gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    const auto create = reinterpret_cast<PFN_vkCreateDevice>(gipa(instance->instance, "vkCreateDevice"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult result = create(physical, info, allocator, out);
    if (result != VK_SUCCESS) return result;
    auto* d = new DeviceData;
    d->device = *out;
    d->physical = physical;
    d->present_modes = instance->present_modes;
    d->next_gdpa = gdpa;
    d->destroy = next_device<PFN_vkDestroyDevice>(gdpa, *out, "vkDestroyDevice");
    d->present = next_device<PFN_vkQueuePresentKHR>(gdpa, *out, "vkQueuePresentKHR");
    d->submit = next_device<PFN_vkQueueSubmit>(gdpa, *out, "vkQueueSubmit");
    d->create_swapchain = next_device<PFN_vkCreateSwapchainKHR>(gdpa, *out, "vkCreateSwapchainKHR");
    d->destroy_swapchain = next_device<PFN_vkDestroySwapchainKHR>(gdpa, *out, "vkDestroySwapchainKHR");
    d->create_semaphore = next_device<PFN_vkCreateSemaphore>(gdpa, *out, "vkCreateSemaphore");
    d->destroy_semaphore = next_device<PFN_vkDestroySemaphore>(gdpa, *out, "vkDestroySemaphore");
    d->create_fence = next_device<PFN_vkCreateFence>(gdpa, *out, "vkCreateFence");
    d->destroy_fence = next_device<PFN_vkDestroyFence>(gdpa, *out, "vkDestroyFence");
    d->wait_fences = next_device<PFN_vkWaitForFences>(gdpa, *out, "vkWaitForFences");
    d->reset_fences = next_device<PFN_vkResetFences>(gdpa, *out, "vkResetFences");
    std::lock_guard<std::mutex> lock(*g_mutex);
    (*g_devices)[key_of(*out)] = d;
    return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* allocator,
                                               VkInstance* out) {
    auto* chain = static_cast<VkLayerInstanceCreateInfo*>(const_cast<void*>(info->pNext));
    while (chain != nullptr &&
           !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
        chain = static_cast<VkLayerInstanceCreateInfo*>(const_cast<void*>(chain->pNext));
    if (chain == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    const auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    const VkResult result = create(info, allocator, out);
    if (result != VK_SUCCESS) return result;
    InstanceData data;
    data.instance = *out;
    data.next_gipa = gipa;
    data.destroy = reinterpret_cast<PFN_vkDestroyInstance>(gipa(*out, "vkDestroyInstance"));
    data.create_wayland_surface =
        reinterpret_cast<PFN_vkCreateWaylandSurfaceKHR>(gipa(*out, "vkCreateWaylandSurfaceKHR"));
    data.create_xlib_surface = reinterpret_cast<CreateXlibSurfaceFn>(gipa(*out, "vkCreateXlibSurfaceKHR"));
    data.create_xcb_surface = reinterpret_cast<CreateXcbSurfaceFn>(gipa(*out, "vkCreateXcbSurfaceKHR"));
    data.present_modes = reinterpret_cast<PFN_vkGetPhysicalDeviceSurfacePresentModesKHR>(
        gipa(*out, "vkGetPhysicalDeviceSurfacePresentModesKHR"));
    std::lock_guard<std::mutex> lock(*g_mutex);
    (*g_instances)[key_of(*out)] = data;
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL destroy_instance(VkInstance instance, const VkAllocationCallbacks* allocator) {
    PFN_vkDestroyInstance destroy = nullptr;
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        const auto found = g_instances->find(key_of(instance));
        if (found == g_instances->end()) return;
        destroy = found->second.destroy;
        g_instances->erase(found);
    }
    if (destroy != nullptr) destroy(instance, allocator);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr(VkDevice device, const char* name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_instance_proc_addr(VkInstance instance, const char* name);

// The layer's own functions, by name.
using OwnFunction = std::pair<const char*, PFN_vkVoidFunction>;
template <std::size_t N>
PFN_vkVoidFunction find_own(const OwnFunction (&table)[N], const char* name) {
    for (const auto& [own, fn] : table) {
        if (std::strcmp(own, name) == 0) return fn;
    }
    return nullptr;
}

PFN_vkVoidFunction own_device_function(const char* name) {
    static const OwnFunction table[] = {
        {"vkGetDeviceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(&get_device_proc_addr)},
        {"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(&destroy_device)},
        {"vkQueuePresentKHR", reinterpret_cast<PFN_vkVoidFunction>(&queue_present)},
        {"vkCreateSwapchainKHR", reinterpret_cast<PFN_vkVoidFunction>(&create_swapchain)},
        {"vkDestroySwapchainKHR", reinterpret_cast<PFN_vkVoidFunction>(&destroy_swapchain)},
    };
    return find_own(table, name);
}

PFN_vkVoidFunction own_instance_function(const char* name) {
    static const OwnFunction table[] = {
        {"vkGetInstanceProcAddr", reinterpret_cast<PFN_vkVoidFunction>(&get_instance_proc_addr)},
        {"vkCreateInstance", reinterpret_cast<PFN_vkVoidFunction>(&create_instance)},
        {"vkDestroyInstance", reinterpret_cast<PFN_vkVoidFunction>(&destroy_instance)},
        {"vkCreateDevice", reinterpret_cast<PFN_vkVoidFunction>(&create_device)},
        {"vkCreateWaylandSurfaceKHR", reinterpret_cast<PFN_vkVoidFunction>(&create_wayland_surface)},
        {"vkCreateXlibSurfaceKHR", reinterpret_cast<PFN_vkVoidFunction>(&create_xlib_surface)},
        {"vkCreateXcbSurfaceKHR", reinterpret_cast<PFN_vkVoidFunction>(&create_xcb_surface)},
    };
    if (PFN_vkVoidFunction own = find_own(table, name)) return own;
    return own_device_function(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr(VkDevice device, const char* name) {
    if (PFN_vkVoidFunction own = own_device_function(name)) return own;
    DeviceData* d = device == VK_NULL_HANDLE ? nullptr : device_of(device);
    return d == nullptr ? nullptr : d->next_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_instance_proc_addr(VkInstance instance, const char* name) {
    if (PFN_vkVoidFunction own = own_instance_function(name)) return own;
    InstanceData* data = instance == VK_NULL_HANDLE ? nullptr : instance_of(instance);
    return data == nullptr ? nullptr : data->next_gipa(instance, name);
}

}  // namespace
}  // namespace pacer_run

// The loader's entry to the layer (interface version 2): the two lookups.
PACER_EXPORT VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
    if (version == nullptr || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
        version->loaderLayerInterfaceVersion < 2)
        return VK_ERROR_INITIALIZATION_FAILED;
    version->loaderLayerInterfaceVersion = 2;
    version->pfnGetInstanceProcAddr = pacer_run::get_instance_proc_addr;
    version->pfnGetDeviceProcAddr = pacer_run::get_device_proc_addr;
    version->pfnGetPhysicalDeviceProcAddr = nullptr;
    return VK_SUCCESS;
}
