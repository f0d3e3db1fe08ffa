// pacer.cpp: the Pacer. It owns the deadline grid, decides missed frames and
// resyncs, talks to the Host for vsync, and hands each wait to its Waiter.
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
// sleep and vsync are relative: next = previous wake + period. For sleep that
// is the point (its error accumulates); for vsync the swap already blocked, so
// wait() does not wait, and missed counts the whole periods past next. The
// grid is re-anchored at each of their deadlines, so a switch back to an
// absolute strategy continues from the last one.
// Rate, strategy and policy changes apply to the next wait; a rate change
// re-anchors the grid at the last deadline with the new period.
#include "grid.h"
#include "internal.h"

#include <cmath>
#include <stdexcept>

namespace pacer {

namespace {

constexpr double kAutoRateTolerance = 0.005;   // auto: target within 0.5% of refresh / n

}  // namespace

struct Pacer::Impl {
    explicit Impl(const Config& config)
        : waiter(config),
          cfg(detail::resolve_for(config, waiter.clock(), waiter.sleeper())),
          stats(cfg.history_frames, cfg.off_tolerance_ns) {
        grid.anchor(0, cfg.target_hz);
        update_vsync();
    }

    ~Impl() {
        // Leave the swap interval as we found it (off) rather than at our n.
        if (vsync_interval != 0) cfg.host->set_swap_interval(0);
    }

    // Vsync when asked for (Vsync) or when it fits (Auto) and the host
    // accepts; anything else waits as Timer. Called whenever the strategy or
    // the rate changes.
    void update_vsync() {
        waiter.set_strategy(cfg.strategy);
        waiter_strategy = waiter.state().strategy;
        int wanted = 0;
        if (cfg.host != nullptr && (cfg.strategy == Strategy::Vsync || cfg.strategy == Strategy::Auto)) {
            const double refresh = cfg.host->refresh_rate_hz();
            const long n = refresh > 0 ? std::lround(refresh / cfg.target_hz) : 0;
            if (cfg.strategy == Strategy::Vsync) {
                // Asked for explicitly: every n-th refresh, or every one when unknown.
                wanted = n >= 1 ? static_cast<int>(n) : 1;
            } else if (n >= 1 &&
                       std::fabs(refresh / static_cast<double>(n) - cfg.target_hz) <=
                           kAutoRateTolerance * cfg.target_hz) {
                wanted = static_cast<int>(n);
            }
        }
        if (wanted == vsync_interval) return;
        if (wanted != 0 && cfg.host->set_swap_interval(wanted)) {
            vsync_interval = wanted;
            return;
        }
        // Leaving vsync, or the host refused a new interval: make sure the
        // swap no longer blocks, since the timer now does the pacing.
        if (vsync_interval != 0) cfg.host->set_swap_interval(0);
        vsync_interval = 0;
    }

    Strategy strategy_in_force() const {
        return vsync_interval != 0 ? Strategy::Vsync : waiter_strategy;
    }

    // The deadline for a wait called at t, with missed grid points and resync.
    struct Decision {
        int64_t deadline_ns;
        int32_t missed;
        bool resynced;
    };

    Decision decide(int64_t t) {
        const int64_t period = grid.period_ns();
        // sleep and vsync follow the wakes (relative: their error accumulates,
        // which is sleep's point; vsync's pacing is the display's); the rest
        // follow the absolute grid.
        const bool relative = vsync_interval != 0 || waiter_strategy == Strategy::Sleep;
        const int64_t next = relative ? last_wake_ns + period : grid.next();
        const int64_t late = t - next;
        if (late >= static_cast<int64_t>(cfg.resync_after_periods) * period) {
            grid.anchor(t, cfg.target_hz);
            return {t, clamp_count(ceil_div(late, period)), true};
        }
        if (relative) {
            // No waiting happens for vsync; sleep sleeps what is left, if anything.
            const int32_t missed = late >= period ? clamp_count(late / period) : 0;
            grid.anchor(next, cfg.target_hz);
            return {next, missed, false};
        }
        if (late >= period && miss_policy == MissPolicy::Skip) {
            // Skip every grid point strictly before t; a point at t is on time.
            int64_t skipped = std::max<int64_t>(late / period - 1, 0);
            while (grid.at(grid.step() + 1 + skipped) < t) ++skipped;
            grid.advance(skipped + 1);
            return {grid.current(), clamp_count(skipped), false};
        }
        // On time, slightly late, or catching up: the next grid point.
        grid.advance(1);
        return {grid.current(), 0, false};
    }

