// main.cpp: pacer-replay, the command line of replay.h.
//
//   pacer-replay capture.csv                  timer, vsync and display_lock at the recording's own refresh
//   pacer-replay capture.csv --hz 60,144      ... at 60 and 144 Hz, on a display of that refresh
//   pacer-replay trace.csv --strategy timer,display_lock --refresh 144 --hz 72 --lead-ms 4
//   pacer-replay capture.csv --report-jitter-ms 0.6     on a display whose reports jitter (mutter)
//   pacer-replay trace.csv --display recorded --display-says 60 --strategy display_lock --hz 60
//                                             on the trace's own display: its refreshes, its latch
//   pacer-replay capture.csv --display vrr --vrr-range 48-144 --strategy auto,vsync --hz 144,40
//                                             on a VRR panel: auto paces at its cap, 138.24 Hz
//   pacer-replay trace.csv --scenario assets/scenarios/display-lock-jitter.txt --trace out.csv --summary-json out.json
//                                             a QA scenario on the replay: its steps, its verdicts
//
// A file that cannot be read, or a bad flag: one line naming what and
// where, exit 2.
#include "replay.h"

#include <pacer/version.h>
#include "scenario_run.h"

#include "run/atomic_file.h"
#include "run/files.h"
#include "run/summary.h"

#include "cli/checks.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

int usage_error(const std::string& message) {
    std::fprintf(stderr, "pacer-replay: %s\n", message.c_str());
    return 2;
}

// "timer,vsync" as strategies; "" or the one line.
std::string strategies_of(const std::string& text, std::vector<pacer::Strategy>* out) {
    std::stringstream list(text);
    for (std::string name; std::getline(list, name, ',');) {
        pacer::Strategy strategy;
        if (!pacer::parse_strategy(name, &strategy))
            return "--strategy: unknown strategy '" + pacer_cli::clipped(name) + "'";
        out->push_back(strategy);
    }
    if (out->empty()) return "--strategy: none given";
    return {};
}

// "60,144" as rates in [1, 1000]; "" or the one line.
std::string rates_of(const std::string& text, std::vector<double>* out) {
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        if (const std::string problem = pacer_cli::number_in(1, 1000, " Hz")(item); !problem.empty())
            return "--hz: " + problem;
        out->push_back(std::stod(item));
    }
    if (out->empty()) return "--hz: none given";
    return {};
}

std::string fixed_ms(int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", pacer::ms_of(static_cast<double>(ns)));
    return text;
}

// One config's run with outputs (--trace, --summary-json): its flags as a
// scenario's one step, so that it writes what a scenario's run writes.
std::string one_config(pacer::Strategy strategy, double hz, const std::string& wait_point, double hitches,
                       double lead_ms, pacer_demo::Scenario* out) {
    char step[256];
    std::snprintf(step, sizeof step, "at 0s set strategy=%s hz=%.17g wait_point=%s hitches_per_1000=%.17g",
                  pacer::strategy_name(strategy), hz, wait_point.c_str(), hitches);
    std::string text = step;
    text += lead_ms >= 0 ? " display_lead=" + std::to_string(lead_ms) : std::string(" display_lead=auto");
    return pacer_demo::parse_scenario_text(text, "the command line", out);
}

// A run with outputs (--scenario, or one config with --trace or
// --summary-json): what it reads and writes beside the recording.
struct ScenarioFiles {
    std::string scenario;   // "": the command line's one config
    std::string trace, summary_json;
    bool summary = false;
    std::string label;      // the table's row ("" the scenario's name)
};

