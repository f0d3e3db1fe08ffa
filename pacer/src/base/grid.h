// base/grid.h: the absolute deadline grid, deadline_k = anchor + k * period.
//
// The period of a rate in Hz is rarely a whole number of nanoseconds (60 Hz
// is 16666666.67 ns). Adding a rounded period every frame would drift by the
// rounding (20 ppb at 60 Hz, 12 ms a week); adding a double would lose
// nanoseconds once k * period passes 2^53 ns (104 days). So the period is
// split into a whole part, multiplied exactly in int64, and a fraction in
// [0, 1) whose product with k stays far below 2^53 for any k a program reaches
// (k < 2^53 frames is 28 years at 10 kHz). Every deadline is then the exact
// grid point rounded to the nanosecond, for as long as int64 ns last (292 years).
// Past that (a clock near the int64 limits) the points saturate at the limit.
#pragma once

#include "base/saturate.h"

#include <pacer/units.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pacer::detail {

class Grid {
public:
    // Re-anchors the grid: step 0 is at anchor_ns, steps of a rate's period,
    // period_ns_of(hz). The fraction comes from the remainder (exact for whole
    // Hz), not from period - whole: the period itself carries a rounding error that
    // k would multiply (450 ns after a century at 144 Hz).
    void anchor(int64_t anchor_ns, double hz) {
        whole_ns_ = static_cast<int64_t>(std::floor(period_ns_of(hz)));
        const double remainder_ns = std::fma(-static_cast<double>(whole_ns_), hz, static_cast<double>(kNsPerSecond));
        start(anchor_ns, remainder_ns / hz);
    }
    // The same with steps of period_ns, a period measured in ns (the
    // display's fitted refresh), where no rate is more exact.
    void anchor_period(int64_t anchor_ns, double period_ns) {
        whole_ns_ = static_cast<int64_t>(std::floor(period_ns));
        start(anchor_ns, period_ns - static_cast<double>(whole_ns_));
    }
    // The k-th grid point since the anchor.
    int64_t at(int64_t k) const {
        const int64_t offset = sat_add(sat_mul(k, whole_ns_),
                                       sat_from_double(std::round(static_cast<double>(k) * fraction_ns_)));
        // An offset at a limit lies beyond the range whatever the anchor.
        if (offset == kInt64Max || offset == kInt64Min) return offset;
        return sat_add(anchor_ns_, offset);
    }
    int64_t current() const { return at(step_); }        // the last deadline aimed at
    int64_t next() const { return at(sat_add(step_, 1)); }
    void advance(int64_t steps) { step_ = sat_add(step_, steps); }
    int64_t step() const { return step_; }
    int64_t anchor_ns() const { return anchor_ns_; }
    // The period rounded to the nanosecond, for reports.
    int64_t period_ns() const { return whole_ns_ + (fraction_ns_ >= 0.5 ? 1 : 0); }

private:
    void start(int64_t anchor_ns, double fraction_ns) {
        fraction_ns_ = std::clamp(fraction_ns, 0.0, 1.0);
        anchor_ns_ = anchor_ns;
        step_ = 0;
    }

    int64_t anchor_ns_ = 0;
    int64_t whole_ns_ = 0;
    double fraction_ns_ = 0;
    int64_t step_ = 0;
};

}  // namespace pacer::detail
