// run_control.h: what a run does besides its frame loop: when it ends and which
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
#include <pacer/metrics.h>
#include <pacer/thread_timing.h>

#include "options.h"
#include "controls.h"
#include "motion.h"
#include "run/chrome_trace.h"
#include "run/run_record.h"
#include "run/trace.h"
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

class RunOutputs;

// While it lives, a process that exits from inside the window system (Xlib
// calls exit(1) when the X server's connection breaks) still writes the
// run's trace and summary, from an atexit handler: exit() does not unwind
// run_app's stack, so the objects named here are alive then. Make it after
// them, so that it goes first.
class ExitGuard {
public:
    ExitGuard(RunOutputs& outputs, const pacer::Pacer& pacer, Controls& controls, Window& window,
              const Renderer& renderer);
    ~ExitGuard();
    ExitGuard(const ExitGuard&) = delete;
    ExitGuard& operator=(const ExitGuard&) = delete;
};

// Finishes the run in progress (its trace, Chrome trace and summary) from
// another thread, for a frame loop that will not come back: the process
// ends right after. Nothing where no run is in progress or it has finished;
// the run's own finish, if it comes back meanwhile, waits for the end.
void finish_run_in_progress();

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
    // display_lost: the display server's connection broke (ExitGuard, or a
    // Wayland window's display_lost): one line says so, the exit code is 1, the
    // window system is asked nothing more.
    int finish(const pacer::Pacer& pacer, Controls& controls, Window& window, const Renderer& renderer,
               bool display_lost = false);

private:
    std::string open_(const AppOptions& options);
    int close_files_();   // the exit code so far
    RunFacts facts_(const pacer::Pacer& pacer, Controls& controls, Window& window, const Renderer& renderer,
                    bool display_lost) const;
    void add_picture_(RunFacts* facts) const;
    const AppOptions* options_ = nullptr;
    std::unique_ptr<TraceWriter> trace_;
    std::unique_ptr<ChromeTraceWriter> chrome_trace_;
    std::unique_ptr<RunRecord> record_;   // the summary's figures
    SceneRecord scene_;
    Renderer::Image screenshot_;
    int32_t decision_seq_ = 0;   // the last decision written; 0: none yet
    int64_t newest_swap_ns_ = 0;    // time in the newest swap call (after the newest wake)
    int64_t swap_in_work_ns_ = 0;   // ... and in the one before, within the next frame's work
};

}  // namespace pacer_demo
