// run_record.h: what a demo run records beside the pacer's own window, frame
// by frame and in bounded memory, and the report built from it at the end
// (summary.h's RunReport): run.cpp feeds it and writes what it builds.
//
// What reached the screen comes first in the report: the presents (between
// swap returns, Summary::presents), then the frames the display reported
// shown, then the wakes the pacer aimed at.
#pragma once

#include "run/scenario.h"
#include "run/summary.h"

#include <pacer/pacer.h>
#include <pacer/metrics.h>

#include <array>
#include <deque>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pacer_demo {

// What ran, as the app knows it at the end (run.cpp gathers it): the report's
// first info keys and the text summary's head, as given.
struct RunFacts {
    std::vector<std::pair<std::string, std::string>> info;
    std::vector<std::string> brief;
    std::string present_feedback;   // where the shown-frame reports come from, or why none do
    double refresh_hz = 0;          // what the window system states, 0 unknown
    std::string ended_by;           // the signal that ended the run, "" none
    const std::vector<Expectation>* expectations = nullptr;   // the scenario's, null none
};

class RunRecord {
public:
    explicit RunRecord(double success_tolerance_ms);
    // A frame as wait() returned it, what the scene moved by in it, in which
    // dt mode, and whether the pacer's display clock was locked.
    // swap_ns: the time spent inside the swap call within frame.work_ns,
    // which the frame's own work leaves out (a vsync swap's wait).
    void add_frame(const pacer::Frame& frame, int64_t motion_dt_ns, const char* dt_mode, bool display_locked,
                   int64_t swap_ns = 0);
    // When the swap of frame_index returned, on the pacer's clock.
    void add_swap(int64_t frame_index, int64_t swap_return_ns);
    // A report of what the display showed (Host::take_presented).
    void add_presented(const pacer::Presented& presented);

    // The whole report: facts, then the figures, then the verdicts.
    RunReport report(const RunFacts& facts, const pacer::Pacer& pacer) const;
    double success_tolerance_ms() const { return success_tolerance_ms_; }

private:
    void add_swap_figures_(RunReport* report, const RunFacts& facts) const;
    void add_display_figures_(RunReport* report, const pacer::Pacer& pacer) const;
    void add_cost_notes_(RunReport* report, double period_ms) const;

    double success_tolerance_ms_;
    std::vector<std::string> dt_modes_;   // in the order the run used them
    // Everything below stays the same size however long the run: figures are
    // streamed, intervals binned (pacer::LogHistogram).
    std::unique_ptr<pacer::RunMetrics> run_metrics_;
    pacer::LogHistogram swap_intervals_ns_, shown_intervals_ns_, after_swap_ns_;
    // Each wake to the mark_present after it (the next frame's present_ns).
    pacer::LogHistogram wake_to_present_ns_;
    int64_t previous_wake_ns_ = -1;
    // The frames' own cost: each frame's work (wake to the next wait, its
    // GPU work included), how many outlasted their period, and the intervals
    // over kOverMs (CapFrameX's "frames above").
    static constexpr double kOverMs[] = {25, 33.3, 50};
    pacer::LogHistogram work_ns_;
    int64_t work_over_period_ = 0;
    pacer::LogHistogram gpu_finish_ns_;   // each wait's Host::finish_gpu, 0 where none ran
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
    std::deque<int64_t> motion_dt_ns_;          // what the scene moved by, per recent frame
    std::deque<pacer::Presented> presented_;    // the reports of about those frames
};

}  // namespace pacer_demo
