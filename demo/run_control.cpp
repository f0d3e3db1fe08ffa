// run_control.cpp: scenario steps, run ends, and the run's files.
#include "run_control.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <thread>
#include <utility>

#include "run/atomic_file.h"
#include "run/files.h"
#include "run/format.h"
#include "run/run_record.h"
#include "run/summary.h"
#include "ui/overlay.h"

#include <pacer/status.h>

namespace pacer_demo {

namespace {

std::atomic<bool> g_finish_claimed{false};   // the run's files are written once, by one thread
std::atomic<bool> g_display_stuck{false};     // finished by finish_run_in_progress

// Temporary files an earlier run left beside an output when it was killed
// (kill -9, a power cut: a replaced output is whole or old, never half, but
// its temporary stays). Named on one line, once a folder, and not deleted:
// a .pacer-* file a minute old or less may be another run's, in progress.
void note_stale_temporaries(const std::string& output) {
    namespace fs = std::filesystem;
    static std::vector<fs::path> seen;
    std::error_code error;
    fs::path folder = fs::path(output).parent_path();
    if (folder.empty()) folder = ".";
    if (std::find(seen.begin(), seen.end(), folder) != seen.end()) return;
    seen.push_back(folder);
    const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(1);
    std::vector<std::string> stale;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(".pacer-", 0) != 0) continue;
        const auto written = it->last_write_time(error);
        if (!error && written < old) stale.push_back(name);
    }
    if (stale.empty()) return;
    std::fprintf(stderr, "pacer-demo: note: %s holds %zu temporary file%s an earlier run left when it was killed "
                         "(%s%s); safe to delete\n",
                 printable(folder.string()).c_str(), stale.size(), stale.size() == 1 ? "" : "s",
                 printable(stale.front()).c_str(), stale.size() > 1 ? ", ..." : "");
}

}  // namespace

RunScript::RunScript(const AppOptions& options) : options_(options) {
    if (options_.scenario) cursor_.emplace(*options_.scenario);
}

std::string RunScript::apply_(const std::vector<const Step*>& steps, Controls& controls,
                              const ChangeSettings& change) {
    for (const Step* step : steps) {
        const std::string where = printable(options_.scenario->file_name()) + ":" + std::to_string(step->line);
        if (!step->mark.empty()) {
            controls.add_marker(where + ": mark " + step->mark);
            continue;
        }
        if (std::string problem = change(step->settings, where); !problem.empty()) {
            return where + ": " + problem;
        }
    }
    return "";
}

std::string RunScript::apply_start(Controls& controls, const ChangeSettings& change) {
    return cursor_ ? apply_(cursor_->due(0, 0), controls, change) : "";
}

bool RunScript::finished(int64_t frame_index, double elapsed_s) const {
    if (options_.frames > 0 && frame_index >= options_.frames) return true;
    if (options_.seconds > 0 && elapsed_s >= options_.seconds) return true;
    return cursor_ && cursor_->finished(frame_index, elapsed_s);
}

std::string RunScript::apply_due(int64_t frame_index, double elapsed_s, Controls& controls,
                                 const ChangeSettings& change) {
    return cursor_ ? apply_(cursor_->due(frame_index, elapsed_s), controls, change) : "";
}

std::string RunOutputs::open(const AppOptions& options) {
    // Paths can hold any byte; the line printed must not (files.h).
    return printable(open_(options));
}

