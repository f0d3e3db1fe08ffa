// os/win32.h: the Windows-only pieces of os/win32.cpp that its unit tests
// check (tests/unit/win32). Not part of os.h: no other OS has them.
#pragma once

#include <cstdint>

namespace pacer::os::win32 {

// QueryPerformanceCounter ticks to nanoseconds, exact to the nanosecond:
// whole seconds and the remainder are converted apart, so nothing overflows
// for 292 years of ticks at any frequency below 9.2 GHz (Windows 10 and later
// report 10 MHz; older systems the TSC rate or 3.579545 MHz).
int64_t ticks_to_ns(int64_t ticks, int64_t frequency_hz);
int64_t qpc_frequency_hz();   // QueryPerformanceFrequency, read once

// The whole milliseconds timeBeginPeriod gets for period_ns: rounded up (a
// finer tick than asked is harmless, a coarser one would break robust_sleep's
// "at most one period late"), at least 1.
uint32_t timer_period_ms(int64_t period_ns);

// timer_period_begin calls that succeeded minus timer_period_end calls, in
// this process. Windows keeps its own count but cannot be asked, and Wine
// ignores timeBeginPeriod, so this is how tests see that every begin found
// its end (OsSleeper's fallback, ThreadTiming). 0 when balanced.
int timer_period_outstanding();

// NtQueryTimerResolution (ntdll, looked up at run time), in nanoseconds.
// coarsest is the default tick (15.625 ms on most PCs), finest the best
// timeBeginPeriod can reach, current the one in force system-wide.
struct TimerResolution {
    int64_t coarsest_ns;
    int64_t finest_ns;
    int64_t current_ns;
};
// False where ntdll lacks the call or it fails; *out is then left alone.
bool query_timer_resolution(TimerResolution* out);

}  // namespace pacer::os::win32
