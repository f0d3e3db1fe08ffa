// run_record.cpp: a run's figures beside the pacer's, and its report.
#include "run/run_record.h"

#include "run/display_figures.h"
#include "run/format.h"

#include <pacer/status.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pacer_demo {
namespace {

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

double pct(int64_t part, int64_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

RunRecord::RunRecord(double success_tolerance_ms)
    : success_tolerance_ms_(success_tolerance_ms),
      run_metrics_(std::make_unique<pacer::RunMetrics>(make_run_metrics(success_tolerance_ms))) {}

void RunRecord::add_frame(const pacer::Frame& frame, int64_t motion_dt_ns, const char* dt_mode, bool display_locked,
                          int64_t swap_ns) {
    run_metrics_->add(frame);
    if (previous_wake_ns_ >= 0 && frame.present_ns >= previous_wake_ns_)
        wake_to_present_ns_.add(frame.present_ns - previous_wake_ns_);
    previous_wake_ns_ = frame.wake_ns;
    if (frame.index > 0) {
        const int64_t own_ns = std::max<int64_t>(frame.work_ns - std::max<int64_t>(swap_ns, 0), 0);
        work_ns_.add(own_ns);
        if (own_ns > frame.period_ns) ++work_over_period_;
        gpu_finish_ns_.add(std::max<int64_t>(frame.gpu_finish_ns, 0));
        for (std::size_t i = 0; i < over_ms_.size(); ++i) {
            if (static_cast<double>(frame.interval_ns) > kOverMs[i] * 1e6) ++over_ms_[i];
        }
    }
    if (dt_modes_.empty() || dt_modes_.back() != dt_mode) dt_modes_.emplace_back(dt_mode);
    if (first_wake_ns_ < 0) first_wake_ns_ = frame.wake_ns;
    if (display_locked || display_frames_since_lock_ > 0) {
        ++display_frames_since_lock_;
        if (display_locked) ++display_locked_frames_;
    }
    recent_frames_.push_back(frame);
    motion_dt_ns_.push_back(motion_dt_ns);
    if (recent_frames_.size() > kDisplayFrames) {
        recent_frames_.pop_front();
        motion_dt_ns_.pop_front();
    }
}

void RunRecord::add_swap(int64_t frame_index, int64_t swap_return_ns) {
    if (last_swap_return_ns_ >= 0 && swap_return_ns > last_swap_return_ns_)
        swap_intervals_ns_.add(swap_return_ns - last_swap_return_ns_);
    last_swap_return_ns_ = swap_return_ns;
    if (frame_index >= 0) swap_return_of_ns_[static_cast<std::size_t>(frame_index) % kSwapsRemembered] = {frame_index, swap_return_ns};
}

void RunRecord::add_presented(const pacer::Presented& p) {
    presented_.push_back(p);
    if (presented_.size() > kDisplayFrames) presented_.pop_front();
    if (p.discarded) {
        ++discarded_frames_;
        return;
    }
    ++presented_frames_;
    stated_refresh_ns_ = p.refresh_ns;
    if (last_displayed_ns_ >= 0 && p.displayed_ns > last_displayed_ns_)
        shown_intervals_ns_.add(p.displayed_ns - last_displayed_ns_);
    last_displayed_ns_ = p.displayed_ns;
    if (p.frame_index < 0) return;
    const auto& swap = swap_return_of_ns_[static_cast<std::size_t>(p.frame_index) % kSwapsRemembered];
    if (swap.first == p.frame_index) after_swap_ns_.add(p.displayed_ns - swap.second);
}

// PresentMon-style figures from the display's reports (the trace's display
// columns, trace.h) over the newest kDisplayFrames frames, and the pacer's
// model of the display clock.
void RunRecord::add_display_figures_(RunReport* report, const pacer::Pacer& pacer) const {
    auto info = [&](const char* key, const std::string& value) { report->info.emplace_back(key, value); };
    const pacer::DisplayClock clock = pacer.display();
    const pacer::WaitStatus state = pacer.status();
    const DisplayFigures d = display_figures({recent_frames_.begin(), recent_frames_.end()},
                                             {motion_dt_ns_.begin(), motion_dt_ns_.end()},
                                             {presented_.begin(), presented_.end()}, clock.period_ns);
    std::vector<int64_t> abs_animation_error_ns;
    for (int64_t e : d.animation_error_ns) abs_animation_error_ns.push_back(e < 0 ? -e : e);
    int64_t within_1ms = 0;
    for (int64_t e : d.prediction_error_ns) within_1ms += (e >= -1'000'000 && e <= 1'000'000) ? 1 : 0;
    info("display_change_p5_p50_p95_ms", spread_ms(d.between_ns));
    info("display_latency_p5_p50_p95_ms", spread_ms(d.latency_ns));
    // Shown at a later refresh than the one predicted (display_lock: aimed at).
    info("missed_refresh_pct", format("%.2f", pct(d.late, d.shown)));
    if (d.shown > 0) report->stats.shown_late_pct = pct(d.late, d.shown);
    if (state.display_refreshes_counted > 0) report->stats.hitches_per_1000 = state.display_hitches_per_1000;
    info("display_lead_ms", state.display_lead_ns < 0 ? std::string("off")
                                                      : format("%.3f", static_cast<double>(state.display_lead_ns) * 1e-6));
    info("display_refreshes_per_frame", std::to_string(state.display_refreshes));
    // Hitches (refreshes that showed the frame before again, pacer::HitchCount)
    // per 1,000 refreshes, whatever paced, and what display_lock's lead is made of.
    info("display_hitches_per_1000", format("%.2f", state.display_hitches_per_1000));
    info("display_hitches", std::to_string(state.display_hitches));
    info("display_refreshes_counted", std::to_string(state.display_refreshes_counted));
    info("display_lead_parts_ms", state.display_work_tail_ns < 0
                                      ? std::string("none")
                                      : format("tail %.3f latch %.3f pad %.3f",
                                               static_cast<double>(state.display_work_tail_ns) * 1e-6,
                                               static_cast<double>(state.display_latch_ns) * 1e-6,
                                               static_cast<double>(state.display_pad_ns) * 1e-6));
    info("animation_error_abs_p50_p95_ms", format("%.3f %.3f", quantile_ms(abs_animation_error_ns, 0.5),
                                                  quantile_ms(abs_animation_error_ns, 0.95)));
    info("present_prediction_error_p5_p50_p95_ms", spread_ms(d.prediction_error_ns));
    info("present_prediction_within_1ms_pct",
         format("%.1f", pct(within_1ms, static_cast<int64_t>(d.prediction_error_ns.size()))));
    info("display_clock_locked", clock.locked ? "yes" : "no");
    info("display_clock_locked_pct", format("%.1f", pct(display_locked_frames_, display_frames_since_lock_)));
    info("display_clock_period_ms", format("%.4f", pacer::ms_of(static_cast<double>(clock.period_ns))));
    // Where a shown frame counts late (pacer::shown_late, by the newest
    // report's flags), for tools that judge the trace.
    const uint32_t flags = presented_.empty() ? pacer::kPresentedHwClock : presented_.back().flags;
    info("display_late_after_ms", format("%.4f", pacer::ms_of(static_cast<double>(
                                                      pacer::late_after_ns(clock.period_ns, flags)))));
    info("display_clock_stated_hz", format("%g", clock.stated_hz));
    info("display_clock_samples", std::to_string(clock.samples));
    info("display_clock_residual_ms", format("%.4f", clock.residual_ns * 1e-6));
}

// The text summary's notes on what the frames themselves cost.
void RunRecord::add_cost_notes_(RunReport* report, double period_ms) const {
    std::string limits, counts;   // "25 / 33.3 / 50", "2 / 1 / 0"
    for (std::size_t i = 0; i < over_ms_.size(); ++i) {
        const std::string separator = i == 0 ? "" : " / ";
        limits += separator + format("%g", kOverMs[i]);
        counts += separator + std::to_string(over_ms_[i]);
    }
    report->notes.push_back("frames over " + limits + " ms: " + counts +
                            format("; frame work (wake to next wait, GPU included, the time in the swap left out) "
                                          "p50 %.3f ms, p99 %.3f ms",
                                   quantile_ms(work_ns_, 0.5), quantile_ms(work_ns_, 0.99)));
    const std::string limit_note =
        renderer_limit_note(work_ns_.count(), work_over_period_, quantile_ms(work_ns_, 0.5), period_ms);
    if (!limit_note.empty()) report->notes.push_back(limit_note);
}

// Swap returns against what the compositor said was displayed: the medians
// of both intervals, and the counts (tests/wayland/check_wayland.py).
void RunRecord::add_swap_figures_(RunReport* report, const RunFacts& facts) const {
    auto info = [&](const char* key, const std::string& value) { report->info.emplace_back(key, value); };
    info("swap_return_interval_median_ms", format("%.4f", quantile_ms(swap_intervals_ns_, 0.5)));
    info("swap_return_interval_p5_p50_p95_ms", spread_ms(swap_intervals_ns_));
    info("present_feedback", facts.present_feedback);
    info("presented_frames", std::to_string(presented_frames_));
    info("discarded_frames", std::to_string(discarded_frames_));
    info("present_interval_median_ms", format("%.4f", quantile_ms(shown_intervals_ns_, 0.5)));
    info("present_interval_p5_p50_p95_ms", spread_ms(shown_intervals_ns_));
    info("present_after_swap_median_ms", format("%.4f", quantile_ms(after_swap_ns_, 0.5)));
    info("stated_refresh_ms", format("%.4f", pacer::ms_of(static_cast<double>(stated_refresh_ns_))));
}

RunReport RunRecord::report(const RunFacts& facts, const pacer::Pacer& pacer) const {
    RunReport report;
    report.info = facts.info;
    report.brief = facts.brief;
    auto info = [&](const char* key, const std::string& value) { report.info.emplace_back(key, value); };
    add_swap_figures_(&report, facts);
    report.stats = run_stats(*run_metrics_, success_tolerance_ms_);
    if (wake_to_present_ns_.count() > 0)
        report.stats.wake_to_present_p50_us = quantile_ms(wake_to_present_ns_, 0.5) * 1e3;
    if (gpu_finish_ns_.count() > 0) report.stats.gpu_finish_p50_us = quantile_ms(gpu_finish_ns_, 0.5) * 1e3;
    add_display_figures_(&report, pacer);
    // The first wake on the pacer's clock (CLOCK_MONOTONIC on Linux):
    // tests/wayland/check_auto.py times an output change against the trace with it.
    info("first_wake_ns", std::to_string(first_wake_ns_));
    // The rate in force at the end: the grid's (display_lock: the display's refresh / n).
    const int64_t period_ns = recent_frames_.empty() ? 0 : recent_frames_.back().period_ns;
    const double rate_hz = period_ns > 0 ? pacer::hz_of(static_cast<double>(period_ns)) : 0;
    info("rate_in_force_hz", format("%.3f", rate_hz));
    // "dt" names the modes the run used, in order ("raw, paced, fixed").
    std::string modes;
    for (const std::string& mode : dt_modes_) modes += (modes.empty() ? "" : ", ") + mode;
    info("dt", modes);
    // The pacer's own window (the overlay's): one window through every live
    // change, so it holds min(frames, its history) (tests/demo/check_live.py).
    info("pacer_stats_frames", std::to_string(pacer.stats().size()));
    if (!facts.ended_by.empty()) info("ended_by", facts.ended_by);   // a signal's name, or the display lost

    if (presented_frames_ > 0) {
        const pacer::DisplayClock clock = pacer.display();
        report.brief.push_back("display (" + facts.present_feedback + "): " + std::to_string(presented_frames_) +
                               " shown, " + std::to_string(discarded_frames_) + " discarded; every " +
                               format("%.3f ms (p50)", quantile_ms(shown_intervals_ns_, 0.5)) + "; clock " +
                               (clock.locked ? format("locked, %.4f ms", static_cast<double>(clock.period_ns) * 1e-6)
                                             : std::string("not locked")) +
                               (pacer.status().display_refreshes_counted > 0
                                    ? format("; hitches %.2f per 1000 refreshes",
                                             pacer.status().display_hitches_per_1000)
                                    : std::string()));
    }
    const double target_hz = pacer.config().target_hz;
    if (rate_hz > 0 && std::fabs(rate_hz - target_hz) > 0.005 * target_hz) {
        report.brief.push_back(format("rate in force: %.3f Hz, not the %g Hz target (", rate_hz, target_hz) +
                               std::string(pacer::strategy_name(pacer.status().strategy)) +
                               "); frames are judged against it");
    }
    if (presented_frames_ == 0) {   // why nothing was reported shown
        report.brief.push_back((facts.refresh_hz > 0 ? format("display: refresh %g Hz stated; ", facts.refresh_hz)
                                                     : std::string("display: no refresh stated; ")) +
                               facts.present_feedback);
    }
    add_cost_notes_(&report, report.stats.summary.target_period_us * 1e-3);
    if (!facts.ended_by.empty()) report.notes.push_back("ended by " + facts.ended_by);
    if (facts.expectations != nullptr) report.verdicts = evaluate(*facts.expectations, metric_values(report.stats));
    return report;
}

}  // namespace pacer_demo
