// frame_view.h: the overlay's read-only half: what the window system and the
// pacer gave (status), the frame-time graph of the last kGraphFrames frames,
// a histogram and the statistics table, and the scene's labels. It changes
// nothing: its one button (Reset, of the statistics) is returned as a request.
//
// What reached the screen comes first: the bars are the intervals between
// presents (swap returns, Frame::present_ns) where the loop marks them, the
// line the intervals between frames the display reported shown; the wakes
// the pacer aimed at are the table's second half (and the bars only where no
// present is marked).
#pragma once

#include <string>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/metrics.h>

#include "controls.h"
#include "render/scene.h"
#include "window/window.h"

namespace pacer_demo {

// Everything the overlay reads besides Controls.
struct OverlayView {
    Window* window;
    pacer::Pacer* pacer;          // its decision, status and stats()
    const pacer::Stats* stats;    // pacer->stats(): the window of recent frames
    const ChangeSettings* change; // app.cpp's: applies a change, "" or the error
    const std::string* gl_renderer;
    const Scene* scene;
    Stage stage;                  // where the scene is drawn, for its labels
};

class FrameView {
public:
    static constexpr int kGraphFrames = 300;
    // last_error: the last change refused ("" none), shown under the status.
    void draw_status(const Controls& controls, const OverlayView& view, const std::string& last_error);
    void draw_graph(const OverlayView& view);
    void draw_histogram(const OverlayView& view);
    // True when the user asked for the statistics to be reset.
    bool draw_stats(const OverlayView& view);
    void draw_scene_labels(const OverlayView& view);

    // One bar of the graph: an interval and the period it is judged against.
    struct Bar {
        int64_t interval_ns = -1;   // -1: none for this frame
        int64_t period_ns = 0;
        int32_t missed = 0;
    };
    // The bars of frames in order: between presents where any frame has one,
    // else between wakes; *presents says which.
    static std::vector<Bar> bars_of(const std::vector<pacer::Frame>& frames, bool* presents);

private:
    std::vector<pacer::Frame> graph_frames_(const pacer::Stats& stats) const;
    bool paused_ = false;
    std::vector<pacer::Frame> paused_frames_;   // the graph's frames while paused
};

}  // namespace pacer_demo
