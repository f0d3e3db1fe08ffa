// examples/glfw_vulkan: pacer in a GLFW + Vulkan program, whole: a window, a
// swapchain, a pacer on auto through the Vulkan backend
// (pacer::vulkan::Host), and a bar moving at a steady speed, which jumps
// where frames come unevenly. It draws with a render pass's clear and
// vkCmdClearAttachments alone: no shader, no pipeline.
//   glfw_vulkan [--hz N] [--frames N] [--resize-every N] [--no-pacer]
// --resize-every N resizes the window every N frames (the swapchain is
// remade each time); --no-pacer leaves the pacer out (IMMEDIATE where the
// surface has it: as fast as it renders), for pacer-run to pace from outside.
// At the end it prints what auto chose and why, how steady the presents
// were, the median frame interval and the frames the display reported
// shown. The lines that are pacer's are marked "pacer".
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include <pacer/backends/glfw.h>     // pacer::glfw::native_window
#include <pacer/backends/vulkan.h>
#include <pacer/metrics.h>
#include <pacer/pacer.h>
#include <pacer/status.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
    double hz = 60;          // the target rate
    long frames = 0;         // 0: until the window closes
    long resize_every = 0;   // 0: never
    bool pacer = true;       // false: --no-pacer
};

bool parse(int argc, char** argv, Options* options) {
    for (int i = 1; i < argc; i += 2) {
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        char* end = nullptr;
        bool ok = false;
        if (std::strcmp(argv[i], "--no-pacer") == 0) {
            options->pacer = false;
            ok = true;
            --i;   // a flag without a value
        } else if (value != nullptr && std::strcmp(argv[i], "--hz") == 0) {
            options->hz = std::strtod(value, &end);
            ok = *end == '\0' && options->hz >= 1 && options->hz <= 1000;
        } else if (value != nullptr && std::strcmp(argv[i], "--frames") == 0) {
            options->frames = std::strtol(value, &end, 10);
            ok = *end == '\0' && options->frames >= 1 && options->frames <= 1'000'000;
        } else if (value != nullptr && std::strcmp(argv[i], "--resize-every") == 0) {
            options->resize_every = std::strtol(value, &end, 10);
            ok = *end == '\0' && options->resize_every >= 1 && options->resize_every <= 1'000'000;
        }
        if (!ok) {
            std::fprintf(stderr, "usage: %s [--hz 1..1000] [--frames 1..1000000] [--resize-every 1..1000000] "
                         "[--no-pacer]\n", argv[0]);
            return false;
        }
    }
    return true;
}

// A Vulkan call that failed: its name and result, then out.
bool check(VkResult result, const char* what) {
    if (result >= 0) return true;
    std::fprintf(stderr, "glfw_vulkan: %s failed (VkResult %d)\n", what, static_cast<int>(result));
    return false;
}

constexpr int kFramesInFlight = 2;

// Everything Vulkan, made in order and destroyed in reverse.
struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    uint32_t family = 0;   // graphics and present
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkRenderPass render_pass = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer commands[kFramesInFlight] = {};
    VkSemaphore acquired[kFramesInFlight] = {};
    VkFence in_flight[kFramesInFlight] = {};
    // The swapchain and what is made per image.
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
    VkExtent2D extent{};
    std::vector<VkImageView> views;
    std::vector<VkFramebuffer> framebuffers;
    std::vector<VkSemaphore> rendered;   // one per image: a present may still wait on it
};

constexpr VkFormat kFormat = VK_FORMAT_B8G8R8A8_UNORM;

