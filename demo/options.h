// options.h: what one run of the demo is asked to do, as main.cpp reads it
// from the command line; app.cpp runs it, run.cpp scripts its end and files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "run/scenario.h"   // Scenario, Settings
#include "window/window.h"

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

}  // namespace pacer_demo
