// plain_waits.h: the seed articles' OS waits, as their readers write them:
// no timer slack or scheduler slice of ours, nothing held. One file per OS
// (plain_waits_linux.cpp, plain_waits_other.cpp), chosen by CMake.
#pragma once

#include <cstdint>

namespace bench {

// One absolute wait on the monotonic clock (pacer::OsClock's time base) to
// deadline_ns, retried on interruption: the Linux nanosleep-versus-busy-wait
// article's clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME). Returns false,
// without waiting, where the OS has no such call.
bool plain_sleep_until_ns(int64_t deadline_ns);
// Whether plain_sleep_until_ns waits on this OS.
bool plain_sleep_available();

// SDL3's SDL_DelayPrecise, re-implemented from its description and aimed at
// deadline_ns, up to its spin (the caller's): relative 1 ms sleeps while more
// than the longest 1 ms sleep seen so far (*longest_ns, which SDL starts at
// the request itself, 1 ms) remains; then one sleep of what remains less that
// sleep's overshoot; then 1 ms sleeps while more than 1 ms remains.
// sleep_for(ns) is the relative sleep, now_ns() pacer::OsClock's time.
template <typename NowNs, typename SleepFor>
void sdl3_sleeps(int64_t deadline_ns, int64_t* longest_ns, NowNs now_ns, SleepFor sleep_for) {
    constexpr int64_t kOneMsNs = 1'000'000;
    int64_t now = now_ns();
    while (deadline_ns - now > *longest_ns) {
        const int64_t before = now;
        sleep_for(kOneMsNs);
        now = now_ns();
        if (now - before > *longest_ns) *longest_ns = now - before;
    }
    const int64_t overshoot_ns = *longest_ns - kOneMsNs;
    if (deadline_ns - now > overshoot_ns) {
        sleep_for(deadline_ns - now - overshoot_ns);
        now = now_ns();
    }
    while (deadline_ns - now > kOneMsNs) {
        sleep_for(kOneMsNs);
        now = now_ns();
    }
}

}  // namespace bench
