// arbiter.cpp: the strategy arbiter (arbiter.h).
//
// Vsync and auto (the rules are in pacer.h, at Strategy::Auto): the arbiter
// keeps a window of the last 32 present intervals while the swap paces, and
// classifies each against the vsync period n / refresh: fast (under half: the
// swap did not block), slow (over 1.5 times: a refresh was missed) or fine.
// Auto probes before it trusts vsync and leaves it when either kind reaches a
// quarter of the window, or when the window's median is off the period by as
// much as a failed probe's; an explicit vsync stays but says so. Every change
// of what is in force becomes a new Decision (record()); a new reason alone
// updates the one in force.
//
// Where the host reports what the display showed, auto decides on the fitted
// refresh (present_model.h), re-decides when it moves, its probe trusts
// vsync only on shown frames that keep cadence, and it leaves display_lock
// for a while where the display shows its frames before the refresh they
// were timed for. docs/design.md has the rules and bounds.
#include "core/arbiter.h"

#include "core/arbiter_rules.h"
#include "base/saturate.h"

#include <pacer/status.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>

namespace pacer::detail {

using namespace arbiter_rules;

Arbiter::Arbiter(const Config& cfg, Waiter& waiter, PresentModel& present)
    : cfg_(cfg), waiter_(waiter), present_(present), backoff_ns_(kFirstBackoffNs) {
    if (cfg_.host != nullptr) refresh_hz_ = read_refresh_hz();
    next_refresh_poll_ns_ = sat_add(waiter_.clock().now_ns(), kRefreshPollNs);
    next_vrr_poll_ns_ = next_refresh_poll_ns_;
    vrr_ = read_vrr(refresh_hz_);
    window_ = read_window_state();
    take(Input::Start, "", 0);
}

Arbiter::~Arbiter() {
    // Leave the swap interval as we found it (off) rather than at our n.
    if (vsync_interval_ != 0 || vsync_ceiling_) cfg_.host->set_swap_interval(0);
}

// The host's refresh rate, 0 (unknown) for one no display has.
double Arbiter::read_refresh_hz() const {
    const double hz = cfg_.host->refresh_rate_hz();
    return hz >= kMinRefreshHz && hz <= kMaxRefreshHz ? hz : 0.0;
}

double Arbiter::refresh_unit_ns() const {
    if (shown_hz_ > 0) return period_ns_of(shown_hz_);
    return period_ns_of(refresh_hz_ > 0 ? refresh_hz_ : cfg_.target_hz);
}

// ---- choosing what paces -------------------------------------------------

// Asks the host for `wanted` (0: off). Returns whether vsync now paces at it.
bool Arbiter::set_interval(int wanted) {
    if (wanted == vsync_interval_) return wanted != 0;
    if (wanted != 0 && cfg_.host->set_swap_interval(wanted)) {
        vsync_interval_ = wanted;
        return true;
    }
    // Leaving vsync, or the host refused a new interval: make sure the swap
    // no longer blocks, since the waiter now does the pacing.
    if (vsync_interval_ != 0) cfg_.host->set_swap_interval(0);
    vsync_interval_ = 0;
    return false;
}

void Arbiter::start_watch(bool probe, int64_t index) {
    probing_ = probe;
    watched_.clear();
    skip_samples_ = 1;   // the first interval straddles the switch
    health_ = Health::Fine;
    uneven_since_ = -1;
    cadence_.clear();
    vsync_since_index_ = index;   // reports of frames built before now say nothing of vsync
    probe_started_index_ = index;
}

// Re-evaluates from scratch: after construction, a strategy, rate or refresh
// change, or when auto's retry time has come. `why` prefixes the reason (e.g.
// the refresh change that caused it).
void Arbiter::choose(const std::string& why, int64_t index) {
    const Strategy before = in_force();
    vsync_shows_most_ = false;
    shown_hz_ = 0;
    display_locked_ = false;
    display_refreshes_ = 0;
    waiter_.set_strategy(cfg_.strategy);
    waiter_strategy_ = waiter_.state().strategy;
    next_probe_ns_ = -1;
    limit_hz_ = 0;
    if (vsync_ceiling_) {   // VRR's ceiling: off again, unless what follows sets its own
        vsync_ceiling_ = false;
        if (vsync_interval_ == 0) cfg_.host->set_swap_interval(0);
    }
    const int64_t now = waiter_.clock().now_ns();
    const double background_hz = background_ceiling_hz(cfg_, window_);
    ChoiceFacts facts;
    facts.asked = cfg_.strategy;
    facts.background = background_hz > 0;
    facts.vrr = vrr_.on;
    facts.lockable = lockable(now);
    facts.barred_for_vsync = lock_barred_for_vsync_ && now < lock_barred_until_ns_ && present_.feedback_seen();
    facts.can_lock = can_lock();
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
            reason = "auto -> timer: " + lock_barred_why_ + "; retry in " + seconds(sat_sub(lock_barred_until_ns_, now));
            break;
        case Choice::ProbeVsync: reason = choose_auto(index); break;
        case Choice::DisplayLockWaits: reason = choose_display_lock("display_lock"); break;
        case Choice::Asked:
            set_interval(0);
            reason = std::string(strategy_name(cfg_.strategy)) + ": asked for";
            break;
    }
    if (vsync_interval_ == 0 && !display_locked_) reason += fell_back_note();
    if (vsync_interval_ == 0) probing_ = false;
    if (!display_locked_) aims_later_ = false;   // a new lock starts from a lead within the step
    shown_stint(before, in_force(), index);
    record(why.empty() ? reason : why + ": " + reason);
    // Where kChoices said, or the timer where what the row wants was refused.
    assert(state() == state_of(choice) || state() == PaceState::Timer);
}

