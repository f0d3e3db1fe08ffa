// internal.h: helpers shared by the portable sources (not installed).
#pragma once

#include "core/units.h"

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer::detail {

// The most timer slack anything here asks of Linux (Config, OsSleeper,
// ThreadTiming): past it a wait is a guess, and a huge one never returns.
inline constexpr int64_t kMaxTimerSlackNs = 100 * kNsPerMs;
// An EEVDF slice (sched_runtime): the kernel clamps requests to these.
inline constexpr int64_t kMinSliceNs = 100'000;
inline constexpr int64_t kMaxSliceNs = 100'000'000;

// The period of a rate, in ns (not rounded). The grid keeps the target's
// (Grid::period_ns); this is for what has no grid, or a rate not the grid's.
inline double period_ns_of(double hz) { return 1e9 / hz; }

// The shortest text that reads back as the same double ("60", "0.99",
// "nan"): values in messages say exactly what was given.
std::string number_text(double value);

// "EPERM", "EINVAL", ... or strerror's text: for refusals in reports.
std::string errno_name(int error);

}  // namespace pacer::detail
