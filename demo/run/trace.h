// trace.h: the per-frame trace CSV of a demo run.
//
// COLUMNS (one row per frame; PresentMon's names where the meaning matches;
// "NA" where a value does not exist, as PresentMon writes it)
//   Frame                     pacer::Frame::index
//   TimeInSeconds             this frame's wake, seconds since the first row's wake
//   MsBetweenSimulationStart  wake to wake: the pacer's interval. We measure
//                             when each frame starts (the wait returns), which is
//                             PresentMon's "simulation start", not a Present()
//                             call; NA on the first row.
//   MsBetweenPresents         between the two latest mark_present() times (the
//                             swap returning), NA until two are known
//   MsCPUBusy                 the engine's time before this wait: previous wake to
//                             the wait's call (pacer::Frame::work_ns)
//   MsCPUWait                 the wait itself: interval - work; NA on the first row
//   MsSleeping                time inside OS sleeps during the wait
//   MsSpinning                time spinning during the wait
//   MsWaitCpu                 thread CPU time used by the wait; NA where unknown
//   MsWakeLateness            wake - deadline (negative: early)
//   DeadlineSeconds           the grid point aimed at, same origin as TimeInSeconds
//   MsTargetPeriod            the grid period in force
//   Missed                    grid points skipped because the frame was late
//   Resynced                  1 when the grid was re-anchored at this frame
//   Strategy                  the strategy that waited (resolved: never "auto")
//   Decision                  free text from the app, e.g. what auto chose and why
//   Marker                    free text: scenario steps or setting changes applied
//                             before this frame ("; " between several)
//   The engine's clock and the loop (added later, so they come last):
//   MsDt                      what the scene moved by this frame (the shown
//                             time's advance) in the dt mode in force; 1 ns
//                             resolution; NA when the app gave none
//   DtMode                    raw, paced or fixed (demo/motion.h); raw is the
//                             interval clamped to 100 ms, as paced is
//   MsPacerDt                 pacer::Frame::dt_ns, whatever the mode; 1 ns resolution
//   FixedSteps                fixed: simulation steps run this frame; NA otherwise
//   FixedAlpha                fixed: the interpolation fraction drawn, [0, 1); NA otherwise
//   WaitPoint                 before_present or frame_start: where the loop waited
//   MsWakeToPresent           this wake to the return of the swap that followed it
//                             (before_present: the previous frame's swap, right
//                             after the wake; frame_start: after this frame's
//                             work); NA when no swap followed
//   MsPredictedPresent        pacer::Frame::predicted_present_ns - the wake; under
//                             display_lock, the refresh the frame aimed at (its lead)
//   Contended                 1 when the timer counted the thread as contended
//                             on this wait (pacer::Frame::contended)
//   The display, where the compositor reports what it showed (displayed();
//   wp_presentation under weston); NA where it says nothing (X11, sway 1.7):
//   DisplayedFrame            1 shown, 0 discarded (replaced before a refresh), NA no report
//   MsBetweenDisplayChange    this frame's time on screen minus the previous shown frame's
//   MsDisplayLatency          this wake to this frame on screen
//   MsAnimationError          the scene's advance since the previous shown frame (MsDt of
//                             the frames since, this one included) minus
//                             MsBetweenDisplayChange: > 0, the motion ran ahead of the screen
//   MsPresentPredictionError  on screen minus pacer::Frame::predicted_present_ns; under
//                             display_lock, the refresh shown less the one aimed at:
//                             a later refresh than the aim is a missed one
//                             (pacer::shown_late; the summary's missed_refresh_pct)
//   Added after the display's, at the end:
//   Window                    the window's state (pacer::Decision::window): foreground,
//                             unfocused or hidden; NA without a decision
//   PaceHz                    the rate paced at (pacer::Decision::pace_hz): the target,
//                             or a ceiling (background_hz, hidden_hz, VRR's cap)
// Text fields are quoted when they hold a comma, quote or newline (RFC 4180).
// A row waits in memory until its frame's report arrives, at most
// kHoldRows rows (then its display columns are NA); close() writes the rest.
//
// FILES
//   Rows go to a new .pacer-XXXXXX beside PATH, renamed to PATH by close() (atomic_file.h):
//   a run that fails or is killed leaves no half-written PATH. Open the writer before the run starts
//   and check error(), so an unwritable path is reported up front.
#pragma once