PaceState Arbiter::state() const {
    if (display_locked_) return PaceState::DisplayLock;
    if (vsync_interval_ != 0) return probing_ ? PaceState::ProbingVsync : PaceState::Vsync;
    return PaceState::Timer;
}

// Every move goes through here: the row of auto_table.h for `input` in
// the state now, its action, and (in debug builds) a check that the move
// is the table's. An input the table does not take there is dropped.
void Arbiter::take(Input input, const std::string& text, int64_t index) {
    const PaceState from = state();
    const Transition* row = find_transition(from, ceiling_, input);
    assert(row != nullptr && "an input auto_table.h does not take in this state");
    if (row == nullptr) return;
    assert(text.rfind(row->words, 0) == 0 && "a reason that does not begin with its row's words");
    switch (row->action) {
        case Action::Choose: choose(text, index); break;
        case Action::Leave: leave_vsync(text); break;
        case Action::Confirm:
            probing_ = false;
            watched_.clear();   // watching starts afresh on confirmed vsync
            record(text);
            break;
        case Action::Say: record(text); break;
    }
    assert(row->action == Action::Choose || state() == next_state(*row, from, ChoiceFacts{}));
}

std::string Arbiter::choose_vsync(int64_t index) {
    if (cfg_.host == nullptr) {
        set_interval(0);
        return std::string("vsync -> ") + strategy_name(waiter_strategy_) + ": no host to set the swap interval";
    }
    const long n = refresh_hz_ > 0 ? std::lround(refresh_hz_ / cfg_.target_hz) : 0;
    const int wanted = n >= 1 ? static_cast<int>(n) : 1;   // every refresh when unknown
    if (!set_interval(wanted)) return "vsync -> timer: swap interval " + std::to_string(wanted) + " refused";
    start_watch(false, index);
    return "vsync: swap interval " + std::to_string(wanted) +
           (refresh_hz_ > 0 ? " at " + hz_text(refresh_hz_) : std::string(" (refresh rate unknown)"));
}

std::string Arbiter::choose_auto(int64_t index) {
    // The display's own clock, once locked, outranks what the host states.
    const ClockFit& display = present_.display();
    shown_hz_ = display.locked() ? hz_of(display.period_ns()) : 0;
    const double hz = shown_hz_ > 0 ? shown_hz_ : refresh_hz_;
    const std::string says = display_says();
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
    start_watch(true, index);
    return "auto -> vsync (probing): " + (lies ? says + ", " : std::string()) + hz_rounded(hz) + " / " +
           std::to_string(n) + ", measuring presents";
}

