// display/clock_fit.h: the display's refresh clock, fitted from the times at which
// frames were shown (Host::take_presented). Not installed.
//
// A display shows frames only at refreshes, t_k = phase + k * period. Given
// shown times and, where the display gives it, its refresh counter (seq), the
// model finds the refreshes between consecutive reports and, over the last
// kWindow reports:
//   - steps: from seq where it counts up, else the interval rounded to whole
//     periods of the current estimate. A seq that disagrees with times that
//     are clearly whole periods (mutter's counts its repaints: 1 across two
//     refreshes) is dropped for good. The first estimate comes from the
//     reports alone (the shortest common step of their intervals), never from
//     the stated refresh, which may be wrong; the stated one only splits a
//     step that is a whole multiple of it (vsync at interval 2 shows every
//     other refresh), and confirms a step shorter than every interval (2 and
//     3 refreshes a frame) where most intervals do not (weston's frame shown
//     half a step late is no refresh of its own). A shortest interval that is
//     the stated refresh is never split (mutter's clock, re-armed by late
//     frames, is no finer grid).
//   - period: the inlier intervals' sum over their refreshes. An interval
//     further from whole periods than a few robust sigmas (MAD) is an
//     outlier; kResetRun in a row mean the display changed (a new refresh
//     rate), and the model starts over from them. Where the reports are not
//     dated by the display's own clock (no kPresentedHwClock: a compositor's
//     software estimate, as mutter's headless and virtual outputs send),
//     their jitter and slow wander move a one-second sum by up to 1.4 %.
//     There the intervals within a quarter period of whole refreshes are
//     chained (a slip that moved the grid for good is time the display
//     took; a wilder gap is left out), and the period is the least-squares
//     slope of the chain's time on its refreshes, over a point every
//     kChainStep reports, kChainPoints of them (512 reports, 8.5 s at 60 Hz):
//     within 0.05 % of the display's mean on such reports (docs/wayland.md
//     has the mutter runs). But such a compositor paints on its own timer
//     and a frame that comes late is painted late, so under display_lock the
//     reports read the pacer's own rate back (mutter's fit drifted 2.3 %
//     slow): where they state a refresh (Presented::refresh_ns) within 5 %
//     of the fit, the period is the stated one.
//   - phase: on a fixed clock the reports' offsets from the period's grid
//     scatter round one value, taken as the median of the newest few; on a
//     compositor whose refresh is a timer armed from the previous one
//     (weston headless) a late refresh moves all later ones, the offsets
//     wander, and the newest report is the phase.
//   - locked: at least kLockSamples inlier intervals, three quarters of the
//     window, and an rms jitter under 5 % of the period; it holds while half
//     of them (8 at least) are inliers and the jitter stays under 10 %.
// Discarded frames carry no time and are not fitted. Drift is followed by the
// window itself: 64 reports are about a second at 60 Hz. A silence of
// 32 periods without a counter (mutter's headless output stops for a second
// or so) restarts the window; the period and the lock stand while the new
// reports keep to it.
#pragma once

#include <pacer/pacer.h>

#include <array>
#include <cstdint>

namespace pacer::detail {

// Fits the display's clock from reports; clock() gives it as the public
// DisplayClock (pacer.h).
class ClockFit {
public:
    static constexpr int kWindow = 64;        // reports in the fit
    static constexpr int kLockSamples = 16;   // inliers needed to lock
    static constexpr int kResetRun = 8;       // outliers in a row that restart the fit
    static constexpr int kChainStep = 8;      // software-dated reports: a point of the chain every 8 ...
    static constexpr int kChainPoints = 64;   // ... and this many points in its fit (512 reports)
    static constexpr double kLockShare = 0.75;     // to lock: this share of the intervals inliers ...
    static constexpr double kLockResidual = 0.05;  // ... and an rms residual under 5 % of the period

    // One report; host_stated_hz is Host::refresh_rate_hz (0 unknown). A
    // discarded or undated report, or one not after the previous, is ignored.
    void add(const Presented& report, double host_stated_hz);
    void reset();

    bool locked() const { return locked_; }
    double period_ns() const { return period_; }   // 0 unknown
    int intervals() const { return count_ > 0 ? count_ - 1 : 0; }   // in the window
    // What an unlocked fit needs to lock, over the window as it is: this
    // many inlier intervals, and an rms residual at most this.
    int lock_inliers() const;
    double lock_residual_ns() const { return kLockResidual * period_; }
    // The refresh nearest to t, and the first at or after t (t while unknown).
    int64_t nearest_refresh(int64_t t) const;
    int64_t next_refresh(int64_t t) const;
    // The newest report was an inlier of the fit.
    bool last_was_inlier() const { return last_inlier_; }
    // The period is the refresh the reports state, which their software
    // dates confirm (as_stated): the display's own, not a fit of its frames.
    bool uses_stated() const { return uses_stated_; }
    DisplayClock clock() const;

private:
    struct Sample {
        int64_t t_ns;
        uint64_t seq;   // 0 unknown
    };
    const Sample& at(int i) const { return ring_[(head_ + kWindow - count_ + i) % kWindow]; }
    bool bootstrap(double stated_period_ns);
    using Steps = std::array<double, kWindow>;   // per interval of the window
    void fit();
    void doubt_seq();
    void start_over();
    void place_phase(double period, const Steps& steps, const Steps& dt, const std::array<bool, kWindow>& inlier,
                     int inliers);
    double long_period(double dt_ns, double refreshes, double short_period);
    double as_stated(double fitted) const;
    void forget_chain() { chain_ = Point{}, points_count_ = 0, points_head_ = 0, since_point_ = 0; }

    std::array<Sample, kWindow> ring_{};
    int count_ = 0, head_ = 0;   // head_: where the next sample goes
    bool seq_trusted_ = true;    // cleared for good when seq disagrees with the times
    double period_ = 0;          // ns; 0 unknown
    int64_t refresh_at_ = -1;    // a fitted refresh (the newest report's)
    double stated_hz_ = 0;
    int32_t inliers_ = 0;
    double rms_ = 0;
    bool locked_ = false;
    bool last_inlier_ = false;
    int outlier_run_ = 0;
    // The chain of intervals near whole refreshes: its refreshes and time so
    // far, and a point of it every kChainStep reports.
    struct Point {
        double refreshes = 0, t_ns = 0;
    };
    Point chain_{};
    std::array<Point, kChainPoints> points_{};
    int points_count_ = 0, points_head_ = 0, since_point_ = 0;
    bool hw_clock_ = false;   // the newest report was dated by the display's own clock
    double reported_period_ = 0;   // ns: the refresh the newest report stated; 0 none
    bool resumed_ = false;         // the window restarted after a silence: period and lock held
    bool uses_stated_ = false;     // the period is reported_period_ (as_stated)
    bool run_has_late_ = false;    // the current run of outliers holds a late frame
};

}  // namespace pacer::detail
