// scenario.cpp: the scenario format's parser (settings' values: settings.cpp)
// and the cursor that hands out due steps. The format is documented in scenario.h.
#include "cli/echo.h"
#include "run/scenario.h"
#include "run/files.h"

#include "run/summary.h"

#include <pacer/units.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace pacer_demo {

namespace {

constexpr double kMaxToleranceMs = 1000.0;
constexpr double kMaxTimeS = 1e9;

// --- the line tokenizer ---------------------------------------------------

// Splits a line into words; "double quoted" words may hold spaces (no escapes).
// '#' outside quotes ends the line. Returns an error for an unclosed quote.
std::string tokenize(std::string_view line, std::vector<std::string>* words, std::vector<bool>* quoted) {
    // Control bytes (a binary file, a stray NUL) would garble the error
    // message that quotes the word: report them by value instead.
    for (unsigned char c : line) {
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            char text[64];
            std::snprintf(text, sizeof text, "unexpected control byte 0x%02x (not a text file?)", c);
            return text;
        }
    }
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
        } else if (c == '#') {
            break;
        } else if (c == '"') {
            const std::size_t close = line.find('"', i + 1);
            if (close == std::string_view::npos) return "unclosed quote";
            words->emplace_back(line.substr(i + 1, close - i - 1));
            quoted->push_back(true);
            i = close + 1;
        } else {
            std::size_t end = i;
            while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r' &&
                   line[end] != '#' && line[end] != '"')
                ++end;
            words->emplace_back(line.substr(i, end - i));
            quoted->push_back(false);
            i = end;
        }
    }
    return {};
}

// "2.5s", "250ms" -> seconds.
std::string parse_duration_s(std::string_view word, double* seconds) {
    double scale = 0;
    std::string_view number;
    if (word.size() > 2 && word.substr(word.size() - 2) == "ms") {
        scale = 1e-3;
        number = word.substr(0, word.size() - 2);
    } else if (word.size() > 1 && word.back() == 's') {
        scale = 1;
        number = word.substr(0, word.size() - 1);
    } else {
        return "'" + pacer_cli::clipped(word) + "' is not a time (write e.g. 2.5s or 250ms)";
    }
    double value = 0;
    if (!parse_number(number, &value)) return "'" + pacer_cli::clipped(word) + "' is not a time (write e.g. 2.5s or 250ms)";
    if (value < 0) return "time '" + pacer_cli::clipped(word) + "' is negative";
    // As --seconds: past 1e9 s (31 years) a time is a typo, and bounding it
    // keeps every figure made from it (a frame count at the rate) finite.
    if (value * scale > kMaxTimeS) return "time '" + pacer_cli::clipped(word) + "' is over 1e9 s";
    *seconds = value * scale;
    return {};
}

// Reads WHEN at words[*i]: "frame N" or a duration. Advances *i.
std::string parse_when(const std::vector<std::string>& words, std::size_t* i, When* when) {
    if (*i >= words.size()) return "missing time (write e.g. 2.5s or frame 120)";
    if (words[*i] == "frame") {
        if (*i + 1 >= words.size()) return "missing frame number after 'frame'";
        int64_t frame = 0;
        if (!parse_integer(words[*i + 1], &frame) || frame < 0)
            return "'" + pacer_cli::clipped(words[*i + 1]) + "' is not a frame number (an integer >= 0)";
        *when = When{When::Unit::Frame, 0.0, frame};
        *i += 2;
        return {};
    }
    double seconds = 0;
    std::string error = parse_duration_s(words[*i], &seconds);
    if (!error.empty()) return error;
    *when = When{When::Unit::Seconds, seconds, 0};
    *i += 1;
    return {};
}

// Whether a step's time lies beyond the end (only comparable in the same unit).
bool after_end(const When& at, const When& end) {
    if (at.unit != end.unit) return false;
    return at.unit == When::Unit::Frame ? at.frame >= end.frame : at.seconds >= end.seconds;
}

std::string when_text(const When& when) {
    return when.unit == When::Unit::Frame ? "frame " + std::to_string(when.frame) : number_text(when.seconds) + "s";
}

