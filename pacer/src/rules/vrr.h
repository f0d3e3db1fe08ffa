// vrr.h: the rule for a display with variable refresh (table.h's row
// "vrr"; Config::display.vrr; docs/design.md, "VRR"). Its own state: the
// plan as last read and when to read it again. Internal.
#pragma once

#include "rules/common.h"

#include <pacer/pacer.h>
#include <pacer/status.h>

#include <cstdint>
#include <string>

namespace pacer::detail {

// Variable refresh as the arbiter applies it.
struct VrrPlan {
    bool on = false;
    double min_hz = 0, max_hz = 0;   // the range, 0 unknown
    double cap_hz = 0;               // vrr_cap_hz(max_hz), 0 where the maximum is unknown
    std::string source;              // where the range came from, for the reason
    bool operator==(const VrrPlan& o) const {
        return on == o.on && min_hz == o.min_hz && max_hz == o.max_hz && source == o.source;
    }
};
double vrr_cap_hz(double max_hz);   // max - max^2 / 3600 (0 for an unknown maximum)
// From the config, the Host's range (null: it says none) and the stated refresh.
VrrPlan plan_vrr(const Config::Display& display, const VrrRange* host_range, double stated_hz);
// The reason where VRR is in force: `asked` the strategy asked for,
// `ceiling` whether the host took swap interval 1 as a ceiling.
std::string vrr_reason(const VrrPlan& plan, Strategy asked, bool has_host, bool ceiling, double target_hz);

class VrrWatch {
public:
    const VrrPlan& plan() const { return plan_; }
    // Read afresh (made, reconfigured); read again at `next_poll_ns`.
    void set(const VrrPlan& plan, int64_t next_poll_ns) {
        plan_ = plan;
        next_poll_ns_ = next_poll_ns;
    }
    bool due(int64_t t) const { return t >= next_poll_ns_; }
    // The plan read at t (once a second): VRR turned on or off, or its range moved.
    MaybeVerdict update(const VrrPlan& now, int64_t t);

private:
    VrrPlan plan_;
    int64_t next_poll_ns_ = 0;
};

}  // namespace pacer::detail
