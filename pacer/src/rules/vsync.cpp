// vsync.cpp: the watch over vsync past the probe (vsync.h; table.h's rows
// "vsync"). It keeps the last 32 present intervals while the swap paces
// and classifies each against the vsync period n / refresh: fast (under
// half: the swap did not block), slow (over 1.5 times: a refresh was
// missed) or fine. Auto leaves vsync when either kind reaches a quarter of
// the window, when the window's median is off the period by as much as a
// failed probe's, when its swaps turn uneven where nothing reports shown
// frames, or when a quarter of the shown frames are off cadence; an
// explicit vsync stays but says so. docs/design.md, "Vsync and auto".
#include "rules/vsync.h"

#include "base/saturate.h"

#include <cmath>

namespace pacer::detail {

using namespace rules;

namespace {

bool fast_at(int64_t x, double period) { return static_cast<double>(x) < kFastFraction * period; }

}  // namespace

void VsyncWatch::start(bool probe, int64_t index) {
    probing_ = probe;
    watched_.clear();
    skip_samples_ = 1;   // the first interval straddles the switch
    health_ = Health::Fine;
    uneven_since_ = -1;
    cadence_.clear();
    since_index_ = index;   // reports of frames built before now say nothing of vsync
}

void VsyncWatch::confirm() {
    probing_ = false;
    watched_.clear();   // watching starts afresh on confirmed vsync
}

bool VsyncWatch::add(int64_t interval_ns) {
    if (skip_samples_ > 0) {
        --skip_samples_;
        return false;
    }
    watched_.push(interval_ns);
    return true;
}

VsyncWatch::Window VsyncWatch::window(const VsyncView& view) const {
    const double period = view.period_ns;
    Window w;
    w.fast = watched_.count_where([&](int64_t x) { return fast_at(x, period); });
    w.slow = watched_.count_where([&](int64_t x) { return static_cast<double>(x) > kSlowFraction * period; });
    w.median_ns = watched_.full() ? watched_.median_of_last(watched_.count()) : 0;
    // The probe's rule over the whole window: swaps that block, but at
    // another rate than the stated refresh implies (a display whose change
    // the host does not report, e.g. SDL2 on Wayland going 60 -> 144 Hz,
    // whose swaps then return every 7-10 ms: neither fast nor slow above).
    w.off_rate = w.median_ns > 0 && std::fabs(static_cast<double>(w.median_ns) - period) > kProbeTolerance * period;
    return w;
}

MaybeVerdict VsyncWatch::judge_window(const Window& window, const VsyncView& view, int64_t index) {
    return view.asked == Strategy::Auto ? judge_auto(window, view, index) : judge_health(window, view);
}

// " of the last 32"; the typical time between swaps that did not block;
// "every 9.1 ms (median of the last 32), not 16.7 ms". Built only when told.
std::string VsyncWatch::of() const { return " of the last " + std::to_string(watched_.count()); }

std::string VsyncWatch::fast_median(double period) const {
    return ms(static_cast<double>(watched_.median_where([&](int64_t x) { return fast_at(x, period); })));
}

std::string VsyncWatch::off_rate_text(const Window& window, double period) const {
    return "every " + ms(static_cast<double>(window.median_ns)) + " (median" + of() + "), not " + ms(period);
}

MaybeVerdict VsyncWatch::judge_auto(const Window& w, const VsyncView& view, int64_t index) {
    const double period = view.period_ns;
    // Where nothing reports shown frames, the probe's steadiness rule holds
    // for the whole stay: swaps can pass a probe and turn uneven (KWin).
    // Uneven: off the median by more than kUnevenNs but within the probe's
    // tolerance. Further off is another rate (a display change, swaps that
    // stopped blocking or missed refreshes): the rules above name it.
    const auto uneven_swap = [&](int64_t x) {
        const auto off = static_cast<double>(sat_abs_diff(x, w.median_ns));
        return off > static_cast<double>(kUnevenNs) && off <= kProbeTolerance * period;
    };
    const int uneven = w.median_ns > 0 && !view.feedback_seen ? watched_.count_where(uneven_swap) : 0;
    if (w.fast >= kWatchTrip)
        return Verdict{Input::SwapsFast, "swaps return every " + fast_median(period) + " (" + std::to_string(w.fast) +
                                             of() + " under half the vsync period)"};
    // Kept because it showed the most frames (shown.h): a swap that stopped
    // blocking ends it, the display's own wander (the rules below) does not.
    if (view.shows_most) return std::nullopt;
    if (w.slow >= kWatchTrip)
        return Verdict{Input::MissedRefreshes, "vsync missed refreshes in " + std::to_string(w.slow) + of() + " frames"};
    if (w.off_rate) return Verdict{Input::SwapsOffRate, "swaps return " + off_rate_text(w, period)};
    if (uneven >= kWatchTrip && uneven_twice(index))
        return Verdict{Input::SwapsUneven,
                       "vsync presents off their median (" + ms(static_cast<double>(w.median_ns)) + ") by > " +
                           ms(kUnevenNs) + " in " + std::to_string(uneven) + of(),
                       true};
    return std::nullopt;
}

// Uneven presents end a stay on vsync only where a whole new window is
// uneven again: a burst of contention on a busy machine fills one window and
// passes, a compositor that returns swaps unevenly (KWin) keeps doing so.
bool VsyncWatch::uneven_twice(int64_t index) {
    if (uneven_since_ < 0 || index >= uneven_since_ + 2 * kSteadyFrames) {
        uneven_since_ = index;
        return false;
    }
    return index >= uneven_since_ + kSteadyFrames;
}

// Explicit vsync stays (the user asked for it) but says what it sees, with
// hysteresis: it turns fine again only when nearly all are.
MaybeVerdict VsyncWatch::judge_health(const Window& w, const VsyncView& view) {
    const double period = view.period_ns;
    Health now = health_;
    if (w.fast >= kWatchTrip) now = Health::Fast;
    else if (w.slow >= kWatchTrip) now = Health::Slow;
    else if (w.off_rate) now = Health::OffRate;
    else if (w.fast <= kWatchClear && w.slow <= kWatchClear &&
             std::fabs(static_cast<double>(w.median_ns) - period) <= 0.5 * kProbeTolerance * period)
        now = Health::Fine;
    if (now == health_) return std::nullopt;
    health_ = now;
    const std::string head = "vsync: swap interval " + std::to_string(view.interval) + ", ";
    switch (now) {
        case Health::Fast:
            return Verdict{Input::VsyncHealth, head + "but swaps return every " + fast_median(period) + " (not blocking)"};
        case Health::Slow:
            return Verdict{Input::VsyncHealth,
                           head + "but missed refreshes in " + std::to_string(w.slow) + of() + " frames"};
        case Health::OffRate:
            return Verdict{Input::VsyncHealth, head + "but swaps return " + off_rate_text(w, period)};
        case Health::Fine: break;
    }
    return Verdict{Input::VsyncHealth,
                   head + "presents every " + ms(static_cast<double>(watched_.median_of_last(watched_.count())))};
}

MaybeVerdict VsyncWatch::report(const PresentModel::Report& report, int64_t index, const VsyncView& view) {
    // Indexes come from the Host: any int64 (INT64_MAX included) saturates.
    const bool ours = report.frame_index > sat_add(since_index_, 1) && report.frame_index < index;
    if (!ours) return std::nullopt;
    // Discards alone (sway 1.7 sends nothing else) say nothing of cadence.
    if (report.discarded) return report.feedback_seen ? judge_cadence(false, view) : std::nullopt;
    const double unit = view.display->period_ns();
    if (report.shown && report.previous_index < report.frame_index &&
        report.frame_index == sat_add(report.previous_index, 1) && unit > 0) {
        const double steps = std::round(static_cast<double>(sat_sub(report.displayed_ns, report.previous_ns)) / unit);
        return judge_cadence(steps == view.interval, view);
    }
    return std::nullopt;
}

// One displayed (or discarded) frame under vsync: n refreshes after the
// previous one, or not. Auto leaves vsync when a quarter of the window is off.
MaybeVerdict VsyncWatch::judge_cadence(bool on_cadence, const VsyncView& view) {
    cadence_.push(on_cadence ? 0 : 1);
    if (probing_ || view.asked != Strategy::Auto || view.shows_most || !cadence_.full()) return std::nullopt;
    const int off = static_cast<int>(cadence_.sum());
    if (off < kWatchTrip) return std::nullopt;
    return Verdict{Input::ShownOffCadence, "displayed frames off cadence in " + std::to_string(off) + " of the last " +
                                               std::to_string(cadence_.count()) + " (not " +
                                               std::to_string(view.interval) + " refresh" +
                                               (view.interval == 1 ? "" : "es") + " apart)"};
}

}  // namespace pacer::detail
