// overlay.cpp: the ImGui panel.
#include "ui/overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>
#include <imgui_impl_opengl3.h>

namespace pacer_demo {
namespace {

// The graph's bar colours, in FrameClass order (render/scene.h, where the
// motion strip's dots use the same).
constexpr ImU32 kClassColours[] = {
    IM_COL32(80, 200, 90, 255),    // on time
    IM_COL32(90, 150, 240, 255),   // early
    IM_COL32(235, 200, 50, 255),   // late
    IM_COL32(230, 60, 50, 255),    // missed
};
constexpr ImU32 kDisplayLineColour = IM_COL32(240, 120, 240, 255);   // the display's intervals

ImU32 frame_colour(const pacer::Frame& frame, int64_t tolerance_ns) {
    return kClassColours[static_cast<int>(
        classify_interval(frame.interval_ns, frame.period_ns, frame.missed, tolerance_ns))];
}

// A double slider whose value is applied when the user lets go (or presses
// enter), so a drag does not remake the pacer on every frame. Returns true
// then, with the final value in *value.
bool slider_released(const char* label, double* value, double min, double max, const char* format,
                     ImGuiSliderFlags flags = 0) {
    ImGui::SliderScalar(label, ImGuiDataType_Double, value, &min, &max, format, flags);
    return ImGui::IsItemDeactivatedAfterEdit();
}

// The settings table's help for the control just drawn (core/settings.h), with
// the flag and scenario key that set the same thing.
void setting_tip(const char* key) {
    const SettingInfo* info = find_setting(key);
    if (info == nullptr || !ImGui::IsItemHovered()) return;
    ImGui::SetTooltip("%s\n%s, %s=", info->help, flag_of(*info).c_str(), info->key);
}

double ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

// A duration in ns that is either -1 ("leave the thread's own") or a value: a
// checkbox, then a logarithmic slider of the value in units of unit_ns, the
// pair as wide as one slider so that the labels line up. Returns true with
// *changed_ns set when the user changed it: -1 when unticked, on_ns when
// ticked, or the slider's value when released.
bool optional_duration(const char* label, int64_t current_ns, int64_t on_ns, double unit_ns, double min, double max,
                       const char* tooltip, int64_t* changed_ns) {
    ImGui::PushID(label);
    const bool was_on = current_ns > 0;
    bool on = was_on;
    bool changed = false;
    const float width = ImGui::CalcItemWidth();
    if (ImGui::Checkbox("##on", &on)) {
        *changed_ns = on ? on_ns : -1;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
    const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SameLine(0, spacing);
    ImGui::SetNextItemWidth(std::max(width - ImGui::GetFrameHeight() - spacing, 40.0f));
    ImGui::BeginDisabled(!was_on);
    double value = static_cast<double>(was_on ? current_ns : on_ns) / unit_ns;
    if (slider_released(label, &value, min, max, was_on ? "%.0f" : "the thread's own", ImGuiSliderFlags_Logarithmic) &&
        was_on && !changed) {
        *changed_ns = std::max<int64_t>(std::llround(value * unit_ns), 1);
        changed = true;
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tooltip);
    ImGui::PopID();
    return changed;
}

// A dark plot area the full width of the panel, reserved in the layout; the
// graphs draw into it.
struct PlotArea {
    ImVec2 origin;
    float width, height;
    ImDrawList* draw;
};
PlotArea plot_area(const char* id, float height) {
    const PlotArea area{ImGui::GetCursorScreenPos(), ImGui::GetContentRegionAvail().x, height,
                        ImGui::GetWindowDrawList()};
    ImGui::InvisibleButton(id, ImVec2(area.width, height));
    area.draw->AddRectFilled(area.origin, ImVec2(area.origin.x + area.width, area.origin.y + height),
                             IM_COL32(16, 16, 20, 255));
    return area;
}

}  // namespace

ImGuiLayer::ImGuiLayer(Window& window) : window_(window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;   // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    window_.imgui_init();
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

ImGuiLayer::~ImGuiLayer() {
    ImGui_ImplOpenGL3_Shutdown();
    window_.imgui_shutdown();
    ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    window_.imgui_new_frame();
    ImGui::NewFrame();
}

void ImGuiLayer::end_frame() {
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

float Overlay::panel_width_px(float window_width_px) {
    return std::clamp(std::round(window_width_px * 0.35f), 280.0f, 440.0f);
}

void Overlay::apply_(Controls&, const Settings& changes) { last_error_ = (*change_)(changes, "ui"); }

void Overlay::draw(Controls& controls, const View& view) {
    change_ = view.change;
    ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(view.stage.x, io.DisplaySize.y), ImGuiCond_Always);   // stage_for's panel
    ImGui::SetNextWindowBgAlpha(1.0f);   // opaque: cheaper for a software rasteriser
    ImGui::Begin("pacer", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    ImGui::PushTextWrapPos(0);   // every line wraps: the panel is 280 px wide in a small window
    draw_status_(controls, view);
    if (ImGui::CollapsingHeader("Frame times", ImGuiTreeNodeFlags_DefaultOpen)) draw_frame_graph_(view);
    if (ImGui::CollapsingHeader("Histogram of intervals", ImGuiTreeNodeFlags_DefaultOpen)) draw_histogram_(view);
    if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) draw_stats_(view);
    if (ImGui::CollapsingHeader("Pacing", ImGuiTreeNodeFlags_DefaultOpen)) draw_pacing_(controls, view);
    if (ImGui::CollapsingHeader("Scheduler", ImGuiTreeNodeFlags_DefaultOpen)) draw_scheduler_(controls);
    if (ImGui::CollapsingHeader("Synthetic load", ImGuiTreeNodeFlags_DefaultOpen)) draw_load_(controls);
    ImGui::PopTextWrapPos();
    ImGui::End();
    draw_scene_labels_(view);
}

void Overlay::draw_status_(Controls& controls, const View& view) {
    const Settings& s = controls.current();
    const pacer::WaitStatus state = view.pacer->status();
    const double refresh = view.window->refresh_rate_hz();
    ImGui::Text("%s | %s", backend_name(view.window->backend()), view.gl_renderer->c_str());
    if (refresh > 0) {
        ImGui::Text("refresh %.2f Hz", refresh);
    } else {
        ImGui::Text("refresh unknown (the window system says 0 Hz)");
    }
    const SwapIntervalState swap = view.window->swap_interval_state();
    ImGui::Text("swap interval: last asked %d, %s%s", swap.requested, swap_answer_name(swap.answer),
                controls.pacer_owns_swap_interval() ? " (the pacer asks)" : "");
    ImGui::Text("strategy %s -> in force: %s", pacer::strategy_name(*s.strategy),
                pacer::strategy_name(state.strategy));
    const pacer::Decision& decision = view.pacer->decision();
    ImGui::TextWrapped("decision #%d: %s", static_cast<int>(decision.seq), decision.reason.c_str());
    if (!last_error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", last_error_.c_str());
}

void Overlay::draw_frame_graph_(const View& view) {
    if (ImGui::Button(paused_ ? "Resume" : "Pause")) {
        paused_ = !paused_;
        paused_frames_.clear();
        if (paused_) {
            for (std::size_t i = 0; i < view.stats->size(); ++i) paused_frames_.push_back(view.stats->at(i));
        }
    }
    // The legend, wrapped where the panel is narrow.
    auto legend = [](const ImVec4& colour, const char* text) {
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(text).x) ImGui::NewLine();
        ImGui::TextColored(colour, "%s", text);
    };
    legend(ImVec4(0.31f, 0.78f, 0.35f, 1), "on time");
    legend(ImVec4(0.92f, 0.78f, 0.2f, 1), "late");
    legend(ImVec4(0.9f, 0.24f, 0.2f, 1), "missed");
    legend(ImVec4(0.35f, 0.59f, 0.94f, 1), "early");
    legend(ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], "(+-0.5 ms)");

    std::vector<pacer::Frame> live;
    if (!paused_) {
        const std::size_t n = view.stats->size();
        for (std::size_t i = n > kGraphFrames ? n - kGraphFrames : 0; i < n; ++i) live.push_back(view.stats->at(i));
    }
    const std::vector<pacer::Frame>& all = paused_ ? paused_frames_ : live;
    const std::size_t first = all.size() > kGraphFrames ? all.size() - kGraphFrames : 0;

    const PlotArea area = plot_area("frame graph", 110);
    const ImVec2 origin = area.origin;
    const float width = area.width, height = area.height;
    ImDrawList* draw = area.draw;

    const double period_ms = all.empty() ? 1000.0 / 60 : ms(all.back().period_ns);
    // The scale follows the data: from 2x the target (the target line at
    // mid-height) up to kMaxScale x, so that one long stall does not flatten
    // every other bar. Bars past it are clipped, capped with a white tick
    // and counted in the label.
    constexpr double kMaxScale = 8;
    double worst_ms = 0;
    for (std::size_t i = first; i < all.size(); ++i) {
        if (all[i].index > 0) worst_ms = std::max(worst_ms, ms(all[i].interval_ns));
    }
    const double scale_ms = std::clamp(worst_ms * 1.1, 2 * period_ms, kMaxScale * period_ms);
    const float bar_width = width / kGraphFrames;
    int clipped = 0;
    for (std::size_t i = first; i < all.size(); ++i) {
        const pacer::Frame& frame = all[i];
        if (frame.index == 0) continue;   // no interval yet
        const double fraction = ms(frame.interval_ns) / scale_ms;
        const float x = origin.x + static_cast<float>(i - first) * bar_width;
        const float bar_right = x + std::max(bar_width - 1, 1.0f);
        draw->AddRectFilled(ImVec2(x, origin.y + height * static_cast<float>(1 - std::min(fraction, 1.0))),
                            ImVec2(bar_right, origin.y + height), frame_colour(frame, view.stats->off_tolerance_ns()));
        if (fraction > 1) {
            ++clipped;
            draw->AddRectFilled(ImVec2(x - 1, origin.y), ImVec2(bar_right + 1, origin.y + 4), IM_COL32(255, 255, 255, 255));
        }
    }
    // The display's own intervals, where it reports what it showed
    // (wp_presentation): a line over the wake bars, one point per shown frame
    // at the wait that learnt of it. Wake bars even and this line uneven (or
    // the reverse) is what swap returns alone cannot show.
    std::vector<ImVec2> shown;
    int64_t previous_shown_ns = -1;
    for (std::size_t i = first; i < all.size(); ++i) {
        const pacer::Frame& frame = all[i];
        if (frame.displayed_ns < 0) continue;
        if (previous_shown_ns >= 0 && frame.displayed_ns > previous_shown_ns) {
            const double fraction = std::min(ms(frame.displayed_ns - previous_shown_ns) / scale_ms, 1.0);
            shown.emplace_back(origin.x + (static_cast<float>(i - first) + 0.5f) * bar_width,
                               origin.y + height * static_cast<float>(1 - fraction));
        }
        previous_shown_ns = frame.displayed_ns;
    }
    if (shown.size() >= 2)
        draw->AddPolyline(shown.data(), static_cast<int>(shown.size()), kDisplayLineColour, ImDrawFlags_None, 2.0f);
    const float target_y = origin.y + height * static_cast<float>(1 - period_ms / scale_ms);
    draw->AddLine(ImVec2(origin.x, target_y), ImVec2(origin.x + width, target_y), IM_COL32(255, 255, 255, 200));
    // Labels at the right, on a dark backing so they read over the bars.
    auto label = [&](float y, ImU32 colour, const char* format, double value) {
        char text[64];
        std::snprintf(text, sizeof text, format, value);
        const ImVec2 size = ImGui::CalcTextSize(text);
        const ImVec2 at(origin.x + width - size.x - 4, y);
        draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y), IM_COL32(16, 16, 20, 200));
        draw->AddText(at, colour, text);
    };
    label(target_y - ImGui::GetTextLineHeight() - 1, IM_COL32(255, 255, 255, 230), "target %.2f ms", period_ms);
    label(origin.y + 2, IM_COL32(200, 200, 200, 220), "%.1f ms", scale_ms);
    if (clipped > 0) {
        ImGui::TextColored(ImVec4(1, 1, 1, 1), "%d bar%s clipped (white cap), worst %.1f ms", clipped,
                           clipped == 1 ? "" : "s", worst_ms);
    }
    if (shown.size() >= 2) {
        ImGui::TextColored(ImColor(kDisplayLineColour).Value, "line: between frames on screen");
        ImGui::SameLine();
        ImGui::TextDisabled("bars: between wakes");
    } else {
        ImGui::TextDisabled("bars: between wakes (no display feedback)");
    }
}

