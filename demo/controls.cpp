// controls.cpp: applying settings to the pacer, the scheduler and the load.
#include "controls.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace pacer_demo {
namespace {

std::string format(const char* fmt, double value) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, value);
    return text;
}

bool owns_swap_interval(pacer::Strategy strategy) {
    return strategy == pacer::Strategy::Vsync || strategy == pacer::Strategy::Auto;
}

}  // namespace

std::string thread_timing_text(const pacer::ThreadTiming::Report& r, bool with_refused) {
    std::string text = r.timer_slack_supported ? "slack " + std::to_string(r.timer_slack_ns) + " ns"
                                               : std::string("slack unsupported");
    if (r.sched_supported) {
        if (r.fifo_priority > 0) {
            text += ", fifo " + std::to_string(r.fifo_priority) + " (slice and nice do not apply)";
        } else {
            text += ", slice " + (r.sched_slice_ns >= 0 ? format("%g us", static_cast<double>(r.sched_slice_ns) * 1e-3)
                                                        : std::string("unknown"));
            text += r.fifo_priority == 0 ? ", not fifo" : ", fifo unknown";
            text += ", nice " + std::to_string(r.nice);
        }
    } else {
        text += ", slice/fifo/nice unsupported";
    }
    text += r.timer_period_supported ? ", timer period " + format("%g ms", static_cast<double>(r.timer_period_ns) * 1e-6)
                                     : std::string(", timer period unsupported");
    if (with_refused && !r.refused.empty()) text += "; refused: " + r.refused;
    return text;
}

Settings Controls::defaults() {
    Settings s;
    s.strategy = pacer::Strategy::Timer;
    s.hz = 60;
    s.vsync = VsyncMode::Off;
    s.miss_policy = pacer::MissPolicy::Skip;
    s.sched_period_ms = 0;
    s.preempt_prob = 0;
    s.timer_slack_ns = 0;
    s.precise_k = 1;                // pacer::Config's defaults
    s.robust_tolerance_us = 20;
    s.timer_margin_us = 200;
    s.sched_slice_us = 0;           // ThreadTiming: 0 leaves each control alone
    s.fifo_priority = 0;
    s.nice = 0;
    s.timer_period_ms = 0;
    // The library's defaults for timer waits, spelled out so that the panel
    // and the summary show the values in force.
    const pacer::Config library;
    s.wait_slack_ns = library.wait.timer_slack_ns;
    s.wait_slice_ns = library.wait.sched_slice_ns;
    s.dt_mode = DtMode::Raw;        // the measured interval: shows the pacing's own unevenness
    s.wait_point = pacer::WaitPoint::FrameStart;
    s.work_ms = 0;                  // LoadConfig's defaults
    s.jitter_ms = 0;
    s.spike_ms = 0;
    s.spike_every = 0;
    s.bg_threads = 0;
    s.duty = 1;
    s.duty_period_ms = 10;
    return s;
}

Controls::Controls(Platform& platform) : platform_(platform), current_(defaults()) {
    os_sleeper_made_with_ = os_sleeper_options_();
    os_sleeper_ = std::make_unique<pacer::OsSleeper>(os_sleeper_made_with_);
    pacer_ = std::make_unique<pacer::Pacer>(pacer_config_());
    load_ = std::make_unique<LoadGenerator>();
    apply_swap_interval_();
}

// Members go in reverse order, which is the safe one: the load threads, then
// the pacer before the sleepers it waits on and the thread timing it runs under.
Controls::~Controls() = default;

pacer::Config Controls::pacer_config_() {
    pacer::Config config{};
    config.target_hz = *current_.hz;
    config.strategy = *current_.strategy;
    config.miss_policy = *current_.miss_policy;
    config.precise.sigma_k = *current_.precise_k;
    config.robust.tolerance_ns = std::llround(*current_.robust_tolerance_us * 1e3);
    config.timer.margin_ns = std::llround(*current_.timer_margin_us * 1e3);
    config.wait_point = *current_.wait_point;   // app.cpp moves its wait() to match
    config.clock = &clock_;
    config.sleeper = simulated_ ? static_cast<pacer::Sleeper*>(simulated_.get())
                                : static_cast<pacer::Sleeper*>(os_sleeper_.get());
    config.host = &platform_;
    return config;
}

pacer::OsSleeper::Options Controls::os_sleeper_options_() const {
    pacer::OsSleeper::Options options{};
    options.wait_timer_slack_ns = *current_.wait_slack_ns;
    options.wait_sched_slice_ns = *current_.wait_slice_ns;
    return options;
}

