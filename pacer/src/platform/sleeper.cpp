// platform/sleeper.cpp: OsClock and OsSleeper, the portable face of os.h.
#include "base/text.h"
#include "os/os.h"

#include <pacer/platform.h>
#include <pacer/units.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace pacer {

int64_t OsClock::now_ns() { return os::now_ns(); }
int64_t OsClock::thread_cpu_ns() { return os::thread_cpu_ns(); }
int64_t OsClock::thread_runqueue_wait_ns() { return os::thread_runqueue_wait_ns(); }
int32_t OsClock::runnable_threads() { return os::runnable_threads(); }
int32_t OsClock::online_cpus() { return os::online_cpus(); }

// What a timer wait runs with (Options::wait_timer_slack_ns and
// wait_sched_slice_ns). Each control is tried at the first wait; once the OS
// refuses it, or the kernel turns out to ignore it, it is not tried again, so
// a refusing OS costs one failed call in all.
struct WaitControl {
    int64_t wanted_ns = -1;   // -1: leave the thread's own
    int64_t got_ns = -1;      // what the OS reported after the first set; -1 before
    std::string refused;      // why it is not in force, once known
    bool usable() const { return wanted_ns > 0 && refused.empty(); }
};

// Both settings are held, not scoped (docs/design.md says why): the first
// timer wait puts them in force on its thread, and the sleeper's destruction
// puts that thread's own back, addressed by its id, from whichever thread
// destroys it. No wait after the first makes a system call for them.
struct HeldSettings {
    bool taken = false;             // the first timer wait has run
    int64_t thread = 0;             // os::thread_id() of the thread they are held on
    int64_t own_slack_ns = 0;       // that thread's settings before
    os::SchedSettings own_sched{};
    bool slack_changed = false, sched_changed = false;
};

struct OsSleeper::Impl {
    os::HighResTimer* timer = nullptr;
    WaitControl slack, slice;
    HeldSettings held;
    // Held while the sleeper lives where the OS refused its timer (Windows'
    // timeBeginPeriod, system-wide); never taken where the OS has no such control.
    bool period_held = false;
    int64_t held_period_ns = 0;   // what timer_period_begin got, so its end names the same
    int64_t period_ns = 0;
    bool period_stated = false;   // whether period_ns came from options or the OS
};

namespace {

// What the OS states, else 1 ms: the period a tickless system is assumed to
// round a sleep to (its timers are finer, so this errs on the safe side).
int64_t stated_or_one_ms(int64_t requested_ns, bool* stated) {
    if (requested_ns > 0) {
        *stated = true;
        return requested_ns;
    }
    const int64_t os_period = os::scheduler_period_ns();
    *stated = os_period > 0;
    return os_period > 0 ? os_period : kNsPerMs;
}

constexpr const char* kUnsupported = "unsupported";   // the OS has no such control

// "slack 1 ns", "slice 100 us", "slice refused: EPERM", and before the first
// timer wait "slack 1 ns asked (no timer wait yet)": a sleeper whose waits
// all ended early (late frames, a spin) has put nothing in force. Empty when
// left to the thread or not an OS notion here.
std::string describe_control(const char* name, const WaitControl& control) {
    if (control.wanted_ns < 0 || control.refused == kUnsupported) return {};
    if (!control.refused.empty()) return std::string(name) + " " + control.refused;
    const int64_t ns = control.got_ns < 0 ? control.wanted_ns : control.got_ns;
    char text[96];
    if (ns < kNsPerUs)
        std::snprintf(text, sizeof text, "%s %lld ns", name, static_cast<long long>(ns));
    else
        std::snprintf(text, sizeof text, "%s %g us", name, us_of(static_cast<double>(ns)));
    return control.got_ns < 0 ? std::string(text) + " asked (no timer wait yet)" : std::string(text);
}

// 0 or below: leave the thread's own (Linux cannot take a slack of 0).
int64_t wanted_or_leave(int64_t option_ns) { return option_ns > 0 ? option_ns : -1; }

// Each notes the calling thread's own setting in `held` and puts the wait's
// in force, saying in the control what it got or why not.
void hold_slack(WaitControl& slack, HeldSettings& held) {
    if (!slack.usable()) return;
    if (!os::timer_slack_get(&held.own_slack_ns)) {
        slack.refused = kUnsupported;
        return;
    }
    if (held.own_slack_ns == slack.wanted_ns) {
        slack.got_ns = held.own_slack_ns;
        return;
    }
    if (!os::timer_slack_set(slack.wanted_ns)) {
        slack.refused = "refused";
        return;
    }
    held.slack_changed = true;
    if (!os::timer_slack_get(&slack.got_ns)) slack.got_ns = slack.wanted_ns;
}

void hold_slice(WaitControl& slice, HeldSettings& held) {
    if (!slice.usable()) return;
    int error = os::sched_get(held.thread, &held.own_sched);
    if (error != 0) {
        slice.refused = error == ENOSYS ? std::string(kUnsupported) : "refused: " + detail::errno_name(error);
        return;
    }
    // A FIFO thread has no fair slice and needs none: it preempts the fair ones.
    if (held.own_sched.fifo) {
        slice.refused = "not used: the thread is SCHED_FIFO";
        return;
    }
    if (held.own_sched.slice_ns == slice.wanted_ns) {
        slice.got_ns = held.own_sched.slice_ns;
        return;
    }
    os::SchedSettings wanted = held.own_sched;
    wanted.slice_ns = slice.wanted_ns;
    error = os::sched_set(held.thread, wanted);
    if (error != 0) {
        slice.refused = "refused: " + detail::errno_name(error);
        return;
    }
    held.sched_changed = true;
    os::SchedSettings now{};
    if (os::sched_get(held.thread, &now) == 0) slice.got_ns = now.slice_ns;
    // Kernels before 6.12 accept sched_runtime for a fair thread and drop it.
    if (slice.got_ns <= 0) slice.refused = "ignored by this kernel (Linux < 6.12)";
}

// At the first timer wait, puts both settings in force on the calling thread
// and notes what it had. Waits from another thread leave theirs alone (one
// sleeper per waiting thread, as pacer.h asks).
void hold_wait_settings(WaitControl& slack, WaitControl& slice, HeldSettings& held) {
    if (held.taken) return;
    held.taken = true;
    held.thread = os::thread_id();
    hold_slack(slack, held);
    hold_slice(slice, held);
}

}  // namespace

