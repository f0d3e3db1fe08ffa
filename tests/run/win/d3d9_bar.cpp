// d3d9_bar.exe: a Direct3D 9 window presented with IDirect3DDevice9::Present
// as fast as it renders (D3DPRESENT_INTERVAL_IMMEDIATE): a Windows game's
// Direct3D path, for pacer-run under Wine (tests/run/check_run.py wine).
// Wine's wined3d draws it with the host's OpenGL and presents with
// glXSwapBuffers, which pacer-run's preload hooks.
//   d3d9_bar.exe [FRAMES [EXIT_STATUS [REMAKE_EVERY]]]   (600, 0, never)
// REMAKE_EVERY N: the device released and made again every N frames, as a
// game's settings menu does.
#include "bar_window.h"

#include <windows.h>
#include <d3d9.h>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
    const long frames = bar::arg(argc, argv, 1, 600);
    const int status = static_cast<int>(bar::arg(argc, argv, 2, 0));
    const long remake_every = bar::arg(argc, argv, 3, 0);
    HWND window = bar::make_window("d3d9_bar");
    IDirect3D9* d3d = Direct3DCreate9(D3D_SDK_VERSION);
    D3DPRESENT_PARAMETERS params{};
    params.Windowed = TRUE;
    params.SwapEffect = D3DSWAPEFFECT_DISCARD;
    params.BackBufferFormat = D3DFMT_UNKNOWN;
    params.hDeviceWindow = window;
    params.PresentationInterval = D3DPRESENT_INTERVAL_IMMEDIATE;
    IDirect3DDevice9* device = nullptr;
    const auto make_device = [&] {
        return SUCCEEDED(d3d->CreateDevice(D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                           D3DCREATE_SOFTWARE_VERTEXPROCESSING, &params, &device));
    };
    if (window == nullptr || d3d == nullptr || !make_device()) {
        std::fprintf(stderr, "d3d9_bar: no Direct3D 9 device\n");
        return 1;
    }
    const bar::Clock clock;
    long i = 0;
    for (; i < frames && bar::pump_messages(); ++i) {
        // A bar crossing the window at 400 px/s, at the measured time.
        device->Clear(0, nullptr, D3DCLEAR_TARGET, D3DCOLOR_XRGB(20, 23, 31), 1.0f, 0);
        const auto x = static_cast<LONG>(std::fmod(clock.seconds() * 400, 600));
        const D3DRECT bar{x, 0, x + 40, 360};
        device->Clear(1, &bar, D3DCLEAR_TARGET, D3DCOLOR_XRGB(242, 242, 242), 1.0f, 0);
        device->Present(nullptr, nullptr, nullptr, nullptr);
        if (remake_every > 0 && (i + 1) % remake_every == 0) {
            device->Release();
            if (!make_device()) {
                std::fprintf(stderr, "d3d9_bar: the device could not be made again\n");
                return 1;
            }
        }
    }
    std::printf("d3d9_bar: %ld frames in %.2f s\n", i, clock.seconds());
    device->Release();
    d3d->Release();
    DestroyWindow(window);
    return status;
}
