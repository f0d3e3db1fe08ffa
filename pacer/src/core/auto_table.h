// auto_table.h: what paces, as a state machine a reader follows in one
// screen. Internal (pacer_internal).
//
// Four states say what paces: auto's probe of vsync, vsync, the timer (the
// waiter: timer, robust_sleep, spin ...) and display_lock. Two ceilings sit
// on top (VRR's cap, a window in the background); under either the timer
// paces.
//
// Two tables move it. kChoices picks what paces, first row that matches,
// whenever the arbiter chooses afresh; kTransitions lists every input the
// rules raise, the states it is taken in, where it goes (kChosen: wherever
// kChoices then says) and the words its reason begins with. The arbiter
// (arbiter.h) takes each input through find_transition(); the rule in the
// `rule` column (core/rule_*.cpp) is where the input is raised. A new rule
// adds a row here and a file there. Every rule falls back to the timer
// where what it wants is not to be had (no host, a swap interval refused),
// so a transition may always end on the timer. docs/design.md, "Auto as a
// table".
#pragma once

#include <pacer/pacer.h>

#include <cstdint>

namespace pacer::detail {

enum class PaceState : uint8_t { ProbingVsync, Vsync, Timer, DisplayLock };
enum class Ceiling : uint8_t { None, Vrr, Background };

// ---- kChoices: first row that matches -------------------------------------

enum class Choice : uint8_t {
    Background,       // rule_window: the timer at background_hz / hidden_hz
    VrrCap,           // rule_vrr: the timer at the cap, vsync kept as a ceiling
    VsyncAsked,       // arbiter: vsync asked for, swap interval refresh / target
    DisplayLock,      // rule_display: display_lock, its clock locked and not barred
    VsyncShowsMost,   // rule_shown: auto, display_lock barred because vsync showed more
    TimerBarred,      // rule_display: auto, display_lock barred (its frames came early)
    ProbeVsync,       // rule_probe: auto, vsync probed where refresh / n fits the target
    DisplayLockWaits, // rule_display: display_lock asked for, the timer until the clock locks
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
    Start,             // arbiter: made, or the config changed where it matters
    Retry,             // arbiter: auto's backoff ran out
    RefreshChanged,    // arbiter: the host states another refresh
    WindowChanged,     // rule_window
    VrrChanged,        // rule_vrr
    ClockLocked,       // rule_display: display_lock can pace (again)
    ClockLost,         // rule_display: past the hold
    DisplayMoved,      // rule_display: the fitted refresh left the decided one
    LeadStepped,       // rule_display: the learned lead crossed a frame step
    FramesEarly,       // rule_display: a quarter of display_lock's frames shown early
    ShownFewer,        // rule_shown: display_lock showed fewer frames than vsync did
    ProbeSwapsSteady,  // rule_probe: vsync confirmed on its swaps
    ProbeShownSteady,  // rule_probe: vsync confirmed on shown frames
    ProbeSwapsFast,    // rule_probe
    ProbeOffPeriod,    // rule_probe
    ProbeUneven,       // rule_probe
    ProbeNoClock,      // rule_probe
    ProbeShownOffRate, // rule_probe
    ProbeOffCadence,   // rule_probe
    SwapsFast,         // rule_vsync
    MissedRefreshes,   // rule_vsync
    SwapsOffRate,      // rule_vsync
    SwapsUneven,       // rule_vsync
    ShownOffCadence,   // rule_vsync
    VsyncHealth,       // rule_vsync: explicit vsync says what it sees, and stays
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
    const char* rule;     // the file that raises it: core/rule_<rule>.cpp (arbiter: arbiter.cpp)
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
