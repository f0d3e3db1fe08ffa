// trace.cpp: the per-frame trace CSV (columns documented in trace.h).
#include "run/trace.h"

#include <pacer/status.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pacer_demo {

namespace {

constexpr const char* kHeader =
    "Frame,TimeInSeconds,MsBetweenSimulationStart,MsBetweenPresents,MsCPUBusy,MsCPUWait,"
    "MsSleeping,MsSpinning,MsWaitCpu,MsWakeLateness,DeadlineSeconds,MsTargetPeriod,"
    "Missed,Resynced,Strategy,Decision,Marker,"
    "MsDt,DtMode,MsPacerDt,FixedSteps,FixedAlpha,WaitPoint,MsWakeToPresent,MsPredictedPresent,Contended,"
    "DisplayedFrame,MsBetweenDisplayChange,MsDisplayLatency,MsAnimationError,MsPresentPredictionError,"
    "Window,PaceHz";

double ns_to_ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

template <class... Args>
void put(std::string& out, const char* fmt, Args... args) {
    char text[128];
    const int n = std::snprintf(text, sizeof text, fmt, args...);
    if (n > 0) out.append(text, static_cast<std::size_t>(n) < sizeof text ? static_cast<std::size_t>(n) : sizeof text - 1);
}

// RFC 4180: quote a field holding a comma, quote or line break; double quotes.
void put_text(std::string& out, std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
        out.append(text.begin(), text.end());
        return;
    }
    out += '"';
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

void put_ms_or_na(std::string& out, bool known, int64_t ns) {
    if (known)
        put(out, ",%.4f", ns_to_ms(ns));
    else
        out += ",NA";
}

}  // namespace

const char* TraceWriter::header() { return kHeader; }

TraceWriter::TraceWriter(std::string path, std::string temp_path)
    : out_(std::move(path), "--trace: ", std::move(temp_path)) {
    if (!out_.ok()) return;
    std::fputs(kHeader, out_.get());
    std::fputc('\n', out_.get());
    if (std::ferror(out_.get())) out_.fail("write failed");
}

void TraceWriter::write(const pacer::Frame& frame, const TraceExtra& extra) {
    if (!ok()) return;
    if (rows_ == 0) origin_ns_ = frame.wake_ns;
    const bool has_interval = frame.interval_ns > 0;
    // frame.present_ns is the previous frame's present; the row before held the one before that.
    const bool has_presents = frame.present_ns >= 0 && previous_present_ns_ >= 0;

    std::string row;
    put(row, "%lld,%.6f", static_cast<long long>(frame.index), static_cast<double>(frame.wake_ns - origin_ns_) * 1e-9);
    put_ms_or_na(row, has_interval, frame.interval_ns);
    put_ms_or_na(row, has_presents, frame.present_ns - previous_present_ns_);
    put(row, ",%.4f", ns_to_ms(frame.work_ns));
    put_ms_or_na(row, has_interval, frame.interval_ns - frame.work_ns);
    put(row, ",%.4f,%.4f", ns_to_ms(frame.slept_ns), ns_to_ms(frame.spun_ns));
    put_ms_or_na(row, frame.wait_cpu_ns >= 0, frame.wait_cpu_ns);
    put(row, ",%.4f,%.6f,%.4f,%d,%d,", ns_to_ms(frame.lateness_ns),
        static_cast<double>(frame.deadline_ns - origin_ns_) * 1e-9, ns_to_ms(frame.period_ns),
        static_cast<int>(frame.missed), frame.resynced ? 1 : 0);
    put_text(row, pacer::strategy_name(frame.strategy));
    row += ',';
    put_text(row, extra.decision);
    row += ',';
    put_text(row, extra.marker);
    if (extra.motion_dt_ns >= 0)
        put(row, ",%.6f,", ns_to_ms(extra.motion_dt_ns));
    else
        row += ",NA,";
    put_text(row, extra.dt_mode.empty() ? std::string_view("NA") : extra.dt_mode);
    put(row, ",%.6f", ns_to_ms(frame.dt_ns));
    if (extra.fixed_steps >= 0)
        put(row, ",%d,%.6f,", static_cast<int>(extra.fixed_steps), extra.fixed_alpha);
    else
        row += ",NA,NA,";
    put_text(row, extra.wait_point.empty() ? std::string_view("NA") : extra.wait_point);
    put_ms_or_na(row, extra.present_ns >= frame.wake_ns, extra.present_ns - frame.wake_ns);
    put(row, ",%.4f,%d", ns_to_ms(frame.predicted_present_ns - frame.wake_ns), frame.contended ? 1 : 0);

    std::string tail = ",";
    put_text(tail, extra.window.empty() ? std::string_view("NA") : extra.window);
    if (extra.pace_hz >= 0)
        put(tail, ",%.4f", extra.pace_hz);
    else
        tail += ",NA";

    if (frame.present_ns >= 0) previous_present_ns_ = frame.present_ns;
    ++rows_;
    held_.push_back({frame.index, frame.wake_ns, extra.motion_dt_ns, frame.predicted_present_ns, std::move(row),
                     std::move(tail)});
    flush_(false);
}

