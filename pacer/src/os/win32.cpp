// os/win32.cpp: os.h on Windows (7 and later; the high-resolution timer needs
// Windows 10 1803, and older systems refuse it, which os.h lets us say).
//
// Windows schedules on a periodic tick: 15.625 ms by default, changed for the
// whole system by timeBeginPeriod (since Windows 10 2004 only processes that
// asked get the finer tick). Every Sleep and ordinary timer wakes on a tick.
// A waitable timer made with CREATE_WAITABLE_TIMER_HIGH_RESOLUTION does not:
// that is the high-resolution timer here.
//
// Only Win32 calls wait. std::this_thread::sleep_for and sleep_until are not
// used: with MinGW's posix thread model they truncate to whole milliseconds
// and wake up to about half a millisecond early.
#include "os/win32.h"

#include "os/os.h"

#include <pacer/units.h>

#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601   // Windows 7: CreateWaitableTimerExW
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <mmsystem.h>   // timeBeginPeriod (winmm)

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

// Windows 10 1803; MinGW's headers do not have it yet.
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

namespace pacer::os {

namespace {

constexpr int64_t kNsPerFiletimeTick = 100;   // FILETIME, due times, NtQueryTimerResolution
// Windows' default tick, stated when ntdll cannot be asked.
constexpr int64_t kDefaultTickNs = 15'625'000;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::atomic<int> g_periods_outstanding{0};

// ntdll's NtQueryTimerResolution, undocumented but stable since NT 4; found
// at run time so that nothing links against it. Values in 100 ns units;
// "minimum" resolution is the coarsest tick, "maximum" the finest.
using NtQueryTimerResolutionFn = LONG(NTAPI*)(ULONG* minimum, ULONG* maximum, ULONG* current);

NtQueryTimerResolutionFn nt_query_timer_resolution() {
    static const NtQueryTimerResolutionFn fn = [] {
        HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
        FARPROC proc = ntdll ? GetProcAddress(ntdll, "NtQueryTimerResolution") : nullptr;
        // Through void*: FARPROC's own signature is not the function's.
        return reinterpret_cast<NtQueryTimerResolutionFn>(reinterpret_cast<void*>(proc));
    }();
    return fn;
}

}  // namespace

namespace win32 {

int64_t ticks_to_ns(int64_t ticks, int64_t frequency_hz) {
    const int64_t seconds = ticks / frequency_hz;
    const int64_t remainder = ticks % frequency_hz;   // < frequency_hz, so * kNsPerSecond fits
    return seconds * kNsPerSecond + remainder * kNsPerSecond / frequency_hz;
}

int64_t qpc_frequency_hz() {
    // Fixed at boot (documented), so read once.
    static const int64_t frequency_hz = [] {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);   // cannot fail on Windows XP and later
        return static_cast<int64_t>(f.QuadPart);
    }();
    return frequency_hz;
}

uint32_t timer_period_ms(int64_t period_ns) {
    const int64_t ms = ceil_div(std::max<int64_t>(period_ns, 1), kNsPerMs);
    return static_cast<uint32_t>(std::min<int64_t>(ms, UINT32_MAX));
}

int timer_period_outstanding() { return g_periods_outstanding.load(); }

bool query_timer_resolution(TimerResolution* out) {
    const NtQueryTimerResolutionFn query = nt_query_timer_resolution();
    if (query == nullptr) return false;
    ULONG coarsest = 0, finest = 0, current = 0;
    if (query(&coarsest, &finest, &current) < 0 || current == 0) return false;   // NTSTATUS error
    out->coarsest_ns = static_cast<int64_t>(coarsest) * kNsPerFiletimeTick;
    out->finest_ns = static_cast<int64_t>(finest) * kNsPerFiletimeTick;
    out->current_ns = static_cast<int64_t>(current) * kNsPerFiletimeTick;
    return true;
}

}  // namespace win32

int64_t now_ns() {
    LARGE_INTEGER ticks;
    QueryPerformanceCounter(&ticks);
    return win32::ticks_to_ns(ticks.QuadPart, win32::qpc_frequency_hz());
}

int64_t thread_cpu_ns() {
    // User plus kernel time. Windows charges it per tick, so it moves in
    // steps of the scheduler period: right over many frames, coarse for one.
    FILETIME creation, exit, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &creation, &exit, &kernel, &user)) return -1;
    const auto to_ticks = [](const FILETIME& t) {
        return static_cast<int64_t>((static_cast<uint64_t>(t.dwHighDateTime) << 32) | t.dwLowDateTime);
    };
    return (to_ticks(kernel) + to_ticks(user)) * kNsPerFiletimeTick;
}

