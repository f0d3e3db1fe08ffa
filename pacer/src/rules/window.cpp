// window.cpp: the rule for a window in the background (window.h).
//
// A window nobody looks at need not cost a core and the GPU at full rate.
// The Host's word is read before every wait, so the rate drops at the wait
// after the window loses the focus and comes back at the one after it
// regains it; the Pacer restarts its grid from the last deadline at the new
// rate, so nothing catches up. The timer paces, swap interval 0, whatever the
// strategy: a hidden Wayland surface gets no refreshes, and a vsync swap
// there would block until it is shown again.
#include "rules/window.h"

namespace pacer::detail {

// By this table:
//   state      | background_hz | hidden_hz | ceiling
//   foreground | -             | -         | none
//   unfocused  | 0             | -         | none
//   unfocused  | b             | -         | b
//   hidden     | -             | h         | h
//   hidden     | 0             | 0         | none
//   hidden     | b             | 0         | b
double background_ceiling_hz(const Config& cfg, WindowState state) {
    switch (state) {
        case WindowState::Foreground: return 0;
        case WindowState::Unfocused: return cfg.background_hz;
        case WindowState::Hidden: return cfg.hidden_hz > 0 ? cfg.hidden_hz : cfg.background_hz;
    }
    return 0;
}

// The timer paces at the ceiling, or at the target where that is lower.
std::string background_reason(const Config& cfg, WindowState state, double ceiling_hz) {
    const bool hidden = state == WindowState::Hidden;
    const char* field = hidden && cfg.hidden_hz > 0 ? "hidden_hz" : "background_hz";
    std::string head = strategy_name(cfg.strategy);
    if (cfg.strategy != Strategy::Timer) head += " -> timer";
    const std::string rate = cfg.target_hz <= ceiling_hz
                                 ? "the target " + hz_text(cfg.target_hz) + ", under " + field + " " + hz_text(ceiling_hz)
                                 : hz_text(ceiling_hz) + " (" + field + ")";
    return head + ": window " + window_state_name(state) + ", paced at " + rate;
}

MaybeVerdict WindowWatch::update(WindowState now, const Config& cfg) {
    if (now == state_) return std::nullopt;
    const WindowState was = state_;
    state_ = now;
    // With both rates off nothing changes but the state shown.
    if (background_ceiling_hz(cfg, was) == 0 && background_ceiling_hz(cfg, now) == 0) return std::nullopt;
    return Verdict{Input::WindowChanged,
                   std::string("window ") + window_state_name(was) + " -> " + window_state_name(now)};
}

}  // namespace pacer::detail
