// table.h: what paces, as a state machine a reader follows in one screen.
// Internal (pacer_internal); docs/design.md, "Auto as a table".
//
// Four states say what paces: auto's probe of vsync, vsync, the timer (the
// waiter: timer, robust_sleep, spin ...) and display_lock. Two ceilings sit
// on top (VRR's cap, a window in the background); under either the timer
// paces.
//
// Two tables move it. kChoices picks what paces, first row that matches,
// whenever the arbiter chooses afresh (core/arbiter_choices.cpp carries each
// row out). kTransitions lists every input the rules raise: the states it
// is taken in, its action, the rule that raises it (rules/<rule>.cpp;
// "arbiter": core/arbiter.cpp) and the words its text begins with. The
// arbiter takes every input through find_transition(), and debug builds
// check the move is the table's. A new rule adds a row here and a file in
// rules/. Every row may end on the timer where what it wants is not to be
// had (no host, a swap interval refused).
//
//   probing vsync --Probe*Steady (probe)----------------------> vsync
//   probing vsync --Probe* failed (probe)---------------------> timer, retry after the backoff
//   vsync ---------SwapsFast ... ShownOffCadence (vsync)------> timer, retry after the backoff
//   vsync ---------VsyncHealth (vsync: explicit vsync)--------> vsync, a new reason
//   timer ---------Retry (arbiter)----------------------------> kChoices
//   not locked ----ClockLocked (display)----------------------> kChoices
//   timer ---------ClockWaits (display: display_lock asked)---> timer, a new reason
//   display_lock --ClockLost, LeadStepped, FramesEarly
//                  (display), ShownFewer (shown)--------------> kChoices
//   any -----------RefreshChanged (arbiter), DisplayMoved-----> kChoices
//   any, ceiling --Start, WindowChanged, VrrChanged-----------> kChoices
#pragma once

#include <pacer/pacer.h>

#include <cstdint>