// A scenario on the replay (scenario_run.h): the exit status, as
// pacer-demo's: 0 every verdict passed, 1 one failed or an output could not
// be written, 2 bad input.
int run_scenario(const pacer_replay::Recording& recording, const pacer_replay::DisplayModel& model,
                 const pacer_demo::Scenario& scenario, const ScenarioFiles& files) {
    // Every output checked before the replay: writable, and none the same
    // file as an input or as the other output.
    const std::pair<const char*, const std::string*> outputs[] = {{"--trace", &files.trace},
                                                                 {"--summary-json", &files.summary_json}};
    for (const auto& [flag, path] : outputs) {
        if (path->empty()) continue;
        if (std::string problem = pacer_demo::check_writable(*path); !problem.empty())
            return usage_error(std::string(flag) + ": " + pacer_demo::printable(problem));
        for (const std::string* input : {&files.scenario, &recording.path}) {
            if (!input->empty() && pacer_demo::same_file(*path, *input))
                return usage_error(std::string(flag) + ": " + pacer_demo::printable(*path) + " is an input");
        }
    }
    if (!files.trace.empty() && pacer_demo::same_file(files.trace, files.summary_json))
        return usage_error("--summary-json: " + pacer_demo::printable(files.summary_json) + " is also the --trace file");

    pacer_replay::ScenarioRun run(scenario, files.trace);
    pacer_replay::ReplayConfig config;
    config.display = model;
    config.label = files.label;
    if (std::string problem = run.start(&config); !problem.empty())
        return usage_error("--scenario: " + pacer_demo::printable(problem));
    const pacer_replay::ReplayResult result = pacer_replay::replay(recording, config, &run);
    int code = 0;
    if (!run.error().empty()) {
        std::fprintf(stderr, "pacer-replay: %s\n", pacer_demo::printable(run.error()).c_str());
        code = 1;
    }
    std::fputs(pacer_replay::table(recording, {result}).c_str(), stdout);
    const pacer_demo::RunReport& report = run.report();
    if (files.summary) std::fputs(pacer_demo::summary_text(report).c_str(), stdout);
    if (!files.summary_json.empty()) {
        if (std::string problem = pacer_demo::write_file_atomically(files.summary_json, pacer_demo::summary_json(report));
            !problem.empty()) {
            std::fprintf(stderr, "pacer-replay: --summary-json: %s\n", pacer_demo::printable(problem).c_str());
            code = 1;
        }
    }
    for (const pacer_demo::Verdict& verdict : report.verdicts) {
        if (!verdict.passed) std::fprintf(stderr, "pacer-replay: %s\n", verdict.text().c_str());
    }
    return pacer_demo::all_passed(report.verdicts) ? code : 1;
}

