// display_figures.h: a run's display-side figures, PresentMon-style, from
// the reports of what the display showed (pacer::Presented, wp_presentation
// under weston) joined to the frames they came from. The same definitions as
// the trace's display columns (trace.h), over the whole run, for the summary.
#pragma once

#include "pacer/pacer.h"

#include <cstdint>
#include <vector>

namespace pacer_demo {

struct DisplayFigures {
    int64_t shown = 0;                          // frames reported shown
    int64_t discarded = 0;                      // frames reported replaced before a refresh
    std::vector<int64_t> between_ns;            // MsBetweenDisplayChange of each shown frame after the first
    std::vector<int64_t> latency_ns;            // wake to on screen
    std::vector<int64_t> animation_error_ns;    // the scene's advance since the previous shown frame
                                                // minus the time between them on screen
    std::vector<int64_t> prediction_error_ns;   // on screen minus Frame::predicted_present_ns
    int64_t late = 0;                           // shown at a later refresh than its predicted present
                                                // (display_lock: the refresh it aimed at), by the
                                                // library's rule (pacer::shown_late, the report's flags)
};

// frames: the run's frames in order; motion_dt_ns[i]: what the scene moved
// by in frames[i] (-1 none); reports: the display's, in arrival order;
// refresh_ns: the display's refresh period (0 unknown: no frame counts late).
// Reports for frames not in `frames` are ignored.
DisplayFigures display_figures(const std::vector<pacer::Frame>& frames, const std::vector<int64_t>& motion_dt_ns,
                               const std::vector<pacer::Presented>& reports, int64_t refresh_ns = 0);

}  // namespace pacer_demo
