// thread_timing.h: asks the OS for finer timing on the calling thread and
// restores it on destruction. Independent of Pacer: the bench and the demo use
// it to show what each control buys; a Pacer's own OsSleeper already sets the
// wait settings (Config::tuning.wait) around its timer waits.
#pragma once

#include <cstdint>
#include <string>

namespace pacer {

class ThreadTiming {
public:
    struct Request {
        int64_t timer_slack_ns = 0;    // Linux prctl(PR_SET_TIMERSLACK), per thread, <= 100 ms. 0: leave.
        int64_t timer_period_ns = 0;   // Windows timeBeginPeriod, system-wide. 0: leave.
        // Linux >= 6.12 (EEVDF): the thread's scheduler slice, sched_setattr's
        // sched_runtime, unprivileged. A shorter slice lets the thread's wakes
        // preempt busy threads sooner. 0: leave. Valid: [100 us, 100 ms].
        int64_t sched_slice_ns = 0;
        // Linux: SCHED_FIFO at this priority, 1 to 99 (needs CAP_SYS_NICE or
        // RLIMIT_RTPRIO: EPERM is reported, not thrown). 0: leave.
        // What it buys under contention: docs/design.md.
        int32_t fifo_priority = 0;
        // Linux: the thread's nice value, -20 (most favoured) to 19; below the
        // current one needs CAP_SYS_NICE or RLIMIT_NICE. 0: leave.
        int32_t nice = 0;
    };
    struct Report {
        bool timer_slack_supported;
        int64_t timer_slack_ns;    // in force after the request (-1 unknown)
        bool timer_period_supported;
        int64_t timer_period_ns;   // in force after the request (-1 unknown)
        // Read back with sched_getattr after the request (Linux; else unsupported, -1).
        bool sched_supported;
        int64_t sched_slice_ns;    // the slice in force (-1 unknown)
        int32_t fifo_priority;     // SCHED_FIFO priority in force; 0 not FIFO (-1 unknown)
        int32_t nice;              // nice value in force (meaningful when not FIFO)
        // One "; "-separated note per control that was asked for and not
        // granted, e.g. "fifo_priority 10: refused: EPERM". Empty: all granted.
        std::string refused;
    };
    // Applies the request on the calling thread and reads the settings back.
    // A control the OS lacks is reported unsupported (Linux has no timer
    // period; Windows and macOS have no timer slack, slice, FIFO or nice).
    // Throws std::invalid_argument for a request out of range (negative,
    // slice outside [100 us, 100 ms], priority outside [0, 99], nice outside
    // [-20, 19]). The destructor restores every setting it changed, the
    // scheduling ones as one sched_setattr of what was read before. Destroy
    // it on the same thread: what it restores is that thread's. A default
    // slice comes back as an explicit slice of the same length; a nice value
    // raised without privilege cannot be lowered back and stays.
    explicit ThreadTiming(const Request& request);
    ~ThreadTiming();
    ThreadTiming(const ThreadTiming&) = delete;
    ThreadTiming& operator=(const ThreadTiming&) = delete;
    const Report& report() const { return report_; }

private:
    struct SchedSaved {
        bool valid = false;   // the settings were read and something was changed
        bool fifo = false, reset_on_fork = false;
        int32_t policy = 0, priority = 0, nice = 0;   // policy: the OS's own value
        int64_t slice_ns = 0;
    };
    void apply_sched(const Request& request);
    Request request_;
    Report report_{};
    int64_t previous_slack_ns_ = -1;
    SchedSaved previous_sched_;
};

}  // namespace pacer
