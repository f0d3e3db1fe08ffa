// fakes.h: a fake clock, a fake sleeper and a fake compositor shared by the
// unit tests.
//
// FakeClock only moves when told to. FakeSleeper moves it the way an OS
// would: a relative sleep lasts its duration plus an overshoot, a timer wait
// ends at its deadline plus a lateness, and a pause costs pause_ns of CPU.
// Overshoots and latenesses are scripted (a queue, consumed one per call) or
// fall back to a fixed default, so every test is deterministic. FakeCompositor
// shows swapped frames on a refresh clock of its own and reports them
// (Host::take_presented), with a stated refresh that may lie.
#pragma once

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/metrics.h>
#include <pacer/units.h>

#include "../../replay/vrr_panel.h"   // the VRR panel pacer-replay models

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace pacer::testing {

// One field of a pacer's config changed live, as an engine would: a copy of
// the config in force, the change, reconfigure. Returns reconfigure's line.
template <typename Change>
std::string reconfigure_with(Pacer& pacer, Change change) {
    Config config = pacer.config();
    change(config);
    return pacer.reconfigure(config);
}

inline constexpr int64_t kStartNs = kNsPerSecond;   // FakeClock's first reading

class FakeClock final : public Clock {
public:
    explicit FakeClock(int64_t start_ns = kStartNs) : now_(start_ns) {}

    int64_t now_ns() override { return now_; }
    // -1 when told to act as a platform without thread CPU time.
    int64_t thread_cpu_ns() override {
        cpu_reads.push_back(now_);
        return cpu_known ? cpu_ : -1;
    }
    // -1 (unknown) until a test sets runqueue_ns to a count.
    int64_t thread_runqueue_wait_ns() override {
        runqueue_reads.push_back(now_);
        return runqueue_ns;
    }
    // -1 (unknown) until a test sets them; a script of runnable counts is
    // consumed one per call before `runnable` holds.
    int32_t runnable_threads() override {
        if (runnable_script.empty()) return runnable;
        const int32_t value = runnable_script.front();
        runnable_script.pop_front();
        return value;
    }
    int32_t online_cpus() override { return cpus; }

    // Time stops at the int64 limits rather than wrapping, so that the
    // hostile-input tests can wait for INT64_MAX on it.
    // Wall time passes while the thread does not run (sleeping, preempted).
    void advance(int64_t duration_ns) { now_ = plus(now_, duration_ns); }
    // Wall time passes while the thread runs (work, spinning): CPU time too.
    void advance_busy(int64_t duration_ns) {
        now_ = plus(now_, duration_ns);
        cpu_ = plus(cpu_, duration_ns);
    }
    // Wall time passes while the thread waits runnable for a CPU (contention).
    void advance_runnable(int64_t duration_ns) {
        now_ = plus(now_, duration_ns);
        if (runqueue_ns >= 0) runqueue_ns = plus(runqueue_ns, duration_ns);
    }
    // CPU time the thread spends inside a wait that passes anyway (a sleep's
    // own entry and exit).
    void charge_cpu(int64_t duration_ns) { cpu_ = plus(cpu_, duration_ns); }
    void set(int64_t now_ns) { now_ = now_ns; }
    int64_t cpu_ns() const { return cpu_; }

    bool cpu_known = true;
    int64_t runqueue_ns = -1;   // the run-queue wait so far; -1: unknown
    std::vector<int64_t> runqueue_reads;   // when thread_runqueue_wait_ns() was called
    std::vector<int64_t> cpu_reads;        // when thread_cpu_ns() was called
    int32_t runnable = -1;      // what runnable_threads() says once the script is spent
    std::deque<int32_t> runnable_script;
    int32_t cpus = -1;          // what online_cpus() says

private:
    static int64_t plus(int64_t a, int64_t b) {
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
        if (b > 0 && a > kMax - b) return kMax;
        if (b < 0 && a < kMin - b) return kMin;
        return a + b;
    }
    int64_t now_;
    int64_t cpu_ = 0;
};

class FakeSleeper final : public Sleeper {
public:
    explicit FakeSleeper(FakeClock& clock) : clock_(clock) {}

    // sleep_ns: duration + the next scripted overshoot (else sleep_overshoot_ns).
    void sleep_ns(int64_t duration_ns) override {
        sleep_requests.push_back(duration_ns);
        clock_.advance(std::max<int64_t>(duration_ns, 0));
        clock_.advance(next_(sleep_overshoots, sleep_overshoot_ns));
        if (after_sleep) after_sleep();
    }
    bool has_high_res_timer() const override { return high_res_timer; }
    // sleep_until_ns: to max(now, deadline) + the next scripted lateness
    // (else timer_lateness_ns), then the next scripted run-queue wait (else 0);
    // it costs the thread timer_cpu_ns of CPU. Refuses, without waiting, when
    // high_res_timer is off.
    bool sleep_until_ns(int64_t deadline_ns) override {
        if (!high_res_timer) return false;
        until_requests.push_back(deadline_ns);
        clock_.charge_cpu(timer_cpu_ns);
        clock_.set(std::max(clock_.now_ns(), deadline_ns));
        clock_.advance(next_(timer_latenesses, timer_lateness_ns));
        // Then, under contention, the woken thread waits for a CPU.
        clock_.advance_runnable(next_(timer_runqueue_waits, 0));
        if (after_sleep) after_sleep();
        return true;
    }
    // One spin turn: pause_ns of busy time; every stall_every_pauses-th turn
    // also loses stall_ns off the CPU (an interrupt, the host holding it).
    void pause() override {
        ++pauses;
        clock_.advance_busy(pause_ns);
        if (stall_every_pauses > 0 && pauses % stall_every_pauses == 0) clock_.advance(stall_ns);
    }
    int64_t scheduler_period_ns() const override { return period_ns; }

    // Configuration (public: tests set what they need).
    std::function<void()> after_sleep;   // run at the end of each sleep (another thread, a signal)
    bool high_res_timer = true;
    int64_t period_ns = 0;            // what scheduler_period_ns() states
    int64_t pause_ns = 50;
    int64_t stall_every_pauses = 0;   // 0: the spin never stalls
    int64_t stall_ns = 0;
    int64_t sleep_overshoot_ns = 0;   // default overshoot of sleep_ns
    int64_t timer_lateness_ns = 0;    // default lateness of sleep_until_ns
    int64_t timer_cpu_ns = 0;         // CPU each sleep_until_ns costs the thread
    std::deque<int64_t> sleep_overshoots;   // scripted, consumed first
    std::deque<int64_t> timer_latenesses;   // scripted, consumed first
    std::deque<int64_t> timer_runqueue_waits;   // scripted run-queue wait after a timer wake (else 0)

    // Observations.
    std::vector<int64_t> sleep_requests;   // every sleep_ns duration asked
    std::vector<int64_t> until_requests;   // every sleep_until_ns deadline asked
    int64_t pauses = 0;

private:
    static int64_t next_(std::deque<int64_t>& script, int64_t fallback) {
        if (script.empty()) return fallback;
        int64_t value = script.front();
        script.pop_front();
        return value;
    }
    FakeClock& clock_;
};

// A compositor with a real refresh clock: refresh k at base + k * period_ns
// (exact, in double). A frame swapped at t catches the first refresh at least
// latch_ns after t. With a swap interval n accepted and `blocks`, it also
// waits for n refreshes after the last shown frame, and swap() returns
// return_ns (plus up to return_late_ns) after the refresh that shows it, less
// queue_refreshes; otherwise swap() returns after nonblocking_ns and a
// frame still waiting for the same refresh is discarded. Each frame's fate is
// reported once its refresh has passed, with the stated refresh, seq (if
// report_seq) and jitter on the time (a fixed pseudo-random sequence).
class FakeCompositor final : public Host {
public:
    FakeCompositor(FakeClock& clock, double real_period_ns, double stated)
        : period_ns(real_period_ns), stated_hz(stated), clock_(clock), base_ns_(static_cast<double>(clock.now_ns())) {}

    bool set_swap_interval(int value) override {
        requests.push_back(value);
        if (!accepts) return false;
        interval = value;
        return true;
    }
    double refresh_rate_hz() override { return stated_hz; }
    WindowState window_state() override { return window; }
    bool take_presented(Presented* out) override {
        flush();
        if (ready_.empty()) return false;
        *out = ready_.front();
        ready_.pop_front();
        return true;
    }

    // Swaps the frame built after wait frame_index.
    void swap(int64_t frame_index) {
        flush();
        int64_t k = first_refresh_from(static_cast<double>(clock_.now_ns() + latch_ns));
        const bool vsync = interval > 0 && blocks;
        if (vsync) {
            k += queue_refreshes;
            if (last_k_ >= 0) k = std::max(k, last_k_ + interval);
            last_vsync_k_ = k;
        } else if (last_vsync_k_ >= 0) {
            k = std::max(k, last_vsync_k_ + 1);   // no frame overtakes the vsync queue
        } else if (rearm_ns > 0 && last_k_ >= 0 && pending_.empty() && k > last_k_ + 1) {
            // A refresh passed with nothing new: the timer stopped, and this
            // frame restarts it.
            k = last_k_ + 1;
            base_k_ = k;
            base_ns_ = static_cast<double>(clock_.now_ns() + rearm_ns);
        }
        if (!pending_.empty() && pending_.back().k >= k) {
            // Replaced before its refresh: never shown.
            Presented gone;
            gone.frame_index = pending_.back().frame;
            gone.discarded = true;
            ready_.push_back(gone);
            ++discarded;
            pending_.pop_back();
        }
        pending_.push_back({frame_index, k});
        last_k_ = k;
        if (vsync) {
            const int64_t k_return = k - queue_refreshes;
            clock_.set(std::max<int64_t>(clock_.now_ns(), std::llround(refresh_time(k_return))) + return_ns +
                       return_late());
        } else {
            clock_.advance(nonblocking_ns);
        }
        flush();
    }
    // The real period changes from the next refresh on.
    void change_period(double new_period_ns) {
        const int64_t k = first_refresh_from(static_cast<double>(clock_.now_ns()));
        base_ns_ = refresh_time(k);
        base_k_ = k;
        period_ns = new_period_ns;
    }
    double refresh_time(int64_t k) const { return base_ns_ + static_cast<double>(k - base_k_) * period_ns; }
    int64_t first_refresh_from(double t) const {
        return base_k_ + static_cast<int64_t>(std::ceil((t - base_ns_) / period_ns - 1e-9));
    }

    // Configuration.
    double period_ns;                     // the real refresh period
    double stated_hz;                     // what refresh_rate_hz and Presented::refresh_ns say
    bool accepts = true;
    bool blocks = true;
    bool report_seq = true;
    bool report_shown = true;             // false: shown frames are reported discarded (sway's lone kind)
    int64_t latch_ns = 0;                 // a frame must arrive this long before its refresh
    int queue_refreshes = 0;              // vsync: a frame is shown this many refreshes after the one its
                                          // swap returns at (weston's queue: two), and a frame swapped
                                          // without vsync is shown after them
    int64_t nonblocking_ns = 2'100'000;   // a swap that does not block
    int64_t return_ns = 100'000;          // a blocking swap returns this long after its refresh
    int64_t return_late_ns = 0;           // ... and later by up to this much more (a busy machine)
    int64_t jitter_ns = 0;                // reported times off by up to this much either way
    int64_t rearm_ns = 0;                 // > 0: refreshes run on a timer that stops when one has
                                          // nothing new (mutter's headless output); the next frame
                                          // is shown this long after its swap, and the refreshes
                                          // run on from there
    uint32_t flags = kPresentedVsync;     // on each report: dated in software, as compositors' are
    int outlier_every = 0;                // every n-th report late by outlier_ns (0: none)
    int64_t outlier_ns = 0;               // ... or early, where negative
    int interval = 0;
    WindowState window = WindowState::Foreground;   // what window_state says
    // Observations.
    std::vector<int> requests;
    struct Shown {
        int64_t frame;
        int64_t k;            // the refresh that showed it
        double at_ns = 0;     // when (a later change of period or a re-arm moves refresh_time(k))
    };
    std::vector<Shown> shown;
    int discarded = 0;

private:
    void flush() {
        while (!pending_.empty() && refresh_time(pending_.front().k) <= static_cast<double>(clock_.now_ns())) {
            Shown s = pending_.front();
            pending_.pop_front();
            s.at_ns = refresh_time(s.k);
            shown.push_back(s);
            Presented p;
            p.frame_index = s.frame;
            if (!report_shown) {
                p.discarded = true;
                ready_.push_back(p);
                continue;
            }
            p.displayed_ns = std::llround(refresh_time(s.k)) + noise();
            if (outlier_every > 0 && ++reports_ % outlier_every == 0) p.displayed_ns += outlier_ns;
            p.refresh_ns = stated_hz > 0 ? std::llround(period_ns_of(stated_hz)) : 0;
            p.seq = report_seq ? static_cast<uint64_t>(s.k + 1000) : 0;
            p.flags = flags;
            ready_.push_back(p);
        }
    }
    // The next of a fixed pseudo-random sequence, in [0, 1).
    static double uniform(uint64_t& state) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0;
    }
    int64_t return_late() {
        if (return_late_ns <= 0) return 0;
        return std::llround(uniform(late_state_) * static_cast<double>(return_late_ns));
    }
    int64_t noise() {
        if (jitter_ns <= 0) return 0;
        return std::llround((2 * uniform(state_) - 1) * static_cast<double>(jitter_ns));
    }

    FakeClock& clock_;
    double base_ns_;
    int64_t base_k_ = 0;
    int64_t last_k_ = -1;
    int64_t last_vsync_k_ = -1;   // the refresh of the newest frame swapped with vsync
    std::deque<Shown> pending_;
    std::deque<Presented> ready_;
    uint64_t state_ = 12345;
    uint64_t late_state_ = 777;
    int reports_ = 0;
};

