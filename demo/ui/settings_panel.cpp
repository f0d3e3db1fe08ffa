// settings_panel.cpp: the overlay's settings (settings_panel.h).
#include "ui/settings_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include <imgui.h>

#include "ui/widgets.h"

#include <pacer/status.h>

namespace pacer_demo {

void SettingsPanel::draw_pacing(Controls& controls, const Pacer& pacer, Window& window) {
    const pacer::WaitStatus state = pacer.status();
    draw_strategy_(controls, state);
    draw_contention_(state);
    draw_clock_(controls, pacer.stats());
    draw_rate_(controls);
    draw_vsync_(controls, window);
}

Settings SettingsPanel::take_change() { return std::exchange(change_, Settings{}); }

// The strategy, and the settings of the one chosen with what it does now.
void SettingsPanel::draw_strategy_(Controls& controls, const pacer::WaitStatus& state) {
    const Settings& s = controls.current();
    if (ImGui::BeginCombo("strategy", pacer::strategy_name(*s.strategy))) {
        for (pacer::Strategy strategy : pacer::kAllStrategies) {
            if (ImGui::Selectable(pacer::strategy_name(strategy), strategy == *s.strategy)) {
                change_.strategy = strategy;
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("strategy");
    switch (*s.strategy) {
        case pacer::Strategy::PreciseSleep: {
            double k = *s.precise_k;
            if (slider_released("k (mean + k sigma)", &k, 0.1, 5, "%.2f")) {
                change_.precise_k = k;
            }
            setting_tip("precise_k");
            ImGui::Text("1 ms sleep: estimate %.3f ms = mean %.3f + k * sigma %.3f (%lld samples)",
                        state.precise_estimate_ns * 1e-6, state.precise_mean_ns * 1e-6, state.precise_sigma_ns * 1e-6,
                        static_cast<long long>(state.precise_samples));
            break;
        }
        case pacer::Strategy::RobustSleep: {
            double tolerance = *s.robust_tolerance_us;
            if (slider_released("tolerance (us)", &tolerance, 0, 2000, "%.0f")) {
                change_.robust_tolerance_us = tolerance;
            }
            setting_tip("robust_tolerance_us");
            ImGui::Text("sleeps whole periods of %.3f ms, leaves one + tolerance to spin", ms(state.scheduler_period_ns));
            break;
        }
        case pacer::Strategy::Timer:
        case pacer::Strategy::Auto:
        case pacer::Strategy::DisplayLock: {
            double margin = *s.timer_margin_us;
            if (slider_released("start margin (us)", &margin, 0, 2000, "%.0f")) {
                change_.timer_margin_us = margin;
            }
            setting_tip("timer_margin_us");
            ImGui::Text("margin now %.1f us (adapts to wake lateness)%s", state.timer_margin_ns * 1e-3,
                        state.timer_fell_back ? "; no high-res timer: robust_sleep" : "");
            // What sizes it besides the lateness (pacer.h, WaitStatus): the
            // spin's own stalls lower its quantile, and the sleep's CPU comes
            // out of the wait's CPU budget before the spin gets any.
            if (!state.timer_fell_back) {
                if (state.timer_sleep_cpu_ns >= 0) {
                    ImGui::Text("spin stalls %.1f %%; sleep's CPU %.1f us a wait", 100 * state.timer_spin_stall_share,
                                static_cast<double>(state.timer_sleep_cpu_ns) * 1e-3);
                } else {
                    ImGui::Text("spin stalls %.1f %%; sleep's CPU unknown here", 100 * state.timer_spin_stall_share);
                }
            }
            if (*s.strategy != pacer::Strategy::Timer) draw_display_lead_(controls, state);
            break;
        }
        default:
            break;
    }
}

// Contention: what the timer measured on the last wait (pacer.h: a
// contended thread sleeps in short steps and does not spin; the margin in
// force is shown with the timer's controls). Only the timer measures it:
// other strategies show nothing rather than "no".
void SettingsPanel::draw_contention_(const pacer::WaitStatus& state) {
    const bool timer_waits = (state.strategy == pacer::Strategy::Timer ||
                              state.strategy == pacer::Strategy::DisplayLock) && !state.timer_fell_back;
    if (!timer_waits) {
        ImGui::TextDisabled("contention: measured only while the timer waits");
    } else if (state.runqueue_wait_ns >= 0) {
        ImGui::Text("contended: %s; run-queue wait %.1f us last frame", state.contended ? "yes" : "no",
                    static_cast<double>(state.runqueue_wait_ns) * 1e-3);
    } else {
        ImGui::Text("contended: %s; run-queue wait unknown here", state.contended ? "yes" : "no");
    }
}

// The engine's clock (what moves the scene) and where the loop waits.
void SettingsPanel::draw_clock_(Controls& controls, const pacer::Stats& stats) {
    const Settings& s = controls.current();
    ImGui::TextUnformatted("dt");
    for (DtMode mode : {DtMode::Raw, DtMode::Paced, DtMode::Fixed}) {
        ImGui::SameLine();
        if (ImGui::RadioButton(dt_mode_name(mode), mode == *s.dt_mode) && mode != *s.dt_mode) {
            change_.dt_mode = mode;
        }
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "raw: the measured interval between wakes; wake jitter moves the squares unevenly.\n"
            "paced: the pacer's Frame::dt_ns, the grid step while on time: even motion.\n"
            "fixed: fixed steps of the target period fed by dt_ns, drawn interpolated (alpha).\n"
            "The motion strip's spacing and dots show the steps; the trace's MsDt column holds them.");
    }

    // Where the loop waits.
    ImGui::TextUnformatted("wait");
    for (pacer::WaitPoint point : {pacer::WaitPoint::FrameStart, pacer::WaitPoint::BeforePresent}) {
        ImGui::SameLine();
        if (ImGui::RadioButton(pacer::wait_point_name(point), point == *s.wait_point) && point != *s.wait_point) {
            change_.wait_point = point;
        }
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(point == pacer::WaitPoint::FrameStart
                                  ? "wait -> input -> simulate -> render -> swap\n"
                                    "Lowest input latency: input is read just after the wake and shown\n"
                                    "one frame's work later; the work's jitter lands on the presents."
                                  : "input -> simulate -> render -> wait -> swap\n"
                                    "Steadiest presents: the swap follows the wake at once; what is\n"
                                    "shown was built a frame earlier (one frame more input latency).");
        }
    }
    const pacer::Frame* last = stats.size() > 0 ? &stats.at(stats.size() - 1) : nullptr;
    if (last) {
        ImGui::Text("predicted present: wake + %.2f ms", ms(last->predicted_present_ns - last->wake_ns));
    }
}

// The target rate: the presets, or any rate typed in.
void SettingsPanel::draw_rate_(Controls& controls) {
    const Settings& s = controls.current();
    static constexpr double kRates[] = {30, 60, 120, 144, 240};
    bool preset = false;
    for (double rate : kRates) {
        char label[16];
        std::snprintf(label, sizeof label, "%.0f", rate);
        if (rate != kRates[0]) ImGui::SameLine();
        const bool active = std::fabs(*s.hz - rate) < 1e-9;
        preset = preset || active;
        if (ImGui::RadioButton(label, active) && !active) {
            change_.hz = rate;
        }
    }
    ImGui::SameLine();
    ImGui::TextUnformatted("Hz");
    if (!preset) custom_hz_ = *s.hz;
    ImGui::SetNextItemWidth(120);
    ImGui::InputDouble("custom Hz", &custom_hz_, 0, 0, "%.2f");
    setting_tip("hz");
    if (ImGui::IsItemDeactivatedAfterEdit()) {
        change_.hz = custom_hz_;
    }
}

// Vsync: the user's choice, unless the strategy makes the pacer own it.
void SettingsPanel::draw_vsync_(Controls& controls, Window& window) {
    const Settings& s = controls.current();
    const bool owned = controls.pacer_owns_swap_interval();
    ImGui::BeginDisabled(owned);
    if (ImGui::BeginCombo("vsync", vsync_mode_name(*s.vsync))) {
        for (VsyncMode mode : {VsyncMode::Off, VsyncMode::On, VsyncMode::Adaptive}) {
            if (ImGui::Selectable(vsync_mode_name(mode), mode == *s.vsync)) {
                change_.vsync = mode;
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("vsync");
    ImGui::EndDisabled();
    const SwapIntervalState swap = window.swap_interval_state();
    ImGui::Text("window system: asked %d, %s", swap.requested, swap_answer_name(swap.answer));
    if (owned) ImGui::TextDisabled("strategy %s: the pacer asks for the swap interval", pacer::strategy_name(*s.strategy));
}

// display_lock's lead: auto (learned), fixed, or off; and what it does now.
void SettingsPanel::draw_display_lead_(Controls& controls, const pacer::WaitStatus& state) {
    const LeadSetting lead = *controls.current().display_lead;
    const char* kinds[] = {"off", "auto", "fixed"};
    const int kind = static_cast<int>(lead.kind);
    if (ImGui::BeginCombo("display lead", kinds[kind])) {
        for (int k = 0; k < 3; ++k) {
            if (ImGui::Selectable(kinds[k], k == kind)) {
                // A fixed lead starts from the one in force (or 8 ms).
                const double now_ms = state.display_lead_ns >= 0 ? static_cast<double>(state.display_lead_ns) * 1e-6 : 8;
                change_.display_lead = LeadSetting{static_cast<LeadSetting::Kind>(k), k == 2 ? now_ms : 0};
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("display_lead");
    if (lead.kind == LeadSetting::Kind::Fixed) {
        double ms_value = lead.ms;
        if (slider_released("lead (ms)", &ms_value, 0, 40, "%.1f")) {
            change_.display_lead = LeadSetting{LeadSetting::Kind::Fixed, ms_value};
        }
    }
    if (lead.kind == LeadSetting::Kind::Auto) {
        // The trade a player feels: fewer hitches, or less latency.
        double budget = *controls.current().hitches_per_1000;
        if (slider_released("hitches / 1000", &budget, 0.1, 100, "%.1f", ImGuiSliderFlags_Logarithmic))
            change_.hitches_per_1000 = budget;
        setting_tip("hitches_per_1000");
    }
    if (state.strategy == pacer::Strategy::DisplayLock) {
        ImGui::Text("locked to the display: 1 frame / %d refresh%s, lead %.2f ms", state.display_refreshes,
                    state.display_refreshes == 1 ? "" : "es", ms(state.display_lead_ns));
        if (state.display_work_tail_ns >= 0) {
            ImGui::Text("= work tail %.2f + latch %.2f + pad %.2f ms", ms(state.display_work_tail_ns),
                        ms(state.display_latch_ns), ms(state.display_pad_ns));
        }
        ImGui::Text("%lld of %lld frames missed their refresh", static_cast<long long>(state.display_missed),
                    static_cast<long long>(state.display_judged));
    } else {
        ImGui::TextDisabled("not locked to the display: no reports, or no fit yet");
    }
    if (state.display_refreshes_counted > 0) {
        ImGui::Text("hitches: %.2f per 1000 refreshes (%lld of %lld showed the frame before again)",
                    state.display_hitches_per_1000, static_cast<long long>(state.display_hitches),
                    static_cast<long long>(state.display_refreshes_counted));
    }
}

void SettingsPanel::draw_scheduler(Controls& controls) {
    draw_simulated_scheduler_(controls);
    ImGui::Separator();
    draw_timer_waits_(controls);
    ImGui::Separator();
    draw_thread_controls_(controls);
}

// The pacer's simulated scheduler, or the OS's.
void SettingsPanel::draw_simulated_scheduler_(Controls& controls) {
    const Settings& s = controls.current();
    const bool simulated = *s.sched_period_ms > 0;
    if (ImGui::RadioButton("OS scheduler", !simulated) && simulated) change_.sched_period_ms = 0;
    ImGui::SameLine();
    if (ImGui::RadioButton("simulated tick", simulated) && !simulated) change_.sched_period_ms = 15.625;   // Windows' default
    if (simulated) {
        double period_ms = *s.sched_period_ms;
        if (slider_released("period (ms)", &period_ms, 1, 16, "%.3f")) change_.sched_period_ms = period_ms;
        setting_tip("sched_period_ms");
        double probability = *s.preempt_prob;
        if (slider_released("preempt prob.", &probability, 0, 0.9, "%.2f")) change_.preempt_prob = probability;
        setting_tip("preempt_prob");
        ImGui::Text("%lld preemptions so far", static_cast<long long>(controls.preemptions()));
    }
}

// What the high-resolution timer waits run with (pacer::OsSleeper's
// Options): the slack for each wait, the slice from the first wait until the
// sleeper goes. Unticked: -1, the thread's own; ticked again: the library's
// default.
void SettingsPanel::draw_timer_waits_(Controls& controls) {
    const Settings& s = controls.current();
    ImGui::TextDisabled("timer waits (slack: each wait; slice: held while pacing)");
    const Settings& library = default_settings();
    int64_t changed_ns = 0;
    if (optional_duration("wait slack (ns)", *s.wait_slack_ns, *library.wait_slack_ns, 1, 1, 100000,
                          "Linux fires a timer up to the thread's slack late (50 us unless set)\n"
                          "to batch wake-ups; 1 ns is the least it takes. Unticked: the thread's own.",
                          &changed_ns)) {
        change_.wait_slack_ns = changed_ns;
    }
    if (optional_duration("wait slice (us)", *s.wait_slice_ns, *library.wait_slice_ns, 1e3, 100, 10000,
                          "Linux >= 6.12 (EEVDF): a thread that wakes with a short slice preempts\n"
                          "a busy neighbour at once instead of waiting for its turn (3-4 ms).\n"
                          "The kernel clamps to [100, 100000] us. Unticked: the thread's own.",
                          &changed_ns)) {
        change_.wait_slice_ns = changed_ns;
    }
    // What the waits got (or why not), once a timer wait has run.
    ImGui::TextWrapped("sleeper: %s", controls.sleeper_description().c_str());
}

// The pacing thread's OS controls (pacer::ThreadTiming). 0 leaves each
// alone; a change restores the previous ones first.
void SettingsPanel::draw_thread_controls_(Controls& controls) {
    const Settings& s = controls.current();
    ImGui::TextDisabled("the pacing thread's OS controls (0: leave)");
    double slack_us = static_cast<double>(*s.timer_slack_ns) * 1e-3;
    if (slider_released("timer slack (us)", &slack_us, 0, 1000, "%.3f", ImGuiSliderFlags_Logarithmic)) {
        change_.timer_slack_ns = std::llround(slack_us * 1e3);
    }
    double slice_us = *s.sched_slice_us;
    if (slider_released("sched slice (us)", &slice_us, 0, 10000, "%.0f", ImGuiSliderFlags_Logarithmic)) {
        change_.sched_slice_us = slice_us > 0 && slice_us < 100 ? 100 : slice_us;   // the kernel's minimum
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Linux >= 6.12 (EEVDF): a shorter slice lets the pacing thread's wakes\n"
                          "preempt busy threads sooner. Unprivileged. [100, 100000] us.");
    }
    int fifo = *s.fifo_priority;
    ImGui::SliderInt("SCHED_FIFO priority", &fifo, 0, 99);
    if (ImGui::IsItemDeactivatedAfterEdit()) change_.fifo_priority = fifo;
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Linux real-time priority: the thread runs before every normal thread.\n"
                          "Needs CAP_SYS_NICE or RLIMIT_RTPRIO, else refused (EPERM). 0: off.");
    }
    int nice = *s.nice;
    ImGui::SliderInt("nice", &nice, -20, 19);
    setting_tip("nice");
    if (ImGui::IsItemDeactivatedAfterEdit()) change_.nice = nice;
    int period_ms = *s.timer_period_ms;
    ImGui::SliderInt("timer period (ms)", &period_ms, 0, 16);
    if (ImGui::IsItemDeactivatedAfterEdit()) change_.timer_period_ms = period_ms;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Windows timeBeginPeriod (system-wide while held); unsupported elsewhere.");

    if (const pacer::ThreadTiming::Report* report = controls.thread_timing()) {
        ImGui::TextWrapped("in force: %s", thread_timing_text(*report, false).c_str());
        if (!report->refused.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "refused: %s", report->refused.c_str());
    } else {
        ImGui::TextDisabled("in force: the OS's defaults (nothing asked)");
    }
}

void SettingsPanel::draw_load(Controls& controls) {
    const Settings& s = controls.current();
    double value = *s.work_ms;
    if (slider_released("work (ms)", &value, 0, 50, "%.2f")) change_.work_ms = value;
    setting_tip("work_ms");
    value = *s.jitter_ms;
    if (slider_released("jitter +- (ms)", &value, 0, 20, "%.2f")) change_.jitter_ms = value;
    setting_tip("jitter_ms");
    value = *s.spike_ms;
    if (slider_released("spike (ms)", &value, 0, 200, "%.1f")) change_.spike_ms = value;
    setting_tip("spike_ms");
    int every = *s.spike_every;
    ImGui::SliderInt("spike every N", &every, 0, 600);
    setting_tip("spike_every");
    if (ImGui::IsItemDeactivatedAfterEdit()) change_.spike_every = every;
    int threads = *s.bg_threads;
    ImGui::SliderInt("background threads", &threads, 0, max_background_threads());
    setting_tip("bg_threads");
    if (ImGui::IsItemDeactivatedAfterEdit()) change_.bg_threads = threads;
    value = *s.duty;
    if (slider_released("duty cycle", &value, 0.05, 1, "%.2f")) change_.duty = value;
    setting_tip("duty");
    ImGui::Text("background threads running: %d", controls.load().running_background_threads());
}

}  // namespace pacer_demo
