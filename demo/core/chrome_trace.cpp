// chrome_trace.cpp: Chrome trace-event JSON of a run (layout in chrome_trace.h).
#include "core/chrome_trace.h"
#include "core/files.h"
#include "core/format.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pacer_demo {

namespace {

// Nanoseconds as microseconds with three decimals, in integers so that
// nested spans stay nested exactly (no floating-point rounding).
std::string us_text(int64_t ns) {
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    char text[32];
    std::snprintf(text, sizeof text, "%s%llu.%03llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000),
                  static_cast<unsigned long long>(magnitude % 1000));
    return text;
}

// A JSON string literal, quotes included (RFC 8259 escapes). JSON is UTF-8:
// bytes that are not (a scenario file's name can be anything) become U+FFFD.
std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (char c : valid_utf8(text)) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// A complete ("X") span on the frame-loop thread.
std::string span(const char* name, int64_t start_ns, int64_t duration_ns, const std::string& args) {
    return std::string("{\"name\":\"") + name + "\",\"cat\":\"pacing\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" +
           us_text(start_ns) + ",\"dur\":" + us_text(duration_ns) + ",\"args\":{" + args + "}}";
}

std::string instant(std::string_view name, const char* category, int64_t at_ns) {
    return "{\"name\":" + json_string(name) + ",\"cat\":\"" + category +
           "\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":" + us_text(at_ns) + "}";
}


}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::string path, std::string_view process_name)
    : out_(std::move(path), "--chrome-trace: ") {
    if (!out_.ok()) return;
    std::fputs("{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"pacer-demo\","
               "\"time_origin\":\"the first frame's wake\"},\n\"traceEvents\":[\n",
               out_.get());
    // Every event is on pid 1, tid 1: one process, its frame-loop thread.
    event_(("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":" +
            json_string(process_name) + "}}")
               .c_str());
    event_("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"frame loop\"}}");
}

void ChromeTraceWriter::event_(const char* text) {
    if (!first_event_) std::fputs(",\n", out_.get());
    std::fputs(text, out_.get());
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

        event_(span(("frame " + std::to_string(previous_index_)).c_str(), start_ns, length_ns,
                    format("\"index\":%lld,\"interval_ms\":%.4f,\"strategy\":\"%s\"",
                           static_cast<long long>(previous_index_), static_cast<double>(length_ns) * 1e-6,
                           pacer::strategy_name(frame.strategy)))
                   .c_str());
        if (work_ns > 0) event_(span("work", start_ns, work_ns, "").c_str());
        event_(span("wait", wait_start_ns, wait_ns,
                    format("\"strategy\":\"%s\",\"deadline_ms\":%.4f,\"lateness_us\":%.3f,\"missed\":%d,"
                           "\"resynced\":%s",
                           pacer::strategy_name(frame.strategy),
                           static_cast<double>(frame.deadline_ns - origin_ns_) * 1e-6,
                           static_cast<double>(frame.lateness_ns) * 1e-3, static_cast<int>(frame.missed),
                           frame.resynced ? "true" : "false"))
                   .c_str());
        if (slept_ns > 0) event_(span("sleep", wait_start_ns, slept_ns, "").c_str());
        if (spun_ns > 0) event_(span("spin", wake_ns - spun_ns, spun_ns, "").c_str());
        event_(("{\"name\":\"MsBetweenSimulationStart\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":" +
                us_text(wake_ns) + format(",\"args\":{\"ms\":%.4f}}", static_cast<double>(length_ns) * 1e-6))
                   .c_str());
    }
    if (!marker.empty()) event_(instant(marker, "marker", wake_ns).c_str());
    if (!decision.empty()) event_(instant(decision, "decision", wake_ns).c_str());

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
