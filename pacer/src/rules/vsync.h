// vsync.h: the watch over vsync while the swap paces (table.h's rows
// "probe" and "vsync"): auto's probe (probe.cpp), then the window of present
// intervals and the cadence of the frames the display reports shown under it
// (vsync.cpp). It keeps its own state, reads the pacer through a VsyncView
// and answers with verdicts; the arbiter acts on them. Internal.
#pragma once

#include "rules/common.h"
#include "base/recent.h"
#include "display/present_model.h"

#include <cstdint>

namespace pacer::detail {

// What the watch reads of the pacer, at each interval or report.
struct VsyncView {
    Strategy asked = Strategy::Auto;
    int interval = 1;                     // the swap interval in force
    double period_ns = 0;                 // vsync's period: the refresh unit times the interval
    double target_hz = 0;
    double decided_hz = 0;                // the refresh the probe rests on
    bool feedback_seen = false;           // the host has reported a shown frame
    const ClockFit* display = nullptr;    // the shown frames' clock
    bool shows_most = false;              // auto keeps vsync because it showed the most (shown.h)
};

class VsyncWatch {
public:
    static constexpr int kWindow = 32;          // intervals watched while on vsync
    static constexpr int kCadenceWindow = 32;   // displayed frames judged for cadence

    // vsync (re)starts before frame `index`; auto's probe where `probe`.
    void start(bool probe, int64_t index);
    void confirm();                             // the probe passed: the window starts afresh
    void stop_probe() { probing_ = false; }
    void forget_cadence() { cadence_.clear(); }  // another host: its display is another
    bool probing() const { return probing_; }

    // One present interval; false where it is not counted (the first one
    // straddles the switch).
    bool add(int64_t interval_ns);
    // Auto's probe once it has kProbeFrames intervals (probe.cpp); none
    // while it needs more.
    MaybeVerdict judge_probe(const VsyncView& view, int64_t index);

    // The window while vsync paces, past the probe.
    struct Window {
        int fast = 0;            // under half the period: the swap did not block
        int slow = 0;            // over 1.5 periods: a refresh was missed
        int64_t median_ns = 0;   // 0 until the window is full
        bool off_rate = false;   // the median off the period by more than the probe allows
        // What a display change explains as well: the refresh is read again first.
        bool suspect() const { return fast >= rules::kWatchTrip || slow >= rules::kWatchTrip || off_rate; }
    };
    Window window(const VsyncView& view) const;
    MaybeVerdict judge_window(const Window& window, const VsyncView& view, int64_t index);
    // A shown (or discarded) frame reported before the wait of frame `index`.
    MaybeVerdict report(const PresentModel::Report& report, int64_t index, const VsyncView& view);

private:
    enum class Health { Fine, Fast, Slow, OffRate };

    MaybeVerdict judge_display_probe(const VsyncView& view, int64_t index) const;
    MaybeVerdict judge_auto(const Window& window, const VsyncView& view, int64_t index);
    MaybeVerdict judge_health(const Window& window, const VsyncView& view);
    MaybeVerdict judge_cadence(bool on_cadence, const VsyncView& view);
    bool uneven_twice(int64_t index);
    std::string of() const;
    std::string fast_median(double period) const;
    std::string off_rate_text(const Window& window, double period) const;

    Recent<kWindow> watched_;          // present intervals while the swap paces
    int skip_samples_ = 0;
    Recent<kCadenceWindow> cadence_;   // displayed frames: 1 off cadence, 0 on
    Health health_ = Health::Fine;     // explicit vsync: what the last reason said
    int64_t uneven_since_ = -1;        // auto: the frame its presents were first found uneven
    bool probing_ = false;
    int64_t since_index_ = 0;          // the frame vsync (re)started before
};

}  // namespace pacer::detail
