// thread_timing.cpp: asks the OS for finer timing on the calling thread and
// gives it back on destruction. The report reads the settings back after the
// request, because the OS may clamp or ignore what was asked.
#include "base/text.h"
#include "os/os.h"

#include <pacer/thread_timing.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pacer {

namespace {

void note(std::string& refused, const std::string& what) {
    if (!refused.empty()) refused += "; ";
    refused += what;
}

}  // namespace

ThreadTiming::ThreadTiming(const Request& request) : request_(request) {
    if (request.timer_slack_ns < 0 || request.timer_period_ns < 0)
        throw std::invalid_argument("ThreadTiming: timer_slack_ns (" + std::to_string(request.timer_slack_ns) +
                                    ") and timer_period_ns (" + std::to_string(request.timer_period_ns) +
                                    ") must not be negative; 0 leaves a setting alone");
    if (request.timer_slack_ns > os::kMaxTimerSlackNs)
        throw std::invalid_argument("ThreadTiming: timer_slack_ns " + std::to_string(request.timer_slack_ns) +
                                    " is out of range [1, " + std::to_string(os::kMaxTimerSlackNs) +
                                    "]; 0 leaves it alone");
    if (request.sched_slice_ns != 0 && (request.sched_slice_ns < os::kMinSliceNs || request.sched_slice_ns > os::kMaxSliceNs))
        throw std::invalid_argument("ThreadTiming: sched_slice_ns " + std::to_string(request.sched_slice_ns) +
                                    " is out of range [100000, 100000000]; 0 leaves it alone");
    if (request.fifo_priority < 0 || request.fifo_priority > 99)
        throw std::invalid_argument("ThreadTiming: fifo_priority " + std::to_string(request.fifo_priority) +
                                    " is out of range [1, 99]; 0 leaves it alone");
    if (request.nice < -20 || request.nice > 19)
        throw std::invalid_argument("ThreadTiming: nice " + std::to_string(request.nice) +
                                    " is out of range [-20, 19]; 0 leaves it alone");

    // Timer slack (Linux, per thread).
    int64_t slack_ns = -1;
    report_.timer_slack_supported = os::timer_slack_get(&slack_ns);
    if (report_.timer_slack_supported && request.timer_slack_ns > 0) {
        const int64_t previous_ns = slack_ns;
        if (os::timer_slack_set(request.timer_slack_ns)) {
            previous_slack_ns_ = previous_ns;
            if (!os::timer_slack_get(&slack_ns)) slack_ns = -1;
        }
    }
    report_.timer_slack_ns = report_.timer_slack_supported ? slack_ns : -1;

    // Timer period (Windows, system-wide). request_.timer_period_ns stays
    // non-zero only when a begin succeeded and so needs its end.
    if (request.timer_period_ns > 0) {
        report_.timer_period_supported = os::timer_period_begin(request.timer_period_ns);
        if (!report_.timer_period_supported) request_.timer_period_ns = 0;
    } else {
        // Nothing asked: the control counts as there when the OS can tell its period.
        report_.timer_period_supported = os::timer_period_now_ns() >= 0;
    }
    report_.timer_period_ns = os::timer_period_now_ns();

    if (request.timer_slack_ns > 0 && !report_.timer_slack_supported) note(report_.refused, "timer_slack_ns: unsupported");
    if (request.timer_period_ns > 0 && !report_.timer_period_supported)
        note(report_.refused, "timer_period_ns: unsupported");
    apply_sched(request);
}

// The scheduling controls, one sched_setattr each so each reports its own
// answer, in the order least to most privileged: slice, nice, FIFO.
void ThreadTiming::apply_sched(const Request& request) {
    os::SchedSettings before{};
    const int read = os::sched_get(0, &before);
    report_.sched_supported = read == 0;
    report_.sched_slice_ns = -1;
    report_.fifo_priority = -1;
    report_.nice = 0;
    const bool asked = request.sched_slice_ns > 0 || request.fifo_priority > 0 || request.nice != 0;
    if (read != 0) {
        if (asked) note(report_.refused, "scheduler controls: " + detail::errno_name(read));
        return;
    }
    os::SchedSettings now = before;
    bool changed = false;
    const auto attempt = [&](const std::string& what, const os::SchedSettings& wanted) {
        const int error = os::sched_set(0, wanted);
        if (error == 0) {
            now = wanted;
            changed = true;
        } else {
            note(report_.refused, what + ": refused: " + detail::errno_name(error));
        }
    };
    if (request.sched_slice_ns > 0) {
        os::SchedSettings wanted = now;
        wanted.slice_ns = request.sched_slice_ns;
        if (wanted.fifo) note(report_.refused, "sched_slice_ns: the thread is FIFO (no fair slice)");
        else attempt("sched_slice_ns " + std::to_string(request.sched_slice_ns), wanted);
    }
    if (request.nice != 0) {
        os::SchedSettings wanted = now;
        wanted.nice = request.nice;
        if (wanted.fifo) note(report_.refused, "nice: the thread is FIFO (nice does not apply)");
        else attempt("nice " + std::to_string(request.nice), wanted);
    }
    if (request.fifo_priority > 0) {
        os::SchedSettings wanted = now;
        wanted.fifo = true;
        wanted.priority = request.fifo_priority;
        attempt("fifo_priority " + std::to_string(request.fifo_priority), wanted);
    }
    if (changed) {
        previous_sched_.valid = true;
        previous_sched_.policy = before.os_policy;
        previous_sched_.fifo = before.fifo;
        previous_sched_.priority = before.priority;
        previous_sched_.nice = before.nice;
        previous_sched_.slice_ns = before.slice_ns;
        previous_sched_.reset_on_fork = before.reset_on_fork;
    }
    // What the kernel says now, not what was asked: it clamps the slice.
    os::SchedSettings after{};
    if (os::sched_get(0, &after) != 0) return;
    report_.sched_slice_ns = after.fifo ? 0 : after.slice_ns;
    report_.fifo_priority = after.fifo ? after.priority : 0;
    report_.nice = after.nice;
}

ThreadTiming::~ThreadTiming() {
    if (previous_slack_ns_ >= 0) os::timer_slack_set(previous_slack_ns_);
    if (request_.timer_period_ns > 0) os::timer_period_end(request_.timer_period_ns);
    if (previous_sched_.valid) {
        os::SchedSettings settings{};
        settings.os_policy = previous_sched_.policy;
        settings.fifo = previous_sched_.fifo;
        settings.priority = previous_sched_.priority;
        settings.nice = previous_sched_.nice;
        settings.slice_ns = previous_sched_.slice_ns;
        settings.reset_on_fork = previous_sched_.reset_on_fork;
        // Going back is always allowed except to a lower nice than the one we
        // set, which needs the privilege that set it; then it stays.
        os::sched_set(0, settings);
    }
}

}  // namespace pacer