void Overlay::draw_histogram_(const View& view) {
    const double period_us = view.stats->size() > 0
                                 ? static_cast<double>(view.stats->at(view.stats->size() - 1).period_ns) * 1e-3
                                 : 1e6 / 60;
    // Bins up to 2x the target, then one overflow bin (red) for all longer
    // intervals: a 100 ms stall is counted, not dropped.
    constexpr int kBins = 48;
    const double top_us = 2 * period_us;
    std::vector<pacer::HistogramBin> bins = view.stats->interval_histogram(0, top_us / kBins, kBins);
    const int64_t over = view.stats->interval_histogram(top_us, 1e12, 1)[0].count;
    int64_t tallest = over;
    for (const pacer::HistogramBin& bin : bins) tallest = std::max(tallest, bin.count);

    const PlotArea area = plot_area("histogram", 60);
    const ImVec2 origin = area.origin;
    const float width = area.width, height = area.height;
    ImDrawList* draw = area.draw;
    const float slot = width / (kBins + 2);   // the bins, a gap, the overflow bin
    auto bar = [&](int at, int64_t count, ImU32 colour) {
        if (count == 0 || tallest == 0) return;
        const float h = std::max(2.0f, (height - 2) * static_cast<float>(count) / static_cast<float>(tallest));
        const float x = origin.x + static_cast<float>(at) * slot;
        draw->AddRectFilled(ImVec2(x, origin.y + height - h), ImVec2(x + std::max(slot - 1, 1.0f), origin.y + height),
                            colour);
    };
    for (int b = 0; b < kBins; ++b) bar(b, bins[static_cast<std::size_t>(b)].count, IM_COL32(235, 200, 50, 255));
    bar(kBins + 1, over, kClassColours[static_cast<int>(FrameClass::Missed)]);
    const float target_x = origin.x + slot * kBins / 2;
    draw->AddLine(ImVec2(target_x, origin.y), ImVec2(target_x, origin.y + height), IM_COL32(255, 255, 255, 120));
    // The caption under the bars, where it hides none of them.
    ImGui::TextDisabled("0 .. %.1f ms (2x target, line: target)", top_us * 1e-3);
    ImGui::SameLine();
    if (over > 0) {
        ImGui::TextColored(ImVec4(0.9f, 0.24f, 0.2f, 1), "longer: %lld", static_cast<long long>(over));
    } else {
        ImGui::TextDisabled("longer: 0");
    }
}

