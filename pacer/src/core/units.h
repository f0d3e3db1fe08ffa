// units.h: the library's time units, written once (SDL_NS_PER_MS's idea).
// Every time inside pacer is int64 nanoseconds; these convert to and from
// the units people read.
#pragma once

#include <cstdint>

namespace pacer::detail {

inline constexpr int64_t kNsPerUs = 1'000;
inline constexpr int64_t kNsPerMs = 1'000'000;
inline constexpr int64_t kNsPerSecond = 1'000'000'000;

// A duration in ns as microseconds or milliseconds, for reports.
inline constexpr double us_of(int64_t ns) { return static_cast<double>(ns) / static_cast<double>(kNsPerUs); }
inline constexpr double ms_of(int64_t ns) { return static_cast<double>(ns) / static_cast<double>(kNsPerMs); }

}  // namespace pacer::detail
