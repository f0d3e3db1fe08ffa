// internal.h: helpers shared by the portable sources (not installed).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer::detail {

inline constexpr int64_t kMillisecondNs = 1'000'000;
// The most timer slack anything here asks of Linux (Config, OsSleeper,
// ThreadTiming): past it a wait is a guess, and a huge one never returns.
inline constexpr int64_t kMaxTimerSlackNs = 100 * kMillisecondNs;

// The period of a rate, in ns (not rounded). The grid keeps the target's
// (Grid::period_ns); this is for what has no grid, or a rate not the grid's.
inline double period_ns_of(double hz) { return 1e9 / hz; }

// "EPERM", "EINVAL", ... or strerror's text: for refusals in reports.
std::string errno_name(int error);

}  // namespace pacer::detail