void Overlay::draw_stats_(const View& view) {
    const pacer::Summary s = view.stats->summarize();
    if (ImGui::Button("Reset")) view.pacer->reset_stats();
    ImGui::SameLine();
    ImGui::Text("last %lld frames, %.1f fps", static_cast<long long>(s.frames), s.fps);
    if (!ImGui::BeginTable("stats", 4, ImGuiTableFlags_SizingStretchSame)) return;
    auto cell = [](const char* name, const char* format, double value) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::Text(format, value);
    };
    cell("mean", "%.3f ms", s.interval.mean_us * 1e-3);
    cell("sigma", "%.3f ms", s.interval.sd_us * 1e-3);
    cell("p50", "%.3f ms", s.interval.p50_us * 1e-3);
    cell("p99", "%.3f ms", s.interval.p99_us * 1e-3);
    cell("max", "%.3f ms", s.interval.max_us * 1e-3);
    cell("off >0.5ms", "%.2f %%", s.off_pct);
    cell("missed", "%.0f", static_cast<double>(s.missed));
    cell("err p99", "%.3f ms", s.interval_error.p99_us * 1e-3);
    if (s.cpu_pct >= 0) {
        cell("CPU waiting", "%.1f %%", s.cpu_pct);
    } else {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("CPU waiting");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("unknown");
    }
    cell("spin", "%.1f %%", s.spin_pct);
    ImGui::EndTable();
}