    static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }
    static int32_t clamp_count(int64_t n) { return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)); }

    Frame wait() {
        Clock& clock = waiter.clock();
        const int64_t t = clock.now_ns();
        const int64_t cpu_before = clock.thread_cpu_ns();

        Frame frame{};
        frame.index = index;
        frame.present_ns = present_ns;
        present_ns = -1;

        Decision decision{t, 0, true};
        if (index == 0) {
            grid.anchor(t, cfg.target_hz);   // the first frame anchors the grid at now
        } else {
            decision = decide(t);
        }

        WaitResult waited{t, 0, 0};
        if (vsync_interval == 0 && !decision.resynced) waited = waiter.wait_until(decision.deadline_ns);

        const int64_t cpu_after = clock.thread_cpu_ns();
        frame.deadline_ns = decision.deadline_ns;
        frame.wake_ns = waited.wake_ns;
        frame.lateness_ns = waited.wake_ns - decision.deadline_ns;
        frame.interval_ns = index == 0 ? 0 : waited.wake_ns - last_wake_ns;
        frame.period_ns = grid.period_ns();
        frame.work_ns = index == 0 ? 0 : t - last_wake_ns;
        frame.slept_ns = waited.slept_ns;
        frame.spun_ns = waited.spun_ns;
        frame.wait_cpu_ns = cpu_before >= 0 && cpu_after >= 0 ? cpu_after - cpu_before : -1;
        frame.missed = decision.missed;
        frame.resynced = decision.resynced;
        frame.strategy = strategy_in_force();

        stats.add(frame);
        last_wake_ns = waited.wake_ns;
        ++index;
        return frame;
    }

    Waiter waiter;
    Config cfg;
    Stats stats;
    detail::Grid grid;
    MissPolicy miss_policy = detail::resolve_miss_policy(cfg.miss_policy);
    Strategy waiter_strategy = Strategy::Timer;   // the waiter's resolved strategy, cached
    int vsync_interval = 0;   // the swap interval the host accepted; 0: not pacing by vsync
    int64_t index = 0;
    int64_t last_wake_ns = 0;
    int64_t present_ns = -1;
};

Pacer::Pacer(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
Pacer::~Pacer() = default;

Frame Pacer::wait() { return impl_->wait(); }

void Pacer::mark_present(int64_t present_ns) {
    impl_->present_ns = present_ns == -1 ? impl_->waiter.clock().now_ns() : present_ns;
}

void Pacer::set_target_hz(double hz) {
    Config changed = impl_->cfg;
    changed.target_hz = hz;
    std::string problem = validate(changed);
    if (problem.empty() && !(hz > 0)) problem = "target_hz: " + std::to_string(hz) + " is out of range (0, 10000]";
    if (!problem.empty()) throw std::invalid_argument(problem);
    impl_->cfg.target_hz = hz;
    // The grid continues from the last deadline with the new period.
    if (impl_->index > 0) impl_->grid.anchor(impl_->grid.current(), hz);
    else impl_->grid.anchor(0, hz);
    impl_->update_vsync();
}

void Pacer::set_strategy(Strategy strategy) {
    impl_->cfg.strategy = detail::resolve_strategy(strategy);
    impl_->update_vsync();
}

void Pacer::set_miss_policy(MissPolicy policy) {
    impl_->cfg.miss_policy = detail::resolve_miss_policy(policy);
    impl_->miss_policy = impl_->cfg.miss_policy;
}

const Config& Pacer::config() const { return impl_->cfg; }
const Stats& Pacer::stats() const { return impl_->stats; }
void Pacer::reset_stats() { impl_->stats.reset(); }

WaiterState Pacer::waiter_state() const {
    WaiterState state = impl_->waiter.state();
    state.strategy = impl_->strategy_in_force();
    return state;
}

Clock& Pacer::clock() { return impl_->waiter.clock(); }

}  // namespace pacer
