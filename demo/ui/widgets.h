// widgets.h: the few ImGui controls the settings panel builds its sections
// from (settings_panel.cpp), and the panel's unit helper.
#pragma once

#include <cstdint>

#include <imgui.h>

namespace pacer_demo {

inline double ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

// A double slider whose value is applied when the user lets go (or presses
// enter), so a drag does not remake the pacer on every frame. Returns true
// then, with the final value in *value.
bool slider_released(const char* label, double* value, double min, double max, const char* format,
                     ImGuiSliderFlags flags = 0);

// The settings table's help for the control just drawn (run/settings.h), with
// the flag and scenario key that set the same thing.
void setting_tip(const char* key);

// A duration in ns that is either -1 ("leave the thread's own") or a value: a
// checkbox, then a logarithmic slider of the value in units of unit_ns, the
// pair as wide as one slider so that the labels line up. Returns true with
// *changed_ns set when the user changed it: -1 when unticked, on_ns when
// ticked, or the slider's value when released.
bool optional_duration(const char* label, int64_t current_ns, int64_t on_ns, double unit_ns, double min, double max,
                       const char* tooltip, int64_t* changed_ns);

}  // namespace pacer_demo
