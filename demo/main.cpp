// main.cpp: pacer-demo's command line (CLI11). Every problem with it is one
// line on stderr and exit code 2, before any window opens.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <system_error>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include "cli/checks.h"

#include "app.h"
#include "run/files.h"
#include "run/scenario.h"

#include <pacer/version.h>

namespace {

int usage_error(const std::string& message) {
    std::fprintf(stderr, "pacer-demo: %s\n", pacer_demo::printable(message).c_str());
    return 2;
}

// Whole numbers through cli/checks.h: CLI11's own conversion saturates an
// overflow (2^64 + 1 read as INT64_MAX, a run that never ends).
using pacer_cli::whole_in;

// The command line as given, before the checks that need all of it.
struct Given {
    std::string backend = "sdl2";
    std::string seconds;   // checked in resolve(): a finite positive number, one short line if not
    std::string scenario_path;
    bool describe_scenario = false;
    bool no_overlay = false;
    // The settings flags, from the table (run/settings.h), and their text.
    std::vector<std::pair<const pacer_demo::SettingInfo*, std::string>> setting_values;
    CLI::Option* screenshot_frame = nullptr;
};

void add_flags(CLI::App& cli, Given& given, pacer_demo::AppOptions& options) {
    cli.add_option("--backend", given.backend, "sdl2 or glfw (default sdl2)")
        ->check(CLI::IsMember({"sdl2", "glfw"}))
        ->type_name("NAME");
    cli.add_option("--frames", options.frames,
                   "stop after N frames (default: when the window closes or the scenario ends)")
        ->check(whole_in(1, INT64_MAX))
        ->type_name("N");
    cli.add_option("--seconds", given.seconds, "stop after S seconds since the first frame, (0, 1e9]")->type_name("S");
    cli.add_option("--width", options.width, "window width in px, [320, 8192] (default 1280)")
        ->check(whole_in(320, 8192))
        ->type_name("PX");
    cli.add_option("--height", options.height, "window height in px, [240, 8192] (default 720)")
        ->check(whole_in(240, 8192))
        ->type_name("PX");
    // --hz takes what a scenario's hz= takes, and says its default.
    for (const pacer_demo::SettingInfo* info : pacer_demo::all_settings()) given.setting_values.emplace_back(info, "");
    for (auto& [info, value] : given.setting_values) {
        std::string help = info->help;
        if (*info->checked_by != '\0') help += std::string(" (") + info->checked_by + ")";
        help += "; default " + pacer_demo::value_text(*info, pacer_demo::default_settings());
        cli.add_option(pacer_demo::flag_of(*info), value, help)->type_name(info->value_name);
    }
    cli.add_option("--scenario", given.scenario_path, "a scenario file (assets/scenarios/*.txt)")->type_name("FILE");
    cli.add_flag("--describe-scenario", given.describe_scenario,
                 "check the --scenario file, print it as JSON (title, start_hz, end, expected_s, "
                 "expected_frames) and exit: no window (tools/qa.py plans its runs with it)");
    cli.add_option("--trace", options.trace_path, "write the per-frame trace CSV here")->type_name("FILE");
    cli.add_option("--chrome-trace", options.chrome_trace_path,
                   "write the run as Chrome trace-event JSON here (Perfetto UI, chrome://tracing)")
        ->type_name("FILE");
    cli.add_option("--screenshot", options.screenshot_path, "write a PNG of one frame here")->type_name("FILE");
    given.screenshot_frame = cli.add_option("--screenshot-frame", options.screenshot_frame,
                                            "the frame to take the screenshot of (default: the scenario's \"screenshot frame\", else 60)")
                                 ->check(whole_in(0, INT64_MAX))
                                 ->type_name("K");
    cli.add_flag("--summary", options.summary, "print the run's statistics at exit");
    cli.add_option("--summary-json", options.summary_json_path, "write the run's statistics as JSON here")->type_name("FILE");
    cli.add_flag("--no-overlay", given.no_overlay, "no ImGui panel: the scene fills the window");
}

// Every setting is checked before a window opens: its form, then the whole
// state through the library's validate, named by its flag ("hz: 0 is out of
// range" -> "--hz: 0 is out of range"). "" or that line.
std::string check_settings(const CLI::App& cli, const Given& given, pacer_demo::AppOptions& options) {
    const auto as_flag = [](std::string problem) {
        const std::string key = problem.substr(0, problem.find(':'));
        if (const pacer_demo::SettingInfo* info = pacer_demo::find_setting(key))
            problem = pacer_demo::flag_of(*info) + problem.substr(key.size());
        return problem;
    };
    for (const auto& [info, value] : given.setting_values) {
        if (cli.count(pacer_demo::flag_of(*info)) == 0) continue;
        if (std::string problem = pacer_demo::parse_setting(info->key, value, &options.settings); !problem.empty())
            return as_flag(problem);
    }
    pacer_demo::Settings start = pacer_demo::default_settings();
    start.merge(options.settings);
    return as_flag(pacer_demo::check(start));
}

// The checks that need the whole command line; -1 to go on, else the exit
// code (after --describe-scenario's JSON, or a usage error's line).
int resolve(const CLI::App& cli, Given& given, pacer_demo::AppOptions& options) {
    for (const char* flag : {"--scenario", "--trace", "--chrome-trace", "--screenshot", "--summary-json"}) {
        if (cli.count(flag) > 0 && cli.get_option(flag)->as<std::string>().empty())
            return usage_error(std::string(flag) + ": empty path");
    }
    options.backend = given.backend == "glfw" ? pacer_demo::Backend::Glfw : pacer_demo::Backend::Sdl2;
    options.overlay = !given.no_overlay;
    if (cli.count("--seconds") > 0) {
        double s = 0;
        if (!pacer_demo::parse_number(given.seconds, &s) || !(s > 0 && s <= 1e9))
            return usage_error("--seconds: '" + given.seconds + "' is not a number of seconds in (0, 1e9]");
        options.seconds = s;
    }
    if (std::string problem = check_settings(cli, given, options); !problem.empty()) return usage_error(problem);
    if (!given.scenario_path.empty()) {
        pacer_demo::Settings start = pacer_demo::default_settings();
        start.merge(options.settings);
        pacer_demo::Scenario scenario;
        if (std::string problem = pacer_demo::parse_scenario_file(given.scenario_path, &scenario); !problem.empty())
            return usage_error(problem);
        if (std::string problem = pacer_demo::check_steps(scenario, start); !problem.empty()) return usage_error(problem);
        if (given.describe_scenario) {
            std::printf("%s\n", pacer_demo::describe_scenario_json(scenario, start).c_str());
            return 0;
        }
        // The scenario's moment to picture, unless the command line names one.
        if (scenario.screenshot_frame && given.screenshot_frame->count() == 0)
            options.screenshot_frame = *scenario.screenshot_frame;
        options.scenario = std::move(scenario);
    } else if (given.describe_scenario) {
        return usage_error("--describe-scenario needs --scenario FILE");
    }
    if (given.screenshot_frame->count() > 0 && options.screenshot_path.empty())
        return usage_error("--screenshot-frame needs --screenshot FILE");
    if (!options.screenshot_path.empty() && options.frames > 0 && options.screenshot_frame >= options.frames) {
        return usage_error("--screenshot-frame " + std::to_string(options.screenshot_frame) +
                           " is not below --frames " + std::to_string(options.frames));
    }
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    pacer_demo::AppOptions options;
    CLI::App cli{"pacer-demo: see and feel frame pacing strategies (SDL2 or GLFW, OpenGL 3.3, Dear ImGui)",
                 "pacer-demo"};
    Given given;
    add_flags(cli, given, options);
    cli.set_version_flag("--version", std::string("pacer-demo ") + pacer::version(), "print the version and exit");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return cli.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return cli.exit(version);
    } catch (const CLI::ParseError& error) {
        return usage_error(error.what());
    }
    if (const int code = resolve(cli, given, options); code >= 0) return code;
    return pacer_demo::run_app(options);
}
