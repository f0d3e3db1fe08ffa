// app.h: one run of the demo, as main.cpp configured it from the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/scenario.h"
#include "platform/platform.h"

namespace pacer_demo {

struct AppOptions {
    Backend backend = Backend::Sdl2;
    int width = 1280, height = 720;
    int64_t frames = 0;           // stop after this many frames; 0: no limit
    double seconds = 0;           // stop after this long since frame 0; 0: no limit
    Settings settings;            // from the flags, applied before frame 0
    std::optional<Scenario> scenario;
    std::string trace_path;       // empty: none
    std::string chrome_trace_path;  // empty: none
    std::string screenshot_path;  // empty: none
    int64_t screenshot_frame = 60;
    bool summary = false;         // print the summary text at exit
    std::string summary_json_path;
    bool overlay = true;
};

// Runs the demo. Returns the process's exit code: 0, or 1 when something
// failed (one line on stderr) or a scenario expectation did not hold.
int run_app(const AppOptions& options);

}  // namespace pacer_demo
