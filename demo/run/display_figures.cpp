// display_figures.cpp: see display_figures.h.
#include "run/display_figures.h"

#include <pacer/status.h>

#include <unordered_map>

namespace pacer_demo {

DisplayFigures display_figures(const std::vector<pacer::Frame>& frames, const std::vector<int64_t>& motion_dt_ns,
                               const std::vector<pacer::Presented>& reports, int64_t refresh_ns) {
    std::unordered_map<int64_t, const pacer::Presented*> fate_of;
    for (const pacer::Presented& report : reports) fate_of[report.frame_index] = &report;

    DisplayFigures out;
    int64_t last_shown_ns = -1;
    int64_t advance_ns = 0;   // the scene's advance since the last shown frame
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const pacer::Frame& frame = frames[i];
        if (i < motion_dt_ns.size() && motion_dt_ns[i] >= 0) advance_ns += motion_dt_ns[i];
        const auto found = fate_of.find(frame.index);
        if (found == fate_of.end()) continue;
        const pacer::Presented& fate = *found->second;
        if (fate.discarded) {
            ++out.discarded;
            continue;
        }
        if (fate.displayed_ns < 0) continue;
        ++out.shown;
        out.latency_ns.push_back(fate.displayed_ns - frame.wake_ns);
        out.prediction_error_ns.push_back(fate.displayed_ns - frame.predicted_present_ns);
        if (refresh_ns > 0 && pacer::shown_late(fate.displayed_ns - frame.predicted_present_ns, refresh_ns, fate.flags)) ++out.late;
        if (last_shown_ns >= 0) {
            const int64_t between_ns = fate.displayed_ns - last_shown_ns;
            out.between_ns.push_back(between_ns);
            out.animation_error_ns.push_back(advance_ns - between_ns);
        }
        last_shown_ns = fate.displayed_ns;
        advance_ns = 0;
    }
    return out;
}

}  // namespace pacer_demo
