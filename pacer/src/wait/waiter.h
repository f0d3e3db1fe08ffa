// waiter.h: one waiting strategy, usable without a Pacer (the Pacer, the bench
// and the unit tests use it). Internal: the tests link pacer_internal, the bench pacer_measure.
#pragma once

#include <pacer/pacer.h>
#include <pacer/platform.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace pacer {

struct WaitResult {
    int64_t wake_ns;    // when the wait returned
    int64_t slept_ns;   // time spent inside OS sleeps
    int64_t spun_ns;    // time spent spinning
    int64_t cpu_ns;     // the thread's CPU time in the wait (-1 unknown); the timer's is
                        // read before its spin and adds the spin's time
};

class Waiter {
public:
    // Throws std::invalid_argument with validate()'s line for an invalid config.
    explicit Waiter(const Config& config);
    ~Waiter();
    Waiter(const Waiter&) = delete;
    Waiter& operator=(const Waiter&) = delete;

    // Waits until deadline_ns by the current strategy; at once when it has
    // passed. Vsync and Auto wait as Timer here.
    WaitResult wait_until(int64_t deadline_ns);
    void set_strategy(Strategy strategy);   // every strategy's state is kept
    // A flag that ends a wait early when set (Pacer::interrupt): every loop
    // that waits on the clock checks it, so a clock that stops cannot hold
    // a wait. Null: none. Not owned; must outlive the Waiter's waits.
    void stop_on(const std::atomic<bool>* flag);
    // Takes a valid config's parameters, sleeper and wait settings (not its
    // clock or strategy). An owned OsSleeper is made anew when its options
    // change; the timer's margin restarts when its margin settings change.
    void reconfigure(const Config& config);
    WaitStatus state() const;
    Clock& clock();
    Sleeper& sleeper();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pacer
