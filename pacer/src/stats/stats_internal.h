// stats_internal.h: rules shared by the statistics and the metrics (not installed).
#pragma once

#include <pacer/metrics.h>

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

// Summary's spin_pct, cpu_pct and fps over wall_ns from the first wake to the
// last (frames wakes in all); cpu_pct -1 when the wait CPU is unknown.
void set_rates(Summary& s, int64_t wall_ns, int64_t frames, int64_t spun_ns, int64_t cpu_ns, bool cpu_known);

}  // namespace pacer::detail
