// settings_panel.h: the overlay's settings: pacing (strategy, display lead,
// dt, wait point, rate, vsync), the scheduler and the synthetic load, each
// control beside what is in force for it. Every control writes into one
// Settings for the frame; the overlay applies it once, after the panel is
// drawn, through app.cpp's one path for settings (View::change), the same
// call a scenario step makes. A drag applies when the user lets go.
#pragma once

#include <pacer/metrics.h>
#include <pacer/pacer.h>
#include <pacer/status.h>

#include "controls.h"
#include "window/window.h"

namespace pacer_demo {

class SettingsPanel {
public:
    using Pacer = pacer::Pacer;
    void draw_pacing(Controls& controls, const Pacer& pacer, Window& window);
    void draw_scheduler(Controls& controls);
    void draw_load(Controls& controls);
    // What the user changed this frame (empty: nothing); clears it.
    Settings take_change();

private:
    void draw_strategy_(Controls& controls, const pacer::WaitStatus& state);
    void draw_display_lead_(Controls& controls, const pacer::WaitStatus& state);
    void draw_contention_(const pacer::WaitStatus& state);
    void draw_clock_(Controls& controls, const pacer::Stats& stats);
    void draw_rate_(Controls& controls);
    void draw_vsync_(Controls& controls, Window& window);
    void draw_simulated_scheduler_(Controls& controls);
    void draw_timer_waits_(Controls& controls);
    void draw_thread_controls_(Controls& controls);

    Settings change_;         // this frame's, applied once by the overlay
    double custom_hz_ = 75;   // the rate being typed
};

}  // namespace pacer_demo
