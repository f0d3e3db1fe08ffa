// chrome_trace.cpp: Chrome trace-event JSON of a run (layout in chrome_trace.h).
#include "run/chrome_trace.h"

#include <pacer/units.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pacer_demo {

namespace {

using nlohmann::json;

// Nanoseconds as microseconds: the double nearest a whole number of ns over
// 1000, which nlohmann writes as its shortest exact decimal ("16666.667"),
// so nested spans stay nested as the pacer measured them.
double us_of_ns(int64_t ns) { return pacer::us_of(static_cast<double>(ns)); }

// A complete ("X") span on the frame-loop thread.
json span(std::string name, int64_t start_ns, int64_t duration_ns, json args = json::object()) {
    return {{"name", std::move(name)}, {"cat", "pacing"}, {"ph", "X"}, {"pid", 1}, {"tid", 1},
            {"ts", us_of_ns(start_ns)}, {"dur", us_of_ns(duration_ns)}, {"args", std::move(args)}};
}

std::string text_of(const json& event) { return event.dump(-1, ' ', false, json::error_handler_t::replace); }

json instant(std::string_view name, const char* category, int64_t at_ns) {
    return {{"name", std::string(name)}, {"cat", category}, {"ph", "i"}, {"s", "t"},
            {"pid", 1}, {"tid", 1}, {"ts", us_of_ns(at_ns)}};
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::string path, std::string_view process_name)
    : out_(std::move(path), "--chrome-trace: ") {
    if (!out_.ok()) return;
    std::fputs("{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"pacer-demo\","
               "\"time_origin\":\"the first frame's wake\"},\n\"traceEvents\":[\n",
               out_.get());
    // Every event is on pid 1, tid 1: one process, its frame-loop thread.
    event_(text_of({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1},
            {"args", {{"name", std::string(process_name)}}}}));
    event_(text_of({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "frame loop"}}}}));
}

// One event a line, written as it comes: the trace's memory stays flat. Text
// that is not UTF-8 (a scenario file's name can be anything) becomes U+FFFD.
void ChromeTraceWriter::event_(const std::string& text) {
    if (!first_event_) std::fputs(",\n", out_.get());
    std::fputs(text.c_str(), out_.get());
    first_event_ = false;
}

void ChromeTraceWriter::write(const pacer::Frame& frame, std::string_view decision, std::string_view marker) {
    if (!ok()) return;
    if (frames_ == 0) origin_ns_ = frame.wake_ns;
    const int64_t wake_ns = frame.wake_ns - origin_ns_;

    if (frames_ > 0) {
        // This wait ended the previous frame: its work, then this wait.
        const int64_t start_ns = previous_wake_ns_;
        const int64_t length_ns = std::max<int64_t>(wake_ns - start_ns, 0);
        const int64_t work_ns = std::clamp<int64_t>(frame.work_ns, 0, length_ns);
        const int64_t wait_start_ns = start_ns + work_ns;
        const int64_t wait_ns = length_ns - work_ns;
        const int64_t slept_ns = std::clamp<int64_t>(frame.slept_ns, 0, wait_ns);
        const int64_t spun_ns = std::clamp<int64_t>(frame.spun_ns, 0, wait_ns - slept_ns);
        const char* strategy = pacer::strategy_name(frame.strategy);

        event_(text_of(span("frame " + std::to_string(previous_index_), start_ns, length_ns,
                    {{"index", previous_index_}, {"interval_ms", pacer::ms_of(static_cast<double>(length_ns))},
                     {"strategy", strategy}})));
        if (work_ns > 0) event_(text_of(span("work", start_ns, work_ns)));
        event_(text_of(span("wait", wait_start_ns, wait_ns,
                    {{"strategy", strategy},
                     {"deadline_ms", pacer::ms_of(static_cast<double>(frame.deadline_ns - origin_ns_))},
                     {"lateness_us", pacer::us_of(static_cast<double>(frame.lateness_ns))},
                     {"missed", static_cast<int>(frame.missed)},
                     {"resynced", frame.resynced}})));
        if (slept_ns > 0) event_(text_of(span("sleep", wait_start_ns, slept_ns)));
        if (spun_ns > 0) event_(text_of(span("spin", wake_ns - spun_ns, spun_ns)));
        event_(text_of({{"name", "MsBetweenSimulationStart"}, {"ph", "C"}, {"pid", 1}, {"tid", 1},
                        {"ts", us_of_ns(wake_ns)},
                {"args", {{"ms", pacer::ms_of(static_cast<double>(length_ns))}}}}));
    }
    if (!marker.empty()) event_(text_of(instant(marker, "marker", wake_ns)));
    if (!decision.empty()) event_(text_of(instant(decision, "decision", wake_ns)));

    previous_wake_ns_ = wake_ns;
    previous_index_ = frame.index;
    ++frames_;
    if (std::ferror(out_.get())) out_.fail(std::strerror(errno));
}

std::string ChromeTraceWriter::close() {
    if (out_.get() != nullptr) std::fputs("\n]}\n", out_.get());
    return out_.close();
}

}  // namespace pacer_demo
