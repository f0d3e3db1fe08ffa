// display_lead.cpp: display_lock's learned lead (display_lead.h).
#include "display_lead.h"

#include <algorithm>
#include <cmath>

namespace pacer::detail {

namespace {

constexpr int64_t kLatchStepNs = 100'000;   // a miss puts the latch this far past its slack

}  // namespace

void DisplayLead::start(int64_t step_ns) {
    step_ns_ = std::max<int64_t>(step_ns, 0);
    work_.clear();
    latch_ns_ = 0;
    lead_ns_ = step_ns_ / 2;
}

void DisplayLead::add_work(int64_t work_ns) {
    if (work_ns >= 0) work_.push(work_ns);
}

int64_t DisplayLead::work_quantile_ns() const { return work_.quantile(kWorkQuantile); }

void DisplayLead::judge(bool landed, int64_t slack_ns, int64_t work_ns) {
    ++judged_;
    if (!landed) ++missed_;
    if (slack_ns != kUnknown) {
        if (!landed && slack_ns >= 0) latch_ns_ = std::max(latch_ns_, slack_ns + kLatchStepNs);
        // Landed with less room than the estimate: the latch is no longer than that.
        if (landed && slack_ns >= 0 && slack_ns < latch_ns_) latch_ns_ = slack_ns;
    }
    if (landed) {
        const int64_t shrink = std::llround(kShrinkShare * static_cast<double>(step_ns_));
        bound(std::max(required_ns(), lead_ns_ - shrink));
        return;
    }
    // What this frame would have needed, and what the recent frames need.
    const int64_t needed = work_ns != kUnknown ? work_ns + latch_ns_ + kPadNs : 0;
    bound(std::max({lead_ns_, needed, required_ns()}));
}

void DisplayLead::bound(int64_t wanted_ns) { lead_ns_ = std::clamp<int64_t>(wanted_ns, 0, step_ns_); }

}  // namespace pacer::detail