OsSleeper::OsSleeper() : OsSleeper(Options{}) {}

OsSleeper::OsSleeper(const Options& options) : impl_(std::make_unique<Impl>()) {
    // -1 leaves the thread's own; 0 and other negatives are no setting, and
    // a slice past the kernel's bounds would be clamped without a word.
    const auto check = [](const char* field, int64_t value, int64_t lo, int64_t hi) {
        if (value == -1 || (value >= lo && value <= hi)) return;
        throw std::invalid_argument(std::string("OsSleeper::Options: ") + field + " " + std::to_string(value) +
                                    " is out of range -1 or [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    };
    check("wait_timer_slack_ns", options.wait_timer_slack_ns, 1, os::kMaxTimerSlackNs);
    check("wait_sched_slice_ns", options.wait_sched_slice_ns, os::kMinSliceNs, os::kMaxSliceNs);
    impl_->period_ns = stated_or_one_ms(options.scheduler_period_ns, &impl_->period_stated);
    impl_->slack.wanted_ns = wanted_or_leave(options.wait_timer_slack_ns);
    impl_->slice.wanted_ns = wanted_or_leave(options.wait_sched_slice_ns);
    if (!options.refuse_high_res_timer) impl_->timer = os::timer_create(impl_->period_ns);
    if (impl_->timer == nullptr) {
        // Without a timer, relative sleeps are all there is: hold the configured
        // scheduler period (1 ms when none is) where the OS lets us, until
        // destruction and no longer, then re-read what the OS states.
        impl_->held_period_ns =
            options.scheduler_period_ns > 0 ? options.scheduler_period_ns : kNsPerMs;
        impl_->period_held = os::timer_period_begin(impl_->held_period_ns);
        if (impl_->period_held && options.scheduler_period_ns <= 0) {
            impl_->period_ns = stated_or_one_ms(0, &impl_->period_stated);
        }
    }
}

OsSleeper::~OsSleeper() {
    // By the waiting thread's id, so it is right from any thread; a thread
    // that has exited is skipped (both address only this process's threads).
    // From another thread, the slack needs CAP_SYS_NICE: without it the
    // waiting thread keeps the finer slack (its timers fire closer to their
    // time, batched less with others').
    if (impl_->held.slack_changed) os::timer_slack_set_on(impl_->held.thread, impl_->held.own_slack_ns);
    if (impl_->held.sched_changed) os::sched_set(impl_->held.thread, impl_->held.own_sched);
    if (impl_->timer != nullptr) os::timer_destroy(impl_->timer);
    if (impl_->period_held) os::timer_period_end(impl_->held_period_ns);
}

void OsSleeper::sleep_ns(int64_t duration_ns) { os::sleep_ns(duration_ns); }

bool OsSleeper::has_high_res_timer() const { return impl_->timer != nullptr; }

bool OsSleeper::sleep_until_ns(int64_t deadline_ns) {
    if (impl_->timer == nullptr) return false;
    hold_wait_settings(impl_->slack, impl_->slice, impl_->held);
    os::timer_sleep_until(impl_->timer, deadline_ns);
    return true;
}

void OsSleeper::pause() { os::cpu_pause(); }

int64_t OsSleeper::scheduler_period_ns() const { return impl_->period_ns; }

std::string OsSleeper::describe() const {
    std::string line;
    if (impl_->timer != nullptr) {
        line = os::timer_describe(impl_->timer);
    } else if (impl_->period_held) {
        char held[80];
        std::snprintf(held, sizeof held, "system timer period %.3f ms held + relative sleep",
                      ms_of(static_cast<double>(impl_->held_period_ns)));
        line = held;
    } else {
        line = "relative sleep (no high-resolution timer)";
    }
    char period[64];
    std::snprintf(period, sizeof period, ", period %.3f ms%s", ms_of(static_cast<double>(impl_->period_ns)),
                  impl_->period_stated ? "" : " (assumed)");
    line += period;
    if (impl_->timer != nullptr) {
        const std::string slack = describe_control("slack", impl_->slack);
        const std::string slice = describe_control("slice", impl_->slice);
        if (!slack.empty() || !slice.empty()) {
            line += "; waits with ";
            line += slack;
            line += !slack.empty() && !slice.empty() ? ", " : "";
            line += slice;
        }
    }
    return line;
}

}  // namespace pacer
