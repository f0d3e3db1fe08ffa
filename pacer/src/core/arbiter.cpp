// arbiter.cpp: the arbiter (arbiter.h): what is in force, the rules'
// inputs taken through rules/table.h, and every Decision.
//
// Before each wait it asks the rules in a fixed order, the first that has
// something to say moving the machine: the window's state, VRR, the
// display's account (display_lock's clock gained or lost, its lead past a
// step, frames shown early, fewer shown than vsync did, the fitted refresh
// moved), the stated refresh, the retry. Each present interval and report
// under vsync goes to the vsync watch. docs/design.md has the rules and
// bounds.
#include "core/arbiter.h"

#include "rules/common.h"
#include "base/saturate.h"

#include <pacer/status.h>

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pacer::detail {

using namespace rules;

Arbiter::Arbiter(const Config& cfg, Waiter& waiter, PresentModel& present)
    : cfg_(cfg), waiter_(waiter), present_(present), backoff_ns_(kFirstBackoffNs) {
    if (cfg_.host != nullptr) refresh_hz_ = read_refresh_hz();
    next_refresh_poll_ns_ = sat_add(waiter_.clock().now_ns(), kRefreshPollNs);
    vrr_.set(read_vrr(refresh_hz_), next_refresh_poll_ns_);
    window_.set(read_window_state());
    take(Input::Start, "", 0);
}

Arbiter::~Arbiter() {
    // Leave the swap interval as we found it (off) rather than at our n.
    if (vsync_interval_ != 0 || vsync_ceiling_) cfg_.host->set_swap_interval(0);
}

// ---- what the host says ------------------------------------------------------

// The host's refresh rate, 0 (unknown) for one no display has.
double Arbiter::read_refresh_hz() const {
    const double hz = cfg_.host->refresh_rate_hz();
    return hz >= kMinRefreshHz && hz <= kMaxRefreshHz ? hz : 0.0;
}

// What the Host says of VRR now; `stated_hz` the refresh it states.
VrrPlan Arbiter::read_vrr(double stated_hz) const {
    VrrRange range;
    const bool says = cfg_.host != nullptr && cfg_.host->variable_refresh(&range);
    return plan_vrr(cfg_.display, says ? &range : nullptr, stated_hz);
}

// In front without a host, or where it says a value no state has.
WindowState Arbiter::read_window_state() const {
    if (cfg_.host == nullptr) return WindowState::Foreground;
    const WindowState state = cfg_.host->window_state();
    const bool known = state == WindowState::Foreground || state == WindowState::Unfocused ||
                       state == WindowState::Hidden;
    return known ? state : WindowState::Foreground;
}

double Arbiter::refresh_unit_ns() const {
    if (shown_hz_ > 0) return period_ns_of(shown_hz_);
    return period_ns_of(refresh_hz_ > 0 ? refresh_hz_ : cfg_.target_hz);
}

// ---- the machine ---------------------------------------------------------------

PaceState Arbiter::state() const {
    if (display_locked_) return PaceState::DisplayLock;
    if (vsync_interval_ != 0) return vsync_.probing() ? PaceState::ProbingVsync : PaceState::Vsync;
    return PaceState::Timer;
}

// Every move goes through here: the row of table.h for `input` in the state
// now, its action, and (in debug builds) a check that the move is the
// table's. An input the table does not take there is dropped.
void Arbiter::take(Input input, const std::string& text, int64_t index) {
    const PaceState from = state();
    const Transition* row = find_transition(from, ceiling_, input);
    assert(row != nullptr && "an input rules/table.h does not take in this state");
    if (row == nullptr) return;
    assert(text.rfind(row->words, 0) == 0 && "a reason that does not begin with its row's words");
    switch (row->action) {
        case Action::Choose: choose(text, index); break;
        case Action::Leave: leave_vsync(text); break;
        case Action::Confirm:
            vsync_.confirm();
            record(text);
            break;
        case Action::Say: record(text); break;
    }
    assert(row->action == Action::Choose || state() == next_state(*row, from, ChoiceFacts{}));
}

// A rule's verdict, where it has one.
void Arbiter::apply(const MaybeVerdict& verdict, int64_t index) {
    if (!verdict) return;
    if (verdict->long_backoff) backoff_ns_ = kMaxBackoffNs;
    take(verdict->input, verdict->text, index);
}

VsyncView Arbiter::vsync_view() const {
    VsyncView view;
    view.asked = cfg_.strategy;
    view.interval = vsync_interval_;
    view.period_ns = vsync_period_ns();
    view.target_hz = cfg_.target_hz;
    view.decided_hz = decided_hz_;
    view.feedback_seen = present_.feedback_seen();
    view.display = &present_.display();
    view.shows_most = vsync_shows_most_;
    return view;
}

DisplayView Arbiter::display_view() const {
    DisplayView view;
    view.asked = cfg_.strategy;
    view.has_host = cfg_.host != nullptr;
    view.lead_setting_ns = cfg_.display.lead_ns;
    view.target_hz = cfg_.target_hz;
    view.present = &present_;
    view.locked = display_locked_;
    view.refreshes = display_refreshes_;
    view.decided_hz = decided_hz_;
    return view;
}

// The waiter waits as `strategy` (resolved: a timer it lacks waits as
// robust_sleep); what it resolved to is cached.
void Arbiter::set_waiter(Strategy strategy) {
    waiter_.set_strategy(strategy);
    waiter_strategy_ = waiter_.state().strategy;
}

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
    decision_.probing = vsync_.probing();
    decision_.reason = reason;
    decision_.pace_hz = pace_hz();
    decision_.window = window_.state();
    decision_.vrr = vrr_.plan().on;
    decision_.vrr_min_hz = vrr_.plan().min_hz;
    decision_.vrr_max_hz = vrr_.plan().max_hz;
    decision_.vrr_cap_hz = vrr_.plan().cap_hz;
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
    vsync_.stop_probe();
    vsync_shows_most_ = false;
    next_probe_ns_ = sat_add(waiter_.clock().now_ns(), backoff_ns_);
    const std::string reason = "auto -> timer: " + why + "; retry in " + seconds(backoff_ns_) + fell_back_note();
    backoff_ns_ = std::min(backoff_ns_ * 2, kMaxBackoffNs);
    record(reason);
}