std::string Controls::apply(const Settings& changes, const std::string& source) {
    if (changes.empty()) return "";
    Settings next = current_;
    next.merge(changes);

    // Check everything before changing anything.
    if (!(*next.hz > 0 && *next.hz <= 10000)) return "hz: " + format("%g", *next.hz) + " is out of range (0, 10000]";
    if (!(*next.sched_period_ms >= 0 && *next.sched_period_ms <= 16)) {
        return "sched_period_ms: " + format("%g", *next.sched_period_ms) + " is out of range [0, 16]";
    }
    if (!(*next.preempt_prob >= 0 && *next.preempt_prob < 1)) {
        return "preempt_prob: " + format("%g", *next.preempt_prob) + " is out of range [0, 1)";
    }
    if (!(*next.precise_k > 0)) return "precise_k: " + format("%g", *next.precise_k) + " must be > 0";
    if (*next.sched_slice_us != 0 && !(*next.sched_slice_us >= 100 && *next.sched_slice_us <= 100000)) {
        return "sched_slice_us: " + format("%g", *next.sched_slice_us) + " is out of range (0, or [100, 100000])";
    }
    if (*next.fifo_priority < 0 || *next.fifo_priority > 99) {
        return "fifo_priority: " + std::to_string(*next.fifo_priority) + " is out of range [0, 99]";
    }
    if (*next.nice < -20 || *next.nice > 19) return "nice: " + std::to_string(*next.nice) + " is out of range [-20, 19]";
    if (*next.timer_slack_ns < 0) return "timer_slack_ns: " + std::to_string(*next.timer_slack_ns) + " is negative";
    if (*next.timer_period_ms < 0) return "timer_period_ms: " + std::to_string(*next.timer_period_ms) + " is negative";
    // OsSleeper::Options would read 0 as its default: the demo always names a value.
    if (*next.wait_slack_ns < -1 || *next.wait_slack_ns == 0) {
        return "wait_slack_ns: " + std::to_string(*next.wait_slack_ns) + " must be positive, or -1 (the thread's own)";
    }
    if (*next.wait_slice_ns < -1 || *next.wait_slice_ns == 0) {
        return "wait_slice_ns: " + std::to_string(*next.wait_slice_ns) + " must be positive, or -1 (the thread's own)";
    }
    LoadConfig load = load_->config();
    apply_load_settings(next, &load);
    if (std::string problem = validate(resolve(load)); !problem.empty()) return problem;
    {
        Settings saved = current_;
        current_ = next;
        std::string problem = pacer::validate(pacer_config_());
        current_ = saved;
        if (!problem.empty()) return problem;
    }

    const bool new_sleeper = *next.sched_period_ms != *current_.sched_period_ms ||
                             *next.preempt_prob != *current_.preempt_prob ||
                             *next.wait_slack_ns != *current_.wait_slack_ns ||
                             *next.wait_slice_ns != *current_.wait_slice_ns;
    const bool new_parameters = *next.precise_k != *current_.precise_k ||
                                *next.robust_tolerance_us != *current_.robust_tolerance_us ||
                                *next.timer_margin_us != *current_.timer_margin_us;
    const bool new_thread_timing = *next.timer_slack_ns != *current_.timer_slack_ns ||
                                   *next.timer_period_ms != *current_.timer_period_ms ||
                                   *next.sched_slice_us != *current_.sched_slice_us ||
                                   *next.fifo_priority != *current_.fifo_priority ||
                                   *next.nice != *current_.nice;
    const bool new_wait_point = *next.wait_point != *current_.wait_point;
    const bool new_hz = *next.hz != *current_.hz;
    const bool new_strategy = *next.strategy != *current_.strategy;
    const bool new_miss_policy = *next.miss_policy != *current_.miss_policy;
    const bool new_vsync = *next.vsync != *current_.vsync;
    current_ = next;

    if (new_thread_timing) remake_thread_timing_();
    if (new_wait_point || new_hz || new_strategy || new_miss_policy) {
        pacer::Config live = pacer_->config();
        live.wait_point = *current_.wait_point;
        live.target_hz = *current_.hz;
        live.strategy = *current_.strategy;
        live.miss_policy = *current_.miss_policy;
        pacer_->reconfigure(live);   // validated above, with the same values
    }
    if (new_sleeper || new_parameters) {
        remake_pacer_ = true;
        if (next_index_ == 0) remake_now_();   // nothing paced yet: no grid to keep
    }
    // After the pacer's reconfigure: leaving vsync or auto, it sets the
    // interval to 0, and the vsync setting comes back here.
    if (new_vsync || new_strategy) apply_swap_interval_();
    load_->set_config(load);

    add_marker(source + ": set " + describe(changes));
    return "";
}

