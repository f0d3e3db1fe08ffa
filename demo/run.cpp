// run.cpp: scenario steps, run ends, and the run's files.
#include "run.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <utility>

#include "core/atomic_file.h"
#include "core/files.h"
#include "core/display_figures.h"
#include "core/summary.h"
#include "ui/overlay.h"

namespace pacer_demo {
namespace {

template <class... Args>
std::string format(const char* fmt, Args... args) {
    char text[192];
    std::snprintf(text, sizeof text, fmt, args...);
    return text;
}

// The q-quantile of binned values (rank round(q * (n - 1)), 0-based), in ms; 0 when none.
double quantile_ms(const pacer::LogHistogram& values_ns, double q) {
    if (values_ns.count() == 0) return 0;
    const auto k = static_cast<int64_t>(q * static_cast<double>(values_ns.count() - 1) + 0.5);
    return static_cast<double>(values_ns.at_rank(k + 1)) * 1e-6;
}

// "p5 p50 p95" of intervals, in ms.
std::string spread_ms(const pacer::LogHistogram& values_ns) {
    return format("%.3f %.3f %.3f", quantile_ms(values_ns, 0.05), quantile_ms(values_ns, 0.5),
                  quantile_ms(values_ns, 0.95));
}

// The same over a bounded sample that may hold negative values (the
// display figures of the newest frames).
double quantile_ms(std::vector<int64_t> values_ns, double q) {
    if (values_ns.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(values_ns.size() - 1) + 0.5);
    std::nth_element(values_ns.begin(), values_ns.begin() + static_cast<std::ptrdiff_t>(k), values_ns.end());
    return static_cast<double>(values_ns[k]) * 1e-6;
}

std::string spread_ms(const std::vector<int64_t>& values_ns) {
    return format("%.3f %.3f %.3f", quantile_ms(values_ns, 0.05), quantile_ms(values_ns, 0.5),
                  quantile_ms(values_ns, 0.95));
}

}  // namespace

RunScript::RunScript(const AppOptions& options) : options_(options) {
    if (options_.scenario) cursor_.emplace(*options_.scenario);
}

std::string RunScript::apply_(const std::vector<const Step*>& steps, Controls& controls,
                              const ChangeSettings& change) {
    for (const Step* step : steps) {
        const std::string& name = options_.scenario->name;
        const std::string where = printable(name.substr(name.find_last_of("/\\") + 1)) + ":" + std::to_string(step->line);
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
    run_metrics_ = std::make_unique<pacer::RunMetrics>(make_run_metrics(success_tolerance_ms()));
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
    if (!options.trace_path.empty()) {
        trace_ = std::make_unique<TraceWriter>(options.trace_path);
        if (!trace_->ok()) return trace_->error();
    }
    if (!options.chrome_trace_path.empty()) {
        std::string name = std::string("pacer-demo ") + backend_name(options.backend);
        if (options.scenario) name += " " + options.scenario->name.substr(options.scenario->name.find_last_of("/\\") + 1);
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
    run_metrics_->add(frame);
    if (frame.index > 0) {
        work_ns_.add(std::max<int64_t>(frame.work_ns, 0));
        if (frame.work_ns > frame.period_ns) ++work_over_period_;
        for (std::size_t i = 0; i < over_ms_.size(); ++i) {
            if (static_cast<double>(frame.interval_ns) > kOverMs[i] * 1e6) ++over_ms_[i];
        }
    }
    const char* mode = dt_mode_name(step.mode);
    if (dt_modes_.empty() || dt_modes_.back() != mode) dt_modes_.emplace_back(mode);
    if (first_wake_ns_ < 0) first_wake_ns_ = frame.wake_ns;
    const bool display_locked = pacer.display().locked;
    if (display_locked || display_frames_since_lock_ > 0) {
        ++display_frames_since_lock_;
        if (display_locked) ++display_locked_frames_;
    }
    recent_frames_.push_back(frame);
    motion_dt_ns_.push_back(step.dt_ns);
    if (recent_frames_.size() > kDisplayFrames) {
        recent_frames_.pop_front();
        motion_dt_ns_.pop_front();
    }
    if (trace_) {
        TraceExtra extra{decision, markers};
        extra.dt_mode = mode;
        extra.motion_dt_ns = step.dt_ns;
        extra.fixed_steps = step.fixed_steps;
        extra.fixed_alpha = step.fixed_alpha;
        extra.wait_point = pacer::wait_point_name(pacer.config().wait_point);
        extra.present_ns = present_ns;
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
    const int64_t swap_ns = window.last_swap_return_ns();
    if (last_swap_return_ns_ >= 0 && swap_ns > last_swap_return_ns_) swap_intervals_ns_.add(swap_ns - last_swap_return_ns_);
    last_swap_return_ns_ = swap_ns;
    swap_return_of_ns_[static_cast<std::size_t>(frame_index) % kSwapsRemembered] = {frame_index, swap_ns};
    // The reports the pacer pulled in its waits (Window keeps a copy).
    for (const pacer::Presented& p : window.take_reports()) {
        if (trace_) trace_->displayed(p.frame_index, p.discarded, p.displayed_ns);
        presented_.push_back(p);
        if (presented_.size() > kDisplayFrames) presented_.pop_front();
        if (p.discarded) {
            ++discarded_frames_;
            continue;
        }
        ++presented_frames_;
        stated_refresh_ns_ = p.refresh_ns;
        if (last_displayed_ns_ >= 0 && p.displayed_ns > last_displayed_ns_)
            present_intervals_ns_.add(p.displayed_ns - last_displayed_ns_);
        last_displayed_ns_ = p.displayed_ns;
        const auto& swap = swap_return_of_ns_[static_cast<std::size_t>(p.frame_index) % kSwapsRemembered];
        if (p.frame_index >= 0 && swap.first == p.frame_index) after_swap_ns_.add(p.displayed_ns - swap.second);
    }
}

int RunOutputs::finish(const pacer::Pacer& pacer, Controls& controls, Window& window,
                       const Renderer& renderer) {
    int code = 0;
    if (trace_) {
        if (std::string problem = trace_->close(); !problem.empty()) {
            std::fprintf(stderr, "pacer-demo: %s\n", printable(problem).c_str());
            code = 1;
        }
    }
    if (chrome_trace_) {
        if (std::string problem = chrome_trace_->close(); !problem.empty()) {
            std::fprintf(stderr, "pacer-demo: %s\n", printable(problem).c_str());
            code = 1;
        }
    }
    if (!options_->screenshot_path.empty() && scene_.screenshot_frame < 0) {
        std::fprintf(stderr, "pacer-demo: --screenshot-frame: the run ended before frame %lld\n",
                     static_cast<long long>(options_->screenshot_frame));
        code = 1;
    } else if (!options_->screenshot_path.empty()) {
        std::string problem;
        if (!Renderer::write_png(screenshot_, options_->screenshot_path, &problem)) {
            std::fprintf(stderr, "pacer-demo: %s\n", printable(problem).c_str());
            code = 1;
        }
    }
    if (!options_->summary && options_->summary_json_path.empty() && !options_->scenario) return code;

    const Settings& s = controls.current();
    const SwapIntervalState swap = window.swap_interval_state();
    const pacer::WaitStatus state = pacer.status();
    RunReport report;
    auto info = [&](const char* key, const std::string& value) { report.info.emplace_back(key, value); };
    info("backend", backend_name(window.backend()));
    info("gl_renderer", renderer.gl_renderer());
    info("refresh_hz", format("%g", window.refresh_rate_hz()));
    info("swap_interval", "last asked " + std::to_string(swap.requested) + ": " + swap_answer_name(swap.answer) +
                              (controls.pacer_owns_swap_interval() ? " (the pacer asks, strategy " +
                                                                         std::string(pacer::strategy_name(*s.strategy)) + ")"
                                                                   : ""));
    info("vsync_setting", vsync_mode_name(*s.vsync));
    // Swap returns against what the compositor said was displayed: the
    // medians of both intervals, and the counts (tests/wayland/check_wayland.py).
    info("swap_return_interval_median_ms", format("%.4f", quantile_ms(swap_intervals_ns_, 0.5)));
    info("swap_return_interval_p5_p50_p95_ms", spread_ms(swap_intervals_ns_));
    info("present_feedback", window.present_feedback_source());
    info("presented_frames", std::to_string(presented_frames_));
    info("discarded_frames", std::to_string(discarded_frames_));
    info("present_interval_median_ms", format("%.4f", quantile_ms(present_intervals_ns_, 0.5)));
    info("present_interval_p5_p50_p95_ms", spread_ms(present_intervals_ns_));
    info("present_after_swap_median_ms", format("%.4f", quantile_ms(after_swap_ns_, 0.5)));
    info("stated_refresh_ms", format("%.4f", static_cast<double>(stated_refresh_ns_) * 1e-6));
    {
        // PresentMon-style, from the same reports (the trace's display
        // columns, trace.h) over the newest kDisplayFrames frames, and the
        // pacer's model of the display clock.
        const pacer::DisplayClock clock = pacer.display();
        const DisplayFigures d = display_figures({recent_frames_.begin(), recent_frames_.end()},
                                                 {motion_dt_ns_.begin(), motion_dt_ns_.end()},
                                                 {presented_.begin(), presented_.end()}, clock.period_ns);
        std::vector<int64_t> abs_animation_error_ns;
        for (int64_t e : d.animation_error_ns) abs_animation_error_ns.push_back(e < 0 ? -e : e);
        int64_t within_1ms = 0;
        for (int64_t e : d.prediction_error_ns) within_1ms += (e >= -1'000'000 && e <= 1'000'000) ? 1 : 0;
        info("display_change_p5_p50_p95_ms", spread_ms(d.between_ns));
        info("display_latency_p5_p50_p95_ms", spread_ms(d.latency_ns));
        // Shown over a quarter refresh after the one predicted (display_lock: aimed at).
        info("missed_refresh_pct", format("%.2f", d.shown == 0 ? 0.0
                                                               : 100.0 * static_cast<double>(d.late) /
                                                                     static_cast<double>(d.shown)));
        info("display_lead_ms", state.display_lead_ns < 0 ? std::string("off")
                                                          : format("%.3f", static_cast<double>(state.display_lead_ns) * 1e-6));
        info("display_refreshes_per_frame", std::to_string(state.display_refreshes));
        info("animation_error_abs_p50_p95_ms", format("%.3f %.3f", quantile_ms(abs_animation_error_ns, 0.5),
                                                      quantile_ms(abs_animation_error_ns, 0.95)));
        info("present_prediction_error_p5_p50_p95_ms", spread_ms(d.prediction_error_ns));
        info("present_prediction_within_1ms_pct",
             format("%.1f", d.prediction_error_ns.empty() ? 0.0
                                                          : 100.0 * static_cast<double>(within_1ms) /
                                                                static_cast<double>(d.prediction_error_ns.size())));
        info("display_clock_locked", clock.locked ? "yes" : "no");
        info("display_clock_locked_pct",
             format("%.1f", display_frames_since_lock_ == 0 ? 0.0
                                                            : 100.0 * static_cast<double>(display_locked_frames_) /
                                                                  static_cast<double>(display_frames_since_lock_)));
        info("display_clock_period_ms", format("%.4f", static_cast<double>(clock.period_ns) * 1e-6));
        info("display_clock_stated_hz", format("%g", clock.stated_hz));
        info("display_clock_samples", std::to_string(clock.samples));
        info("display_clock_residual_ms", format("%.4f", clock.residual_ns * 1e-6));
    }
    info("strategy", pacer::strategy_name(*s.strategy));
    info("strategy_in_force", pacer::strategy_name(state.strategy));
    // The decision in force at the end, and the first wake on the pacer's
    // clock (CLOCK_MONOTONIC on Linux): tests/wayland/check_auto.py times
    // an output change against the trace with it.
    const pacer::Decision& decision = pacer.decision();
    info("decision_in_force", pacer::strategy_name(decision.in_force));
    info("decision_swap_interval", std::to_string(decision.swap_interval));
    info("decision_reason", decision.reason);
    info("first_wake_ns", std::to_string(first_wake_ns_));
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
    // The pacer's own window (the overlay's): one window through every live
    // change, so it holds min(frames, its history) (tests/demo/check_live.py).
    info("pacer_stats_frames", std::to_string(pacer.stats().size()));
    if (options_->scenario) info("scenario", options_->scenario->name);
    if (close_signal() != 0) info("ended_by", close_signal_name());   // SIGINT, SIGTERM
    // What the picture holds, for checkers: the scene's time is the sum of
    // the trace's MsDt, each frame's step in the dt mode of its DtMode column.
    // "dt" names the modes the run used, in order ("raw, paced, fixed").
    std::string modes;
    for (const std::string& mode : dt_modes_) modes += (modes.empty() ? "" : ", ") + mode;
    info("dt", modes);
    info("stage_px", format("%g %g %g %g", scene_.stage.x, scene_.stage.y, scene_.stage.width,
                            scene_.stage.height));
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

    report.stats = run_stats(*run_metrics_, success_tolerance_ms());
    // The text summary's head: what ran, the display where it reported, and
    // what the frames themselves cost.
    auto brief = [&](const std::string& line) { report.brief.push_back(line); };
    brief(std::string("pacer-demo: ") + backend_name(window.backend()) + ", " + renderer.gl_renderer() +
          format(", %gx%g window", scene_.stage.x + scene_.stage.width, scene_.stage.height) +
          (options_->scenario ? ", scenario " + options_->scenario->name : std::string()));
    brief("pacing: " + std::string(pacer::strategy_name(*s.strategy)) + " -> " + decision.reason + "; target " +
          format("%g Hz", *s.hz) + "; swap interval: last asked " + std::to_string(swap.requested) + ", " +
          swap_answer_name(swap.answer));
    if (presented_frames_ > 0) {
        brief("display (" + window.present_feedback_source() + "): " + std::to_string(presented_frames_) + " shown, " +
              std::to_string(discarded_frames_) + " discarded; every " +
              format("%.3f ms (p50)", quantile_ms(present_intervals_ns_, 0.5)) + "; clock " +
              (pacer.display().locked ? format("locked, %.4f ms", static_cast<double>(pacer.display().period_ns) * 1e-6)
                                      : std::string("not locked")));
    } else if (window.refresh_rate_hz() > 0) {
        brief(format("display: refresh %g Hz stated; ", window.refresh_rate_hz()) + window.present_feedback_source());
    }
    const double period_ms = report.stats.summary.target_period_us * 1e-3;
    std::string limits, counts;   // "25 / 33.3 / 50", "2 / 1 / 0"
    for (std::size_t i = 0; i < over_ms_.size(); ++i) {
        const std::string separator = i == 0 ? "" : " / ";
        limits += separator + format("%g", kOverMs[i]);
        counts += separator + std::to_string(over_ms_[i]);
    }
    brief("frames over " + limits + " ms: " + counts +
          format("; frame work (wake to next wait) p50 %.3f ms, p99 %.3f ms", quantile_ms(work_ns_, 0.5),
                 quantile_ms(work_ns_, 0.99)));
    const std::string limit_note =
        renderer_limit_note(work_ns_.count(), work_over_period_, quantile_ms(work_ns_, 0.5), period_ms);
    if (!limit_note.empty()) brief(limit_note);
    if (close_signal() != 0) brief(std::string("ended by ") + close_signal_name());
    if (options_->scenario) {
        report.verdicts = evaluate(options_->scenario->expectations, metric_values(report.stats));
    }
    const std::string text = summary_text(report);
    if (options_->summary) std::fputs(text.c_str(), stdout);
    if (!options_->summary_json_path.empty()) {
        if (std::string problem = write_file_atomically(options_->summary_json_path, summary_json(report));
            !problem.empty()) {
            std::fprintf(stderr, "pacer-demo: --summary-json: %s\n", printable(problem).c_str());
            code = 1;
        }
    }
    if (!all_passed(report.verdicts)) {
        for (const Verdict& verdict : report.verdicts) {
            if (!verdict.passed) std::fprintf(stderr, "pacer-demo: %s\n", verdict.text().c_str());
        }
        code = 1;
    }
    return code;
}

}  // namespace pacer_demo
