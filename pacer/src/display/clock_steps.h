// display/clock_steps.h: the step a display's shown intervals are whole
// multiples of, for the clock fit's first estimate (clock_fit.cpp), from the
// times alone. Internal to display/.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace pacer::detail {

inline constexpr double kStepTolerance = 0.15;   // an interval within 15 % of a whole number of steps
inline constexpr double kStepAgreement = 0.8;    // ... for 80 % of the intervals
inline constexpr double kFractionStated = 0.02;  // a period this close to the stated one is it
inline constexpr double kWholeShare = 0.6;       // the lowest interval explaining this many is the step unstated

// The largest step of which nearly every interval is a whole multiple: the
// refresh period as far as the times alone can tell. 0 when none fits.
//
// A fraction of the lowest interval claims refreshes that no report showed
// alone. That is so on a display showing 2 and 3 refreshes a frame (60 fps
// at 144 Hz, 24 at 60), and the stated refresh says so. It is not so on a
// compositor that shows a late frame half a step late (weston headless:
// 25.1 ms intervals and some of 37.7, whose half, 12.6 ms, no report and no
// statement support). So a fraction is taken where the lowest interval
// explains under kWholeShare of them (2 and 3 refreshes alternate: half), or
// where it matches the stated period; else the lowest interval is the step,
// and the fit leaves the odd ones out.
template <size_t N>
double common_step(std::array<double, N> d, int n, double stated_period_ns) {
    std::sort(d.begin(), d.begin() + n);
    // A low interval, past the odd early one, and never under a quarter of
    // the median: two reports a few ms apart (mutter's, after a slip) would
    // otherwise be a step of which every refresh is some whole multiple.
    const double median = d[static_cast<size_t>(n / 2)];
    auto low = static_cast<size_t>(n / 10);
    while (low + 1 < static_cast<size_t>(n) && d[low] < median / 4) ++low;
    const double base = d[low];
    auto fitting = [&](double step, double* period) {
        double sum = 0, steps = 0;
        int fit = 0;
        for (int i = 0; i < n; ++i) {
            const double r = std::round(d[static_cast<size_t>(i)] / step);
            if (r >= 1 && std::fabs(d[static_cast<size_t>(i)] / step - r) <= kStepTolerance) {
                ++fit;
                sum += d[static_cast<size_t>(i)];
                steps += r;
            }
        }
        *period = steps > 0 ? sum / steps : 0;
        return fit;
    };
    double whole = 0;
    const int whole_fit = fitting(base, &whole);
    if (whole_fit >= kStepAgreement * n) return whole;
    // The shortest interval is the stated refresh: no frame came faster, and
    // a finer grid would rest on intervals off whole refreshes alone. Those
    // are a clock that is not keeping a grid yet (mutter's, re-armed from
    // late frames after a stall, showed 25 ms among 16.7 ms ones and was
    // read as 119 Hz / 2 on a 60 Hz display): no estimate until it does.
    if (stated_period_ns > 0 && std::fabs(base - stated_period_ns) <= kFractionStated * stated_period_ns)
        return whole_fit >= kWholeShare * n ? whole : 0;
    for (int m = 2; m <= 4; ++m) {
        double period = 0;
        if (fitting(base / m, &period) < kStepAgreement * n) continue;
        const bool stated =
            stated_period_ns > 0 && std::fabs(period - stated_period_ns) <= kFractionStated * stated_period_ns;
        return (stated || whole_fit < kWholeShare * n) ? period : whole;
    }
    return 0;
}

// Whether most of the n intervals are one step of `period`: frames came
// that often, not only at multiples of it.
template <size_t N>
bool most_at(const std::array<double, N>& d, int n, double period) {
    int at_step = 0;
    for (int i = 0; i < n; ++i)
        at_step += std::fabs(d[static_cast<size_t>(i)] - period) <= kStepTolerance * period;
    return 2 * at_step > n;
}

}  // namespace pacer::detail
