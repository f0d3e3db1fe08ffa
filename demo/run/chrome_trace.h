// chrome_trace.h: a demo run as Chrome trace-event JSON, for Perfetto UI
// (ui.perfetto.dev: "Open trace file") or chrome://tracing.
//
// LAYOUT (the JSON Object Format of the Trace Event Format)
//   { "displayTimeUnit": "ms",
//     "otherData": {"generator": "pacer-demo", ...},
//     "traceEvents": [ ... ] }
// Times are microseconds (ts, dur) since the first frame's wake, written as
// whole nanoseconds over 1000 ("16666.667"), so every span is exact to the
// nanosecond the pacer measured. The JSON is written by nlohmann's json.
// One process (pid 1, named by the caller) with one thread (tid 1, "frame
// loop"), named by "M" metadata events. Per frame K, written once frame K+1's
// wait has returned (the wait ends frame K):
//   "X" frame K   wake K .. wake K+1 (args: index, interval_ms, strategy)
//   "X" work      wake K .. wake K + work: the engine's time, everything
//                 the loop did between the two waits (simulate, render, swap,
//                 at either wait point): pacer::Frame::work_ns of frame K+1
//   "X" wait      the rest of the frame: from the wait's call to wake K+1
//                 (args: deadline_ms, lateness_us, missed, resynced)
//   "X" sleep     inside wait, at its start, slept_ns long
//   "X" spin      inside wait, at its end, spun_ns long
// Sleep comes first and spin last because every strategy waits that way
// (sleep, then spin the remainder); time in the wait that is neither is the
// strategy's own overhead. Spans nest exactly (child within parent), as the
// viewers require for stacking on one thread.
//   "C" MsBetweenSimulationStart: a counter track of the interval in ms.
//   "i" instant events, thread-scoped ("s": "t"), at the wake of the frame
//   they were applied before: the trace CSV's Marker text (category
//   "marker") and Decision text (category "decision").
//
// FILES
//   As trace.h: events go to a new .pacer-XXXXXX beside PATH, renamed to PATH by close();
//   a run that fails leaves no half-written PATH. Open before the run and
//   check error(). Text (markers, the process name) is made valid UTF-8.
#pragma once

#include "run/atomic_file.h"
#include "pacer/pacer.h"

#include <pacer/status.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace pacer_demo {

class ChromeTraceWriter {
public:
    // Opens the temporary file and writes the metadata. process_name names the track
    // (e.g. "pacer-demo sdl2 steady-60.txt"). On failure error() says why.
    explicit ChromeTraceWriter(std::string path, std::string_view process_name = "pacer-demo");
    // Without a successful close(), the temporary file is removed.
    ChromeTraceWriter(const ChromeTraceWriter&) = delete;
    ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

    // "" while fine, else one line naming the path and the reason, e.g.
    // "--chrome-trace: cannot write /nonexistent/t.json: No such file or directory".
    const std::string& error() const { return out_.error(); }
    bool ok() const { return out_.ok(); }

    // Feeds one frame, in order, as TraceWriter::write. marker and decision
    // are free text (empty: none).
    void write(const pacer::Frame& frame, std::string_view decision = {}, std::string_view marker = {});
    // Ends the JSON, closes and renames the temporary file to PATH. Returns error().
    std::string close();

    int64_t frames() const { return frames_; }   // frames fed
    const std::string& path() const { return out_.path(); }

private:
    void event_(const std::string& text);   // one event object, with the separating comma
    AtomicFile out_;
    int64_t frames_ = 0;
    int64_t origin_ns_ = 0;
    int64_t previous_wake_ns_ = 0;
    int64_t previous_index_ = 0;
    bool first_event_ = true;
};

}  // namespace pacer_demo
