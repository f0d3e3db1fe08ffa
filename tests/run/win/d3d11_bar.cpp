// d3d11_bar.exe: a Direct3D 11 window presented with IDXGISwapChain::Present
// as fast as it renders (sync interval 0): the API most Windows games use,
// for pacer-run under Wine (tests/run/check_run.py wine). Wine's wined3d
// draws it with the host's OpenGL and presents with glXSwapBuffers, which
// pacer-run's preload hooks. The bar is cleared with ClearView (Direct3D
// 11.1), where the device has it; the background alone where not.
//   d3d11_bar.exe [FRAMES [EXIT_STATUS]]   (600, 0)
#include "bar_window.h"

#include <windows.h>
#include <d3d11_1.h>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
    const long frames = bar::arg(argc, argv, 1, 600);
    const int status = static_cast<int>(bar::arg(argc, argv, 2, 0));
    HWND window = bar::make_window("d3d11_bar");
    DXGI_SWAP_CHAIN_DESC desc{};
    desc.BufferDesc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
    desc.SampleDesc.Count = 1;
    desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
    desc.BufferCount = 2;
    desc.OutputWindow = window;
    desc.Windowed = TRUE;
    desc.SwapEffect = DXGI_SWAP_EFFECT_DISCARD;
    IDXGISwapChain* swapchain = nullptr;
    ID3D11Device* device = nullptr;
    ID3D11DeviceContext* context = nullptr;
    if (window == nullptr ||
        FAILED(D3D11CreateDeviceAndSwapChain(nullptr, D3D_DRIVER_TYPE_HARDWARE, nullptr, 0, nullptr, 0,
                                             D3D11_SDK_VERSION, &desc, &swapchain, &device, nullptr, &context))) {
        std::fprintf(stderr, "d3d11_bar: no Direct3D 11 device\n");
        return 1;
    }
    ID3D11Texture2D* back = nullptr;
    ID3D11RenderTargetView* target = nullptr;
    if (FAILED(swapchain->GetBuffer(0, __uuidof(ID3D11Texture2D), reinterpret_cast<void**>(&back))) ||
        FAILED(device->CreateRenderTargetView(back, nullptr, &target))) {
        std::fprintf(stderr, "d3d11_bar: no render target\n");
        return 1;
    }
    ID3D11DeviceContext1* context1 = nullptr;   // ClearView, for the bar
    context->QueryInterface(__uuidof(ID3D11DeviceContext1), reinterpret_cast<void**>(&context1));
    const bar::Clock clock;
    long i = 0;
    for (; i < frames && bar::pump_messages(); ++i) {
        const float dark[4] = {0.08f, 0.09f, 0.12f, 1};
        context->ClearRenderTargetView(target, dark);
        if (context1 != nullptr) {   // a bar crossing the window at 400 px/s, at the measured time
            const auto x = static_cast<LONG>(std::fmod(clock.seconds() * 400, 600));
            const D3D11_RECT bar{x, 0, x + 40, 360};
            const float white[4] = {0.95f, 0.95f, 0.95f, 1};
            context1->ClearView(target, white, &bar, 1);
        }
        swapchain->Present(0, 0);
    }
    std::printf("d3d11_bar: %ld frames in %.2f s%s\n", i, clock.seconds(),
                context1 != nullptr ? "" : " (no ClearView: no bar)");
    if (context1 != nullptr) context1->Release();
    target->Release();
    back->Release();
    context->Release();
    device->Release();
    swapchain->Release();
    DestroyWindow(window);
    return status;
}