bool make_device(GLFWwindow* window, Gpu& gpu) {
    uint32_t extension_count = 0;
    const char** extensions = glfwGetRequiredInstanceExtensions(&extension_count);
    if (extensions == nullptr) {
        std::fprintf(stderr, "glfw_vulkan: GLFW finds no Vulkan surface support\n");
        return false;
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "glfw_vulkan", 1, "pacer", 1, VK_API_VERSION_1_1};
    VkInstanceCreateInfo instance_info{};

    instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    instance_info.pApplicationInfo = &app;
    instance_info.enabledExtensionCount = extension_count;
    instance_info.ppEnabledExtensionNames = extensions;
    if (!check(vkCreateInstance(&instance_info, nullptr, &gpu.instance), "vkCreateInstance")) return false;
    if (!check(glfwCreateWindowSurface(gpu.instance, window, nullptr, &gpu.surface), "glfwCreateWindowSurface"))
        return false;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(gpu.instance, &count, nullptr);
    std::vector<VkPhysicalDevice> physicals(count);
    vkEnumeratePhysicalDevices(gpu.instance, &count, physicals.data());
    for (VkPhysicalDevice physical : physicals) {
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> properties(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, properties.data());
        for (uint32_t i = 0; i < families && gpu.physical == VK_NULL_HANDLE; ++i) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(physical, i, gpu.surface, &present);
            if ((properties[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && present) {
                gpu.physical = physical;
                gpu.family = i;
            }
        }
    }
    if (gpu.physical == VK_NULL_HANDLE) {
        std::fprintf(stderr, "glfw_vulkan: no device draws and presents to this window\n");
        return false;
    }
    const float priority = 1;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, gpu.family, 1, &priority};
    const char* swapchain_extension = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo device_info{};

    device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = &swapchain_extension;
    if (!check(vkCreateDevice(gpu.physical, &device_info, nullptr, &gpu.device), "vkCreateDevice")) return false;
    vkGetDeviceQueue(gpu.device, gpu.family, 0, &gpu.queue);

    // One pass: clear, then the bar's rectangle cleared again, kept for the present.
    VkAttachmentDescription color{0, kFormat, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                  VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                  VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                                  VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
    VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &reference;
    // The image is written only once the acquire's semaphore let it go.
    VkSubpassDependency acquire{VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0,
                                VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0};
    VkRenderPassCreateInfo pass_info{};

    pass_info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
    pass_info.attachmentCount = 1;
    pass_info.pAttachments = &color;
    pass_info.subpassCount = 1;
    pass_info.pSubpasses = &subpass;
    pass_info.dependencyCount = 1;
    pass_info.pDependencies = &acquire;
    if (!check(vkCreateRenderPass(gpu.device, &pass_info, nullptr, &gpu.render_pass), "vkCreateRenderPass"))
        return false;

    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                                      VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, gpu.family};
    if (!check(vkCreateCommandPool(gpu.device, &pool_info, nullptr, &gpu.pool), "vkCreateCommandPool")) return false;
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, gpu.pool,
                                         VK_COMMAND_BUFFER_LEVEL_PRIMARY, kFramesInFlight};
    if (!check(vkAllocateCommandBuffers(gpu.device, &allocate, gpu.commands), "vkAllocateCommandBuffers"))
        return false;
    const VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, nullptr, 0};
    const VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, VK_FENCE_CREATE_SIGNALED_BIT};
    for (int i = 0; i < kFramesInFlight; ++i) {
        if (!check(vkCreateSemaphore(gpu.device, &semaphore_info, nullptr, &gpu.acquired[i]), "vkCreateSemaphore") ||
            !check(vkCreateFence(gpu.device, &fence_info, nullptr, &gpu.in_flight[i]), "vkCreateFence"))
            return false;
    }
    return true;
}

void drop_swapchain_images(Gpu& gpu) {
    for (VkFramebuffer framebuffer : gpu.framebuffers) vkDestroyFramebuffer(gpu.device, framebuffer, nullptr);
    for (VkImageView view : gpu.views) vkDestroyImageView(gpu.device, view, nullptr);
    for (VkSemaphore semaphore : gpu.rendered) vkDestroySemaphore(gpu.device, semaphore, nullptr);
    gpu.framebuffers.clear();
    gpu.views.clear();
    gpu.rendered.clear();
}