// ---- the inputs ------------------------------------------------------------------

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
    display_.lift_bar();
    shown_.forget();   // shown at the old rate
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

// Before each wait, where a host is: the window's state changed.
bool Arbiter::check_window(int64_t index) {
    if (cfg_.host == nullptr) return false;
    const MaybeVerdict verdict = window_.update(read_window_state(), cfg_);
    decision_.window = window_.state();   // shown, whether or not it moves the ceiling
    apply(verdict, index);
    return verdict.has_value();
}

// Once a second, where a host is: VRR turned on or off, or its range moved.
bool Arbiter::check_vrr(int64_t t, int64_t index) {
    if (cfg_.host == nullptr || !vrr_.due(t)) return false;
    const MaybeVerdict verdict = vrr_.update(read_vrr(refresh_hz_ > 0 ? refresh_hz_ : read_refresh_hz()), t);
    apply(verdict, index);
    return verdict.has_value();
}

// Auto and display_lock on the display's account, in this order:
// display_lock's clock gained or lost (held a while, on the timer at the
// last step), or not gained for long (display_lock asked for), its learned
// lead past a frame step, its frames shown early, fewer shown than vsync
// did, then the fitted refresh leaving the decided one.
void Arbiter::check_display(int64_t index) {
    const bool listens = cfg_.strategy == Strategy::Auto || cfg_.strategy == Strategy::DisplayLock;
    if (!listens || cfg_.host == nullptr) return;
    const int64_t now = waiter_.clock().now_ns();
    const DisplayView view = display_view();
    if (display_.lockable(view, now) != display_locked_) {
        if (display_locked_ && display_.hold_lost(now)) return;
        display_.clock_kept();
        backoff_ns_ = kFirstBackoffNs;
        // A bar that has run out is kept until display_lock starts again:
        // where the clock is unlocked then, the decision that starts it once
        // it locks is still the retry.
        const bool retry = display_.bar_over(now);
        if (retry) display_.lift_bar();
        if (display_locked_) {
            if (cfg_.strategy == Strategy::Auto && shown_.vsync_fell_short(cfg_.target_hz))
                display_.bar(now, shown_.lost_why(cfg_.target_hz), true);
            take(Input::ClockLost, "display clock lost", index);
        } else {
            take(Input::ClockLocked, retry ? "retry" : "", index);
        }
        return;
    }
    display_.clock_kept();
    if (cfg_.strategy == Strategy::DisplayLock) apply(display_.clock_waits(view, index), index);
    if (!present_.display().locked() || (cfg_.strategy == Strategy::DisplayLock && !display_locked_)) return;
    if (display_.lead_stepped(view, now)) return take(Input::LeadStepped, "", index);
    if (display_.frames_early(view, now)) {
        present_.clear_early();
        return take(Input::FramesEarly, "", index);
    }
    if (cfg_.strategy == Strategy::Auto && display_locked_) {
        if (const auto why = shown_.fewer(cfg_.target_hz, display_refreshes_)) {
            display_.bar(now, *why, true);
            return take(Input::ShownFewer, "", index);
        }
    }
    const MaybeVerdict moved = display_.moved(view, now);
    if (moved) backoff_ns_ = kFirstBackoffNs;
    apply(moved, index);
}

