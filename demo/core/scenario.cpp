// scenario.cpp: the scenario format's parser, the settings' value rules and
// the cursor that hands out due steps. The format is documented in scenario.h.
#include "core/scenario.h"
#include "core/files.h"

#include "core/summary.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace pacer_demo {

namespace {

// The same bound as pacer::validate's target_hz (pacer.h: "Valid: (0, 10000]").
constexpr double kMaxHz = 10000.0;
constexpr double kMaxSchedPeriodMs = 16.0;
constexpr int64_t kMaxTimerSlackNs = 100'000'000;   // 100 ms: far past any useful slack
constexpr double kMaxPreciseK = 10.0;
constexpr double kMaxMicroseconds = 100'000.0;      // 100 ms for tolerances and margins
constexpr double kMaxToleranceMs = 1000.0;
// pacer::ThreadTiming's slice range, [100 us, 100 ms].
constexpr double kMinSliceUs = 100.0;
constexpr double kMaxSliceUs = 100'000.0;
// timeBeginPeriod takes whole ms; past 100 ms a "timer period" means nothing.
constexpr int64_t kMaxTimerPeriodMs = 100;
// The timer waits' slack and slice: the kernel clamps a slice to at most
// 100 ms, and a slack that long defeats a precise timer.
constexpr int64_t kMaxWaitNs = 100'000'000;

// Shortest text that reads back as the same double ("60", "0.25").
std::string format_double(double value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

bool parse_double(std::string_view text, double* out) {
    if (text.empty()) return false;
    double value = 0;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size() || !std::isfinite(value)) return false;
    *out = value;
    return true;
}

bool parse_int64(std::string_view text, int64_t* out) {
    if (text.empty()) return false;
    int64_t value = 0;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return false;
    *out = value;
    return true;
}

struct Range {
    double lo, hi;
    bool lo_open, hi_open;
    bool contains(double v) const {
        return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    }
    std::string text() const {
        return std::string(lo_open ? "(" : "[") + format_double(lo) + ", " + format_double(hi) +
               (hi_open ? ")" : "]");
    }
};

std::string key_str(std::string_view key) { return std::string(key); }

std::string not_a_number(std::string_view key, std::string_view value) {
    return key_str(key) + ": '" + std::string(value) + "' is not a number";
}

std::string out_of_range(std::string_view key, std::string_view value, const std::string& range) {
    return key_str(key) + ": " + std::string(value) + " is out of range " + range;
}

// Parses a double in range into *slot.
std::string set_double(std::string_view key, std::string_view value, Range range, std::optional<double>* slot) {
    double v = 0;
    if (!parse_double(value, &v)) return not_a_number(key, value);
    if (!range.contains(v)) return out_of_range(key, value, range.text());
    *slot = v;
    return {};
}

template <typename Int>
std::string set_int(std::string_view key, std::string_view value, int64_t lo, int64_t hi, std::optional<Int>* slot) {
    int64_t v = 0;
    if (!parse_int64(value, &v)) return key_str(key) + ": '" + std::string(value) + "' is not an integer";
    if (v < lo || v > hi) return out_of_range(key, value, "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    *slot = static_cast<Int>(v);
    return {};
}

// A timer wait's setting (pacer::OsSleeper::Options): [1, kMaxWaitNs], or
// -1 to leave the thread's own. 0, "the library's default" in Options, is
// refused as pacer::validate refuses it: the demo's defaults hold the number.
std::string set_wait_ns(std::string_view key, std::string_view value, std::optional<int64_t>* slot) {
    int64_t v = 0;
    if (!parse_int64(value, &v)) return key_str(key) + ": '" + std::string(value) + "' is not an integer";
    if (v != -1 && (v < 1 || v > kMaxWaitNs))
        return out_of_range(key, value, "(-1 to leave the thread's own, or [1, " + std::to_string(kMaxWaitNs) + "])");
    *slot = v;
    return {};
}

template <typename T>
void take(std::optional<T>& mine, const std::optional<T>& later) {
    if (later) mine = later;
}

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
        return "'" + std::string(word) + "' is not a time (write e.g. 2.5s or 250ms)";
    }
    double value = 0;
    if (!parse_double(number, &value)) return "'" + std::string(word) + "' is not a time (write e.g. 2.5s or 250ms)";
    if (value < 0) return "time '" + std::string(word) + "' is negative";
    *seconds = value * scale;
    return {};
}