void Controls::remake_now_() {
    remake_pacer_ = false;
    pacer_.reset();   // first: it waits on the sleepers replaced next
    simulated_.reset();   // before the OS sleeper it wraps
    // The OS sleeper only when its wait settings change: kept, it keeps
    // reporting what its waits got. Destroyed here, on the pacing thread, the
    // old one puts back the slice it held, so it leaves nothing behind.
    const pacer::OsSleeper::Options options = os_sleeper_options_();
    if (options.wait_timer_slack_ns != os_sleeper_made_with_.wait_timer_slack_ns ||
        options.wait_sched_slice_ns != os_sleeper_made_with_.wait_sched_slice_ns) {
        os_sleeper_.reset();
        os_sleeper_ = std::make_unique<pacer::OsSleeper>(options);
        os_sleeper_made_with_ = options;
    }
    if (*current_.sched_period_ms > 0) {
        pacer::SimulatedSchedulerConfig config{};
        config.period_ns = std::llround(*current_.sched_period_ms * 1e6);
        config.preempt_probability = *current_.preempt_prob;
        simulated_ = std::make_unique<pacer::SimulatedScheduler>(*os_sleeper_, clock_, config);
    }
    pacer_ = std::make_unique<pacer::Pacer>(pacer_config_());
}

// Settings are applied on the pacing thread (the frame loop's), which is the
// thread a ThreadTiming acts on and must be destroyed on.
void Controls::remake_thread_timing_() {
    thread_timing_.reset();   // first: restores what the previous request changed
    pacer::ThreadTiming::Request request{};
    request.timer_slack_ns = *current_.timer_slack_ns;
    request.timer_period_ns = int64_t{*current_.timer_period_ms} * 1'000'000;
    request.sched_slice_ns = std::llround(*current_.sched_slice_us * 1e3);
    request.fifo_priority = *current_.fifo_priority;
    request.nice = *current_.nice;
    if (request.timer_slack_ns == 0 && request.timer_period_ns == 0 && request.sched_slice_ns == 0 &&
        request.fifo_priority == 0 && request.nice == 0) {
        return;   // everything at the OS's default
    }
    thread_timing_ = std::make_unique<pacer::ThreadTiming>(request);   // ranges checked in apply()
}

void Controls::apply_swap_interval_() {
    if (!owns_swap_interval(*current_.strategy)) platform_.set_swap_interval(swap_interval(*current_.vsync));
}

bool Controls::pacer_owns_swap_interval() const { return owns_swap_interval(*current_.strategy); }

pacer::Frame Controls::wait() {
    pacer::Frame frame = pacer_->wait();
    const bool remade = remake_pacer_;
    if (remake_pacer_) {
        // The old pacer just woke on its grid point; the new one's first wait
        // returns at once and anchors its grid here.
        remake_now_();
        pacer_->wait();
    }
    frame.index = next_index_++;
    frame.interval_ns = frame.index == 0 ? 0 : frame.wake_ns - last_wake_ns_;
    last_wake_ns_ = frame.wake_ns;

    // The pacer's decision (what paces and why) whenever its seq changes. A
    // new pacer starts its own sequence; after a remake the frame is the old
    // pacer's, so the new one's seq is the one to follow.
    if (frame.index == 0 || remade || frame.decision_seq != last_decision_seq_) {
        last_decision_seq_ = pacer_->decision().seq;
        decision_ = pacer_->decision().reason;
    }
    return frame;
}

void Controls::add_marker(const std::string& text) {
    if (!markers_.empty()) markers_ += "; ";
    markers_ += text;
}

std::string Controls::take_markers() { return std::exchange(markers_, std::string()); }
std::string Controls::take_decision() { return std::exchange(decision_, std::string()); }

std::string Controls::sleeper_description() const {
    std::string os = "OS: " + os_sleeper_->describe();
    if (!simulated_) return os;
    return "simulated " + format("%g ms tick", *current_.sched_period_ms) +
           format(", preempt p=%g", *current_.preempt_prob) + " over " + os;
}

int64_t Controls::preemptions() const { return simulated_ ? simulated_->preemptions() : 0; }

const pacer::ThreadTiming::Report* Controls::thread_timing() const {
    return thread_timing_ ? &thread_timing_->report() : nullptr;
}

}  // namespace pacer_demo