// "at WHEN set key=value ..." or "at WHEN mark \"name\"".
std::string parse_at(const std::vector<std::string>& words, const std::vector<bool>& quoted, int line,
                     Scenario* scenario) {
    Step step{};
    step.line = line;
    std::size_t i = 1;
    std::string error = parse_when(words, &i, &step.at);
    if (!error.empty()) return "at: " + error;
    if (i >= words.size()) return "at: missing action (set key=value ... or mark \"name\")";
    const std::string& action = words[i++];
    if (action == "set" && !quoted[i - 1]) {
        if (i >= words.size()) return "set: no settings (write key=value)";
        std::vector<std::string_view> seen;
        for (; i < words.size(); ++i) {
            const std::string& word = words[i];
            const std::size_t eq = word.find('=');
            if (quoted[i] || eq == std::string::npos || eq == 0)
                return "set: '" + pacer_cli::clipped(word) + "' is not key=value";
            const std::string_view key = std::string_view(word).substr(0, eq);
            // A key twice on one line is almost surely a typo: refuse it.
            for (std::string_view earlier : seen)
                if (earlier == key) return "set: " + std::string(key) + " given twice";
            seen.push_back(key);
            error = parse_setting(key, std::string_view(word).substr(eq + 1), &step.settings);
            if (!error.empty()) return error;
        }
    } else if (action == "mark" && !quoted[i - 1]) {
        if (i + 1 != words.size() || !quoted[i] || words[i].empty())
            return "mark: write mark \"name\" (one non-empty quoted name)";
        step.mark = words[i];
    } else {
        return "at: unknown action '" + pacer_cli::clipped(action) + "' (set or mark)";
    }
    scenario->steps.push_back(std::move(step));
    return {};
}

// "expect KEY OP VALUE", the words glued ("key<=v", "key <= v").
std::string parse_expect(const std::vector<std::string>& words, const std::vector<bool>& quoted, int line,
                         Scenario* scenario) {
    // Accept "key<=v", "key <= v" and anything between: glue the words.
    std::string rest;
    for (std::size_t i = 1; i < words.size(); ++i) {
        if (quoted[i]) return "expect: unexpected quoted string";
        rest += words[i];
    }
    const std::size_t op_at = rest.find_first_of("<>");
    if (op_at == std::string::npos) return "expect: write expect KEY <= VALUE (ops: <= >= < >)";
    Expectation expectation{};
    expectation.line = line;
    expectation.key = rest.substr(0, op_at);
    std::size_t value_at = op_at + 1;
    const bool or_equal = value_at < rest.size() && rest[value_at] == '=';
    if (or_equal) ++value_at;
    if (rest[op_at] == '<')
        expectation.comparison = or_equal ? Comparison::LessEqual : Comparison::Less;
    else
        expectation.comparison = or_equal ? Comparison::GreaterEqual : Comparison::Greater;
    if (expectation.key.empty()) return "expect: missing metric key before the comparison";
    if (!is_metric_key(expectation.key)) return "expect: unknown metric '" + pacer_cli::clipped(expectation.key) + "'";
    const std::string value = rest.substr(value_at);
    if (!parse_number(value, &expectation.value))
        return "expect: '" + pacer_cli::clipped(value) + "' is not a number";
    scenario->expectations.push_back(std::move(expectation));
    return {};
}

// Parses one non-empty statement into *scenario.
// "end frame N" or "end 2.5s": once, after the start.
std::string parse_end(const std::vector<std::string>& words, int line, Scenario* scenario, int* end_line) {
    if (scenario->end) return "end given twice (first on line " + std::to_string(*end_line) + ")";
    std::size_t i = 1;
    When when{};
    std::string error = parse_when(words, &i, &when);
    if (!error.empty()) return "end: " + error;
    if (i != words.size()) return "end: unexpected '" + pacer_cli::clipped(words[i]) + "'";
    if ((when.unit == When::Unit::Frame && when.frame < 1) || (when.unit == When::Unit::Seconds && when.seconds <= 0))
        return "end: must be after the start (at least frame 1, or a time > 0)";
    scenario->end = when;
    *end_line = line;
    return {};
}