namespace pacer::detail {

enum class PaceState : uint8_t { ProbingVsync, Vsync, Timer, DisplayLock };
enum class Ceiling : uint8_t { None, Vrr, Background };

// ---- kChoices: first row that matches -------------------------------------

enum class Choice : uint8_t {
    Background,       // the timer at background_hz / hidden_hz (rules/window.h)
    VrrCap,           // the timer at VRR's cap, vsync kept as a ceiling (rules/vrr.h)
    VsyncAsked,       // swap interval refresh / target
    DisplayLock,      // one frame every n fitted refreshes (rules/display.h)
    VsyncShowsMost,   // vsync at every refresh until the bar runs out (rules/shown.h)
    TimerBarred,      // the timer until the bar runs out (rules/display.h)
    ProbeVsync,       // swap interval n, probed (rules/vsync.h), where refresh / n fits
    DisplayLockWaits, // the timer until the clock locks
    Asked,            // the waiter's strategy as asked (timer, robust_sleep, spin ...)
};

// What the choice reads: facts, not the arbiter.
struct ChoiceFacts {
    Strategy asked = Strategy::Auto;
    bool background = false;         // the window's state has a ceiling
    bool vrr = false;                // variable refresh is on
    bool lockable = false;           // display_lock can pace and is not barred
    bool barred_for_vsync = false;   // auto: barred because vsync showed more, the bar running, feedback seen
    bool can_lock = false;           // display_lock could pace, barred or not
};

struct ChoiceRow {
    Choice choice;
    PaceState state;    // where it leads (or the timer, as every rule may)
    const char* when;   // the row's condition, as docs/design.md gives it
};

inline constexpr ChoiceRow kChoices[] = {
    {Choice::Background, PaceState::Timer, "the window's state has a ceiling"},
    {Choice::VrrCap, PaceState::Timer, "VRR on"},
    {Choice::VsyncAsked, PaceState::Vsync, "vsync asked for"},
    {Choice::DisplayLock, PaceState::DisplayLock, "auto or display_lock, the clock locked, not barred"},
    {Choice::VsyncShowsMost, PaceState::Vsync, "auto, barred because vsync showed more"},
    {Choice::TimerBarred, PaceState::Timer, "auto, the clock locked but display_lock barred"},
    {Choice::ProbeVsync, PaceState::ProbingVsync, "auto otherwise"},
    {Choice::DisplayLockWaits, PaceState::Timer, "display_lock asked for, not lockable"},
    {Choice::Asked, PaceState::Timer, "any other strategy"},
};

// kChoices' conditions, in its order.
constexpr Choice pick(const ChoiceFacts& f) {
    if (f.background) return Choice::Background;
    if (f.vrr) return Choice::VrrCap;
    if (f.asked == Strategy::Vsync) return Choice::VsyncAsked;
    const bool auto_ = f.asked == Strategy::Auto;
    if ((auto_ || f.asked == Strategy::DisplayLock) && f.lockable) return Choice::DisplayLock;
    if (auto_ && f.barred_for_vsync) return Choice::VsyncShowsMost;
    if (auto_ && f.can_lock) return Choice::TimerBarred;
    if (auto_) return Choice::ProbeVsync;
    if (f.asked == Strategy::DisplayLock) return Choice::DisplayLockWaits;
    return Choice::Asked;
}

constexpr PaceState state_of(Choice choice) {
    for (const ChoiceRow& row : kChoices)
        if (row.choice == choice) return row.state;
    return PaceState::Timer;
}

// ---- kTransitions: every input, where it is taken, where it goes ----------

enum class Input : uint8_t {
    Start,             // made, or the config changed where it matters
    Retry,             // auto's backoff ran out
    RefreshChanged,    // the host states another refresh
    WindowChanged,     // the window's state moved its ceiling
    VrrChanged,        // VRR on, off, or its range moved
    ClockLocked,       // display_lock can pace (again)
    ClockLost,         // ... no longer, past the hold
    ClockWaits,        // display_lock asked for, its clock unlocked for long: why
    DisplayMoved,      // the fitted refresh left the decided one
    LeadStepped,       // the learned lead crossed a frame step
    FramesEarly,       // a quarter of display_lock's frames shown early: barred
    ShownFewer,        // display_lock showed fewer frames than vsync did: barred
    ProbeSwapsSteady,  // the probe confirms vsync on its swaps
    ProbeShownSteady,  // ... on the shown frames
    ProbeSwapsFast,    // the probe fails: swaps that do not block
    ProbeOffPeriod,    // ... swaps at another period
    ProbeUneven,       // ... uneven swaps, nothing reporting shown frames
    ProbeNoClock,      // ... no steady refresh reported
    ProbeShownOffRate, // ... frames shown at another rate
    ProbeOffCadence,   // ... frames shown off cadence
    SwapsFast,         // vsync left: swaps stopped blocking
    MissedRefreshes,   // ... refreshes missed
    SwapsOffRate,      // ... swaps at another rate
    SwapsUneven,       // ... uneven swaps, twice
    ShownOffCadence,   // ... frames shown off cadence
    VsyncHealth,       // explicit vsync says what it sees, and stays
};

enum class Action : uint8_t {
    Choose,   // kChoices afresh
    Leave,    // vsync off, the timer until the backoff runs out
    Confirm,  // the probe ends: vsync kept
    Say,      // the same pacing, a new reason
};

// A set of states, one bit each.
using States = uint8_t;
constexpr States bit(PaceState s) { return static_cast<States>(1u << static_cast<unsigned>(s)); }
inline constexpr States kProbing = bit(PaceState::ProbingVsync), kVsync = bit(PaceState::Vsync),
                        kTimer = bit(PaceState::Timer), kLocked = bit(PaceState::DisplayLock),
                        kAnyState = kProbing | kVsync | kTimer | kLocked;

struct Transition {
    States from;          // the states it is taken in (under no ceiling, unless `ceilings`)
    Input input;
    Action action;
    bool ceilings;        // also taken under a ceiling
    const char* rule;     // who raises it: rules/<rule>.cpp, or core/arbiter.cpp
    // What the text the rule hands over begins with: for Say the reason,
    // for Leave the why after "auto -> timer: ", for Choose the prefix
    // before the chosen row's reason ("" where there is none, or where it
    // varies: the bars' words are in the rows kChoices picks after them).
    const char* words;
};

inline constexpr Transition kTransitions[] = {
    {kAnyState, Input::Start, Action::Choose, true, "arbiter", ""},
    {kAnyState, Input::WindowChanged, Action::Choose, true, "window", "window "},
    {kAnyState, Input::VrrChanged, Action::Choose, true, "vrr", "VRR "},
    {kAnyState, Input::RefreshChanged, Action::Choose, false, "arbiter", "refresh "},
    {kTimer, Input::Retry, Action::Choose, false, "arbiter", "retry"},
    {kProbing | kVsync | kTimer, Input::ClockLocked, Action::Choose, false, "display", ""},
    {kLocked, Input::ClockLost, Action::Choose, false, "display", "display clock lost"},
    {kTimer, Input::ClockWaits, Action::Say, false, "display", "display_lock -> timer: the display's clock "},
    {kAnyState, Input::DisplayMoved, Action::Choose, false, "display", ""},
    {kLocked, Input::LeadStepped, Action::Choose, false, "display", ""},
    {kLocked, Input::FramesEarly, Action::Choose, false, "display", ""},
    {kLocked, Input::ShownFewer, Action::Choose, false, "shown", ""},
    {kProbing, Input::ProbeSwapsSteady, Action::Confirm, false, "probe", "auto -> vsync: presents every "},
    {kProbing, Input::ProbeShownSteady, Action::Confirm, false, "probe", "auto -> vsync: display shows frames every "},
    {kProbing, Input::ProbeSwapsFast, Action::Leave, false, "probe", "vsync requested, swaps return every "},
    {kProbing, Input::ProbeOffPeriod, Action::Leave, false, "probe", "vsync presents every "},
    {kProbing, Input::ProbeUneven, Action::Leave, false, "probe", "vsync presents off their median "},
    {kProbing, Input::ProbeNoClock, Action::Leave, false, "probe", "vsync requested, the display reports no "},
    {kProbing, Input::ProbeShownOffRate, Action::Leave, false, "probe", "display shows frames every "},
    {kProbing, Input::ProbeOffCadence, Action::Leave, false, "probe", "displayed frames off cadence in "},
    {kVsync, Input::SwapsFast, Action::Leave, false, "vsync", "swaps return every "},
    {kVsync, Input::MissedRefreshes, Action::Leave, false, "vsync", "vsync missed refreshes in "},
    {kVsync, Input::SwapsOffRate, Action::Leave, false, "vsync", "swaps return every "},
    {kVsync, Input::SwapsUneven, Action::Leave, false, "vsync", "vsync presents off their median "},
    {kVsync, Input::ShownOffCadence, Action::Leave, false, "vsync", "displayed frames off cadence in "},
    {kVsync, Input::VsyncHealth, Action::Say, false, "vsync", "vsync: swap interval "},
};

// The row for `input` in `state` (under `ceiling`), or null: an input the
// machine does not take there.
constexpr const Transition* find_transition(PaceState state, Ceiling ceiling, Input input) {
    for (const Transition& row : kTransitions)
        if (row.input == input && (row.from & bit(state)) != 0 && (ceiling == Ceiling::None || row.ceilings))
            return &row;
    return nullptr;
}

// Where a row leads from `state`: a Say stays, a Leave goes to the timer, a
// Confirm to vsync, a Choose to what `facts` pick.
constexpr PaceState next_state(const Transition& row, PaceState state, const ChoiceFacts& facts) {
    switch (row.action) {
        case Action::Say: return state;
        case Action::Leave: return PaceState::Timer;
        case Action::Confirm: return PaceState::Vsync;
        case Action::Choose: return state_of(pick(facts));
    }
    return state;
}

}  // namespace pacer::detail
