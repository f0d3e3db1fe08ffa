// frame_view.cpp: the overlay's read-only half (frame_view.h).
#include "ui/frame_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "ui/widgets.h"

#include <pacer/status.h>

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

// Labels at the right of a plot, on a dark backing so they read over the bars.
void plot_label(const PlotArea& area, float y, ImU32 colour, const char* format, double value) {
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    const ImVec2 size = ImGui::CalcTextSize(text);
    const ImVec2 at(area.origin.x + area.width - size.x - 4, y);
    area.draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y), IM_COL32(16, 16, 20, 200));
    area.draw->AddText(at, colour, text);
}

// The display's own intervals, where it reports what it showed
// (wp_presentation): a line over the bars, one point per shown frame at the
// wait that learnt of it. Returns the points drawn.
std::size_t draw_shown_line(const PlotArea& area, const std::vector<pacer::Frame>& frames, double scale_ms) {
    const float bar_width = area.width / FrameView::kGraphFrames;
    std::vector<ImVec2> shown;
    int64_t previous_shown_ns = -1;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const pacer::Frame& frame = frames[i];
        if (frame.displayed_ns < 0) continue;
        if (previous_shown_ns >= 0 && frame.displayed_ns > previous_shown_ns) {
            const double fraction = std::min(ms(frame.displayed_ns - previous_shown_ns) / scale_ms, 1.0);
            shown.emplace_back(area.origin.x + (static_cast<float>(i) + 0.5f) * bar_width,
                               area.origin.y + area.height * static_cast<float>(1 - fraction));
        }
        previous_shown_ns = frame.displayed_ns;
    }
    if (shown.size() >= 2)
        area.draw->AddPolyline(shown.data(), static_cast<int>(shown.size()), kDisplayLineColour, ImDrawFlags_None, 2.0f);
    return shown.size();
}

}  // namespace

std::vector<FrameView::Bar> FrameView::bars_of(const std::vector<pacer::Frame>& frames, bool* presents) {
    std::vector<Bar> bars(frames.size());
    *presents = false;
    for (std::size_t i = 1; i < frames.size(); ++i) {
        Bar& bar = bars[i];
        if (pacer::present_interval(frames[i - 1], frames[i], &bar.interval_ns, &bar.period_ns)) *presents = true;
    }
    if (*presents) return bars;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (frames[i].index > 0) bars[i] = {frames[i].interval_ns, frames[i].period_ns, frames[i].missed};
    }
    return bars;
}

