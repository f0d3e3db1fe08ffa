// overlay.h: the demo's Dear ImGui panel, on the left of the window. Every
// control is live: it builds a Settings with what changed and hands it to
// View::change, app.cpp's one path for settings (Controls, then the pacer's
// reconfigure), the same call a scenario step makes.
//
// What it shows: the frame-time graph of the last kGraphFrames frames (bars
// coloured against the target, a pause button), a histogram of intervals, the
// statistics table (reset button), and what the window system, the pacer and
// the OS actually gave (swap interval answer, refresh rate, strategy in force,
// timer slack, simulated scheduler, what the timer waits ran with).
#pragma once

#include <string>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>
#include <pacer/thread_timing.h>

#include "controls.h"
#include "window/window.h"
#include "render/scene.h"

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
    static constexpr int kGraphFrames = 300;
    // The panel's width in a window this wide: 440 px, narrower in a small
    // window (280 px, 44 % of a 640 px one) so that the scene keeps most of it.
    static float panel_width_px(float window_width_px);

    // Everything the panel reads besides Controls.
    struct View {
        Window* window;  
        pacer::Pacer* pacer;          // its decision, status and stats(); reset_stats() by the button
        const pacer::Stats* stats;    // pacer->stats(): the window of recent frames
        const ChangeSettings* change; // app.cpp's: applies a change, "" or the error
        const std::string* gl_renderer;
        const Scene* scene;
        Stage stage;                  // where the scene is drawn, for its labels
    };

    // Builds the panel for this frame (between ImGui::NewFrame and Render).
    void draw(Controls& controls, const View& view);

private:
    void draw_status_(Controls& controls, const View& view);
    void draw_frame_graph_(const View& view);
    void draw_histogram_(const View& view);
    void draw_stats_(const View& view);
    void draw_pacing_(Controls& controls, const View& view);
    void draw_display_lead_(Controls& controls, const pacer::WaitStatus& state);
    void draw_scheduler_(Controls& controls);
    void draw_load_(Controls& controls);
    void draw_scene_labels_(const View& view);
    void apply_(Controls& controls, const Settings& changes);

    bool paused_ = false;
    std::vector<pacer::Frame> paused_frames_;   // the graph's frames while paused
    double custom_hz_ = 75;
    std::string last_error_;                    // a change that was refused
    const ChangeSettings* change_ = nullptr;    // this frame's View::change
};

}  // namespace pacer_demo
