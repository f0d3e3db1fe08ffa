// os/os.h: the internal contract each OS file implements (linux.cpp,
// win32.cpp, macos.cpp, beside it). CMake compiles exactly one of them; everything
// portable lives elsewhere and calls only these.
#pragma once

#include <cstdint>

namespace pacer::os {

// The most timer slack anything here asks of Linux (Config, OsSleeper,
// ThreadTiming): past it a wait is a guess, and a huge one never returns.
inline constexpr int64_t kMaxTimerSlackNs = 100'000'000;
// An EEVDF slice (sched_runtime): the kernel clamps requests to these.
inline constexpr int64_t kMinSliceNs = 100'000;
inline constexpr int64_t kMaxSliceNs = 100'000'000;

int64_t now_ns();          // monotonic clock, nanoseconds
int64_t thread_cpu_ns();   // CPU time of the calling thread; -1 where unknown
void sleep_ns(int64_t duration_ns);   // the system's relative sleep
void cpu_pause();          // the CPU's spin-loop hint (pause / yield)
int64_t scheduler_period_ns();        // the OS's stated scheduler period; 0 where none

// A high-resolution timer, one per OsSleeper. create returns nullptr where
// the OS has none (or refuses it); the sleeper then falls back.
struct HighResTimer;
HighResTimer* timer_create(int64_t scheduler_period_ns);
// Waits until deadline_ns on the timer (absolute, monotonic). Robust to
// signals and spurious wakes: never returns early by design, only late.
void timer_sleep_until(HighResTimer* timer, int64_t deadline_ns);
void timer_destroy(HighResTimer* timer);
const char* timer_describe(const HighResTimer* timer);   // e.g. "clock_nanosleep(TIMER_ABSTIME)"

// The OS's scheduler-period control, held while the caller needs it.
// Windows: timeBeginPeriod/timeEndPeriod (system-wide). Elsewhere: false.
bool timer_period_begin(int64_t period_ns);
void timer_period_end(int64_t period_ns);
// The timer resolution currently in force, or -1 where unknown.
int64_t timer_period_now_ns();

// Per-thread timer slack (Linux prctl). Returns false where unsupported.
bool timer_slack_get(int64_t* slack_ns);
bool timer_slack_set(int64_t slack_ns);
// The same for a thread_id() of this process, from any thread: the calling
// one by prctl, another through /proc/self/task/<id>/timerslack_ns, which
// Linux allows only with CAP_SYS_NICE. False when refused or gone.
bool timer_slack_set_on(int64_t thread, int64_t slack_ns);

// Total time the calling thread has waited runnable for a CPU since it
// started (Linux: /proc/thread-self/schedstat, 2nd field), or -1 where unknown.
int64_t thread_runqueue_wait_ns();

// Threads running or waiting for a CPU right now, system-wide, the caller
// included (Linux: /proc/loadavg, 4th field), or -1 where unknown. And the
// CPUs online, read once (-1 unknown).
int32_t runnable_threads();
int32_t online_cpus();

// The calling thread's scheduling settings (Linux sched_getattr and
// sched_setattr). os_policy is the OS's own value, kept opaque so that a
// restore writes back exactly what was read; fifo says whether it is SCHED_FIFO.
struct SchedSettings {
    int32_t os_policy;
    bool fifo;
    int32_t priority;   // the real-time priority (FIFO)
    int32_t nice;
    int64_t slice_ns;   // the fair scheduler's slice (sched_runtime)
    bool reset_on_fork; // SCHED_FLAG_RESET_ON_FORK, kept through a set
};
// Both return 0 or an errno value; ENOSYS where the OS has no such control.
// thread is a thread_id() of this process, 0 for the calling thread; a thread
// that has gone (ESRCH) is never confused with another process's.
// sched_set with fifo true asks for SCHED_FIFO at priority, else os_policy
// (SCHED_OTHER when it was FIFO) with nice and slice_ns.
int sched_get(int64_t thread, SchedSettings* out);
int sched_set(int64_t thread, const SchedSettings& settings);
// The calling thread's id as sched_get/sched_set take it (Linux gettid); 0 elsewhere.
int64_t thread_id();

}  // namespace pacer::os
