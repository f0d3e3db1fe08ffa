// pacer::vulkan::Host against a fake Vulkan: the two lookups it is given
// return functions that record what the Host asked and answer as a driver
// would, a lost device and a fence that never signals included. No loader,
// no GPU: the example (examples/glfw_vulkan) runs the real one in CI.
#include <pacer/backends/vulkan.h>
#include <pacer/pacer.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using pacer::Strategy;
using pacer::vulkan::present_mode_for;

struct FakeVk {
    VkResult present_result = VK_SUCCESS;
    VkResult wait_result = VK_SUCCESS;   // VK_TIMEOUT: a fence that never signals (the wait lasts its timeout)
    std::vector<VkPresentModeKHR> modes{VK_PRESENT_MODE_FIFO_KHR};
    const char* missing = nullptr;       // a function the lookup does not find
    // What the Host did.
    int presents = 0;
    std::vector<VkSemaphore> present_waits;   // the last present's
    int submits = 0;
    std::vector<VkSemaphore> submit_waits;    // the last submit's
    VkSemaphore submit_signal = VK_NULL_HANDLE;
    std::vector<VkFence> waited;               // each vkWaitForFences slice's fence
    int made = 0, destroyed = 0;
    uint64_t next_handle = 0x1000;
};
FakeVk* g_vk = nullptr;

template <class Handle>
Handle fake_handle(uint64_t value) {
    if constexpr (std::is_pointer_v<Handle>) {
        return reinterpret_cast<Handle>(static_cast<uintptr_t>(value));
    } else {
        return value;
    }
}

VKAPI_ATTR VkResult VKAPI_CALL queue_present(VkQueue, const VkPresentInfoKHR* info) {
    ++g_vk->presents;
    g_vk->present_waits.assign(info->pWaitSemaphores, info->pWaitSemaphores + info->waitSemaphoreCount);
    return g_vk->present_result;
}
VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue, uint32_t, const VkSubmitInfo* submit, VkFence) {
    ++g_vk->submits;
    g_vk->submit_waits.assign(submit->pWaitSemaphores, submit->pWaitSemaphores + submit->waitSemaphoreCount);
    g_vk->submit_signal = submit->pSignalSemaphores[0];
    return VK_SUCCESS;
}
VKAPI_ATTR VkResult VKAPI_CALL create_semaphore(VkDevice, const VkSemaphoreCreateInfo*, const VkAllocationCallbacks*,
                                                VkSemaphore* out) {
    ++g_vk->made;
    *out = fake_handle<VkSemaphore>(g_vk->next_handle++);
    return VK_SUCCESS;
}
VKAPI_ATTR void VKAPI_CALL destroy_semaphore(VkDevice, VkSemaphore, const VkAllocationCallbacks*) { ++g_vk->destroyed; }
VKAPI_ATTR VkResult VKAPI_CALL create_fence(VkDevice, const VkFenceCreateInfo*, const VkAllocationCallbacks*,
                                            VkFence* out) {
    ++g_vk->made;
    *out = fake_handle<VkFence>(g_vk->next_handle++);
    return VK_SUCCESS;
}
VKAPI_ATTR void VKAPI_CALL destroy_fence(VkDevice, VkFence, const VkAllocationCallbacks*) { ++g_vk->destroyed; }
VKAPI_ATTR VkResult VKAPI_CALL wait_fences(VkDevice, uint32_t, const VkFence* fences, VkBool32, uint64_t timeout_ns) {
    g_vk->waited.push_back(fences[0]);
    if (g_vk->wait_result == VK_TIMEOUT) std::this_thread::sleep_for(std::chrono::nanoseconds(timeout_ns));
    return g_vk->wait_result;
}
VKAPI_ATTR VkResult VKAPI_CALL reset_fences(VkDevice, uint32_t, const VkFence*) { return VK_SUCCESS; }
VKAPI_ATTR VkResult VKAPI_CALL surface_modes(VkPhysicalDevice, VkSurfaceKHR, uint32_t* count, VkPresentModeKHR* out) {
    if (out != nullptr) std::copy(g_vk->modes.begin(), g_vk->modes.begin() + *count, out);
    *count = static_cast<uint32_t>(g_vk->modes.size());
    return VK_SUCCESS;
}

