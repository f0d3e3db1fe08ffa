// wgl_bar.exe: a Win32 window drawn with WGL OpenGL and swapped with
// SwapBuffers as fast as it renders: a Windows game's GL path, for pacer-run
// under Wine (tests/run/check_run.py wine). Wine's opengl32 ends in the
// host's glXSwapBuffers, which pacer-run's preload hooks.
//   wgl_bar.exe [FRAMES [EXIT_STATUS]]   (600, 0)
#include <windows.h>
#include <GL/gl.h>

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
    window_class.style = CS_OWNDC;
    window_class.lpfnWndProc = on_message;
    window_class.hInstance = GetModuleHandleA(nullptr);
    window_class.lpszClassName = "wgl_bar";
    RegisterClassA(&window_class);
    HWND window = CreateWindowA("wgl_bar", "wgl_bar", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0, 640, 360, nullptr,
                                nullptr, window_class.hInstance, nullptr);
    HDC dc = GetDC(window);
    PIXELFORMATDESCRIPTOR format{};
    format.nSize = sizeof format;
    format.nVersion = 1;
    format.dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
    format.iPixelType = PFD_TYPE_RGBA;
    format.cColorBits = 32;
    HGLRC gl = nullptr;
    if (window == nullptr || !SetPixelFormat(dc, ChoosePixelFormat(dc, &format), &format) ||
        (gl = wglCreateContext(dc)) == nullptr || !wglMakeCurrent(dc, gl)) {
        std::fprintf(stderr, "wgl_bar: no GL window (error %lu)\n", GetLastError());
        return 1;
    }
    LARGE_INTEGER start;
    QueryPerformanceCounter(&start);
    long i = 0;
    for (bool quit = false; i < frames && !quit; ++i) {
        for (MSG message; PeekMessageA(&message, nullptr, 0, 0, PM_REMOVE);) {
            quit = quit || message.message == WM_QUIT;
            DispatchMessageA(&message);
        }
        // A bar crossing the window at 400 px/s, at the measured time.
        glDisable(GL_SCISSOR_TEST);
        glClearColor(0.08f, 0.09f, 0.12f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_SCISSOR_TEST);
        glScissor(static_cast<int>(std::fmod(seconds_since(start) * 400, 600)), 0, 40, 360);
        glClearColor(0.95f, 0.95f, 0.95f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        SwapBuffers(dc);
    }
    std::printf("wgl_bar: %ld frames in %.2f s\n", i, seconds_since(start));
    wglMakeCurrent(nullptr, nullptr);
    wglDeleteContext(gl);
    ReleaseDC(window, dc);
    DestroyWindow(window);
    return status;
}
