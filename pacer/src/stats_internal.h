// stats_internal.h: rules shared by the statistics and the metrics (not installed).
#pragma once

#include <pacer/stats.h>

#include <vector>

namespace pacer::detail {

// Frame 0 of a pacer has no previous wake, hence no interval. After a
// reset_stats() the first frame kept has an index above 0 and does have one.
inline bool has_interval(const Frame& frame) { return frame.index != 0; }

// percentiles() in the sample's own unit (ms for the metrics, % in the bench).
struct Spread {
    double mean, sd, p50, p95, p99, max;
};
Spread spread(std::vector<double> sample);

}  // namespace pacer::detail
