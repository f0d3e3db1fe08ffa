// summary.cpp: whole-run figures (through pacer::Stats), metric names,
// verdicts, and the text and JSON summaries.
#include "run/summary.h"
#include "run/files.h"
#include "run/settings.h"

#include <pacer/status.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace pacer_demo {

namespace {

constexpr int64_t kOffToleranceNs = 500'000;   // the overlay's "% off by more than 0.5 ms"

const char* const kPercentileNames[] = {"mean", "sd", "p50", "p95", "p99", "max"};

const char* const kDeltaBinNames[] = {"delta_lt2_ms", "delta_lt4_ms", "delta_lt8_ms", "delta_lt12_ms",
                                      "delta_ge12_ms"};
static_assert(std::size(kDeltaBinNames) == pacer::kDeltaBinUpperMs.size() + 1,
              "one name per bin of pacer::FrameTimeMetrics::delta_histogram");

std::vector<std::string> build_metric_keys() {
    std::vector<std::string> keys;
    for (const char* group : {"present", "shown"})
        for (const char* name : {"off_pct", "p50_us", "p99_us", "intervals"}) keys.push_back(std::string(group) + "_" + name);
    keys.push_back("shown_late_pct");
    keys.push_back("hitches_per_1000");
    keys.push_back("wake_to_present_p50_us");
    keys.push_back("gpu_finish_p50_us");
    for (const char* key : {"frames", "fps", "target_period_us", "off_pct", "missed", "spin_pct", "cpu_pct"})
        keys.push_back(key);
    for (const char* group : {"interval", "interval_error", "lateness"})
        for (const char* name : kPercentileNames) keys.push_back(std::string(group) + "_" + name + "_us");
    for (const char* key : {"avg_fps", "low_1pct_fps", "low_0_1pct_fps"}) keys.push_back(key);
    for (const char* name : kPercentileNames) keys.push_back(std::string("frame_time_") + name + "_ms");
    for (const char* key : {"stutter_pct", "stutter_frames"}) keys.push_back(key);
    for (const char* key : kDeltaBinNames) keys.push_back(key);
    for (const char* key : {"success_pct", "error_mean_ms", "error_rms_ms", "error_p95_ms", "error_p99_ms",
                            "max_error_ms"})
        keys.push_back(key);
    return keys;
}

// A cadence's keys, only where it was measured: a run without presents has
// no present_off_pct, so an expectation on it fails as "not measured".
void add_cadence(MetricValues* values, const char* group, const pacer::Cadence& c) {
    if (c.intervals == 0) return;
    (*values)[std::string(group) + "_off_pct"] = c.off_pct;
    (*values)[std::string(group) + "_p50_us"] = c.p50_us;
    (*values)[std::string(group) + "_p99_us"] = c.p99_us;
    (*values)[std::string(group) + "_intervals"] = static_cast<double>(c.intervals);
}

void add_percentiles(MetricValues* values, const char* group, const pacer::Percentiles& p) {
    const double fields[] = {p.mean_us, p.sd_us, p.p50_us, p.p95_us, p.p99_us, p.max_us};
    for (std::size_t i = 0; i < 6; ++i) (*values)[std::string(group) + "_" + kPercentileNames[i] + "_us"] = fields[i];
}

// Fixed decimals for the human summary.
std::string fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

bool compare(double actual, Comparison comparison, double threshold) {
    switch (comparison) {
        case Comparison::Less: return actual < threshold;
        case Comparison::LessEqual: return actual <= threshold;
        case Comparison::Greater: return actual > threshold;
        case Comparison::GreaterEqual: return actual >= threshold;
    }
    return false;
}

}  // namespace

pacer::RunMetrics make_run_metrics(double success_tolerance_ms) {
    pacer::MetricsOptions options{};
    options.tolerance_ms = success_tolerance_ms;
    return pacer::RunMetrics(options, kOffToleranceNs);
}

RunStats run_stats(const pacer::RunMetrics& run, double success_tolerance_ms) {
    RunStats out{};
    out.summary = run.summary();
    out.metrics = run.metrics();
    out.success_tolerance_ms = success_tolerance_ms;
    // Without an interval there is nothing to succeed at: not measured.
    out.success_pct = out.metrics.frames > 0 ? out.metrics.success_pct : std::numeric_limits<double>::quiet_NaN();
    return out;
}

RunStats compute_run_stats(const std::vector<pacer::Frame>& frames, double success_tolerance_ms) {
    pacer::RunMetrics run = make_run_metrics(success_tolerance_ms);
    for (const pacer::Frame& frame : frames) run.add(frame);
    return run_stats(run, success_tolerance_ms);
}