// Reads WHEN at words[*i]: "frame N" or a duration. Advances *i.
std::string parse_when(const std::vector<std::string>& words, std::size_t* i, When* when) {
    if (*i >= words.size()) return "missing time (write e.g. 2.5s or frame 120)";
    if (words[*i] == "frame") {
        if (*i + 1 >= words.size()) return "missing frame number after 'frame'";
        int64_t frame = 0;
        if (!parse_int64(words[*i + 1], &frame) || frame < 0)
            return "'" + words[*i + 1] + "' is not a frame number (an integer >= 0)";
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
    return when.unit == When::Unit::Frame ? "frame " + std::to_string(when.frame) : format_double(when.seconds) + "s";
}

// Parses one non-empty statement into *scenario.
std::string parse_statement(const std::vector<std::string>& words, const std::vector<bool>& quoted, int line,
                            Scenario* scenario, int* end_line) {
    const std::string& verb = words[0];
    if (quoted[0]) return "expected a statement (title, at, end, tolerance, expect), got a quoted string";

    if (verb == "title") {
        if (words.size() != 2 || !quoted[1]) return "title: write title \"name\"";
        if (!scenario->title.empty()) return "title given twice";
        scenario->title = words[1];
        return {};
    }

    if (verb == "at") {
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
                    return "set: '" + word + "' is not key=value";
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
            return "at: unknown action '" + action + "' (set or mark)";
        }
        scenario->steps.push_back(std::move(step));
        return {};
    }

    if (verb == "end") {
        if (scenario->end) return "end given twice (first on line " + std::to_string(*end_line) + ")";
        std::size_t i = 1;
        When when{};
        std::string error = parse_when(words, &i, &when);
        if (!error.empty()) return "end: " + error;
        if (i != words.size()) return "end: unexpected '" + words[i] + "'";
        if ((when.unit == When::Unit::Frame && when.frame < 1) || (when.unit == When::Unit::Seconds && when.seconds <= 0))
            return "end: must be after the start (at least frame 1, or a time > 0)";
        scenario->end = when;
        *end_line = line;
        return {};
    }

    if (verb == "tolerance") {
        if (words.size() != 2) return "tolerance: write tolerance 1ms";
        double seconds = 0;
        std::string error = parse_duration_s(words[1], &seconds);
        if (!error.empty()) return "tolerance: " + error;
        const double ms = seconds * 1e3;
        if (!(ms > 0 && ms <= kMaxToleranceMs)) return "tolerance: " + words[1] + " is out of range (0, 1000ms]";
        scenario->success_tolerance_ms = ms;
        return {};
    }

    if (verb == "expect") {
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
        if (!is_metric_key(expectation.key)) return "expect: unknown metric '" + expectation.key + "'";
        const std::string value = rest.substr(value_at);
        if (!parse_double(value, &expectation.value))
            return "expect: '" + value + "' is not a number";
        scenario->expectations.push_back(std::move(expectation));
        return {};
    }

    return "unknown statement '" + verb + "' (title, at, end, tolerance, expect)";
}

}  // namespace

// --- vsync and comparison names -------------------------------------------

const char* vsync_mode_name(VsyncMode mode) {
    switch (mode) {
        case VsyncMode::Off: return "off";
        case VsyncMode::On: return "on";
        case VsyncMode::Adaptive: return "adaptive";
    }
    return "unknown";
}

bool parse_vsync_mode(std::string_view name, VsyncMode* out) {
    for (VsyncMode mode : {VsyncMode::Off, VsyncMode::On, VsyncMode::Adaptive}) {
        if (name == vsync_mode_name(mode)) {
            *out = mode;
            return true;
        }
    }
    return false;
}

