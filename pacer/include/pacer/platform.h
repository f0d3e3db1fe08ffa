// platform.h: time and sleeping, for those who inject or simulate them.
//
// A Pacer reads time only from a Clock and waits only through a Sleeper
// (Config::clock, Config::sleeper). The OS's own are OsClock and OsSleeper;
// SimulatedScheduler makes any machine behave like one with a coarse tick.
// Implement Clock and Sleeper with a fake timeline and a pacer is fully
// deterministic (tests/unit/fakes.h does).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace pacer {

// A monotonic clock.
class Clock {
public:
    virtual ~Clock() = default;
    virtual int64_t now_ns() = 0;
    virtual int64_t thread_cpu_ns() = 0;   // CPU time of the calling thread, -1 unknown
    // Time the calling thread has waited runnable for a CPU, in total (-1
    // unknown). The timer strategy tells contention from a late timer by it.
    virtual int64_t thread_runqueue_wait_ns() { return -1; }
    // Threads running or waiting for a CPU right now, system-wide, the caller
    // included, and the CPUs online (-1 unknown). More of the first than the
    // second: a thread that spins takes a CPU another one is waiting for.
    virtual int32_t runnable_threads() { return -1; }
    virtual int32_t online_cpus() { return -1; }
};

// The OS's ways of not running. Strategies wait only through this.
class Sleeper {
public:
    virtual ~Sleeper() = default;
    virtual void sleep_ns(int64_t duration_ns) = 0;   // relative; at least duration_ns
    virtual bool has_high_res_timer() const = 0;
    // Absolute high-resolution wait; false, without waiting, where there is no timer.
    virtual bool sleep_until_ns(int64_t deadline_ns) = 0;
    virtual void pause() = 0;                          // one turn of a spin loop
    // The scheduler period the OS states (Windows' timer resolution), 0 where none.
    virtual int64_t scheduler_period_ns() const = 0;
};

// CLOCK_MONOTONIC, QueryPerformanceCounter, mach_absolute_time. On Linux each
// thread that asks for its run-queue wait keeps its schedstat file open.
class OsClock final : public Clock {
public:
    int64_t now_ns() override;
    int64_t thread_cpu_ns() override;
    int64_t thread_runqueue_wait_ns() override;   // Linux; -1 elsewhere
    int32_t runnable_threads() override;          // Linux; -1 elsewhere
    int32_t online_cpus() override;
};

// The OS's sleeps. Make one per waiting thread. Everything it changes is put
// back: timer slack after each wait; the scheduler slice, held from the first
// timer wait, when it is destroyed, from whichever thread (Linux); Windows'
// timeBeginPeriod, held only where the high-resolution timer is refused.
class OsSleeper final : public Sleeper {
public:
    struct Options {
        int64_t scheduler_period_ns = 0;       // ns; 0: the OS's stated period, else 1 ms
        bool refuse_high_res_timer = false;    // test seam: act as if the OS refused it
        int64_t wait_timer_slack_ns = 1;       // Linux slack during timer waits, [1 ns, 100 ms]; -1: leave
        int64_t wait_sched_slice_ns = 100'000; // Linux (>= 6.12) slice while held, [100 us, 100 ms]; -1: leave
    };
    OsSleeper();
    explicit OsSleeper(const Options& options);   // throws std::invalid_argument for a value out of range
    ~OsSleeper() override;
    OsSleeper(const OsSleeper&) = delete;
    OsSleeper& operator=(const OsSleeper&) = delete;

    void sleep_ns(int64_t duration_ns) override;
    bool has_high_res_timer() const override;
    bool sleep_until_ns(int64_t deadline_ns) override;
    void pause() override;
    int64_t scheduler_period_ns() const override;
    // One line on the OS mechanisms in force, e.g. "clock_nanosleep(...),
    // period 1.000 ms (assumed); waits with slack 1 ns, slice 100 us".
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Every relative sleep wakes at the next tick of a period_ns grid at or after
// the requested time; with preempt_probability one tick later, repeatedly (at
// most kMaxPreemptTicks times a sleep).
// High-resolution timer waits are not quantised but are preempted alike. It
// really sleeps, through the inner sleeper, so CPU figures stay honest.
struct SimulatedSchedulerConfig {
    int64_t period_ns = 15'625'000;     // the tick, (0, 1 s] (default: Windows' 64 Hz)
    double preempt_probability = 0;     // [0, 1)
    uint64_t seed = 1;                  // the random sequence
};

class SimulatedScheduler final : public Sleeper {
public:
    // inner does the real waiting; clock places "now" on the tick grid.
    // Throws std::invalid_argument for a config out of range.
    SimulatedScheduler(Sleeper& inner, Clock& clock, const SimulatedSchedulerConfig& config);

    void sleep_ns(int64_t duration_ns) override;
    bool has_high_res_timer() const override;
    bool sleep_until_ns(int64_t deadline_ns) override;
    void pause() override;
    int64_t scheduler_period_ns() const override;   // the simulated period

    const SimulatedSchedulerConfig& config() const { return config_; }
    int64_t preemptions() const { return preemptions_; }   // extra ticks added so far
    static constexpr int kMaxPreemptTicks = 64;             // a sleep's most (1 s at 15.6 ms)

private:
    int64_t quantise_(int64_t wake_ns);
    Sleeper& inner_;
    Clock& clock_;
    SimulatedSchedulerConfig config_;
    uint64_t rng_state_;
    int64_t preemptions_ = 0;
};

}  // namespace pacer