// "48-144" as a VRR range within [1, 1000] Hz, its minimum below its
// maximum; "" or the one line.
std::string vrr_range_of(const std::string& text, double* min_hz, double* max_hz) {
    const std::size_t dash = text.find('-', 1);
    const std::string head = "--vrr-range: '" + pacer_cli::clipped(text) + "'";
    if (dash == std::string::npos) return head + " is not MIN-MAX";
    const std::string lo = text.substr(0, dash), hi = text.substr(dash + 1);
    for (const std::string& item : {lo, hi}) {
        if (const std::string problem = pacer_cli::number_in(1, 1000, " Hz")(item); !problem.empty())
            return head + ": " + problem;
    }
    *min_hz = std::stod(lo);
    *max_hz = std::stod(hi);
    if (!(*min_hz < *max_hz)) return head + ": the minimum must be below the maximum";
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"pacer-replay: a recorded run (a PresentMon or CapFrameX capture, or a pacer-demo trace) replayed against "
                 "pacer's strategies on a modelled display, deterministic",
                 "pacer-replay"};
    std::string path, strategies = "timer,vsync,display_lock", rates;
    double refresh_hz = 0, latch_ms = -1, lead_ms = -1, hitches = 1, jitter_ms = 0, says_hz = 0, idle_ms = 0;
    std::string wait_point = "before_present", display = "fixed", vrr_range;
    std::string scenario_path, trace_path, summary_json_path;
    bool summary = false, describe = false;
    pacer_replay::Selection selection;
    cli.add_option("file", path, "the recording: PresentMon CSV (1.x, default, --v2_metrics), CapFrameX JSON or "
                                 "pacer-demo --trace")
        ->required();
    cli.add_option("--strategy", strategies, "strategies to replay, comma-separated (default timer,vsync,display_lock)");
    cli.add_option("--hz", rates, "target rates, comma-separated, [1, 1000] (default: the recording's refresh)");
    cli.add_option("--refresh", refresh_hz, "the display's refresh in Hz (default: fitted from the recording; "
                                            "else each target rate)")
        ->check(pacer_cli::number_in(1, 1000, " Hz"));
    cli.add_option("--display", display, "fixed (default): a fixed cadence; recorded: the recording's own "
                                         "refreshes and latch (a pacer-demo trace with shown frames); vrr: a "
                                         "panel with variable refresh over --vrr-range")
        ->check(CLI::IsMember({"fixed", "recorded", "vrr"}));
    cli.add_option("--vrr-range", vrr_range, "--display vrr: the panel's range, MIN-MAX in Hz within [1, 1000] "
                                             "(48-144); its maximum is the display's refresh");
    cli.add_option("--display-says", says_hz, "the refresh the display reports in Hz, where it is not the one it "
                                              "shows at (weston's headless says 60); default: its refresh")
        ->check(pacer_cli::number_in(1, 1000, " Hz"));
    cli.add_option("--idle-repaint-ms", idle_ms, "a compositor that stops repainting when no frame waits "
                                                 "starts again this long after a swap (weston's headless: its "
                                                 "stated period less its 7 ms repaint window); default 0: never stops")
        ->check(pacer_cli::number_in(0, 1000, " ms"));
    cli.add_option("--latch-ms", latch_ms, "the display takes a frame this long before its refresh (default 1; "
                                           "recorded: the recording's own)")
        ->check(pacer_cli::number_in(0, 100, " ms"));
    cli.add_option("--report-jitter-ms", jitter_ms, "the display's reports off their refresh by up to this, "
                                                   "dated in software (as mutter's); default 0")
        ->check(pacer_cli::number_in(0, 10, " ms"));
    cli.add_option("--lead-ms", lead_ms, "display_lock's fixed lead in ms (default: learned)")
        ->check(pacer_cli::number_in(0, 1000, " ms"));
    cli.add_option("--hitches", hitches, "display_lock's hitch budget per 1,000 refreshes (default 1)")
        ->check(pacer_cli::number_in(0.001, 1000));
    cli.add_option("--wait-point", wait_point, "before_present (default) or frame_start")
        ->check(CLI::IsMember({"before_present", "frame_start"}));
    cli.add_option("--app", selection.application, "the process's Application name (default: the swap chain "
                                                   "with the most frames)");
    cli.add_option("--pid", selection.process_id, "its ProcessID");
    cli.add_option("--swap-chain", selection.swap_chain, "its SwapChainAddress");
    cli.add_option("--run", selection.run, "a CapFrameX capture's run, from 1 (default: the one with the most frames)")
        ->check(CLI::Range(1, 1'000'000));
    cli.add_option("--scenario", scenario_path, "a QA scenario (assets/scenarios/*.txt) run on the replay: its "
                                                "steps set the pacer, its expectations judge the run; the "
                                                "recording's frames are the work");
    cli.add_option("--trace", trace_path, "write the replay's trace here (pacer-demo's columns): of the "
                                          "--scenario, or of one --strategy at one --hz");
    cli.add_option("--summary-json", summary_json_path, "write the run's statistics and verdicts here "
                                                        "(pacer-demo's summary JSON): as --trace");
    cli.add_flag("--summary", summary, "print the run's statistics: as --trace");
    cli.add_flag("--describe-scenario", describe, "--scenario: check it, print it as JSON as pacer-demo does "
                                                  "(tools/qa.py plans its runs with it) and exit");
    cli.set_version_flag("--version", std::string("pacer-replay ") + pacer::version(), "print the version and exit");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return cli.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return cli.exit(version);
    } catch (const CLI::ParseError& error) {
        return usage_error(error.what());
    }
    if (!scenario_path.empty()) {
        for (const char* flag : {"--strategy", "--hz", "--wait-point", "--lead-ms", "--hitches"}) {
            if (cli.count(flag) > 0)
                return usage_error(std::string(flag) + ": the --scenario sets it (its steps at 0s)");
        }
    } else if (cli.count("--describe-scenario") > 0) {
        return usage_error("--describe-scenario: only with --scenario");
    }
    const bool outputs = !trace_path.empty() || !summary_json_path.empty() || summary;
    std::vector<pacer::Strategy> chosen;
    if (const std::string problem = strategies_of(strategies, &chosen); !problem.empty()) return usage_error(problem);
    std::vector<double> targets;
    if (!rates.empty()) {
        if (const std::string problem = rates_of(rates, &targets); !problem.empty()) return usage_error(problem);
    }

    pacer_replay::Recording recording;
    if (const std::string problem = pacer_replay::read_recording(path, selection, &recording); !problem.empty())
        return usage_error(problem);
    const double own_hz = recording.refresh_hz > 0 ? recording.refresh_hz : 60;
    if (targets.empty()) targets.push_back(own_hz);
    const bool recorded = display == "recorded";
    pacer_replay::DisplayModel model;
    model.vrr = display == "vrr";
    if (model.vrr != !vrr_range.empty())
        return usage_error(model.vrr ? "--display vrr: give the panel's range, --vrr-range MIN-MAX"
                                     : "--vrr-range: only with --display vrr");
    if (model.vrr) {
        double max_hz = 0;
        if (const std::string problem = vrr_range_of(vrr_range, &model.vrr_min_hz, &max_hz); !problem.empty())
            return usage_error(problem);
        if (refresh_hz > 0 && refresh_hz != max_hz)
            return usage_error("--refresh: " + pacer::number_text(refresh_hz) + " is not --vrr-range's maximum " +
                               pacer::number_text(max_hz) + ": a VRR panel's refresh is its maximum");
        refresh_hz = max_hz;
    }
    model.recorded = recorded;
    model.stated_hz = says_hz;
    model.latch_ns = std::llround(pacer::ns_of_ms(latch_ms >= 0 ? latch_ms : 1));
    model.idle_repaint_ns = std::llround(pacer::ns_of_ms(idle_ms));
    model.report_jitter_ns = std::llround(pacer::ns_of_ms(jitter_ms));
    if (recorded) {
        if (!recording.shown_times || recording.refresh_hz <= 0)
            return usage_error("--display recorded: " + path + " does not date its shown frames (a pacer-demo "
                               "trace with MsDisplayLatency does)");
        if (latch_ms < 0) model.latch_ns = pacer_replay::fitted_latch_ns(recording);
        if (model.latch_ns < 0)
            return usage_error("--display recorded: every swap in " + path + " waited for a refresh (vsync), so "
                               "its latch cannot be read from it: give --latch-ms");
    }
    if (describe) {
        pacer_demo::Scenario scenario;
        std::string problem = pacer_demo::parse_scenario_file(scenario_path, &scenario);
        if (problem.empty()) problem = pacer_demo::check_steps(scenario, pacer_demo::default_settings());
        if (!problem.empty()) return usage_error("--scenario: " + pacer_demo::printable(problem));
        std::printf("%s\n", pacer_demo::describe_scenario_json(scenario, pacer_demo::default_settings()).c_str());
        return 0;
    }
    if (!scenario_path.empty() || outputs) {
        pacer_demo::Scenario scenario;
        if (!scenario_path.empty()) {
            if (std::string problem = pacer_demo::parse_scenario_file(scenario_path, &scenario); !problem.empty())
                return usage_error("--scenario: " + pacer_demo::printable(problem));
        } else if (chosen.size() != 1 || targets.size() != 1) {
            return usage_error(std::string(!trace_path.empty() ? "--trace" : !summary_json_path.empty()
                                                                  ? "--summary-json" : "--summary") +
                               ": of one config: give one --strategy and at most one --hz, or a --scenario");
        } else if (std::string problem = one_config(chosen[0], targets[0], wait_point, hitches, lead_ms, &scenario);
                   !problem.empty()) {
            return usage_error(problem);
        }
        model.refresh_hz = refresh_hz > 0 ? refresh_hz : (rates.empty() || recorded ? own_hz : targets[0]);
        const std::string label = scenario_path.empty() ? std::string(pacer::strategy_name(chosen[0])) + " at " +
                                                              pacer::hz_text(targets[0])
                                                        : std::string();
        return run_scenario(recording, model, scenario,
                            {scenario_path, trace_path, summary_json_path, summary, label});
    }

    std::vector<pacer_replay::ReplayResult> results;
    for (double target : targets) {
        for (pacer::Strategy strategy : chosen) {
            pacer_replay::ReplayConfig config;
            config.strategy = strategy;
            config.target_hz = target;
            config.display = model;
            config.display.refresh_hz =
                refresh_hz > 0 ? refresh_hz : (rates.empty() || recorded ? own_hz : target);
            if (lead_ms >= 0) config.lead_ns = std::llround(pacer::ns_of_ms(lead_ms));
            config.hitches_per_1000 = hitches;
            config.wait_point = wait_point == "frame_start" ? pacer::WaitPoint::FrameStart
                                                           : pacer::WaitPoint::BeforePresent;
            std::string on = pacer::hz_text(std::round(config.display.refresh_hz * 100) / 100);
            if (model.vrr) on = "VRR " + pacer::number_text(model.vrr_min_hz) + "-" + on;
            config.label = std::string(pacer::strategy_name(strategy)) + " at " + pacer::hz_text(target) + " on " +
                           (recorded ? "its own display (" + on + ", latch " + fixed_ms(model.latch_ns) + ")" : on);
            results.push_back(pacer_replay::replay(recording, config));
        }
    }
    std::fputs(pacer_replay::table(recording, results).c_str(), stdout);
    return 0;
}
