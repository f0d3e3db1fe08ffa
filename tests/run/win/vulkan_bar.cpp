// vulkan_bar.exe: a Win32 window presented with Vulkan as fast as it
// renders (IMMEDIATE where the surface has it): a Windows game's Vulkan
// path, as DXVK's and vkd3d-proton's end, for pacer-run under Wine
// (tests/run/check_run.py wine). Wine's vulkan-1.dll hands the calls to the
// host's Vulkan loader, which loads pacer-run's layer. No import library:
// LoadLibrary and vkGetInstanceProcAddr, as a game that ships without one.
// It draws with a render pass's clear and vkCmdClearAttachments alone.
//   vulkan_bar.exe [FRAMES [EXIT_STATUS]]   (600, 0)
#include "bar_window.h"

#include <windows.h>

#define VK_NO_PROTOTYPES
#define VK_USE_PLATFORM_WIN32_KHR
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

// The functions it calls, looked up once the instance and device exist.
#define PACER_VK_FUNCTIONS(X)                                                                                \
    X(vkCreateWin32SurfaceKHR) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceQueueFamilyProperties)      \
    X(vkGetPhysicalDeviceSurfaceSupportKHR) X(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)                     \
    X(vkGetPhysicalDeviceSurfacePresentModesKHR) X(vkCreateDevice) X(vkGetDeviceProcAddr)                     \
    X(vkGetDeviceQueue) X(vkCreateSwapchainKHR) X(vkGetSwapchainImagesKHR) X(vkCreateImageView)               \
    X(vkCreateRenderPass) X(vkCreateFramebuffer) X(vkCreateCommandPool) X(vkAllocateCommandBuffers)           \
    X(vkCreateSemaphore) X(vkCreateFence) X(vkWaitForFences) X(vkResetFences) X(vkAcquireNextImageKHR)         \
    X(vkBeginCommandBuffer) X(vkCmdBeginRenderPass) X(vkCmdClearAttachments) X(vkCmdEndRenderPass)            \
    X(vkEndCommandBuffer) X(vkQueueSubmit) X(vkQueuePresentKHR) X(vkDeviceWaitIdle)
#define PACER_VK_DECLARE(name) PFN_##name name = nullptr;
PACER_VK_FUNCTIONS(PACER_VK_DECLARE)

