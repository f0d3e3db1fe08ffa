// timer_margin.cpp: the timer's margin estimator (timer_margin.h).
//
// The margin follows a high quantile of the timer's own recent lateness, with
// headroom, both ways, and a lower quantile while the spin itself stalls. The
// wait's CPU budget caps it: the spin a margin costs is replayed over the
// window's wakes, and the largest margin that fits is taken.
#include "wait/timer_margin.h"

#include "base/saturate.h"

#include <algorithm>
#include <cmath>

namespace pacer::detail {

namespace {

constexpr int64_t kSpinSeenNs = 2'000'000;    // spin seen before its stalls count
constexpr double kPreciseShare = 0.01;        // the stall share a precise p99 survives
constexpr double kTailShare = 0.5;            // of the stall share past it, see quantile()
constexpr double kLowestQuantile = 0.9;       // covered however much the spin stalls

// The estimator's own settings: the budget and the contention threshold
// left out, since they apply at the next wait with nothing to relearn.
Tuning::Timer estimator_of(Tuning::Timer tuning) {
    const Tuning::Timer defaults;
    tuning.max_wait_cpu_ns = defaults.max_wait_cpu_ns;
    tuning.max_wait_cpu_pct = defaults.max_wait_cpu_pct;
    tuning.contention_wait_ns = defaults.contention_wait_ns;
    return tuning;
}

}  // namespace

void TimerMargin::configure(const Tuning::Timer& tuning) {
    const bool restarting = window_.empty() || estimator_of(cfg_) != estimator_of(tuning);
    cfg_ = tuning;
    if (restarting) restart();
}

void TimerMargin::restart() {
    margin_ns_ = cfg_.margin_ns;
    spin_seen_ns_ = spin_stalled_ns_ = 0;
    window_.assign(static_cast<std::size_t>(cfg_.margin_window), 0);
    sorted_.clear();
    sorted_.reserve(window_.size());
    window_next_ = window_count_ = 0;
    last_wake_.pending = false;
}

int64_t TimerMargin::spin_budget_ns(int64_t period_ns) const {
    // The sleep's own cost moves by more than the spin's whole budget from
    // minute to minute (docs/precision.md), so it is measured, not assumed.
    const double relative = cfg_.max_wait_cpu_pct / 100.0 * static_cast<double>(period_ns);
    const int64_t wait_budget_ns = std::min(cfg_.max_wait_cpu_ns, static_cast<int64_t>(std::llround(relative)));
    return std::max<int64_t>(sat_sub(wait_budget_ns, std::max<int64_t>(sleep_cpu_ns(), 0)), 0);
}

int64_t TimerMargin::in_force(int64_t period_ns, bool contended) const {
    if (contended) return 0;
    const int64_t budget_ns = spin_budget_ns(period_ns);
    // No wake spins more than the margin: one within the budget fits it.
    // A budget of 0 means no spin at all, so no margin either.
    if (margin_ns_ <= budget_ns || budget_ns == 0) return std::min(margin_ns_, budget_ns);
    return std::min(margin_ns_, budget_margin_ns(budget_ns));
}

// The largest margin whose spin, replayed over the window's wakes (a wake L
// late spins margin - L when L < margin), averages at most budget_ns. The
// spin is piecewise linear in the margin: with the k earliest wakes below it,
// it is (k * margin - their sum) / n.
int64_t TimerMargin::budget_margin_ns(int64_t budget_ns) const {
    const std::size_t n = sorted_.size();
    if (n == 0) return budget_ns;   // nothing seen yet: as if every wake were on time
    const double allowed = static_cast<double>(budget_ns) * static_cast<double>(n);
    double below = 0;
    for (std::size_t k = 1; k <= n; ++k) {
        below += static_cast<double>(sorted_[k - 1]);
        const double margin = (allowed + below) / static_cast<double>(k);
        if (k == n || margin <= static_cast<double>(sorted_[k])) return static_cast<int64_t>(margin);
    }
    return budget_ns;   // not reached
}

// The window is a ring (arrival order, to know which sample leaves) plus the
// same samples kept sorted, so the quantile is a lookup and each wake costs
// one binary search and a short memmove rather than a selection.
void TimerMargin::record_wake(int64_t lateness_ns, int64_t runqueue_before_ns) {
    if (window_.empty()) return;   // validate() rejects a zero window; stay safe anyway
    const bool full = window_count_ == window_.size();
    if (!full) ++window_count_;
    put_sample(window_next_, lateness_ns, /*replacing=*/full);
    window_next_ = (window_next_ + 1) % window_.size();
    last_wake_ = {true, lateness_ns, runqueue_before_ns};
}

// The run-queue figure is a system call, slow right after a wake
// (docs/precision.md), so it is not read between the wake and
// the deadline, where every microsecond is the spin's, but at the next timer
// wait. By then it also holds the frame's work; without contention both are
// close to 0.
void TimerMargin::correct_last_wake(int64_t runqueue_now_ns) {
    if (!last_wake_.pending) return;
    last_wake_.pending = false;
    if (last_wake_.runqueue_ns < 0 || runqueue_now_ns <= last_wake_.runqueue_ns || window_count_ == 0) return;
    const int64_t waited = runqueue_now_ns - last_wake_.runqueue_ns;
    const int64_t corrected = std::max<int64_t>(sat_sub(last_wake_.lateness_ns, waited), 0);
    put_sample((window_next_ + window_.size() - 1) % window_.size(), corrected, /*replacing=*/true);
}

// Puts a sample in the ring's slot and in the sorted copy (the slot's old
// sample, when `replacing`, leaves it first), then follows it with the margin.
void TimerMargin::put_sample(std::size_t slot, int64_t value, bool replacing) {
    if (replacing) sorted_.erase(std::lower_bound(sorted_.begin(), sorted_.end(), window_[slot]));
    window_[slot] = value;
    sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), value), value);
    update();
}