// A panel with variable refresh (FreeSync) as a Host, on pacer-replay's
// model of one (replay/vrr_panel.h: a frame begins its scanout as it
// arrives, latch_ns after its swap, but not within one fastest refresh of
// the last; below the range the driver repeats frames). A swap with an
// interval returns once its frame's scanout has begun, without one at once.
class FakeVrrPanel final : public Host {
public:
    FakeVrrPanel(FakeClock& clock, double min, double max) : min_hz(min), max_hz(max), clock_(clock), panel_(min, max) {}

    bool set_swap_interval(int value) override {
        requests.push_back(value);
        if (!accepts) return false;
        interval = value;
        return true;
    }
    double refresh_rate_hz() override { return max_hz; }   // what a driver states for a VRR mode
    bool variable_refresh(VrrRange* out) override {
        if (!states_vrr) return false;
        out->min_hz = min_hz;
        out->max_hz = max_hz;
        out->source = "fake panel";
        return true;
    }
    WindowState window_state() override { return window; }

    // Swaps the frame built after wait frame_index.
    void swap(int64_t frame_index) {
        const double now = static_cast<double>(clock_.now_ns());
        bool tore = false;
        const double t = panel_.show(now + static_cast<double>(latch_ns), interval > 0, &tore);
        torn += tore ? 1 : 0;
        shown.push_back({frame_index, now, t});
        const int64_t back = interval > 0 ? std::llround(t) - latch_ns : clock_.now_ns();
        clock_.set(std::max(clock_.now_ns(), back) + swap_ns);
    }

