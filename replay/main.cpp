// main.cpp: pacer-replay, the command line of replay.h.
//
//   pacer-replay capture.csv                  timer, vsync and display_lock at the recording's own refresh
//   pacer-replay capture.csv --hz 60,144      ... at 60 and 144 Hz, on a display of that refresh
//   pacer-replay trace.csv --strategy timer,display_lock --refresh 144 --hz 72 --lead-ms 4
//   pacer-replay capture.csv --report-jitter-ms 0.6     on a display whose reports jitter (mutter)
//   pacer-replay trace.csv --display recorded --display-says 60 --strategy display_lock --hz 60
//                                             on the trace's own display: its refreshes, its latch
//
// A file that cannot be read, or a bad flag: one line naming what and
// where, exit 2.
#include "replay.h"

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

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"pacer-replay: a recorded run (a PresentMon or CapFrameX capture, or a pacer-demo trace) replayed against "
                 "pacer's strategies on a modelled display, deterministic",
                 "pacer-replay"};
    std::string path, strategies = "timer,vsync,display_lock", rates;
    double refresh_hz = 0, latch_ms = -1, lead_ms = -1, hitches = 1, jitter_ms = 0, says_hz = 0, idle_ms = 0;
    std::string wait_point = "before_present", display = "fixed";
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
                                         "refreshes and latch (a pacer-demo trace with shown frames)")
        ->check(CLI::IsMember({"fixed", "recorded"}));
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
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return cli.exit(help);
    } catch (const CLI::ParseError& error) {
        return usage_error(error.what());
    }
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
    int64_t latch_ns = std::llround(pacer::ns_of_ms(latch_ms >= 0 ? latch_ms : 1));
    if (recorded) {
        if (!recording.shown_times || recording.refresh_hz <= 0)
            return usage_error("--display recorded: " + path + " does not date its shown frames (a pacer-demo "
                               "trace with MsDisplayLatency does)");
        if (latch_ms < 0) latch_ns = pacer_replay::fitted_latch_ns(recording);
    }

    std::vector<pacer_replay::ReplayResult> results;
    for (double target : targets) {
        for (pacer::Strategy strategy : chosen) {
            pacer_replay::ReplayConfig config;
            config.strategy = strategy;
            config.target_hz = target;
            config.display.refresh_hz =
                refresh_hz > 0 ? refresh_hz : (rates.empty() || recorded ? own_hz : target);
            config.display.recorded = recorded;
            config.display.stated_hz = says_hz;
            config.display.latch_ns = latch_ns;
            config.display.idle_repaint_ns = std::llround(pacer::ns_of_ms(idle_ms));
            config.display.report_jitter_ns = std::llround(pacer::ns_of_ms(jitter_ms));
            if (lead_ms >= 0) config.lead_ns = std::llround(pacer::ns_of_ms(lead_ms));
            config.hitches_per_1000 = hitches;
            config.wait_point = wait_point == "frame_start" ? pacer::WaitPoint::FrameStart
                                                           : pacer::WaitPoint::BeforePresent;
            const std::string on = pacer::hz_text(std::round(config.display.refresh_hz * 100) / 100);
            config.label = std::string(pacer::strategy_name(strategy)) + " at " + pacer::hz_text(target) + " on " +
                           (recorded ? "its own display (" + on + ", latch " + fixed_ms(latch_ns) + ")" : on);
            results.push_back(pacer_replay::replay(recording, config));
        }
    }
    std::fputs(pacer_replay::table(recording, results).c_str(), stdout);
    return 0;
}
