// fakes.h: a fake clock and a fake sleeper shared by the unit tests.
//
// FakeClock only moves when told to. FakeSleeper moves it the way an OS
// would: a relative sleep lasts its duration plus an overshoot, a timer wait
// ends at its deadline plus a lateness, and a pause costs pause_ns of CPU.
// Overshoots and latenesses are scripted (a queue, consumed one per call) or
// fall back to a fixed default, so every test is deterministic.
#pragma once

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace pacer::testing {

// One field of a pacer's config changed live, as an engine would: a copy of
// the config in force, the change, reconfigure. Returns reconfigure's line.
template <typename Change>
std::string reconfigure_with(Pacer& pacer, Change change) {
    Config config = pacer.config();
    change(config);
    return pacer.reconfigure(config);
}

// Units for the tests' nanosecond figures.
inline constexpr int64_t kUs = 1'000;
inline constexpr int64_t kMs = 1'000'000;

class FakeClock final : public Clock {
public:
    explicit FakeClock(int64_t start_ns = 1'000'000'000) : now_(start_ns) {}

    int64_t now_ns() override { return now_; }
    // -1 when told to act as a platform without thread CPU time.
    int64_t thread_cpu_ns() override { return cpu_known ? cpu_ : -1; }
    // -1 (unknown) until a test sets runqueue_ns to a count.
    int64_t thread_runqueue_wait_ns() override { return runqueue_ns; }

    // Time stops at the int64 limits rather than wrapping, so that the
    // hostile-input tests can wait for INT64_MAX on it.
    // Wall time passes while the thread does not run (sleeping, preempted).
    void advance(int64_t duration_ns) { now_ = plus(now_, duration_ns); }
    // Wall time passes while the thread runs (work, spinning): CPU time too.
    void advance_busy(int64_t duration_ns) {
        now_ = plus(now_, duration_ns);
        cpu_ = plus(cpu_, duration_ns);
    }
    // Wall time passes while the thread waits runnable for a CPU (contention).
    void advance_runnable(int64_t duration_ns) {
        now_ = plus(now_, duration_ns);
        if (runqueue_ns >= 0) runqueue_ns = plus(runqueue_ns, duration_ns);
    }
    void set(int64_t now_ns) { now_ = now_ns; }
    int64_t cpu_ns() const { return cpu_; }

    bool cpu_known = true;
    int64_t runqueue_ns = -1;   // the run-queue wait so far; -1: unknown

private:
    static int64_t plus(int64_t a, int64_t b) {
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
        if (b > 0 && a > kMax - b) return kMax;
        if (b < 0 && a < kMin - b) return kMin;
        return a + b;
    }
    int64_t now_;
    int64_t cpu_ = 0;
};

class FakeSleeper final : public Sleeper {
public:
    explicit FakeSleeper(FakeClock& clock) : clock_(clock) {}

    // sleep_ns: duration + the next scripted overshoot (else sleep_overshoot_ns).
    void sleep_ns(int64_t duration_ns) override {
        sleep_requests.push_back(duration_ns);
        clock_.advance(std::max<int64_t>(duration_ns, 0));
        clock_.advance(next_(sleep_overshoots, sleep_overshoot_ns));
    }
    bool has_high_res_timer() const override { return high_res_timer; }
    // sleep_until_ns: to max(now, deadline) + the next scripted lateness
    // (else timer_lateness_ns), then the next scripted run-queue wait (else 0).
    // Refuses, without waiting, when high_res_timer is off.
    bool sleep_until_ns(int64_t deadline_ns) override {
        if (!high_res_timer) return false;
        until_requests.push_back(deadline_ns);
        clock_.set(std::max(clock_.now_ns(), deadline_ns));
        clock_.advance(next_(timer_latenesses, timer_lateness_ns));
        // Then, under contention, the woken thread waits for a CPU.
        clock_.advance_runnable(next_(timer_runqueue_waits, 0));
        return true;
    }
    // One spin turn: pause_ns of busy time.
    void pause() override {
        ++pauses;
        clock_.advance_busy(pause_ns);
    }
    int64_t scheduler_period_ns() const override { return period_ns; }

    // Configuration (public: tests set what they need).
    bool high_res_timer = true;
    int64_t period_ns = 0;            // what scheduler_period_ns() states
    int64_t pause_ns = 50;
    int64_t sleep_overshoot_ns = 0;   // default overshoot of sleep_ns
    int64_t timer_lateness_ns = 0;    // default lateness of sleep_until_ns
    std::deque<int64_t> sleep_overshoots;   // scripted, consumed first
    std::deque<int64_t> timer_latenesses;   // scripted, consumed first
    std::deque<int64_t> timer_runqueue_waits;   // scripted run-queue wait after a timer wake (else 0)

    // Observations.
    std::vector<int64_t> sleep_requests;   // every sleep_ns duration asked
    std::vector<int64_t> until_requests;   // every sleep_until_ns deadline asked
    int64_t pauses = 0;

private:
    static int64_t next_(std::deque<int64_t>& script, int64_t fallback) {
        if (script.empty()) return fallback;
        int64_t value = script.front();
        script.pop_front();
        return value;
    }
    FakeClock& clock_;
};

// A zero config wired to the fakes, at target_hz with strategy.
inline Config fake_config(FakeClock& clock, FakeSleeper& sleeper, double target_hz = 60,
                          Strategy strategy = Strategy::Timer) {
    Config config{};
    config.target_hz = target_hz;
    config.strategy = strategy;
    config.clock = &clock;
    config.sleeper = &sleeper;
    return config;
}

}  // namespace pacer::testing
