// waiter.cpp: the waiting strategies. Each is one function of Waiter::Impl
// with the state it keeps; wait_until dispatches. The timer's margin
// (timer_margin.h) and its contention signs (contention.h) are units of their
// own. They wait only through the Sleeper and read time only from the Clock,
// so fakes make them deterministic.
// Differences of times saturate (saturate.h): a deadline at the int64 limits
// waits until the clock reaches it, or not at all.
#include "wait/waiter.h"

#include "wait/contention.h"
#include "os/os.h"
#include "base/saturate.h"
#include "wait/timer_margin.h"

#include <pacer/status.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pacer {

using detail::sat_add;
using detail::sat_sub;

struct Waiter::Impl {
    explicit Impl(const Config& config) : margin(valid(config).tuning.timer) {
        if (config.clock == nullptr) own_clock = std::make_unique<OsClock>();
        clock = config.clock != nullptr ? config.clock : own_clock.get();
        cfg = config;
        use_sleeper(config);
        set_strategy(config.strategy);
        restart_precise();
    }

    // The config itself, or std::invalid_argument with validate()'s line
    // (before any member is made from it).
    static const Config& valid(const Config& config) {
        const std::string problem = validate(config);
        if (!problem.empty()) throw std::invalid_argument(problem);
        return config;
    }

    // The options an owned OsSleeper is made with. The configured period is
    // the one it holds where there is no high-resolution timer (Windows).
    static OsSleeper::Options sleeper_options(const Config& config) {
        OsSleeper::Options options;
        options.scheduler_period_ns = config.tuning.scheduler_period_ns;
        options.wait_timer_slack_ns = config.tuning.wait.timer_slack_ns;
        options.wait_sched_slice_ns = config.tuning.wait.sched_slice_ns;
        return options;
    }

    void use_sleeper(const Config& config) {
        if (config.sleeper == nullptr) {
            own_sleeper.reset();   // the old one puts its thread's slice back first
            own_sleeper = std::make_unique<OsSleeper>(sleeper_options(config));
            sleeper = own_sleeper.get();
        } else {
            sleeper = config.sleeper;
            own_sleeper.reset();
        }
        timer_fell_back = !sleeper->has_high_res_timer();
        margin.forget_sleep_cpu();   // another sleeper, another cost
        refresh_period();
        last_period_ns = frame_period_ns(0);
    }

    // The period robust_sleep rounds to: the configured one, else the
    // sleeper's stated one (a SimulatedScheduler's simulated tick), else 1 ms.
    void refresh_period() {
        const int64_t stated_ns = sleeper->scheduler_period_ns();
        period_ns = cfg.tuning.scheduler_period_ns > 0 ? cfg.tuning.scheduler_period_ns
                                                : (stated_ns > 0 ? stated_ns : kNsPerMs);
    }

    void restart_precise() {
        estimate_ns = mean_ns = static_cast<double>(cfg.tuning.precise.initial_estimate_ns);
        m2 = sigma_ns = 0;
        count = 1;
    }

    void reconfigure(const Config& config) {
        const Config old = cfg;
        cfg = config;
        const bool own_changed =
            config.sleeper == nullptr &&
            (old.sleeper != nullptr || old.tuning.scheduler_period_ns != config.tuning.scheduler_period_ns ||
             old.tuning.wait != config.tuning.wait);
        if (own_changed || config.sleeper != old.sleeper) use_sleeper(config);
        else refresh_period();
        if (old.tuning.precise.initial_estimate_ns != config.tuning.precise.initial_estimate_ns) restart_precise();
        else if (count > 1) estimate_ns = mean_ns + cfg.tuning.precise.sigma_k * sigma_ns;
        margin.configure(config.tuning.timer);
    }

    void set_strategy(Strategy requested) {
        strategy = requested;
        // Vsync and Auto are the Pacer's business (it talks to the Host); a
        // Waiter asked to do them waits as Timer.
        if (strategy_uses_host(strategy)) strategy = Strategy::Timer;
    }

