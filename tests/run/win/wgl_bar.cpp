// wgl_bar.exe: a Win32 window drawn with WGL OpenGL and swapped with
// SwapBuffers as fast as it renders: a Windows game's GL path, for pacer-run
// under Wine (tests/run/check_run.py wine). Wine's opengl32 ends in the
// host's glXSwapBuffers, which pacer-run's preload hooks.
//   wgl_bar.exe [FRAMES [EXIT_STATUS]]   (600, 0)
#include "bar_window.h"

#include <windows.h>
#include <GL/gl.h>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
    const long frames = bar::arg(argc, argv, 1, 600);
    const int status = static_cast<int>(bar::arg(argc, argv, 2, 0));
    HWND window = bar::make_window("wgl_bar");
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
    const bar::Clock clock;
    long i = 0;
    for (; i < frames && bar::pump_messages(); ++i) {
        // A bar crossing the window at 400 px/s, at the measured time.
        glDisable(GL_SCISSOR_TEST);
        glClearColor(0.08f, 0.09f, 0.12f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_SCISSOR_TEST);
        glScissor(static_cast<int>(std::fmod(clock.seconds() * 400, 600)), 0, 40, 360);
        glClearColor(0.95f, 0.95f, 0.95f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        SwapBuffers(dc);
    }
    std::printf("wgl_bar: %ld frames in %.2f s\n", i, clock.seconds());
    wglMakeCurrent(nullptr, nullptr);
    wglDeleteContext(gl);
    ReleaseDC(window, dc);
    DestroyWindow(window);
    return status;
}
