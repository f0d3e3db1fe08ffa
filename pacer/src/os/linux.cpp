// os/linux.cpp: os.h on Linux (and other POSIX systems with clock_nanosleep).
// Tickless high-resolution timers: there is no scheduler period to state,
// every sleep is already a high-resolution timer; the thread's timer slack
// (50 us by default) is what makes wakes late, and it can be read and set.
#include "os/os.h"

#include <pacer/units.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pacer::os {

namespace {

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

bool timer_slack_set_on(int64_t thread, int64_t slack_ns) {
    if (thread == thread_id()) return timer_slack_set(slack_ns);
    if (slack_ns < 1 || thread <= 0) return false;
    // /proc/self/task lists only this process's threads, so a gone thread's
    // id cannot name another process's.
    char path[64], text[32];
    std::snprintf(path, sizeof path, "/proc/self/task/%lld/timerslack_ns", static_cast<long long>(thread));
    const int length = std::snprintf(text, sizeof text, "%lld", static_cast<long long>(slack_ns));
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool written = write(fd, text, static_cast<size_t>(length)) == length;
    close(fd);
    return written;
}

// The thread's schedstat file stays open (one per thread that asks), so a
// read is one pread: a few microseconds, at most once per timer wait.
namespace {

struct SchedstatFile {
    int fd = -2;   // -2: not opened yet; -1: unavailable
    ~SchedstatFile() {
        if (fd >= 0) close(fd);
    }
};

thread_local SchedstatFile t_schedstat;

}  // namespace

int64_t thread_runqueue_wait_ns() {
    if (t_schedstat.fd == -2) t_schedstat.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (t_schedstat.fd < 0) return -1;
    // "on-CPU ns  run-queue-wait ns  timeslices"
    char text[96];
    const ssize_t n = pread(t_schedstat.fd, text, sizeof text - 1, 0);
    if (n <= 0) return -1;
    text[n] = '\0';
    char* end = nullptr;
    std::strtoll(text, &end, 10);
    if (end == text) return -1;
    const char* second = end;
    const long long wait_ns = std::strtoll(second, &end, 10);
    if (end == second || wait_ns < 0) return -1;
    return wait_ns;
}

// One /proc/loadavg for the process ("0.50 0.40 0.30 3/150 1234": the 3 is
// runnable now): pread on a shared descriptor is safe from any thread.
int32_t runnable_threads() {
    static const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[128];
    const ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) return -1;
    text[n] = '\0';
    const char* p = text;
    for (int field = 0; field < 3; ++field) {   // past the three load averages
        while (*p != '\0' && *p != ' ') ++p;
        while (*p == ' ') ++p;
    }
    char* end = nullptr;
    const long running = std::strtol(p, &end, 10);
    if (end == p || *end != '/' || running < 0 || running > INT32_MAX) return -1;
    return static_cast<int32_t>(running);
}

// glibc reads /sys for this on every call; CPUs going on or off line is rare.
int32_t online_cpus() {
    static const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && cpus <= INT32_MAX ? static_cast<int32_t>(cpus) : -1;
}

// glibc 2.36 has no sched_attr and the kernel's header clashes with
// <sched.h>, so the layout (SCHED_ATTR_SIZE_VER1, 56 bytes) is spelled here.
namespace {

constexpr uint64_t kResetOnFork = 0x01;   // SCHED_FLAG_RESET_ON_FORK

struct SchedAttr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};

}  // namespace

int64_t thread_id() { return static_cast<int64_t>(syscall(SYS_gettid)); }

namespace {

// Thread ids are system-wide and reused: one that is no longer a thread of
// this process must not reach another process's thread.
bool is_own_thread(int64_t thread) {
    if (thread == 0) return true;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%lld", static_cast<long long>(thread));
    return access(path, F_OK) == 0;
}

}  // namespace

int sched_get(int64_t thread, SchedSettings* out) {
#if defined(SYS_sched_getattr)
    if (!is_own_thread(thread)) return ESRCH;
    SchedAttr attr{};
    if (syscall(SYS_sched_getattr, static_cast<pid_t>(thread), &attr, static_cast<unsigned>(sizeof attr), 0u) != 0) return errno;
    out->os_policy = static_cast<int32_t>(attr.sched_policy);
    out->fifo = attr.sched_policy == SCHED_FIFO;
    out->priority = static_cast<int32_t>(attr.sched_priority);
    out->nice = attr.sched_nice;
    out->slice_ns = static_cast<int64_t>(attr.sched_runtime);
    out->reset_on_fork = (attr.sched_flags & kResetOnFork) != 0;
    return 0;
#else
    (void)thread;
    (void)out;
    return ENOSYS;
#endif
}

int sched_set(int64_t thread, const SchedSettings& settings) {
#if defined(SYS_sched_setattr)
    if (!is_own_thread(thread)) return ESRCH;
    SchedAttr attr{};
    attr.size = sizeof attr;
    attr.sched_flags = settings.reset_on_fork ? kResetOnFork : 0;
    if (settings.fifo) {
        attr.sched_policy = SCHED_FIFO;
        attr.sched_priority = static_cast<uint32_t>(settings.priority);
    } else {
        // Leaving FIFO goes back to the normal policy; otherwise keep the one read.
        attr.sched_policy = settings.os_policy == SCHED_FIFO || settings.os_policy == SCHED_RR
                                ? SCHED_OTHER
                                : static_cast<uint32_t>(settings.os_policy);
        attr.sched_nice = settings.nice;
        // Linux >= 6.12 takes it as the fair slice (clamped to [0.1, 100] ms);
        // older kernels ignore sched_runtime for normal threads.
        attr.sched_runtime = static_cast<uint64_t>(settings.slice_ns);
    }
    if (syscall(SYS_sched_setattr, static_cast<pid_t>(thread), &attr, 0u) != 0) return errno;
    return 0;
#else
    (void)thread;
    (void)settings;
    return ENOSYS;
#endif
}

}  // namespace pacer::os