#include "run/atomic_file.h"
#include "pacer/pacer.h"

#include <pacer/status.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <string_view>

namespace pacer_demo {

// What a row carries beyond pacer::Frame.
struct TraceExtra {
    std::string_view decision;   // empty: nothing to say
    std::string_view marker;     // empty: no change this frame
    // The motion and the loop; the defaults write NA.
    std::string_view dt_mode = {};     // "raw", "paced", "fixed"
    int64_t motion_dt_ns = -1;         // MsDt; -1: none
    int32_t fixed_steps = -1;          // -1: not fixed
    double fixed_alpha = -1;           // < 0: not fixed
    std::string_view wait_point = {};  // "before_present", "frame_start"
    int64_t present_ns = -1;           // the swap after this wake returned; -1: none
    std::string_view window = {};      // Window: "foreground", "unfocused", "hidden"
    double pace_hz = -1;               // PaceHz; < 0: NA
    // Window and PaceHz from the decision in force.
    void pacing_of(const pacer::Decision& decision) {
        window = pacer::window_state_name(decision.window);
        pace_hz = decision.pace_hz;
    }
};

class TraceWriter {
public:
    // Opens the temporary file and writes the header. On failure error() says why.
    // temp_path: AtomicFile's, for a trace another process finishes (leave_temp).
    explicit TraceWriter(std::string path, std::string temp_path = {});
    // Without a successful close(), the temporary file is removed (nothing half-written).
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // "" while fine, else one line naming the path and the reason, e.g.
    // "--trace: cannot write /nonexistent/t.csv: No such file or directory".
    const std::string& error() const { return out_.error(); }
    bool ok() const { return out_.ok(); }

    // Appends one row. Does nothing once an error happened (error() says it).
    void write(const pacer::Frame& frame, const TraceExtra& extra = {});
    // What the display reported about a frame written or still to be written:
    // shown at displayed_ns (pacer::OsClock's timeline), or discarded.
    void displayed(int64_t frame_index, bool discarded, int64_t displayed_ns);
    static constexpr std::size_t kHoldRows = 32;
    // Flushes, closes and renames the temporary file to PATH. Returns error(); after a
    // failure the temporary file is removed.
    std::string close();
    // The rows written so far pushed to the file (the held ones wait), so a
    // process that ends without close() leaves them: pacer-run calls it every
    // kChunkRows rows. Returns error().
    static constexpr int64_t kChunkRows = 64;
    std::string flush() { return out_.flush(); }
    // Writes the held rows and leaves the temporary file for another process
    // to rename (AtomicFile::leave_temp). Returns error().
    std::string leave_temp();

    int64_t rows() const { return rows_; }
    const std::string& path() const { return out_.path(); }
    // The header line, without the newline.
    static const char* header();

private:
    struct Held {
        int64_t index, wake_ns, motion_dt_ns, predicted_present_ns;
        std::string text;   // the columns before the display's
        std::string tail;   // ... and after them
    };
    struct Fate {
        int64_t index;
        bool discarded;
        int64_t displayed_ns;
    };
    void flush_(bool all);
    void put_row_(const Held& row);
    AtomicFile out_;
    std::deque<Held> held_;
    std::deque<Fate> fates_;            // reports not yet matched to a written row
    int64_t last_shown_ns_ = -1;        // the previous shown frame's time on screen
    int64_t advance_since_shown_ns_ = 0;   // MsDt summed since it
    int64_t rows_ = 0;
    int64_t origin_ns_ = 0;
    int64_t previous_present_ns_ = -1;
};

}  // namespace pacer_demo