void TimerMargin::update() {
    // Nearest rank: the smallest sample with at least q of the samples at or below it.
    const double rank = std::ceil(quantile() * static_cast<double>(window_count_));
    const std::size_t index = std::min(window_count_ - 1, static_cast<std::size_t>(std::max(rank, 1.0)) - 1);
    const double wanted = cfg_.margin_headroom * static_cast<double>(sorted_[index]) +
                          static_cast<double>(cfg_.margin_pad_ns);
    const double max_margin = static_cast<double>(cfg_.max_margin_ns);
    margin_ns_ = std::max(static_cast<int64_t>(std::min(wanted, max_margin)), cfg_.min_margin_ns);
}

// What the spin itself delivers: the share of the recent spin in which a
// deadline would have been missed by over kPreciseNs, over about a window's
// worth of timer waits (each wait decays the sums by 1/window). A wake tail
// rarer than that is not worth a margin: covering it costs a longer spin and
// buys no precision (docs/precision.md).
void TimerMargin::record_spin(int64_t spun_ns, int64_t stalled_ns) {
    const double keep = window_keep();
    spin_seen_ns_ = spin_seen_ns_ * keep + static_cast<double>(spun_ns);
    spin_stalled_ns_ = spin_stalled_ns_ * keep + static_cast<double>(stalled_ns);
    if (window_count_ > 0) update();
}

double TimerMargin::spin_stall_share() const {
    if (spin_seen_ns_ < static_cast<double>(kSpinSeenNs)) return 0;   // too little spin to tell
    return std::min(spin_stalled_ns_ / spin_seen_ns_, 1.0);
}

// While the spin stalls in under kPreciseShare of its time, its 99th
// percentile can still be precise: the configured quantile. Past that, the
// quantile drops by half the excess, never below kLowestQuantile.
double TimerMargin::quantile() const {
    const double excess = std::max(spin_stall_share() - kPreciseShare, 0.0);
    const double q = cfg_.margin_quantile;
    return std::min(q, std::max(q - kTailShare * excess, kLowestQuantile));
}

// A calm timer wait's own CPU up to its spin: entering and leaving the sleep,
// waking a halted CPU, the contention reading. A decayed mean over about a
// window's worth of waits, like record_spin.
void TimerMargin::record_sleep_cpu(int64_t cpu_ns) {
    const double keep = window_keep();
    sleep_cpu_sum_ns_ = sleep_cpu_sum_ns_ * keep + static_cast<double>(cpu_ns);
    sleep_cpu_weight_ = sleep_cpu_weight_ * keep + 1.0;
}

int64_t TimerMargin::sleep_cpu_ns() const {
    if (sleep_cpu_weight_ <= 0) return -1;
    return std::llround(sleep_cpu_sum_ns_ / sleep_cpu_weight_);
}

// What a decayed sum keeps of itself at each wait: 1 - 1/window, so that it
// spans about a window's worth of waits.
double TimerMargin::window_keep() const {
    return 1.0 - 1.0 / static_cast<double>(std::max<std::size_t>(window_.size(), 1));
}

}  // namespace pacer::detail
