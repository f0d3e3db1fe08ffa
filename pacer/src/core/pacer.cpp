// pacer.cpp: the Pacer. It owns the deadline grid, decides missed frames and
// resyncs, gives the engine its dt, and hands each wait to its Waiter. What
// paces and why is the Arbiter's (arbiter.h); what the display showed, and
// the predicted present, the PresentModel's (present_model.h).
//
// The rules, for a wait() called at t whose next grid point is `next`:
//   - first wait: the grid is anchored at t; it returns at once (resynced).
//   - t - next >= resync_after_periods periods: a stall. Re-anchor at t, return
//     at once (resynced); missed counts the grid points that went by.
//   - t - next >= one period, Skip: every grid point strictly before t is
//     skipped (missed = their number) and it waits for the first one at or
//     after t. A point exactly at t is on time, not a miss.
//   - t - next >= one period, CatchUp: aim at next anyway (returns at once);
//     the following waits do the same until the grid is ahead of t again.
//   - otherwise: wait until next (at once if it has passed).
//   - a wait that wakes resync_after_periods periods or more after its
//     deadline (the process was stopped, or starved, inside it) is a stall
//     too: the grid is re-anchored at the wake and this frame says so, so the
//     stall is reported on the first frame after it, whatever it hit.
// Times are saturating (saturate.h): a clock or a caller's value near the
// int64 limits clamps at the limit instead of overflowing.
// sleep and vsync are relative: next = previous wake + period. For sleep that
// is the point (its error accumulates); for vsync the swap already blocked, so
// wait() does not wait, and missed counts the whole periods past next. The
// grid is re-anchored at each of their deadlines, so a switch back to an
// absolute strategy continues from the last one.
// reconfigure() applies at the next wait; a rate change re-anchors the grid
// at the last deadline with the new period, so index and grid continue.
//
// Where the Host reports what the display showed (take_presented, drained at
// each wait into the PresentModel), vsync's dt and every predicted present
// come from the fitted display clock, and the delay bias slides the timer's
// grid onto the display's phase. docs/design.md has the rules and bounds.
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

namespace {

constexpr int kMaxReportsPerWait = 256;   // take_presented calls per wait, against a runaway host
// A wait longer than two slices sleeps slice by slice first, hearing
// interrupt() after each; 20 ms keeps a rate of 25 Hz and up unsliced.
constexpr int64_t kSliceNs = 20'000'000;
constexpr int64_t kMaxPresentAheadNs = kNsPerSecond;   // mark_present: later is not a time of this clock

}  // namespace

using detail::sat_add;
using detail::sat_mul;
using detail::sat_sub;