void TraceWriter::displayed(int64_t frame_index, bool discarded, int64_t displayed_ns) {
    if (!ok()) return;
    fates_.push_back({frame_index, discarded, displayed_ns});
    flush_(false);
}

// Writes the held rows whose fate is known, in order; a row older than
// kHoldRows goes out without one (NA), as do all on close(). Frames reach
// the screen in commit order, so a later frame shown means none will come
// for this one; a discard does not: the compositor discards a frame when a
// newer one replaces it, which can be before the frame ahead of it, already
// taken for a refresh, is shown (weston under display_lock, aiming a
// refresh later: one frame in 1,200 was written NA so, docs/bench/replay.md).
void TraceWriter::flush_(bool all) {
    while (!held_.empty()) {
        const int64_t index = held_.front().index;
        // Reports for frames already written (or never traced) are dropped.
        fates_.erase(std::remove_if(fates_.begin(), fates_.end(), [&](const Fate& f) { return f.index < index; }),
                     fates_.end());
        const bool settled = std::any_of(fates_.begin(), fates_.end(), [&](const Fate& f) {
            return f.index == index || (f.index > index && !f.discarded);
        });
        if (!settled && !all && held_.size() <= kHoldRows) return;
        put_row_(held_.front());
        held_.pop_front();
    }
}

void TraceWriter::put_row_(const Held& row) {
    std::FILE* const file = out_.get();
    std::string text = row.text;
    const auto found = std::find_if(fates_.begin(), fates_.end(), [&](const Fate& f) { return f.index == row.index; });
    if (row.motion_dt_ns >= 0) advance_since_shown_ns_ += row.motion_dt_ns;
    if (found == fates_.end()) {
        text += ",NA,NA,NA,NA,NA";
    } else {
        const Fate fate = *found;
        fates_.erase(found);
        if (fate.discarded || fate.displayed_ns < 0) {
            text += fate.discarded ? ",0,NA,NA,NA,NA" : ",1,NA,NA,NA,NA";
        } else {
            const bool has_previous = last_shown_ns_ >= 0;
            const int64_t between_ns = fate.displayed_ns - last_shown_ns_;
            text += ",1";
            put_ms_or_na(text, has_previous, between_ns);
            put_ms_or_na(text, true, fate.displayed_ns - row.wake_ns);
            put_ms_or_na(text, has_previous, advance_since_shown_ns_ - between_ns);
            put_ms_or_na(text, true, fate.displayed_ns - row.predicted_present_ns);
            last_shown_ns_ = fate.displayed_ns;
            advance_since_shown_ns_ = 0;
        }
    }
    text += row.tail;
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), file);
    if (std::ferror(file)) out_.fail(std::strerror(errno));
}

std::string TraceWriter::close() {
    if (ok()) flush_(true);
    return out_.close();
}

std::string TraceWriter::leave_temp() {
    if (ok()) flush_(true);
    return out_.leave_temp();
}

}  // namespace pacer_demo
