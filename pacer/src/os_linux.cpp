// os_linux.cpp: os.h on Linux (and other POSIX systems with clock_nanosleep).
// Tickless high-resolution timers: there is no scheduler period to state,
// every sleep is already a high-resolution timer; the thread's timer slack
// (50 us by default) is what makes wakes late, and it can be read and set.
#include "os.h"

#include <cerrno>
#include <ctime>

#include <sys/prctl.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pacer::os {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

int64_t to_ns(const timespec& ts) {
    return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

timespec to_timespec(int64_t ns) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(ns / kNsPerSecond);
    ts.tv_nsec = static_cast<long>(ns % kNsPerSecond);
    return ts;
}

}  // namespace

int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return to_ns(ts);
}

int64_t thread_cpu_ns() {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    return to_ns(ts);
}

void sleep_ns(int64_t duration_ns) {
    if (duration_ns <= 0) return;
    timespec request = to_timespec(duration_ns);
    timespec remaining{};
    // A signal ends nanosleep early; go on with what it says is left.
    while (nanosleep(&request, &remaining) != 0 && errno == EINTR) request = remaining;
}

void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#else
    // No spin hint known for this CPU: a compiler barrier keeps the loop honest.
    __asm__ __volatile__("" ::: "memory");
#endif
}

int64_t scheduler_period_ns() { return 0; }

// Linux has no timer object to hold: an absolute clock_nanosleep on the
// monotonic clock is the high-resolution timer. The struct exists so that
// OsSleeper treats every OS alike.
struct HighResTimer {
    int unused;
};

HighResTimer* timer_create(int64_t /*scheduler_period_ns*/) { return new HighResTimer{0}; }

void timer_sleep_until(HighResTimer* /*timer*/, int64_t deadline_ns) {
    const timespec deadline = to_timespec(deadline_ns);
    // An absolute deadline makes EINTR harmless: call again with the same one.
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
    }
}

void timer_destroy(HighResTimer* timer) { delete timer; }

const char* timer_describe(const HighResTimer* /*timer*/) {
    return "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)";
}

bool timer_period_begin(int64_t /*period_ns*/) { return false; }
void timer_period_end(int64_t /*period_ns*/) {}
int64_t timer_period_now_ns() { return -1; }

bool timer_slack_get(int64_t* slack_ns) {
    const int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack < 0) return false;
    *slack_ns = slack;
    return true;
}

bool timer_slack_set(int64_t slack_ns) {
    // Zero would mean "back to the thread's default"; the smallest real slack is 1 ns.
    if (slack_ns < 1) return false;
    return prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack_ns), 0, 0, 0) == 0;
}

}  // namespace pacer::os
