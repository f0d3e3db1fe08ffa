// thread_timing.cpp: asks the OS for finer timing on the calling thread and
// gives it back on destruction. The report reads the settings back after the
// request, because the OS may clamp or ignore what was asked.
#include "pacer/pacer.h"

#include "os.h"

#include <stdexcept>
#include <string>

namespace pacer {

ThreadTiming::ThreadTiming(const Request& request) : request_(request) {
    if (request.timer_slack_ns < 0 || request.timer_period_ns < 0)
        throw std::invalid_argument("ThreadTiming: timer_slack_ns (" + std::to_string(request.timer_slack_ns) +
                                    ") and timer_period_ns (" + std::to_string(request.timer_period_ns) +
                                    ") must not be negative; 0 leaves a setting alone");

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
}

ThreadTiming::~ThreadTiming() {
    if (previous_slack_ns_ >= 0) os::timer_slack_set(previous_slack_ns_);
    if (request_.timer_period_ns > 0) os::timer_period_end(request_.timer_period_ns);
}

}  // namespace pacer
