// arbiter_vsync.cpp: the arbiter's watch over vsync (arbiter.h): the window
// of present intervals while the swap paces, the cadence of the frames the
// display reports shown under it, auto's probe, and when vsync
// is left or said to be unwell (the rules are at the top of arbiter.cpp).
#include "core/arbiter.h"

#include "core/arbiter_rules.h"
#include "base/saturate.h"

#include <cmath>

namespace pacer::detail {

using namespace arbiter_rules;

void Arbiter::watch(int64_t interval_ns, int64_t index) {
    if (skip_samples_ > 0) {
        --skip_samples_;
        return;
    }
    watched_.push(interval_ns);
    if (probing_) {
        if (watched_.count() >= kProbeFrames) judge_probe(index);
        return;
    }
    const double period = vsync_period_ns();
    const int fast = watched_.count_where([&](int64_t x) { return static_cast<double>(x) < kFastFraction * period; });
    const int slow = watched_.count_where([&](int64_t x) { return static_cast<double>(x) > kSlowFraction * period; });
    const int64_t median = watched_.full() ? watched_.median_of_last(watched_.count()) : 0;
    watch_vsync(fast, slow, median, index);
}

// Auto's probe, on the last kProbeFrames intervals; where nothing reports
// shown frames, on up to kSteadyFrames (the rules in arbiter_rules.h).
void Arbiter::judge_probe(int64_t index) {
    const double period = vsync_period_ns();
    const int64_t median = watched_.median_of_last(kProbeFrames);
    const double m = static_cast<double>(median);
    // Where the display reports what it showed, only a swap that did not
    // block is judged by swap returns; the rest by the display.
    if (present_.feedback_seen() && m >= (1 - kProbeTolerance) * period) {
        judge_display_probe(index);
        return;
    }
    // A swap that never blocks returns fast nearly every time (Xvfb): that
    // is plain from the first few.
    const int fast = watched_.count_where([&](int64_t x) { return static_cast<double>(x) < kFastFraction * period; });
    const bool never_blocks = m < kFastFraction * period && fast * 4 >= watched_.count() * 3;
    std::string steady;   // how steady, where the presents are all there is to judge by
    if (!never_blocks && !present_.feedback_seen()) {
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
        if (!early && watched_.count() < kSteadyFrames) return;
        const std::string count = " of " + std::to_string(judged);
        if (off >= kWatchTrip) {
            backoff_ns_ = kMaxBackoffNs;
            take(Input::ProbeUneven,
                 "vsync presents off their median (" + ms(static_cast<double>(around)) + ") by > " + ms(kSteadyNs) +
                     " in " + std::to_string(off) + count,
                 index);
            return;
        }
        steady = ", " + std::to_string(judged - off) + count + " within " + ms(kSteadyNs) + " of their median";
    }
    if (std::fabs(m - period) <= kProbeTolerance * period) {
        take(Input::ProbeSwapsSteady,
             "auto -> vsync: presents every " + ms(m) + " (" + hz_rounded(decided_hz_) + " / " +
                 std::to_string(vsync_interval_) + ")" + steady,
             index);
    } else if (m < period) {
        take(Input::ProbeSwapsFast, "vsync requested, swaps return every " + ms(m), index);
    } else {
        take(Input::ProbeOffPeriod, "vsync presents every " + ms(m) + ", not " + ms(period), index);
    }
}

// Uneven presents end a stay on vsync only where a whole new window is
// uneven again: a burst of contention on a busy machine fills one window and
// passes, a compositor that returns swaps unevenly (KWin) keeps doing so.
bool Arbiter::uneven_twice(int64_t index) {
    if (uneven_since_ < 0 || index >= uneven_since_ + 2 * kSteadyFrames) {
        uneven_since_ = index;
        return false;
    }
    return index >= uneven_since_ + kSteadyFrames;
}

// The window while vsync paces: fast and slow intervals, and its median (0
// until the window is full).
void Arbiter::watch_vsync(int fast, int slow, int64_t median, int64_t index) {
    const double period = vsync_period_ns();
    // The probe's rule over the whole window: swaps that block, but at
    // another rate than the stated refresh implies (a display whose change
    // the host does not report, e.g. SDL2 on Wayland going 60 -> 144 Hz,
    // whose swaps then return every 7-10 ms: neither fast nor slow above).
    const bool off_rate = median > 0 && std::fabs(static_cast<double>(median) - period) > kProbeTolerance * period;
    // A display change explains all three: re-read the refresh before
    // blaming vsync (the regular read may be up to a second away).
    if ((fast >= kWatchTrip || slow >= kWatchTrip || off_rate) && refresh_changed(index)) return;
    const auto of = [&] { return " of the last " + std::to_string(watched_.count()); };   // texts: built only when told
    // What the fast ones say: the typical time between swaps that did not block.
    const auto fast_median = [&] {
        return ms(static_cast<double>(
            watched_.median_where([&](int64_t x) { return static_cast<double>(x) < kFastFraction * period; })));
    };
    const auto off_rate_text = [&] {
        return "every " + ms(static_cast<double>(median)) + " (median" + of() + "), not " + ms(period);
    };
    if (cfg_.strategy == Strategy::Auto) {
        // Where nothing reports shown frames, the probe's steadiness rule holds
        // for the whole stay: swaps can pass a probe and turn uneven (KWin).
        // Uneven: off the median by more than kUnevenNs but within the probe's
        // tolerance. Further off is another rate (a display change, swaps that
        // stopped blocking or missed refreshes): the rules above name it.
        const auto uneven_swap = [&](int64_t x) {
            const auto off = static_cast<double>(sat_abs_diff(x, median));
            return off > static_cast<double>(kUnevenNs) && off <= kProbeTolerance * period;
        };
        const int uneven = median > 0 && !present_.feedback_seen() ? watched_.count_where(uneven_swap) : 0;
        if (fast >= kWatchTrip) {
            take(Input::SwapsFast,
                 "swaps return every " + fast_median() + " (" + std::to_string(fast) + of() +
                     " under half the vsync period)",
                 index);
        } else if (vsync_shows_most_) {
            // Kept because it showed the most frames (arbiter_shown.cpp): a
            // swap that stopped blocking ends it, the display's own wander
            // (the rules below) does not.
        } else if (slow >= kWatchTrip) {
            take(Input::MissedRefreshes, "vsync missed refreshes in " + std::to_string(slow) + of() + " frames", index);
        } else if (off_rate) {
            take(Input::SwapsOffRate, "swaps return " + off_rate_text(), index);
        } else if (uneven >= kWatchTrip && uneven_twice(index)) {
            backoff_ns_ = kMaxBackoffNs;
            take(Input::SwapsUneven,
                 "vsync presents off their median (" + ms(static_cast<double>(median)) + ") by > " + ms(kUnevenNs) +
                     " in " + std::to_string(uneven) + of(),
                 index);
        }
        return;
    }
    // Explicit vsync stays (the user asked for it) but says what it sees,
    // with hysteresis: it turns fine again only when nearly all are.
    Health now = health_;
    if (fast >= kWatchTrip) now = Health::Fast;
    else if (slow >= kWatchTrip) now = Health::Slow;
    else if (off_rate) now = Health::OffRate;
    else if (fast <= kWatchClear && slow <= kWatchClear &&
             std::fabs(static_cast<double>(median) - period) <= 0.5 * kProbeTolerance * period)
        now = Health::Fine;
    if (now == health_) return;
    health_ = now;
    const std::string head = "vsync: swap interval " + std::to_string(vsync_interval_) + ", ";
    if (now == Health::Fast)
        take(Input::VsyncHealth, head + "but swaps return every " + fast_median() + " (not blocking)", index);
    else if (now == Health::Slow)
        take(Input::VsyncHealth, head + "but missed refreshes in " + std::to_string(slow) + of() + " frames", index);
    else if (now == Health::OffRate)
        take(Input::VsyncHealth, head + "but swaps return " + off_rate_text(), index);
    else
        take(Input::VsyncHealth,
             head + "presents every " + ms(static_cast<double>(watched_.median_of_last(watched_.count()))), index);
}

void Arbiter::on_report(const PresentModel::Report& report, int64_t index) {
    shown_.add(report);
    if (vsync_interval_ == 0) return;
    // Indexes come from the Host: any int64 (INT64_MAX included) saturates.
    const bool ours = report.frame_index > detail::sat_add(vsync_since_index_, 1) && report.frame_index < index;
    if (!ours) return;
    // Discards alone (sway 1.7 sends nothing else) say nothing of cadence.
    if (report.discarded) {
        if (report.feedback_seen) judge_cadence(false, index);
        return;
    }
    const double unit = present_.display().period_ns();
    if (report.shown && report.previous_index < report.frame_index &&
        report.frame_index == detail::sat_add(report.previous_index, 1) && unit > 0) {
        const double steps =
            std::round(static_cast<double>(detail::sat_sub(report.displayed_ns, report.previous_ns)) / unit);
        judge_cadence(steps == vsync_interval_, index);
    }
}

// One displayed (or discarded) frame under vsync: n refreshes after the
// previous one, or not. Auto leaves vsync when a quarter of the window is off.
void Arbiter::judge_cadence(bool on_cadence, int64_t index) {
    cadence_.push(on_cadence ? 0 : 1);
    if (probing_ || cfg_.strategy != Strategy::Auto || vsync_shows_most_ || !cadence_.full()) return;
    const int off = static_cast<int>(cadence_.sum());
    if (off >= kWatchTrip)
        take(Input::ShownOffCadence,
             "displayed frames off cadence in " + std::to_string(off) + " of the last " +
                 std::to_string(cadence_.count()) + " (not " + std::to_string(vsync_interval_) + " refresh" +
                 (vsync_interval_ == 1 ? "" : "es") + " apart)",
             index);
}

}  // namespace pacer::detail