void FrameView::draw_status(const Controls& controls, const OverlayView& view, const std::string& last_error) {
    const Settings& s = controls.current();
    const pacer::WaitStatus state = view.pacer->status();
    const double refresh = view.window->refresh_rate_hz();
    const std::string& server = view.window->display_server();
    ImGui::Text("%s%s%s | %s", backend_name(view.window->backend()), server.empty() ? "" : " on ", server.c_str(),
                view.gl_renderer->c_str());
    if (refresh > 0) {
        ImGui::Text("refresh %.2f Hz", refresh);
    } else {
        ImGui::Text("refresh unknown (the window system says 0 Hz)");
    }
    const SwapIntervalState swap = view.window->swap_interval_state();
    ImGui::Text("swap interval: last asked %d, %s%s", swap.requested, swap_answer_name(swap.answer),
                controls.pacer_owns_swap_interval() ? " (the pacer asks)" : "");
    const std::size_t frames = view.stats->size();
    const int64_t period_ns = frames > 0 ? view.stats->at(frames - 1).period_ns : 0;
    ImGui::Text("strategy %s -> in force: %s at %.2f Hz", pacer::strategy_name(*s.strategy),
                pacer::strategy_name(state.strategy), period_ns > 0 ? 1e9 / static_cast<double>(period_ns) : *s.hz);
    const pacer::Decision& decision = view.pacer->decision();
    // The window's state and the rate paced at, with the VRR range and cap
    // where the display waits for frames.
    ImGui::Text("window %s, paced at %.2f Hz", pacer::window_state_name(decision.window), decision.pace_hz);
    if (decision.vrr) {
        ImGui::SameLine();
        if (decision.vrr_max_hz > 0) {
            ImGui::Text("| VRR %.0f-%.0f Hz, cap %.2f Hz", decision.vrr_min_hz, decision.vrr_max_hz, decision.vrr_cap_hz);
        } else {
            ImGui::TextUnformatted("| VRR, range unknown");
        }
    }
    ImGui::TextWrapped("decision #%d: %s", static_cast<int>(decision.seq), decision.reason.c_str());
    if (!last_error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", last_error.c_str());
}

// The newest kGraphFrames frames, or the ones held by Pause.
std::vector<pacer::Frame> FrameView::graph_frames_(const pacer::Stats& stats) const {
    if (paused_) return paused_frames_;
    std::vector<pacer::Frame> frames;
    const std::size_t n = stats.size();
    for (std::size_t i = n > kGraphFrames ? n - kGraphFrames : 0; i < n; ++i) frames.push_back(stats.at(i));
    return frames;
}

void FrameView::draw_graph(const OverlayView& view) {
    if (ImGui::Button(paused_ ? "Resume" : "Pause")) {
        paused_frames_ = paused_ ? std::vector<pacer::Frame>{} : graph_frames_(*view.stats);
        paused_ = !paused_;
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

    const std::vector<pacer::Frame> frames = graph_frames_(*view.stats);
    bool presents = false;
    const std::vector<Bar> bars = bars_of(frames, &presents);
    const PlotArea area = plot_area("frame graph", 110);
    const double period_ms = frames.empty() ? 1000.0 / 60 : ms(frames.back().period_ns);
    // The scale follows the data: from 2x the target (the target line at
    // mid-height) up to kMaxScale x, so that one long stall does not flatten
    // every other bar. Bars past it are clipped, capped with a white tick
    // and counted in the label.
    constexpr double kMaxScale = 8;
    double worst_ms = 0;
    for (const Bar& bar : bars) worst_ms = std::max(worst_ms, ms(bar.interval_ns));
    const double scale_ms = std::clamp(worst_ms * 1.1, 2 * period_ms, kMaxScale * period_ms);
    const float bar_width = area.width / kGraphFrames;
    int clipped = 0;
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& bar = bars[i];
        if (bar.interval_ns < 0) continue;
        const double fraction = ms(bar.interval_ns) / scale_ms;
        const float x = area.origin.x + static_cast<float>(i) * bar_width;
        const float right = x + std::max(bar_width - 1, 1.0f);
        const auto kind = classify_interval(bar.interval_ns, bar.period_ns, bar.missed, view.stats->off_tolerance_ns());
        area.draw->AddRectFilled(ImVec2(x, area.origin.y + area.height * static_cast<float>(1 - std::min(fraction, 1.0))),
                                 ImVec2(right, area.origin.y + area.height), kClassColours[static_cast<int>(kind)]);
        if (fraction > 1) {
            ++clipped;
            area.draw->AddRectFilled(ImVec2(x - 1, area.origin.y), ImVec2(right + 1, area.origin.y + 4), IM_COL32(255, 255, 255, 255));
        }
    }
    const std::size_t shown = draw_shown_line(area, frames, scale_ms);
    const float target_y = area.origin.y + area.height * static_cast<float>(1 - period_ms / scale_ms);
    area.draw->AddLine(ImVec2(area.origin.x, target_y), ImVec2(area.origin.x + area.width, target_y), IM_COL32(255, 255, 255, 200));
    plot_label(area, target_y - ImGui::GetTextLineHeight() - 1, IM_COL32(255, 255, 255, 230), "target %.2f ms", period_ms);
    plot_label(area, area.origin.y + 2, IM_COL32(200, 200, 200, 220), "%.1f ms", scale_ms);
    if (clipped > 0) {
        ImGui::TextColored(ImVec4(1, 1, 1, 1), "%d bar%s clipped (white cap), worst %.1f ms", clipped,
                           clipped == 1 ? "" : "s", worst_ms);
    }
    ImGui::TextDisabled(presents ? "bars: between presents (swap to swap)" : "bars: between wakes (no present marked)");
    if (shown >= 2) ImGui::TextColored(ImColor(kDisplayLineColour).Value, "line: between frames on screen");
}

void FrameView::draw_histogram(const OverlayView& view) {
    const std::vector<pacer::Frame> frames = graph_frames_(*view.stats);
    bool presents = false;
    const std::vector<Bar> bars = bars_of(frames, &presents);
    const double period_ms = frames.empty() ? 1000.0 / 60 : ms(frames.back().period_ns);
    // Bins up to 2x the target, then one overflow bin (red) for all longer
    // intervals: a 100 ms stall is counted, not dropped.
    constexpr int kBins = 48;
    std::vector<int64_t> counts(kBins + 1, 0);   // the last: longer
    for (const Bar& bar : bars) {
        if (bar.interval_ns < 0) continue;
        const int bin = static_cast<int>(std::floor(ms(bar.interval_ns) / (2 * period_ms) * kBins));
        ++counts[static_cast<std::size_t>(std::clamp(bin, 0, kBins))];
    }
    const int64_t tallest = *std::max_element(counts.begin(), counts.end());
    const PlotArea area = plot_area("histogram", 60);
    const float slot = area.width / (kBins + 2);   // the bins, a gap, the overflow bin
    auto bar = [&](int at, int64_t count, ImU32 colour) {
        if (count == 0 || tallest == 0) return;
        const float h = std::max(2.0f, (area.height - 2) * static_cast<float>(count) / static_cast<float>(tallest));
        const float x = area.origin.x + static_cast<float>(at) * slot;
        area.draw->AddRectFilled(ImVec2(x, area.origin.y + area.height - h),
                                 ImVec2(x + std::max(slot - 1, 1.0f), area.origin.y + area.height), colour);
    };
    for (int b = 0; b < kBins; ++b) bar(b, counts[static_cast<std::size_t>(b)], IM_COL32(235, 200, 50, 255));
    bar(kBins + 1, counts[kBins], kClassColours[static_cast<int>(FrameClass::Missed)]);
    const float target_x = area.origin.x + slot * kBins / 2;
    area.draw->AddLine(ImVec2(target_x, area.origin.y), ImVec2(target_x, area.origin.y + area.height), IM_COL32(255, 255, 255, 120));
    // The caption under the bars, where it hides none of them.
    ImGui::TextDisabled("%s 0 .. %.1f ms (2x target, line: target)", presents ? "presents" : "wakes", 2 * period_ms);
    ImGui::SameLine();
    if (counts[kBins] > 0) {
        ImGui::TextColored(ImVec4(0.9f, 0.24f, 0.2f, 1), "longer: %lld", static_cast<long long>(counts[kBins]));
    } else {
        ImGui::TextDisabled("longer: 0");
    }
}

bool FrameView::draw_stats(const OverlayView& view) {
    const pacer::Summary s = view.stats->summarize();
    const bool reset = ImGui::Button("Reset");
    ImGui::SameLine();
    ImGui::Text("last %lld frames, %.1f fps", static_cast<long long>(s.frames), s.fps);
    if (!ImGui::BeginTable("stats", 4, ImGuiTableFlags_SizingStretchSame)) return reset;
    auto cell = [](const char* name, const char* format, double value) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::Text(format, value);
    };
    auto text_cell = [](const char* name, const char* text) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", text);
    };
    // What reached the screen first, then the wakes.
    for (const auto& [name, c] : {std::pair{"present", s.presents}, std::pair{"shown", s.shown}}) {
        char label[32];
        std::snprintf(label, sizeof label, "%s off", name);
        if (c.intervals == 0) {
            text_cell(label, "none");
            text_cell(name == std::string("present") ? "present p99" : "shown p99", "-");
            continue;
        }
        cell(label, "%.2f %%", c.off_pct);
        cell(name == std::string("present") ? "present p99" : "shown p99", "%.3f ms", c.p99_us * 1e-3);
    }
    cell("wake off", "%.2f %%", s.off_pct);
    cell("wake p99", "%.3f ms", s.interval.p99_us * 1e-3);
    cell("wake p50", "%.3f ms", s.interval.p50_us * 1e-3);
    cell("wake sigma", "%.3f ms", s.interval.sd_us * 1e-3);
    cell("wake max", "%.3f ms", s.interval.max_us * 1e-3);
    cell("missed", "%.0f", static_cast<double>(s.missed));
    if (s.cpu_pct >= 0) {
        cell("CPU waiting", "%.1f %%", s.cpu_pct);
    } else {
        text_cell("CPU waiting", "unknown");
    }
    cell("spin", "%.1f %%", s.spin_pct);
    ImGui::EndTable();
    return reset;
}

void FrameView::draw_scene_labels(const OverlayView& view) {
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
    // The rate in force (the newest frame's period), as the strip is drawn.
    const std::size_t frames = view.stats->size();
    const int64_t period_ns = frames > 0 ? view.stats->at(frames - 1).period_ns : 0;
    const int stride = Scene::strip_stride(period_ns > 0 ? 1e9 / static_cast<double>(period_ns)
                                                         : view.pacer->config().target_hz);
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
