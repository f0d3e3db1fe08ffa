// os_sleeper.cpp: OsClock and OsSleeper, the portable face of os.h.
#include "internal.h"
#include "os.h"

#include <cstdio>
#include <string>

namespace pacer {

int64_t OsClock::now_ns() { return os::now_ns(); }
int64_t OsClock::thread_cpu_ns() { return os::thread_cpu_ns(); }
int64_t OsClock::thread_runqueue_wait_ns() { return os::thread_runqueue_wait_ns(); }

struct OsSleeper::Impl {
    os::HighResTimer* timer = nullptr;
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
    return os_period > 0 ? os_period : detail::kMillisecondNs;
}

}  // namespace

OsSleeper::OsSleeper() : OsSleeper(Options{}) {}

OsSleeper::OsSleeper(const Options& options) : impl_(std::make_unique<Impl>()) {
    impl_->period_ns = stated_or_one_ms(options.scheduler_period_ns, &impl_->period_stated);
    if (!options.refuse_high_res_timer) impl_->timer = os::timer_create(impl_->period_ns);
    if (impl_->timer == nullptr) {
        // Without a timer, relative sleeps are all there is: hold the configured
        // scheduler period (1 ms when none is) where the OS lets us, until
        // destruction and no longer, then re-read what the OS states.
        impl_->held_period_ns =
            options.scheduler_period_ns > 0 ? options.scheduler_period_ns : detail::kMillisecondNs;
        impl_->period_held = os::timer_period_begin(impl_->held_period_ns);
        if (impl_->period_held && options.scheduler_period_ns <= 0) {
            impl_->period_ns = stated_or_one_ms(0, &impl_->period_stated);
        }
    }
}

OsSleeper::~OsSleeper() {
    if (impl_->timer != nullptr) os::timer_destroy(impl_->timer);
    if (impl_->period_held) os::timer_period_end(impl_->held_period_ns);
}

void OsSleeper::sleep_ns(int64_t duration_ns) { os::sleep_ns(duration_ns); }

bool OsSleeper::has_high_res_timer() const { return impl_->timer != nullptr; }

bool OsSleeper::sleep_until_ns(int64_t deadline_ns) {
    if (impl_->timer == nullptr) return false;
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
                      static_cast<double>(impl_->held_period_ns) * 1e-6);
        line = held;
    } else {
        line = "relative sleep (no high-resolution timer)";
    }
    char period[64];
    std::snprintf(period, sizeof period, ", period %.3f ms%s", static_cast<double>(impl_->period_ns) * 1e-6,
                  impl_->period_stated ? "" : " (assumed)");
    return line + period;
}

}  // namespace pacer
