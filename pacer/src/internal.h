// internal.h: helpers shared by the portable sources (not installed).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer::detail {

inline constexpr int64_t kMillisecondNs = 1'000'000;

// The settings a timer wait runs with (Config and OsSleeper::Options share them).
inline constexpr int64_t kDefaultWaitTimerSlackNs = 1;          // the least Linux takes
inline constexpr int64_t kDefaultWaitSchedSliceNs = 100'000;    // the shortest EEVDF slice

// resolve() plus what only a live sleeper can tell: the scheduler period
// defaults to the sleeper's stated one (else 1 ms). clock and sleeper stay as
// the caller gave them (null: owned defaults). Throws std::invalid_argument with validate()'s line
// when the resolved config is invalid.
Config resolve_for(const Config& config, Clock& clock, Sleeper& sleeper);

// Default means Timer; every other value stands for itself.
inline Strategy resolve_strategy(Strategy strategy) {
    return strategy == Strategy::Default ? Strategy::Timer : strategy;
}
inline MissPolicy resolve_miss_policy(MissPolicy policy) {
    return policy == MissPolicy::Default ? MissPolicy::Skip : policy;
}

// "EPERM", "EINVAL", ... or strerror's text: for refusals in reports.
std::string errno_name(int error);

}  // namespace pacer::detail
