// waiter.cpp: the waiting strategies. Each is one function of Waiter::Impl
// with the state it keeps; wait_until dispatches. They wait only through the
// Sleeper and read time only from the Clock, so fakes make them deterministic.
// Differences of times saturate (saturate.h): a deadline at the int64 limits
// waits until the clock reaches it, or not at all.
#include "waiter.h"

#include "internal.h"
#include "os.h"
#include "saturate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacer {

using detail::sat_add;
using detail::sat_sub;

struct Waiter::Impl {
    explicit Impl(const Config& config) {
        const std::string problem = validate(config);
        if (!problem.empty()) throw std::invalid_argument(problem);
        if (config.clock == nullptr) own_clock = std::make_unique<OsClock>();
        clock = config.clock != nullptr ? config.clock : own_clock.get();
        cfg = config;
        use_sleeper(config);
        set_strategy(config.strategy);
        restart_precise();
        restart_margin();
    }

    // The options an owned OsSleeper is made with. The configured period is
    // the one it holds where there is no high-resolution timer (Windows).
    static OsSleeper::Options sleeper_options(const Config& config) {
        OsSleeper::Options options;
        options.scheduler_period_ns = config.scheduler_period_ns;
        options.wait_timer_slack_ns = config.wait.timer_slack_ns;
        options.wait_sched_slice_ns = config.wait.sched_slice_ns;
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
        sleep_cpu_sum_ns = sleep_cpu_weight = 0;   // another sleeper, another cost
        refresh_period();
        last_period_ns = frame_period_ns(0);
    }

    // The period robust_sleep rounds to: the configured one, else the
    // sleeper's stated one (a SimulatedScheduler's simulated tick), else 1 ms.
    void refresh_period() {
        const int64_t stated_ns = sleeper->scheduler_period_ns();
        period_ns = cfg.scheduler_period_ns > 0 ? cfg.scheduler_period_ns
                                                : (stated_ns > 0 ? stated_ns : detail::kMillisecondNs);
    }

    void restart_precise() {
        estimate_ns = mean_ns = static_cast<double>(cfg.precise.initial_estimate_ns);
        m2 = sigma_ns = 0;
        count = 1;
    }

    void restart_margin() {
        margin_ns = cfg.timer.margin_ns;
        spin_seen_ns = spin_stalled_ns = 0;
        window.assign(static_cast<std::size_t>(cfg.timer.margin_window), 0);
        sorted.clear();
        sorted.reserve(window.size());
        window_next = window_count = 0;
        last_wake.pending = false;
    }

    void reconfigure(const Config& config) {
        const Config old = cfg;
        cfg = config;
        const bool own_changed =
            config.sleeper == nullptr &&
            (old.sleeper != nullptr || old.scheduler_period_ns != config.scheduler_period_ns ||
             old.wait.timer_slack_ns != config.wait.timer_slack_ns ||
             old.wait.sched_slice_ns != config.wait.sched_slice_ns);
        if (own_changed || config.sleeper != old.sleeper) use_sleeper(config);
        else refresh_period();
        if (old.precise.initial_estimate_ns != config.precise.initial_estimate_ns) restart_precise();
        else if (count > 1) estimate_ns = mean_ns + cfg.precise.sigma_k * sigma_ns;
        const Config::Timer& a = old.timer;
        const Config::Timer& b = config.timer;
        if (a.margin_ns != b.margin_ns || a.min_margin_ns != b.min_margin_ns || a.max_margin_ns != b.max_margin_ns ||
            a.margin_quantile != b.margin_quantile || a.margin_pad_ns != b.margin_pad_ns ||
            a.margin_window != b.margin_window)
            restart_margin();
    }

    void set_strategy(Strategy requested) {
        strategy = requested;
        // Vsync and Auto are the Pacer's business (it talks to the Host); a
        // Waiter asked to do them waits as Timer.
        if (strategy == Strategy::Vsync || strategy == Strategy::Auto) strategy = Strategy::Timer;
    }