std::string RunOutputs::open_(const AppOptions& options) {
    options_ = &options;
    record_ = std::make_unique<RunRecord>(options.scenario ? options.scenario->success_tolerance_ms : 1.0);
    // Every output, checked before any is opened: each a regular file or new
    // (files.h), none the same file as another output or as the scenario.
    struct Output {
        const char* flag;
        const std::string& path;
    };
    const Output outputs[] = {{"--trace", options.trace_path},
                              {"--chrome-trace", options.chrome_trace_path},
                              {"--screenshot", options.screenshot_path},
                              {"--summary-json", options.summary_json_path}};
    for (std::size_t i = 0; i < std::size(outputs); ++i) {
        const Output& out = outputs[i];
        if (out.path.empty()) continue;
        if (std::string problem = check_writable(out.path); !problem.empty()) return std::string(out.flag) + ": " + problem;
        if (options.scenario && same_file(out.path, options.scenario->name))
            return std::string(out.flag) + ": " + out.path + " is the --scenario file, an input";
        for (std::size_t k = 0; k < i; ++k) {
            if (!outputs[k].path.empty() && same_file(out.path, outputs[k].path))
                return std::string(out.flag) + ": " + out.path + " is also the " + outputs[k].flag + " file";
        }
    }
    for (const Output& out : outputs)
        if (!out.path.empty()) note_stale_temporaries(out.path);
    if (!options.trace_path.empty()) {
        trace_ = std::make_unique<TraceWriter>(options.trace_path);
        if (!trace_->ok()) return trace_->error();
    }
    if (!options.chrome_trace_path.empty()) {
        std::string name = std::string("pacer-demo ") + backend_name(options.backend);
        if (options.scenario) name += " " + options.scenario->file_name();
        chrome_trace_ = std::make_unique<ChromeTraceWriter>(options.chrome_trace_path, name);
        if (!chrome_trace_->ok()) return chrome_trace_->error();
    }
    return "";
}

void RunOutputs::write_trace(const pacer::Frame& frame, const MotionStep& step, const pacer::Pacer& pacer,
                             Controls& controls, int64_t present_ns) {
    // The decision's reason on the frame where a new one came into force.
    std::string decision;
    if (frame.decision_seq != decision_seq_) {
        decision_seq_ = frame.decision_seq;
        decision = pacer.decision().reason;
    }
    const std::string markers = controls.take_markers();
    const char* mode = dt_mode_name(step.mode);
    // The frame's work ran from the wake before it to its wait, across the
    // swap noted before the newest one (the newest came after its wake).
    record_->add_frame(frame, step.dt_ns, mode, pacer.display().locked, swap_in_work_ns_);
    swap_in_work_ns_ = newest_swap_ns_;
    newest_swap_ns_ = 0;
    if (trace_) {
        TraceExtra extra{decision, markers};
        extra.dt_mode = mode;
        extra.motion_dt_ns = step.dt_ns;
        extra.fixed_steps = step.fixed_steps;
        extra.fixed_alpha = step.fixed_alpha;
        extra.wait_point = pacer::wait_point_name(pacer.config().wait_point);
        extra.present_ns = present_ns;
        extra.pacing_of(pacer.decision());
        trace_->write(frame, extra);
    }
    if (chrome_trace_) chrome_trace_->write(frame, decision, markers);
}

std::string RunOutputs::screenshot_if_due(int64_t frame_index, Renderer& renderer, const Scene& scene,
                                          const Stage& stage) {
    scene_.stage = stage;
    scene_.overlay = options_->overlay;
    scene_.objects = scene.objects();
    if (options_->screenshot_path.empty() || frame_index != options_->screenshot_frame) return "";
    std::string error;
    if (!renderer.capture(&screenshot_, &error)) return error;
    scene_.screenshot_frame = frame_index;
    scene_.screenshot_time_s = scene.time_s();
    return "";
}

void RunOutputs::note_swap(Window& window, int64_t frame_index) {
    record_->add_swap(frame_index, window.last_swap_return_ns());
    newest_swap_ns_ = window.last_swap_ns();
    // The reports the pacer pulled in its waits (Window keeps a copy).
    for (const pacer::Presented& p : window.take_reports()) {
        if (trace_) trace_->displayed(p.frame_index, p.discarded, p.displayed_ns);
        record_->add_presented(p);
    }
}