    // Configuration.
    double min_hz, max_hz;
    bool states_vrr = true;          // variable_refresh says so
    bool accepts = true;             // set_swap_interval takes what it is asked
    int64_t latch_ns = 500'000;      // a frame's scanout begins this long after its swap
    int64_t swap_ns = 100'000;       // a swap's own cost
    int interval = 0;
    WindowState window = WindowState::Foreground;
    // Observations.
    struct Shown {
        int64_t frame;
        double swap_ns;   // when it was swapped
        double at_ns;     // when its scanout began
    };
    std::vector<Shown> shown;
    std::vector<int> requests;
    int torn = 0;

private:
    FakeClock& clock_;
    pacer_replay::VrrPanel panel_;
};

// The periods of the refreshes the tests' displays run at, ns.
inline constexpr double kPeriod60_ns = period_ns_of(60);
inline constexpr double kPeriod120_ns = period_ns_of(120);
inline constexpr double kPeriod144_ns = period_ns_of(144);
inline constexpr double kPeriod240_ns = period_ns_of(240);
// weston's headless output: states 60 Hz, repaints every 25.2 ms (39.7 Hz).
inline constexpr double kWeston_ns = 25.2 * kNsPerMs;

// True when text holds part: a decision's reason, a description.
inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A zero config wired to the fakes, at target_hz with strategy.
inline Config fake_config(FakeClock& clock, FakeSleeper& sleeper, double target_hz = 60,
                          Strategy strategy = Strategy::Timer) {
    Config config{};
    config.target_hz = target_hz;
    config.strategy = strategy;
    config.clock = &clock;
    config.sleeper = &sleeper;
    // One timer sleep a wait, so a scripted lateness is the margin's wake's;
    // the short last sleep has tests of its own (test_waiter.cpp).
    config.tuning.timer.last_sleep_ns = 0;
    return config;
}

}  // namespace pacer::testing
