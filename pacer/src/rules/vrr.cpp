// vrr.cpp: the rule for a display with variable refresh (vrr.h).
//
// On such a display there is no refresh to lock to: the display shows each
// frame as it comes, up to its maximum rate. A frame that comes faster waits
// for the display like a vsync swap (a queue, a frame of latency), so the
// timer paces, swap interval 0, at a cap just under the maximum; below the
// minimum the driver shows each frame more than once, and an even pace at
// the target keeps those repeats even too. The swap interval stays 1 where
// the host takes it, as a ceiling only: a frame that comes sooner than the
// panel's fastest refresh after the one before (work that was short after
// work that was long, waiting at the frame start) waits for it rather than
// tearing; at the cap's pace none does.
#include "rules/vrr.h"

#include "base/saturate.h"

#include <algorithm>
#include <cmath>

namespace pacer::detail {

using namespace rules;

// max - max^2 / 3600: 59 at 60 Hz, 138.24 at 144, 224 at 240; in frame
// time a near-constant 0.27-0.3 ms under the fastest refresh, what a
// driver's own timing may be off by. The formula turns back at 1800 Hz,
// where it is max / 2; beyond it stays there.
double vrr_cap_hz(double max_hz) {
    if (!(max_hz > 0)) return 0;
    return std::max(max_hz - max_hz * max_hz / 3600, max_hz / 2);
}

// Whether VRR is on, and its range, by this table (first row that matches):
//   display.vrr | range in the config | Host says VRR | VRR    | range from
//   off         | -                   | -             | off    | -
//   auto        | -                   | no            | off    | -
//   on, auto    | given               | -             | on     | the config
//   on, auto    | none                | yes           | on     | the Host (its max unknown: the stated refresh)
//   on          | none                | no            | on     | up to the stated refresh (unknown: no cap)
VrrPlan plan_vrr(const Config::Display& display, const VrrRange* host_range, double stated_hz) {
    VrrPlan plan;
    if (display.vrr == Vrr::Off || (display.vrr == Vrr::Auto && host_range == nullptr)) return plan;
    plan.on = true;
    if (display.vrr_max_hz > 0) {
        plan.min_hz = display.vrr_min_hz;
        plan.max_hz = display.vrr_max_hz;
        plan.source = "Config::display";
    } else if (host_range != nullptr) {
        plan.min_hz = std::isfinite(host_range->min_hz) && host_range->min_hz > 0 ? host_range->min_hz : 0;
        plan.max_hz = std::isfinite(host_range->max_hz) && host_range->max_hz > plan.min_hz ? host_range->max_hz : 0;
        plan.source = host_range->source != nullptr ? host_range->source : "host";
        if (plan.max_hz == 0 && stated_hz > plan.min_hz) {
            plan.max_hz = stated_hz;
            plan.source += ", up to the stated refresh";
        }
    } else if (stated_hz > 0) {
        plan.max_hz = stated_hz;
        plan.source = "up to the stated refresh";
    }
    plan.cap_hz = vrr_cap_hz(plan.max_hz);
    return plan;
}

std::string vrr_reason(const VrrPlan& plan, Strategy asked, bool has_host, bool ceiling, double target_hz) {
    std::string head = strategy_name(asked);
    if (strategy_uses_host(asked)) head += " -> timer";
    const auto tenth = [](double hz) { return number_text(std::round(hz * 10) / 10); };
    std::string range =
        plan.min_hz > 0 ? tenth(plan.min_hz) + "-" + tenth(plan.max_hz) + " Hz" : "up to " + hz_rounded(plan.max_hz);
    if (plan.max_hz == 0) range = plan.min_hz > 0 ? "from " + hz_rounded(plan.min_hz) : std::string("range unknown");
    const char* ceiling_words = ceiling    ? ", vsync kept as a ceiling"
                                : !has_host ? ", no host to keep vsync as a ceiling"
                                            : ", vsync refused as a ceiling (a frame faster than the panel tears)";
    std::string reason = head + ": VRR " + range + " (" + plan.source + ")" + ceiling_words;
    if (plan.max_hz == 0) return reason + ", its maximum unknown: paced at the target " + hz_text(target_hz);
    const std::string cap = "the cap " + hz_rounded(plan.cap_hz);
    if (target_hz >= plan.cap_hz) return reason + ", paced at " + cap;
    reason += ", paced at the target " + hz_text(target_hz) + ", under " + cap;
    if (target_hz < plan.min_hz) reason += "; below the range, the driver shows each frame more than once";
    return reason;
}

MaybeVerdict VrrWatch::update(const VrrPlan& now, int64_t t) {
    next_poll_ns_ = sat_add(t, kRefreshPollNs);
    if (now == plan_) return std::nullopt;
    const bool was_on = plan_.on;
    plan_ = now;
    return Verdict{Input::VrrChanged, now.on == was_on ? "VRR range changed" : now.on ? "VRR on" : "VRR off"};
}

}  // namespace pacer::detail
