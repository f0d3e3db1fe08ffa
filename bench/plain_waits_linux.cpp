// plain_waits_linux.cpp: plain_waits.h on Linux.
#include "plain_waits.h"

#include <cerrno>
#include <time.h>

namespace bench {

bool plain_sleep_until_ns(int64_t deadline_ns) {
    timespec at{};
    at.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000);
    at.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
    return true;
}

bool plain_sleep_available() { return true; }

}  // namespace bench
