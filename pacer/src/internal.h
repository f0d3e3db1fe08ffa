// internal.h: helpers shared by the portable sources (not installed).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>

namespace pacer::detail {

inline constexpr int64_t kMillisecondNs = 1'000'000;

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

}  // namespace pacer::detail
