// arbiter_window.cpp: the arbiter's rule for a window in the background
// (Config::background_hz, hidden_hz; Host::window_state).
//
// A window nobody looks at need not cost a core and the GPU at full rate.
// The Host's word is read before every wait, so the rate drops at the wait
// after the window loses the focus and comes back at the one after it
// regains it; the Pacer restarts its grid from the last deadline at the new
// rate, so nothing catches up. The timer paces, swap interval 0, whatever the
// strategy: a hidden Wayland surface gets no refreshes, and a vsync swap
// there would block until it is shown again.
#include "core/arbiter.h"

#include "core/arbiter_rules.h"

namespace pacer::detail {

using namespace arbiter_rules;

// The ceiling on the rate for a window in `state` (0: none), by this table:
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

// The window is in the background: the timer paces at the ceiling, or at
// the target where that is lower.
std::string Arbiter::choose_background(double ceiling_hz) {
    set_interval(0);
    waiter_.set_strategy(Strategy::Timer);
    waiter_strategy_ = waiter_.state().strategy;
    limit_hz_ = ceiling_hz;
    const bool hidden = window_ == WindowState::Hidden;
    const char* field = hidden && cfg_.hidden_hz > 0 ? "hidden_hz" : "background_hz";
    std::string head = strategy_name(cfg_.strategy);
    if (cfg_.strategy != Strategy::Timer) head += " -> timer";
    const std::string rate = cfg_.target_hz <= ceiling_hz
                                 ? "the target " + hz_text(cfg_.target_hz) + ", under " + field + " " + hz_text(ceiling_hz)
                                 : hz_text(ceiling_hz) + " (" + field + ")";
    return head + ": window " + window_state_name(window_) + ", paced at " + rate;
}

// What the host says; in front without one, or where it says a value no
// state has.
WindowState Arbiter::read_window_state() const {
    if (cfg_.host == nullptr) return WindowState::Foreground;
    const WindowState state = cfg_.host->window_state();
    const bool known = state == WindowState::Foreground || state == WindowState::Unfocused ||
                       state == WindowState::Hidden;
    return known ? state : WindowState::Foreground;
}

// Before each wait, where a host is: the window's state changed.
bool Arbiter::check_window(int64_t index) {
    if (cfg_.host == nullptr) return false;
    const WindowState now = read_window_state();
    if (now == window_) return false;
    const WindowState was = window_;
    window_ = now;
    // With both rates off nothing changes but the state shown.
    if (background_ceiling_hz(cfg_, was) == 0 && background_ceiling_hz(cfg_, now) == 0) {
        decision_.window = now;
        return false;
    }
    take(Input::WindowChanged, std::string("window ") + window_state_name(was) + " -> " + window_state_name(now), index);
    return true;
}

}  // namespace pacer::detail
