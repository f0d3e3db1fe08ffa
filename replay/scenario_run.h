// scenario_run.h: a QA scenario (assets/scenarios/*.txt) run on a replay
// instead of the demo (pacer-replay --scenario). The scenario's steps change
// the pacer's settings when they come due, its end stops the replay, and its
// expectations are judged on the demo's own record of the run (RunRecord):
// the same summary JSON, the same verdicts and, with a trace, the same trace
// columns as pacer-demo writes, so tools/qa.py reports a replay as it does a
// live run.
//
// The recording's frames are the work: the scenario's load settings
// (work_ms, jitter_ms, spike_ms, bg_threads, ...) and the demo's window
// settings (vsync, dt_mode, the simulated scheduler, the thread controls)
// change nothing in a replay, and the summary says so.
#pragma once

#include "replay.h"

#include "run/run_record.h"
#include "run/scenario.h"
#include "run/settings.h"
#include "run/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace pacer_replay {

class ScenarioRun final : public Observer {
public:
    // The scenario, parsed; trace_path "" for none. The settings in force at
    // frame 0 (the defaults, then the steps due at 0) give the replay's
    // config: check start() before replaying.
    ScenarioRun(const pacer_demo::Scenario& scenario, std::string trace_path);
    // "" or one line: a step the pacer refuses, or a trace that cannot be
    // written. Fills config's strategy, rate, wait point, lead and budget,
    // and its label where it has none ("scenario FILE").
    std::string start(ReplayConfig* config);

    bool turn_started(pacer::Pacer& pacer, const pacer::Frame& frame) override;
    void swapped(int64_t frame_index, int64_t return_ns, int64_t swap_ns) override;
    void turn_done(const pacer::Pacer& pacer, const pacer::Frame& frame, int64_t last_swap_return_ns) override;
    void presented(const pacer::Presented& report) override;
    void finished(const pacer::Pacer& pacer) override;

    // After the replay: "" or the one line of a step that failed mid-run or
    // a trace that could not be closed; the report, for summary_json.
    const std::string& error() const { return error_; }
    const pacer_demo::RunReport& report() const { return report_; }

private:
    std::string apply_(const std::vector<const pacer_demo::Step*>& steps, pacer::Pacer* pacer);

    const pacer_demo::Scenario& scenario_;
    std::string trace_path_;
    pacer_demo::ScenarioCursor cursor_;
    pacer_demo::Settings settings_;      // in force: every field set
    std::string markers_;                // the steps applied this turn, for the trace
    std::string ignored_;                // the scenario's settings a replay has no use for
    pacer_demo::RunRecord record_;
    std::unique_ptr<pacer_demo::TraceWriter> trace_;
    int64_t first_wake_ns_ = -1;
    int64_t swap_in_work_ns_ = 0, newest_swap_ns_ = 0;
    int32_t decision_seq_ = 0;
    std::string error_;
    pacer_demo::RunReport report_;
};

}  // namespace pacer_replay