void Arbiter::watch(int64_t interval_ns, int64_t index) {
    if (!vsync_.add(interval_ns)) return;
    const VsyncView view = vsync_view();
    if (vsync_.probing()) return apply(vsync_.judge_probe(view, index), index);
    const VsyncWatch::Window window = vsync_.window(view);
    // A display change explains what the window trips on: re-read the
    // refresh before blaming vsync (the regular read may be a second away).
    if (window.suspect() && refresh_changed(index)) return;
    apply(vsync_.judge_window(window, view, index), index);
}

void Arbiter::on_report(const PresentModel::Report& report, int64_t index) {
    shown_.add(report);
    if (vsync_interval_ == 0) return;
    apply(vsync_.report(report, index, vsync_view()), index);
}

// ---- live changes ------------------------------------------------------------

void Arbiter::host_changing(Host* old_host) {
    // The old host's swap is left as found (off) before the new one is asked.
    if (vsync_interval_ != 0 || vsync_ceiling_) old_host->set_swap_interval(0);
    vsync_interval_ = 0;
    vsync_ceiling_ = false;
    vsync_.forget_cadence();
    decided_hz_ = 0;
    shown_.forget();   // what vsync showed on the old display
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
    if (host_changed) window_.set(read_window_state());
    if (host_changed || vrr_changed || rate_changed)
        vrr_.set(read_vrr(cfg_.host != nullptr && refresh_hz_ == 0 ? read_refresh_hz() : refresh_hz_),
                 sat_add(waiter_.clock().now_ns(), kRefreshPollNs));
    const bool sleeper_changed = old.sleeper != cfg_.sleeper || old.tuning.wait != cfg_.tuning.wait ||
                                 old.tuning.scheduler_period_ns != cfg_.tuning.scheduler_period_ns;
    if (rate_changed || strategy_changed || host_changed || vrr_changed || background_changed) {
        backoff_ns_ = kFirstBackoffNs;
        display_.lift_bar();
        take(Input::Start, "", index);
    } else if (sleeper_changed && !strategy_uses_host(cfg_.strategy)) {
        take(Input::Start, "", index);   // the timer's fallback may have changed; auto is not re-probed
    }
}

}  // namespace pacer::detail
