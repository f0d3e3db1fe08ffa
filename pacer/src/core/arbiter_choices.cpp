// arbiter_choices.cpp: kChoices' rows carried out (rules/table.h). choose()
// reads the facts, picks the row, and the row's function sets what paces and
// says why; every Decision is then made by record() (arbiter.cpp).
#include "core/arbiter.h"

#include "rules/common.h"
#include "base/saturate.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pacer::detail {

using namespace rules;

// Afresh: after construction, a strategy, rate or refresh change, or when
// auto's retry time has come. `why` prefixes the reason (e.g. the refresh
// change that caused it).
void Arbiter::choose(const std::string& why, int64_t index) {
    const Strategy before = in_force();
    vsync_shows_most_ = false;
    shown_hz_ = 0;
    display_locked_ = false;
    display_refreshes_ = 0;
    display_.wait_anew();
    set_waiter(cfg_.strategy);
    next_probe_ns_ = -1;
    limit_hz_ = 0;
    if (vsync_ceiling_) {   // VRR's ceiling: off again, unless what follows sets its own
        vsync_ceiling_ = false;
        if (vsync_interval_ == 0) cfg_.host->set_swap_interval(0);
    }
    const int64_t now = waiter_.clock().now_ns();
    const double background_hz = background_ceiling_hz(cfg_, window_.state());
    const DisplayView display = display_view();
    ChoiceFacts facts;
    facts.asked = cfg_.strategy;
    facts.background = background_hz > 0;
    facts.vrr = vrr_.plan().on;
    facts.lockable = display_.lockable(display, now);
    facts.barred_for_vsync = display_.barred_for_vsync(now) && present_.feedback_seen();
    facts.can_lock = DisplayJudge::can_lock(display);
    const Choice choice = pick(facts);
    ceiling_ = choice == Choice::Background ? Ceiling::Background
               : choice == Choice::VrrCap   ? Ceiling::Vrr
                                            : Ceiling::None;
    std::string reason;
    switch (choice) {
        case Choice::Background: reason = choose_background(background_hz); break;
        case Choice::VrrCap: reason = choose_vrr(); break;
        case Choice::VsyncAsked: reason = choose_vsync(index); break;
        case Choice::DisplayLock:
            reason = choose_display_lock(cfg_.strategy == Strategy::Auto ? "auto" : "display_lock");
            break;
        case Choice::VsyncShowsMost: reason = choose_vsync_shows_most(index); break;
        case Choice::TimerBarred:   // barred: the display showed display_lock's frames early
            set_interval(0);
            reason = "auto -> timer: " + display_.bar_why() + "; retry in " + seconds(display_.bar_left_ns(now));
            break;
        case Choice::ProbeVsync: reason = choose_probe(index); break;
        case Choice::DisplayLockWaits: reason = choose_display_lock("display_lock"); break;
        case Choice::Asked:
            set_interval(0);
            reason = std::string(strategy_name(cfg_.strategy)) + ": asked for";
            break;
    }
    if (vsync_interval_ == 0 && !display_locked_) reason += fell_back_note();
    if (vsync_interval_ == 0) vsync_.stop_probe();
    if (!display_locked_) display_.unlocked();
    shown_.stint(before, in_force(), index, std::max(period_ns_of(cfg_.target_hz), refresh_unit_ns()));
    record(why.empty() ? reason : why + ": " + reason);
    // Where kChoices said, or the timer where what the row wants was refused.
    assert(state() == state_of(choice) || state() == PaceState::Timer);
}

std::string Arbiter::choose_vsync(int64_t index) {
    if (cfg_.host == nullptr) {
        set_interval(0);
        return std::string("vsync -> ") + strategy_name(waiter_strategy_) + ": no host to set the swap interval";
    }
    const long n = refresh_hz_ > 0 ? std::lround(refresh_hz_ / cfg_.target_hz) : 0;
    const int wanted = n >= 1 ? static_cast<int>(n) : 1;   // every refresh when unknown
    if (!set_interval(wanted)) return "vsync -> timer: swap interval " + std::to_string(wanted) + " refused";
    vsync_.start(false, index);
    return "vsync: swap interval " + std::to_string(wanted) +
           (refresh_hz_ > 0 ? " at " + hz_text(refresh_hz_) : std::string(" (refresh rate unknown)"));
}

// Auto's probe of vsync, where refresh / n fits the target.
std::string Arbiter::choose_probe(int64_t index) {
    // The display's own clock, once locked, outranks what the host states.
    const ClockFit& display = present_.display();
    shown_hz_ = display.locked() ? hz_of(display.period_ns()) : 0;
    const double hz = shown_hz_ > 0 ? shown_hz_ : refresh_hz_;
    const std::string says = display_says(shown_hz_, refresh_hz_);
    const bool lies = !says.empty();
    decided_hz_ = hz;
    if (cfg_.host == nullptr) {
        set_interval(0);
        return "auto -> timer: no host to set the swap interval";
    }
    if (!(hz > 0)) {
        set_interval(0);
        return "auto -> timer: refresh rate unknown";
    }
    const long n = std::lround(hz / cfg_.target_hz);
    const bool fits =
        n >= 1 && std::fabs(hz / static_cast<double>(n) - cfg_.target_hz) <= kRateTolerance * cfg_.target_hz;
    if (!fits) {
        set_interval(0);
        return "auto -> timer: " + (lies ? says : hz_text(cfg_.target_hz) + " is not " + hz_text(hz) + " / n");
    }
    if (!set_interval(static_cast<int>(n))) return "auto -> timer: swap interval " + std::to_string(n) + " refused";
    vsync_.start(true, index);
    return "auto -> vsync (probing): " + (lies ? says + ", " : std::string()) + hz_rounded(hz) + " / " +
           std::to_string(n) + ", measuring presents";
}

