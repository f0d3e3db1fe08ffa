// controls.h: what the demo changes besides the pacer. A settings change
// (command line, scenario step, overlay click) goes through Controls::apply,
// which checks the whole new state (run/settings.h check(), the library's
// validate included) before anything changes, sets the demo's own parts and
// hands back the pacer::Config for app.cpp to give the Pacer's reconfigure.
//
// Controls owns the sleeper the demo injects into the pacer (the OS's, built
// with the wait settings, or the simulated scheduler wrapping it, so the
// overlay can say what the timer waits got), the pacing thread's timing
// controls (pacer::ThreadTiming), the synthetic load, the trace's markers and
// the vsync setting. It never makes or holds a Pacer.
//
// A new sleeper replaces the old one in two steps: apply() makes it and puts
// it in the Config; after the pacer's reconfigure has let go of the old one,
// settle() destroys it, putting back the slice it held before the new one's
// first wait takes its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <pacer/pacer.h>
#include <pacer/platform.h>
#include <pacer/thread_timing.h>

#include "run/load.h"
#include "run/settings.h"
#include "window/window.h"

namespace pacer_demo {

// What a ThreadTiming got, on one line: "slack 1000 ns, slice 700 us, not
// fifo, nice 3, timer period unsupported; refused: ..." (the refusals only
// with_refused).
std::string thread_timing_text(const pacer::ThreadTiming::Report& report, bool with_refused = true);

// app.cpp's one path for a settings change: Controls::apply, then the Pacer's
// reconfigure. Returns "" or the error line.
using ChangeSettings = std::function<std::string(const Settings& changes, const std::string& source)>;

class Controls {
public:
    explicit Controls(Window& window);   // default_settings(), nothing simulated
    ~Controls();
    Controls(const Controls&) = delete;
    Controls& operator=(const Controls&) = delete;

    // Applies the set fields of changes to the demo's parts and writes the
    // pacer's whole new Config to *config. Returns "" or one line naming the
    // bad value; on error nothing changes. source ("scenario:12", "ui",
    // "cli") goes into the trace's marker with the change.
    std::string apply(const Settings& changes, const std::string& source, pacer::Config* config);
    // After the pacer took that Config: drops the replaced sleepers and asks
    // for the vsync setting again when the pacer no longer owns the swap.
    void settle();
    const Settings& current() const { return current_; }   // every field set
    pacer::Config pacer_config() const;                     // the Config current() asks for

    LoadGenerator& load() { return *load_; }
    // "OS: clock_nanosleep(...)" or "simulated 4 ms tick, p=0.1 over OS: ...",
    // with what the timer waits got once one has run (OsSleeper::describe).
    std::string sleeper_description() const;
    int64_t preemptions() const;   // simulated scheduler's extra ticks; 0 without it
    // What the pacing thread's timing controls got; nullptr while every one
    // is at the OS default. A change remakes it: the old one restores first.
    const pacer::ThreadTiming::Report* thread_timing() const;
    bool pacer_owns_swap_interval() const;   // strategy vsync or auto

    // Changes applied since the last call, "; "-separated, for the trace's
    // Marker column.
    std::string take_markers();
    void add_marker(const std::string& text);   // e.g. a scenario's "mark overload"

private:
    void remake_thread_timing_();   // from current_; none when every control is 0
    void remake_sleepers_();        // from current_; the old ones wait for settle()

    Window& window_;
    Settings current_;
    pacer::OsClock clock_;   // the simulated scheduler's; the same timeline as the pacer's
    std::unique_ptr<pacer::OsSleeper> os_sleeper_, old_os_sleeper_;
    pacer::OsSleeper::Options os_sleeper_options_{};   // what os_sleeper_ was made with
    std::unique_ptr<pacer::SimulatedScheduler> simulated_, old_simulated_;
    std::unique_ptr<pacer::ThreadTiming> thread_timing_;
    std::unique_ptr<LoadGenerator> load_;
    bool swap_interval_due_ = true;
    std::string markers_;
};

}  // namespace pacer_demo
