// d3d11_bar.exe: a Direct3D 11 window presented with IDXGISwapChain::Present
// as fast as it renders (sync interval 0): the API most Windows games use,
// for pacer-run under Wine (tests/run/check_run.py wine). Wine's wined3d
// draws it with the host's OpenGL and presents with glXSwapBuffers, which
// pacer-run's preload hooks. The bar is cleared with ClearView (Direct3D
// 11.1), where the device has it; the background alone where not.
//   d3d11_bar.exe [FRAMES [EXIT_STATUS]]   (600, 0)
#include <windows.h>
#include <d3d11_1.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

LRESULT CALLBACK on_message(HWND window, UINT message, WPARAM w, LPARAM l) {
    if (message == WM_CLOSE) {
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(window, message, w, l);
}

double seconds_since(const LARGE_INTEGER& start) {
    LARGE_INTEGER now, frequency;
    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&frequency);
    return static_cast<double>(now.QuadPart - start.QuadPart) / static_cast<double>(frequency.QuadPart);
}

}  // namespace

int main(int argc, char** argv) {
    const long frames = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 600;
    const int status = argc > 2 ? static_cast<int>(std::strtol(argv[2], nullptr, 10)) : 0;
    WNDCLASSA window_class{};
    window_class.lpfnWndProc = on_message;
    window_class.hInstance = GetModuleHandleA(nullptr);
    window_class.lpszClassName = "d3d11_bar";
    RegisterClassA(&window_class);
    HWND window = CreateWindowA("d3d11_bar", "d3d11_bar", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0, 640, 360, nullptr,
                                nullptr, window_class.hInstance, nullptr);
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
    LARGE_INTEGER start;
    QueryPerformanceCounter(&start);
    long i = 0;
    for (bool quit = false; i < frames && !quit; ++i) {
        for (MSG message; PeekMessageA(&message, nullptr, 0, 0, PM_REMOVE);) {
            quit = quit || message.message == WM_QUIT;
            DispatchMessageA(&message);
        }
        const float dark[4] = {0.08f, 0.09f, 0.12f, 1};
        context->ClearRenderTargetView(target, dark);
        if (context1 != nullptr) {   // a bar crossing the window at 400 px/s, at the measured time
            const auto x = static_cast<LONG>(std::fmod(seconds_since(start) * 400, 600));
            const D3D11_RECT bar{x, 0, x + 40, 360};
            const float white[4] = {0.95f, 0.95f, 0.95f, 1};
            context1->ClearView(target, white, &bar, 1);
        }
        swapchain->Present(0, 0);
    }
    std::printf("d3d11_bar: %ld frames in %.2f s%s\n", i, seconds_since(start),
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
