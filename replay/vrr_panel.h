// replay/vrr_panel.h: when a panel with variable refresh (FreeSync, G-Sync,
// HDMI VRR) begins to show each frame, as pacer-replay's VRR display
// (--display vrr) and the unit tests' fake VRR panel (tests/unit/fakes.h)
// model it. Header-only, no pacer dependency.
//
// The panel starts a scanout when a frame arrives, but not sooner than one
// fastest refresh (1 / max_hz) after the last one began: with vsync the
// frame waits for that (a queue), without it the frame tears. Below the
// range, with nothing new 1 / min_hz after a scanout, the driver shows the
// last frame again (low framerate compensation): where the last interval was
// longer than 1 / min_hz, m - 1 times at even steps of interval / m (m the
// fewest that keep a step within the range), so that the next frame, if it
// keeps the pace, arrives as the m-th step would begin; past those, every
// 1 / min_hz. A frame that arrives during a repeat's scanout waits for its end.
#pragma once

#include <cmath>

namespace pacer_replay {

class VrrPanel {
public:
    VrrPanel(double min_hz, double max_hz) : min_hz_(min_hz), max_hz_(max_hz) {}

    // A frame that arrives (its swap plus the latch) at arrival_ns: when its
    // scanout begins. *torn: it began inside the scanout before (no vsync).
    double show(double arrival_ns, bool vsync, bool* torn) {
        *torn = false;
        const double fastest = 1e9 / max_hz_;
        double t = arrival_ns;
        if (last_ns_ >= 0) {
            t = after_repeats(t, fastest);
            if (t < last_ns_ + fastest) {
                if (vsync)
                    t = last_ns_ + fastest;   // waits for the panel: a queue
                else
                    *torn = true;             // shown now, torn
            }
            gap_ns_ = t - last_ns_;
        }
        last_ns_ = t;
        return t;
    }
    double min_hz() const { return min_hz_; }
    double max_hz() const { return max_hz_; }

private:
    // Where a repeat's scanout has begun, the last at or before t, and t is
    // inside it: the frame waits for its end. Closed form, so that a range
    // no panel has (NaN, a minimum over the maximum) costs nothing either.
    double after_repeats(double t, double fastest) const {
        if (!(min_hz_ > 0) || !(max_hz_ > min_hz_)) return t;   // no range: no repeats
        const double slowest = 1e9 / min_hz_;
        if (!(t - last_ns_ > slowest)) return t;
        double base = last_ns_;   // the repeats after it are base + j * step
        double step = slowest;
        if (gap_ns_ > slowest) {   // the driver's guess: the pace goes on
            const double m = std::ceil(gap_ns_ / slowest - 1e-9);
            step = gap_ns_ / m;
            if (t - last_ns_ < m * step) return inside(t, last_ns_ + std::floor((t - last_ns_) / step) * step, fastest);
            base = last_ns_ + (m - 1) * step;   // past the guessed repeats: every slowest from the last of them
            step = slowest;
        }
        return inside(t, base + std::floor((t - base) / step) * step, fastest);
    }
    // t, or the end of the scanout that began at `begins` where t is inside it.
    static double inside(double t, double begins, double fastest) {
        return t >= begins && t < begins + fastest ? begins + fastest : t;
    }

    double min_hz_, max_hz_;
    double last_ns_ = -1;   // the newest frame's scanout
    double gap_ns_ = 0;     // the interval before it
};

}  // namespace pacer_replay