int swap_interval(VsyncMode mode) {
    switch (mode) {
        case VsyncMode::Off: return 0;
        case VsyncMode::On: return 1;
        case VsyncMode::Adaptive: return -1;
    }
    return 0;
}

const char* dt_mode_name(DtMode mode) {
    switch (mode) {
        case DtMode::Raw: return "raw";
        case DtMode::Paced: return "paced";
        case DtMode::Fixed: return "fixed";
    }
    return "unknown";
}

bool parse_dt_mode(std::string_view name, DtMode* out) {
    for (DtMode mode : {DtMode::Raw, DtMode::Paced, DtMode::Fixed}) {
        if (name == dt_mode_name(mode)) {
            *out = mode;
            return true;
        }
    }
    return false;
}

const char* comparison_symbol(Comparison comparison) {
    switch (comparison) {
        case Comparison::Less: return "<";
        case Comparison::LessEqual: return "<=";
        case Comparison::Greater: return ">";
        case Comparison::GreaterEqual: return ">=";
    }
    return "?";
}

// --- settings -------------------------------------------------------------

bool Settings::empty() const { return describe(*this).empty(); }

void Settings::merge(const Settings& later) {
    take(strategy, later.strategy);
    take(hz, later.hz);
    take(vsync, later.vsync);
    take(miss_policy, later.miss_policy);
    take(sched_period_ms, later.sched_period_ms);
    take(preempt_prob, later.preempt_prob);
    take(timer_slack_ns, later.timer_slack_ns);
    take(precise_k, later.precise_k);
    take(robust_tolerance_us, later.robust_tolerance_us);
    take(timer_margin_us, later.timer_margin_us);
    take(sched_slice_us, later.sched_slice_us);
    take(fifo_priority, later.fifo_priority);
    take(nice, later.nice);
    take(timer_period_ms, later.timer_period_ms);
    take(wait_slack_ns, later.wait_slack_ns);
    take(wait_slice_ns, later.wait_slice_ns);
    take(dt_mode, later.dt_mode);
    take(wait_point, later.wait_point);
    take(work_ms, later.work_ms);
    take(jitter_ms, later.jitter_ms);
    take(spike_ms, later.spike_ms);
    take(spike_every, later.spike_every);
    take(bg_threads, later.bg_threads);
    take(duty, later.duty);
    take(duty_period_ms, later.duty_period_ms);
}