    // Spins to deadline_ns; returns the wake time and adds the spin to result.
    // With `stalled_ns`, adds to it how much of the spin a deadline would
    // have missed by over kPreciseNs (timer_margin.h): each gap between two
    // clock reads (the thread off its CPU: an interrupt, or the host holding
    // a virtual CPU) counts less its last kPreciseNs.
    int64_t spin_until(int64_t deadline_ns, WaitResult& result, int64_t* stalled_ns = nullptr) {
        const int64_t start = clock->now_ns();
        int64_t now = start;
        while (now < deadline_ns && !stopped()) {
            sleeper->pause();
            const int64_t before = now;
            now = clock->now_ns();
            const int64_t gap = sat_sub(now, before);
            if (stalled_ns != nullptr && gap > detail::TimerMargin::kPreciseNs)
                *stalled_ns = sat_add(*stalled_ns, gap - detail::TimerMargin::kPreciseNs);
        }
        result.spun_ns = sat_add(result.spun_ns, sat_sub(now, start));
        return now;
    }

    // Times one relative OS sleep; returns the time after it.
    int64_t timed_sleep(int64_t duration_ns, WaitResult& result) {
        const int64_t start = clock->now_ns();
        sleeper->sleep_ns(duration_ns);
        const int64_t end = clock->now_ns();
        result.slept_ns = sat_add(result.slept_ns, sat_sub(end, start));
        return end;
    }

    // sleep: the naive relative sleep of whatever is left.
    void wait_sleep(int64_t deadline_ns, WaitResult& result) {
        const int64_t remaining = sat_sub(deadline_ns, clock->now_ns());
        if (remaining > 0) timed_sleep(remaining, result);
        result.wake_ns = clock->now_ns();
    }

    // precise_sleep: the 2020 estimator. count starts at 1 with the initial
    // guess standing in as a first sample, exactly as the article does, which
    // is why one long first real sleep inflates sigma for good.
    void wait_precise(int64_t deadline_ns, WaitResult& result) {
        int64_t now = clock->now_ns();
        while (static_cast<double>(sat_sub(deadline_ns, now)) > estimate_ns && !stopped()) {
            const int64_t start = now;
            now = timed_sleep(kOneMsNs, result);
            const double observed = static_cast<double>(sat_sub(now, start));
            ++count;
            const double delta = observed - mean_ns;
            mean_ns += delta / static_cast<double>(count);
            m2 += delta * (observed - mean_ns);
            sigma_ns = std::sqrt(m2 / static_cast<double>(count - 1));
            estimate_ns = mean_ns + cfg.tuning.precise.sigma_k * sigma_ns;
        }
        result.wake_ns = spin_until(deadline_ns, result);
    }

    // robust_sleep: sleep the whole periods that fit after leaving one period
    // plus the tolerance; the scheduler's round-up then cannot overshoot.
    void wait_robust(int64_t deadline_ns, WaitResult& result) {
        const int64_t period = period_ns;
        const int64_t sleepable =
            sat_sub(sat_sub(deadline_ns, clock->now_ns()), sat_add(period, cfg.tuning.robust.tolerance_ns));
        if (sleepable > 0) {
            const int64_t periods = sleepable / period;
            if (periods > 0) timed_sleep(periods * period, result);
        }
        result.wake_ns = spin_until(deadline_ns, result);
    }

    // The frame period the spin budget is relative to: the gap between this
    // deadline and the previous one (it follows the Pacer's rate, skips
    // included), else the configured rate's period.
    int64_t frame_period_ns(int64_t deadline_ns) const {
        if (last_deadline_ns >= 0 && deadline_ns > last_deadline_ns) return deadline_ns - last_deadline_ns;
        return static_cast<int64_t>(period_ns_of(cfg.target_hz));
    }

