// pacer.h: frame pacing for game loops. C++17, no window-system dependency.
//
// Presents frames on a steady cadence when vsync is missing, refused or
// misbehaving. Deadlines lie on an absolute grid (deadline += period), so
// error never accumulates; a named strategy does each wait.
//
// USAGE
//   pacer::Config config;                        // every default is in place
//   config.target_hz = 144;
//   pacer::Pacer pacer(config);                  // or Pacer::create(config, &error)
//   while (running) {
//       render();
//       pacer::Frame frame = pacer.wait();       // with a Host, its GPU work done; then the deadline
//       swap_buffers();
//       pacer.mark_present();                    // optional: when the swap returned
//       simulate(pacer::seconds_of(frame.dt_ns)); // the steady dt, not the measured one
//   }
//   config.target_hz = 60;
//   pacer.reconfigure(config);                   // any change, live, at the next wait
//
// A window in the background is paced at Config::background_hz (unfocused)
// or hidden_hz (minimized); a display with variable refresh at a cap just
// under its maximum (Config::display.vrr).
//
// Time is an int64_t count of nanoseconds (_ns) on the clock's monotonic
// timeline; rates are double Hz. A Pacer has no hidden globals and is used by
// one thread at a time. Nothing here throws except the Pacer constructor;
// wait, mark_present and reconfigure never do.
//
// This header is what an engine needs in its first hour, with what it
// includes: pacer/strategy.h (the strategies), pacer/host.h (the Host a window
// system gives it), pacer/units.h. The diagnostics: pacer/status.h (why it
// paces as it does) and pacer/metrics.h (frame statistics). And pacer/tuning.h
// (the strategies' own settings), pacer/platform.h (clocks, sleepers, a
// simulated scheduler: inject fakes and the pacer is deterministic),
// pacer/thread_timing.h, pacer/fixed_step.h. Why each default: docs/design.md.
#pragma once

#include <pacer/host.h>
#include <pacer/strategy.h>
#include <pacer/tuning.h>
#include <pacer/units.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pacer {

class Clock;            // pacer/platform.h
class Sleeper;          // pacer/platform.h
class Stats;            // pacer/metrics.h
struct Decision;        // pacer/status.h
struct WaitStatus;      // pacer/status.h
struct DisplayClock;    // pacer/status.h

inline constexpr int64_t kLeadAuto = -2;   // Config::display.lead_ns: learned
inline constexpr int64_t kLeadOff = -1;    // Config::display.lead_ns: never pace to the display's clock

// What an engine sets. Every default is written here, once (the strategies'
// own settings in pacer/tuning.h); validate() gives each field's range.
struct Config {
    double target_hz = 60;                      // Hz, [0.001, 10000]
    Strategy strategy = Strategy::Timer;
    MissPolicy miss_policy = MissPolicy::Skip;
    WaitPoint wait_point = WaitPoint::BeforePresent;
    int32_t resync_after_periods = 8;           // late by this many periods: re-anchor, [1, 1e6]
    int64_t max_dt_ns = 100'000'000;            // Frame::dt_ns clamp after a stall, [1 ns, 60 s]

    struct Display {                            // the display clock (Host::take_presented)
        int64_t lead_ns = kLeadAuto;            // how long before its refresh a display_lock deadline
                                                // falls: kLeadAuto (learned from shown frames: the
                                                // frame's work and the compositor's latch), or fixed,
                                                // [0, 1 s], which also slides another waiter's grid onto
                                                // the display at refresh / n; kLeadOff: auto never locks
        double hitches_per_1000 = 1;            // the learned lead's budget: at most this many frames
                                                // per 1,000 refreshes may miss their refresh (the last
                                                // frame shows again: a hitch) because the lead was short
                                                // of the work; more saves latency, (0, 1000]
        // Variable refresh (FreeSync, G-Sync, HDMI VRR): while it is on, frames
        // go out at once and the timer paces at the target or the cap max -
        // max^2 / 3600 (138.24 Hz for 144), whichever is lower, so that no frame
        // queues behind vsync; below the range the pace stays even at the
        // target (docs/design.md, "VRR").
        Vrr vrr = Vrr::Auto;                    // auto: on where Host::variable_refresh says so
        double vrr_min_hz = 0;                  // the panel's range, both or neither: 0 and 0 take
        double vrr_max_hz = 0;                  // the Host's, else up to the stated refresh;
                                                // [1, 10000], min below max
    } display;
    // A window in the background (Host::window_state) is paced slower, by the
    // timer with swap interval 0 whatever the strategy (a hidden Wayland
    // surface gets no refreshes: a vsync swap would block for ever), from the
    // next wait, the grid restarting from the last wake at the new rate: no
    // catch-up frames. Each is a ceiling (a lower target stays); 0: off (a
    // hidden window then takes background_hz). [0.001, 10000] or 0.
    double background_hz = 30;                  // unfocused but visible: it may still be watched
                                                // (a second monitor, a stream), so motion stays
                                                // smooth at half of a 60 Hz display's cost
    double hidden_hz = 10;                      // minimized or hidden: nothing is seen, but the loop
                                                // still handles input, sound and the network every
                                                // 100 ms
    struct StatsWindow {                        // Pacer::stats()
        int64_t off_tolerance_ns = 500'000;     // interval off by more is "off", [0, 1 s]
        int32_t history_frames = 1024;          // frames kept, [2, 1e6]
    } stats;
    Tuning tuning;                              // the strategies' own settings (pacer/tuning.h):
                                                // for benches and experiments, not engines