std::string parse_statement(const std::vector<std::string>& words, const std::vector<bool>& quoted, int line,
                            Scenario* scenario, int* end_line) {
    const std::string& verb = words[0];
    if (quoted[0]) return "expected a statement (title, at, end, tolerance, screenshot, needs, expect), got a quoted string";

    if (verb == "title") {
        if (words.size() != 2 || !quoted[1]) return "title: write title \"name\"";
        if (!scenario->title.empty()) return "title given twice";
        scenario->title = words[1];
        return {};
    }

    if (verb == "at") return parse_at(words, quoted, line, scenario);

    if (verb == "end") return parse_end(words, line, scenario, end_line);

    if (verb == "screenshot") {
        if (scenario->screenshot_frame) return "screenshot given twice";
        std::size_t i = 1;
        When when{};
        if (words.size() != 3 || quoted[1] || words[1] != "frame" || !parse_when(words, &i, &when).empty())
            return "screenshot: write screenshot frame N (a frame index)";
        scenario->screenshot_frame = when.frame;
        scenario->screenshot_line = line;
        return {};
    }

    if (verb == "tolerance") {
        if (words.size() != 2) return "tolerance: write tolerance 1ms";
        double seconds = 0;
        std::string error = parse_duration_s(words[1], &seconds);
        if (!error.empty()) return "tolerance: " + error;
        const double ms = pacer::ms_of(pacer::ns_of_seconds(seconds));
        if (!(ms > 0 && ms <= kMaxToleranceMs)) return "tolerance: " + words[1] + " is out of range (0, 1000ms]";
        scenario->success_tolerance_ms = ms;
        return {};
    }

    if (verb == "needs") {
        if (words.size() != 2 || quoted[1] || words[1] != "present_feedback")
            return "needs: write needs present_feedback (the one thing a scenario can need)";
        if (scenario->needs_present_feedback) return "needs present_feedback given twice";
        scenario->needs_present_feedback = true;
        return {};
    }

    if (verb == "expect") return parse_expect(words, quoted, line, scenario);

    return "unknown statement '" + pacer_cli::clipped(verb) + "' (title, at, end, tolerance, screenshot, needs, expect)";
}

}  // namespace

const char* comparison_symbol(Comparison comparison) {
    switch (comparison) {
        case Comparison::Less: return "<";
        case Comparison::LessEqual: return "<=";
        case Comparison::Greater: return ">";
        case Comparison::GreaterEqual: return ">=";
    }
    return "?";
}

std::string Scenario::file_name() const { return name.substr(name.find_last_of("/\\") + 1); }

std::string Step::text() const {
    if (!mark.empty()) return "mark " + mark;
    return "set " + describe(settings);
}

std::string Expectation::text() const {
    return key + " " + comparison_symbol(comparison) + " " + number_text(value);
}

// --- parsing --------------------------------------------------------------

std::string parse_scenario_text(std::string_view text, const std::string& name, Scenario* out) {
    Scenario scenario{};
    scenario.name = name;
    int end_line = 0;
    int line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        // Lines end in LF, CR LF, or a lone CR (an old Mac editor's).
        std::size_t stop = text.find_first_of("\r\n", start);
        if (stop == std::string_view::npos) stop = text.size();
        const std::size_t next = stop + (text.compare(stop, 2, "\r\n") == 0 ? 2 : 1);
        const std::string_view line = text.substr(start, stop - start);
        ++line_number;
        std::vector<std::string> words;
        std::vector<bool> quoted;
        std::string error = tokenize(line, &words, &quoted);
        if (error.empty() && !words.empty()) error = parse_statement(words, quoted, line_number, &scenario, &end_line);
        if (!error.empty()) return name + ":" + std::to_string(line_number) + ": " + error;
        if (stop == text.size()) break;
        start = next;
    }
    // A step at or after the end would never run: say so rather than skip it.
    if (scenario.end) {
        for (const Step& step : scenario.steps) {
            if (after_end(step.at, *scenario.end))
                return name + ":" + std::to_string(step.line) + ": at " + when_text(step.at) +
                       " is not before the end (" + when_text(*scenario.end) + ", line " + std::to_string(end_line) +
                       ")";
        }
        if (scenario.screenshot_frame && after_end(When{When::Unit::Frame, 0, *scenario.screenshot_frame}, *scenario.end))
            return name + ":" + std::to_string(scenario.screenshot_line) + ": screenshot frame " +
                   std::to_string(*scenario.screenshot_frame) + " is not before the end (" +
                   when_text(*scenario.end) + ", line " + std::to_string(end_line) + ")";
    }
    *out = std::move(scenario);
    return {};
}