int fail(const char* what) {
    std::fprintf(stderr, "vulkan_bar: %s\n", what);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    const long frames = bar::arg(argc, argv, 1, 600);
    const int status = static_cast<int>(bar::arg(argc, argv, 2, 0));
    HMODULE loader = LoadLibraryA("vulkan-1.dll");
    if (loader == nullptr) return fail("no vulkan-1.dll");
    const auto get_instance_proc =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(reinterpret_cast<void*>(GetProcAddress(loader, "vkGetInstanceProcAddr")));
    const auto create_instance =
        reinterpret_cast<PFN_vkCreateInstance>(get_instance_proc(VK_NULL_HANDLE, "vkCreateInstance"));
    if (create_instance == nullptr) return fail("no vkCreateInstance");

    HWND window = bar::make_window("vulkan_bar");

    const char* instance_extensions[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_WIN32_SURFACE_EXTENSION_NAME};
    VkInstanceCreateInfo instance_info{};
    instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    instance_info.enabledExtensionCount = 2;
    instance_info.ppEnabledExtensionNames = instance_extensions;
    VkInstance instance = VK_NULL_HANDLE;
    if (window == nullptr || create_instance(&instance_info, nullptr, &instance) != VK_SUCCESS)
        return fail("no window, or no Vulkan instance");
#define PACER_VK_LOOK_UP(name) name = reinterpret_cast<PFN_##name>(get_instance_proc(instance, #name));
    PACER_VK_FUNCTIONS(PACER_VK_LOOK_UP)

    VkWin32SurfaceCreateInfoKHR surface_info{};
    surface_info.sType = VK_STRUCTURE_TYPE_WIN32_SURFACE_CREATE_INFO_KHR;
    surface_info.hinstance = GetModuleHandleA(nullptr);
    surface_info.hwnd = window;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    if (vkCreateWin32SurfaceKHR(instance, &surface_info, nullptr, &surface) != VK_SUCCESS) return fail("no surface");
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> physicals(count);
    vkEnumeratePhysicalDevices(instance, &count, physicals.data());
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    uint32_t family = 0;
    for (VkPhysicalDevice candidate : physicals) {
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, nullptr);
        std::vector<VkQueueFamilyProperties> properties(families);
        vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, properties.data());
        for (uint32_t i = 0; i < families && physical == VK_NULL_HANDLE; ++i) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(candidate, i, surface, &present);
            if ((properties[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && present) physical = candidate, family = i;
        }
    }
    if (physical == VK_NULL_HANDLE) return fail("no device presents to the window");
    const float priority = 1;
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    const char* device_extension = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo device_info{};
    device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = &device_extension;
    VkDevice device = VK_NULL_HANDLE;
    if (vkCreateDevice(physical, &device_info, nullptr, &device) != VK_SUCCESS) return fail("no device");
    VkQueue queue = VK_NULL_HANDLE;
    vkGetDeviceQueue(device, family, 0, &queue);

    // The swapchain: IMMEDIATE where the surface has it, as fast as it renders.
    VkSurfaceCapabilitiesKHR caps{};
    vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, &caps);
    vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, nullptr);
    std::vector<VkPresentModeKHR> modes(count);
    vkGetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &count, modes.data());
    const bool immediate = std::find(modes.begin(), modes.end(), VK_PRESENT_MODE_IMMEDIATE_KHR) != modes.end();
    VkExtent2D extent = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : VkExtent2D{640, 360};
    VkSwapchainCreateInfoKHR swapchain_info{};
    swapchain_info.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR;
    swapchain_info.surface = surface;
    swapchain_info.minImageCount = std::max(caps.minImageCount, 2u);
    swapchain_info.imageFormat = VK_FORMAT_B8G8R8A8_UNORM;
    swapchain_info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    swapchain_info.imageExtent = extent;
    swapchain_info.imageArrayLayers = 1;
    swapchain_info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    swapchain_info.preTransform = caps.currentTransform;
    swapchain_info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    swapchain_info.presentMode = immediate ? VK_PRESENT_MODE_IMMEDIATE_KHR : VK_PRESENT_MODE_FIFO_KHR;
    swapchain_info.clipped = VK_TRUE;
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    if (vkCreateSwapchainKHR(device, &swapchain_info, nullptr, &swapchain) != VK_SUCCESS) return fail("no swapchain");
    vkGetSwapchainImagesKHR(device, swapchain, &count, nullptr);
    std::vector<VkImage> images(count);
    vkGetSwapchainImagesKHR(device, swapchain, &count, images.data());

    VkAttachmentDescription color{};
    color.format = VK_FORMAT_B8G8R8A8_UNORM;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &reference;
    VkSubpassDependency acquire{VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0};
    VkRenderPassCreateInfo pass_info{};
    pass_info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
    pass_info.attachmentCount = 1;
    pass_info.pAttachments = &color;
    pass_info.subpassCount = 1;
    pass_info.pSubpasses = &subpass;
    pass_info.dependencyCount = 1;
    pass_info.pDependencies = &acquire;
    VkRenderPass render_pass = VK_NULL_HANDLE;
    vkCreateRenderPass(device, &pass_info, nullptr, &render_pass);
    std::vector<VkFramebuffer> framebuffers(images.size());
    std::vector<VkSemaphore> rendered(images.size());
    VkSemaphoreCreateInfo semaphore_info{};
    semaphore_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    for (size_t i = 0; i < images.size(); ++i) {
        VkImageViewCreateInfo view_info{};
        view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
        view_info.image = images[i];
        view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view_info.format = VK_FORMAT_B8G8R8A8_UNORM;
        view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView view = VK_NULL_HANDLE;
        vkCreateImageView(device, &view_info, nullptr, &view);
        VkFramebufferCreateInfo framebuffer_info{};
        framebuffer_info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
        framebuffer_info.renderPass = render_pass;
        framebuffer_info.attachmentCount = 1;
        framebuffer_info.pAttachments = &view;
        framebuffer_info.width = extent.width;
        framebuffer_info.height = extent.height;
        framebuffer_info.layers = 1;
        vkCreateFramebuffer(device, &framebuffer_info, nullptr, &framebuffers[i]);
        vkCreateSemaphore(device, &semaphore_info, nullptr, &rendered[i]);
    }
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = family;
    VkCommandPool pool = VK_NULL_HANDLE;
    vkCreateCommandPool(device, &pool_info, nullptr, &pool);
    VkCommandBuffer commands[2] = {};
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = pool;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 2;
    vkAllocateCommandBuffers(device, &allocate, commands);
    VkSemaphore acquired[2] = {};
    VkFence in_flight[2] = {};
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    fence_info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    for (int i = 0; i < 2; ++i) {
        vkCreateSemaphore(device, &semaphore_info, nullptr, &acquired[i]);
        vkCreateFence(device, &fence_info, nullptr, &in_flight[i]);
    }

    const bar::Clock clock;
    long i = 0;
    for (; i < frames && bar::pump_messages(); ++i) {
        const int f = static_cast<int>(i % 2);
        vkWaitForFences(device, 1, &in_flight[f], VK_TRUE, UINT64_MAX);
        uint32_t image = 0;
        if (vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, acquired[f], VK_NULL_HANDLE, &image) < 0)
            return fail("vkAcquireNextImageKHR failed");
        vkResetFences(device, 1, &in_flight[f]);
        VkCommandBufferBeginInfo begin{};
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        vkBeginCommandBuffer(commands[f], &begin);
        VkClearValue dark{};
        dark.color = {{0.08f, 0.09f, 0.12f, 1}};
        VkRenderPassBeginInfo pass{};
        pass.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
        pass.renderPass = render_pass;
        pass.framebuffer = framebuffers[image];
        pass.renderArea = {{0, 0}, extent};
        pass.clearValueCount = 1;
        pass.pClearValues = &dark;
        vkCmdBeginRenderPass(commands[f], &pass, VK_SUBPASS_CONTENTS_INLINE);
        // A bar crossing the window at 400 px/s, at the measured time.
        VkClearAttachment white{VK_IMAGE_ASPECT_COLOR_BIT, 0, {}};
        white.clearValue.color = {{0.95f, 0.95f, 0.95f, 1}};
        const auto x = static_cast<int32_t>(std::fmod(clock.seconds() * 400, extent.width > 40 ? extent.width - 40 : 1));
        const VkClearRect rect{{{x, 0}, {std::min(40u, extent.width), extent.height}}, 0, 1};
        vkCmdClearAttachments(commands[f], 1, &white, 1, &rect);
        vkCmdEndRenderPass(commands[f]);
        vkEndCommandBuffer(commands[f]);
        const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkSubmitInfo submit{};
        submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        submit.waitSemaphoreCount = 1;
        submit.pWaitSemaphores = &acquired[f];
        submit.pWaitDstStageMask = &stage;
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &commands[f];
        submit.signalSemaphoreCount = 1;
        submit.pSignalSemaphores = &rendered[image];
        vkQueueSubmit(queue, 1, &submit, in_flight[f]);
        VkPresentInfoKHR present{};
        present.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR;
        present.waitSemaphoreCount = 1;
        present.pWaitSemaphores = &rendered[image];
        present.swapchainCount = 1;
        present.pSwapchains = &swapchain;
        present.pImageIndices = &image;
        if (vkQueuePresentKHR(queue, &present) < 0) return fail("vkQueuePresentKHR failed");
    }
    vkDeviceWaitIdle(device);
    std::printf("vulkan_bar: %ld frames in %.2f s (%s)\n", i, clock.seconds(), immediate ? "IMMEDIATE" : "FIFO");
    // The process's end frees the rest, as many games' do.
    return status;
}
