// bar_window.h: what tests/run/win's programs share: their arguments
// (FRAMES, EXIT_STATUS, and one of the program's own), a 640x360 window
// and its messages, and the time since the first frame. Each program adds
// its graphics API and the bar it draws at that time.
#pragma once

#include <windows.h>

#include <cstdlib>

namespace bar {

// argv[i] as a number, else fallback.
inline long arg(int argc, char** argv, int i, long fallback) {
    return argc > i ? std::strtol(argv[i], nullptr, 10) : fallback;
}

inline LRESULT CALLBACK on_message(HWND window, UINT message, WPARAM w, LPARAM l) {
    if (message == WM_CLOSE) {
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(window, message, w, l);
}

// A shown 640x360 window of its own class, named `name`; its device
// context its own (CS_OWNDC, as WGL wants). Null where none can be made.
inline HWND make_window(const char* name) {
    WNDCLASSA window_class{};
    window_class.style = CS_OWNDC;
    window_class.lpfnWndProc = on_message;
    window_class.hInstance = GetModuleHandleA(nullptr);
    window_class.lpszClassName = name;
    RegisterClassA(&window_class);
    return CreateWindowA(name, name, WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0, 640, 360, nullptr, nullptr,
                         window_class.hInstance, nullptr);
}

// The window's messages handled; false once it was closed.
inline bool pump_messages() {
    bool open = true;
    for (MSG message; PeekMessageA(&message, nullptr, 0, 0, PM_REMOVE);) {
        open = open && message.message != WM_QUIT;
        DispatchMessageA(&message);
    }
    return open;
}

// Seconds since it was made, on the performance counter.
class Clock {
public:
    Clock() { QueryPerformanceCounter(&start_); }
    double seconds() const {
        LARGE_INTEGER now, frequency;
        QueryPerformanceCounter(&now);
        QueryPerformanceFrequency(&frequency);
        return static_cast<double>(now.QuadPart - start_.QuadPart) / static_cast<double>(frequency.QuadPart);
    }

private:
    LARGE_INTEGER start_{};
};

}  // namespace bar
