// read_internal.h: what replay/read.cpp and replay/read_capframex.cpp share.
#pragma once

#include "replay.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pacer_replay::detail {

// A recorded time in ms as ns, clamped to [0, 1e7 ms].
int64_t ns_of(double ms);

// The display's refresh from the displayed frames' intervals, ms (0 when
// fewer than 8 are usable).
double fit_refresh_hz(std::vector<double> display_ms);

std::string lower(std::string text);

// A CapFrameX JSON capture (the file starts with '{'); read_recording's contract.
std::string read_capframex(const std::string& path, const Selection& selection, Recording* out);

}  // namespace pacer_replay::detail
