// stats_internal.h: rules shared by the statistics and the metrics (not installed).
#pragma once

#include <pacer/pacer.h>

namespace pacer::detail {

// Frame 0 of a pacer has no previous wake, hence no interval. After a
// reset_stats() the first frame kept has an index above 0 and does have one.
inline bool has_interval(const Frame& frame) { return frame.index != 0; }

}  // namespace pacer::detail
