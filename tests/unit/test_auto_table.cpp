// Auto's state machine alone (rules/table.h): the choice's order, every
// transition's row, and a walk through every row of the table, with no
// Pacer and no Arbiter.
#include "rules/table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace pacer::detail {
namespace {

constexpr PaceState kStates[] = {PaceState::ProbingVsync, PaceState::Vsync, PaceState::Timer, PaceState::DisplayLock};
constexpr int kInputs = static_cast<int>(Input::VsyncHealth) + 1;

ChoiceFacts auto_facts() { return ChoiceFacts{}; }   // auto, nothing known: the probe

ChoiceFacts facts_for(Choice choice) {
    ChoiceFacts f;
    switch (choice) {
        case Choice::Background: f.background = true, f.vrr = true, f.lockable = true; break;   // over the rest
        case Choice::VrrCap: f.vrr = true, f.asked = Strategy::Vsync; break;
        case Choice::VsyncAsked: f.asked = Strategy::Vsync, f.lockable = true; break;
        case Choice::DisplayLock: f.lockable = true, f.barred_for_vsync = true, f.can_lock = true; break;
        case Choice::VsyncShowsMost: f.barred_for_vsync = true, f.can_lock = true; break;
        case Choice::TimerBarred: f.can_lock = true; break;
        case Choice::ProbeVsync: break;
        case Choice::DisplayLockWaits: f.asked = Strategy::DisplayLock, f.can_lock = true; break;
        case Choice::Asked: f.asked = Strategy::Timer, f.lockable = true, f.can_lock = true; break;
    }
    return f;
}

TEST(AutoTable, ChoicesArePickedFirstRowFirst) {
    for (const ChoiceRow& row : kChoices) EXPECT_EQ(pick(facts_for(row.choice)), row.choice) << row.when;
    // Display_lock asked for, locked: the same row as auto's; barred facts are auto's alone.
    ChoiceFacts asked;
    asked.asked = Strategy::DisplayLock;
    asked.lockable = true;
    EXPECT_EQ(pick(asked), Choice::DisplayLock);
    asked.lockable = false;
    asked.barred_for_vsync = true;
    EXPECT_EQ(pick(asked), Choice::DisplayLockWaits);
    for (Strategy s : {Strategy::Timer, Strategy::RobustSleep, Strategy::Spin, Strategy::Sleep}) {
        ChoiceFacts f = facts_for(Choice::TimerBarred);
        f.asked = s;
        EXPECT_EQ(pick(f), Choice::Asked) << strategy_name(s);
    }
}

TEST(AutoTable, EveryChoiceLeadsToItsState) {
    EXPECT_EQ(state_of(Choice::ProbeVsync), PaceState::ProbingVsync);
    EXPECT_EQ(state_of(Choice::DisplayLock), PaceState::DisplayLock);
    EXPECT_EQ(state_of(Choice::VsyncShowsMost), PaceState::Vsync);
    EXPECT_EQ(state_of(Choice::VsyncAsked), PaceState::Vsync);
    for (Choice c : {Choice::Background, Choice::VrrCap, Choice::TimerBarred, Choice::DisplayLockWaits, Choice::Asked})
        EXPECT_EQ(state_of(c), PaceState::Timer);
}

TEST(AutoTable, OneRowForEachInputInEachState) {
    for (int i = 0; i < kInputs; ++i) {
        const auto input = static_cast<Input>(i);
        int rows = 0;
        for (const Transition& row : kTransitions) {
            if (row.input != input) continue;
            ++rows;
            for (PaceState s : kStates) {
                const Transition* found = find_transition(s, Ceiling::None, input);
                if ((row.from & bit(s)) != 0) {
                    EXPECT_EQ(found, &row) << "input " << i;
                } else {
                    EXPECT_EQ(found, nullptr) << "input " << i << " taken where its row says not";
                }
            }
        }
        EXPECT_EQ(rows, 1) << "input " << i << " has no row, or several";
    }
}

TEST(AutoTable, UnderACeilingOnlyStartWindowAndVrrAreTaken) {
    for (Ceiling c : {Ceiling::Vrr, Ceiling::Background})
        for (int i = 0; i < kInputs; ++i) {
            const auto input = static_cast<Input>(i);
            const bool taken = input == Input::Start || input == Input::WindowChanged || input == Input::VrrChanged;
            EXPECT_EQ(find_transition(PaceState::Timer, c, input) != nullptr, taken) << "input " << i;
        }
}

TEST(AutoTable, EachRowNamesItsRuleAndWords) {
    const std::set<std::string> rules = {"arbiter", "window", "vrr", "display", "shown", "probe", "vsync"};
    for (const Transition& row : kTransitions) {
        EXPECT_EQ(rules.count(row.rule), 1u) << row.rule;
        EXPECT_NE(row.from, 0) << row.words;
        // A reason that leaves or keeps vsync always says why in its own words.
        if (row.action != Action::Choose) {
            EXPECT_GT(std::strlen(row.words), 10u) << row.rule;
        }
    }
}

// The machine driven alone through every row: each step an input, the facts
// the choice reads then, and the state it must reach.
TEST(AutoTable, AWalkTakesEveryTransition) {
    struct Step {
        Input input;
        ChoiceFacts facts;
        PaceState to;
    };
    ChoiceFacts locked = auto_facts();
    locked.lockable = locked.can_lock = true;
    ChoiceFacts barred = auto_facts();
    barred.can_lock = true;
    ChoiceFacts shows_most = barred;
    shows_most.barred_for_vsync = true;
    const std::vector<Step> walk = {
        {Input::Start, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeSwapsSteady, {}, PaceState::Vsync},
        {Input::SwapsFast, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeSwapsFast, {}, PaceState::Timer},
        {Input::RefreshChanged, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeOffPeriod, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeUneven, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeNoClock, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeShownOffRate, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeOffCadence, {}, PaceState::Timer},
        {Input::ClockWaits, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeShownSteady, {}, PaceState::Vsync},
        {Input::MissedRefreshes, {}, PaceState::Timer},
        {Input::DisplayMoved, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeSwapsSteady, {}, PaceState::Vsync},
        {Input::SwapsOffRate, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeSwapsSteady, {}, PaceState::Vsync},
        {Input::SwapsUneven, {}, PaceState::Timer},
        {Input::Retry, auto_facts(), PaceState::ProbingVsync},
        {Input::ProbeSwapsSteady, {}, PaceState::Vsync},
        {Input::ShownOffCadence, {}, PaceState::Timer},
        {Input::ClockLocked, locked, PaceState::DisplayLock},
        {Input::LeadStepped, locked, PaceState::DisplayLock},
        {Input::FramesEarly, barred, PaceState::Timer},
        {Input::ClockLocked, locked, PaceState::DisplayLock},
        {Input::ShownFewer, shows_most, PaceState::Vsync},
        {Input::WindowChanged, facts_for(Choice::Background), PaceState::Timer},
        {Input::VrrChanged, facts_for(Choice::Background), PaceState::Timer},
        {Input::WindowChanged, locked, PaceState::DisplayLock},
        {Input::ClockLost, auto_facts(), PaceState::ProbingVsync},
        {Input::Start, facts_for(Choice::VsyncAsked), PaceState::Vsync},
        {Input::VsyncHealth, {}, PaceState::Vsync},
    };
    PaceState state = PaceState::Timer;
    Ceiling ceiling = Ceiling::None;
    std::set<const Transition*> taken;
    for (size_t i = 0; i < walk.size(); ++i) {
        const Step& step = walk[i];
        const Transition* row = find_transition(state, ceiling, step.input);
        ASSERT_NE(row, nullptr) << "step " << i;
        taken.insert(row);
        state = next_state(*row, state, step.facts);
        EXPECT_EQ(state, step.to) << "step " << i;
        if (row->action == Action::Choose) {
            const Choice c = pick(step.facts);
            ceiling = c == Choice::Background ? Ceiling::Background : c == Choice::VrrCap ? Ceiling::Vrr : Ceiling::None;
        }
    }
    EXPECT_EQ(taken.size(), std::size(kTransitions)) << "a row the walk never took";
}

TEST(AutoTable, InputsNotInTheTableAreNotTaken) {
    EXPECT_EQ(find_transition(PaceState::Timer, Ceiling::None, Input::SwapsFast), nullptr);
    EXPECT_EQ(find_transition(PaceState::Vsync, Ceiling::None, Input::Retry), nullptr);
    EXPECT_EQ(find_transition(PaceState::DisplayLock, Ceiling::None, Input::ClockLocked), nullptr);
    EXPECT_EQ(find_transition(PaceState::Vsync, Ceiling::None, Input::ProbeSwapsSteady), nullptr);
    EXPECT_EQ(find_transition(PaceState::Timer, Ceiling::Vrr, Input::Retry), nullptr);
}

}  // namespace
}  // namespace pacer::detail