// display_lock: swap interval 0, one frame every n fitted refreshes (the
// fewest that do not exceed the target), each deadline a lead before its
// refresh. `head` names who chose it.
std::string Arbiter::choose_display_lock(const char* head) {
    const std::string to_timer = std::string(head) + " -> timer: ";
    if (cfg_.host == nullptr) return to_timer + "no host to report shown frames";
    // Swaps must not block, or they would pace instead of the grid; said
    // once, on entering, whatever the host was left at.
    if (vsync_interval_ != 0 || decision_.in_force != Strategy::DisplayLock) {
        vsync_interval_ = 0;
        cfg_.host->set_swap_interval(0);
    }
    if (cfg_.display.lead_ns == kLeadOff) return to_timer + "display.lead_ns is off";
    if (!present_.feedback_seen()) return to_timer + "waiting for the host to report shown frames";
    if (!present_.display().locked()) return to_timer + "waiting for the display's clock to lock";
    shown_hz_ = hz_of(present_.display().period_ns());
    decided_hz_ = shown_hz_;
    display_refreshes_ = refreshes_per_frame(shown_hz_, cfg_.target_hz);
    if (!display_locked_) present_.clear_early();
    display_locked_ = true;
    const std::string says = display_says(shown_hz_, refresh_hz_);
    const std::string lead = cfg_.display.lead_ns >= 0 ? "a lead of " + ms(static_cast<double>(cfg_.display.lead_ns))
                                                        : std::string("a lead learned from shown frames");
    // The learned lead past a frame step: the work's tail and the latch take
    // longer than a step at the hitch budget, so each frame aims a refresh
    // further than the one after its wake (a frame more of latency).
    const std::string later = display_.aims_later() ? "; the work's tail and the latch take more than a frame step: "
                                                      "each frame aims a refresh later"
                                                    : std::string();
    const char* clock = cfg_.host->present_clock_name();
    return std::string(head) + " -> display_lock: " + (says.empty() ? std::string() : says + "; ") +
           (clock != nullptr ? std::string(clock) + ", " : std::string()) + hz_rounded(shown_hz_) + " / " +
           std::to_string(display_refreshes_) + ", each deadline " + lead + " before its refresh" + later;
}

// Auto where display_lock is barred because vsync showed more: vsync at
// every refresh, kept through the display's wander while its swaps block.
std::string Arbiter::choose_vsync_shows_most(int64_t index) {
    const std::string retry = "; display_lock again in " + seconds(display_.bar_left_ns(waiter_.clock().now_ns()));
    if (!set_interval(1)) return "auto -> timer: " + display_.bar_why() + ", but swap interval 1 refused" + retry;
    // The period in force is the display's, not the one it states (weston
    // says 60 Hz and repaints every 25 ms): the watch's bounds, the frames'
    // period and the statistics judge against what it shows.
    if (present_.display().locked()) shown_hz_ = hz_of(present_.display().period_ns());
    vsync_.start(false, index);
    vsync_shows_most_ = true;
    return "auto -> vsync: " + display_.bar_why() + retry;
}

// VRR in force: the waiter paces (the timer where a strategy would have
// used the host) at the lower of the target and the cap, swap interval 1
// kept as a ceiling where the host takes it (rules/vrr.cpp).
std::string Arbiter::choose_vrr() {
    if (strategy_uses_host(cfg_.strategy)) set_waiter(Strategy::Timer);
    set_interval(0);   // nothing paces by the swap ...
    vsync_ceiling_ = cfg_.host != nullptr && cfg_.host->set_swap_interval(1);   // ... it only bounds
    limit_hz_ = vrr_.plan().cap_hz;
    return vrr_reason(vrr_.plan(), cfg_.strategy, cfg_.host != nullptr, vsync_ceiling_, cfg_.target_hz);
}

// The window is in the background: the timer paces at the ceiling, or at
// the target where that is lower.
std::string Arbiter::choose_background(double ceiling_hz) {
    set_interval(0);
    set_waiter(Strategy::Timer);
    limit_hz_ = ceiling_hz;
    return background_reason(cfg_, window_.state(), ceiling_hz);
}

// " (no high-resolution timer: robust_sleep)" where the timer waits as its
// fallback, else "".
std::string Arbiter::fell_back_note() const {
    if (waiter_strategy_ == Strategy::Timer && waiter_.state().timer_fell_back)
        return " (no high-resolution timer: robust_sleep)";
    return {};
}

}  // namespace pacer::detail