    // Waits on the timer until target_ns; while contended, in steps of
    // detail::kContendedStepNs, so the thread wakes every step until the
    // last (docs/under-load.md: beside busy threads, a wake after one long
    // sleep waited for a CPU several times as often). False when the sleeper
    // has lost its timer.
    bool sleep_on_timer(int64_t target_ns, bool contended) {
        if (contended) {
            for (int64_t now = clock->now_ns(); sat_sub(target_ns, now) > detail::kContendedStepNs && !stopped();
                 now = clock->now_ns()) {
                if (!sleeper->sleep_until_ns(now + detail::kContendedStepNs)) return false;
            }
        } else {
            // Calm: the wake the margin covers ends a short sleep, whose
            // lateness is lower and steadier than a whole frame's sleep
            // (docs/precision.md), so the margin, and the spin, can be too.
            const int64_t last = cfg.tuning.timer.last_sleep_ns;
            if (last > 0 && sat_sub(target_ns, clock->now_ns()) > last &&
                !sleeper->sleep_until_ns(target_ns - last))
                return false;
        }
        return sleeper->sleep_until_ns(target_ns);
    }

    // -1 (unknown) unless the thread's CPU time was read at both ends.
    static int64_t cpu_between(int64_t before_ns, int64_t after_ns) {
        return before_ns >= 0 && after_ns >= before_ns ? after_ns - before_ns : -1;
    }

    // timer: an absolute high-resolution wait to deadline - margin, then spin
    // (timer_margin.h sizes the margin). Returns whether it set result.cpu_ns
    // (from cpu_before_ns, the thread's CPU time when the wait began).
    bool wait_timer(int64_t deadline_ns, WaitResult& result, int64_t cpu_before_ns) {
        if (!sleeper->has_high_res_timer()) {
            timer_fell_back = true;
            margin.drop_pending_wake();
            wait_robust(deadline_ns, result);
            return false;
        }
        timer_fell_back = false;
        // While contended the signs are read seldom (Contention::read_due).
        // The margin is 0 then, and contended waits teach the window nothing:
        // the run-queue figure that takes the wait for a CPU out of a wake's
        // lateness is read at the next wait, which may not read it. (So no
        // wake awaits correction at a wait that skips the reading: the
        // reading wait that found contention corrected the last one.)
        int64_t runqueue_before = -1;
        if (contention.read_due()) {
            runqueue_before = clock->thread_runqueue_wait_ns();
            margin.correct_last_wake(runqueue_before);
            contention.update(clock->runnable_threads(), clock->online_cpus(), runqueue_before, deadline_ns,
                              cfg.tuning.timer.contention_wait_ns);
        }
        const bool contended = contention.contended();
        const int64_t start = clock->now_ns();
        last_period_ns = frame_period_ns(deadline_ns);
        last_deadline_ns = deadline_ns;
        int64_t margin_ns = margin.in_force(last_period_ns, contended);
        // A frame that left less than the margin: spin the rest when that fits
        // the budget; else wait on the timer to the deadline itself, or every
        // such frame would spin, and the timer's wakes would stop teaching
        // the window (a frame rate the margin outgrew would spin for good).
        const int64_t remaining = sat_sub(deadline_ns, start);
        if (remaining <= margin_ns && remaining > margin.spin_budget_ns(last_period_ns)) margin_ns = 0;
        if (remaining > margin_ns) {
            const int64_t target = deadline_ns - margin_ns;
            if (sleep_on_timer(target, contended)) {
                const int64_t woke = clock->now_ns();
                result.slept_ns = sat_add(result.slept_ns, sat_sub(woke, start));
                // Into the window now, as it is; the run-queue wait in it
                // is taken off at the next timer wait (correct_last_wake).
                if (!contended) margin.record_wake(sat_sub(woke, target), runqueue_before);
            } else {
                // The sleeper lost its timer since we asked: wait as the fallback does.
                timer_fell_back = true;
                wait_robust(deadline_ns, result);
                return false;
            }
        }
        // The CPU time is read before the spin, not after it: after, the read
        // (a system call) would delay the end of the wait it measures. The
        // spin counts by its time.
        const int64_t sleep_cpu_ns = cpu_between(cpu_before_ns, clock->thread_cpu_ns());
        int64_t stalled = 0;
        result.wake_ns = spin_until(deadline_ns, result, &stalled);
        margin.record_spin(result.spun_ns, stalled);
        // Only calm waits: a contended one does not spin, so needs no budget.
        if (sleep_cpu_ns >= 0 && !contended) margin.record_sleep_cpu(sleep_cpu_ns);
        result.cpu_ns = sleep_cpu_ns < 0 ? -1 : sat_add(sleep_cpu_ns, result.spun_ns);
        return true;
    }