    // Injection; not owned, must outlive the Pacer. Null: the OS's own.
    Clock* clock = nullptr;                     // fixed at construction
    Sleeper* sleeper = nullptr;                 // an injected one keeps its own wait settings
    Host* host = nullptr;                       // none: vsync and auto act as timer, and
                                                // wait() finishes no GPU work (Host::finish_gpu)
};

bool operator==(const Config::StatsWindow& a, const Config::StatsWindow& b);
inline bool operator!=(const Config::StatsWindow& a, const Config::StatsWindow& b) { return !(a == b); }

// "" when valid, else one line naming the field path, e.g.
// "tuning.timer.max_wait_cpu_ns: -1 is out of range [0, 1000000000]".
std::string validate(const Config& config);

// One frame, as wait() returns it and the statistics keep it. A game loop
// needs the first fields; the rest say how the wait went, for traces,
// overlays and the statistics (pacer/metrics.h).
struct Frame {
    int64_t index;                  // 0, 1, 2 ... since the pacer was made
    int64_t dt_ns;                  // advance the simulation by this: the grid step (vsync:
                                    // whole refreshes, fitted ones once Pacer::display() is
                                    // locked; sleep, resync: measured), <= max_dt_ns
    int64_t wake_ns;                // when the wait returned: this frame's start
    int64_t deadline_ns;            // the grid point this wait aimed at
    int64_t predicted_present_ns;   // when the frame built after this wait reaches the screen
                                    // (locked display: a fitted refresh, by recent wake-to-shown;
                                    // display_lock: the refresh this frame aims at)
    bool interrupted;               // interrupt() was called since the last wait returned: this
                                    // one returned at once, before its deadline where it waited
    // How the wait went.
    int64_t lateness_ns;            // wake_ns - deadline_ns (negative: early)
    int64_t interval_ns;            // wake_ns - the previous wake_ns (0 on frame 0)
    int64_t period_ns;              // the grid period in force
    int64_t work_ns;                // the engine's time: previous wake to this wait's call, and
                                    // on to the end of Host::finish_gpu where it ran
    int64_t gpu_finish_ns;          // of work_ns, in Host::finish_gpu during this wait (0: none)
    int64_t slept_ns;               // in OS sleeps during this wait
    int64_t spun_ns;                // spinning during this wait
    int64_t wait_cpu_ns;            // thread CPU time in this wait (0: no wait made, -1 unknown)
    int64_t present_ns;             // the previous frame's mark_present time (-1 none)
    int32_t missed;                 // grid points skipped because the frame was late
    bool resynced;                  // the grid was re-anchored here (first frame, stall)
    Strategy strategy;              // what paced this frame
    int32_t decision_seq;           // Decision::seq in force
    bool contended;                 // the timer counted the thread as contended
    int64_t displayed_index;        // newest frame reported shown during this wait (its index), -1 none
    int64_t displayed_ns;           // when that frame was shown, -1 none
};

class Pacer {
public:
    // Without exceptions: nullptr and *error (if given) set to validate()'s line.
    static std::unique_ptr<Pacer> create(const Config& config, std::string* error = nullptr);
    explicit Pacer(const Config& config = {});   // throws std::invalid_argument if invalid
    ~Pacer();                                    // puts back what it changed (swap, slice)
    Pacer(const Pacer&) = delete;
    Pacer& operator=(const Pacer&) = delete;

    Frame wait() noexcept;                          // to the next deadline; once per frame. A clock that
                                                    // jumps either way by resync_after_periods or more
                                                    // re-anchors the grid (Frame::resynced)
    // Cuts the wait in progress short, or the next one where none is: it
    // returns within one 20 ms slice (at once where it was under 40 ms from
    // its end), whatever the clock does (a stopped one too: every loop that
    // waits on it checks the flag), with Frame::interrupted set. For a signal handler (SIGTERM at
    // 0.001 Hz) or another thread: async-signal-safe, it only sets a
    // lock-free flag. The frame is left out of stats(); the grid goes on.
    void interrupt() noexcept;
    // The swap returned (-1: now). A negative time, or one more than 1 s
    // after now, is no time of this clock: ignored.
    void mark_present(int64_t present_ns = -1) noexcept;
    // Applies any change at the next wait; the grid, the frame index and the
    // statistics continue. "" or validate()'s line (then nothing changes);
    // Config::clock cannot change. The same config again does nothing.
    std::string reconfigure(const Config& config) noexcept;

    const Config& config() const noexcept;       // as last given
    // The diagnostics: their types are in pacer/metrics.h and pacer/status.h.
    const Stats& stats() const noexcept;         // the recent frames' statistics
    void reset_stats() noexcept;
    const Decision& decision() const noexcept;   // the decision in force and its reason
    WaitStatus status() const noexcept;          // what the waiting strategy knows now
    DisplayClock display() const noexcept;       // the display clock fitted from Host::take_presented
    Clock& clock() noexcept;

private:
    struct Impl;
    explicit Pacer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pacer