// The swapchain, made or remade at the window's size, in the mode wanted.
bool make_swapchain(GLFWwindow* window, Gpu& gpu, VkPresentModeKHR mode) {
    vkDeviceWaitIdle(gpu.device);
    drop_swapchain_images(gpu);
    VkSurfaceCapabilitiesKHR caps{};
    if (!check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu.physical, gpu.surface, &caps), "surface capabilities"))
        return false;
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    gpu.extent = caps.currentExtent;
    if (gpu.extent.width == UINT32_MAX) {   // the window follows the swapchain (Wayland)
        gpu.extent.width = std::clamp(static_cast<uint32_t>(width), caps.minImageExtent.width, caps.maxImageExtent.width);
        gpu.extent.height =
            std::clamp(static_cast<uint32_t>(height), caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    uint32_t images = caps.minImageCount + 1;
    if (caps.maxImageCount > 0) images = std::min(images, caps.maxImageCount);
    VkSwapchainCreateInfoKHR info{};

    info.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR;
    info.surface = gpu.surface;
    info.minImageCount = images;
    info.imageFormat = kFormat;
    info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    info.imageExtent = gpu.extent;
    info.imageArrayLayers = 1;
    info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    info.presentMode = mode;
    info.clipped = VK_TRUE;
    info.oldSwapchain = gpu.swapchain;
    VkSwapchainKHR made = VK_NULL_HANDLE;
    const VkResult result = vkCreateSwapchainKHR(gpu.device, &info, nullptr, &made);
    if (gpu.swapchain != VK_NULL_HANDLE) vkDestroySwapchainKHR(gpu.device, gpu.swapchain, nullptr);
    gpu.swapchain = made;
    gpu.mode = mode;
    if (!check(result, "vkCreateSwapchainKHR")) return false;
    uint32_t count = 0;
    vkGetSwapchainImagesKHR(gpu.device, gpu.swapchain, &count, nullptr);
    std::vector<VkImage> swap_images(count);
    vkGetSwapchainImagesKHR(gpu.device, gpu.swapchain, &count, swap_images.data());
    const VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, nullptr, 0};
    for (VkImage image : swap_images) {
        VkImageViewCreateInfo view_info{};

        view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
        view_info.image = image;
        view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view_info.format = kFormat;
        view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        gpu.views.push_back(VK_NULL_HANDLE);
        if (!check(vkCreateImageView(gpu.device, &view_info, nullptr, &gpu.views.back()), "vkCreateImageView"))
            return false;
        VkFramebufferCreateInfo framebuffer_info{};

        framebuffer_info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
        framebuffer_info.renderPass = gpu.render_pass;
        framebuffer_info.attachmentCount = 1;
        framebuffer_info.pAttachments = &gpu.views.back();
        framebuffer_info.width = gpu.extent.width;
        framebuffer_info.height = gpu.extent.height;
        framebuffer_info.layers = 1;
        gpu.framebuffers.push_back(VK_NULL_HANDLE);
        if (!check(vkCreateFramebuffer(gpu.device, &framebuffer_info, nullptr, &gpu.framebuffers.back()),
                   "vkCreateFramebuffer"))
            return false;
        gpu.rendered.push_back(VK_NULL_HANDLE);
        if (!check(vkCreateSemaphore(gpu.device, &semaphore_info, nullptr, &gpu.rendered.back()), "vkCreateSemaphore"))
            return false;
    }
    return true;
}

