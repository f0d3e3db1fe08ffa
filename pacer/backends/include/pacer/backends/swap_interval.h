// pacer/backends/swap_interval.h: what a window system said to the last
// swap-interval request, as the GLFW and SDL2 backends report it. Under Xvfb
// SDL refuses every interval and GLFW cannot tell (glfwSwapInterval returns
// nothing): a demo or an overlay shows which.
#pragma once

namespace pacer {
struct Presented;
}

namespace pacer::backends {

enum class SwapAnswer : int {
    None,          // nothing requested yet
    Accepted,      // the window system confirmed it (SDL returned 0)
    Refused,       // refused, or the swap-control extension is missing
    Unconfirmed,   // requested, and nothing can confirm it (GLFW)
};

inline const char* swap_answer_name(SwapAnswer answer) {
    switch (answer) {
        case SwapAnswer::None: return "not requested";
        case SwapAnswer::Accepted: return "accepted";
        case SwapAnswer::Refused: return "refused";
        case SwapAnswer::Unconfirmed: return "requested, cannot confirm";
    }
    return "?";
}

struct SwapIntervalState {
    int requested = 0;   // 0 off, n every n-th refresh, -1 adaptive
    SwapAnswer answer = SwapAnswer::None;
};

// Called with each report the pacer pulls through Host::take_presented (a
// trace, an overlay); on the pacer's thread, inside Pacer::wait.
using PresentedCallback = void (*)(const Presented& presented, void* user);

}  // namespace pacer::backends
