// display/clock_fit.cpp: the display-clock fit (clock_fit.h says how).
#include "display/clock_fit.h"

#include "display/clock_steps.h"
#include "base/median.h"
#include "base/saturate.h"

#include <pacer/status.h>
#include <pacer/units.h>

#include <algorithm>
#include <cmath>

namespace pacer::detail {

namespace {

constexpr int kMinBootstrap = 5;            // reports (4 intervals) before a first estimate
constexpr int64_t kMinStatedNs = 100'000;        // a stated refresh period: 10 kHz at most ...
constexpr int64_t kMaxStatedNs = kNsPerSecond;  // ... and 1 Hz at least
constexpr double kStatedTolerance = 0.005;  // a stated period that divides the fitted one, within 0.5 %
constexpr double kOutlierSigmas = 4.5;      // robust sigmas (1.4826 MAD) from the line
constexpr double kOutlierFloorNs = 50'000;  // never tighter: timestamps carry some jitter
constexpr double kOutlierCap = 0.25;        // never looser than a quarter period
constexpr int kPhaseReports = 8;            // newest reports behind a fixed clock's phase
constexpr double kWanderRatio = 3;          // offsets spread this much wider than intervals: a wandering timer
constexpr double kGapPeriods = 32;          // a silence this long without seq: a new window
constexpr double kSeqDoubt = 0.1;           // times this close to whole periods outrank a counter
constexpr double kLongMinRefreshes = 64;    // the chain's fit replaces the short once it spans this many
constexpr double kLongAgreement = 0.03;     // a chain's fit further than this from the short: start over
constexpr double kStatedAgreement = 0.05;   // software-dated reports: a fit this close to the stated refresh is it
constexpr double kStatedLate = 1.4;         // ... and once taken, one slower than it by less than this

}  // namespace

void ClockFit::reset() { *this = ClockFit{}; }

void ClockFit::add(const Presented& report, double host_stated_hz) {
    // A stated period no display has (under 100 us or over 1 s, as the
    // Host's rate outside [1, 10000] Hz) is no statement: a 1 ns one would
    // split every step into a 1 ns period.
    const bool states = report.refresh_ns >= kMinStatedNs && report.refresh_ns <= kMaxStatedNs;
    if (states)
        stated_hz_ = hz_of(static_cast<double>(report.refresh_ns));
    else if (host_stated_hz > 0)
        stated_hz_ = host_stated_hz;
    reported_period_ = states ? static_cast<double>(report.refresh_ns) : 0;
    if (report.discarded || report.displayed_ns < 0) return;
    hw_clock_ = (report.flags & kPresentedHwClock) != 0;
    if (count_ > 0) {
        const Sample& previous = at(count_ - 1);
        if (report.displayed_ns <= previous.t_ns) return;
        // Across a long silence the number of refreshes is a guess without a counter.
        const bool counted = seq_trusted_ && report.seq != 0 && previous.seq != 0 && report.seq > previous.seq;
        // A silence: the compositor showed nothing for a while (mutter's
        // headless output stops for 1.2 s every 6 s or so on the 2-core VM).
        // The refreshes across it are a guess, so the window starts over
        // from this report; the period, the chain and the lock (or its
        // absence) stand while the new window is young, for a changed
        // display shows in the reports that follow (kResetRun off in a row).
        if (!counted && period_ > 0 &&
            static_cast<double>(report.displayed_ns - previous.t_ns) > kGapPeriods * period_) {
            count_ = 0;
            outlier_run_ = 0;
            resumed_ = true;
        }
    }
    ring_[static_cast<size_t>(head_)] = {report.displayed_ns, report.seq};
    head_ = (head_ + 1) % kWindow;
    count_ = std::min(count_ + 1, kWindow);
    if (period_ <= 0 && !bootstrap(stated_hz_ > 0 ? period_ns_of(stated_hz_) : 0)) {
        last_inlier_ = false;
        return;
    }
    fit();
}

bool ClockFit::bootstrap(double stated_period_ns) {
    if (count_ < kMinBootstrap) return false;
    std::array<double, kWindow> intervals{}, per_seq{};
    int n = 0, counted = 0;
    for (int i = 1; i < count_; ++i) {
        const double dt = static_cast<double>(at(i).t_ns - at(i - 1).t_ns);
        intervals[static_cast<size_t>(n++)] = dt;
        if (seq_trusted_ && at(i).seq != 0 && at(i - 1).seq != 0 && at(i).seq > at(i - 1).seq)
            per_seq[static_cast<size_t>(counted++)] = dt / static_cast<double>(at(i).seq - at(i - 1).seq);
    }
    const double by_time = common_step(intervals, n, stated_period_ns);
    double by_seq = counted * 4 >= n * 3 ? median_of(per_seq, counted) : 0;
    // The counter must count refreshes: the times' step is a whole number of
    // them. A finer step counts only where frames came at it (mutter's
    // counter of repaints, one across two refreshes, under frames every
    // refresh); one that no interval came at is the times' noise (Xvfb's
    // ticks, dated when a millisecond timer fired, 0-5 ms late: intervals of
    // 11 and 16-17 ms made a 5.5 ms step), and the counter stands.
    if (by_seq > 0 && by_time > 0 && (by_time >= by_seq || most_at(intervals, n, by_time))) {
        const double ratio = by_time / by_seq;
        const double whole = std::round(ratio);
        if (whole < 1 || std::fabs(ratio - whole) > 0.05 * whole) {
            seq_trusted_ = false;
            by_seq = 0;
        }
    }
    double period = by_seq > 0 ? by_seq : by_time;
    // Software-dated reports whose median interval is the refresh they state
    // (within kStatedAgreement) are taken at it where their steps give none
    // (jitter past the step's tolerance: +-1.5 ms at 60 Hz gave none for 7
    // s) or a finer one (mutter's first frames, 4.2 ms apart, read its 60 Hz
    // as 240 Hz, every 16.7 ms interval four of its steps). A finer step
    // that most frames did not come at is neither shown nor stated: no
    // estimate yet (irregular first frames under load, their median 13.3 ms,
    // read mutter's 60 Hz as 3.33 ms, each refresh five steps, and kept it).
    if (!hw_clock_ && reported_period_ > 0 && !(period >= (1 - kStatedAgreement) * reported_period_)) {
        const double median = median_of(intervals, n);
        if (std::fabs(median - reported_period_) <= kStatedAgreement * reported_period_)
            period = reported_period_;
        else if (by_seq <= 0 && !most_at(intervals, n, period))
            return false;
    }
    if (!(period > 0)) return false;
    if (by_seq <= 0 && stated_period_ns > 0) {
        const double m = std::round(period / stated_period_ns);
        if (m >= 2 && std::fabs(period / m - stated_period_ns) <= kStatedTolerance * stated_period_ns)
            period /= m;
    }
    period_ = period;
    return true;
}

// A counter that gives another number of refreshes than times that are
// clearly whole periods counts something else (mutter's counts its repaints:
// 1 across a 32.9 ms gap at 60 Hz). It is not trusted again; else each such
// frame is an outlier, and a loaded run loses the lock over and over.
void ClockFit::doubt_seq() {
    const int n = count_;
    if (!(n > 1 && seq_trusted_ && at(n - 1).seq != 0 && at(n - 2).seq != 0 && at(n - 1).seq > at(n - 2).seq)) return;
    const double gap = static_cast<double>(at(n - 1).t_ns - at(n - 2).t_ns);
    const double by_time = std::max(1.0, std::round(gap / period_));
    if (by_time != static_cast<double>(at(n - 1).seq - at(n - 2).seq) &&
        std::fabs(gap - by_time * period_) <= kSeqDoubt * period_)
        seq_trusted_ = false;
}

// The display changed under us: start over from the reports since.
void ClockFit::start_over() {
    count_ = kResetRun;
    period_ = 0;
    locked_ = false;
    resumed_ = false;
    uses_stated_ = false;
    outlier_run_ = 0;
    inliers_ = 0;
    rms_ = 0;
    forget_chain();
    if (bootstrap(stated_hz_ > 0 ? period_ns_of(stated_hz_) : 0)) fit();
}

void ClockFit::fit() {
    Steps steps{}, dt{}, magnitude{};
    std::array<bool, kWindow> inlier{};
    const int n = count_;
    doubt_seq();
    for (int i = 1; i < n; ++i) {
        const Sample& a = at(i - 1);
        const Sample& b = at(i);
        const bool counted = seq_trusted_ && a.seq != 0 && b.seq != 0 && b.seq > a.seq;
        const auto u = static_cast<size_t>(i);
        dt[u] = static_cast<double>(b.t_ns - a.t_ns);
        steps[u] = counted ? static_cast<double>(b.seq - a.seq) : std::max(1.0, std::round(dt[u] / period_));
        magnitude[u - 1] = std::fabs(dt[u] - steps[u] * period_);
    }

    // The period: the intervals that are whole numbers of the current one,
    // within a few robust sigmas, summed and divided by their refreshes. On
    // a fixed clock that is the slope from the oldest to the newest report
    // (jitter shrinks with the window); where the refresh is a timer dated
    // from the previous one (weston headless), a late refresh moves every
    // later one and is a single odd interval, left out.
    const double sigma = n > 1 ? 1.4826 * median_of(magnitude, n - 1) : 0;
    const double limit = std::min(std::max(kOutlierSigmas * sigma, kOutlierFloorNs), kOutlierCap * period_);
    double sum_dt = 0, sum_steps = 0;
    int inliers = 0;
    for (int i = 1; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        inlier[u] = std::fabs(dt[u] - steps[u] * period_) <= limit;
        if (!inlier[u]) continue;
        ++inliers;
        sum_dt += dt[u];
        sum_steps += steps[u];
    }
    const double short_period = sum_steps > 0 ? sum_dt / sum_steps : period_;

    last_inlier_ = n > 1 && inlier[static_cast<size_t>(n - 1)];
    outlier_run_ = last_inlier_ ? 0 : outlier_run_ + 1;
    // A display that keeps stating the refresh the fit took from it shows a
    // run of outliers with late frames among them (mutter's after a stall,
    // and in its slow spells) without having changed: no reason to start
    // over. A run of frames all coming faster than it refreshes is.
    const auto last = static_cast<size_t>(n - 1);
    const bool late = n > 1 && dt[last] > steps[last] * period_;
    run_has_late_ = outlier_run_ > 0 && (late || (outlier_run_ > 1 && run_has_late_));
    if (outlier_run_ >= kResetRun && !(uses_stated_ && run_has_late_)) {
        start_over();
        return;
    }

    // The chain takes every interval within a quarter period of whole ones,
    // not only the inliers: a late report that moved the grid for good
    // (mutter's slips) is time the display took, and leaving it out read
    // mutter 0.1-0.2 % fast.
    const bool chained = n > 1 && std::fabs(dt[last] - steps[last] * period_) <= kOutlierCap * period_;
    double fitted = n > 1 ? long_period(chained ? dt[last] : 0, chained ? steps[last] : 0, short_period)
                          : short_period;
    if (resumed_ && n - 1 < kLockSamples) fitted = period_;   // a handful of intervals since a silence
    const double period = as_stated(fitted);
    uses_stated_ = !hw_clock_ && reported_period_ > 0 && period == reported_period_;
    place_phase(period, steps, dt, inlier, inliers);
}

// Reports dated in software (no kPresentedHwClock) by a compositor that
// paints on its own timer (mutter's headless and virtual outputs) follow
// the frames: a late one is painted late and moves the grid. A fit of their
// times reads the pacer's own rate back, up to 2.3 % slow under display_lock
// (docs/wayland.md), and jitter moves it besides. Where the reports state a
// refresh (Presented::refresh_ns) within kStatedAgreement of the fit, that
// timer's period is the refresh; further off (weston's headless states 60 Hz
// and shows 39.7) the fit stands, and so it does where the display dates
// its own reports.
double ClockFit::as_stated(double fitted) const {
    if (hw_clock_ || !(reported_period_ > 0)) return fitted;
    const double ratio = fitted / reported_period_;
    // Once taken, it holds while frames come later than it, as a compositor
    // that shows them as they come reads up to 1.2 times slower for seconds
    // (mutter, its buffers held: the fit ran away from 60 Hz to 50 under
    // display_lock); a fit kStatedLate times slower or more is a display
    // that shows frames less often than it says (weston's 1.51 times).
    const bool held = uses_stated_ && ratio > 1 && ratio < kStatedLate;
    return std::fabs(ratio - 1) <= kStatedAgreement || held ? reported_period_ : fitted;
}

// The phase: each report's offset from the period's grid. On a fixed clock
// they scatter round one value (the median of the newest few is the phase);
// on a timer dated from its last tick they wander, and only the newest says
// where the grid is now. Which one: the offsets' spread against the
// intervals' (a wander spreads the offsets far wider). Sets the fit.
void ClockFit::place_phase(double period, const Steps& steps, const Steps& dt, const std::array<bool, kWindow>& inlier,
                           int inliers) {
    const int n = count_;
    std::array<double, kWindow> residual{};
    double k = 0, squares = 0, mean = 0;
    for (int i = 0; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        if (i > 0) {
            k += steps[u];
            if (inlier[u]) squares += (dt[u] - steps[u] * period) * (dt[u] - steps[u] * period);
        }
        residual[u] = static_cast<double>(at(i).t_ns - at(0).t_ns) - k * period;
        mean += residual[u] / n;
    }
    const double interval_rms = inliers > 0 ? std::sqrt(squares / inliers) : 0;
    double spread = 0;
    for (int i = 0; i < n; ++i) spread += (residual[static_cast<size_t>(i)] - mean) * (residual[static_cast<size_t>(i)] - mean) / n;
    const bool wanders = std::sqrt(spread) > kWanderRatio * std::max(interval_rms, kOutlierFloorNs);
    const int newest = std::min(n, kPhaseReports);
    std::array<double, kWindow> recent{};
    for (int i = 0; i < newest; ++i) recent[static_cast<size_t>(i)] = residual[static_cast<size_t>(n - 1 - i)];
    const double offset = wanders ? residual[static_cast<size_t>(n - 1)] : median_of(recent, newest);

    period_ = period;
    refresh_at_ = sat_add(at(0).t_ns, sat_from_double(std::round(offset + k * period)));
    inliers_ = inliers;
    rms_ = interval_rms / std::sqrt(2.0);   // per report, where each interval carries two reports' jitter
    // Hysteresis: a lock holds until the fit is clearly worse than it took
    // to lock: under half the intervals inliers (or half kLockSamples), or
    // twice the residual. mutter's software-dated reports hover about 5 % of
    // a period: without it the lock came and went every few frames, and
    // display_lock with it.
    const bool holds = inliers_ >= kLockSamples / 2 && 2 * inliers_ >= n - 1 && rms_ <= 2 * lock_residual_ns();
    const bool locks = inliers_ >= lock_inliers() && rms_ <= lock_residual_ns();
    // After a silence the lock holds while the window refills (mutter shows
    // the frames after one as they come for a while, 19-23 ms apart).
    if (resumed_ && n - 1 < kLockSamples) return;
    resumed_ = false;
    locked_ = locked_ ? holds : locks;
}

// Adds the newest interval (0, 0 for none) to the chain and returns
// the period the phase and the predictions use: the chain's slope where the
// reports' clock is software and its points span kLongMinRefreshes, else
// the short fit's. A slope off the short by more than a wander explains
// began before the display changed: the chain starts over.
double ClockFit::long_period(double dt_ns, double refreshes, double short_period) {
    chain_.t_ns += dt_ns;
    chain_.refreshes += refreshes;
    if (points_count_ == 0 || ++since_point_ >= kChainStep) {
        since_point_ = 0;
        points_[static_cast<size_t>(points_head_)] = chain_;
        points_head_ = (points_head_ + 1) % kChainPoints;
        points_count_ = std::min(points_count_ + 1, kChainPoints);
    }
    if (hw_clock_) return short_period;
    const Point& oldest = points_[static_cast<size_t>((points_head_ + kChainPoints - points_count_) % kChainPoints)];
    if (chain_.refreshes - oldest.refreshes < kLongMinRefreshes) return short_period;
    double mean_x = 0, mean_y = 0;
    for (int i = 0; i < points_count_; ++i) {
        mean_x += points_[static_cast<size_t>(i)].refreshes / points_count_;
        mean_y += points_[static_cast<size_t>(i)].t_ns / points_count_;
    }
    double sxx = 0, sxy = 0;
    for (int i = 0; i < points_count_; ++i) {
        const double x = points_[static_cast<size_t>(i)].refreshes - mean_x;
        sxx += x * x;
        sxy += x * (points_[static_cast<size_t>(i)].t_ns - mean_y);
    }
    const double period = sxx > 0 ? sxy / sxx : 0;
    if (!(std::fabs(period - short_period) <= kLongAgreement * short_period)) {
        forget_chain();
        return short_period;
    }
    return period;
}

int64_t ClockFit::nearest_refresh(int64_t t) const {
    if (!(period_ > 0) || refresh_at_ < 0) return t;
    // Saturating: a clock near the int64 limits must not overflow here.
    const double k = std::round(static_cast<double>(sat_sub(t, refresh_at_)) / period_);
    return sat_add(refresh_at_, sat_from_double(std::round(k * period_)));
}

int64_t ClockFit::next_refresh(int64_t t) const {
    if (!(period_ > 0) || refresh_at_ < 0) return t;
    const double k = std::ceil(static_cast<double>(sat_sub(t, refresh_at_)) / period_);
    const int64_t at_k = sat_add(refresh_at_, sat_from_double(std::round(k * period_)));
    return at_k < t ? sat_add(refresh_at_, sat_from_double(std::round((k + 1) * period_))) : at_k;
}

int ClockFit::lock_inliers() const {
    return std::max(kLockSamples, static_cast<int>(std::ceil(kLockShare * intervals())));
}

DisplayClock ClockFit::clock() const {
    DisplayClock c;
    c.locked = locked_;
    c.period_ns = std::llround(period_);
    c.refresh_at_ns = period_ > 0 ? refresh_at_ : -1;
    c.stated_hz = stated_hz_;
    c.samples = inliers_;
    c.residual_ns = rms_;
    return c;
}

}  // namespace pacer::detail