void destroy(GLFWwindow*, Gpu& gpu) {
    if (gpu.device != VK_NULL_HANDLE) {
        vkDeviceWaitIdle(gpu.device);
        drop_swapchain_images(gpu);
        if (gpu.swapchain != VK_NULL_HANDLE) vkDestroySwapchainKHR(gpu.device, gpu.swapchain, nullptr);
        for (int i = 0; i < kFramesInFlight; ++i) {
            if (gpu.acquired[i] != VK_NULL_HANDLE) vkDestroySemaphore(gpu.device, gpu.acquired[i], nullptr);
            if (gpu.in_flight[i] != VK_NULL_HANDLE) vkDestroyFence(gpu.device, gpu.in_flight[i], nullptr);
        }
        if (gpu.pool != VK_NULL_HANDLE) vkDestroyCommandPool(gpu.device, gpu.pool, nullptr);
        if (gpu.render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(gpu.device, gpu.render_pass, nullptr);
        vkDestroyDevice(gpu.device, nullptr);
    }
    if (gpu.surface != VK_NULL_HANDLE) vkDestroySurfaceKHR(gpu.instance, gpu.surface, nullptr);
    if (gpu.instance != VK_NULL_HANDLE) vkDestroyInstance(gpu.instance, nullptr);
}

// A white bar crossing a dark window at 400 px/s, at the game's time.
void record(const Gpu& gpu, VkCommandBuffer commands, uint32_t image, int64_t game_ns) {
    const VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                                         VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, nullptr};
    vkBeginCommandBuffer(commands, &begin);
    VkClearValue dark{};
    dark.color = {{0.08f, 0.09f, 0.12f, 1}};
    VkRenderPassBeginInfo pass{};

    pass.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
    pass.renderPass = gpu.render_pass;
    pass.framebuffer = gpu.framebuffers[image];
    pass.renderArea = {{0, 0}, gpu.extent};
    pass.clearValueCount = 1;
    pass.pClearValues = &dark;
    vkCmdBeginRenderPass(commands, &pass, VK_SUBPASS_CONTENTS_INLINE);
    const uint32_t bar = 40, travel = gpu.extent.width > bar ? gpu.extent.width - bar : 1;
    const auto x = static_cast<int32_t>(std::fmod(static_cast<double>(game_ns) * 4e-7, travel));
    VkClearAttachment white{VK_IMAGE_ASPECT_COLOR_BIT, 0, {}};
    white.clearValue.color = {{0.95f, 0.95f, 0.95f, 1}};
    const VkClearRect rect{{{x, 0}, {std::min(bar, gpu.extent.width), gpu.extent.height}}, 0, 1};
    vkCmdClearAttachments(commands, 1, &white, 1, &rect);
    vkCmdEndRenderPass(commands);
    vkEndCommandBuffer(commands);
}

// The gaps between the frames shown, the display's real cadence, and each
// shown frame's latency: from the wake it was built after to its showing.
struct Shown {
    int64_t last_ns = -1;
    std::vector<double> gaps_ms;
    std::vector<double> latency_ms;
    int64_t wakes_ns[64] = {};   // by Frame::index % 64: the recent wakes
    int64_t wake_index[64] = {};
    void woke(const pacer::Frame& frame) {
        wakes_ns[frame.index % 64] = frame.wake_ns;
        wake_index[frame.index % 64] = frame.index;
    }
};

