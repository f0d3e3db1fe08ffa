// fuzz_scenario.cpp: libFuzzer target for the demo's scenario parser
// (demo/run/scenario.h), the one place the demo reads a file a user wrote.
// Whatever the bytes, parse_scenario_text must return an error line or a
// scenario, never crash, hang or trip a sanitizer; a parsed scenario is then
// described and walked as a run would, since those read what the parser kept.
#include "run/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    pacer_demo::Scenario scenario;
    const std::string error = pacer_demo::parse_scenario_text(text, "fuzz.txt", &scenario);
    if (!error.empty()) return 0;

    for (const pacer_demo::Step& step : scenario.steps) (void)step.text();
    for (const pacer_demo::Expectation& expectation : scenario.expectations) (void)expectation.text();
    // The pre-run check maps each step's values to pacer::Config and validates.
    (void)pacer_demo::check_steps(scenario, pacer_demo::default_settings());
    (void)pacer_demo::describe_scenario_json(scenario, pacer_demo::default_settings());

    // A few frames at 60 Hz: enough to fire the early steps and reach a short end.
    pacer_demo::ScenarioCursor cursor(scenario);
    for (int64_t frame = 0; frame < 8 && !cursor.finished(frame, frame / 60.0); ++frame)
        (void)cursor.due(frame, frame / 60.0);
    return 0;   // libFuzzer reserves other values
}