// " (no high-resolution timer: robust_sleep)" where the timer waits as its
// fallback, else "".
std::string Arbiter::fell_back_note() const {
    if (waiter_strategy_ == Strategy::Timer && waiter_.state().timer_fell_back)
        return " (no high-resolution timer: robust_sleep)";
    return {};
}

// The reason and the probe always say what is so now; a new Decision (seq
// + 1) only where what is in force changed: the strategy asked or in force,
// the swap interval, display_lock's refreshes per frame, or the refresh the
// choice rests on by more than its own error (refresh_moved). A reason
// whose numbers moved (a retry's countdown, a rate re-measured within its
// error, a vsync probe confirmed) is the same decision: an engine that
// logs decisions, or shows them, is not told it again.
void Arbiter::record(const std::string& reason) {
    const Strategy strategy = in_force();
    const double hz = decision_hz();
    // display_lock on a display slower than the target, before and after:
    // a frame a refresh either way, the refresh followed in place by the fit
    // (weston composing in software wanders from 40 to 30 Hz).
    // So is vsync kept at every refresh because it showed the most there.
    const double slower_hz = (1 - kRateTolerance) * cfg_.target_hz;
    const bool one_a_refresh = (display_locked_ && decision_.in_force == Strategy::DisplayLock &&
                                recorded_refreshes_ == 1 && display_refreshes_ == 1) ||
                               (vsync_shows_most_ && decision_.swap_interval == 1 && vsync_interval_ == 1);
    const bool followed = one_a_refresh && recorded_hz_ < slower_hz && hz < slower_hz;
    const bool same = decision_.seq > 0 && decision_.requested == cfg_.strategy && decision_.in_force == strategy &&
                      decision_.swap_interval == vsync_interval_ && recorded_refreshes_ == display_refreshes_ &&
                      recorded_limit_hz_ == limit_hz_ && (followed || !refresh_moved(recorded_hz_, hz));
    decision_.probing = probing_;
    decision_.reason = reason;
    decision_.pace_hz = pace_hz();
    decision_.window = window_;
    decision_.vrr = vrr_.on;
    decision_.vrr_min_hz = vrr_.min_hz;
    decision_.vrr_max_hz = vrr_.max_hz;
    decision_.vrr_cap_hz = vrr_.cap_hz;
    if (same) return;
    decision_.seq = next_decision_seq(decision_.seq);
    decision_.at_ns = waiter_.clock().now_ns();
    decision_.requested = cfg_.strategy;
    decision_.in_force = strategy;
    decision_.swap_interval = vsync_interval_;
    recorded_refreshes_ = display_refreshes_;
    recorded_hz_ = hz;
    recorded_limit_hz_ = limit_hz_;
}

// The refresh a choice rests on: the display's fitted one where it used it,
// else the stated one (0 unknown).
double Arbiter::decision_hz() const { return shown_hz_ > 0 ? shown_hz_ : refresh_hz_; }

// From `was` to `now` (Hz, 0 unknown), by more than the rate tolerance and
// the fit's own error: the rms jitter of a report over the period, which is
// how far one report can move a young fit (weston's composing 1280x720 in
// software: 0.2-2.3 ms of 25-33 ms; a display's own clock: none).
bool Arbiter::refresh_moved(double was, double now) const {
    if (was == now) return false;
    if (!(was > 0) || !(now > 0)) return true;
    double error = kRateTolerance;
    const ClockFit& display = present_.display();
    if (shown_hz_ > 0 && display.period_ns() > 0) error = std::max(error, display.clock().residual_ns / display.period_ns());
    return std::fabs(now - was) > error * was;
}

// Auto gives up on vsync for now: timer, and a retry after the backoff.
void Arbiter::leave_vsync(const std::string& why) {
    set_interval(0);
    probing_ = false;
    vsync_shows_most_ = false;
    next_probe_ns_ = sat_add(waiter_.clock().now_ns(), backoff_ns_);
    const std::string reason = "auto -> timer: " + why + "; retry in " + seconds(backoff_ns_) + fell_back_note();
    backoff_ns_ = std::min(backoff_ns_ * 2, kMaxBackoffNs);
    record(reason);
}

