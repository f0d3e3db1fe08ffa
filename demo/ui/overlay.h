// overlay.h: the demo's Dear ImGui panel, on the left of the window, in two
// halves: a read-only view of what reached the screen and what the pacer did
// (ui/frame_view.h: status, graph, histogram, statistics), and the settings
// (ui/settings_panel.h), each control live. The frame's change is applied
// once, after the panel is drawn, through View::change, app.cpp's one path
// for settings (Controls, then the pacer's reconfigure), the same call a
// scenario step makes.
#pragma once

#include <string>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/metrics.h>
#include <pacer/thread_timing.h>

#include "controls.h"
#include "ui/frame_view.h"
#include "ui/settings_panel.h"
#include "window/window.h"

namespace pacer_demo {

// Dear ImGui's context, with the platform's backend and the OpenGL3 renderer
// backend: made after the GL context, gone before it.
class ImGuiLayer {
public:
    explicit ImGuiLayer(Window& window);
    ~ImGuiLayer();
    ImGuiLayer(const ImGuiLayer&) = delete;
    ImGuiLayer& operator=(const ImGuiLayer&) = delete;
    void begin_frame();
    void end_frame();   // draws into the back buffer

private:
    Window& window_;
};

class Overlay {
public:
    static constexpr int kGraphFrames = FrameView::kGraphFrames;
    using View = OverlayView;
    // The panel's width in a window this wide: 440 px, narrower in a small
    // window (280 px, 44 % of a 640 px one) so that the scene keeps most of it.
    static float panel_width_px(float window_width_px);

    // Builds the panel for this frame (between ImGui::NewFrame and Render),
    // then applies what the user changed in it, once.
    void draw(Controls& controls, const View& view);

private:
    FrameView frames_;
    SettingsPanel settings_;
    std::string last_error_;   // a change that was refused
};

}  // namespace pacer_demo
