// peers.h: the waits pacer's timer is measured against, each re-implemented
// as its own source has it, and named after that source. The trade-off
// experiment (tradeoff.cpp) and pacer-wake-probe share them, and
// tests/unit/test_peers.cpp pins each one's behaviour with a fake clock.
// docs/peers.md lists every way a peer here differs from its source, and why.
//
// Each is a template over the time it reads and the waits it makes, so the
// bench hands it the OS's and the tests their fakes:
//   now_ns()            the monotonic clock, ns (pacer::OsClock's time base)
//   sleep_for(ns)       one relative OS sleep
//   sleep_until(ns)     one absolute OS sleep on that clock
//   pause() / yield()   one step of a spin: the CPU's pause instruction, or
//                       the OS's yield
// Each waits for an absolute deadline: the frame grid's. A source that takes
// a duration is handed deadline - now at its entry, as a caller on that grid
// would hand it.
#pragma once

#include <cmath>
#include <cstdint>

#include <pacer/units.h>

namespace bench::peers {

using pacer::kNsPerMs;

// SDL3's SDL_DelayPrecise (SDL 3.2, src/timer/SDL_timer.c), up to its spin:
//   1. relative 1 ms sleeps while more than the longest of them so far
//      remains: that longest starts at 1 ms on every call;
//   2. one sleep of what remains less that longest's overshoot of 1 ms;
//   3. 1 ms sleeps while more than 1 ms remains (a step 2 that woke early).
// Every piece of state is this call's: a late sleep in one frame does not
// shorten the next frame's sleeps. Returns the time after the last sleep;
// sdl3_delay_precise spins from there. (wake_probe.cpp times the spin on its
// own, so it calls the two parts.)
template <typename NowNs, typename SleepFor>
int64_t sdl3_sleeps(int64_t deadline_ns, NowNs now_ns, SleepFor sleep_for) {
    int64_t now = now_ns();
    int64_t max_sleep_ns = kNsPerMs;
    while (deadline_ns - now > max_sleep_ns) {
        sleep_for(kNsPerMs);
        const int64_t after = now_ns();
        if (after - now > max_sleep_ns) max_sleep_ns = after - now;
        now = after;
    }
    const int64_t overshoot_ns = max_sleep_ns - kNsPerMs;
    if (deadline_ns - now > 0 && deadline_ns - now > overshoot_ns) {
        sleep_for(deadline_ns - now - overshoot_ns);
        now = now_ns();
    }
    while (deadline_ns - now > kNsPerMs) {
        sleep_for(kNsPerMs);
        now = now_ns();
    }
    return now;
}

// The whole of SDL_DelayPrecise: its sleeps, then a pause spin.
template <typename NowNs, typename SleepFor, typename Pause>
void sdl3_delay_precise(int64_t deadline_ns, NowNs now_ns, SleepFor sleep_for, Pause pause) {
    int64_t now = sdl3_sleeps(deadline_ns, now_ns, sleep_for);
    while (now < deadline_ns) {
        pause();
        now = now_ns();
    }
}

// The 2020 accurate-sleep article's preciseSleep (seed 01): 1 ms sleeps while
// the time left exceeds the estimate of one (mean + one sigma, Welford's
// running figures), then a busy loop. Its figures are function statics in the
// source, so they live for the whole program: here they are this object's,
// one object a run. It starts from the article's 5 ms guess, counted as a
// first sample, so one long early sleep inflates sigma for good (the 2021
// article's complaint about it).
class PreciseSleep2020 {
public:
    // spin_step(): the body of the source's busy loop, which is empty (the
    // bench passes a no-op; a fake clock's test passes its tick).
    template <typename NowNs, typename SleepFor, typename SpinStep>
    void wait_until(int64_t deadline_ns, NowNs now_ns, SleepFor sleep_for, SpinStep spin_step) {
        double seconds = static_cast<double>(deadline_ns - now_ns()) / 1e9;
        while (seconds > estimate_s_) {
            const int64_t start = now_ns();
            sleep_for(kNsPerMs);
            const int64_t end = now_ns();
            const double observed = static_cast<double>(end - start) / 1e9;
            seconds -= observed;
            ++count_;
            const double delta = observed - mean_s_;
            mean_s_ += delta / static_cast<double>(count_);
            m2_ += delta * (observed - mean_s_);
            const double stddev = std::sqrt(m2_ / static_cast<double>(count_ - 1));
            estimate_s_ = mean_s_ + stddev;
        }
        // The source's spin: a loop on the clock, no pause instruction.
        const int64_t start = now_ns();
        const double spin_ns = seconds * 1e9;
        while (static_cast<double>(now_ns() - start) < spin_ns) spin_step();
    }
    double estimate_s() const { return estimate_s_; }
    int64_t samples() const { return count_ - 1; }   // the source's count includes the guess

private:
    double estimate_s_ = 5e-3;
    double mean_s_ = 5e-3;
    double m2_ = 0;
    int64_t count_ = 1;
};

// The 2021 perfect-sleep article's robustSleep (seed 02): sleep the whole
// scheduler periods that fit after leaving one period and the tolerance,
// then spin with the pause instruction (YieldProcessor). Its PERIOD (1 ms,
// held with timeBeginPeriod(1)) and TOLERANCE (0.02 ms) are the source's.
template <typename NowNs, typename SleepFor, typename Pause>
void robust_sleep_2021(int64_t deadline_ns, NowNs now_ns, SleepFor sleep_for, Pause pause) {
    constexpr double kPeriodMs = 1;
    constexpr double kToleranceMs = 0.02;
    const int64_t t0 = now_ns();
    const double ms = static_cast<double>(deadline_ns - t0) / 1e6 - (kPeriodMs + kToleranceMs);
    const int ticks = static_cast<int>(ms / kPeriodMs);
    if (ticks > 0) sleep_for(static_cast<int64_t>(ticks * kPeriodMs) * kNsPerMs);
    while (now_ns() < deadline_ns) pause();
}

// The "every 5 ms" answer's loop (seed 03): the standard library's
// sleep_until to 100 us before the tick, then yield until the tick.
inline constexpr int64_t kSleepUntilYieldSpinNs = 100'000;

template <typename NowNs, typename SleepUntil, typename Yield>
void sleep_until_then_yield(int64_t deadline_ns, NowNs now_ns, SleepUntil sleep_until, Yield yield) {
    sleep_until(deadline_ns - kSleepUntilYieldSpinNs);
    while (now_ns() < deadline_ns) yield();
}

// The Linux nanosleep-versus-busy-wait article's sleep (seed 04): one
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) to the deadline. The OS
// call itself is plain_waits.h's.
template <typename SleepUntil>
void plain_absolute_sleep(int64_t deadline_ns, SleepUntil sleep_until) {
    sleep_until(deadline_ns);
}

}  // namespace bench::peers
