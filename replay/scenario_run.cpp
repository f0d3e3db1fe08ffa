// scenario_run.cpp: scenario_run.h, the demo's run_control.cpp on a replay.
#include "scenario_run.h"

#include "run/files.h"

#include <pacer/status.h>
#include <pacer/units.h>

#include <cstdio>
#include <string_view>
#include <utility>

namespace pacer_replay {

namespace {

// A setting the replay has a use for: the pacer's (its checked_by names
// pacer::Config); the load and the window are the recording's.
bool pacer_setting(const pacer_demo::SettingInfo& info) {
    return std::string_view(info.checked_by).rfind("pacer::Config", 0) == 0;
}

}  // namespace

ScenarioRun::ScenarioRun(const pacer_demo::Scenario& scenario, std::string trace_path)
    : scenario_(scenario), trace_path_(std::move(trace_path)), cursor_(scenario),
      settings_(pacer_demo::default_settings()), record_(scenario.success_tolerance_ms) {}

// Applies the steps: marks into the trace's markers, settings into
// settings_ and, once the replay runs, the pacer. "" or "FILE:LINE: problem".
std::string ScenarioRun::apply_(const std::vector<const pacer_demo::Step*>& steps, pacer::Pacer* pacer) {
    for (const pacer_demo::Step* step : steps) {
        const std::string where = pacer_demo::printable(scenario_.file_name()) + ":" + std::to_string(step->line);
        if (!step->mark.empty()) {
            markers_ += (markers_.empty() ? "" : "; ") + where + ": mark " + step->mark;
            continue;
        }
        pacer_demo::Settings next = settings_;
        next.merge(step->settings);
        if (std::string problem = pacer_demo::check(next); !problem.empty()) return where + ": " + problem;
        // Reconfigure keeps the clock, sleeper and host it is given.
        if (pacer != nullptr) {
            if (std::string problem = pacer->reconfigure(pacer_demo::to_pacer_config(next, pacer->config()));
                !problem.empty())
                return where + ": " + problem;
        }
        settings_ = next;
        markers_ += (markers_.empty() ? "" : "; ") + where + ": set " + pacer_demo::describe(step->settings);
    }
    return {};
}

std::string ScenarioRun::start(ReplayConfig* config) {
    if (std::string problem = apply_(cursor_.due(0, 0), nullptr); !problem.empty()) return problem;
    // Where a later step would be refused, say so now, before the replay.
    if (std::string problem = pacer_demo::check_steps(scenario_, settings_); !problem.empty()) return problem;
    for (const pacer_demo::Step& step : scenario_.steps) {
        for (const pacer_demo::SettingInfo* info : pacer_demo::all_settings()) {
            if (pacer_setting(*info) || pacer_demo::value_text(*info, step.settings).empty()) continue;
            if ((" " + ignored_ + " ").find(" " + std::string(info->key) + " ") == std::string::npos)
                ignored_ += (ignored_.empty() ? "" : " ") + std::string(info->key);
        }
    }
    config->strategy = *settings_.strategy;
    config->target_hz = *settings_.hz;
    config->wait_point = *settings_.wait_point;
    config->lead_ns = pacer_demo::display_lead_ns(*settings_.display_lead);
    config->hitches_per_1000 = *settings_.hitches_per_1000;
    if (config->label.empty()) config->label = "scenario " + scenario_.file_name();
    if (!trace_path_.empty()) {
        trace_ = std::make_unique<pacer_demo::TraceWriter>(trace_path_);
        if (!trace_->ok()) return trace_->error();
    }
    return {};
}

bool ScenarioRun::turn_started(pacer::Pacer& pacer, const pacer::Frame& frame) {
    if (!error_.empty()) return false;
    if (first_wake_ns_ < 0) first_wake_ns_ = frame.wake_ns;
    const double elapsed_s = pacer::seconds_of(static_cast<double>(frame.wake_ns - first_wake_ns_));
    if (cursor_.finished(frame.index, elapsed_s)) return false;
    error_ = apply_(cursor_.due(frame.index, elapsed_s), &pacer);
    return error_.empty();
}

void ScenarioRun::swapped(int64_t frame_index, int64_t return_ns, int64_t swap_ns) {
    record_.add_swap(frame_index, return_ns);
    newest_swap_ns_ = swap_ns;
}

void ScenarioRun::turn_done(const pacer::Pacer& pacer, const pacer::Frame& frame, int64_t last_swap_return_ns) {
    std::string decision;
    if (frame.decision_seq != decision_seq_) {
        decision_seq_ = frame.decision_seq;
        decision = pacer.decision().reason;
    }
    // The frame's work ran from the wake before it to its wait, across the
    // swap before the newest one (as the demo counts it).
    record_.add_frame(frame, frame.dt_ns, "paced", pacer.display().locked, swap_in_work_ns_);
    swap_in_work_ns_ = newest_swap_ns_;
    newest_swap_ns_ = 0;
    if (trace_) {
        pacer_demo::TraceExtra extra{decision, markers_};
        extra.dt_mode = "paced";
        extra.motion_dt_ns = frame.dt_ns;
        extra.wait_point = pacer::wait_point_name(pacer.config().wait_point);
        extra.present_ns = last_swap_return_ns;
        extra.pacing_of(pacer.decision());
        trace_->write(frame, extra);
    }
    markers_.clear();
}

void ScenarioRun::presented(const pacer::Presented& report) {
    if (trace_) trace_->displayed(report.frame_index, report.discarded, report.displayed_ns);
    record_.add_presented(report);
}

void ScenarioRun::finished(const pacer::Pacer& pacer) {
    if (trace_) {
        if (std::string problem = trace_->close(); !problem.empty() && error_.empty()) error_ = problem;
    }
    pacer_demo::RunFacts facts;
    auto info = [&](const char* key, const std::string& value) { facts.info.emplace_back(key, value); };
    const pacer::Decision& decision = pacer.decision();
    info("backend", "replay");
    info("display_server", "pacer-replay's display model");
    info("strategy", pacer::strategy_name(*settings_.strategy));
    info("strategy_in_force", pacer::strategy_name(pacer.status().strategy));
    info("decision_in_force", pacer::strategy_name(decision.in_force));
    info("decision_reason", decision.reason);
    char hz[32];
    std::snprintf(hz, sizeof hz, "%g", *settings_.hz);
    info("target_hz", hz);
    info("wait_point", pacer::wait_point_name(*settings_.wait_point));
    info("settings", pacer_demo::describe(settings_));
    info("scenario", scenario_.name);
    // The load and window settings the scenario sets: the recording's frames
    // are the work, so they change nothing here.
    info("replay_ignores", ignored_.empty() ? std::string("none") : ignored_);
    facts.brief.push_back("pacer-replay: scenario " + scenario_.name);
    facts.brief.push_back("pacing: " + std::string(pacer::strategy_name(*settings_.strategy)) + " -> " +
                          decision.reason);
    facts.present_feedback = "the replay's display model";
    facts.refresh_hz = pacer.display().stated_hz;
    facts.expectations = &scenario_.expectations;
    report_ = record_.report(facts, pacer);
}

}  // namespace pacer_replay
