// core/pacer_impl.h: the Pacer's state and its wait (Pacer::Impl), shared by
// pacer.cpp (the Pacer and its wait) and pacer_dt.cpp (the engine's clock).
// Internal.
#pragma once

#include "core/arbiter.h"
#include "base/grid.h"
#include "display/present_model.h"
#include "base/saturate.h"
#include "wait/waiter.h"

#include <pacer/platform.h>
#include <pacer/metrics.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

namespace pacer {

namespace detail {

inline constexpr int kMaxReportsPerWait = 256;   // take_presented calls per wait, against a runaway host
// A wait longer than two slices sleeps slice by slice first, hearing
// interrupt() after each; 20 ms keeps a rate of 25 Hz and up unsliced.
inline constexpr int64_t kSliceNs = 20'000'000;
inline constexpr int64_t kMaxPresentAheadNs = kNsPerSecond;   // mark_present: later is not a time of this clock

}  // namespace detail

using detail::sat_add;
using detail::sat_mul;
using detail::sat_sub;

using detail::kMaxPresentAheadNs;
using detail::kMaxReportsPerWait;
using detail::kSliceNs;
using detail::sat_add;
using detail::sat_mul;
using detail::sat_sub;

struct Pacer::Impl {
    explicit Impl(const Config& config)
        : waiter(config),
          cfg(config),
          stats(cfg.stats.history_frames, cfg.stats.off_tolerance_ns),
          arbiter(cfg, waiter, present) {
        grid.anchor(0, arbiter.pace_hz());
        ceiling_hz = arbiter.limit_hz();
        present.configure(cfg.display);
        waiter.stop_on(&interrupt_requested);   // a stopped clock cannot hold a wait past interrupt()
    }

    // Drains the host's reports into the present model (and, under vsync,
    // the arbiter's cadence); the frame gets the newest shown one.
    void take_presented(Frame& frame) {
        frame.displayed_index = -1;
        frame.displayed_ns = -1;
        if (cfg.host == nullptr) return;
        Presented report;
        for (int taken = 0; taken < kMaxReportsPerWait && cfg.host->take_presented(&report); ++taken) {
            // A Host that passes a report on twice (or thrice) tells nothing
            // new the second time: judged again it would count a miss twice.
            if (repeats_last_report(report)) continue;
            const detail::PresentModel::Report seen =
                present.add(report, arbiter.refresh_hz(), index, swap_follows_wait(), cfg.target_hz);
            if (seen.shown) {
                frame.displayed_index = seen.frame_index;
                frame.displayed_ns = seen.displayed_ns;
            }
            arbiter.on_report(seen, index);
        }
    }

    Presented last_report;           // the newest report taken, for repeats
    bool have_last_report = false;
    bool repeats_last_report(const Presented& report) {
        const bool same = have_last_report && report.frame_index == last_report.frame_index &&
                          report.discarded == last_report.discarded &&
                          report.displayed_ns == last_report.displayed_ns && report.seq == last_report.seq;
        last_report = report;
        have_last_report = true;
        return same;
    }

    // ---- the grid ------------------------------------------------------------

    // The deadline for a wait called at t, with missed grid points and resync.
    struct Step {
        int64_t deadline_ns;
        int32_t missed;
        bool resynced;
    };

    Step decide(int64_t t);

    // This wait's deadline: the first frame anchors the grid at t; later
    // ones first let the display move it (display_lock's grid, or the delay
    // bias), then decide().
    Step place(int64_t t, bool locked) {
        if (index == 0) {
            grid.anchor(t, arbiter.pace_hz());
            return {t, 0, true};
        }
        if (locked) {
            present.lock_grid(grid, t, arbiter.display_refreshes(), swap_follows_wait());
        } else {
            const bool free_running = arbiter.vsync_interval() == 0 && arbiter.waiter_strategy() != Strategy::Sleep;
            present.bias_grid(grid, arbiter.pace_hz(), free_running);
        }
        return decide(t);
    }

