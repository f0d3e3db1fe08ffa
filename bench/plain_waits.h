// plain_waits.h: the OS call of the Linux seed's plain absolute sleep (the
// peer itself is peers.h's), as its readers write it: no timer slack or
// scheduler slice of ours, nothing held. One file per OS
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

}  // namespace bench
