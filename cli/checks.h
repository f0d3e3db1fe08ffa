// cli/checks.h: the number checks every command line here shares (pacer-bench,
// pacer-wake-probe, pacer-demo), as CLI11 validators. Decimal only (std::stod
// and CLI11's own conversions also take hex and leading spaces), finite
// (CLI::Range lets NaN through: every comparison with it is false), in
// range, and a whole number that overflows is refused, not saturated. Each
// refusal is one line that echoes the start of the value as given.
#pragma once

#include "echo.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>

namespace pacer_cli {

// A finite decimal number in [min, max]; `unit` follows the value in the message.
inline CLI::Validator number_in(double min, double max, const std::string& unit = "") {
    char range_text[64];
    std::snprintf(range_text, sizeof range_text, "[%g, %g]", min, max);
    const std::string range = range_text;
    return CLI::Validator(
        [min, max, unit, range](std::string& text) -> std::string {
            double number = 0;
            const char* end = text.data() + text.size();
            const auto [stop, error] = std::from_chars(text.data(), end, number);
            if (error != std::errc() || stop != end || !std::isfinite(number))
                return "'" + clipped(text) + "' is not a finite decimal number";
            if (number < min || number > max) return clipped(text) + unit + " is out of range " + range;
            return {};
        },
        range);
}

// A decimal whole number in [lo, hi].
inline CLI::Validator whole_in(int64_t lo, int64_t hi) {
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return CLI::Validator(
        [lo, hi, range](std::string& text) -> std::string {
            int64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [stop, error] = std::from_chars(text.data(), end, value);
            if (error == std::errc::result_out_of_range && stop == end) return clipped(text) + " is out of range " + range;
            if (error != std::errc() || stop != end) return "'" + clipped(text) + "' is not a decimal whole number";
            if (value < lo || value > hi) return clipped(text) + " is out of range " + range;
            return {};
        },
        "INT in " + range);
}

// Not 0: for a flag whose default is left out rather than written as 0, so
// that a 0 given is refused, not silently the default. Chain it after the
// flag's range check.
inline CLI::Validator not_zero() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double number = 1;
            const char* end = text.data() + text.size();
            const auto [stop, error] = std::from_chars(text.data(), end, number);
            if (error == std::errc() && stop == end && number == 0)
                return "0 is no value here (leave the flag out for the default)";
            return {};
        },
        "");
}

}  // namespace pacer_cli
