// pacer/units.h: time units, written once (SDL_NS_PER_MS's idea).
//
// Every time in pacer is int64 nanoseconds. These convert to and from the
// units people read, and between a rate and its period, so that no caller
// writes 1e9 / hz or ns / 1e6 by hand:
//
//     pacer::Config config;
//     config.target_hz = 144;
//     const double frame_ms = pacer::ms_of(pacer::period_ns_of(config.target_hz));
#pragma once

#include <cstdint>
#include <string>

namespace pacer {

inline constexpr int64_t kNsPerUs = 1'000;
inline constexpr int64_t kNsPerMs = 1'000'000;
inline constexpr int64_t kNsPerSecond = 1'000'000'000;
inline constexpr double kMsPerSecond = 1'000.0;   // for rates of times kept in ms (frame statistics)

// A duration in ns as microseconds, milliseconds or seconds, for reports.
inline constexpr double us_of(double ns) { return ns / static_cast<double>(kNsPerUs); }
inline constexpr double ms_of(double ns) { return ns / static_cast<double>(kNsPerMs); }
inline constexpr double seconds_of(double ns) { return ns / static_cast<double>(kNsPerSecond); }

// Milliseconds or seconds as ns, not rounded (a config's 0.5 ms).
inline constexpr double ns_of_ms(double ms) { return ms * static_cast<double>(kNsPerMs); }
inline constexpr double ns_of_seconds(double seconds) { return seconds * static_cast<double>(kNsPerSecond); }

// The period of a rate and the rate of a period: 60 Hz is 16,666,666.67 ns.
// Not rounded; a non-positive argument gives infinity or a negative value,
// which callers refuse before they get here.
inline constexpr double period_ns_of(double hz) { return static_cast<double>(kNsPerSecond) / hz; }
inline constexpr double hz_of(double period_ns) { return static_cast<double>(kNsPerSecond) / period_ns; }

// How pacer writes a number in its messages, for tools that write beside it:
// whole numbers in full ("100000"), the rest as the shortest text that reads
// back as the same double ("0.99", "nan"), so a message says exactly what was
// given. hz_text writes a rate as people read it, to six digits and with
// its unit: "59.94 Hz", "59.9502 Hz".
std::string number_text(double value);
std::string hz_text(double hz);

}  // namespace pacer
