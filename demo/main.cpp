// main.cpp: pacer-demo's command line (CLI11). Every problem with it is one
// line on stderr and exit code 2, before any window opens.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "app.h"
#include "core/files.h"
#include "core/scenario.h"

namespace {

// The settings flags: each takes the same value as the scenario key beside
// it, parsed and range-checked by the same code (core/scenario.h).
struct SettingFlag {
    const char* flag;
    const char* key;
    const char* value;   // the value's name in --help
    const char* help;
};

constexpr SettingFlag kSettingFlags[] = {
    {"--strategy", "strategy", "NAME", "sleep, spin, precise_sleep, robust_sleep, timer, vsync, auto (default timer)"},
    {"--hz", "hz", "HZ", "target rate, (0, 10000] (default 60)"},
    {"--vsync", "vsync", "MODE", "off, on, adaptive: the swap interval asked of the window system (default off)"},
    {"--miss-policy", "miss_policy", "POLICY", "skip, catch_up (default skip)"},
    {"--precise-k", "precise_k", "K", "precise_sleep: estimate = mean + k*sigma, (0, 10] (default 1)"},
    {"--robust-tolerance-us", "robust_tolerance_us", "US", "robust_sleep's tolerance (default 20)"},
    {"--timer-margin-us", "timer_margin_us", "US", "timer's starting margin (default 200)"},
    {"--sched-period-ms", "sched_period_ms", "MS", "0: the OS's scheduler (default); 1..16: the simulated scheduler's period"},
    {"--preempt-prob", "preempt_prob", "P", "simulated scheduler's preemption probability, [0, 1) (default 0)"},
    {"--timer-slack-ns", "timer_slack_ns", "NS", "Linux timer slack of the pacing thread; 0 leaves the OS's (default)"},
    {"--sched-slice-us", "sched_slice_us", "US",
     "Linux >= 6.12 scheduler slice of the pacing thread, [100, 100000]; 0 leaves the OS's (default)"},
    {"--fifo-priority", "fifo_priority", "N", "Linux SCHED_FIFO priority of the pacing thread, 1..99; 0: not FIFO (default)"},
    {"--nice", "nice", "N", "nice value of the pacing thread, [-20, 19]; 0 leaves it (default)"},
    {"--timer-period-ms", "timer_period_ms", "MS", "Windows timeBeginPeriod, whole ms, [0, 100]; 0 leaves it (default)"},
    {"--wait-slack-ns", "wait_slack_ns", "NS",
     "Linux timer slack each timer wait runs with, [1, 100000000]; -1 leaves the thread's own "
     "(default: the library's, 1)"},
    {"--wait-slice-ns", "wait_slice_ns", "NS",
     "Linux >= 6.12 EEVDF slice the pacing thread holds from its first timer wait, [1, 100000000]; -1 leaves the thread's own "
     "(default: the library's, 100000)"},
    {"--dt-mode", "dt_mode", "MODE",
     "what moves the scene: raw (measured interval, default), paced (the pacer's dt), fixed (fixed steps + interpolation)"},
    {"--wait-point", "wait_point", "POINT",
     "frame_start (default: lowest input latency) or before_present (steadiest presents)"},
    {"--work-ms", "work_ms", "MS", "in-frame CPU work per frame (default 0)"},
    {"--jitter-ms", "jitter_ms", "MS", "uniform +- jitter on the work (default 0)"},
    {"--spike-ms", "spike_ms", "MS", "extra work on spike frames (default 0)"},
    {"--spike-every", "spike_every", "N", "a spike every N frames (default 0: none)"},
    {"--bg-threads", "bg_threads", "N", "background load threads: N, cores or 2xcores (default 0)"},
    {"--duty", "duty", "D", "busy share of each background thread's period, (0, 1] (default 1)"},
    {"--duty-period-ms", "duty_period_ms", "MS", "background threads' duty period (default 10)"},
};

int usage_error(const std::string& message) {
    std::fprintf(stderr, "pacer-demo: %s\n", pacer_demo::printable(message).c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    pacer_demo::AppOptions options;
    CLI::App cli{"pacer-demo: see and feel frame pacing strategies (SDL2 or GLFW, OpenGL 3.3, Dear ImGui)",
                 "pacer-demo"};
    std::string backend = "sdl2";
    cli.add_option("--backend", backend, "sdl2 or glfw (default sdl2)")
        ->check(CLI::IsMember({"sdl2", "glfw"}))
        ->type_name("NAME");
    cli.add_option("--frames", options.frames,
                   "stop after N frames (default: when the window closes or the scenario ends)")
        ->check(CLI::Range(int64_t{1}, INT64_MAX))
        ->type_name("N");
    cli.add_option("--seconds", options.seconds, "stop after S seconds since the first frame")
        ->check(CLI::PositiveNumber)
        ->type_name("S");
    cli.add_option("--width", options.width, "window width in px (default 1280)")
        ->check(CLI::Range(320, 8192))
        ->type_name("PX");
    cli.add_option("--height", options.height, "window height in px (default 720)")
        ->check(CLI::Range(240, 8192))
        ->type_name("PX");

    std::vector<std::pair<const SettingFlag*, std::string>> setting_values;
    setting_values.reserve(std::size(kSettingFlags));
    for (const SettingFlag& flag : kSettingFlags) {
        setting_values.emplace_back(&flag, std::string());
        cli.add_option(flag.flag, setting_values.back().second, flag.help)->type_name(flag.value);
    }

    std::string scenario_path;
    cli.add_option("--scenario", scenario_path, "a scenario file (assets/scenarios/*.txt)")->type_name("FILE");
    cli.add_option("--trace", options.trace_path, "write the per-frame trace CSV here")->type_name("FILE");
    cli.add_option("--chrome-trace", options.chrome_trace_path,
                   "write the run as Chrome trace-event JSON here (Perfetto UI, chrome://tracing)")
        ->type_name("FILE");
    cli.add_option("--screenshot", options.screenshot_path, "write a PNG of one frame here")->type_name("FILE");
    auto* screenshot_frame = cli.add_option("--screenshot-frame", options.screenshot_frame,
                                            "the frame to take the screenshot of (default 60)")
                                 ->check(CLI::NonNegativeNumber)
                                 ->type_name("K");
    cli.add_flag("--summary", options.summary, "print the run's statistics at exit");
    cli.add_option("--summary-json", options.summary_json_path, "write the run's statistics as JSON here")->type_name("FILE");
    bool no_overlay = false;
    cli.add_flag("--no-overlay", no_overlay, "no ImGui panel: the scene fills the window");

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return cli.exit(help);
    } catch (const CLI::ParseError& error) {
        return usage_error(error.what());
    }

    for (const char* flag : {"--scenario", "--trace", "--chrome-trace", "--screenshot", "--summary-json"}) {
        if (cli.count(flag) > 0 && cli.get_option(flag)->as<std::string>().empty())
            return usage_error(std::string(flag) + ": empty path");
    }
    options.backend = backend == "glfw" ? pacer_demo::Backend::Glfw : pacer_demo::Backend::Sdl2;
    options.overlay = !no_overlay;
    for (const auto& [flag, value] : setting_values) {
        if (cli.count(flag->flag) == 0) continue;
        std::string problem = pacer_demo::parse_setting(flag->key, value, &options.settings);
        if (!problem.empty()) {
            // "hz: 0 is out of range" -> "--hz: 0 is out of range"
            const std::string prefix = std::string(flag->key) + ": ";
            if (problem.rfind(prefix, 0) == 0) problem.erase(0, prefix.size());
            return usage_error(std::string(flag->flag) + ": " + problem);
        }
    }
    if (!scenario_path.empty()) {
        pacer_demo::Scenario scenario;
        if (std::string problem = pacer_demo::parse_scenario_file(scenario_path, &scenario); !problem.empty()) {
            return usage_error(problem);
        }
        options.scenario = std::move(scenario);
    }
    if (screenshot_frame->count() > 0 && options.screenshot_path.empty()) {
        return usage_error("--screenshot-frame needs --screenshot FILE");
    }
    if (!options.screenshot_path.empty() && options.frames > 0 && options.screenshot_frame >= options.frames) {
        return usage_error("--screenshot-frame " + std::to_string(options.screenshot_frame) +
                           " is not below --frames " + std::to_string(options.frames));
    }
    return pacer_demo::run_app(options);
}