// Reads the refresh rate; when it changed, starts over from it.
bool Arbiter::refresh_changed(int64_t index) {
    next_refresh_poll_ns_ = sat_add(waiter_.clock().now_ns(), kRefreshPollNs);
    const double now_hz = read_refresh_hz();
    if (now_hz == refresh_hz_) return false;
    const std::string why = "refresh " + hz_text(refresh_hz_) + " -> " + hz_text(now_hz);
    refresh_hz_ = now_hz;
    // The display changed: its old fit no longer holds (a new one locks from
    // the reports that follow).
    present_.reset_display();
    backoff_ns_ = kFirstBackoffNs;
    lock_barred_until_ns_ = -1;
    lock_barred_for_vsync_ = false;
    vsync_shown_hz_ = 0;   // shown at the old rate
    take(Input::RefreshChanged, why, index);
    return true;
}

void Arbiter::before_wait(int64_t t, int64_t index) {
    if (check_window(index) || check_vrr(t, index)) return;
    // In the background or on VRR the timer paces on its own: the display's
    // account, the refresh and the retries wait until it is over.
    if (ceiling_ != Ceiling::None) return;
    check_display(index);
    if (cfg_.host == nullptr || !strategy_uses_host(cfg_.strategy)) return;
    if (t >= next_refresh_poll_ns_ && refresh_changed(index)) return;
    if (next_probe_ns_ >= 0 && t >= next_probe_ns_) take(Input::Retry, "retry", index);
}

// ---- live changes ------------------------------------------------------------

void Arbiter::host_changing(Host* old_host) {
    // The old host's swap is left as found (off) before the new one is asked.
    if (vsync_interval_ != 0 || vsync_ceiling_) old_host->set_swap_interval(0);
    vsync_interval_ = 0;
    vsync_ceiling_ = false;
    cadence_.clear();
    decided_hz_ = 0;
    vsync_shown_hz_ = 0;   // what vsync showed on the old display
}

void Arbiter::reconfigured(const Config& old, int64_t index) {
    const bool host_changed = old.host != cfg_.host || old.display.lead_ns != cfg_.display.lead_ns;
    const bool rate_changed = old.target_hz != cfg_.target_hz;
    const bool strategy_changed = old.strategy != cfg_.strategy;
    const bool wants_host = cfg_.host != nullptr && strategy_uses_host(cfg_.strategy);
    // The refresh is read only while vsync or auto is in force: read it afresh.
    if ((host_changed || strategy_changed) && wants_host) {
        refresh_hz_ = read_refresh_hz();
        next_refresh_poll_ns_ = sat_add(waiter_.clock().now_ns(), kRefreshPollNs);
    }
    const bool vrr_changed = old.display.vrr != cfg_.display.vrr || old.display.vrr_min_hz != cfg_.display.vrr_min_hz ||
                             old.display.vrr_max_hz != cfg_.display.vrr_max_hz;
    const bool background_changed = old.background_hz != cfg_.background_hz || old.hidden_hz != cfg_.hidden_hz;
    if (host_changed) window_ = read_window_state();
    if (host_changed || vrr_changed || rate_changed) {
        vrr_ = read_vrr(cfg_.host != nullptr && refresh_hz_ == 0 ? read_refresh_hz() : refresh_hz_);
        next_vrr_poll_ns_ = sat_add(waiter_.clock().now_ns(), kRefreshPollNs);
    }
    const bool sleeper_changed = old.sleeper != cfg_.sleeper || old.tuning.wait != cfg_.tuning.wait ||
                                 old.tuning.scheduler_period_ns != cfg_.tuning.scheduler_period_ns;
    if (rate_changed || strategy_changed || host_changed || vrr_changed || background_changed) {
        backoff_ns_ = kFirstBackoffNs;
        lock_barred_until_ns_ = -1;
        lock_barred_for_vsync_ = false;
        take(Input::Start, "", index);
    } else if (sleeper_changed && !strategy_uses_host(cfg_.strategy)) {
        take(Input::Start, "", index);   // the timer's fallback may have changed; auto is not re-probed
    }
}

}  // namespace pacer::detail