template <class Fn>
PFN_vkVoidFunction as_void(Fn fn) {
    return reinterpret_cast<PFN_vkVoidFunction>(fn);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL device_lookup(VkDevice, const char* name) {
    if (g_vk->missing != nullptr && std::strcmp(name, g_vk->missing) == 0) return nullptr;
    const std::pair<const char*, PFN_vkVoidFunction> table[] = {
        {"vkQueuePresentKHR", as_void(&queue_present)},     {"vkQueueSubmit", as_void(&queue_submit)},
        {"vkCreateSemaphore", as_void(&create_semaphore)},  {"vkDestroySemaphore", as_void(&destroy_semaphore)},
        {"vkCreateFence", as_void(&create_fence)},          {"vkDestroyFence", as_void(&destroy_fence)},
        {"vkWaitForFences", as_void(&wait_fences)},         {"vkResetFences", as_void(&reset_fences)},
    };
    for (const auto& [own, fn] : table) {
        if (std::strcmp(own, name) == 0) return fn;
    }
    return nullptr;
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL instance_lookup(VkInstance, const char* name) {
    return std::strcmp(name, "vkGetPhysicalDeviceSurfacePresentModesKHR") == 0 ? as_void(&surface_modes) : nullptr;
}

class VulkanHost : public ::testing::Test {
protected:
    void SetUp() override { g_vk = &vk; }
    void TearDown() override { g_vk = nullptr; }
    pacer::vulkan::Device device() const {
        return {fake_handle<VkInstance>(1), fake_handle<VkPhysicalDevice>(2), fake_handle<VkDevice>(3), instance_lookup,
                device_lookup};
    }
    VkPresentInfoKHR present_info(const VkSwapchainKHR* swapchain, uint32_t waits = 2) {
        return {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, nullptr, waits, semaphores, 1, swapchain, &image, nullptr};
    }
    std::unique_ptr<pacer::Pacer> make_pacer(pacer::vulkan::Host& host, Strategy strategy, double hz = 60) {
        pacer::Config config;
        config.strategy = strategy;
        config.target_hz = hz;
        config.host = &host;
        return pacer::Pacer::create(config);
    }

    FakeVk vk;
    const VkQueue queue = fake_handle<VkQueue>(4);
    const VkSwapchainKHR swapchain = fake_handle<VkSwapchainKHR>(5);
    VkSemaphore semaphores[2] = {fake_handle<VkSemaphore>(6), fake_handle<VkSemaphore>(7)};
    uint32_t image = 0;
};

TEST(VulkanPresentMode, EachStrategyGetsTheModeItPacesWith) {
    const VkPresentModeKHR all[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
    const VkPresentModeKHR fifo_mailbox[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR};
    const VkPresentModeKHR fifo[] = {VK_PRESENT_MODE_FIFO_KHR};
    // vsync: FIFO, whatever the engine wants.
    EXPECT_EQ(present_mode_for(Strategy::Vsync, VK_PRESENT_MODE_IMMEDIATE_KHR, all, 3), VK_PRESENT_MODE_FIFO_KHR);
    // auto and display_lock: no FIFO queue, IMMEDIATE first.
    EXPECT_EQ(present_mode_for(Strategy::Auto, VK_PRESENT_MODE_FIFO_KHR, all, 3), VK_PRESENT_MODE_IMMEDIATE_KHR);
    EXPECT_EQ(present_mode_for(Strategy::DisplayLock, VK_PRESENT_MODE_FIFO_KHR, fifo_mailbox, 2),
              VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(present_mode_for(Strategy::Auto, VK_PRESENT_MODE_FIFO_KHR, fifo, 1), VK_PRESENT_MODE_FIFO_KHR);
    // A mode the engine chose itself other than FIFO is kept where the surface has it.
    EXPECT_EQ(present_mode_for(Strategy::Auto, VK_PRESENT_MODE_MAILBOX_KHR, all, 3), VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(present_mode_for(Strategy::Timer, VK_PRESENT_MODE_MAILBOX_KHR, fifo_mailbox, 2),
              VK_PRESENT_MODE_MAILBOX_KHR);
    // The others keep the engine's, FIFO where the surface lacks it.
    EXPECT_EQ(present_mode_for(Strategy::Timer, VK_PRESENT_MODE_FIFO_KHR, all, 3), VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(present_mode_for(Strategy::Timer, VK_PRESENT_MODE_IMMEDIATE_KHR, fifo, 1), VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(present_mode_for(Strategy::Sleep, VK_PRESENT_MODE_IMMEDIATE_KHR, nullptr, 0), VK_PRESENT_MODE_FIFO_KHR);
}

TEST_F(VulkanHost, WithoutADeviceItSaysSoAndPresentsNothing) {
    pacer::vulkan::Host host(pacer::vulkan::Device{});
    EXPECT_EQ(host.error(), "pacer::vulkan: no device");
    host.finish_gpu(1'000'000);
    host.prepare_present(queue, present_info(&swapchain));
    EXPECT_EQ(host.present_prepared(), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(vk.presents, 0);
    pacer::vulkan::Device partial = device();
    partial.get_device_proc_addr = nullptr;
    EXPECT_FALSE(host.set_device(partial));
    EXPECT_NE(host.error().find("both lookups"), std::string::npos) << host.error();
}

TEST_F(VulkanHost, AFunctionTheLookupLacksIsNamed) {
    vk.missing = "vkQueuePresentKHR";
    pacer::vulkan::Host host(device());
    EXPECT_EQ(host.error(), "pacer::vulkan: vkQueuePresentKHR not found (is VK_KHR_swapchain enabled?)");
}

TEST_F(VulkanHost, TheEnginesFenceFinishesTheFrameAndItsSemaphoresStay) {
    pacer::vulkan::Host host(device());
    ASSERT_EQ(host.error(), "");
    const VkFence fence = fake_handle<VkFence>(9);
    host.set_frame_fence(fence);
    host.finish_gpu(5'000'000);
    ASSERT_EQ(vk.waited.size(), 1u);
    EXPECT_EQ(vk.waited[0], fence);
    host.finish_gpu(5'000'000);   // once: the next wait needs the next frame's
    EXPECT_EQ(vk.waited.size(), 1u);
    host.prepare_present(queue, present_info(&swapchain));
    EXPECT_EQ(host.present_prepared(), VK_SUCCESS);
    EXPECT_EQ(vk.submits, 0);
    EXPECT_EQ(vk.present_waits, std::vector<VkSemaphore>(semaphores, semaphores + 2));
}

TEST_F(VulkanHost, APreparedPresentWaitsOnTheHostsSemaphore) {
    pacer::vulkan::Host host(device());
    host.prepare_present(queue, present_info(&swapchain));
    host.finish_gpu(5'000'000);
    ASSERT_EQ(vk.submits, 1);
    EXPECT_EQ(vk.submit_waits, std::vector<VkSemaphore>(semaphores, semaphores + 2));
    ASSERT_EQ(vk.waited.size(), 1u);
    EXPECT_EQ(host.present_prepared(), VK_SUCCESS);
    EXPECT_EQ(vk.present_waits, std::vector<VkSemaphore>{vk.submit_signal});
    // Another device: the Host's semaphore and fence on the old one freed.
    EXPECT_TRUE(host.set_device(device()));
    EXPECT_EQ(vk.destroyed, 2);
    EXPECT_EQ(vk.made, 2);
}

TEST_F(VulkanHost, ANullOrDestroyedSwapchainIsRefusedWithOneLine) {
    pacer::vulkan::Host host(device());
    const VkSwapchainKHR none = VK_NULL_HANDLE;
    host.prepare_present(queue, present_info(&none));
    EXPECT_EQ(host.present_prepared(), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(host.error(), "pacer::vulkan: a present with no swapchain (a null handle): not made");
    host.set_swapchain(swapchain, VK_PRESENT_MODE_FIFO_KHR);
    host.set_swapchain(VK_NULL_HANDLE, VK_PRESENT_MODE_FIFO_KHR);   // the engine destroyed it
    host.prepare_present(queue, present_info(&swapchain));
    EXPECT_EQ(host.present_prepared(), VK_ERROR_SURFACE_LOST_KHR);
    EXPECT_NE(host.error().find("after set_swapchain(VK_NULL_HANDLE)"), std::string::npos) << host.error();
    EXPECT_EQ(vk.presents, 0);
    EXPECT_EQ(host.present_prepared(), VK_ERROR_INITIALIZATION_FAILED);   // nothing prepared
}

TEST_F(VulkanHost, OutOfDateAndALostDeviceReachTheEngine) {
    pacer::vulkan::Host host(device());
    const auto pacer = make_pacer(host, Strategy::Timer);
    const pacer::Frame frame{};
    vk.present_result = VK_ERROR_OUT_OF_DATE_KHR;
    EXPECT_EQ(host.present(*pacer, frame, queue, present_info(&swapchain)), VK_ERROR_OUT_OF_DATE_KHR);
    vk.present_result = VK_ERROR_DEVICE_LOST;
    vk.wait_result = VK_ERROR_DEVICE_LOST;
    host.set_frame_fence(fake_handle<VkFence>(9));
    host.finish_gpu(100'000'000);
    EXPECT_EQ(vk.waited.size(), 1u);   // no slice after the loss
    EXPECT_EQ(host.error(), "pacer::vulkan: the device was lost (vkWaitForFences)");
    EXPECT_EQ(host.present(*pacer, frame, queue, present_info(&swapchain)), VK_ERROR_DEVICE_LOST);
    EXPECT_EQ(host.last_result(), VK_ERROR_DEVICE_LOST);
}

TEST_F(VulkanHost, TheSwapIntervalIsAcceptedWhereTheModeGivesIt) {
    pacer::vulkan::Host host(device());
    host.set_swapchain(swapchain, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_TRUE(host.set_swap_interval(1));
    EXPECT_FALSE(host.set_swap_interval(0));
    host.set_swapchain(swapchain, VK_PRESENT_MODE_IMMEDIATE_KHR);
    EXPECT_TRUE(host.set_swap_interval(0));
    EXPECT_FALSE(host.set_swap_interval(1));
}

TEST_F(VulkanHost, AStrategyThatWantsAnotherModeAsksForANewSwapchain) {
    vk.modes = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
    pacer::vulkan::Host host(device());
    const auto pacer = make_pacer(host, Strategy::DisplayLock);
    const VkSurfaceKHR surface = fake_handle<VkSurfaceKHR>(8);
    const VkPresentModeKHR mode = host.present_mode(*pacer, surface, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(mode, VK_PRESENT_MODE_IMMEDIATE_KHR);
    host.set_swapchain(swapchain, mode);
    const pacer::Frame frame{};
    EXPECT_EQ(host.present(*pacer, frame, queue, present_info(&swapchain)), VK_SUCCESS);
    pacer::Config vsync = pacer->config();
    vsync.strategy = Strategy::Vsync;
    ASSERT_EQ(pacer->reconfigure(vsync), "");
    EXPECT_EQ(host.present(*pacer, frame, queue, present_info(&swapchain)), VK_SUBOPTIMAL_KHR);
    EXPECT_EQ(host.present_mode(*pacer, surface, VK_PRESENT_MODE_FIFO_KHR), VK_PRESENT_MODE_FIFO_KHR);
    host.set_swapchain(swapchain, VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(host.present(*pacer, frame, queue, present_info(&swapchain)), VK_SUCCESS);
    EXPECT_EQ(vk.presents, 3);
}

TEST_F(VulkanHost, AModeTheSurfaceRefusesGivesFifoAndALine) {
    vk.modes = {VK_PRESENT_MODE_FIFO_KHR};
    pacer::vulkan::Host host(device());
    const auto pacer = make_pacer(host, Strategy::Timer);
    EXPECT_EQ(host.present_mode(*pacer, fake_handle<VkSurfaceKHR>(8), VK_PRESENT_MODE_MAILBOX_KHR),
              VK_PRESENT_MODE_FIFO_KHR);
    EXPECT_EQ(host.error(), "pacer::vulkan: the surface has no MAILBOX present mode; FIFO instead");
}

// A fence that never signals: the wait on it goes in 20 ms slices, and
// Pacer::interrupt from another thread ends it within one (real time: the
// bounds are generous, the lower one proves the fence was being waited on).
TEST_F(VulkanHost, InterruptEndsTheWaitOnAFenceThatNeverSignals) {
    pacer::vulkan::Host host(device());
    const auto pacer = make_pacer(host, Strategy::Timer, 0.5);   // 2 s to each deadline
    pacer->wait();                                               // frame 0: the grid starts
    vk.wait_result = VK_TIMEOUT;
    host.set_frame_fence(fake_handle<VkFence>(9));
    std::thread interrupter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        pacer->interrupt();
    });
    const auto start = std::chrono::steady_clock::now();
    const pacer::Frame frame = pacer->wait();
    const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    interrupter.join();
    EXPECT_TRUE(frame.interrupted);
    EXPECT_GE(waited_ms, 190);
    EXPECT_LT(waited_ms, 1000);   // not the 2 s to the deadline
    EXPECT_GE(vk.waited.size(), 5u) << "the fence was waited on in 20 ms slices";
}

}  // namespace