    // Spins to deadline_ns; returns the wake time and adds the spin to result.
    // With `stalled_ns`, adds to it how much of the spin a deadline would
    // have missed by over kPreciseNs: each gap between two clock reads (the
    // thread off its CPU: an interrupt, or the host holding a virtual CPU)
    // counts less its last kPreciseNs.
    int64_t spin_until(int64_t deadline_ns, WaitResult& result, int64_t* stalled_ns = nullptr) {
        const int64_t start = clock->now_ns();
        int64_t now = start;
        while (now < deadline_ns) {
            sleeper->pause();
            const int64_t before = now;
            now = clock->now_ns();
            const int64_t gap = sat_sub(now, before);
            if (stalled_ns != nullptr && gap > kPreciseNs) *stalled_ns = sat_add(*stalled_ns, gap - kPreciseNs);
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
        while (static_cast<double>(sat_sub(deadline_ns, now)) > estimate_ns) {
            const int64_t start = now;
            now = timed_sleep(kOneMsNs, result);
            const double observed = static_cast<double>(sat_sub(now, start));
            ++count;
            const double delta = observed - mean_ns;
            mean_ns += delta / static_cast<double>(count);
            m2 += delta * (observed - mean_ns);
            sigma_ns = std::sqrt(m2 / static_cast<double>(count - 1));
            estimate_ns = mean_ns + cfg.precise.sigma_k * sigma_ns;
        }
        result.wake_ns = spin_until(deadline_ns, result);
    }

    // robust_sleep: sleep the whole periods that fit after leaving one period
    // plus the tolerance; the scheduler's round-up then cannot overshoot.
    void wait_robust(int64_t deadline_ns, WaitResult& result) {
        const int64_t period = period_ns;
        const int64_t sleepable =
            sat_sub(sat_sub(deadline_ns, clock->now_ns()), sat_add(period, cfg.robust.tolerance_ns));
        if (sleepable > 0) {
            const int64_t periods = sleepable / period;
            if (periods > 0) timed_sleep(periods * period, result);
        }
        result.wake_ns = spin_until(deadline_ns, result);
    }

    // Contention, from a sign at the start of a timer wait, either of:
    //  - more threads want a CPU than there are;
    //  - the run-queue wait since the signs were last read (the engine's work
    //    and the waits since) is at or over contention_wait_ns.
    // The first is what shows full load: a woken sleeper preempts a busy
    // neighbour at once, so nearly every frame has no run-queue wait at all
    // (docs/precision.md). Full load shows a sign at every wait, so contention
    // starts only once every reading over kContentionOnsetNs has shown one:
    // at idle, other programs' bursts (one reading in 500 to 1000 at 60 Hz,
    // mostly in runs of two or three) had put the timer in contention for
    // half a second at a time, with no margin. It ends once no reading has
    // shown a sign for kContentionCalmNs. Both are by the deadlines' time, so
    // alike at every rate. `frames` is how many timer waits the reading covers: while
    // contended the signs are read at one wait in kContendedReadEvery, and a
    // run-queue sum over several frames misses no frame that was over.
    void update_contention(int64_t runqueue_now_ns, int frames, int64_t deadline_ns) {
        const int32_t runnable = clock->runnable_threads(), cpus = clock->online_cpus();
        bool sign = runnable >= 0 && cpus > 0 && runnable > cpus;
        if (runqueue_now_ns < 0 || last_runqueue_ns < 0 || runqueue_now_ns < last_runqueue_ns) {
            runqueue_wait_ns = -1;
        } else {
            const int64_t waited = runqueue_now_ns - last_runqueue_ns;
            sign = sign || waited >= cfg.timer.contention_wait_ns;
            runqueue_wait_ns = waited / frames;
        }
        last_runqueue_ns = runqueue_now_ns;
        // A deadline before those remembered (a caller's stale or new grid)
        // moves them back to it, so neither rule waits on a time ahead.
        signs_since_ns = std::min(signs_since_ns, deadline_ns);
        last_sign_ns = std::min(last_sign_ns, deadline_ns);
        if (sign) {
            if (signs_since_ns < 0) signs_since_ns = deadline_ns;
            last_sign_ns = deadline_ns;
            if (sat_sub(deadline_ns, signs_since_ns) >= kContentionOnsetNs) contended = true;
        } else {
            signs_since_ns = -1;
            if (contended && sat_sub(deadline_ns, last_sign_ns) >= kContentionCalmNs) contended = false;
        }
    }

    // The frame period the spin budget is relative to: the gap between this
    // deadline and the previous one (it follows the Pacer's rate, skips
    // included), else the configured rate's period.
    int64_t frame_period_ns(int64_t deadline_ns) const {
        if (last_deadline_ns >= 0 && deadline_ns > last_deadline_ns) return deadline_ns - last_deadline_ns;
        return static_cast<int64_t>(1e9 / cfg.target_hz);
    }

    // The most spin a frame may cost on average: what is left of the wait's
    // CPU budget (timer.max_wait_cpu_ns, and no more than max_wait_cpu_pct of
    // the frame, so no rate turns into spinning) once the sleep has taken its
    // own. That varied from 0.18 % to 0.49 % of a 60 Hz frame within a minute
    // on the reference VM (docs/precision.md), so it is measured, not assumed.
    int64_t spin_budget_ns(int64_t period_ns) const {
        const double relative = cfg.timer.max_wait_cpu_pct / 100.0 * static_cast<double>(period_ns);
        const int64_t wait_budget_ns = std::min(cfg.timer.max_wait_cpu_ns, static_cast<int64_t>(relative));
        return std::max<int64_t>(sat_sub(wait_budget_ns, std::max<int64_t>(sleep_cpu_ns(), 0)), 0);
    }

    // A calm timer wait's own CPU up to its spin: entering and leaving the
    // sleep, waking a halted CPU, the contention reading. A decayed mean over
    // about a window's worth of waits, like record_spin.
    void record_sleep_cpu(int64_t cpu_ns) {
        const double keep = window_keep();
        sleep_cpu_sum_ns = sleep_cpu_sum_ns * keep + static_cast<double>(cpu_ns);
        sleep_cpu_weight = sleep_cpu_weight * keep + 1.0;
    }

    // What a decayed sum keeps of itself at each wait: 1 - 1/window, so that
    // it spans about a window's worth of waits.
    double window_keep() const {
        return 1.0 - 1.0 / static_cast<double>(std::max<std::size_t>(window.size(), 1));
    }

    // -1 (unknown) unless the thread's CPU time was read at both ends.
    static int64_t cpu_between(int64_t before_ns, int64_t after_ns) {
        return before_ns >= 0 && after_ns >= before_ns ? after_ns - before_ns : -1;
    }

    // -1 before the first calm timer wait.
    int64_t sleep_cpu_ns() const {
        if (sleep_cpu_weight <= 0) return -1;
        return std::llround(sleep_cpu_sum_ns / sleep_cpu_weight);
    }

    // The largest margin whose spin, replayed over the window's wakes (a wake
    // L late spins margin - L when L < margin), averages at most budget_ns.
    // The spin is piecewise linear in the margin: with the k earliest wakes
    // below it, it is (k * margin - their sum) / n.
    int64_t budget_margin_ns(int64_t budget_ns) const {
        const std::size_t n = sorted.size();
        if (n == 0) return budget_ns;   // nothing seen yet: as if every wake were on time
        const double allowed = static_cast<double>(budget_ns) * static_cast<double>(n);
        double below = 0;
        for (std::size_t k = 1; k <= n; ++k) {
            below += static_cast<double>(sorted[k - 1]);
            const double margin = (allowed + below) / static_cast<double>(k);
            if (k == n || margin <= static_cast<double>(sorted[k])) return static_cast<int64_t>(margin);
        }
        return budget_ns;   // not reached
    }

    // The margin a wait uses: none while contended (a spinner is preempted for
    // a neighbour's whole slice; a woken sleeper gets the CPU back quickly),
    // else the tracked one, cut to what the spin budget allows.
    int64_t margin_in_force(int64_t period_ns) const {
        if (contended) return 0;
        const int64_t budget_ns = spin_budget_ns(period_ns);
        // No wake spins more than the margin: one within the budget fits it.
        // A budget of 0 means no spin at all, so no margin either.
        if (margin_ns <= budget_ns || budget_ns == 0) return std::min(margin_ns, budget_ns);
        return std::min(margin_ns, budget_margin_ns(budget_ns));
    }

    // timer: an absolute high-resolution wait to deadline - margin, then spin.
    // The margin follows a high quantile of the timer's own recent lateness,
    // with headroom, both ways (a lower one while the spin itself stalls);
    // the spin budget caps it. Returns whether it set result.cpu_ns (from
    // cpu_before_ns, the thread's CPU time when the wait began).
    bool wait_timer(int64_t deadline_ns, WaitResult& result, int64_t cpu_before_ns) {
        if (!sleeper->has_high_res_timer()) {
            timer_fell_back = true;
            last_wake.pending = false;
            wait_robust(deadline_ns, result);
            return false;
        }
        timer_fell_back = false;
        // Under contention every system call before the sleep made more
        // frames late (docs/precision.md), so while contended the signs are
        // read at one wait in kContendedReadEvery. The margin is 0 then, and
        // contended waits teach the window nothing: the run-queue figure that
        // takes the wait for a CPU out of a wake's lateness is read at the
        // next wait, which may not read it. (So no wake awaits correction
        // at a wait that skips the reading: the reading wait that found
        // contention corrected the last one.)
        ++waits_unread;
        int64_t runqueue_before = -1;
        if (!contended || waits_unread >= kContendedReadEvery) {
            runqueue_before = clock->thread_runqueue_wait_ns();
            correct_last_wake(runqueue_before);
            update_contention(runqueue_before, waits_unread, deadline_ns);
            waits_unread = 0;
        }
        const int64_t start = clock->now_ns();
        last_period_ns = frame_period_ns(deadline_ns);
        last_deadline_ns = deadline_ns;
        int64_t margin = margin_in_force(last_period_ns);
        // A frame that left less than the margin: spin the rest when that fits
        // the budget; else wait on the timer to the deadline itself, or every
        // such frame would spin, and the timer's wakes would stop teaching
        // the window (a frame rate the margin outgrew would spin for good).
        const int64_t remaining = sat_sub(deadline_ns, start);
        if (remaining <= margin && remaining > spin_budget_ns(last_period_ns)) margin = 0;
        if (remaining > margin) {
            const int64_t target = deadline_ns - margin;
            if (sleeper->sleep_until_ns(target)) {
                const int64_t woke = clock->now_ns();
                result.slept_ns = sat_add(result.slept_ns, sat_sub(woke, start));
                // Into the window now, as it is; the run-queue wait in it
                // is taken off at the next timer wait (correct_last_wake).
                const int64_t lateness = sat_sub(woke, target);
                if (!contended) {
                    record_lateness(lateness);
                    last_wake = {true, lateness, runqueue_before};
                }
            } else {
                // The sleeper lost its timer since we asked: wait as the fallback does.
                timer_fell_back = true;
                wait_robust(deadline_ns, result);
                return false;
            }
        }
        // The CPU time is read before the spin, not after it: after, the read
        // (a system call, several microseconds on the reference VM) would
        // delay the end of the wait it measures. The spin counts by its time.
        const int64_t sleep_cpu_ns = cpu_between(cpu_before_ns, clock->thread_cpu_ns());
        int64_t stalled = 0;
        result.wake_ns = spin_until(deadline_ns, result, &stalled);
        record_spin(result.spun_ns, stalled);
        // Only calm waits: a contended one does not spin, so needs no budget.
        if (sleep_cpu_ns >= 0 && !contended) record_sleep_cpu(sleep_cpu_ns);
        result.cpu_ns = sleep_cpu_ns < 0 ? -1 : sat_add(sleep_cpu_ns, result.spun_ns);
        return true;
    }

    // What the spin itself delivers: the share of the recent spin in which a
    // deadline would have been missed by over kPreciseNs, over about a
    // window's worth of timer waits (each wait decays the sums by 1/window).
    // A wake tail rarer than that is not worth a margin: covering it costs a
    // longer spin and buys no precision (docs/precision.md).
    void record_spin(int64_t spun_ns, int64_t stalled_ns) {
        const double keep = window_keep();
        spin_seen_ns = spin_seen_ns * keep + static_cast<double>(spun_ns);
        spin_stalled_ns = spin_stalled_ns * keep + static_cast<double>(stalled_ns);
        if (window_count > 0) update_margin();
    }

    double spin_stall_share() const {
        if (spin_seen_ns < static_cast<double>(kSpinSeenNs)) return 0;   // too little spin to tell
        return std::min(spin_stalled_ns / spin_seen_ns, 1.0);
    }

    // The quantile of the wake lateness the margin covers. While the spin
    // stalls in under kPreciseShare of its time, its 99th percentile can
    // still be precise: the configured quantile. Past that, the quantile
    // drops by half the excess, never below kLowestQuantile.
    double margin_quantile() const {
        const double excess = std::max(spin_stall_share() - kPreciseShare, 0.0);
        const double q = cfg.timer.margin_quantile;
        return std::min(q, std::max(q - kTailShare * excess, kLowestQuantile));
    }

    // The timer's own lateness leaves out what the thread spent waiting for a
    // CPU: that is contention, which no margin wins back. The run-queue figure
    // is a system call (3-8 us at p50, up to 103 us, on the reference VM;
    // docs/precision.md), so it is not read between the wake and the deadline,
    // where every microsecond is the spin's, but at the next timer wait. By
    // then it also holds the frame's work; without contention both are close
    // to 0.
    void correct_last_wake(int64_t runqueue_now_ns) {
        if (!last_wake.pending) return;
        last_wake.pending = false;
        if (last_wake.runqueue_ns < 0 || runqueue_now_ns <= last_wake.runqueue_ns || window_count == 0) return;
        const int64_t waited = runqueue_now_ns - last_wake.runqueue_ns;
        const int64_t corrected = std::max<int64_t>(sat_sub(last_wake.lateness_ns, waited), 0);
        put_sample((window_next + window.size() - 1) % window.size(), corrected, /*replacing=*/true);
    }

    // The window is a ring (arrival order, to know which sample leaves) plus
    // the same samples kept sorted, so the quantile is a lookup and each wake
    // costs one binary search and a short memmove rather than a selection.
    void record_lateness(int64_t lateness_ns) {
        if (window.empty()) return;   // validate() rejects a zero window; stay safe anyway
        const bool full = window_count == window.size();
        if (!full) ++window_count;
        put_sample(window_next, lateness_ns, /*replacing=*/full);
        window_next = (window_next + 1) % window.size();
    }

    // Puts a sample in the ring's slot and in `sorted` (the slot's old sample,
    // when `replacing`, leaves it first), then follows it with the margin.
    void put_sample(std::size_t slot, int64_t value, bool replacing) {
        if (replacing) sorted.erase(std::lower_bound(sorted.begin(), sorted.end(), window[slot]));
        window[slot] = value;
        sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), value), value);
        update_margin();
    }

    void update_margin() {
        // Nearest rank: the smallest sample with at least q of the samples at or below it.
        const double rank = std::ceil(margin_quantile() * static_cast<double>(window_count));
        const std::size_t index =
            std::min(window_count - 1, static_cast<std::size_t>(std::max(rank, 1.0)) - 1);
        const double wanted = cfg.timer.margin_headroom * static_cast<double>(sorted[index]) +
                              static_cast<double>(cfg.timer.margin_pad_ns);
        const double max_margin = static_cast<double>(cfg.timer.max_margin_ns);
        margin_ns = std::max(static_cast<int64_t>(std::min(wanted, max_margin)), cfg.timer.min_margin_ns);
    }

    WaitResult wait_until(int64_t deadline_ns) {
        WaitResult result{};
        // A wake is corrected only by the timer wait right after it.
        if (strategy != Strategy::Timer) last_wake.pending = false;
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

    static constexpr int64_t kOneMsNs = detail::kMillisecondNs;
    static constexpr int kContendedReadEvery = 4;   // while contended, the signs are read this seldom
    static constexpr int64_t kPreciseNs = 10'000;    // a wake this late is still precise
    static constexpr int64_t kSpinSeenNs = 2 * kOneMsNs;   // spin seen before its stalls count
    static constexpr double kPreciseShare = 0.01;    // the stall share a precise p99 survives
    static constexpr double kTailShare = 0.5;        // of the stall share past it, see margin_quantile
    static constexpr double kLowestQuantile = 0.9;   // covered however much the spin stalls

    std::unique_ptr<OsClock> own_clock;
    std::unique_ptr<OsSleeper> own_sleeper;
    Clock* clock = nullptr;
    Sleeper* sleeper = nullptr;
    Config cfg{};
    int64_t period_ns = detail::kMillisecondNs;   // robust_sleep's, see refresh_period
    Strategy strategy = Strategy::Timer;
    bool timer_fell_back = false;

    // precise_sleep's Welford estimator of a 1 ms sleep
    double estimate_ns = 0, mean_ns = 0, m2 = 0, sigma_ns = 0;
    int64_t count = 1;

    // timer's margin and its window of recent wake lateness
    int64_t margin_ns = 0;
    int64_t last_deadline_ns = -1;   // the previous timer wait's, for the frame period
    int64_t last_period_ns = 0;      // the last frame period seen (set in the constructor)
    std::vector<int64_t> window;   // ring of the last timer_margin_window latenesses
    std::vector<int64_t> sorted;   // the same samples, ascending
    std::size_t window_next = 0, window_count = 0;
    double spin_seen_ns = 0, spin_stalled_ns = 0;   // decayed sums, see record_spin
    double sleep_cpu_sum_ns = 0, sleep_cpu_weight = 0;   // decayed, see record_sleep_cpu
    struct LastWake {
        bool pending = false;       // the newest sample awaits its run-queue correction
        int64_t lateness_ns = 0;    // as recorded
        int64_t runqueue_ns = -1;   // the run-queue wait before its sleep; -1: unknown
    } last_wake;

    // contention (run-queue wait, where the clock knows it)
    int64_t last_runqueue_ns = -1;
    int64_t runqueue_wait_ns = -1;   // per frame, over the frames since the signs were read
    int waits_unread = 0;            // timer waits since the signs were read
    bool contended = false;
    int64_t signs_since_ns = -1;   // deadline of the first reading in an unbroken run of signs
    int64_t last_sign_ns = -1;     // deadline of the last reading with a sign
};

Waiter::Waiter(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
Waiter::~Waiter() = default;

WaitResult Waiter::wait_until(int64_t deadline_ns) { return impl_->wait_until(deadline_ns); }

void Waiter::set_strategy(Strategy strategy) { impl_->set_strategy(strategy); }

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
    state.timer_margin_ns = impl_->margin_in_force(impl_->last_period_ns);   // at the last frame's period
    state.contended = impl_->contended;
    state.timer_spin_stall_share = impl_->spin_stall_share();
    state.runqueue_wait_ns = impl_->runqueue_wait_ns;
    state.timer_sleep_cpu_ns = impl_->sleep_cpu_ns();
    return state;
}

Clock& Waiter::clock() { return *impl_->clock; }
Sleeper& Waiter::sleeper() { return *impl_->sleeper; }

}  // namespace pacer