struct Pacer::Impl {
    explicit Impl(const Config& config)
        : waiter(config),
          cfg(config),
          stats(cfg.stats.history_frames, cfg.stats.off_tolerance_ns),
          arbiter(cfg, waiter, present) {
        grid.anchor(0, cfg.target_hz);
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
                present.add(report, arbiter.refresh_hz(), index, swap_follows_wait());
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

    Step decide(int64_t t) {
        const int64_t period = grid.period_ns();
        // sleep and vsync follow the wakes (relative: their error accumulates,
        // which is sleep's point; vsync's pacing is the display's); the rest
        // follow the absolute grid.
        const bool relative = arbiter.vsync_interval() != 0 || arbiter.waiter_strategy() == Strategy::Sleep;
        const int64_t next = relative ? sat_add(last_wake_ns, period) : grid.next();
        const int64_t late = sat_sub(t, next);
        if (late >= resync_after_ns()) {
            grid.anchor(t, cfg.target_hz);
            return {t, clamp_count(ceil_div(late, period)), true};
        }
        // The clock went back (a hostile or adjusted Clock): the grid lies as
        // far ahead. Re-anchored here as a forward jump is, rather than a wait
        // of the whole jump.
        if (sat_sub(next, t) >= sat_add(resync_after_ns(), period)) {
            grid.anchor(t, cfg.target_hz);
            return {t, 0, true};
        }
        if (relative) {
            // No waiting happens for vsync; sleep sleeps what is left, if anything.
            const int32_t missed = late >= period ? clamp_count(late / period) : 0;
            grid.anchor(next, cfg.target_hz);
            return {next, missed, false};
        }
        if (late >= period && cfg.miss_policy == MissPolicy::Skip) {
            // Skip every grid point strictly before t; a point at t is on time.
            int64_t skipped = std::max<int64_t>(late / period - 1, 0);
            while (grid.at(sat_add(grid.step(), 1 + skipped)) < t) ++skipped;
            grid.advance(skipped + 1);
            return {grid.current(), clamp_count(skipped), false};
        }
        // On time, slightly late, or catching up: the next grid point.
        grid.advance(1);
        return {grid.current(), 0, false};
    }

    // This wait's deadline: the first frame anchors the grid at t; later
    // ones first let the display move it (display_lock's grid, or the delay
    // bias), then decide().
    Step place(int64_t t, bool locked) {
        if (index == 0) {
            grid.anchor(t, cfg.target_hz);
            return {t, 0, true};
        }
        if (locked) {
            present.lock_grid(grid, t, arbiter.display_refreshes(), swap_follows_wait());
        } else {
            const bool free_running = arbiter.vsync_interval() == 0 && arbiter.waiter_strategy() != Strategy::Sleep;
            present.bias_grid(grid, cfg.target_hz, free_running);
        }
        return decide(t);
    }

    // Waiting before present, the frame built after wait f is swapped after wake f + 1.
    bool swap_follows_wait() const { return cfg.wait_point == WaitPoint::BeforePresent; }

    // Late by this much (or more) is a stall.
    int64_t resync_after_ns() const { return sat_mul(cfg.resync_after_periods, grid.period_ns()); }

    static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : a / b + (a % b != 0 ? 1 : 0); }
    static int32_t clamp_count(int64_t n) { return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)); }

    // ---- the engine's clock ----------------------------------------------------

    // aim_ns: display_lock's refresh for this frame (-1 not locked).
    int64_t dt_for(const Frame& frame, bool vsync, int64_t aim_ns) const {
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

    int64_t predict_present(const Frame& frame, bool vsync) const {
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

    // The waiter's wait, which interrupt() cuts short. Longer than two
    // slices, it first sleeps (spin: spins) slice by slice, looking at the
    // flag after each, so a sleeper that cannot be woken still hears it
    // within one; the strategy then waits the last stretch, which is all its
    // estimators need to learn from.
    WaitResult wait_until(int64_t deadline_ns) {
        Clock& clock = waiter.clock();
        int64_t now = clock.now_ns();
        const int64_t began = now;
        WaitResult sliced{now, 0, 0, 0};
        int64_t cpu_before = 0;   // read at the first slice only: a wait that is not sliced pays nothing
        bool slices = false;
        bool went_back = false;   // the clock went back mid-wait: it ends here (the next wait re-anchors)
        while (!interrupt_requested.load(std::memory_order_relaxed) && !went_back &&
               sat_sub(deadline_ns, now) > 2 * kSliceNs) {
            if (!slices) cpu_before = clock.thread_cpu_ns();
            slices = true;
            if (arbiter.waiter_strategy() == Strategy::Spin) {
                sliced.spun_ns = sat_add(sliced.spun_ns, waiter.wait_until(sat_add(now, kSliceNs)).spun_ns);
            } else {
                waiter.sleeper().sleep_ns(kSliceNs);
                sliced.slept_ns = sat_add(sliced.slept_ns, sat_sub(clock.now_ns(), now));
            }
            now = clock.now_ns();
            went_back = now < began;
        }
        WaitResult result = sliced;
        if (interrupt_requested.load(std::memory_order_relaxed) || went_back) {
            result.wake_ns = now;
        } else {
            result = waiter.wait_until(deadline_ns);
            result.slept_ns = sat_add(result.slept_ns, sliced.slept_ns);
            result.spun_ns = sat_add(result.spun_ns, sliced.spun_ns);
        }
        if (slices) {   // the slices' CPU too, where the clock can tell
            const int64_t cpu_after = clock.thread_cpu_ns();
            result.cpu_ns = cpu_before >= 0 && cpu_after >= cpu_before ? cpu_after - cpu_before : -1;
        }
        return result;
    }

    // Before a before_present wait, the host finishes the frame's GPU work
    // (Host::finish_gpu), within the time left to the deadline, so that the
    // swap after the wait presents at once. Returns when the work ended: t,
    // where nothing ran.
    int64_t finish_gpu(int64_t t, const Step& step, bool vsync) {
        if (cfg.host == nullptr || vsync || step.resynced || cfg.wait_point != WaitPoint::BeforePresent) return t;
        cfg.host->finish_gpu_or_stop(std::max<int64_t>(sat_sub(step.deadline_ns, t), 0), interrupt_requested);
        return std::max(waiter.clock().now_ns(), t);
    }

    Frame wait() {
        Clock& clock = waiter.clock();
        const int64_t t = clock.now_ns();
        Frame frame{};
        if (index > 0) present.note_swap(index - 1, present_ns);   // the swap after the last wake
        take_presented(frame);
        if (index > 0) arbiter.before_wait(t, index);

        frame.index = index;
        frame.present_ns = present_ns;
        present_ns = -1;
        // FrameStart: the last frame's wake-to-present is the next one's estimate.
        if (frame.present_ns >= 0 && index > 0 && frame.present_ns >= last_wake_ns)
            build_ns = sat_sub(frame.present_ns, last_wake_ns);

        // display_lock paces on the display's clock while it holds; through a
        // loss (Arbiter's hold) the grid keeps the last step, as timer.
        const bool locked = arbiter.in_force() == Strategy::DisplayLock && present.display().locked();
        Step step = place(t, locked);

        const bool vsync = arbiter.vsync_interval() != 0;
        const int64_t work_end_ns = finish_gpu(t, step, vsync);
        WaitResult waited{work_end_ns, 0, 0, 0};   // no wait (vsync's is the swap): no CPU
        if (!vsync && !step.resynced) {
            waited = wait_until(step.deadline_ns);
            // Stopped or starved inside the wait: a stall like one before it,
            // re-anchored here so that this frame, not the next, reports it.
            const int64_t late = sat_sub(waited.wake_ns, step.deadline_ns);
            if (late >= resync_after_ns()) {
                grid.anchor(waited.wake_ns, cfg.target_hz);
                step = {waited.wake_ns, clamp_count(sat_add(step.missed, ceil_div(late, grid.period_ns()))), true};
            }
        }

        // Taken here, whatever the wait did: a call during the engine's work
        // cuts the next wait, and one during a wait that had no time left
        // still reaches the engine.
        frame.interrupted = interrupt_requested.exchange(false, std::memory_order_relaxed);
        frame.deadline_ns = step.deadline_ns;
        frame.wake_ns = waited.wake_ns;
        frame.lateness_ns = sat_sub(waited.wake_ns, step.deadline_ns);
        frame.interval_ns = index == 0 ? 0 : sat_sub(waited.wake_ns, last_wake_ns);
        frame.period_ns = grid.period_ns();
        frame.work_ns = index == 0 ? 0 : sat_sub(work_end_ns, last_wake_ns);
        frame.gpu_finish_ns = sat_sub(work_end_ns, t);
        frame.slept_ns = waited.slept_ns;
        frame.spun_ns = waited.spun_ns;
        frame.wait_cpu_ns = waited.cpu_ns;
        frame.missed = step.missed;
        frame.resynced = step.resynced;
        frame.strategy = arbiter.in_force();
        const int64_t aim_ns = locked ? present.aim_of(step.deadline_ns) : -1;
        frame.dt_ns = dt_for(frame, vsync, aim_ns);
        // display_lock aims the swap right after this wake; waiting before
        // present, that swap shows the frame built before it, and the one
        // built after goes out at the next deadline, a step later.
        const bool shown_next = swap_follows_wait();
        frame.predicted_present_ns = aim_ns < 0 ? predict_present(frame, vsync)
                                     : shown_next ? sat_add(aim_ns, grid.period_ns())
                                                  : aim_ns;
        // Only the timer watches contention; other strategies' frames say nothing.
        frame.contended = !vsync && arbiter.waiter_strategy() == Strategy::Timer && waiter.state().contended;

        // Vsync's evidence: present intervals where the host marks them, else
        // the wakes (the swap blocks right next to the wait either way).
        if (vsync && index > 0 && !step.resynced) {
            const bool presents = frame.present_ns >= 0 && last_present_ns >= 0;
            arbiter.watch(presents ? sat_sub(frame.present_ns, last_present_ns) : frame.interval_ns, index);
        }
        frame.decision_seq = arbiter.decision().seq;

        if (!frame.interrupted) stats.add(frame);   // a frame cut short says nothing of the pacing
        present.note_wake(index, waited.wake_ns, frame.present_ns, aim_ns, vsync ? frame.predicted_present_ns : -1);
        last_aim_ns = aim_ns;
        last_wake_ns = waited.wake_ns;
        last_deadline_ns = step.deadline_ns;
        if (frame.present_ns >= 0) last_present_ns = frame.present_ns;
        ++index;
        return frame;
    }

    // ---- live changes ------------------------------------------------------

    std::string reconfigure(const Config& next) {
        std::string problem = validate(next);
        if (!problem.empty()) return problem;
        if (next.clock != cfg.clock) return "clock: cannot change after construction";
        const Config old = cfg;
        if (old.stats != next.stats) stats.resize(next.stats.history_frames, next.stats.off_tolerance_ns);
        if (old.host != next.host) {
            arbiter.host_changing(old.host);
            present.forget();
        }
        waiter.reconfigure(next);
        cfg = next;
        present.configure(cfg.display);
        if (old.target_hz != next.target_hz) {
            // The grid continues from the last deadline with the new period.
            grid.anchor(index > 0 ? grid.current() : 0, next.target_hz);
        }
        arbiter.reconfigured(old, index);
        return {};
    }

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
    std::atomic<bool> interrupt_requested{false};   // interrupt(): from any thread or a signal handler
    static_assert(std::atomic<bool>::is_always_lock_free, "interrupt() must be async-signal-safe");
};

Pacer::Pacer(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
Pacer::Pacer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pacer::~Pacer() = default;

std::unique_ptr<Pacer> Pacer::create(const Config& config, std::string* error) {
    std::string problem = validate(config);
    if (error != nullptr) *error = problem;
    if (!problem.empty()) return nullptr;
    // Valid, so neither Impl nor its Waiter throws (short of running out of memory).
    return std::unique_ptr<Pacer>(new Pacer(std::make_unique<Impl>(config)));
}

Frame Pacer::wait() noexcept { return impl_->wait(); }

void Pacer::interrupt() noexcept { impl_->interrupt_requested.store(true, std::memory_order_relaxed); }

void Pacer::mark_present(int64_t present_ns) noexcept {
    const int64_t now = impl_->waiter.clock().now_ns();
    if (present_ns == -1) present_ns = now;
    // Not a time of this clock: ignored, as if none had been marked.
    if (present_ns < 0 || present_ns > sat_add(now, kMaxPresentAheadNs)) return;
    impl_->present_ns = present_ns;
}

std::string Pacer::reconfigure(const Config& config) noexcept { return impl_->reconfigure(config); }

const Config& Pacer::config() const noexcept { return impl_->cfg; }
const Stats& Pacer::stats() const noexcept { return impl_->stats; }
void Pacer::reset_stats() noexcept { impl_->stats.reset(); }
const Decision& Pacer::decision() const noexcept { return impl_->arbiter.decision(); }

WaitStatus Pacer::status() const noexcept {
    WaitStatus status = impl_->waiter.state();
    status.strategy = impl_->arbiter.in_force();
    const bool locked = status.strategy == Strategy::DisplayLock;
    status.display_lead_ns = locked ? impl_->present.lead_ns() : -1;
    const bool learned = locked && impl_->cfg.display.lead_ns == kLeadAuto;
    status.display_work_tail_ns = learned ? impl_->present.lead().tail_ns() : -1;
    status.display_latch_ns = learned ? impl_->present.lead().latch_ns() : -1;
    status.display_pad_ns = learned ? impl_->present.lead().pad_ns() : -1;
    status.display_refreshes = locked ? impl_->arbiter.display_refreshes() : 0;
    status.display_judged = impl_->present.lead().judged();
    status.display_missed = impl_->present.lead().missed();
    const int32_t n = std::max(impl_->arbiter.display_refreshes(), 1);
    status.display_hitches_per_1000 =
        status.display_judged == 0 ? 0.0
                                   : 1000.0 * static_cast<double>(status.display_missed) /
                                         (static_cast<double>(status.display_judged) * n);
    return status;
}

DisplayClock Pacer::display() const noexcept { return impl_->present.display().clock(); }

Clock& Pacer::clock() noexcept { return impl_->waiter.clock(); }

}  // namespace pacer
