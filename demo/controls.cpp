// controls.cpp: applying settings to the pacer, the scheduler and the load.
#include "controls.h"
#include "run/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace pacer_demo {

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

Controls::Controls(Window& window) : window_(window), current_(default_settings()) {
    remake_sleepers_();
    load_ = std::make_unique<LoadGenerator>();
}

// Members go in reverse order: the load threads, the thread timing, then the
// sleepers (the Pacer using them is app.cpp's, destroyed before Controls).
Controls::~Controls() = default;

pacer::Config Controls::pacer_config() const {
    pacer::Config config = to_pacer_config(current_);
    config.sleeper = simulated_ ? static_cast<pacer::Sleeper*>(simulated_.get())
                                : static_cast<pacer::Sleeper*>(os_sleeper_.get());
    config.host = &window_.host();
    return config;
}

std::string Controls::apply(const Settings& changes, const std::string& source, pacer::Config* config) {
    Settings next = current_;
    next.merge(changes);
    // Check everything before changing anything.
    if (std::string problem = check(next); !problem.empty()) return problem;

    const Settings& now = current_;
    const bool new_sleeper = *next.sched_period_ms != *now.sched_period_ms || *next.preempt_prob != *now.preempt_prob ||
                             *next.wait_slack_ns != *now.wait_slack_ns || *next.wait_slice_ns != *now.wait_slice_ns;
    const bool new_thread_timing = *next.timer_slack_ns != *now.timer_slack_ns ||
                                   *next.timer_period_ms != *now.timer_period_ms ||
                                   *next.sched_slice_us != *now.sched_slice_us ||
                                   *next.fifo_priority != *now.fifo_priority || *next.nice != *now.nice;
    swap_interval_due_ = swap_interval_due_ || *next.vsync != *now.vsync || *next.strategy != *now.strategy;
    current_ = next;

    if (new_thread_timing) remake_thread_timing_();
    if (new_sleeper) remake_sleepers_();
    LoadConfig load = load_->config();
    apply_load_settings(current_, &load);
    load_->set_config(load);
    *config = pacer_config();
    if (!changes.empty()) add_marker(source + ": set " + describe(changes));
    return "";
}

void Controls::settle() {
    old_simulated_.reset();   // before the OS sleeper it may wrap
    old_os_sleeper_.reset();  // on the pacing thread: puts back the slice it held
    // Leaving vsync or auto, the pacer set the interval to 0: the setting comes back.
    if (swap_interval_due_ && !pacer_owns_swap_interval()) window_.host().set_swap_interval(swap_interval(*current_.vsync));
    swap_interval_due_ = false;
}

void Controls::remake_sleepers_() {
    old_simulated_ = std::move(simulated_);
    // The OS sleeper only when its wait settings change: kept, it keeps
    // reporting what its waits got.
    pacer::OsSleeper::Options options{};
    options.wait_timer_slack_ns = *current_.wait_slack_ns;
    options.wait_sched_slice_ns = *current_.wait_slice_ns;
    if (!os_sleeper_ || options.wait_timer_slack_ns != os_sleeper_options_.wait_timer_slack_ns ||
        options.wait_sched_slice_ns != os_sleeper_options_.wait_sched_slice_ns) {
        old_os_sleeper_ = std::move(os_sleeper_);
        os_sleeper_ = std::make_unique<pacer::OsSleeper>(options);
        os_sleeper_options_ = options;
    }
    if (*current_.sched_period_ms > 0) {
        pacer::SimulatedSchedulerConfig config{};
        config.period_ns = std::llround(*current_.sched_period_ms * 1e6);
        config.preempt_probability = *current_.preempt_prob;
        simulated_ = std::make_unique<pacer::SimulatedScheduler>(*os_sleeper_, clock_, config);
    }
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

bool Controls::pacer_owns_swap_interval() const { return pacer::strategy_uses_host(*current_.strategy); }

void Controls::add_marker(const std::string& text) {
    if (!markers_.empty()) markers_ += "; ";
    markers_ += text;
}

std::string Controls::take_markers() { return std::exchange(markers_, std::string()); }

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
