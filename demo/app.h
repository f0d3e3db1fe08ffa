// app.h: one run of the demo, as main.cpp configured it from the command line.
#pragma once

#include "options.h"

namespace pacer_demo {

// Runs the demo. Returns the process's exit code: 0, or 1 when something
// failed (one line on stderr) or a scenario expectation did not hold.
int run_app(const AppOptions& given);

}  // namespace pacer_demo