int RunOutputs::close_files_() {
    int code = 0;
    auto failed = [&](const std::string& problem) {
        std::fprintf(stderr, "pacer-demo: %s\n", printable(problem).c_str());
        code = 1;
    };
    if (trace_) {
        if (std::string problem = trace_->close(); !problem.empty()) failed(problem);
    }
    if (chrome_trace_) {
        if (std::string problem = chrome_trace_->close(); !problem.empty()) failed(problem);
    }
    if (options_->screenshot_path.empty()) return code;
    if (scene_.screenshot_frame < 0) {
        failed("--screenshot-frame: the run ended before frame " + std::to_string(options_->screenshot_frame));
    } else if (std::string problem; !Renderer::write_png(screenshot_, options_->screenshot_path, &problem)) {
        failed(problem);
    }
    return code;
}

// What ran: the window, the settings and what the system gave for them.
RunFacts RunOutputs::facts_(const pacer::Pacer& pacer, Controls& controls, Window& window,
                            const Renderer& renderer, bool display_lost) const {
    RunFacts facts;
    // With the display's connection gone, the window system is not asked again.
    const double refresh_hz = display_lost ? 0 : window.refresh_rate_hz();
    const Settings& s = controls.current();
    const SwapIntervalState swap = window.swap_interval_state();
    const pacer::Decision& decision = pacer.decision();
    auto info = [&](const char* key, const std::string& value) { facts.info.emplace_back(key, value); };
    info("backend", backend_name(window.backend()));
    info("display_server", window.display_server().empty() ? std::string("unknown") : window.display_server());
    info("gl_renderer", renderer.gl_renderer());
    info("refresh_hz", format("%g", refresh_hz));
    info("swap_interval", "last asked " + std::to_string(swap.requested) + ": " + swap_answer_name(swap.answer) +
                              (controls.pacer_owns_swap_interval() ? " (the pacer asks, strategy " +
                                                                         std::string(pacer::strategy_name(*s.strategy)) + ")"
                                                                   : ""));
    info("vsync_setting", vsync_mode_name(*s.vsync));
    info("strategy", pacer::strategy_name(*s.strategy));
    info("strategy_in_force", pacer::strategy_name(pacer.status().strategy));
    info("decision_in_force", pacer::strategy_name(decision.in_force));   // the decision in force at the end
    info("decision_swap_interval", std::to_string(decision.swap_interval));
    info("decision_reason", decision.reason);
    info("target_hz", format("%g", *s.hz));
    info("sleeper", controls.sleeper_description());   // with what the timer waits got
    info("wait_slack_ns", std::to_string(*s.wait_slack_ns));   // asked; -1: the thread's own
    info("wait_slice_ns", std::to_string(*s.wait_slice_ns));
    if (const pacer::ThreadTiming::Report* timing = controls.thread_timing()) {
        info("timer_slack_ns", timing->timer_slack_supported ? std::to_string(timing->timer_slack_ns)
                                                             : std::string("unsupported"));
        info("thread_timing", thread_timing_text(*timing));
    }
    info("wait_point", pacer::wait_point_name(*s.wait_point));
    info("settings", describe(s));   // every setting in force at the end, as scenario keys
    if (options_->scenario) info("scenario", options_->scenario->name);
    add_picture_(&facts);
    const std::string server = window.display_server().empty() ? "" : " on " + window.display_server();
    facts.brief.push_back(std::string("pacer-demo: ") + backend_name(window.backend()) + server + ", " +
                          renderer.gl_renderer() +
                          format(", %gx%g window", scene_.stage.x + scene_.stage.width, scene_.stage.height) +
                          (options_->scenario ? ", scenario " + options_->scenario->name : std::string()));
    facts.brief.push_back("pacing: " + std::string(pacer::strategy_name(*s.strategy)) + " -> " + decision.reason +
                          "; target " + format("%g Hz", *s.hz) + "; swap interval: last asked " +
                          std::to_string(swap.requested) + ", " + swap_answer_name(swap.answer));
    facts.present_feedback = window.present_feedback_source();
    facts.refresh_hz = refresh_hz;
    if (close_signal() != 0) facts.ended_by = close_signal_name();
    if (display_lost) facts.ended_by = "the display server's connection was lost";
    if (g_display_stuck) facts.ended_by = std::string(close_signal_name()) + ", the display server not answering";
    if (options_->scenario) facts.expectations = &options_->scenario->expectations;
    return facts;
}