double median_of(std::vector<double>& values) {
    auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

void note_shown(const pacer::Presented& presented, void* user) {
    Shown& shown = *static_cast<Shown*>(user);
    if (presented.discarded || presented.displayed_ns < 0) return;
    if (shown.last_ns >= 0 && shown.gaps_ms.size() < 1'000'000)
        shown.gaps_ms.push_back(pacer::ms_of(static_cast<double>(presented.displayed_ns - shown.last_ns)));
    shown.last_ns = presented.displayed_ns;
    const int64_t i = presented.frame_index;
    if (i >= 0 && shown.wake_index[i % 64] == i && shown.latency_ms.size() < 1'000'000)
        shown.latency_ms.push_back(pacer::ms_of(static_cast<double>(presented.displayed_ns - shown.wakes_ns[i % 64])));
}

void print_summary(const pacer::Pacer& pacer, const pacer::vulkan::Host& host, Shown& shown, long resizes) {
    const pacer::Summary summary = pacer.stats().summarize();
    std::printf("decision #%d: %s\n", pacer.decision().seq, pacer.decision().reason.c_str());
    const pacer::WaitStatus status = pacer.status();
    if (status.display_refreshes_counted > 0) {
        std::printf("display: %.2f hitches per 1000 refreshes (%lld of %lld)\n", status.display_hitches_per_1000,
                    static_cast<long long>(status.display_hitches),
                    static_cast<long long>(status.display_refreshes_counted));
    }
    std::printf("presents: %.2f %% off by > 0.5 ms, p99 %.3f ms\n", summary.presents.off_pct,
                pacer::ms_of(summary.presents.p99_us * pacer::kNsPerUs));
    std::printf("frames: %lld, median interval %.3f ms, target %.3f ms\n", static_cast<long long>(summary.frames),
                pacer::ms_of(summary.interval.p50_us * pacer::kNsPerUs),
                pacer::ms_of(summary.target_period_us * pacer::kNsPerUs));
    std::printf("swapchain: %ld remade for a new size\n", resizes);
    std::printf("present feedback: %s\n", host.present_feedback());
    if (shown.gaps_ms.empty()) {
        std::printf("shown frames: none reported (no present feedback here)\n");
        return;
    }
    const pacer::DisplayClock display = pacer.display();
    std::printf("shown frames: %zu reported, every %.3f ms (median); display clock %s, period %.3f ms, "
                "stated %.3g Hz\n", shown.gaps_ms.size() + 1, median_of(shown.gaps_ms),
                display.locked ? "locked" : "not locked now", pacer::ms_of(static_cast<double>(display.period_ns)),
                display.stated_hz);
    if (!shown.latency_ms.empty())
        std::printf("latency: %.3f ms (median, from the wake a frame was built after to its showing)\n",
                    median_of(shown.latency_ms));
}

bool g_resized = false;
void on_framebuffer_size(GLFWwindow*, int, int) { g_resized = true; }

// The loop. pacer is null under --no-pacer: the frames go out as fast as
// they render, each one's step measured.
int run(GLFWwindow* window, Gpu& gpu, const Options& options) {
    pacer::vulkan::Host host({gpu.instance, gpu.physical, gpu.device, vkGetInstanceProcAddr,   // pacer
                              vkGetDeviceProcAddr});
    host.set_window(pacer::glfw::native_window(window));                                      // pacer
    std::unique_ptr<pacer::Pacer> pacer;
    Shown shown;
    if (options.pacer) {
        pacer::Config config;
        config.strategy = pacer::Strategy::Auto;
        config.target_hz = options.hz;
        config.host = &host;                                                                 // pacer
        std::string error;
        pacer = pacer::Pacer::create(config, &error);
        if (!pacer) {
            std::fprintf(stderr, "glfw_vulkan: %s\n", error.c_str());
            return 2;
        }
        host.on_presented(note_shown, &shown);
    }
    // The mode for the strategy (pacer), else as fast as it renders.
    const auto mode_now = [&] {
        if (pacer) return host.present_mode(*pacer, gpu.surface, VK_PRESENT_MODE_FIFO_KHR);   // pacer
        const pacer::Strategy fastest = pacer::Strategy::DisplayLock;   // IMMEDIATE, else MAILBOX, else FIFO
        uint32_t count = 0;
        vkGetPhysicalDeviceSurfacePresentModesKHR(gpu.physical, gpu.surface, &count, nullptr);
        std::vector<VkPresentModeKHR> modes(count);
        vkGetPhysicalDeviceSurfacePresentModesKHR(gpu.physical, gpu.surface, &count, modes.data());
        return pacer::vulkan::present_mode_for(fastest, VK_PRESENT_MODE_FIFO_KHR, modes.data(), count);
    };
    const auto remake = [&] {
        int width = 0, height = 0;
        for (glfwGetFramebufferSize(window, &width, &height); width == 0 || height == 0;
             glfwGetFramebufferSize(window, &width, &height))
            glfwWaitEvents();   // minimized: nothing to draw to
        if (!make_swapchain(window, gpu, mode_now())) return false;
        host.set_swapchain(gpu.swapchain, gpu.mode);                                         // pacer
        g_resized = false;
        return true;
    };
    if (!remake()) return 1;
    std::printf("swapchain: %s\n", pacer::vulkan::present_mode_name(gpu.mode));

    int64_t game_ns = 0;   // the game's time: the sum of the pacer's steady steps
    double last_s = glfwGetTime();
    int32_t decision_seq = 0;
    long resizes = 0;
    for (long i = 0; !glfwWindowShouldClose(window) && (options.frames == 0 || i < options.frames); ++i) {
        glfwPollEvents();
        if (options.resize_every > 0 && i > 0 && i % options.resize_every == 0) {
            const bool wide = (i / options.resize_every) % 2 == 1;
            glfwSetWindowSize(window, wide ? 800 : 640, wide ? 450 : 360);
        }
        const int f = static_cast<int>(i % kFramesInFlight);
        vkWaitForFences(gpu.device, 1, &gpu.in_flight[f], VK_TRUE, UINT64_MAX);
        uint32_t image = 0;
        VkResult result = vkAcquireNextImageKHR(gpu.device, gpu.swapchain, UINT64_MAX, gpu.acquired[f],
                                                VK_NULL_HANDLE, &image);
        if (result == VK_ERROR_OUT_OF_DATE_KHR) {
            if (!remake()) return 1;
            ++resizes;
            continue;
        }
        if (!check(result, "vkAcquireNextImageKHR")) return 1;
        vkResetFences(gpu.device, 1, &gpu.in_flight[f]);
        record(gpu, gpu.commands[f], image, game_ns);
        const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 1, &gpu.acquired[f], &stage, 1, &gpu.commands[f],
                            1, &gpu.rendered[image]};
        if (!check(vkQueueSubmit(gpu.queue, 1, &submit, gpu.in_flight[f]), "vkQueueSubmit")) return 1;
        const VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, nullptr, 1, &gpu.rendered[image], 1,
                                       &gpu.swapchain, &image, nullptr};
        if (pacer) {
            host.set_frame_fence(gpu.in_flight[f]);                                         // pacer
            const pacer::Frame frame = pacer->wait();        // pacer: its GPU work done, then the deadline
            shown.woke(frame);
            result = host.present(*pacer, frame, gpu.queue, present);   // pacer: the present, and when shown
            game_ns += frame.dt_ns;                          // the next frame's steady step
            if (frame.decision_seq != decision_seq) {        // auto chose, or changed its mind: say why
                decision_seq = frame.decision_seq;
                std::printf("frame %lld: %s\n", static_cast<long long>(frame.index), pacer->decision().reason.c_str());
            }
        } else {
            result = vkQueuePresentKHR(gpu.queue, &present);
            const double now_s = glfwGetTime();
            game_ns += static_cast<int64_t>((now_s - last_s) * 1e9);   // the measured step: nothing steadies it
            last_s = now_s;
        }
        if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR || g_resized) {
            if (!remake()) return 1;
            ++resizes;
        } else if (!check(result, pacer ? host.error().c_str() : "vkQueuePresentKHR")) {
            return 1;
        }
    }
    vkDeviceWaitIdle(gpu.device);
    if (pacer) {
        print_summary(*pacer, host, shown, resizes);
    } else {
        std::printf("no pacer (--no-pacer); swapchain: %ld remade for a new size\n", resizes);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, &options)) return 2;
    if (glfwInit() != GLFW_TRUE || glfwVulkanSupported() != GLFW_TRUE) {
        std::fprintf(stderr, "glfw_vulkan: no display, or no Vulkan loader\n");
        glfwTerminate();
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    GLFWwindow* window = glfwCreateWindow(640, 360, "pacer: glfw_vulkan", nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr, "glfw_vulkan: glfwCreateWindow failed\n");
        glfwTerminate();
        return 1;
    }
    glfwSetFramebufferSizeCallback(window, on_framebuffer_size);
    Gpu gpu;
    const int code = make_device(window, gpu) ? run(window, gpu, options) : 1;   // the Host and pacer go first
    destroy(window, gpu);
    glfwDestroyWindow(window);
    glfwTerminate();
    return code;
}