    WaitResult wait_until(int64_t deadline_ns) {
        WaitResult result{};
        // A wake is corrected only by the timer wait right after it.
        if (strategy != Strategy::Timer) margin.drop_pending_wake();
        const int64_t cpu_before = clock->thread_cpu_ns();
        bool cpu_read = false;   // the timer reads it before its spin
        switch (strategy) {
        case Strategy::Sleep: wait_sleep(deadline_ns, result); break;
        case Strategy::Spin: result.wake_ns = spin_until(deadline_ns, result); break;
        case Strategy::PreciseSleep: wait_precise(deadline_ns, result); break;
        case Strategy::RobustSleep: wait_robust(deadline_ns, result); break;
        default: cpu_read = wait_timer(deadline_ns, result, cpu_before); break;
        }
        if (!cpu_read) result.cpu_ns = cpu_between(cpu_before, clock->thread_cpu_ns());
        return result;
    }

    static constexpr int64_t kOneMsNs = kNsPerMs;

    // The Pacer's interrupt flag (stop_on): a loop that waits on the clock
    // ends when it is set, whatever the clock does (a stopped one, too).
    bool stopped() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
    const std::atomic<bool>* stop = nullptr;
    std::unique_ptr<OsClock> own_clock;
    std::unique_ptr<OsSleeper> own_sleeper;
    Clock* clock = nullptr;
    Sleeper* sleeper = nullptr;
    Config cfg{};
    int64_t period_ns = kNsPerMs;   // robust_sleep's, see refresh_period
    Strategy strategy = Strategy::Timer;
    bool timer_fell_back = false;

    // precise_sleep's Welford estimator of a 1 ms sleep
    double estimate_ns = 0, mean_ns = 0, m2 = 0, sigma_ns = 0;
    int64_t count = 1;

    // timer
    detail::TimerMargin margin;
    detail::Contention contention;
    int64_t last_deadline_ns = -1;   // the previous timer wait's, for the frame period
    int64_t last_period_ns = 0;      // the last frame period seen (set in the constructor)
};

Waiter::Waiter(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
Waiter::~Waiter() = default;

WaitResult Waiter::wait_until(int64_t deadline_ns) { return impl_->wait_until(deadline_ns); }

void Waiter::set_strategy(Strategy strategy) { impl_->set_strategy(strategy); }

void Waiter::stop_on(const std::atomic<bool>* flag) { impl_->stop = flag; }

void Waiter::reconfigure(const Config& config) { impl_->reconfigure(config); }

WaitStatus Waiter::state() const {
    WaitStatus state{};
    state.strategy = impl_->strategy;
    state.timer_fell_back = impl_->strategy == Strategy::Timer && impl_->timer_fell_back;
    state.scheduler_period_ns = impl_->period_ns;
    state.precise_estimate_ns = impl_->estimate_ns;
    state.precise_mean_ns = impl_->mean_ns;
    state.precise_sigma_ns = impl_->sigma_ns;
    state.precise_samples = impl_->count - 1;   // the article's count includes the initial guess
    const bool contended = impl_->contention.contended();
    state.timer_margin_ns = impl_->margin.in_force(impl_->last_period_ns, contended);   // at the last frame's period
    state.contended = contended;
    state.timer_spin_stall_share = impl_->margin.spin_stall_share();
    state.runqueue_wait_ns = impl_->contention.runqueue_wait_ns();
    state.timer_sleep_cpu_ns = impl_->margin.sleep_cpu_ns();
    state.display_lead_ns = -1;   // the Pacer's to say
    return state;
}

Clock& Waiter::clock() { return *impl_->clock; }
Sleeper& Waiter::sleeper() { return *impl_->sleeper; }

}  // namespace pacer
