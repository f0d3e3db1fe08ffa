// engine.h: the Vulkan engine the README's Vulkan loop is written against,
// declared only: the loop is compiled against it (tests/consumer), and
// examples/glfw_vulkan is the whole program that runs.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>

struct Engine {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    bool running();
    void make_swapchain(VkPresentModeKHR mode);   // vkCreateSwapchainKHR in that mode (the old one retired)
    VkFence render();                             // acquire, record, vkQueueSubmit: the submit's fence
    VkPresentInfoKHR present_info();              // the image rendered, its semaphore
    void advance(int64_t dt_ns);                  // the simulation's step
};