const std::vector<std::string>& metric_keys() {
    static const std::vector<std::string> keys = build_metric_keys();
    return keys;
}

bool is_metric_key(std::string_view key) {
    const auto& keys = metric_keys();
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

MetricValues metric_values(const RunStats& stats) {
    const pacer::Summary& s = stats.summary;
    MetricValues values;
    add_cadence(&values, "present", s.presents);
    add_cadence(&values, "shown", s.shown);
    if (!std::isnan(stats.shown_late_pct)) values["shown_late_pct"] = stats.shown_late_pct;
    if (!std::isnan(stats.hitches_per_1000)) values["hitches_per_1000"] = stats.hitches_per_1000;
    if (!std::isnan(stats.wake_to_present_p50_us)) values["wake_to_present_p50_us"] = stats.wake_to_present_p50_us;
    if (!std::isnan(stats.gpu_finish_p50_us)) values["gpu_finish_p50_us"] = stats.gpu_finish_p50_us;
    values["frames"] = static_cast<double>(s.frames);
    values["fps"] = s.fps;
    values["target_period_us"] = s.target_period_us;
    values["off_pct"] = s.off_pct;
    values["missed"] = static_cast<double>(s.missed);
    values["spin_pct"] = s.spin_pct;
    if (s.cpu_pct >= 0) values["cpu_pct"] = s.cpu_pct;   // -1: the OS gave no thread CPU time
    add_percentiles(&values, "interval", s.interval);
    add_percentiles(&values, "interval_error", s.interval_error);
    add_percentiles(&values, "lateness", s.lateness);

    // Metrics of no frame time at all would be zeros that look like results.
    const pacer::FrameTimeMetrics& m = stats.metrics;
    if (m.frames == 0) return values;
    values["avg_fps"] = m.avg_fps;
    values["low_1pct_fps"] = m.low_1pct_fps;
    values["low_0_1pct_fps"] = m.low_0_1pct_fps;
    const double frame_time[] = {m.frame_time_mean_ms, m.frame_time_sd_ms,  m.frame_time_p50_ms,
                                 m.frame_time_p95_ms,  m.frame_time_p99_ms, m.frame_time_max_ms};
    for (std::size_t i = 0; i < 6; ++i)
        values[std::string("frame_time_") + kPercentileNames[i] + "_ms"] = frame_time[i];
    values["stutter_pct"] = m.stutter_pct;
    values["stutter_frames"] = static_cast<double>(m.stutter_frames);
    for (std::size_t i = 0; i < m.delta_histogram.size(); ++i)
        values[kDeltaBinNames[i]] = static_cast<double>(m.delta_histogram[i]);
    if (m.has_target) {
        values["success_pct"] = m.success_pct;
        values["error_mean_ms"] = m.error_mean_ms;
        values["error_rms_ms"] = m.error_rms_ms;
        values["error_p95_ms"] = m.error_p95_ms;
        values["error_p99_ms"] = m.error_p99_ms;
        values["max_error_ms"] = m.max_error_ms;
    }
    return values;
}

std::string Verdict::text() const {
    std::string out = (passed ? "PASS " : "FAIL ") + expectation.text();
    if (available)
        out += " (actual " + number_text(std::round(actual * 1000) / 1000) + ")";
    else
        out += " (not measured)";
    return out;
}

std::vector<Verdict> evaluate(const std::vector<Expectation>& expectations, const MetricValues& metrics) {
    std::vector<Verdict> verdicts;
    verdicts.reserve(expectations.size());
    for (const Expectation& expectation : expectations) {
        Verdict verdict{expectation, false, std::numeric_limits<double>::quiet_NaN(), false};
        const auto it = metrics.find(expectation.key);
        if (it != metrics.end() && !std::isnan(it->second)) {
            verdict.available = true;
            verdict.actual = it->second;
            verdict.passed = compare(verdict.actual, expectation.comparison, expectation.value);
        }
        verdicts.push_back(std::move(verdict));
    }
    return verdicts;
}

bool all_passed(const std::vector<Verdict>& verdicts) {
    return std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.passed; });
}

std::string renderer_limit_note(int64_t frames, int64_t work_over_period, double work_p50_ms, double period_ms) {
    if (frames <= 0 || 20 * work_over_period < frames) return "";
    return fixed(100.0 * static_cast<double>(work_over_period) / static_cast<double>(frames), 1) +
           " % of frames took longer than the " + fixed(period_ms, 3) + " ms period to build (p50 " +
           fixed(work_p50_ms, 3) + " ms): the renderer and the frame's work, not the pacer, limit the rate" +
           " (a smaller --width/--height or --no-overlay renders faster)";
}