std::string parse_setting(std::string_view key, std::string_view value, Settings* out) {
    if (key == "strategy") {
        pacer::Strategy strategy{};
        if (!pacer::parse_strategy(value, &strategy))
            return "strategy: unknown strategy '" + std::string(value) +
                   "' (sleep, spin, precise_sleep, robust_sleep, timer, vsync, auto)";
        out->strategy = strategy;
        return {};
    }
    if (key == "hz") return set_double(key, value, Range{0, kMaxHz, true, false}, &out->hz);
    if (key == "vsync") {
        VsyncMode mode{};
        if (!parse_vsync_mode(value, &mode))
            return "vsync: unknown mode '" + std::string(value) + "' (off, on, adaptive)";
        out->vsync = mode;
        return {};
    }
    if (key == "miss_policy") {
        pacer::MissPolicy policy{};
        if (!pacer::parse_miss_policy(value, &policy))
            return "miss_policy: unknown policy '" + std::string(value) + "' (skip, catch_up)";
        out->miss_policy = policy;
        return {};
    }
    if (key == "sched_period_ms") {
        double v = 0;
        if (!parse_double(value, &v)) return not_a_number(key, value);
        if (v != 0 && !(v >= 1 && v <= kMaxSchedPeriodMs))
            return out_of_range(key, value, "(0 for the OS's scheduler, or [1, 16] simulated)");
        out->sched_period_ms = v;
        return {};
    }
    if (key == "preempt_prob") return set_double(key, value, Range{0, 1, false, true}, &out->preempt_prob);
    if (key == "timer_slack_ns") return set_int(key, value, 0, kMaxTimerSlackNs, &out->timer_slack_ns);
    if (key == "precise_k") return set_double(key, value, Range{0, kMaxPreciseK, true, false}, &out->precise_k);
    if (key == "robust_tolerance_us")
        return set_double(key, value, Range{0, kMaxMicroseconds, false, false}, &out->robust_tolerance_us);
    if (key == "timer_margin_us")
        return set_double(key, value, Range{0, kMaxMicroseconds, false, false}, &out->timer_margin_us);
    // pacer::ThreadTiming's ranges (pacer.h), with 0 for "leave".
    if (key == "sched_slice_us") {
        double v = 0;
        if (!parse_double(value, &v)) return not_a_number(key, value);
        if (v != 0 && !(v >= kMinSliceUs && v <= kMaxSliceUs))
            return out_of_range(key, value, "(0 to leave the OS's slice, or [100, 100000])");
        out->sched_slice_us = v;
        return {};
    }
    if (key == "fifo_priority") return set_int(key, value, 0, 99, &out->fifo_priority);
    if (key == "nice") return set_int(key, value, -20, 19, &out->nice);
    if (key == "timer_period_ms") return set_int(key, value, 0, kMaxTimerPeriodMs, &out->timer_period_ms);
    if (key == "wait_slack_ns") return set_wait_ns(key, value, &out->wait_slack_ns);
    if (key == "wait_slice_ns") return set_wait_ns(key, value, &out->wait_slice_ns);
    if (key == "dt_mode") {
        DtMode mode{};
        if (!parse_dt_mode(value, &mode))
            return "dt_mode: unknown mode '" + std::string(value) + "' (raw, paced, fixed)";
        out->dt_mode = mode;
        return {};
    }
    if (key == "wait_point") {
        pacer::WaitPoint point{};
        if (!pacer::parse_wait_point(value, &point))
            return "wait_point: unknown wait point '" + std::string(value) + "' (before_present, frame_start)";
        out->wait_point = point;
        return {};
    }
    // The load: the same ranges as validate(LoadConfig).
    if (key == "work_ms") return set_double(key, value, Range{0, 1000, false, false}, &out->work_ms);
    if (key == "jitter_ms") return set_double(key, value, Range{0, 1000, false, false}, &out->jitter_ms);
    if (key == "spike_ms") return set_double(key, value, Range{0, 10000, false, false}, &out->spike_ms);
    if (key == "spike_every") return set_int(key, value, 0, 1000000, &out->spike_every);
    if (key == "bg_threads") {
        const int32_t max_threads = max_background_threads();
        if (value == "cores") {
            out->bg_threads = max_threads / 2;
            return {};
        }
        if (value == "2xcores") {
            out->bg_threads = max_threads;
            return {};
        }
        int64_t v = 0;
        if (!parse_int64(value, &v))
            return "bg_threads: '" + std::string(value) + "' is not an integer, 'cores' or '2xcores'";
        if (v < 0 || v > max_threads)
            return out_of_range(key, value, "[0, " + std::to_string(max_threads) + "] (2x the cores)");
        out->bg_threads = static_cast<int32_t>(v);
        return {};
    }
    if (key == "duty") return set_double(key, value, Range{0, 1, true, false}, &out->duty);
    if (key == "duty_period_ms") return set_double(key, value, Range{1, 1000, false, false}, &out->duty_period_ms);
    return "unknown setting '" + std::string(key) + "'";
}

