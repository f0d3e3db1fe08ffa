// run.h: what a run does besides its frame loop: when it ends and which
// scenario steps are due (RunScript), and the files it writes (RunOutputs),
// all opened or checked before the first frame so that a bad path is reported
// up front and nothing is left half-written.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>
#include <pacer/thread_timing.h>

#include "options.h"
#include "controls.h"
#include "motion.h"
#include "core/chrome_trace.h"
#include "core/trace.h"
#include "render/renderer.h"
#include "render/scene.h"

namespace pacer_demo {

class RunScript {
public:
    explicit RunScript(const AppOptions& options);
    // The scenario's steps due before frame 0 ("at 0s", "at frame 0"):
    // settings through change, marks into controls' markers.
    std::string apply_start(Controls& controls, const ChangeSettings& change);
    // Whether the run ends before running this frame (--frames, --seconds or
    // the scenario's end).
    bool finished(int64_t frame_index, double elapsed_s) const;
    // Applies the steps that became due; "" or "FILE:LINE: message".
    std::string apply_due(int64_t frame_index, double elapsed_s, Controls& controls, const ChangeSettings& change);

private:
    std::string apply_(const std::vector<const Step*>& steps, Controls& controls, const ChangeSettings& change);
    const AppOptions& options_;
    std::optional<ScenarioCursor> cursor_;
};

// Facts about the picture, recorded in the summary so that a checker can
// predict pixels from them (tests/demo/check_run.py).
struct SceneRecord {
    Stage stage{};
    bool overlay = false;
    int64_t screenshot_frame = -1;   // -1: no screenshot taken
    double screenshot_time_s = 0;    // the scene's simulated time in it
    std::array<MovingObject, 3> objects{};
};

class RunOutputs {
public:
    // Opens the trace and checks that the screenshot and summary paths can be
    // written. "" or one line naming the path.
    std::string open(const AppOptions& options);
    // One frame's row: the pacer's frame, what the scene moved by, the
    // pacer's decision when it changed, the markers Controls collected (taken
    // here), and when the swap that followed the frame's wake returned (-1 or
    // earlier: none). The frame also goes into the run's summary figures
    // (bounded memory).
    void write_trace(const pacer::Frame& frame, const MotionStep& step, const pacer::Pacer& pacer,
                     Controls& controls, int64_t present_ns);
    // After the swap of frame_index: when it returned, and the frames the
    // compositor reported displayed or discarded since (the reports the
    // pacer pulled through the backend's Host::take_presented).
    void note_swap(Window& window, int64_t frame_index);
    // Captures the screenshot's pixels if this is its frame (written at
    // finish). "" or one line.
    std::string screenshot_if_due(int64_t frame_index, Renderer& renderer, const Scene& scene,
                                  const Stage& stage);
    // Closes the trace, prints and writes the summary. Returns the exit code.
    int finish(const pacer::Pacer& pacer, Controls& controls, Window& window, const Renderer& renderer);

private:
    std::string open_(const AppOptions& options);
    double success_tolerance_ms() const {   // the ± of success_pct
        return options_->scenario ? options_->scenario->success_tolerance_ms : 1.0;
    }
    const AppOptions* options_ = nullptr;
    std::unique_ptr<TraceWriter> trace_;
    std::unique_ptr<ChromeTraceWriter> chrome_trace_;
    SceneRecord scene_;
    Renderer::Image screenshot_;
    int32_t decision_seq_ = 0;            // the last decision written; 0: none yet
    std::vector<std::string> dt_modes_;   // in the order the run used them
    // Everything below stays the same size however long the run: the
    // summary's figures are streamed, intervals binned (pacer::LogHistogram).
    std::unique_ptr<pacer::RunMetrics> run_metrics_;
    pacer::LogHistogram swap_intervals_ns_, present_intervals_ns_, after_swap_ns_;
    // The frames' own cost, for the text summary: each frame's work (wake to
    // the next wait), how many outlasted their period, and the intervals
    // over kOverMs (CapFrameX's "frames above").
    static constexpr double kOverMs[] = {25, 33.3, 50};
    pacer::LogHistogram work_ns_;
    int64_t work_over_period_ = 0;
    std::array<int64_t, std::size(kOverMs)> over_ms_{};
    int64_t first_wake_ns_ = -1, last_swap_return_ns_ = -1, last_displayed_ns_ = -1;
    int64_t presented_frames_ = 0, discarded_frames_ = 0, stated_refresh_ns_ = 0;
    // Frames since the pacer's display clock first locked, and of them the
    // ones it was locked at: a display that changes rate near the end leaves
    // it relocking, so its state at the last frame alone says little.
    int64_t display_frames_since_lock_ = 0, display_locked_frames_ = 0;
    // Frame index -> its swap's return, for the feedback still in flight.
    static constexpr std::size_t kSwapsRemembered = 1024;
    std::array<std::pair<int64_t, int64_t>, kSwapsRemembered> swap_return_of_ns_{};
    // The display figures (display_figures.h) join frames to their reports:
    // they are computed over the newest kDisplayFrames frames only.
    static constexpr std::size_t kDisplayFrames = 2048;
    std::deque<pacer::Frame> recent_frames_;
    std::deque<int64_t> motion_dt_ns_;               // what the scene moved by, per recent frame
    std::deque<pacer::Presented> presented_;         // the reports of about those frames
};

}  // namespace pacer_demo