// display_lock's lead: auto (learned), fixed, or off; and what it does now.
void Overlay::draw_display_lead_(Controls& controls, const pacer::WaitStatus& state) {
    const LeadSetting lead = *controls.current().display_lead;
    const char* kinds[] = {"off", "auto", "fixed"};
    const int kind = static_cast<int>(lead.kind);
    if (ImGui::BeginCombo("display lead", kinds[kind])) {
        for (int k = 0; k < 3; ++k) {
            if (ImGui::Selectable(kinds[k], k == kind)) {
                Settings change;
                // A fixed lead starts from the one in force (or 8 ms).
                const double now_ms = state.display_lead_ns >= 0 ? static_cast<double>(state.display_lead_ns) * 1e-6 : 8;
                change.display_lead = LeadSetting{static_cast<LeadSetting::Kind>(k), k == 2 ? now_ms : 0};
                apply_(controls, change);
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("display_lead");
    if (lead.kind == LeadSetting::Kind::Fixed) {
        double ms_value = lead.ms;
        if (slider_released("lead (ms)", &ms_value, 0, 40, "%.1f")) {
            Settings change;
            change.display_lead = LeadSetting{LeadSetting::Kind::Fixed, ms_value};
            apply_(controls, change);
        }
    }
    if (state.strategy == pacer::Strategy::DisplayLock) {
        const double missed_pct = state.display_judged == 0 ? 0.0
                                                            : 100.0 * static_cast<double>(state.display_missed) /
                                                                  static_cast<double>(state.display_judged);
        ImGui::Text("locked to the display: 1 frame / %d refresh%s, lead %.2f ms", state.display_refreshes,
                    state.display_refreshes == 1 ? "" : "es", static_cast<double>(state.display_lead_ns) * 1e-6);
        ImGui::Text("missed their refresh: %lld of %lld (%.2f %%)", static_cast<long long>(state.display_missed),
                    static_cast<long long>(state.display_judged), missed_pct);
    } else {
        ImGui::TextDisabled("not locked to the display: no reports, or no fit yet");
    }
}

void Overlay::draw_pacing_(Controls& controls, const View& view) {
    const Settings& s = controls.current();
    const pacer::WaitStatus state = view.pacer->status();

    if (ImGui::BeginCombo("strategy", pacer::strategy_name(*s.strategy))) {
        for (pacer::Strategy strategy : pacer::kAllStrategies) {
            if (ImGui::Selectable(pacer::strategy_name(strategy), strategy == *s.strategy)) {
                Settings change;
                change.strategy = strategy;
                apply_(controls, change);
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("strategy");
    switch (*s.strategy) {
        case pacer::Strategy::PreciseSleep: {
            double k = *s.precise_k;
            if (slider_released("k (mean + k sigma)", &k, 0.1, 5, "%.2f")) {
                Settings change;
                change.precise_k = k;
                apply_(controls, change);
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
                Settings change;
                change.robust_tolerance_us = tolerance;
                apply_(controls, change);
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
                Settings change;
                change.timer_margin_us = margin;
                apply_(controls, change);
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

    // Contention: what the timer measured on the last wait (pacer.h: a
    // contended thread sleeps in short steps and does not spin; the margin in
    // force is shown with the timer's controls above). Only the timer
    // measures it: other strategies show nothing rather than "no".
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

    // The engine's clock: what moves the scene.
    ImGui::TextUnformatted("dt");
    for (DtMode mode : {DtMode::Raw, DtMode::Paced, DtMode::Fixed}) {
        ImGui::SameLine();
        if (ImGui::RadioButton(dt_mode_name(mode), mode == *s.dt_mode) && mode != *s.dt_mode) {
            Settings change;
            change.dt_mode = mode;
            apply_(controls, change);
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
            Settings change;
            change.wait_point = point;
            apply_(controls, change);
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
    const pacer::Frame* last = view.stats->size() > 0 ? &view.stats->at(view.stats->size() - 1) : nullptr;
    if (last) {
        ImGui::Text("predicted present: wake + %.2f ms", ms(last->predicted_present_ns - last->wake_ns));
    }

    // Target rate.
    static constexpr double kRates[] = {30, 60, 120, 144, 240};
    bool preset = false;
    for (double rate : kRates) {
        char label[16];
        std::snprintf(label, sizeof label, "%.0f", rate);
        if (rate != kRates[0]) ImGui::SameLine();
        const bool active = std::fabs(*s.hz - rate) < 1e-9;
        preset = preset || active;
        if (ImGui::RadioButton(label, active) && !active) {
            Settings change;
            change.hz = rate;
            apply_(controls, change);
        }
    }
    ImGui::SameLine();
    ImGui::TextUnformatted("Hz");
    if (!preset) custom_hz_ = *s.hz;
    ImGui::SetNextItemWidth(120);
    ImGui::InputDouble("custom Hz", &custom_hz_, 0, 0, "%.2f");
    setting_tip("hz");
    if (ImGui::IsItemDeactivatedAfterEdit()) {
        Settings change;
        change.hz = custom_hz_;
        apply_(controls, change);
    }

    // Vsync: the user's choice, unless the strategy makes the pacer own it.
    const bool owned = controls.pacer_owns_swap_interval();
    ImGui::BeginDisabled(owned);
    if (ImGui::BeginCombo("vsync", vsync_mode_name(*s.vsync))) {
        for (VsyncMode mode : {VsyncMode::Off, VsyncMode::On, VsyncMode::Adaptive}) {
            if (ImGui::Selectable(vsync_mode_name(mode), mode == *s.vsync)) {
                Settings change;
                change.vsync = mode;
                apply_(controls, change);
            }
        }
        ImGui::EndCombo();
    }
    setting_tip("vsync");
    ImGui::EndDisabled();
    const SwapIntervalState swap = view.window->swap_interval_state();
    ImGui::Text("window system: asked %d, %s", swap.requested, swap_answer_name(swap.answer));
    if (owned) ImGui::TextDisabled("strategy %s: the pacer asks for the swap interval", pacer::strategy_name(*s.strategy));
}

void Overlay::draw_scheduler_(Controls& controls) {
    const Settings& s = controls.current();
    Settings change;

    // The pacer's simulated scheduler, or the OS's.
    const bool simulated = *s.sched_period_ms > 0;
    if (ImGui::RadioButton("OS scheduler", !simulated) && simulated) change.sched_period_ms = 0;
    ImGui::SameLine();
    if (ImGui::RadioButton("simulated tick", simulated) && !simulated) change.sched_period_ms = 15.625;   // Windows' default
    if (simulated) {
        double period_ms = *s.sched_period_ms;
        if (slider_released("period (ms)", &period_ms, 1, 16, "%.3f")) change.sched_period_ms = period_ms;
        setting_tip("sched_period_ms");
        double probability = *s.preempt_prob;
        if (slider_released("preempt prob.", &probability, 0, 0.9, "%.2f")) change.preempt_prob = probability;
        setting_tip("preempt_prob");
        ImGui::Text("%lld preemptions so far", static_cast<long long>(controls.preemptions()));
    }

    // What the high-resolution timer waits run with (pacer::OsSleeper's
    // Options): the slack for each wait, the slice from the first wait until
    // the sleeper goes. Unticked: -1, the thread's own; ticked again: the
    // library's default.
    ImGui::Separator();
    ImGui::TextDisabled("timer waits (slack: each wait; slice: held while pacing)");
    const Settings& library = default_settings();
    int64_t changed_ns = 0;
    if (optional_duration("wait slack (ns)", *s.wait_slack_ns, *library.wait_slack_ns, 1, 1, 100000,
                          "Linux fires a timer up to the thread's slack late (50 us unless set)\n"
                          "to batch wake-ups; 1 ns is the least it takes. Unticked: the thread's own.",
                          &changed_ns)) {
        change.wait_slack_ns = changed_ns;
    }
    if (optional_duration("wait slice (us)", *s.wait_slice_ns, *library.wait_slice_ns, 1e3, 100, 10000,
                          "Linux >= 6.12 (EEVDF): a thread that wakes with a short slice preempts\n"
                          "a busy neighbour at once instead of waiting for its turn (3-4 ms).\n"
                          "The kernel clamps to [100, 100000] us. Unticked: the thread's own.",
                          &changed_ns)) {
        change.wait_slice_ns = changed_ns;
    }
    // What the waits got (or why not), once a timer wait has run.
    ImGui::TextWrapped("sleeper: %s", controls.sleeper_description().c_str());

    // The pacing thread's OS controls (pacer::ThreadTiming). 0 leaves each
    // alone; a change restores the previous ones first.
    ImGui::Separator();
    ImGui::TextDisabled("the pacing thread's OS controls (0: leave)");
    double slack_us = static_cast<double>(*s.timer_slack_ns) * 1e-3;
    if (slider_released("timer slack (us)", &slack_us, 0, 1000, "%.3f", ImGuiSliderFlags_Logarithmic)) {
        change.timer_slack_ns = std::llround(slack_us * 1e3);
    }
    double slice_us = *s.sched_slice_us;
    if (slider_released("sched slice (us)", &slice_us, 0, 10000, "%.0f", ImGuiSliderFlags_Logarithmic)) {
        change.sched_slice_us = slice_us > 0 && slice_us < 100 ? 100 : slice_us;   // the kernel's minimum
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Linux >= 6.12 (EEVDF): a shorter slice lets the pacing thread's wakes\n"
                          "preempt busy threads sooner. Unprivileged. [100, 100000] us.");
    }
    int fifo = *s.fifo_priority;
    ImGui::SliderInt("SCHED_FIFO priority", &fifo, 0, 99);
    if (ImGui::IsItemDeactivatedAfterEdit()) change.fifo_priority = fifo;
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Linux real-time priority: the thread runs before every normal thread.\n"
                          "Needs CAP_SYS_NICE or RLIMIT_RTPRIO, else refused (EPERM). 0: off.");
    }
    int nice = *s.nice;
    ImGui::SliderInt("nice", &nice, -20, 19);
    setting_tip("nice");
    if (ImGui::IsItemDeactivatedAfterEdit()) change.nice = nice;
    int period_ms = *s.timer_period_ms;
    ImGui::SliderInt("timer period (ms)", &period_ms, 0, 16);
    if (ImGui::IsItemDeactivatedAfterEdit()) change.timer_period_ms = period_ms;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Windows timeBeginPeriod (system-wide while held); unsupported elsewhere.");

    if (const pacer::ThreadTiming::Report* report = controls.thread_timing()) {
        ImGui::TextWrapped("in force: %s", thread_timing_text(*report, false).c_str());
        if (!report->refused.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "refused: %s", report->refused.c_str());
    } else {
        ImGui::TextDisabled("in force: the OS's defaults (nothing asked)");
    }
    if (!change.empty()) apply_(controls, change);
}

void Overlay::draw_load_(Controls& controls) {
    const Settings& s = controls.current();
    Settings change;
    double value = *s.work_ms;
    if (slider_released("work (ms)", &value, 0, 50, "%.2f")) change.work_ms = value;
    setting_tip("work_ms");
    value = *s.jitter_ms;
    if (slider_released("jitter +- (ms)", &value, 0, 20, "%.2f")) change.jitter_ms = value;
    setting_tip("jitter_ms");
    value = *s.spike_ms;
    if (slider_released("spike (ms)", &value, 0, 200, "%.1f")) change.spike_ms = value;
    setting_tip("spike_ms");
    int every = *s.spike_every;
    ImGui::SliderInt("spike every N", &every, 0, 600);
    setting_tip("spike_every");
    if (ImGui::IsItemDeactivatedAfterEdit()) change.spike_every = every;
    int threads = *s.bg_threads;
    ImGui::SliderInt("background threads", &threads, 0, max_background_threads());
    setting_tip("bg_threads");
    if (ImGui::IsItemDeactivatedAfterEdit()) change.bg_threads = threads;
    value = *s.duty;
    if (slider_released("duty cycle", &value, 0.05, 1, "%.2f")) change.duty = value;
    setting_tip("duty");
    ImGui::Text("background threads running: %d", controls.load().running_background_threads());
    if (!change.empty()) apply_(controls, change);
}

void Overlay::draw_scene_labels_(const View& view) {
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    for (const MovingObject& object : view.scene->objects()) {
        const float y = view.stage.y + object.row_y * view.stage.height - ImGui::GetTextLineHeight() - 4;
        draw->AddText(ImVec2(view.stage.x + 8, y), IM_COL32(200, 200, 200, 255), object.name);
    }
    // The strip's caption, under it, where it fits the stage and clears the
    // next row's label; else none (demo/README.md explains the strip).
    const MovingObject& followed = view.scene->objects()[Scene::kTrailObject];
    const float caption_y = view.stage.y + followed.row_y * view.stage.height + followed.size_px + Scene::kStripGapPx +
                            Scene::kStripHeightPx + 4;
    const MovingObject& below = view.scene->objects()[Scene::kTrailObject + 1];
    const float below_label_y = view.stage.y + below.row_y * view.stage.height - ImGui::GetTextLineHeight() - 4;
    const int stride = Scene::strip_stride(view.pacer->config().target_hz);
    char caption[160];
    if (stride == 1) {
        std::snprintf(caption, sizeof caption, "motion strip - grey: even steps at the target rate; colour: the last %d frames",
                      Scene::kTrailFrames);
    } else {
        std::snprintf(caption, sizeof caption, "motion strip - grey: even steps; colour: every %d%s of the last %d frames",
                      stride, stride == 2 ? "nd" : stride == 3 ? "rd" : "th", Scene::kTrailFrames * stride);
    }
    if (caption_y + ImGui::GetTextLineHeight() <= below_label_y &&
        ImGui::CalcTextSize(caption).x + 16 <= view.stage.width) {
        draw->AddText(ImVec2(view.stage.x + 8, caption_y), IM_COL32(160, 160, 160, 255), caption);
    }
}

}  // namespace pacer_demo
