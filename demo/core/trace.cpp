// trace.cpp: the per-frame trace CSV (columns documented in trace.h).
#include "core/trace.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace pacer_demo {

namespace {

constexpr const char* kHeader =
    "Frame,TimeInSeconds,MsBetweenSimulationStart,MsBetweenPresents,MsCPUBusy,MsCPUWait,"
    "MsSleeping,MsSpinning,MsWaitCpu,MsWakeLateness,DeadlineSeconds,MsTargetPeriod,"
    "Missed,Resynced,Strategy,Decision,Marker,"
    "MsDt,DtMode,MsPacerDt,FixedSteps,FixedAlpha,WaitPoint,MsWakeToPresent,MsPredictedPresent,Contended";

double ns_to_ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

// RFC 4180: quote a field holding a comma, quote or line break; double quotes.
void put_text(std::FILE* file, std::string_view text) {
    if (text.empty()) return;   // (an empty view's data() may be null)
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
        std::fwrite(text.data(), 1, text.size(), file);
        return;
    }
    std::fputc('"', file);
    for (char c : text) {
        if (c == '"') std::fputc('"', file);
        std::fputc(c, file);
    }
    std::fputc('"', file);
}

void put_ms_or_na(std::FILE* file, bool known, int64_t ns) {
    if (known)
        std::fprintf(file, ",%.4f", ns_to_ms(ns));
    else
        std::fputs(",NA", file);
}

}  // namespace

const char* TraceWriter::header() { return kHeader; }

TraceWriter::TraceWriter(std::string path) : out_(std::move(path), "trace: ") {
    if (!out_.ok()) return;
    std::fputs(kHeader, out_.get());
    std::fputc('\n', out_.get());
    if (std::ferror(out_.get())) out_.fail("write failed");
}

void TraceWriter::write(const pacer::Frame& frame, const TraceExtra& extra) {
    if (!ok()) return;
    std::FILE* const file = out_.get();
    if (rows_ == 0) origin_ns_ = frame.wake_ns;
    const bool has_interval = frame.interval_ns > 0;
    // frame.present_ns is the previous frame's present; the row before held the one before that.
    const bool has_presents = frame.present_ns >= 0 && previous_present_ns_ >= 0;

    std::fprintf(file, "%lld,%.6f", static_cast<long long>(frame.index),
                 static_cast<double>(frame.wake_ns - origin_ns_) * 1e-9);
    put_ms_or_na(file, has_interval, frame.interval_ns);
    put_ms_or_na(file, has_presents, frame.present_ns - previous_present_ns_);
    std::fprintf(file, ",%.4f", ns_to_ms(frame.work_ns));
    put_ms_or_na(file, has_interval, frame.interval_ns - frame.work_ns);
    std::fprintf(file, ",%.4f,%.4f", ns_to_ms(frame.slept_ns), ns_to_ms(frame.spun_ns));
    put_ms_or_na(file, frame.wait_cpu_ns >= 0, frame.wait_cpu_ns);
    std::fprintf(file, ",%.4f,%.6f,%.4f,%d,%d,", ns_to_ms(frame.lateness_ns),
                 static_cast<double>(frame.deadline_ns - origin_ns_) * 1e-9, ns_to_ms(frame.period_ns),
                 static_cast<int>(frame.missed), frame.resynced ? 1 : 0);
    put_text(file, pacer::strategy_name(frame.strategy));
    std::fputc(',', file);
    put_text(file, extra.decision);
    std::fputc(',', file);
    put_text(file, extra.marker);
    if (extra.motion_dt_ns >= 0)
        std::fprintf(file, ",%.6f,", ns_to_ms(extra.motion_dt_ns));
    else
        std::fputs(",NA,", file);
    put_text(file, extra.dt_mode.empty() ? std::string_view("NA") : extra.dt_mode);
    std::fprintf(file, ",%.6f", ns_to_ms(frame.dt_ns));
    if (extra.fixed_steps >= 0)
        std::fprintf(file, ",%d,%.6f,", static_cast<int>(extra.fixed_steps), extra.fixed_alpha);
    else
        std::fputs(",NA,NA,", file);
    put_text(file, extra.wait_point.empty() ? std::string_view("NA") : extra.wait_point);
    put_ms_or_na(file, extra.present_ns >= frame.wake_ns, extra.present_ns - frame.wake_ns);
    std::fprintf(file, ",%.4f,%d\n", ns_to_ms(frame.predicted_present_ns - frame.wake_ns), frame.contended ? 1 : 0);

    if (frame.present_ns >= 0) previous_present_ns_ = frame.present_ns;
    ++rows_;
    if (std::ferror(file)) out_.fail(std::strerror(errno));
}

}  // namespace pacer_demo