std::string summary_text(const RunReport& report) {
    const pacer::Summary& s = report.stats.summary;
    const pacer::FrameTimeMetrics& m = report.stats.metrics;
    std::string out;
    for (const std::string& line : report.brief) out += printable(line) + "\n";
    auto ms = [](double us) { return fixed(pacer::ms_of(us * pacer::kNsPerUs), 3); };
    // What reached the screen first: the presents, then what the display showed.
    auto cadence = [&](const char* name, const pacer::Cadence& c) {
        out += std::string(name) + ": off by > 0.5 ms " + fixed(c.off_pct, 2) + " % of " +
               std::to_string(c.intervals) + " intervals; p50 " + ms(c.p50_us) + " ms, p99 " + ms(c.p99_us) + " ms\n";
    };
    if (s.presents.intervals > 0) {
        cadence("presents (swap to swap)", s.presents);
    } else {
        out += "presents: not measured (no two frames in a row with a present mark)\n";
    }
    if (s.shown.intervals > 0) cadence("shown (display reports)", s.shown);
    out += "wakes: " + std::to_string(s.frames) + " frames, " + fixed(s.fps, 2) + " fps";
    if (m.frames > 0) out += " (1% low " + fixed(m.low_1pct_fps, 2) + ")";
    out += "; off by > 0.5 ms " + fixed(s.off_pct, 2) + " %, within +-" +
           number_text(report.stats.success_tolerance_ms) + " ms " +
           (std::isnan(report.stats.success_pct) ? std::string("n/a") : fixed(report.stats.success_pct, 2) + " %") +
           ", missed " + std::to_string(s.missed) + " grid points\n";
    out += "wake interval ms: p50 " + ms(s.interval.p50_us) + ", p95 " + ms(s.interval.p95_us) + ", p99 " +
           ms(s.interval.p99_us) + ", max " + ms(s.interval.max_us) + " (target " + ms(s.target_period_us) + ")\n";
    out += "wake lateness us: p50 " + fixed(s.lateness.p50_us, 1) + ", p99 " + fixed(s.lateness.p99_us, 1) +
           "; CPU waiting " + (s.cpu_pct < 0 ? std::string("unknown") : fixed(s.cpu_pct, 1) + " %") +
           ", spinning " + fixed(s.spin_pct, 1) + " % of a core\n";
    for (const std::string& line : report.notes) out += printable(line) + "\n";
    if (!report.verdicts.empty()) {
        int passed = 0;
        for (const Verdict& verdict : report.verdicts) {
            if (verdict.passed) ++passed;
        }
        out += std::string(all_passed(report.verdicts) ? "PASS" : "FAIL") + " (" + std::to_string(passed) + "/" +
               std::to_string(report.verdicts.size()) + " expectations met)\n";
        for (const Verdict& verdict : report.verdicts) {
            if (!verdict.passed) out += "  " + verdict.text() + "\n";
        }
    }
    return out;
}

std::string summary_json(const RunReport& report) {
    nlohmann::ordered_json json;
    json["run"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : report.info) json["run"][key] = value;
    const MetricValues values = metric_values(report.stats);
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const std::string& key : metric_keys()) {
        const auto it = values.find(key);
        if (it == values.end() || !std::isfinite(it->second))
            metrics[key] = nullptr;   // not measured on this run/OS
        else
            metrics[key] = it->second;
    }
    json["metrics"] = std::move(metrics);
    json["success_tolerance_ms"] = report.stats.success_tolerance_ms;
    nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
    for (const Verdict& verdict : report.verdicts) {
        nlohmann::ordered_json v;
        v["expect"] = verdict.expectation.text();
        v["key"] = verdict.expectation.key;
        v["op"] = comparison_symbol(verdict.expectation.comparison);
        v["threshold"] = verdict.expectation.value;
        if (verdict.available)
            v["actual"] = verdict.actual;
        else
            v["actual"] = nullptr;
        v["passed"] = verdict.passed;
        verdicts.push_back(std::move(v));
    }
    json["verdicts"] = std::move(verdicts);
    json["passed"] = all_passed(report.verdicts);
    // Strings from outside (a scenario's file name) may not be UTF-8, which
    // JSON must be: invalid bytes become U+FFFD rather than an exception.
    return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace pacer_demo