void sleep_ns(int64_t duration_ns) {
    if (duration_ns <= 0) return;
    // Sleep takes whole milliseconds and, when asked for less than a tick, may
    // wake before the time is up; so round up and sleep again until it is.
    const int64_t deadline_ns = now_ns() + duration_ns;
    for (int64_t left_ns = duration_ns; left_ns > 0; left_ns = deadline_ns - now_ns()) {
        // INFINITE is 0xFFFFFFFF: stay one below it, the loop does the rest.
        const int64_t ms = std::min<int64_t>(ceil_div(left_ns, kNsPerMs), INFINITE - 1);
        Sleep(static_cast<DWORD>(ms));
    }
}

void cpu_pause() { YieldProcessor(); }   // pause on x86, yield on ARM

int64_t scheduler_period_ns() {
    win32::TimerResolution resolution;
    if (!win32::query_timer_resolution(&resolution)) return kDefaultTickNs;
    // The tick in force is global, but since Windows 10 2004 a process that did
    // not ask for it (timeBeginPeriod) keeps the default tick. So state the
    // current tick only while this process holds a period through pacer, and
    // the default one otherwise: robust_sleep then spins more, never oversleeps.
    return win32::timer_period_outstanding() > 0 ? resolution.current_ns : resolution.coarsest_ns;
}

struct HighResTimer {
    HANDLE handle;
    int64_t scheduler_period_ns;   // what the sleeper assumes; 0 when unknown
};

HighResTimer* timer_create(int64_t scheduler_period_ns) {
    // Windows before 10 1803 refuses the flag (ERROR_INVALID_PARAMETER).
    HANDLE handle = CreateWaitableTimerExW(nullptr, nullptr, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                           SYNCHRONIZE | TIMER_MODIFY_STATE);
    if (handle == nullptr) return nullptr;
    return new HighResTimer{handle, scheduler_period_ns};
}

void timer_sleep_until(HighResTimer* timer, int64_t deadline_ns) {
    // High-resolution waits longer than the scheduler's tick lose their
    // precision, so wait in chunks of 95% of the shorter of the sleeper's
    // period and the tick in force now, each re-aimed from the clock.
    int64_t tick_ns = timer->scheduler_period_ns > 0 ? timer->scheduler_period_ns : kDefaultTickNs;
    win32::TimerResolution resolution;
    if (win32::query_timer_resolution(&resolution)) tick_ns = std::min(tick_ns, resolution.current_ns);
    const int64_t chunk_max_ns = std::max<int64_t>(tick_ns / 100 * 95, kNsPerFiletimeTick);

    // The loop ends only once the clock says the deadline has passed: never early.
    for (int64_t left_ns = deadline_ns - now_ns(); left_ns > 0; left_ns = deadline_ns - now_ns()) {
        const int64_t chunk_ns = std::min(left_ns, chunk_max_ns);
        LARGE_INTEGER due;
        due.QuadPart = -ceil_div(chunk_ns, kNsPerFiletimeTick);   // negative: relative, 100 ns units
        if (SetWaitableTimer(timer->handle, &due, 0, nullptr, nullptr, FALSE) &&
            WaitForSingleObject(timer->handle, INFINITE) == WAIT_OBJECT_0)
            continue;
        // The timer failed (it should not): an ordinary sleep is late but safe.
        sleep_ns(chunk_ns);
    }
}

void timer_destroy(HighResTimer* timer) {
    if (timer == nullptr) return;
    CloseHandle(timer->handle);
    delete timer;
}

const char* timer_describe(const HighResTimer* /*timer*/) {
    return "CreateWaitableTimerExW(HIGH_RESOLUTION), sub-tick chunks";
}

bool timer_period_begin(int64_t period_ns) {
    if (period_ns <= 0) return false;
    if (timeBeginPeriod(win32::timer_period_ms(period_ns)) != TIMERR_NOERROR) return false;
    g_periods_outstanding.fetch_add(1);
    return true;
}

void timer_period_end(int64_t period_ns) {
    // The same rounding as the begin, so the pair names the same milliseconds.
    timeEndPeriod(win32::timer_period_ms(period_ns));
    g_periods_outstanding.fetch_sub(1);
}

int64_t timer_period_now_ns() {
    win32::TimerResolution resolution;
    return win32::query_timer_resolution(&resolution) ? resolution.current_ns : -1;
}

// Timer slack is a Linux notion.
bool timer_slack_get(int64_t* /*slack_ns*/) { return false; }
bool timer_slack_set(int64_t /*slack_ns*/) { return false; }
bool timer_slack_set_on(int64_t /*thread*/, int64_t /*slack_ns*/) { return false; }

// Run-queue wait, the runnable count and sched_setattr's settings are Linux
// notions too.
int64_t thread_runqueue_wait_ns() { return -1; }
int32_t runnable_threads() { return -1; }
int32_t online_cpus() {
    const DWORD cpus = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return cpus > 0 && cpus <= INT32_MAX ? static_cast<int32_t>(cpus) : -1;
}
int sched_get(int64_t /*thread*/, SchedSettings* /*out*/) { return ENOSYS; }
int sched_set(int64_t /*thread*/, const SchedSettings& /*settings*/) { return ENOSYS; }
int64_t thread_id() { return 0; }

}  // namespace pacer::os
