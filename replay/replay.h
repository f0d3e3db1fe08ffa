// replay/replay.h: what would pacer have done with this run? A recorded
// game's frames (a PresentMon capture or a pacer-demo trace) replayed against
// any strategy on a fake clock and a modelled display: deterministic, the
// same bytes for the same input on any machine. pacer-replay (main.cpp) is
// its command line; a test or an engine's own tool calls it the same way:
//
//     pacer_replay::Recording recording;
//     if (std::string error = pacer_replay::read_recording("capture.csv", {}, &recording); !error.empty())
//         return fail(error);
//     pacer_replay::ReplayConfig config;   // timer at the recording's own refresh
//     config.display.refresh_hz = recording.refresh_hz;
//     config.target_hz = recording.refresh_hz;
//     const pacer_replay::ReplayResult result = pacer_replay::replay(recording, config);
//
// Each recorded frame gives the replay its CPU work and its GPU work; the
// pacer, the display model and the frame loop do the rest, through the public
// API (a Host, a Clock and a Sleeper of this file's own).
//
// CAVEAT, where the user reads it (the table says it too): PresentMon counts
// a game's own frame limiter's sleep inside MsCPUBusy, so a capture of a game
// that already limits its rate replays that sleep as work.
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pacer_replay {

// One recorded frame: what the replay takes from it.
struct RecordedFrame {
    int64_t cpu_work_ns = 0;   // the frame's CPU time (MsCPUBusy and its kin)
    int64_t gpu_work_ns = 0;   // its GPU time (MsGPUBusy, msGPUActive); 0 unknown
    bool displayed = false;    // the recording saw it on screen
    double present_ms = 0;     // the recording's own present-to-present interval, ms (0 first/unknown)
    double display_ms = 0;     // ... and display-change interval, ms (0 unknown)
    // Where the recording dates its frames (the demo's trace does), ms since
    // its first wake: when its swap was called (before present: the wake
    // before it; frame start: its return) and when it was on screen; the
    // time from its work's start to on screen; and its swap's own time where
    // the swap did not wait for a refresh (0 unknown). -1: unknown.
    double swapped_at_ms = -1;
    double shown_at_ms = -1;
    double latency_ms = -1;
    int64_t swap_ns = 0;
    bool swap_blocked = false;   // its swap waited for a refresh (vsync): its frame queued
    bool decided = false;      // a decision of the pacer came into force on this frame
};

// A run as read from a file: one process's swap chain, in time order.
struct Recording {
    std::string path;
    std::string layout;        // "PresentMon (default columns)", "PresentMon 1.x", "PresentMon --v2_metrics", "pacer-demo trace"
    std::string chain;         // "Presenter.exe pid 1234 swap chain 0x...", or the trace's name
    int chains = 1;            // swap chains the file holds
    std::vector<RecordedFrame> frames;
    int64_t rows_without_work = 0;   // of the chain's rows, those with no CPU work (NA): left out
    double refresh_hz = 0;     // the display's, fitted from the displayed frames (0 when none were)
    double target_period_ms = 0;   // the period the recording paced to (median; 0 unknown)
    int decisions = -1;        // the pacer's decisions the recording counts (-1: it says nothing of them)
    bool shown_times = false;  // its frames carry shown_at_ms: its own display can be replayed
};

// Which swap chain to read: each empty field matches any; with none given,
// the chain with the most frames. A CapFrameX capture holds one process and
// its runs: application matches its ProcessName, run picks one.
struct Selection {
    std::string application;
    std::string process_id;
    std::string swap_chain;
    int run = 0;   // CapFrameX: the run, from 1 (0: the one with the most frames)
};

// Reads a PresentMon CSV (1.x, today's default columns or --v2_metrics), a
// pacer-demo --trace CSV or a CapFrameX JSON capture (its CaptureData: the
// frame times, CpuActive and GpuActive where it has them, else the 1.x
// columns). "" or one line naming the file and where in it: the line and the
// column, "capture.csv:12: column 'MsCPUBusy': 'x' is not a number", or the
// field, "capture.json: Runs[0].CaptureData.CpuActive[7]: not a number".
std::string read_recording(const std::string& path, const Selection& selection, Recording* out);

// The display the replay shows frames on: a fixed cadence, or the
// recording's own display (recorded: its refreshes where the recording saw
// frames shown, the gaps between them filled at refresh_hz). A frame swapped
// with the swap interval at 0 is shown at the first refresh at least latch_ns
// after its swap, or replaced by a newer one before it (mailbox); with vsync
// it queues behind the frames before it (FIFO), one each n refreshes, and the
// swap blocks while queue_frames frames already wait for their refreshes, as
// a driver's swap chain does. Every frame's fate is reported
// (Host::take_presented) once its refresh has passed, dated on the display's
// own clock. Or a VRR panel (vrr below).
struct DisplayModel {
    double refresh_hz = 60;
    int64_t latch_ns = 1'000'000;   // a frame must be swapped this long before its refresh
    int queue_frames = 2;           // vsync: frames that may wait for their refreshes before a swap blocks
    // A jittery reporter, as GNOME's mutter headless is: each reported time
    // off its refresh by up to this much either way (a fixed pseudo-random
    // sequence), dated in software (no kPresentedHwClock). 0: exact.
    int64_t report_jitter_ns = 0;
    // The recording's own refreshes (Recording::shown_times), reported as a
    // compositor dates them in software: no flags, no refresh counter. The
    // latch is then the recording's own (fitted_latch_ns): weston's headless
    // output reports a frame about 19 ms after the swap that just made it
    // (its repaint, its render, then a 16 ms timer).
    bool recorded = false;
    double stated_hz = 0;           // the refresh the display says it has (0: refresh_hz); weston says 60
    // A compositor that repaints only when a frame waits (weston, mutter):
    // after a refresh with none, a swap starts its repaint this much later,
    // and its clock runs on from the refresh that repaint makes. weston's
    // headless: its stated period less its 7 ms repaint window. 0: a display
    // that never stops.
    int64_t idle_repaint_ns = 0;
    // A panel with variable refresh from vrr_min_hz to refresh_hz, its
    // maximum (vrr_panel.h): each frame begins its scanout latch_ns after its
    // swap, or once the fastest refresh since the last allows; below the range
    // the driver repeats frames. The Host says so (Host::variable_refresh),
    // so that the pacer's VRR auto turns on. Its reports are dated on the
    // panel's own clock with no refresh stated (there is none to state).
    bool vrr = false;
    double vrr_min_hz = 0;
};

struct ReplayConfig {
    std::string label;                         // the table's row name; "" makes one
    pacer::Strategy strategy = pacer::Strategy::Timer;
    double target_hz = 60;
    pacer::WaitPoint wait_point = pacer::WaitPoint::BeforePresent;
    int64_t lead_ns = pacer::kLeadAuto;        // display_lock's lead (Config::display.lead_ns)
    double hitches_per_1000 = 1;               // display_lock's learned lead's budget
    DisplayModel display;
};

// The replay's figures, as tools/qa.py and the demo's summary count them.
struct ReplayResult {
    std::string label;
    int64_t frames = 0;
    double presents_off_pct = 0;   // swap-return intervals off the period in force by > 0.5 ms
    double shown_off_pct = 0;      // shown intervals (display reports) off by > 0.5 ms
    double hitches_per_1000 = 0;   // refreshes per 1,000 that showed the frame before again
    double latency_p50_ms = 0;     // from the start of a frame's work to its refresh on screen
    double latency_p99_ms = 0;
    int64_t dropped = 0;           // frames never shown (replaced before their refresh)
    int decisions = -1;            // decisions that came into force (-1: unknown)
    std::string decision;          // the pacer's last decision, with its reason
};

// Watches a replay as it runs, on the replay's fake clock: a QA scenario's
// steps, record and trace (scenario_run.h). The calls come in the demo's
// order: a frame's wait, (before present) the swap after it, the frame's
// work, (at the frame start) its swap; the reports as the pacer takes them.
class Observer {
public:
    virtual ~Observer() = default;
    // After the frame's wait (and before present, the swap after it), before
    // its work: may change the pacer's settings (Pacer::reconfigure). false
    // ends the replay here.
    virtual bool turn_started(pacer::Pacer& pacer, const pacer::Frame& frame) = 0;
    // The swap of frame_index returned at return_ns, having blocked swap_ns.
    virtual void swapped(int64_t frame_index, int64_t return_ns, int64_t swap_ns) = 0;
    // The turn's work is done (at the frame start: and its swap).
    virtual void turn_done(const pacer::Pacer& pacer, const pacer::Frame& frame, int64_t last_swap_return_ns) = 0;
    virtual void presented(const pacer::Presented& report) = 0;
    // The last frame's fate is known; the pacer as it ended.
    virtual void finished(const pacer::Pacer& pacer) = 0;
};

ReplayResult replay(const Recording& recording, const ReplayConfig& config, Observer* observer = nullptr);

// The recording's own figures, counted as the replay counts its own: presents
// and display changes off their medians by more than 0.5 ms, frames never
// shown, and where it dates its frames (shown_times) its hitches against
// refresh_hz and its latency. Its label is "the recording".
ReplayResult recorded_figures(const Recording& recording);

// The recording's own display's latch: how long before the time it reports
// a frame must have been swapped. Each frame shown bounds it from above (it
// made its refresh with that room, shown - swap call); one swapped before
// the refresh that showed the frame ahead of it, and shown itself a refresh
// later, from below (it missed that refresh with that room: with the swap
// interval at 0 it would have replaced the frame ahead). A queued frame's
// (its swap waited) says nothing. Every latch between the most room a frame
// missed with and the least one made it with agrees with every frame; the
// latch is the middle of that span, off by at most half of it (weston's:
// 15.1-15.5 to 19.2-19.5 ms, docs/bench/replay.md), else the least room a
// frame made it with. -1 without such frames.
int64_t fitted_latch_ns(const Recording& recording);

// The default set: timer, vsync and display_lock at target_hz on a display
// of refresh_hz.
std::vector<ReplayConfig> default_configs(double target_hz, double refresh_hz);

// A markdown table of the results, after what was read and the caveat.
std::string table(const Recording& recording, const std::vector<ReplayResult>& results);

}  // namespace pacer_replay
