// window.h: the rule for a window in the background (table.h's row
// "window"; Config::background_hz, hidden_hz; Host::window_state). Its own
// state: the window's state as the host last said. Internal.
#pragma once

#include "rules/common.h"

#include <pacer/pacer.h>
#include <pacer/status.h>

#include <string>

namespace pacer::detail {

// The ceiling for a window in `state`: 0 none.
double background_ceiling_hz(const Config& cfg, WindowState state);
// The reason where the window's ceiling is in force.
std::string background_reason(const Config& cfg, WindowState state, double ceiling_hz);

class WindowWatch {
public:
    WindowState state() const { return state_; }
    void set(WindowState state) { state_ = state; }
    // The host's word before a wait: a change that moves the ceiling.
    MaybeVerdict update(WindowState now, const Config& cfg);

private:
    WindowState state_ = WindowState::Foreground;
};

}  // namespace pacer::detail
