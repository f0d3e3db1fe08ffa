// pacer_dt.cpp: the engine's clock: the dt each frame advances the
// simulation by, and when the frame built after a wait reaches the screen.
#include "core/pacer_impl.h"

#include <algorithm>
#include <cmath>

namespace pacer {

// aim_ns: display_lock's refresh for this frame (-1 not locked).
int64_t Pacer::Impl::dt_for(const Frame& frame, bool vsync, int64_t aim_ns) const {
    int64_t dt = 0;
    // Entering display_lock from vsync, the frame before the aimed one is
    // the newest queued; waiting before present, the frame built before
    // this wait shows at the aim, and this one a step later.
    const int64_t queued_ns = present.queued_shown_ns(swap_follows_wait());
    if (frame.index == 0) {
        dt = grid.period_ns();
    } else if (aim_ns >= 0 && (last_aim_ns >= 0 || queued_ns >= 0) && !frame.resynced) {
        // From refresh to refresh, in whole fitted refreshes: neither a
        // lead that moves nor the fit's phase moves the animation.
        const double unit = present.display().period_ns();
        const int64_t before = last_aim_ns >= 0     ? last_aim_ns
                               : swap_follows_wait() ? sat_sub(aim_ns, grid.period_ns())
                                                     : queued_ns;
        const double periods = std::max(1.0, std::round(static_cast<double>(sat_sub(aim_ns, before)) / unit));
        dt = detail::sat_from_double(std::round(periods * unit));
    } else if (vsync) {
        // Snap to whole refresh periods: the display shows frames only on
        // them. The fitted period where the display reports, else the stated.
        const detail::ClockFit& display = present.display();
        const double unit = display.locked() ? display.period_ns() : arbiter.refresh_unit_ns();
        const double periods = std::max(1.0, std::round(static_cast<double>(frame.interval_ns) / unit));
        dt = detail::sat_from_double(std::round(std::min(periods * unit, static_cast<double>(cfg.max_dt_ns))));
    } else if (frame.resynced || arbiter.waiter_strategy() == Strategy::Sleep) {
        dt = frame.interval_ns;
    } else {
        dt = sat_sub(frame.deadline_ns, last_deadline_ns);
    }
    return std::clamp<int64_t>(dt, 0, cfg.max_dt_ns);
}

int64_t Pacer::Impl::predict_present(const Frame& frame, bool vsync) const {
    int64_t shown_ns = 0;
    if (present.predict_present(frame, &shown_ns)) return shown_ns;
    if (vsync) {
        const int64_t period = detail::sat_from_double(std::round(arbiter.vsync_period_ns()));
        // After this frame's swap, one vsync period: the swap that shows
        // it waits for the refresh after the one the last present took.
        if (frame.present_ns >= 0)
            return sat_add(frame.present_ns, sat_mul(swap_follows_wait() ? 2 : 1, period));
        return sat_add(frame.wake_ns, period);
    }
    if (cfg.wait_point == WaitPoint::BeforePresent) {
        // The swap right after this wake shows the previous frame; the one
        // being built goes out after the next wait.
        const bool relative = arbiter.waiter_strategy() == Strategy::Sleep;
        return relative || frame.resynced ? sat_add(frame.wake_ns, grid.period_ns()) : grid.next();
    }
    return sat_add(frame.wake_ns, build_ns);
}

}  // namespace pacer
