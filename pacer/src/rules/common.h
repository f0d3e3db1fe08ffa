// common.h: what auto's rules share: the Verdict a rule hands the arbiter,
// the thresholds, and the words of the reasons. Internal.
#pragma once

#include "rules/table.h"
#include "display/display_lead.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include <pacer/units.h>

namespace pacer::detail {

// What a rule hands the arbiter (core/arbiter.h): an input of table.h and
// the text its row says it begins with.
struct Verdict {
    Input input = Input::Start;
    std::string text;
    bool long_backoff = false;   // a Leave: retried only after kMaxBackoffNs (a compositor that stays so)
};
using MaybeVerdict = std::optional<Verdict>;

namespace rules {

inline constexpr int kProbeFrames = 8;                  // intervals measured before vsync is trusted
// Where nothing reports shown frames, the probe also needs vsync's presents
// steady: over kSteadyFrames intervals (less those that filled the queue),
// fewer than kWatchTrip off their median by more than kSteadyNs (the
// statistics' own "off"); the probe ends as soon as kWatchTrip are, from
// half the window on. Only a swap that never blocks (three quarters of the
// first kProbeFrames under half the period) is judged on those alone. Auto
// applies the rule for the whole stay on vsync, over the watch window of
// 32. A compositor whose swaps block but return unevenly (KWin's virtual
// output: 41-72 % of each 32 off; sway's: 0-12 %) fails, and the timer
// paces; it is tried again only after kMaxBackoffNs, or on a change.
inline constexpr int kSteadyFrames = 32;
inline constexpr int64_t kSteadyNs = kNsPerMs / 2;
// For the whole stay the bar is twice as wide: sway's swaps, steady on
// screen, return up to 0.6 ms off their median, and as often as the probe's
// rule allows, so a stray frame or two would end a good vsync.
inline constexpr int64_t kUnevenNs = 2 * kSteadyNs;
inline constexpr double kProbeTolerance = 0.25;         // probe median within 25 % of the vsync period
inline constexpr int kWatchTrip = 8;                    // fast or slow ones in the window that count
inline constexpr int kWatchClear = 2;                   // at or under this, explicit vsync is fine again
inline constexpr double kFastFraction = 0.5;            // under half the vsync period: did not block
inline constexpr double kSlowFraction = 1.5;            // over 1.5 periods: a refresh was missed
inline constexpr int64_t kFirstBackoffNs = 2 * kNsPerSecond;      // auto re-probes after 2 s ...
inline constexpr int64_t kMaxBackoffNs = 64 * kNsPerSecond;       // ... doubling up to 64 s
inline constexpr int64_t kRefreshPollNs = kNsPerSecond;           // the refresh rate is read once a second
// A fitted refresh off the one a decision rests on by more than the rate
// tolerance but under kRefreshJump (a fit that wobbles, as weston's headless
// output does around 39.5 Hz) re-decides only once it has stayed off for
// kRefreshHoldNs; a larger change at once (a new mode). Under display_lock a
// small change re-decides only where it changes the refreshes per frame.
inline constexpr double kRefreshJump = 0.05;
inline constexpr int64_t kRefreshHoldNs = kNsPerSecond;
// display_lock holds through a lost display clock this long, pacing with the
// timer on its last step, while the fit starts over: a display that moved
// (weston's repaint loop, a 2 % change) relocks within it, and a new rate
// re-decides at once when it does.
inline constexpr int64_t kLostHoldNs = kNsPerSecond;
// display_lock's refreshes per frame: a display up to this share of a frame
// faster than the target still shows one frame a refresh (60.3 Hz for 60).
inline constexpr double kFrameSlack = 0.05;
// Auto judges display_lock against vsync's shown rate (rules/shown.cpp)
// once it has shown this many frames after its first kProbeFrames (the
// switch's own: a frame the vsync queue still held), and leaves it for
// vsync where it shows more than this share fewer. Over 32 frames one
// frame lost at the switch was 5 % (a replayed weston: 37.6 against 39.6).
inline constexpr int kShownJudged = 64;
inline constexpr double kShownShortfall = 0.05;
// A shown interval past this many frame steps is the display's outage,
// not a strategy's: the shown rates leave it out, as the learned lead
// leaves out work past its reach (DisplayLead::kMaxSteps).
inline constexpr double kOutageSteps = DisplayLead::kMaxSteps;
inline constexpr int kDisplayProbeFrames = 240;         // a probe waits this long for the display to lock
inline constexpr double kMinRefreshHz = 1;              // a host's refresh outside this range, or
inline constexpr double kMaxRefreshHz = 10'000;         // not finite, is taken as unknown (0)

// Decision::seq after seq: + 1, and past INT32_MAX 1 again (still a change,
// never 0, which means none yet).
inline constexpr int32_t next_decision_seq(int32_t seq) {
    return seq == std::numeric_limits<int32_t>::max() ? 1 : seq + 1;
}

inline std::string ms(double ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f ms", ms_of(ns));
    return buffer;
}

// A fitted rate: to 0.1 Hz, trailing zeros dropped ("59.9 Hz", "60 Hz"); a
// fit's last digits are noise.
inline std::string hz_rounded(double hz) { return hz_text(std::round(hz * 10) / 10); }

// A time left: to 0.1 s, trailing zeros dropped ("64 s", "1.5 s"), where
// "%g" alone wrote a bar read a few ms after it began as "63.9999 s".
inline std::string seconds(int64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g s", std::round(seconds_of(static_cast<double>(ns)) * 10) / 10);
    return buffer;
}

}  // namespace rules
}  // namespace pacer::detail
