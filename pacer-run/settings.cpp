// settings.cpp: PACER_RUN's keys (settings.h).
#include "settings.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pacer_run {

namespace {

constexpr double kMaxHz = 10000;   // pacer::Config::target_hz's range
constexpr double kMinHz = 0.001;

// "PACER_RUN: key=value: why", or "--key=value: why" for a flag (whose
// name has dashes where the key has underscores: --background-hz).
std::string problem(std::string_view key, std::string_view value, const char* why, bool as_flag) {
    std::string line = as_flag ? std::string("--") : std::string(kSettingsVariable) + ": ";
    for (const char c : key) line += as_flag && c == '_' ? '-' : c;
    line += '=';
    line.append(value.begin(), value.end());
    return line + ": " + why;
}

bool parse_hz(std::string_view value, double* out) {
    const std::string text(value);
    if (text.empty() || text.find_first_of(" \t") != std::string::npos) return false;
    char* end = nullptr;
    errno = 0;
    const double hz = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(hz)) return false;
    *out = hz;
    return true;
}

}  // namespace

std::string parse_settings(std::string_view text, RunSettings* out, bool as_flags) {
    const auto problem = [as_flags](std::string_view key, std::string_view value, const char* why) {
        return pacer_run::problem(key, value, why, as_flags);
    };
    RunSettings next = *out;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        if (item.empty()) continue;   // "hz=60," and ",," are harmless
        const std::size_t equals = item.find('=');
        if (equals == std::string_view::npos)
            return std::string(kSettingsVariable) + ": '" + std::string(item) + "': not key=value";
        const std::string_view key = item.substr(0, equals), value = item.substr(equals + 1);
        if (key == "hz") {
            double hz = 0;
            if (!parse_hz(value, &hz)) return problem(key, value, "not a number");
            if (hz != 0 && (hz < kMinHz || hz > kMaxHz))
                return problem(key, value, "out of range [0.001, 10000] (0: the display's refresh)");
            next.hz = hz;
        } else if (key == "strategy") {
            next.paced = value != "off";
            if (next.paced && !pacer::parse_strategy(value, &next.strategy))
                return problem(key, value,
                               "unknown strategy (sleep, spin, precise_sleep, robust_sleep, timer, vsync, auto, "
                               "display_lock, off)");
        } else if (key == "wait") {
            if (!pacer::parse_wait_point(value, &next.wait_point))
                return problem(key, value, "unknown wait point (before_present, frame_start)");
        } else if (key == "background_hz" || key == "hidden_hz") {
            double hz = 0;
            if (!parse_hz(value, &hz)) return problem(key, value, "not a number");
            if (hz != 0 && (hz < kMinHz || hz > kMaxHz)) return problem(key, value, "out of range [0.001, 10000] (0: off)");
            (key == "background_hz" ? next.background_hz : next.hidden_hz) = hz;
        } else if (key == "trace") {
            if (value.empty()) return problem(key, value, "empty path");
            next.trace = std::string(value);
        } else if (key == "summary") {
            if (value != "0" && value != "1") return problem(key, value, "not 0 or 1");
            next.summary = value == "1";
        } else {
            return problem(key, value, "unknown key (hz, strategy, wait, background_hz, hidden_hz, trace, summary)");
        }
    }
    *out = next;
    return {};
}

std::string trace_part_path(const std::string& trace, long pid) {
    return trace + "." + std::to_string(pid) + ".part";
}

std::string summary_part_path(const std::string& dir, long pid) { return dir + "/" + std::to_string(pid) + ".summary"; }

std::string format_settings(const RunSettings& settings) {
    const auto exact = [](double hz) {   // parses back to the same double
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", hz);
        return std::string(text);
    };
    std::string text = "hz=" + exact(settings.hz);
    text += ",strategy=";
    text += settings.paced ? pacer::strategy_name(settings.strategy) : "off";
    text += ",wait=";
    text += pacer::wait_point_name(settings.wait_point);
    text += ",background_hz=" + exact(settings.background_hz);
    text += ",hidden_hz=" + exact(settings.hidden_hz);
    if (!settings.trace.empty()) text += ",trace=" + settings.trace;
    text += settings.summary ? ",summary=1" : ",summary=0";
    return text;
}

}  // namespace pacer_run
