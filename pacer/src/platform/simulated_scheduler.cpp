// simulated_scheduler.cpp: a Sleeper that behaves like an OS with a coarse
// scheduler tick, on top of a real (or fake) one.
#include "base/saturate.h"

#include <pacer/platform.h>
#include <pacer/units.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pacer {

namespace {

SimulatedSchedulerConfig checked(const SimulatedSchedulerConfig& config) {
    const SimulatedSchedulerConfig& resolved = config;
    // Up to a second: a longer tick is no scheduler's, and INT64_MAX made
    // every sleep last 292 years.
    if (resolved.period_ns <= 0 || resolved.period_ns > kNsPerSecond) {
        throw std::invalid_argument("SimulatedSchedulerConfig.period_ns: " + std::to_string(resolved.period_ns) +
                                    " is out of range [1, 1000000000]");
    }
    if (!(resolved.preempt_probability >= 0.0 && resolved.preempt_probability < 1.0)) {
        throw std::invalid_argument("SimulatedSchedulerConfig.preempt_probability: " +
                                    std::to_string(resolved.preempt_probability) + " is out of range [0, 1)");
    }
    return resolved;
}

// splitmix64: tiny, fast, and a fixed sequence per seed.
uint64_t next_random(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The first multiple of period at or after t, also for a clock whose
// timeline starts below zero; INT64_MAX when that multiple lies beyond it.
int64_t tick_at_or_after(int64_t t, int64_t period) {
    const int64_t r = t % period;   // the sign of t
    if (r == 0) return t;
    return r > 0 ? detail::sat_add(t, period - r) : t - r;
}

}  // namespace

SimulatedScheduler::SimulatedScheduler(Sleeper& inner, Clock& clock, const SimulatedSchedulerConfig& config)
    : inner_(inner), clock_(clock), config_(checked(config)), rng_state_(config_.seed) {}

// Preemption: with probability q, another process holds the CPU until the
// next tick after wake_ns; repeated, so k extra ticks have probability q^k,
// up to kMaxPreemptTicks: a real scheduler runs a waiting thread in the end,
// and a q just under 1 must not make one sleep last for ever.
int64_t SimulatedScheduler::quantise_(int64_t wake_ns) {
    const double q = config_.preempt_probability;
    for (int ticks = 0; q > 0 && ticks < kMaxPreemptTicks; ++ticks) {
        const double u = static_cast<double>(next_random(rng_state_) >> 11) * 0x1.0p-53;
        if (u >= q) break;
        if (wake_ns == detail::kInt64Max) break;   // no tick after the end of time
        wake_ns = tick_at_or_after(wake_ns + 1, config_.period_ns);
        ++preemptions_;
    }
    return wake_ns;
}

void SimulatedScheduler::sleep_ns(int64_t duration_ns) {
    const int64_t now = clock_.now_ns();
    const int64_t wake =
        quantise_(tick_at_or_after(detail::sat_add(now, std::max<int64_t>(duration_ns, 0)), config_.period_ns));
    // Really wait: precisely on the inner timer when there is one, else with
    // the inner relative sleep (whose own overshoot then adds on top).
    if (inner_.has_high_res_timer() && inner_.sleep_until_ns(wake)) return;
    const int64_t remaining = detail::sat_sub(wake, clock_.now_ns());
    if (remaining > 0) inner_.sleep_ns(remaining);
}

bool SimulatedScheduler::has_high_res_timer() const { return inner_.has_high_res_timer(); }

bool SimulatedScheduler::sleep_until_ns(int64_t deadline_ns) {
    if (!inner_.has_high_res_timer()) return false;
    return inner_.sleep_until_ns(quantise_(deadline_ns));
}

void SimulatedScheduler::pause() { inner_.pause(); }

int64_t SimulatedScheduler::scheduler_period_ns() const { return config_.period_ns; }

}  // namespace pacer
