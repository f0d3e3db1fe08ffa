// tuning.h: the waiting strategies' own settings (Config::tuning).
//
// An engine sets none of these: the defaults are measured (docs/design.md and
// docs/precision.md say on what), and Config's own fields are what an engine
// chooses. They are here for benches, experiments and the demo's panels,
// which compare strategies at other settings. Each default is written once,
// beside its field; validate() gives each range, by its path from Config
// (e.g. "tuning.timer.margin_ns").
#pragma once

#include <cstdint>

namespace pacer {

struct Tuning {
    int64_t scheduler_period_ns = 0;            // robust_sleep's period, [1 ns, 1 s]; 0 (a period
                                                // cannot be 0): the sleeper's stated one, else 1 ms
    struct Precise {                            // precise_sleep
        double sigma_k = 1;                     // estimate = mean + k * sigma, [0, 100]
        int64_t initial_estimate_ns = 5'000'000;   // first guess of a 1 ms sleep, [1 ns, 1 s]
    } precise;
    struct Robust {                             // robust_sleep, and timer without a timer
        int64_t tolerance_ns = 20'000;          // left on top of one period, [0, 1 s]
    } robust;
    struct Timer {                              // timer (docs/precision.md); durations [0, 1 s]
        int64_t margin_ns = 200'000;            // starting margin, [min_margin_ns, max_margin_ns]
        int64_t min_margin_ns = 10'000;         // the margin's floor
        int64_t max_margin_ns = 2'000'000;      // the margin's ceiling, >= min_margin_ns
        double margin_quantile = 0.998;         // of the timer's own recent lateness, (0, 1];
                                                // lower while its spin stalls (WaitStatus)
        double margin_headroom = 1.1;           // margin = headroom * quantile + pad, [1, 10]
        int64_t margin_pad_ns = 5'000;          // added to that
        int32_t margin_window = 512;            // wakes in the quantile's window, [1, 1e6]
        int64_t max_wait_cpu_ns = 140'000;      // a wait's CPU a frame, mean: sleep + spin (0: no spin)
        double max_wait_cpu_pct = 1.4;          // and at most this % of the frame period, [0, 100]
        int64_t contention_wait_ns = 500'000;   // run-queue wait per frame that is a sign of
                                                // contention (at every wait for 40 ms: no spin), [1 ns, 1 s]
        int64_t last_sleep_ns = 500'000;        // calm: a first sleep ends this long before the
                                                // margin, so the wake the margin covers follows a
                                                // short sleep; 0: one sleep
    } timer;
    struct Wait {                               // the owned OsSleeper's timer waits (Linux)
        int64_t timer_slack_ns = 1;             // -1: the thread's own, else [1 ns, 100 ms] and at
                                                // most a tenth of the period
        int64_t sched_slice_ns = 100'000;       // -1: the thread's own, else [100 us, 100 ms]
    } wait;
};

bool operator==(const Tuning::Timer& a, const Tuning::Timer& b);
bool operator==(const Tuning::Wait& a, const Tuning::Wait& b);
inline bool operator!=(const Tuning::Timer& a, const Tuning::Timer& b) { return !(a == b); }
inline bool operator!=(const Tuning::Wait& a, const Tuning::Wait& b) { return !(a == b); }

}  // namespace pacer