    // A ceiling on the rate came or went (VRR's cap, a window in the
    // background), noticed at t: the grid restarts at the new rate so that
    // the next deadline is one new period after the last wake (the wake, not
    // the last deadline: under vsync that lies a period ahead), or t where
    // the engine's work already ran past that. Nothing catches up, before or
    // after: a grid point the work ran past is not skipped to (a short frame).
    void follow_ceiling(int64_t t) {
        if (arbiter.limit_hz() == ceiling_hz) return;
        ceiling_hz = arbiter.limit_hz();
        if (index == 0) return;
        const int64_t period = detail::sat_from_double(std::round(period_ns_of(arbiter.pace_hz())));
        grid.anchor(std::max(last_wake_ns, sat_sub(t, period)), arbiter.pace_hz());
    }

    // Waiting before present, the frame built after wait f is swapped after wake f + 1.
    bool swap_follows_wait() const { return cfg.wait_point == WaitPoint::BeforePresent; }

    // Late by this much (or more) is a stall.
    int64_t resync_after_ns() const { return sat_mul(cfg.resync_after_periods, grid.period_ns()); }

    static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : a / b + (a % b != 0 ? 1 : 0); }
    static int32_t clamp_count(int64_t n) { return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)); }

    // ---- the engine's clock ----------------------------------------------------

    // The engine's clock (pacer_dt.cpp): the frame's dt, and when what is
    // built after this wait reaches the screen.
    // aim_ns: display_lock's refresh for this frame (-1 not locked).
    int64_t dt_for(const Frame& frame, bool vsync, int64_t aim_ns) const;
    int64_t predict_present(const Frame& frame, bool vsync) const;


    // The waiter's wait, which interrupt() cuts short. Longer than two
    // slices, it first sleeps (spin: spins) slice by slice, looking at the
    // flag after each, so a sleeper that cannot be woken still hears it
    // within one; the strategy then waits the last stretch, which is all its
    // estimators need to learn from.
    WaitResult wait_until(int64_t deadline_ns);

    // Before a before_present wait, the host finishes the frame's GPU work
    // (Host::finish_gpu), within the time left to the deadline, so that the
    // swap after the wait presents at once. Returns when the work ended: t,
    // where nothing ran.
    int64_t finish_gpu(int64_t t, const Step& step, bool vsync) {
        if (cfg.host == nullptr || vsync || step.resynced || cfg.wait_point != WaitPoint::BeforePresent) return t;
        cfg.host->finish_gpu_or_stop(std::max<int64_t>(sat_sub(step.deadline_ns, t), 0), interrupt_requested);
        return std::max(waiter.clock().now_ns(), t);
    }

    Frame wait();
    void describe(Frame& frame, const Step& step, const WaitResult& waited, int64_t t, int64_t work_end_ns, bool vsync,
                  int64_t aim_ns);

    // ---- live changes ------------------------------------------------------

    std::string reconfigure(const Config& next);

    // Declared in this order: the arbiter refers to the waiter, the config
    // and the present model, and makes its first decision when it is made.
    Waiter waiter;
    Config cfg;
    Stats stats;
    detail::Grid grid;
    detail::PresentModel present;
    detail::Arbiter arbiter;
    int64_t index = 0;
    int64_t last_wake_ns = 0;
    int64_t last_deadline_ns = 0;
    int64_t last_aim_ns = -1;       // display_lock: the refresh the last frame aimed at
    int64_t present_ns = -1;        // marked since the last wait
    int64_t last_present_ns = -1;   // the last one a wait saw
    int64_t build_ns = 0;           // last wake-to-present time (FrameStart's prediction)
    double ceiling_hz = 0;          // the arbiter's limit_hz() the grid follows
    std::atomic<bool> interrupt_requested{false};   // interrupt(): from any thread or a signal handler
    static_assert(std::atomic<bool>::is_always_lock_free, "interrupt() must be async-signal-safe");
};

}  // namespace pacer