std::string parse_scenario_file(const std::string& path, Scenario* out) {
    // A regular file of bounded size only: a FIFO, a device (/dev/zero) or a
    // directory would hang, eat memory or read as an empty scenario.
    std::string text;
    if (std::string problem = read_input_file(path, kMaxInputBytes, &text); !problem.empty()) return problem;
    // A byte-order mark, as some editors write, is not part of the text.
    std::string_view body = text;
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
    return parse_scenario_text(body, path, out);
}

std::string check_steps(const Scenario& scenario, const Settings& start) {
    Settings state = start;
    for (const Step& step : scenario.steps) {
        state.merge(step.settings);
        if (std::string problem = check(state); !problem.empty())
            return scenario.name + ":" + std::to_string(step.line) + ": " + problem;
    }
    return {};
}

std::string describe_scenario_json(const Scenario& scenario, const Settings& start) {
    Settings at_start = start;
    for (const Step& step : scenario.steps) {
        const bool at_zero = step.at.unit == When::Unit::Frame ? step.at.frame == 0 : step.at.seconds == 0;
        if (at_zero) at_start.merge(step.settings);
    }
    const double hz = at_start.hz.value_or(60);
    nlohmann::json out;
    out["title"] = valid_utf8(scenario.title);
    out["start_hz"] = hz;
    out["end"] = nullptr;
    out["expected_s"] = nullptr;
    out["expected_frames"] = nullptr;
    out["screenshot_frame"] = nullptr;
    if (scenario.screenshot_frame) out["screenshot_frame"] = *scenario.screenshot_frame;
    out["needs"] = nlohmann::json::array();
    if (scenario.needs_present_feedback) out["needs"].push_back("present_feedback");
    if (scenario.end) {
        const When& end = *scenario.end;
        // Finite: times are at most 1e9 s, rates within the Config's range.
        const double seconds = end.unit == When::Unit::Frame ? static_cast<double>(end.frame) / hz : end.seconds;
        const double frames = end.unit == When::Unit::Frame ? static_cast<double>(end.frame) : end.seconds * hz;
        if (end.unit == When::Unit::Frame) out["end"] = {{"frame", end.frame}};
        else out["end"] = {{"seconds", end.seconds}};
        out["expected_s"] = seconds;
        out["expected_frames"] = frames;
    }
    return out.dump();
}

// --- the cursor -----------------------------------------------------------

ScenarioCursor::ScenarioCursor(const Scenario& scenario) : scenario_(&scenario) { reset(); }

void ScenarioCursor::reset() {
    fired_.assign(scenario_->steps.size(), false);
    remaining_ = scenario_->steps.size();
}

std::vector<const Step*> ScenarioCursor::due(int64_t frame_index, double elapsed_s) {
    std::vector<const Step*> out;
    if (remaining_ == 0) return out;
    for (std::size_t i = 0; i < scenario_->steps.size(); ++i) {
        if (fired_[i]) continue;
        const Step& step = scenario_->steps[i];
        const bool is_due = step.at.unit == When::Unit::Frame ? step.at.frame <= frame_index
                                                               : step.at.seconds <= elapsed_s;
        if (!is_due) continue;
        fired_[i] = true;
        --remaining_;
        out.push_back(&step);
    }
    return out;
}

bool ScenarioCursor::finished(int64_t frame_index, double elapsed_s) const {
    if (!scenario_->end) return false;
    const When& end = *scenario_->end;
    return end.unit == When::Unit::Frame ? frame_index >= end.frame : elapsed_s >= end.seconds;
}

std::size_t ScenarioCursor::remaining() const { return remaining_; }

}  // namespace pacer_demo
