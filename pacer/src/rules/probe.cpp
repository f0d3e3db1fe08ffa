// probe.cpp: auto's probe of vsync (vsync.h; table.h's rows "probe"):
// whether the swap paces at the period it was set for, judged by its
// returns, by how steady they are where nothing reports shown frames, or by
// the shown frames where the host reports them. docs/design.md, "Vsync and
// auto".
#include "rules/vsync.h"

#include "base/saturate.h"
#include "rules/display.h"

#include <cmath>

namespace pacer::detail {

using namespace rules;

// On the last kProbeFrames intervals; where nothing reports shown frames,
// on up to kSteadyFrames (the rules in common.h).
MaybeVerdict VsyncWatch::judge_probe(const VsyncView& view, int64_t index) {
    if (watched_.count() < kProbeFrames) return std::nullopt;
    const double period = view.period_ns;
    const int64_t median = watched_.median_of_last(kProbeFrames);
    const double m = static_cast<double>(median);
    // Where the display reports what it showed, only a swap that did not
    // block is judged by swap returns; the rest by the display.
    if (view.feedback_seen && m >= (1 - kProbeTolerance) * period) return judge_display_probe(view, index);
    // A swap that never blocks returns fast nearly every time (Xvfb): that
    // is plain from the first few.
    const int fast = watched_.count_where([&](int64_t x) { return static_cast<double>(x) < kFastFraction * period; });
    const bool never_blocks = m < kFastFraction * period && fast * 4 >= watched_.count() * 3;
    std::string steady;   // how steady, where the presents are all there is to judge by
    if (!never_blocks && !view.feedback_seen) {
        // Nothing says what was shown: the swaps must also be steady (KWin's
        // alternate 32, 7, 0.5 and 16 ms, whose median of 8 is luck). Not
        // the first ones, though: as vsync comes on, the swaps that fill the
        // driver's queue return before a refresh could have passed and the
        // one after them waits part of one (sway's under GLFW: 2.9, 5.7 and
        // 15.1 ms, then 16.2-16.4), which is how a queue starts, not how
        // the swaps go. Uneven ones after those end the probe once there are
        // kWatchTrip of them in half the window or more (fewer are no
        // median to judge by), else the whole window is judged.
        int filling = 0;
        while (filling < watched_.count() &&
               static_cast<double>(watched_.newest(watched_.count() - filling)) < (1 - kProbeTolerance) * period)
            ++filling;
        if (filling > 0 && filling < watched_.count()) ++filling;
        const int judged = watched_.count() - filling;
        const int64_t around = watched_.median_of_last(judged);
        const int off = watched_.count_where_last(judged, [&](int64_t x) { return sat_abs_diff(x, around) > kSteadyNs; });
        const bool early = off >= kWatchTrip && judged >= kSteadyFrames / 2;
        if (!early && watched_.count() < kSteadyFrames) return std::nullopt;
        const std::string count = " of " + std::to_string(judged);
        if (off >= kWatchTrip)
            return Verdict{Input::ProbeUneven,
                           "vsync presents off their median (" + ms(static_cast<double>(around)) + ") by > " +
                               ms(kSteadyNs) + " in " + std::to_string(off) + count,
                           true};
        steady = ", " + std::to_string(judged - off) + count + " within " + ms(kSteadyNs) + " of their median";
    }
    if (std::fabs(m - period) <= kProbeTolerance * period)
        return Verdict{Input::ProbeSwapsSteady, "auto -> vsync: presents every " + ms(m) + " (" +
                                                    hz_rounded(view.decided_hz) + " / " +
                                                    std::to_string(view.interval) + ")" + steady};
    if (m < period) return Verdict{Input::ProbeSwapsFast, "vsync requested, swaps return every " + ms(m)};
    return Verdict{Input::ProbeOffPeriod, "vsync presents every " + ms(m) + ", not " + ms(period)};
}

// Where the display reports: vsync is trusted once the display clock is
// locked, n of its periods make the target's, and the shown frames keep
// that cadence.
MaybeVerdict VsyncWatch::judge_display_probe(const VsyncView& view, int64_t index) const {
    const ClockFit& display = *view.display;
    if (!display.locked() || cadence_.count() < kProbeFrames) {
        if (index - since_index_ >= kDisplayProbeFrames)
            return Verdict{Input::ProbeNoClock, "vsync requested, the display reports no steady refresh in " +
                                                    std::to_string(index - since_index_) + " frames" +
                                                    (display.locked() ? "" : ": " + unlocked_why(display))};
        return std::nullopt;
    }
    const double shown = display.period_ns() * view.interval;
    const double target = period_ns_of(view.target_hz);
    if (std::fabs(shown - target) > kRateTolerance * target)
        return Verdict{Input::ProbeShownOffRate, "display shows frames every " + ms(shown) + ", not " + ms(target)};
    const int off = static_cast<int>(cadence_.sum());
    if (off * 4 > cadence_.count())
        return Verdict{Input::ProbeOffCadence, "displayed frames off cadence in " + std::to_string(off) + " of " +
                                                   std::to_string(cadence_.count())};
    return Verdict{Input::ProbeShownSteady, "auto -> vsync: display shows frames every " + ms(shown) + " (" +
                                                hz_rounded(hz_of(display.period_ns())) + " / " +
                                                std::to_string(view.interval) + ")"};
}

}  // namespace pacer::detail
