// os/macos.cpp: os.h on macOS. UNTESTED: nothing in this project's CI can
// compile or run it. Kept small so that it can be read as obviously right;
// the README makes no claim for macOS.
//
// The clock is mach_absolute_time (monotonic, stops while the machine
// sleeps), the high-resolution timer mach_wait_until on that same timeline.
// macOS has no scheduler period to state and no timer-period control.
#ifndef __APPLE__
#error "os/macos.cpp is the macOS implementation; CMake picks one OS file"
#endif

#include "os/os.h"

#include <pacer/units.h>

#include <cerrno>
#include <cstdint>
#include <ctime>

#include <mach/mach_time.h>
#include <unistd.h>

namespace pacer::os {

namespace {

// Ticks are ns * denom / numer (Intel: 1/1; Apple silicon: 125/3 at 24 MHz).
const mach_timebase_info_data_t& timebase() {
    static const mach_timebase_info_data_t info = [] {
        mach_timebase_info_data_t i{};
        mach_timebase_info(&i);
        return i;
    }();
    return info;
}

// Split into whole multiples of the divisor and a remainder so that nothing
// overflows: numer and denom are 32-bit.
int64_t ticks_to_ns(uint64_t ticks) {
    const uint64_t numer = timebase().numer, denom = timebase().denom;
    return static_cast<int64_t>(ticks / denom * numer + ticks % denom * numer / denom);
}

// Rounded up, so a wait on the result never ends before ns.
uint64_t ns_to_ticks_ceil(int64_t ns) {
    if (ns <= 0) return 0;
    const uint64_t n = static_cast<uint64_t>(ns);
    const uint64_t numer = timebase().numer, denom = timebase().denom;
    return n / numer * denom + (n % numer * denom + numer - 1) / numer;
}

}  // namespace

int64_t now_ns() { return ticks_to_ns(mach_absolute_time()); }

int64_t thread_cpu_ns() {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;   // macOS 10.12+
    return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

void sleep_ns(int64_t duration_ns) {
    if (duration_ns <= 0) return;
    timespec request{static_cast<time_t>(duration_ns / kNsPerSecond), static_cast<long>(duration_ns % kNsPerSecond)};
    timespec remaining{};
    // A signal ends nanosleep early; go on with what it says is left.
    while (nanosleep(&request, &remaining) != 0 && errno == EINTR) request = remaining;
}

void cpu_pause() {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

int64_t scheduler_period_ns() { return 0; }   // no tick to state

// mach_wait_until needs no object; the struct exists so that OsSleeper treats
// every OS alike.
struct HighResTimer {
    int unused;
};

HighResTimer* timer_create(int64_t /*scheduler_period_ns*/) { return new HighResTimer{0}; }

void timer_sleep_until(HighResTimer* /*timer*/, int64_t deadline_ns) {
    // mach_wait_until can return early (KERN_ABORTED on a signal): wait again
    // until the clock agrees the deadline has passed.
    const uint64_t deadline_ticks = ns_to_ticks_ceil(deadline_ns);
    while (now_ns() < deadline_ns) mach_wait_until(deadline_ticks);
}

void timer_destroy(HighResTimer* timer) { delete timer; }

const char* timer_describe(const HighResTimer* /*timer*/) { return "mach_wait_until"; }

bool timer_period_begin(int64_t /*period_ns*/) { return false; }
void timer_period_end(int64_t /*period_ns*/) {}
int64_t timer_period_now_ns() { return -1; }

bool timer_slack_get(int64_t* /*slack_ns*/) { return false; }
bool timer_slack_set(int64_t /*slack_ns*/) { return false; }
bool timer_slack_set_on(int64_t /*thread*/, int64_t /*slack_ns*/) { return false; }

int64_t thread_runqueue_wait_ns() { return -1; }
int32_t runnable_threads() { return -1; }
int32_t online_cpus() {
    static const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && cpus <= INT32_MAX ? static_cast<int32_t>(cpus) : -1;
}
int sched_get(int64_t /*thread*/, SchedSettings* /*out*/) { return ENOSYS; }
int sched_set(int64_t /*thread*/, const SchedSettings& /*settings*/) { return ENOSYS; }
int64_t thread_id() { return 0; }

}  // namespace pacer::os