// What the picture holds, for checkers: the scene's time is the sum of the
// trace's MsDt, each frame's step in the dt mode of its DtMode column.
void RunOutputs::add_picture_(RunFacts* facts) const {
    auto info = [&](const char* key, const std::string& value) { facts->info.emplace_back(key, value); };
    info("stage_px", format("%g %g %g %g", scene_.stage.x, scene_.stage.y, scene_.stage.width, scene_.stage.height));
    info("overlay_panel_px", scene_.overlay ? format("0 0 %g %g", scene_.stage.x, scene_.stage.height)
                                            : std::string("none"));
    for (std::size_t i = 0; i < scene_.objects.size(); ++i) {
        const MovingObject& object = scene_.objects[i];
        const float top_px = scene_.stage.y + object.row_y * scene_.stage.height;
        info(i == 0 ? "object_0" : i == 1 ? "object_1" : "object_2",
             format("speed_px_s=%g size_px=%g top_px=%g ", object.speed_px_s, object.size_px, top_px) +
                 format("rgb=%.0f,%.0f,%.0f", object.r * 255.0, object.g * 255.0, object.b * 255.0));
    }
    info("bar", format("speed_px_s=%g width_px=%g", Scene::kBarSpeedPxS, Scene::kBarWidthPx));
    if (scene_.screenshot_frame >= 0) {
        info("screenshot_frame", std::to_string(scene_.screenshot_frame));
        info("screenshot_time_s", format("%.9f", scene_.screenshot_time_s));
    }
}

namespace {

// The run ExitGuard watches; null while none.
struct RunInProgress {
    RunOutputs* outputs = nullptr;
    const pacer::Pacer* pacer = nullptr;
    Controls* controls = nullptr;
    Window* window = nullptr;
    const Renderer* renderer = nullptr;
};
RunInProgress g_run;

extern "C" void finish_at_exit() {
    const RunInProgress run = std::exchange(g_run, {});
    if (run.outputs == nullptr) return;
    run.outputs->finish(*run.pacer, *run.controls, *run.window, *run.renderer, true);
}

}  // namespace

void finish_run_in_progress() {
    g_display_stuck = true;
    finish_at_exit();
}

ExitGuard::ExitGuard(RunOutputs& outputs, const pacer::Pacer& pacer, Controls& controls, Window& window,
                     const Renderer& renderer) {
    static const bool registered = std::atexit(finish_at_exit) == 0;
    (void)registered;
    g_run = {&outputs, &pacer, &controls, &window, &renderer};
}

ExitGuard::~ExitGuard() { g_run = {}; }

int RunOutputs::finish(const pacer::Pacer& pacer, Controls& controls, Window& window, const Renderer& renderer,
                       bool display_lost) {
    // Once: where another thread finishes the run (finish_run_in_progress),
    // this one waits for the process to end.
    if (g_finish_claimed.exchange(true)) {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    g_run = {};   // finished once: the exit guard has nothing left to do
    if (display_lost && !g_display_stuck)
        std::fprintf(stderr, "pacer-demo: the display server's connection was lost; writing what the run measured\n");
    int code = close_files_();
    if (display_lost) code = 1;   // the run did not end as asked
    if (!options_->summary && options_->summary_json_path.empty() && !options_->scenario) return code;
    const RunReport report = record_->report(facts_(pacer, controls, window, renderer, display_lost), pacer);
    if (options_->summary) std::fputs(summary_text(report).c_str(), stdout);
    if (!options_->summary_json_path.empty()) {
        if (std::string problem = write_file_atomically(options_->summary_json_path, summary_json(report));
            !problem.empty()) {
            std::fprintf(stderr, "pacer-demo: --summary-json: %s\n", printable(problem).c_str());
            code = 1;
        }
    }
    for (const Verdict& verdict : report.verdicts) {
        if (!verdict.passed) std::fprintf(stderr, "pacer-demo: %s\n", verdict.text().c_str());
    }
    return all_passed(report.verdicts) ? code : 1;
}

}  // namespace pacer_demo
