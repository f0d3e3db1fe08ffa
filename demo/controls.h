// controls.h: the one place where the demo's settings change. The command
// line, scenario steps and overlay clicks all build a Settings (core/scenario.h:
// only the fields that change) and call Controls::apply, so a scenario step
// and a click do exactly the same thing.
//
// Controls owns what the settings drive: the pacer, the sleeper under it (the
// OS's, or the pacer's simulated scheduler wrapping it), the thread's timing
// controls and the synthetic load.
//
// The OS sleeper is the demo's own, injected into the pacer, so pacer::Config's
// wait_timer_slack_ns and wait_sched_slice_ns would not reach it: the
// settings wait_slack_ns and wait_slice_ns build it with OsSleeper::Options
// instead, and a change of either makes a new one (and so a new pacer, see
// below). Otherwise it is kept across pacer swaps, and with it what its timer
// waits got, which describe() reports.
//
// LIVE CHANGES
//   Rate, strategy, miss policy and wait point go to the running Pacer's
//   setters. The
//   sleeper and the strategies' parameters (precise k, robust tolerance, timer
//   margin) are fixed when a Pacer is made, so changing them makes a new one.
//   To keep the grid steady the swap happens inside wait(): the old pacer
//   waits for its next grid point, the new one is made right then and anchors
//   its grid there (a new pacer's first wait returns at once). Frame indices,
//   intervals and the statistics continue across the swap; only the new
//   strategies' estimators start again.
//
// VSYNC
//   With strategy vsync or auto the pacer sets the swap interval itself; the
//   vsync setting is then kept and applied again when another strategy is
//   chosen.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/stats.h>
#include <pacer/thread_timing.h>

#include "core/load.h"
#include "core/scenario.h"
#include "platform/platform.h"

namespace pacer_demo {

// What a ThreadTiming got, on one line: "slack 1000 ns, slice 700 us, not
// fifo, nice 3, timer period unsupported; refused: ..." (the refusals only
// with_refused).
std::string thread_timing_text(const pacer::ThreadTiming::Report& report, bool with_refused = true);

class Controls {
public:
    // The defaults: timer at 60 Hz, vsync off, the OS's scheduler, no load.
    static Settings defaults();

    explicit Controls(Platform& platform);
    ~Controls();
    Controls(const Controls&) = delete;
    Controls& operator=(const Controls&) = delete;

    // Applies the set fields of changes. Returns "" or one line naming the
    // bad value; on error nothing changes. source ("scenario:12", "ui",
    // "cli") goes into the trace's marker with the change.
    std::string apply(const Settings& changes, const std::string& source);
    // Every field set: what is in force now.
    const Settings& current() const { return current_; }

    // The pacer's wait, continuing across a pacer swap (see above).
    pacer::Frame wait();
    void mark_present(int64_t present_ns) { pacer_->mark_present(present_ns); }

    // For the overlay and the summary.
    const pacer::Pacer& pacer() const { return *pacer_; }
    pacer::WaitStatus waiter_state() const { return pacer_->status(); }
    LoadGenerator& load() { return *load_; }
    // "OS: clock_nanosleep(...)" or "simulated 4 ms tick, p=0.1 over OS: ...",
    // with what the timer waits got once one has run ("...; waits with slack
    // 1 ns, slice 100 us"; pacer::OsSleeper::describe).
    std::string sleeper_description() const;
    int64_t preemptions() const;   // simulated scheduler's extra ticks; 0 without it
    // What the thread's timing controls (timer slack, timer period, sched
    // slice, SCHED_FIFO, nice: pacer::ThreadTiming on the pacing thread) got,
    // including what was refused; nullptr while every one is at the OS default.
    // A change remakes the ThreadTiming: the old one restores first.
    const pacer::ThreadTiming::Report* thread_timing() const;
    // Whether the pacer owns the swap interval (strategy vsync or auto).
    bool pacer_owns_swap_interval() const;

    // Changes applied since the last call, "; "-separated, for the trace's
    // Marker column; and the pacer's decision when it changed (what paces
    // and why, pacer::Decision::reason), for the Decision column.
    std::string take_markers();
    void add_marker(const std::string& text);   // e.g. a scenario's "mark overload"
    std::string take_decision();

private:
    pacer::Config pacer_config_();
    void apply_swap_interval_();
    void remake_thread_timing_();   // from current_; none when every control is 0
    void remake_now_();   // makes the sleeper and the pacer from current_
    pacer::OsSleeper::Options os_sleeper_options_() const;   // from current_

    Platform& platform_;
    Settings current_;
    pacer::OsClock clock_;
    std::unique_ptr<pacer::OsSleeper> os_sleeper_;
    pacer::OsSleeper::Options os_sleeper_made_with_{};
    std::unique_ptr<pacer::SimulatedScheduler> simulated_;
    std::unique_ptr<pacer::ThreadTiming> thread_timing_;
    std::unique_ptr<pacer::Pacer> pacer_;
    std::unique_ptr<LoadGenerator> load_;
    bool remake_pacer_ = false;
    int64_t next_index_ = 0;
    int64_t last_wake_ns_ = 0;
    int32_t last_decision_seq_ = 0;
    std::string markers_, decision_;
};

}  // namespace pacer_demo
