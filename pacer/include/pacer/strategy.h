// pacer/strategy.h: the strategies a Pacer waits with, what it does when a
// frame is late and where the engine waits, with the names command lines use
// for them. pacer.h includes it.
#pragma once

#include <string_view>

namespace pacer {

// How a wait is done; names (strategy_name) are the ones used on command lines.
enum class Strategy : int {
    Sleep,          // "sleep": relative OS sleep of the rest of the frame; the baseline, drifts
    Spin,           // "spin": busy-wait to the deadline; precise, costs a core
    PreciseSleep,   // "precise_sleep": 1 ms sleeps while mean + k*sigma fits, then spin
    RobustSleep,    // "robust_sleep": whole scheduler periods minus one plus tolerance, then spin
    Timer,          // "timer": high-resolution timer to deadline - adaptive margin, then spin
    Vsync,          // "vsync": the swap blocks (Host); without a Host, as timer
    Auto,           // "auto": display_lock where the Host reports shown frames and their clock
                    // locks, while the display shows frames at the refresh they aim at (not
                    // before: a display that shows them as they come gets the timer) and as
                    // many as vsync did (where vsync fell short of the target, display_lock
                    // showing 5 % fewer a second, or losing the clock, gets vsync); else vsync
                    // when the Host proves it paces (by shown frames where it reports them); else
                    // timer. Re-decides when the refresh changes, and retries with a backoff;
                    // docs/design.md says when and why
    DisplayLock,    // "display_lock": the timer on the display's own clock (Host::take_presented):
                    // swap interval 0, one frame every n refreshes (the fewest that keep the
                    // rate near target_hz), each deadline display.lead_ns before its refresh, so
                    // the frame is shown just in time; until the clock locks, and without
                    // reports, as timer
};
inline constexpr Strategy kAllStrategies[] = {
    Strategy::Sleep, Strategy::Spin,  Strategy::PreciseSleep, Strategy::RobustSleep,
    Strategy::Timer, Strategy::Vsync, Strategy::Auto,         Strategy::DisplayLock,
};

// What to do when the engine's work ran past the next deadline.
enum class MissPolicy : int {
    Skip,      // "skip": late by a period or more: aim at the first grid point at or after now
    CatchUp,   // "catch_up": keep every grid point; late frames run back to back
};

// Where in its frame the engine calls wait(); changes Frame::predicted_present_ns.
enum class WaitPoint : int {
    BeforePresent,   // "before_present": render, wait, swap: the steadiest presents, once the
                     // frame's GPU work is done at the wait (Host::finish_gpu, or the engine's own)
    FrameStart,      // "frame_start": wait, input, render, swap: the lowest latency
};

// Whether the display waits for frames (variable refresh: FreeSync, G-Sync,
// HDMI VRR), Config::display.vrr.
enum class Vrr : int {
    Off,    // "off": the display refreshes at its own rate
    On,     // "on": it waits for frames within a range (Config::display.vrr_min_hz ..
            // vrr_max_hz, else the Host's, else up to the stated refresh)
    Auto,   // "auto": on where the Host says the window's display waits for frames
            // (Host::variable_refresh), else off
};

const char* strategy_name(Strategy strategy);      // "sleep" ... "auto"; "unknown" if out of range
// Vsync, auto and display_lock: they set the swap interval and listen to the
// display, so they need a Host (without one they wait as timer).
constexpr bool strategy_uses_host(Strategy strategy) {
    return strategy == Strategy::Vsync || strategy == Strategy::Auto || strategy == Strategy::DisplayLock;
}
const char* miss_policy_name(MissPolicy policy);   // "skip", "catch_up"
const char* wait_point_name(WaitPoint point);      // "before_present", "frame_start"
const char* vrr_name(Vrr vrr);                     // "off", "on", "auto"
// Parse a name; false (leaving *out alone) for an unknown one.
bool parse_strategy(std::string_view name, Strategy* out);
bool parse_miss_policy(std::string_view name, MissPolicy* out);
bool parse_wait_point(std::string_view name, WaitPoint* out);
bool parse_vrr(std::string_view name, Vrr* out);

}  // namespace pacer
