// hitches.cpp: the hitch count and the due refreshes (pacer/status.h).
#include <pacer/status.h>
#include <pacer/units.h>

#include <algorithm>
#include <cmath>

namespace pacer {

namespace {

constexpr double kFrameSlack = 0.05;   // a display this share of a frame faster still takes one refresh a frame
// The grid follows the reports as a second-order loop: an eighth of each
// report's offset moves its phase, a 128th its period (by at most a quarter
// refresh). So software dates +-5 ms off their refresh at 60 Hz move no
// frame to another refresh (+-6.5 ms is where any such loop starts to
// fail: half a refresh less the grid's own wander), and a compositor whose
// cadence runs off its fitted period (weston's at 1280x720 on the VM:
// frames every 28.4 ms where the fit said 26.1) is followed instead of
// drifting a refresh every few frames. On such a weston trace: 27.5
// hitches per 1,000 against 22.8 from the span of its shown intervals over
// their median; phase alone (a sixteenth) counted 99 (docs/design.md).
constexpr double kPhaseShare = 1.0 / 8;
constexpr double kPeriodShare = 1.0 / 128;
constexpr double kMostCorrection = 0.25;
// Bounds that keep the counts in range on any input: a million refreshes
// a frame (a 1 mHz target on a 1 kHz display), a billion in one interval.
constexpr int kMostDue = 1'000'000;
constexpr double kMostSpanned = 1e9;

}  // namespace

int due_refreshes(double refresh_ns, double target_hz) {
    if (!(refresh_ns > 0) || !(target_hz > 0) || !std::isfinite(refresh_ns) || !std::isfinite(target_hz)) return 1;
    const double per_frame = period_ns_of(target_hz) / refresh_ns;
    if (!(per_frame < kMostDue)) return kMostDue;
    return std::max(1, static_cast<int>(std::ceil(per_frame - kFrameSlack)));
}

int64_t HitchCount::add(int64_t shown_ns, double refresh_ns, int due, uint32_t flags, Grid grid) {
    if (last_ns_ >= 0 && shown_ns <= last_ns_) return 0;
    const bool first = last_ns_ < 0 || grid_ns_ < 0;
    last_ns_ = shown_ns;
    if (!(refresh_ns > 0) || !std::isfinite(refresh_ns)) {
        grid_ns_ = -1;   // no grid to place it on: the next frame starts one
        return 0;
    }
    const auto t = static_cast<double>(shown_ns);
    if (first) {
        grid_ns_ = t;
        correction_ns_ = 0;
        moved_ = 0;
        credit_ = 0;
        return 0;
    }
    const bool fixed = grid == Grid::Fixed;
    if (fixed) correction_ns_ = 0;
    // Refreshes since the frame before, on the grid: past the late line of
    // late_after_ns (a quarter or a half refresh) is the next refresh.
    const double late_share = static_cast<double>(late_after_ns(kNsPerSecond, flags)) / kNsPerSecond;
    const double period = refresh_ns + correction_ns_;
    const double since = (t - grid_ns_) / period;
    const double steps = std::max(0.0, std::ceil(since - late_share));
    const double placed = grid_ns_ + steps * period;
    const double offset = t - placed;
    grid_ns_ = placed + kPhaseShare * offset;
    if (steps > 0 && !fixed)
        correction_ns_ = std::clamp(correction_ns_ + kPeriodShare * offset / steps, -kMostCorrection * refresh_ns,
                                    kMostCorrection * refresh_ns);
    auto spanned = static_cast<int64_t>(std::min(steps, kMostSpanned));
    int64_t added = std::max<int64_t>(0, spanned - std::max(due, 1));
    if (fixed) {
        // On the display's own period, what the grid's phase moved is time
        // the shown frames took: half a refresh of it, later, is one refresh
        // more spanned; earlier, one less. A frame shown fewer refreshes
        // after the one before than were due (a move earlier, or a late
        // report then an early one) is owed back by the next hitch, up to
        // a frame's worth: the count telescopes to the span.
        moved_ += kPhaseShare * offset / refresh_ns;
        while (moved_ >= 0.5) moved_ -= 1, ++spanned;
        while (moved_ <= -0.5) moved_ += 1, --spanned;
        const int64_t owed = spanned - std::max(due, 1);
        const int64_t repaid = std::min(credit_, std::max<int64_t>(0, owed));
        added = std::max<int64_t>(0, owed) - repaid;
        credit_ = std::min<int64_t>(std::max(due, 1), credit_ - repaid + std::max<int64_t>(0, -owed));
    }
    refreshes_ += spanned;
    hitches_ += added;
    return added;
}

}  // namespace pacer
