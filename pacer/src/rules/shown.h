// shown.h: auto judges display_lock by the frames it shows (table.h's row
// "shown"; shown.cpp has the why). Its own state: the frames shown a
// second since what paces last changed, and what vsync's last stint
// showed. Internal.
#pragma once

#include "rules/common.h"
#include "display/present_model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pacer::detail {

// Frames shown a second by the display, over the reports of frames after a
// given one, outages left out: an interval past `outage_ns` (the display,
// not what paced, stopped showing frames) counts neither its frame nor its
// time.
class ShownRate {
public:
    void start(int64_t after_index, int64_t outage_ns);
    void add(const PresentModel::Report& report);
    int intervals() const { return intervals_; }   // between the shown frames counted
    double hz() const;                             // 0 until two are

private:
    int64_t after_index_ = -1;
    int64_t outage_ns_ = 0;
    int64_t last_ns_ = -1;
    int64_t spanned_ns_ = 0;   // the intervals counted, added up
    int intervals_ = 0;
};

class ShownJudge {
public:
    void add(const PresentModel::Report& report) { shown_.add(report); }
    // What paces changed before frame `index`: vsync's shown rate is kept,
    // the count starts over for what comes next, frames due every `step_ns`
    // or more (the target's period, or the display's where longer).
    void stint(Strategy from, Strategy to, int64_t index, double step_ns);
    void forget() { vsync_hz_ = 0; }   // what vsync showed was on another display, or rate
    // vsync's probe showed fewer frames a second than `target_hz`: where it
    // kept the target, nothing shows more.
    bool vsync_fell_short(double target_hz) const;
    // Auto's display_lock at `refreshes` per frame against vsync's figure:
    // the why of a bar for vsync where display_lock showed too few.
    std::optional<std::string> fewer(double target_hz, int refreshes) const;
    // The why of a bar for vsync where display_lock lost the clock.
    std::string lost_why(double target_hz) const;

private:
    ShownRate shown_;      // frames shown a second since what paces last changed
    double vsync_hz_ = 0;  // ... under vsync, its last stint of kProbeFrames or more (0 none)
};

}  // namespace pacer::detail
