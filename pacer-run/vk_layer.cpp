// vk_layer.cpp: pacer-run's Vulkan half, the layer VK_LAYER_PACER_frame_pacing
// (named in the manifest, VkLayer_pacer_frame_pacing.json.in, and in
// pacer-run's main.cpp). It hooks vkQueuePresentKHR and hands each present
// to the process's session (session.h), through the Host an engine links,
// pacer::vulkan::Host (pacer/backends/vulkan.h), bound to the device of the
// paced present's queue and calling the next layer's functions:
//   1. the frame's GPU work finished: the Host's submit that waits on the
//      present's semaphores (Host::prepare_present), its fence waited on
//      within the frame's budget;
//   2. the pacer's wait;
//   3. the present, waiting on the Host's semaphore in place of the
//      program's (already consumed by the submit).
// The present mode is set where the swapchain is made, as the Host's
// present_mode_for says for the strategy: FIFO for vsync; for auto and
// display_lock, a FIFO the program asked for becomes IMMEDIATE (else
// MAILBOX): display_lock times each frame to its refresh itself, and a FIFO
// queue would hold it back a refresh (vkcube-wayland on weston: auto saw
// display_lock's frames shown early and left it). The others keep the
// program's.
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

#include <pacer/backends/vulkan.h>

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

struct DeviceData {
    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkInstance instance = VK_NULL_HANDLE;
    PFN_vkGetInstanceProcAddr next_gipa = nullptr;   // the instance's
    PFN_vkGetPhysicalDeviceSurfacePresentModesKHR present_modes = nullptr;   // the instance's
    PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
    PFN_vkDestroyDevice destroy = nullptr;
    PFN_vkQueuePresentKHR present = nullptr;
    PFN_vkCreateSwapchainKHR create_swapchain = nullptr;
    PFN_vkDestroySwapchainKHR destroy_swapchain = nullptr;
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

// One present, as the hook received it.
struct VkCall {
    DeviceData* device;
    VkQueue queue;
    const VkPresentInfoKHR* info;
    bool via_host = false;   // the session paces it: the Host makes it
    bool ran = false;        // run_present made it (else the Host's present did)
    VkResult result = VK_SUCCESS;
};

// The session's side of the layer: one Host, moved to the device of the
// paced present's queue where it changes (a program that remakes its device).
class VkApi final : public HookedApi {
public:
    pacer::backends::WindowHost& host() override { return host_; }
    pacer::vulkan::Host& vulkan_host() { return host_; }
    const char* api_name() const override { return "Vulkan"; }
    void present_with(Run, void* context) override {
        if (context == nullptr) {
            if (current_ != nullptr) current_->via_host = false;
            current_ = nullptr;
            return;
        }
        current_ = static_cast<VkCall*>(context);
        const DeviceData& d = *current_->device;
        if (bound_ != d.device) {
            host_.set_device({d.instance, d.physical, d.device, d.next_gipa, d.next_gdpa});
            bound_ = d.device;
        }
        const VkPresentInfoKHR& info = *current_->info;
        VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
        {
            std::lock_guard<std::mutex> lock(*g_mutex);
            const auto found = g_swapchains->find(handle_id(info.pSwapchains[0]));
            if (found != g_swapchains->end()) mode = found->second.mode;
        }
        host_.set_swapchain(info.pSwapchains[0], mode);
        host_.prepare_present(current_->queue, info);
        current_->via_host = true;
    }
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
        pacer::backends::NativeWindow native;
        if (found.x11_window != 0) {
            native.x11_display = found.display;
            native.x11_window = found.x11_window;
        } else {
            native.wl_display = found.display;
            native.wl_surface = found.surface;
        }
        host_.set_window(native);
    }
    // Before vkDestroyDevice: the Host's fences and semaphores on it freed.
    void device_going(VkDevice device) {
        if (bound_ != device) return;
        host_.set_device({});
        bound_ = VK_NULL_HANDLE;
    }

private:
    pacer::vulkan::Host host_{pacer::vulkan::Device{}};
    VkDevice bound_ = VK_NULL_HANDLE;
    VkCall* current_ = nullptr;   // the paced present under way
};

VkApi& vk_api() {
    static VkApi* const api = new VkApi;   // never destroyed: presents may come until the end
    return *api;
}

void run_present(void* context) {
    auto* call = static_cast<VkCall*>(context);
    call->ran = true;
    call->result = call->via_host ? vk_api().vulkan_host().present_prepared()
                                  : call->device->present(call->queue, call->info);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_present(VkQueue queue, const VkPresentInfoKHR* info) {
    DeviceData* device = device_of(queue);
    if (device == nullptr) return VK_ERROR_DEVICE_LOST;
    VkCall call{device, queue, info};
    Session* session = process_session();
    if (session == nullptr || info->swapchainCount == 0) {
        run_present(&call);
    } else {
        session->present(reinterpret_cast<const void*>(handle_id(info->pSwapchains[0])), vk_api(), run_present,
                         &call);
        if (!call.ran) call.result = vk_api().vulkan_host().last_result();   // the Host's present made it
    }
    return call.result;
}

// The mode a swapchain is made with under the session's strategy.
VkPresentModeKHR paced_mode(const DeviceData& d, const Session& session, VkSurfaceKHR surface,
                            VkPresentModeKHR wanted) {
    std::array<VkPresentModeKHR, 16> modes{};
    uint32_t count = modes.size();
    if (d.present_modes == nullptr || d.present_modes(d.physical, surface, &count, modes.data()) < 0) count = 0;
    return pacer::vulkan::present_mode_for(session.strategy(), wanted, modes.data(), count);
}

VKAPI_ATTR VkResult VKAPI_CALL create_swapchain(VkDevice device, const VkSwapchainCreateInfoKHR* info,
                                                const VkAllocationCallbacks* allocator, VkSwapchainKHR* out) {
    DeviceData* d = device_of(device);
    if (d == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
    VkSwapchainCreateInfoKHR changed = *info;
    Session* session = process_session();
    if (session != nullptr && session->owns_swap_interval())
        changed.presentMode = paced_mode(*d, *session, info->surface, info->presentMode);
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
    vk_api().device_going(device);
    d->destroy(device, allocator);
    delete d;
}

// A surface the next layer made, and where its frames go, remembered for
// VkApi::starting: the three surface hooks below differ only in which.
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
    d->instance = instance->instance;
    d->next_gipa = instance->next_gipa;
    d->present_modes = instance->present_modes;
    d->next_gdpa = gdpa;
    d->destroy = next_device<PFN_vkDestroyDevice>(gdpa, *out, "vkDestroyDevice");
    d->present = next_device<PFN_vkQueuePresentKHR>(gdpa, *out, "vkQueuePresentKHR");
    d->create_swapchain = next_device<PFN_vkCreateSwapchainKHR>(gdpa, *out, "vkCreateSwapchainKHR");
    d->destroy_swapchain = next_device<PFN_vkDestroySwapchainKHR>(gdpa, *out, "vkDestroySwapchainKHR");
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
