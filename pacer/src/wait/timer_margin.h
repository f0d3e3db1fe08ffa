// timer_margin.h: the timer strategy's margin, how long before a deadline its
// high-resolution wait ends so that a short spin covers the wake's lateness.
// It owns the window of recent wake lateness, the spin's stall share and the
// wait's CPU budget; the Waiter asks it for a margin and tells it what each
// wait did. Internal (pacer_internal, pacer_measure). docs/precision.md has why each rule.
#pragma once

#include <pacer/pacer.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pacer::detail {

class TimerMargin {
public:
    explicit TimerMargin(const Tuning::Timer& tuning) { configure(tuning); }

    // Takes new settings; the estimator restarts when its own differ (the
    // budget's and the contention threshold apply at the next wait).
    void configure(const Tuning::Timer& tuning);

    // The margin a wait in a frame of period_ns uses: none while contended (a
    // spinner is preempted for a neighbour's whole slice; a woken sleeper gets
    // the CPU back quickly), else the tracked one, cut to the spin budget.
    int64_t in_force(int64_t period_ns, bool contended) const;
    // The most spin a frame may cost on average: the wait's CPU budget (no
    // more than max_wait_cpu_pct of the frame, so no rate turns into
    // spinning) less what the sleep itself costs the thread.
    int64_t spin_budget_ns(int64_t period_ns) const;

    // A calm wake, lateness_ns after the timer's target; runqueue_before_ns
    // is the thread's run-queue wait read before its sleep (-1 unknown).
    void record_wake(int64_t lateness_ns, int64_t runqueue_before_ns);
    // At the next timer wait: takes the run-queue wait since the last wake's
    // sleep out of its lateness (that is contention, which no margin wins back).
    void correct_last_wake(int64_t runqueue_now_ns);
    // The last wake is corrected by nothing later (another strategy waited).
    void drop_pending_wake() { last_wake_.pending = false; }
    // What a wait's spin did: spun_ns in all, stalled_ns of it a deadline
    // would have missed by over kPreciseNs.
    void record_spin(int64_t spun_ns, int64_t stalled_ns);
    // A calm wait's CPU up to its spin.
    void record_sleep_cpu(int64_t cpu_ns);
    void forget_sleep_cpu() { sleep_cpu_sum_ns_ = sleep_cpu_weight_ = 0; }

    double spin_stall_share() const;
    int64_t sleep_cpu_ns() const;   // recent mean of record_sleep_cpu, -1 before the first

    static constexpr int64_t kPreciseNs = 10'000;   // a wake this late is still precise

private:
    void restart();
    double window_keep() const;
    double quantile() const;
    int64_t budget_margin_ns(int64_t budget_ns) const;
    void put_sample(std::size_t slot, int64_t value, bool replacing);
    void update();

    Tuning::Timer cfg_{};
    int64_t margin_ns_ = 0;
    std::vector<int64_t> window_;   // ring of the last margin_window latenesses
    std::vector<int64_t> sorted_;   // the same samples, ascending
    std::size_t window_next_ = 0, window_count_ = 0;
    double spin_seen_ns_ = 0, spin_stalled_ns_ = 0;       // decayed sums, see record_spin
    double sleep_cpu_sum_ns_ = 0, sleep_cpu_weight_ = 0;  // decayed, see record_sleep_cpu
    struct LastWake {
        bool pending = false;       // the newest sample awaits its run-queue correction
        int64_t lateness_ns = 0;    // as recorded
        int64_t runqueue_ns = -1;   // the run-queue wait before its sleep; -1: unknown
    } last_wake_;
};

}  // namespace pacer::detail