std::string describe(const Settings& s) {
    std::string out;
    auto add = [&out](const char* key, const std::string& value) {
        if (!out.empty()) out += ' ';
        out += key;
        out += '=';
        out += value;
    };
    if (s.strategy) add("strategy", pacer::strategy_name(*s.strategy));
    if (s.hz) add("hz", format_double(*s.hz));
    if (s.vsync) add("vsync", vsync_mode_name(*s.vsync));
    if (s.miss_policy) add("miss_policy", pacer::miss_policy_name(*s.miss_policy));
    if (s.sched_period_ms) add("sched_period_ms", format_double(*s.sched_period_ms));
    if (s.preempt_prob) add("preempt_prob", format_double(*s.preempt_prob));
    if (s.timer_slack_ns) add("timer_slack_ns", std::to_string(*s.timer_slack_ns));
    if (s.precise_k) add("precise_k", format_double(*s.precise_k));
    if (s.robust_tolerance_us) add("robust_tolerance_us", format_double(*s.robust_tolerance_us));
    if (s.timer_margin_us) add("timer_margin_us", format_double(*s.timer_margin_us));
    if (s.sched_slice_us) add("sched_slice_us", format_double(*s.sched_slice_us));
    if (s.fifo_priority) add("fifo_priority", std::to_string(*s.fifo_priority));
    if (s.nice) add("nice", std::to_string(*s.nice));
    if (s.timer_period_ms) add("timer_period_ms", std::to_string(*s.timer_period_ms));
    if (s.wait_slack_ns) add("wait_slack_ns", std::to_string(*s.wait_slack_ns));
    if (s.wait_slice_ns) add("wait_slice_ns", std::to_string(*s.wait_slice_ns));
    if (s.dt_mode) add("dt_mode", dt_mode_name(*s.dt_mode));
    if (s.wait_point) add("wait_point", pacer::wait_point_name(*s.wait_point));
    if (s.work_ms) add("work_ms", format_double(*s.work_ms));
    if (s.jitter_ms) add("jitter_ms", format_double(*s.jitter_ms));
    if (s.spike_ms) add("spike_ms", format_double(*s.spike_ms));
    if (s.spike_every) add("spike_every", std::to_string(*s.spike_every));
    if (s.bg_threads) add("bg_threads", std::to_string(*s.bg_threads));
    if (s.duty) add("duty", format_double(*s.duty));
    if (s.duty_period_ms) add("duty_period_ms", format_double(*s.duty_period_ms));
    return out;
}

void apply_load_settings(const Settings& s, LoadConfig* load) {
    if (s.work_ms) load->work_ms = *s.work_ms;
    if (s.jitter_ms) load->jitter_ms = *s.jitter_ms;
    if (s.spike_ms) load->spike_ms = *s.spike_ms;
    if (s.spike_every) load->spike_every_frames = *s.spike_every;
    if (s.bg_threads) load->background_threads = *s.bg_threads;
    if (s.duty) load->duty_cycle = *s.duty;
    if (s.duty_period_ms) load->duty_period_ms = *s.duty_period_ms;
}

std::string Step::text() const {
    if (!mark.empty()) return "mark " + mark;
    return "set " + describe(settings);
}

std::string Expectation::text() const {
    return key + " " + comparison_symbol(comparison) + " " + format_double(value);
}

// --- parsing --------------------------------------------------------------

std::string parse_scenario_text(std::string_view text, const std::string& name, Scenario* out) {
    Scenario scenario{};
    scenario.name = name;
    int end_line = 0;
    int line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t stop = text.find('\n', start);
        if (stop == std::string_view::npos) stop = text.size();
        const std::string_view line = text.substr(start, stop - start);
        ++line_number;
        std::vector<std::string> words;
        std::vector<bool> quoted;
        std::string error = tokenize(line, &words, &quoted);
        if (error.empty() && !words.empty()) error = parse_statement(words, quoted, line_number, &scenario, &end_line);
        if (!error.empty()) return name + ":" + std::to_string(line_number) + ": " + error;
        if (stop == text.size()) break;
        start = stop + 1;
    }
    // A step at or after the end would never run: say so rather than skip it.
    if (scenario.end) {
        for (const Step& step : scenario.steps) {
            if (after_end(step.at, *scenario.end))
                return name + ":" + std::to_string(step.line) + ": at " + when_text(step.at) +
                       " is not before the end (" + when_text(*scenario.end) + ", line " + std::to_string(end_line) +
                       ")";
        }
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
