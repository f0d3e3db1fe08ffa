// hitches.cpp: the hitch count and the due refreshes (pacer/status.h).
#include <pacer/status.h>
#include <pacer/units.h>

#include <algorithm>
#include <cmath>

namespace pacer {

namespace {

constexpr double kFrameSlack = 0.05;   // a display this share of a frame faster still takes one refresh a frame
constexpr double kPhaseShare = 1.0 / 16;   // of each report's offset, taken into the grid's phase

}  // namespace

int due_refreshes(double refresh_ns, double target_hz) {
    if (!(refresh_ns > 0) || !(target_hz > 0) || !std::isfinite(refresh_ns) || !std::isfinite(target_hz)) return 1;
    const double per_frame = 1e9 / target_hz / refresh_ns;
    if (!(per_frame < 1e6)) return 1000000;
    return std::max(1, static_cast<int>(std::ceil(per_frame - kFrameSlack)));
}

int64_t HitchCount::add(int64_t shown_ns, double refresh_ns, int due, uint32_t flags) {
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
        return 0;
    }
    // Refreshes since the frame before, on the grid: past the late line of
    // late_after_ns (a quarter or a half refresh) is the next refresh.
    const double late_share = static_cast<double>(late_after_ns(kNsPerSecond, flags)) / kNsPerSecond;
    const double since = (t - grid_ns_) / refresh_ns;
    const double steps = std::max(0.0, std::ceil(since - late_share));
    const double placed = grid_ns_ + steps * refresh_ns;
    grid_ns_ = placed + kPhaseShare * (t - placed);
    const auto spanned = static_cast<int64_t>(std::min(steps, 1e9));
    refreshes_ += spanned;
    const int64_t added = std::max<int64_t>(0, spanned - std::max(due, 1));
    hitches_ += added;
    return added;
}

}  // namespace pacer
